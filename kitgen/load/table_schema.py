"""The JSON Schema of a card list or label list that may instead name a spreadsheet (CSV, XLSX, ODS)."""
from __future__ import annotations

from typing import Any, Callable

_FILE_SCHEMA = {"type": "string", "pattern": r"\.([Cc][Ss][Vv]|[Tt][Ss][Vv]|[Xx][Ll][Ss][XxMm]|[Oo][Dd][Ss])$",
                "description": "A spreadsheet (CSV, XLSX or ODS) in the activity's folder, one row each under a "
                               "heading row."}
_READ_OPTIONS = {"file": _FILE_SCHEMA,
                 "sheet": {"type": "string", "description": "The sheet of an XLSX or ODS file to read (default: "
                                                            "the first)."},
                 "encoding": {"type": "string", "description": "The text encoding of a CSV file, such as utf-8 or "
                                                               "cp1252 (default: detected)."},
                 "delimiter": {"type": "string", "minLength": 1, "maxLength": 1,
                               "description": "The character between the values of a CSV file (default: detected)."},
                 "header_row": {"type": "integer", "minimum": 1,
                                "description": "The row that holds the headings; the rows above it, such as a title, "
                                               "are not read (default: the first row that is not empty)."}}


def _or_table(extra: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """A JSON Schema hook: the field's own schema, or a spreadsheet reference (a file name, or `{file: ...}`)."""
    def hook(schema: dict[str, Any]) -> None:
        # if/then/else rather than anyOf: a mistake in a list written in YAML is reported at its own place
        # (decks.0.cards.3.count), not as "not valid under any of the given schemas"
        own = dict(schema)
        title, default = own.pop("title", None), own.pop("default", None)
        schema.clear()
        schema.update({"if": {"type": "array"}, "then": own,
                       "else": {"anyOf": [_FILE_SCHEMA, {"type": "object", "required": ["file"],
                                                         "additionalProperties": False,
                                                         "properties": {**_READ_OPTIONS, **extra}}]}})
        if title:
            schema["title"] = title
        if default is not None:
            schema["default"] = default
    return hook


cards_schema = _or_table({
    "data": {"type": "array", "items": {"type": "string"},
             "description": "The columns whose values go to each card's data."},
    "columns": {"type": "object", "additionalProperties": {"type": "string"},
                "description": "Heading → the card field it fills (or data.NAME), for other headings."},
    "card": {"type": "object", "description": "Fields every card has unless its row gives them."},
    "ignore": {"type": "array", "items": {"type": "string"},
               "description": "Columns left out: their headings, or letters (such as C) for a column without a "
                              "heading."},
    "ids": {"enum": ["name", "row"],
            "description": "With no id column: each card's id made from its name (Polar bear → polar-bear, a "
                           "repeated name polar-bear-2, -3) or from its row (row-1, row-2, ...)."}})
labels_schema = _or_table({"column": {"type": "string",
                                      "description": "The column that holds the labels (default: the first)."}})

"""`kitgen new --from`: the deck's `cards:` written for a teacher's spreadsheet, every choice commented: the
sheet, a title row above the headings, each heading's card field (`columns:`), the data columns, where the
ids come from, the columns and rows left out."""
from __future__ import annotations

import difflib
import json
import re
from pathlib import Path
from typing import Any

from kitgen.app.headings import Column, map_columns, WHAT
from kitgen.core.errors import ContentError, UsageError
from kitgen.load.cells import slug
from kitgen.load.spreadsheets import (card_fields, CSV_SUFFIXES, read_csv, read_workbook, sheet_names, Table,
                                      WORKBOOK_SUFFIXES)

_PLAIN = re.compile(r"[^\W\d_][\w .()'/&+-]*")
_RESERVED = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}
_WIDTH = 30  # where the comments of the keys begin


def yaml_text(text: str) -> str:
    """`text` as a YAML scalar, in a flow list too: plain when it reads back as the same text, else quoted."""
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED and not text.endswith(" "):
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    for char in "\u0085\u2028\u2029\ufeff":
        quoted = quoted.replace(char, f"\\u{ord(char):04x}")
    return quoted


def _shown(value: Any) -> str:
    """An example value for a comment: on one line, at most 40 characters."""
    text = re.sub(r"\s+", " ", str(value)).strip()
    return repr(text[:40])


def read_sheet(table: Path, sheet: str | None) -> tuple[Table, str, int]:
    """The table as `new` reads it, the title above its headings ('' if none) and its row: a first row with one
    filled cell above a row with several is a title (a merged cell across the sheet), the headings below it."""
    suffix = table.suffix.lower()
    if suffix not in CSV_SUFFIXES + WORKBOOK_SUFFIXES:
        raise UsageError(f"{table} is not a spreadsheet: expected a .csv, .tsv, .xlsx or .ods file")
    if suffix in CSV_SUFFIXES and sheet is not None:
        raise UsageError(f"--sheet chooses a sheet of an XLSX or ODS workbook; {table.name} is a CSV file, which "
                         "has one")
    if sheet is not None:
        names = sheet_names(table)
        if sheet not in names:
            close = difflib.get_close_matches(sheet, names, n=1, cutoff=0.5)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise UsageError(f"{table} has no sheet {sheet!r}; {hint}its sheets: {', '.join(names)}")

    def read(header_row: int = 0) -> Table:
        if suffix in CSV_SUFFIXES:
            return read_csv(table, header_row=header_row)
        return read_workbook(table, sheet, header_row=header_row)

    found = read()
    headings = [h for h in found.headers if h]
    if len(headings) == 1 and found.rows and sum(c not in ("", None) for c in found.rows[0][1]) > 1:
        return read(found.rows[0][0]), headings[0], found.header_row
    return found, "", 0


def mapped_cards(table: Path, sheet: str | None = None) -> tuple[str, list[str]]:
    """The deck's `cards:` naming the spreadsheet, every column mapped and commented; the picture files its
    image column names (relative to the spreadsheet's folder), to copy along."""
    try:
        found, title, title_row = read_sheet(table, sheet)
    except ContentError as error:
        raise UsageError("\n".join(str(p) for p in error.problems[:10])) from None
    if not found.headers:
        raise UsageError(f"{table} has no heading row: its first row should name the columns (name, picture, ...)")
    if not found.rows:
        raise UsageError(f"{table} has no rows below its headings: each row below them becomes a card")
    fields = card_fields()
    columns = map_columns(found, fields, table.parent)
    lines = ["    # the cards come from a spreadsheet in this folder, one card per row: edit "
             f"{table.name} and build again", "    cards:", f"      file: {yaml_text(table.name)}"]
    if found.sheet:
        lines.append(f"      sheet: {yaml_text(found.sheet)}")
    if title:
        lines.append(_keyed(f"header_row: {found.header_row}", f"row {title_row} holds a title "
                            f"({_shown(title)}), not read: the headings are in row {found.header_row}"))
    first = found.rows[0]
    renamed = [c for c in columns if c.target and c.heading != c.target]
    kept = [c for c in columns if not c.skip and c.target is None]
    demoted = [c for c in kept if c.heading in fields]  # a field's own heading, values that do not fit: data.NAME
    if renamed or demoted:
        lines.append("      columns:")
        for column in renamed:
            what = f", {WHAT[column.target]}" if column.target in WHAT else ""
            lines.append(_keyed(f"  {yaml_text(column.heading)}: {column.target}",
                                f"{column.heading!r} → {column.target}{what} ({_example(first, column)})"))
        for column in demoted:
            lines.append(_keyed(f"  {yaml_text(column.heading)}: data.{column.heading}",
                                f"{column.heading!r} {column.note}"))
    data = [c for c in kept if c not in demoted]
    if data:
        names = ", ".join(yaml_text(c.heading) for c in data)
        lines.append(_keyed(f"data: [{names}]", "columns whose values become the card's data: {{ "
                            f"{data[0].heading} }}}} in a card's texts"))
    targets = {c.target for c in columns if c.target}
    if "id" not in targets:
        lines += _ids(found, columns, "name" in targets)
    skipped = [c for c in columns if c.skip and c.note != "is empty: not read"]
    if skipped:
        lines.append(_keyed(f"ignore: [{', '.join(c.letters for c in skipped)}]",
                            "; ".join(f"column {c.letters} {c.note}" for c in skipped)))
    lines.append("      # columns found:")
    for column in columns:
        if column.target:
            role = f"card field {column.target!r}"
        elif column.skip:
            role = f"not read: it {column.note.split(': ')[0]}" if column.heading else column.note
        else:
            role = f"data, {{{{ {column.heading} }}}} in a card's texts" + (f" ({column.note})" if column.note else "")
        lines.append(f"      #   {column.letters} {column.heading or '(no heading)'}: {role} "
                     f"({_example(first, column)})")
    if found.empty_rows:
        rows = ", ".join(str(r) for r in found.empty_rows)
        lines.append(f"      # empty row{'s' if len(found.empty_rows) > 1 else ''} {rows}: skipped, no card")
    if "count" not in targets:
        lines.append("      # no 'count' column: one card of each row (add a column headed 'count' for more)")
    return "\n".join(lines) + "\n\n", [f for c in columns for f in c.files if c.target == "image"]


def _keyed(key: str, comment: str) -> str:
    return f"      {key}".ljust(_WIDTH) + f"  # {comment}"


def _example(first: tuple[int, list[Any]], column: Column) -> str:
    row, cells = first
    value = cells[column.number - 1] if column.number <= len(cells) else ""
    return f"row {row}: {_shown(value)}"


def _ids(table: Table, columns: list[Column], names: bool) -> list[str]:
    """`ids: name` or `ids: row` with its comment, and the first ids it makes."""
    why = "no column is headed 'id'"
    id_column = next((c for c in columns if c.heading == "id" or (c.note and c.heading.lower() == "id")), None)
    if id_column is not None:
        why = f"the column {id_column.heading!r} cannot give the ids ({id_column.note.removeprefix('kept as data: ')})"
    if names:
        name = next(c for c in columns if c.target == "name")
        cells = table.rows[0][1]
        first = slug(str(cells[name.number - 1])) if name.number <= len(cells) else ""
        return [_keyed("ids: name", f"{why}: each card's id is its name in lower case with '-' ({first or 'row-1'}); "
                                    "a repeated name gets -2, -3, ... in row order")]
    return [_keyed("ids: row", f"{why} and none names the cards: their ids are row-1, row-2, ... from the first "
                               "row below the headings")]

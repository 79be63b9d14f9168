"""A spreadsheet's columns for other language editions: beside `name` and `text`, columns headed `name_fr` and
`text_fr` (or `habitat_fr` beside a data column `habitat`) hold the French edition's values.

    id,name,name_fr,text,text_fr
    cat,Cat,Chat,It purrs.,Il ronronne.

The French edition of the activity takes each card's value from the `_fr` column, cell by cell; an empty `_fr`
cell keeps the value of the base column (and the edition's quality report says so). Every other edition reads the
`_fr` columns as nothing at all. The id column is never translated: a card has the same id in every edition.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kitgen.core.errors import Hints
from kitgen.core.notes import Note, NoteKind

TRANSLATED = re.compile(r"(.+)_([a-z]{2})")  # `text_fr`: the column `text`, in French


def column_target(heading: str, renames: dict[str, Any], fields: list[str],
                  declared: set[str]) -> tuple[str, ...] | None:
    """What a column (or the column a translation heading names) fills: a card field (`('name',)`), a data value
    (`('data', 'habitat')`), or None for a heading that names neither."""
    mapped = str(renames.get(heading, heading))
    if mapped in fields:
        return (mapped,)
    if heading in declared or mapped.startswith("data."):
        return ("data", mapped[5:] if mapped.startswith("data.") else mapped)
    return None


@dataclass
class Translated:
    """A column of values for one language edition: its number (1-based), the value it replaces, the heading of
    the base column (or field) it translates, and its language."""

    number: int
    target: tuple[str, ...]
    base: str
    language: str


@dataclass
class ColumnEditions:
    """The translation columns of one sheet: those of the edition being built, and the empty cells found in them."""

    language: str  # the edition being built
    languages: list[str]  # the languages with a catalog
    columns: list[Translated] = field(default_factory=list)  # this edition's, in column order
    empty: dict[int, list[int]] = field(default_factory=dict)  # column number → rows whose cell is empty

    def heading(self, heading: str, number: int, target_of: Any, choices: list[str],
                hints: Hints) -> tuple[bool, str | None]:
        """(is this a translation heading, the problem with it). A translation column of the edition being built
        is kept in `columns`; one of another edition is read as nothing."""
        found = TRANSLATED.fullmatch(heading)
        if found is None:
            return False, None
        base, language = found[1], found[2]
        target = target_of(base)
        known = language in self.languages
        if target is None and not known:
            return False, None  # (an unknown column, said as any other)
        if target is None:
            close = hints.close(base, choices)
            hint = f"did you mean {close + '_' + language!r}? " if close else ""
            return True, (f"the column {heading!r} translates {base!r}, which is no card field or data column; {hint}"
                          f"expected a card field or a column listed under data: before '_{language}', such as "
                          f"'text_{language}'")
        if not known:
            alike = [other for other in self.languages if any(a == b for a, b in zip(other, language))]
            close = hints.close(heading, [f"{base}_{other}" for other in alike])  # (fe → fr; xx → none)
            hint = f"did you mean {close!r}? " if close else ""
            return True, (f"the column {heading!r} is for the language {language!r}, which has no catalog; {hint}"
                          f"expected one of: {', '.join(base + '_' + other for other in self.languages)} "
                          f"(or a data column: list {heading!r} under data:)")
        if target == ("id",):
            return True, (f"the column {heading!r} translates the id, which stays the same in every edition; "
                          "expected no translation of the id column (translate the name instead)")
        if language == self.language:
            self.columns.append(Translated(number, target, base, language))
        return True, None

    def apply(self, cells: list[Any], row: int, card: dict[str, Any], data: dict[str, Any]) -> list[Translated]:
        """The columns whose cell in this row replaces a value (each empty one over a value is counted)."""
        used: list[Translated] = []
        for column in self.columns:
            value = cells[column.number - 1] if column.number <= len(cells) else ""
            if value == "" or value is None:
                had = data if column.target[0] == "data" else card
                if column.target[-1] in had:
                    self.empty.setdefault(column.number, []).append(row)
                continue
            used.append(column)
        return used

    def notes(self, where: Any) -> list[Note]:
        """One note for each translation column with empty cells: those cards print the base column's value."""
        made = []
        for column in self.columns:
            rows = self.empty.get(column.number)
            if not rows:
                continue
            listed = ", ".join(str(row) for row in rows[:5]) + (" …" if len(rows) > 5 else "")
            cells = f"{len(rows)} empty cells (rows {listed})" if len(rows) > 1 else f"an empty cell (row {listed})"
            made.append(Note(NoteKind.UNTRANSLATED_CELL,
                             f"the column has {cells}: the {column.language!r} edition prints the value of "
                             f"{column.base!r} there, untranslated", where(rows[0], column.number),
                             figures=(("cells", len(rows)),)))
        return made

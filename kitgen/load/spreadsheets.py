"""Card lists from spreadsheets: a deck's `cards:` (and a mat's place `labels:`) may name a CSV, XLSX or ODS
file in the activity folder instead of listing the items in YAML.

    cards: animals.csv
    cards: {file: animals.xlsx, sheet: Animals, data: [habitat, legs], card: {caption: "{{ habitat }}"}}
    labels: {file: places.csv, column: place}

The file is read before validation and replaced by the list it stands for, so every check, total, host-key
table and placeholder works as for cards written in YAML. Each value remembers its cell: a problem in it reads
`content/animals.csv:14:3 (column 'habitat'): ...` or `content/animals.xlsx, sheet Animals, C14 (column
'habitat'): ...`. CSV is read with the standard library (encoding and delimiter detected, or declared with
`encoding:` and `delimiter:`); XLSX and ODS with python-calamine.
"""
from __future__ import annotations

import csv
import difflib
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from kitgen.core.errors import ContentError, display_path, Hints, Problem
from kitgen.core.notes import Note, NoteKind
from kitgen.load.column_editions import column_target, ColumnEditions
from kitgen.load.cells import cell_count, cell_datum, cell_text, column_letters, column_number, slug
from kitgen.load.csv_text import decode, sniff_delimiter
from kitgen.load.placeholders import expand, on_cards, unfilled
from kitgen.load.source import CellProblem, dotted, Location, SourceMap, strip_location
from kitgen.load.workbook_size import (MAX_INFLATED_BYTES, MAX_PARTS, MAX_ROWS, MAX_SHEET_COLUMNS,  # noqa: F401
                                       MAX_SHEET_ROWS, check_inflated, check_ods_sheets, check_xlsx_sheet, workbook_archive)

MAX_TABLE_BYTES = 20_000_000
CSV_SUFFIXES = (".csv", ".tsv")
WORKBOOK_SUFFIXES = (".xlsx", ".xlsm", ".ods")
SPEC_KEYS = {
    "cards": ("file", "sheet", "encoding", "delimiter", "header_row", "columns", "data", "ignore", "ids", "card"),
    "labels": ("file", "sheet", "encoding", "delimiter", "header_row", "column"),
}
ID_SOURCES = ("name", "row")  # `ids: name`: each card's name as an id (polar-bear, polar-bear-2); `ids: row`: row-1, ...
LOST = re.compile(r"\?+")  # a picture cell of a CSV that is only '?': emoji a save as plain "CSV" lost
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")


@dataclass
class Table:
    """The rows of one sheet: its heading row and every non-empty row below, with their row numbers."""

    path: Path
    sheet: str | None  # None for CSV
    header_row: int = 0
    from_row: int = 0  # the heading row asked for (`header_row:`); the rows above it are not read
    headers: list[str] = field(default_factory=list)
    rows: list[tuple[int, list[Any]]] = field(default_factory=list)  # (1-based row or line, cells)
    empty_rows: list[int] = field(default_factory=list)  # those skipped below the headings
    shown: str = ""  # the file as the user would type it
    legacy: tuple[int, int] | None = None  # a CSV read as cp1252, not UTF-8: the line and column of its first such byte

    def __post_init__(self) -> None:
        self.shown = self.shown or display_path(self.path)

    def where(self, row: int, column: int | None = None) -> str:
        """`content/a.csv:14:3 (column 'x')`, `content/a.xlsx, sheet S, C14 (column 'x')`; a row without column."""
        heading = self.headers[column - 1] if column and column <= len(self.headers) else ""
        named = f" (column {heading!r})" if heading else ""
        if self.sheet is None:
            return f"{self.shown}:{row}:{column or 1}{named}" if column else f"{self.shown}:{row}:1 (row {row})"
        return (f"{self.shown}, sheet {self.sheet}, {column_letters(column)}{row}{named}" if column
                else f"{self.shown}, sheet {self.sheet}, row {row}")

    def problem(self, row: int, column: int | None, message: str) -> CellProblem:
        return CellProblem(self.shown, row, column or 1, message, label=self.where(row, column))


# ---------------------------------------------------------------------------------------------- reading


def _read_bytes(path: Path, shown: str) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_TABLE_BYTES:
            raise ContentError([Problem(shown, 1, 1, f"the file is {size:,} bytes, expected at most {MAX_TABLE_BYTES:,}")])
        return path.read_bytes()
    except OSError as error:
        raise ContentError([Problem(shown, 1, 1, f"cannot read the file: {error.strerror}")]) from None


def read_csv(path: Path, encoding: str | None = None, delimiter: str | None = None, header_row: int = 0) -> Table:
    table = Table(path, None, from_row=header_row)
    text, table.legacy = decode(_read_bytes(path, table.shown), encoding, table.shown)
    delimiter = delimiter or (sniff_delimiter(text) if path.suffix.lower() != ".tsv" else "\t")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    line = 1
    try:
        for cells in reader:
            start, line = line, reader.line_num + 1
            _add_row(table, start, [cell.strip() for cell in cells])
    except csv.Error as error:
        raise ContentError([Problem(table.shown, line, 1, f"CSV: {error}; expected rows of cells separated "
                                                          f"by {delimiter!r}")]) from None
    return table


def _plain(value: Any) -> Any:
    """A workbook cell as plain data: whole numbers as int, dates as ISO text, empty as ''."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        return int(value)
    if isinstance(value, str):
        return value.strip()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "total_seconds"):  # a duration
        return str(value)
    return value


# ---------------------------------------------------------------------------------------------- guarding workbooks
# calamine lays a sheet out as one dense block of cells, from A1 to the farthest cell it holds, and a workbook is a
# zip archive: a small file can ask for terabytes. What a sheet spans and what its parts inflate to are read here
# first, from the archive itself, and refused past the limits before calamine reads anything.

def sheet_names(path: Path) -> list[str]:
    """The names of a workbook's sheets, in order (the file guarded as for reading it)."""
    return _open_workbook(path, display_path(path))[1]


def _open_workbook(path: Path, shown: str) -> tuple[Any, list[str]]:
    from python_calamine import CalamineWorkbook

    _read_bytes(path, shown)  # size and readability checked first
    ods = path.suffix.lower() == ".ods"
    with workbook_archive(path, shown) as archive:  # before calamine reads any part of it
        check_inflated(archive, shown)
        if ods:  # calamine lays out every table of an ODS file as it opens it
            check_ods_sheets(archive, shown)
    try:
        workbook = CalamineWorkbook.from_path(str(path))
    except Exception as error:  # calamine's errors for a damaged or password-protected file
        raise ContentError([Problem(shown, 1, 1, f"cannot read the workbook ({error}); expected an XLSX or ODS "
                                                 "file saved by a spreadsheet program")]) from None
    return workbook, list(workbook.sheet_names)


def read_workbook(path: Path, sheet: str | None = None, at: Problem | None = None, header_row: int = 0) -> Table:
    shown = display_path(path)
    ods = path.suffix.lower() == ".ods"
    workbook, names = _open_workbook(path, shown)
    if sheet is None:
        if not names:
            raise ContentError([Problem(shown, 1, 1, "the workbook has no sheets")])
        sheet = names[0]
    elif sheet not in names:
        close = difflib.get_close_matches(sheet, names, n=1, cutoff=0.6)
        hint = f", did you mean {close[0]!r}?" if close else f"; sheets: {', '.join(names)}"
        problem = at or Problem(shown, 1, 1, "")
        raise ContentError([Problem(problem.file, problem.line, problem.column,
                                    f"sheet: {shown} has no sheet {sheet!r}{hint}")])
    if not ods:  # an XLSX sheet is laid out when it is asked for: this one only
        with workbook_archive(path, shown) as archive:
            check_xlsx_sheet(archive, shown, sheet, names.index(sheet))
    table = Table(path, sheet, from_row=header_row)
    rows = workbook.get_sheet_by_name(sheet).to_python(skip_empty_area=False)
    for number, cells in enumerate(rows, 1):
        _add_row(table, number, [_plain(cell) for cell in cells])
    return table


def _add_row(table: Table, number: int, cells: list[Any]) -> None:
    """The first non-empty row (at or below `from_row`) is the heading row; every empty row is skipped."""
    if number < table.from_row:
        return
    if all(cell == "" or cell is None for cell in cells):
        if table.headers and len(table.empty_rows) < MAX_LISTED:
            table.empty_rows.append(number)
        return
    if not table.headers and table.header_row == 0:
        table.header_row = number
        table.headers = [str(cell).strip() if cell is not None else "" for cell in cells]
        while table.headers and not table.headers[-1]:
            table.headers.pop()
        return
    if len(table.rows) >= MAX_ROWS:
        raise ContentError([table.problem(number, None, f"more than {MAX_ROWS:,} rows, expected at most {MAX_ROWS:,}")])
    table.rows.append((number, cells))


def read_table(path: Path, options: dict[str, Any], at: Problem) -> Table:
    if path.suffix.lower() in CSV_SUFFIXES:
        return read_csv(path, options.get("encoding"), options.get("delimiter"), options.get("header_row", 0))
    return read_workbook(path, options.get("sheet"), at, options.get("header_row", 0))


# ---------------------------------------------------------------------------------------------- mapping


def card_fields() -> list[str]:
    from kitgen.load.model import CardKind

    return [name for name in CardKind.model_fields if name != "data"]


@dataclass
class _Expansion:
    source: SourceMap
    folder: Path
    files: list[Path] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    language: str = "en"  # the edition being built: its FIELD_LL columns replace FIELD's values
    languages: list[str] = field(default_factory=lambda: ["en"])  # those with a catalog

    def at(self, loc: Location, message: str, *, key: bool = False) -> Problem:
        return self.source.problem(loc, message, key=key)

    def spec(self, value: Any, loc: Location, kind: str) -> tuple[dict[str, Any], Path] | None:
        """The reference's options and the file it names, or None (a problem noted)."""

        spec = {"file": value} if isinstance(value, str) else dict(value)
        allowed = SPEC_KEYS[kind]
        for key in spec:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
                hint = f", did you mean {close[0]!r}?" if close else f", expected one of: {', '.join(allowed)}"
                self.problems.append(self.at(loc + (key,), f"{dotted(loc + (key,))}: unknown key {key!r}{hint}",
                                             key=True))
        name = spec.get("file")
        if not isinstance(name, str) or not name.strip():
            self.problems.append(self.at(loc, f"{dotted(loc)}: expected a list, or the name of a CSV, XLSX or ODS "
                                              "file in the activity folder"))
            return None
        where = loc if isinstance(value, str) else loc + ("file",)
        suffix = Path(name).suffix.lower()
        if suffix not in CSV_SUFFIXES + WORKBOOK_SUFFIXES:
            self.problems.append(self.at(where, f"{dotted(where)}: {name!r} is not a spreadsheet, expected a "
                                                ".csv, .tsv, .xlsx or .ods file (or a list written here)"))
            return None
        path = self.folder / name
        if Path(name).is_absolute() or not path.resolve().is_relative_to(self.folder.resolve()):
            self.problems.append(self.at(where, f"{dotted(where)}: {name!r} is outside the activity folder, "
                                                f"expected a file in {display_path(self.folder)}/"))
            return None
        if not path.is_file():
            self.problems.append(self.at(where, f"{dotted(where)}: no file {display_path(path)}, expected a "
                                                "spreadsheet in the activity folder"))
            return None
        for option in ("sheet", "encoding", "delimiter", "column"):
            if option in spec and not isinstance(spec[option], str):
                self.problems.append(self.at(loc + (option,), f"{dotted(loc + (option,))}: expected text"))
                return None
        row = spec.get("header_row", 1)
        if isinstance(row, bool) or not isinstance(row, int) or not 0 < row <= MAX_SHEET_ROWS:
            self.problems.append(self.at(loc + ("header_row",), f"{dotted(loc + ('header_row',))}: expected the "
                                                                "number of the row that holds the headings, such as 2"))
            return None
        if "delimiter" in spec and len(spec["delimiter"]) != 1:
            self.problems.append(self.at(loc + ("delimiter",), f"{dotted(loc + ('delimiter',))}: expected one "
                                                               "character, such as ',' or ';'"))
            return None
        self.files.append(path)
        return spec, path

    def table(self, spec: dict[str, Any], path: Path, loc: Location) -> Table | None:
        try:
            table = read_table(path, spec, self.at(loc + ("sheet",), ""))
        except ContentError as error:
            self.problems += error.problems
            return None
        wanted = spec.get("header_row")
        if wanted and table.header_row != wanted:
            where = loc + ("header_row",)
            self.problems.append(self.at(where, f"{dotted(where)}: row {wanted} of {table.shown} is empty, expected "
                                                "the row that holds the headings"))
            return None
        return table

    # -- a deck's cards

    def cards(self, value: Any, loc: Location) -> list[dict[str, Any]] | None:

        found = self.spec(value, loc, "cards")
        if found is None:
            return None
        spec, path = found
        declared = spec.get("data", [])
        renames = spec.get("columns", {})
        defaults = spec.get("card", {})
        checks: tuple[tuple[str, str, Callable[[Any], bool]], ...] = (
            ("data", "a list of column names", lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v)),
            ("columns", "a mapping of column names to card fields",
             lambda v: isinstance(v, dict) and all(isinstance(i, str) for i in v.values())),
            ("card", "a mapping of card fields", lambda v: isinstance(v, dict)),
            ("ignore", "a list of headings or column letters",
             lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v)),
            ("ids", f"one of: {', '.join(ID_SOURCES)}", lambda v: v in ID_SOURCES))
        for key, kind, check in checks:
            if key in spec and not check(spec[key]):
                self.problems.append(self.at(loc + (key,), f"{dotted(loc + (key,))}: expected {kind}"))
                return None
        table = self.table(spec, path, loc)
        if table is None:
            return None
        start = len(self.problems)  # (the problems of this sheet: a heading's leave its rows to be read)
        fields = card_fields()
        ignored = self._ignored(table, spec.get("ignore", []), loc + ("ignore",))
        headings = {h for n, h in enumerate(table.headers, 1) if n not in ignored}
        wanted = set(declared)
        choices = fields + [d for d in declared if d not in headings]  # once: what an unknown heading may mean
        filled = _filled_columns(table) if "" in headings else set()
        hints = Hints()
        editions = ColumnEditions(self.language, self.languages)
        targets: list[tuple[str, ...] | None] = []
        seen: dict[str, int] = {}
        for number, heading in enumerate(table.headers, 1):
            target: tuple[str, ...] | None
            if number in ignored:
                target = None
            elif not heading:
                target = None
                if number in filled:
                    self.problems.append(table.problem(table.header_row, number, "a column without a heading, "
                                                       "expected a heading naming a card field or a data column"))
            elif heading in seen:
                target = None
                self.problems.append(table.problem(table.header_row, number, f"the heading {heading!r} is also "
                                                   f"column {column_letters(seen[heading])}, expected each once"))
            else:
                target = column_target(heading, renames, fields, wanted)
                translation, wrong = (False, None) if target else editions.heading(
                    heading, number, lambda base: column_target(base, renames, fields, wanted), choices, hints)
                if wrong:
                    self.problems.append(table.problem(table.header_row, number, wrong))
                elif target is None and not translation:
                    close = hints.close(heading, choices)
                    hint = f"did you mean {close!r}? " if close else ""
                    self.problems.append(table.problem(
                        table.header_row, number,
                        f"unknown column {heading!r}; {hint}expected a card field ({', '.join(fields)}), "
                        f"a column listed under {dotted(loc + ('data',))}, or a heading 'data.{heading}'"))
            seen.setdefault(heading, number)
            targets.append(target)
        for d, name in enumerate(declared):
            if name not in headings and renames.get(name) is None:
                close = hints.close(name, table.headers)
                hint = f", did you mean {close!r}?" if close else f"; its columns: {listed(table.headers)}"
                self.problems.append(self.at(loc + ("data", d), f"{dotted(loc + ('data', d))}: no column {name!r} "
                                                                f"in {table.shown}{hint}"))
        named = {t[0] for t in targets if t and len(t) == 1}
        ids = spec.get("ids")
        ids_from_names = "id" not in named and "id" not in defaults and "name" in named and ids is None
        if ids is not None and ("id" in named or "id" in defaults):
            self.problems.append(self.at(loc + ("ids",), f"{dotted(loc + ('ids',))}: the cards' ids are given "
                                                         f"{'by a column' if 'id' in named else 'under card:'}, "
                                                         f"expected either that or ids: {ids}, not both"))
        elif "id" not in named and "id" not in defaults and not ids_from_names and ids is None:
            self.problems.append(table.problem(table.header_row, None, f"no 'id' column; expected a column "
                                               f"headed 'id' (each card's id) or 'name' (the name is then the id), or "
                                               f"ids: name or ids: row beside file:, then any of: "
                                               f"{', '.join(fields[1:])}"))
            return None  # (the cards cannot be told apart: the rows are not read)
        cards: list[dict[str, Any]] = []
        given: set[str] = set()  # the ids `ids:` made so far
        unfilled_rows: dict[tuple[str, str], int] = {}  # (template field, why it cannot be filled) → rows
        lost: list[tuple[int, int]] = []  # (row, column) of each picture cell that is only '?'
        for row, cells in table.rows:
            self._fits(table, row, cells, ignored)  # (said; its card is made of the cells under headings, so
            # nothing that counts or names the cards reports a card missing)
            card: dict[str, Any] = {key: value for key, value in defaults.items() if key != "data"}
            data: dict[str, Any] = dict(defaults.get("data", {})) if isinstance(defaults.get("data"), dict) else {}
            here = loc + (len(cards),)
            self._place(here, table, row, None)
            for number, (target, value) in enumerate(zip(targets, cells), 1):  # (ignored columns: no target)
                if target is None or value == "" or value is None:
                    continue
                self._fill(card, data, here, target, table, row, number, value, lost)
            card.setdefault("count", 1)
            for key in ("id", "name"):  # the template's `name: "{{ a }} × {{ b }}"` is filled from the row now
                if key not in named and isinstance(card.get(key), str) and "{" in card[key]:
                    try:
                        card[key] = expand(card[key], data)
                    except Exception as error:  # a name the rows' data does not fill: said once, at the template
                        why = unfilled(error, data, hints)
                        unfilled_rows[(key, why)] = unfilled_rows.get((key, why), 0) + 1
                        continue
                    column = _first_column(str(defaults.get(key, "")), targets)  # the cell it was made from
                    if column is not None:
                        self._place(here + (key,), table, row, column)
            for key in defaults:  # what the template gives this row: a problem in it is said once, at the template
                if key != "data" and (here + (key,)) not in self.source.values:
                    self.source.templates[here + (key,)] = loc + ("card", key)
            if ids_from_names and "name" in card:  # a teacher's sheet has names, not ids: each name is its card's id
                card["id"] = card["name"]
                self.source.values[here + ("id",)] = self.source.values[here + ("name",)]
                self.source.cells[here + ("id",)] = self.source.cells[here + ("name",)]
            elif ids is not None:
                self._give_id(card, ids, len(cards) + 1, given, here)
            translated = editions.apply(cells, row, card, data)  # (after the ids: the same in every edition)
            for each in translated:
                self._fill(card, data, here, each.target, table, row, each.number, cells[each.number - 1], lost)
            if translated and "name" not in named and "{" in str(defaults.get("name", "")):
                try:  # a name made from translated data
                    card["name"] = expand(str(defaults["name"]), data)
                except Exception:
                    pass  # (the name made from the base columns is kept)
            if data or "data" in defaults:
                card["data"] = data
                self.source.values.setdefault(here + ("data",), self.source.values[here])
            cards.append(card)
        self._encoding(table, lost)
        self.notes += editions.notes(table.where)
        for (key, why), count in unfilled_rows.items():
            where = loc + ("card", key)
            self.problems.append(self.at(where, f"{dotted(where)}: the {key} cannot be filled from the rows: "
                                                f"{on_cards(why, count)}"))
        if unfilled_rows:
            return None  # cards whose id or name cannot be made are not made
        if not cards and len(self.problems) == start:
            self.problems.append(table.problem(table.header_row or 1, None, "no rows below the headings, expected "
                                               "one row per card"))
        return cards

    def _fill(self, card: dict[str, Any], data: dict[str, Any], here: Location, target: tuple[str, ...], table: Table,
              row: int, number: int, value: Any, lost: list[tuple[int, int]]) -> None:
        """The card's value `target` from the cell at (`row`, `number`)."""
        if target == ("picture",) and table.sheet is None and LOST.fullmatch(str(value)):
            lost.append((row, number))  # an emoji a spreadsheet program saving "CSV" turned into '?'
            return
        self._control(table, row, number, value)
        if target[0] == "data":
            data[target[1]] = cell_datum(value)
        else:
            card[target[0]] = cell_count(value) if target[0] == "count" else cell_text(value)
        self._place(here + target, table, row, number)

    def _give_id(self, card: dict[str, Any], ids: str, ordinal: int, given: set[str], here: Location) -> None:
        """`ids: name`: the card's name as an id, lower case with '-' (Polar bear → polar-bear), a name already
        given once → polar-bear-2, -3, ... in row order; `ids: row` (or a name with no letter or digit to keep):
        row-1, row-2, ... counting the cards' rows from the first below the headings."""
        name = card.get("name")
        base = (slug(name) if ids == "name" and isinstance(name, str) else "") or f"row-{ordinal}"
        made, n = base, 1
        while made in given:
            n += 1
            made = f"{base[:63 - len(str(n)) - 1].rstrip('-')}-{n}"
        given.add(made)
        card["id"] = made
        at = here + ("name",) if ids == "name" and here + ("name",) in self.source.values else here
        self.source.values[here + ("id",)] = self.source.values[at]
        if at in self.source.cells:
            self.source.cells[here + ("id",)] = self.source.cells[at]

    def _ignored(self, table: Table, names: list[str], loc: Location) -> set[int]:
        """The numbers of the columns `ignore:` names: every column with that heading, else the column with
        those letters (C, AB) for one without a heading."""
        numbers: set[int] = set()
        for i, name in enumerate(names):
            found = {n for n, heading in enumerate(table.headers, 1) if heading == name}
            if not found and re.fullmatch(r"[A-Z]{1,3}", name.strip()):
                found = {column_number(name.strip())}
            if not found:
                self.problems.append(self.at(loc + (i,), f"{dotted(loc + (i,))}: no column {name!r} in {table.shown}, "
                                                         "expected a heading or a column's letters (such as C)"))
            numbers |= found
        return numbers

    def _fits(self, table: Table, row: int, cells: list[Any], ignored: set[int] = set()) -> bool:
        """A row has no value outside the headed (or ignored) columns, and a CSV row has one cell per column (else a
        problem)."""
        width = len(table.headers)
        extra = [n for n, cell in enumerate(cells[width:], width + 1) if cell not in ("", None) and n not in ignored]
        if extra:
            self.problems.append(table.problem(row, extra[0], f"a value in column {column_letters(extra[0])}, "
                                               f"which has no heading; expected at most {width} columns"))
            return False
        if table.sheet is None and len(cells) < width:
            self.problems.append(table.problem(row, None, f"the row has {len(cells)} cells, expected {width} "
                                               "(one per column; a value with a comma needs quotes)"))
            return False
        return True

    def _encoding(self, table: Table, lost: list[tuple[int, int]]) -> None:
        """Emoji lost to '?' where pictures were expected: a problem at the first, with how to save the file; a CSV
        that is not UTF-8 but read well as cp1252: a note saying how to save it so that emoji and letters survive."""
        save = 'save it as "CSV UTF-8" in the spreadsheet program'
        legacy = (f"this file is not UTF-8 (from line {table.legacy[0]}, column {table.legacy[1]}); "
                  if table.legacy else "")
        if lost:
            row, column = lost[0]
            rows = f"{len(lost):,} rows" if len(lost) > 1 else "1 row"
            self.problems.append(table.problem(row, column, f"'?' where a picture was expected ({rows}): saving as "
                                               f"plain \"CSV\" turns each emoji into '?'; {legacy}{save} and put the "
                                               "emoji back, or write each picture's name (penguin)"))
        elif table.legacy:
            line, column = table.legacy
            self.notes.append(Note(NoteKind.ENCODING, f"this file is not UTF-8 and was read as Windows' Western "
                                   f"European (cp1252), which has no emoji and few letters beyond Western European "
                                   f"ones; {save}", f"{table.shown}:{line}:{column}"))

    def _control(self, table: Table, row: int, number: int, value: Any) -> None:
        if isinstance(value, str) and CONTROL.search(value):
            self.problems.append(table.problem(row, number, "the text holds a control character, expected "
                                                            "printable text"))

    def _place(self, loc: Location, table: Table, row: int, column: int | None) -> None:
        self.source.values[loc] = (table.shown, row, column or 1)
        self.source.cells[loc] = table.where(row, column)

    # -- a mat's place labels

    def labels(self, value: Any, loc: Location) -> list[str] | None:

        found = self.spec(value, loc, "labels")
        if found is None:
            return None
        spec, path = found
        table = self.table(spec, path, loc)
        if table is None:
            return None
        column = spec.get("column")
        if column is None:
            number = 1
        elif column in table.headers:
            number = table.headers.index(column) + 1
        else:
            close = Hints().close(column, table.headers)
            hint = f", did you mean {close!r}?" if close else f"; its columns: {listed(table.headers)}"
            self.problems.append(self.at(loc + ("column",), f"{dotted(loc + ('column',))}: no column {column!r} in "
                                                            f"{table.shown}{hint}"))
            return None
        labels: list[Any] = []
        for row, cells in table.rows:
            cell = cells[number - 1] if number <= len(cells) else ""
            if cell in ("", None):
                continue
            self._control(table, row, number, cell)
            self._place(loc + (len(labels),), table, row, number)
            labels.append(cell_text(cell))
        return labels


def _first_column(template: str, targets: list[tuple[str, ...] | None]) -> int | None:
    """The column (1-based) of the first value a template such as `{{ name }}-card` names, if a column gives it."""
    found = re.search(r"\{\{\s*([A-Za-z_]\w*)", template)
    if found is None:
        return None
    for number, target in enumerate(targets, 1):
        if target is not None and target[-1] == found[1]:
            return number
    return None


MAX_LISTED = 20  # column names listed in one message


def listed(names: list[str]) -> str:
    """`a, b, c`, or the first MAX_LISTED names and how many more."""
    shown = ", ".join(names[:MAX_LISTED])
    return shown + (f" and {len(names) - MAX_LISTED:,} more" if len(names) > MAX_LISTED else "")


def _filled_columns(table: Table) -> set[int]:
    """The numbers (1-based) of the columns holding a value in some row below the headings, in one pass."""
    filled: set[int] = set()
    for _, cells in table.rows:
        filled.update(n for n, cell in enumerate(cells, 1) if cell not in ("", None))
    return filled


def _is_reference(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, dict) and "file" in value)


def has_tables(data: Any) -> bool:
    """Does the activity name any spreadsheet (cheap: no file is read)?"""
    if not isinstance(data, dict):
        return False
    decks, boards = data.get("decks"), data.get("boards")
    decks = decks if isinstance(decks, list) else []
    boards = boards if isinstance(boards, list) else []
    return any(isinstance(d, dict) and _is_reference(d.get("cards")) for d in decks) or any(
        isinstance(b, dict) and isinstance(b.get("positions"), dict) and _is_reference(b["positions"].get("labels"))
        for b in boards)


@dataclass
class Expanded:
    """An activity's data with its spreadsheets read, and what went wrong reading them."""

    data: dict[str, Any]
    source: SourceMap
    files: list[Path]
    problems: list[Problem]  # every problem of every sheet (one of them leaves the rest of the activity to be read)
    unread: frozenset[Location] = frozenset()  # the card lists that could not be read at all (left empty)
    notes: tuple[Note, ...] = ()  # what the quality report should say of them (a CSV not saved as UTF-8)


def expand_tables(data: dict[str, Any], source: SourceMap, folder: Path, language: str = "en",
                  languages: list[str] | None = None) -> Expanded:
    """`data` with every spreadsheet reference replaced by the rows it names; the source map then also knows each
    cell. The rows are those of the `language` edition: a column `FIELD_<language>` replaces FIELD's values
    (`languages`: those a column may be headed with, each having a catalog). `data` and `source` (shared, cached) are not modified: what changes is copied. A problem of one sheet
    (a heading, a row) does not stop the others, or the rest of the rows, from being read."""
    if not has_tables(data):
        return Expanded(data, source, [], [])
    unread: set[Location] = set()
    expansion = _Expansion(SourceMap(source.file, dict(source.values), dict(source.keys), dict(source.cells),
                                     dict(source.templates)), folder, language=language,
                            languages=languages or ["en"])
    data = dict(data)
    if isinstance(data.get("decks"), list):
        data["decks"] = list(data["decks"])
        for d, deck in enumerate(data["decks"]):
            if isinstance(deck, dict) and _is_reference(deck.get("cards")):
                cards = expansion.cards(deck["cards"], ("decks", d, "cards"))
                data["decks"][d] = {**deck, "cards": cards if cards is not None else []}
                if cards is None:
                    unread.add(("decks", d, "cards"))
    if isinstance(data.get("boards"), list):
        data["boards"] = list(data["boards"])
        for b, board in enumerate(data["boards"]):
            positions = board.get("positions") if isinstance(board, dict) else None
            if isinstance(positions, dict) and _is_reference(positions.get("labels")):
                labels = expansion.labels(positions["labels"], ("boards", b, "positions", "labels"))
                data["boards"][b] = {**board, "positions": {**positions, "labels": labels or []}}
    return Expanded(data, expansion.source, sorted(set(expansion.files)), expansion.problems, frozenset(unread),
                    tuple(expansion.notes))


__all__ = ["CellProblem", "Expanded", "Table", "expand_tables", "has_tables", "read_csv", "read_workbook", "strip_location",
           "column_letters"]

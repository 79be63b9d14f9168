"""A workbook measured before it is read: a sheet's declared dimension and the cells it reaches (XLSX), every
table's repeated rows and cells (ODS), and the parts' inflated size, so that no spreadsheet can make the reader
allocate more than a classroom sheet needs."""
from __future__ import annotations

import copy
import html
import posixpath
import re
import zipfile
import zlib
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import IO, Iterator

from kitgen.core.errors import ContentError, Problem
from kitgen.load.source import CellProblem

MAX_ROWS = 10_000  # cards or labels read from one sheet

MAX_SHEET_COLUMNS = 256
MAX_SHEET_ROWS = 2 * MAX_ROWS  # the rows below the headings, with room for blank rows and a title above them
MAX_INFLATED_BYTES = 100_000_000  # a workbook's parts, uncompressed, all together
MAX_PARTS = 10_000  # files in a workbook's zip archive (a saved workbook has a few dozen)

_CHUNK = 1 << 20
_PLAIN_CELL = re.compile(rb'<c r="([^"]*)"')  # a cell as spreadsheet programs write it: `r` first, in quotes
_ANY_CELL = re.compile(rb"<c[\s/>]")
_PREFIXED_CELL = re.compile(rb"<[\w.-]+:c[\s/>]")
_XLSX_TAG = re.compile(rb"<(?:[\w.-]+:)?(row|c)(?=[\s/>])([^>]*?)(/?)>")
_DIMENSION = re.compile(rb"<(?:[\w.-]+:)?dimension(?=[\s/>])[^>]*?\sref\s*=\s*[\"'](?:[^\"':]*:)?\$?([A-Za-z]*)\$?(\d*)")
_REFERENCE = re.compile(rb"(?:^|\s)r\s*=\s*[\"']\$?([A-Za-z]*)\$?(\d*)[\"']")  # r="B14"
_ODS_TAG = re.compile(rb"<(/?)(table:table|table:table-row|table:table-cell|table:covered-table-cell)(?=[\s/>])"
                      rb"([^>]*?)(/?)>")
_TABLE_NAME = re.compile(rb"(?:^|\s)table:name\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_ROWS_REPEATED = re.compile(rb"(?:^|\s)table:number-rows-repeated\s*=\s*[\"'](\d+)[\"']")
_COLUMNS_REPEATED = re.compile(rb"(?:^|\s)table:number-columns-repeated\s*=\s*[\"'](\d+)[\"']")
_RELATIONSHIP = re.compile(rb"<(?:[\w.-]+:)?Relationship(?=[\s/>])([^>]*)>")
_SHEET = re.compile(rb"<(?:[\w.-]+:)?sheet(?=[\s/>])([^>]*)>")
_ID = re.compile(rb"(?:^|\s)Id\s*=\s*[\"']([^\"']*)[\"']")
_TARGET = re.compile(rb"(?:^|\s)Target\s*=\s*[\"']([^\"']*)[\"']")
_RELATION_ID = re.compile(rb"(?:^|\s)[\w.-]+:id\s*=\s*[\"']([^\"']*)[\"']")  # r:id="rId1"
_LETTERS = bytes(range(65, 91)) + bytes(range(97, 123)) + b"$"
_DIGITS = b"0123456789$"
_DECLARATION = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.I)  # what an entity expansion bomb needs
_FAR = 10 ** 9  # a row or column number too long to read is as good as this far


def _number(digits: bytes, default: int = 0) -> int:
    return default if not digits else int(digits) if len(digits) <= 9 else _FAR


@lru_cache(maxsize=1024)
def _column_number(letters: bytes) -> int:
    """b'A' → 1, b'XFD' → 16384."""
    if len(letters) > 6:
        return _FAR
    number = 0
    for letter in letters.upper():
        number = number * 26 + letter - 64
    return number


def _workbook_error(shown: str, message: str) -> ContentError:
    return ContentError([CellProblem(shown, 1, 1, message, label=shown)])


def _fits_sheet(columns: int, rows: int) -> bool:
    return columns <= MAX_SHEET_COLUMNS and rows <= MAX_SHEET_ROWS


def _too_large(shown: str, sheet: str, verb: str, columns: int, rows: int) -> ContentError:
    return _workbook_error(shown, f"sheet {sheet} {verb} {columns} columns × {rows} rows, at most "
                                  f"{MAX_SHEET_COLUMNS} columns × {MAX_SHEET_ROWS} rows")


def _inflating(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> IO[bytes]:
    """A part's stream that inflates all its data holds, not only the size its header declares (which can lie).
    Read a chunk at a time, it gives more than MAX_INFLATED_BYTES before the end it is told of (there, the data's
    CRC would be checked against too little of it)."""
    told = copy.copy(info)
    told.file_size = MAX_INFLATED_BYTES + 2 * _CHUNK
    return archive.open(told)


def _pieces(stream: IO[bytes]) -> Iterator[bytes]:
    """An XML stream a chunk at a time, each piece cut after its last whole tag (the rest goes with the next)."""
    tail = b""
    while chunk := stream.read(_CHUNK):
        data = tail + chunk
        cut = data.rfind(b"<")
        if cut == -1 or b">" in data[cut:]:
            cut = len(data)
        yield data[:cut]
        tail = data[cut:] if len(data) - cut <= _CHUNK else b""  # a tag of a megabyte is none that counts here
    yield tail


def check_inflated(archive: zipfile.ZipFile, shown: str) -> None:
    """Every part's inflated size: the sizes the archive declares, then the bytes the parts really inflate to."""
    if len(archive.infolist()) > MAX_PARTS:
        raise _workbook_error(shown, f"the workbook holds {len(archive.infolist()):,} files, at most {MAX_PARTS:,}")
    declared = sum(info.file_size for info in archive.infolist())
    if declared > MAX_INFLATED_BYTES:
        raise _workbook_error(shown, f"the workbook inflates to {declared:,} bytes, at most {MAX_INFLATED_BYTES:,}")
    total = 0
    for info in archive.infolist():
        with _inflating(archive, info) as stream:
            tail, xml = b"", info.filename.lower().endswith((".xml", ".rels", ".vml"))
            while chunk := stream.read(_CHUNK):
                total += len(chunk)
                found = xml and _DECLARATION.search(tail + chunk)  # (the tail: a declaration cut between chunks)
                if found:
                    raise _workbook_error(shown, f"its part {info.filename} holds a <!{found[1].decode().upper()}> "
                                                 "declaration, expected a workbook as spreadsheet programs save it "
                                                 "(without DOCTYPE or entity declarations)")
                tail = chunk[-16:]
                if total > MAX_INFLATED_BYTES:
                    raise _workbook_error(shown, f"the workbook inflates to more than {MAX_INFLATED_BYTES:,} bytes "
                                                 f"(it declares {declared:,}), at most {MAX_INFLATED_BYTES:,}")


def _declared(head: bytes) -> tuple[int, int] | None:
    """(columns, rows) of an XLSX sheet's `<dimension ref="A1:F20"/>`, which comes before its cells, or None."""
    cells = head.find(b"sheetData")
    found = _DIMENSION.search(head, 0, cells if cells >= 0 else len(head))
    return (_column_number(found[1]), _number(found[2])) if found else None


def _plain_extent(piece: bytes) -> tuple[int, int] | None:
    """(columns, rows) the cells of a piece reach, empty ones too, when each cell is written `<c r="B14"` (found
    with a few searches of the whole piece); None when some cell is written otherwise."""
    references = _PLAIN_CELL.findall(piece)
    if len(references) != len(_ANY_CELL.findall(piece)) or (b":c" in piece and _PREFIXED_CELL.search(piece)):
        return None
    joined = b" ".join(references)
    rows, letters = joined.translate(None, _LETTERS).split(), joined.translate(None, _DIGITS).split()
    if len(rows) != len(references) or len(letters) != len(references):
        return None
    longest = max(map(len, rows), default=0)
    return (max(map(_column_number, set(letters)), default=0),
            max(map(int, rows), default=0) if longest <= 9 else _FAR)


def _exact_extent(stream: IO[bytes]) -> tuple[int, int]:
    """(columns, rows) the cells of an XLSX sheet part reach, read tag by tag as calamine reads them: a cell
    without `r` comes after the one before it, in its <row>'s row; an element written empty (<c r="XFD1"/>, a
    format only) is read as nothing. Stops at the first cell past the limits."""
    row = column = columns = rows = 0  # row: of the last <row>; column: of the last cell
    for piece in _pieces(stream):
        for name, attributes, closed in _XLSX_TAG.findall(piece):
            if closed:
                continue
            reference = _REFERENCE.search(attributes)
            if name == b"row":
                row, column = _number(reference[2] if reference else b"", row + 1), 0
                continue
            cell_row = row
            if reference and reference[1]:
                column, cell_row = _column_number(reference[1]), _number(reference[2], row)
            else:
                column += 1
            columns, rows = max(columns, column), max(rows, cell_row)
            if not _fits_sheet(columns, rows):
                return columns, rows
    return columns, rows


def _xlsx_extent(archive: zipfile.ZipFile, part: str) -> tuple[int, int, str]:
    """(columns, rows, verb) of one XLSX sheet part: its declared dimension when that is too large (read from the
    start of the part), else as far as its cells reach."""
    columns = rows = 0
    with _inflating(archive, archive.getinfo(part)) as stream:
        for number, piece in enumerate(_pieces(stream)):
            declared = _declared(piece) if number == 0 else None
            if declared and not _fits_sheet(*declared):
                return (*declared, "declares")
            plain = _plain_extent(piece)
            if plain is None:
                break
            columns, rows = max(columns, plain[0]), max(rows, plain[1])
        else:
            if _fits_sheet(columns, rows):
                return columns, rows, "reaches"
    with _inflating(archive, archive.getinfo(part)) as stream:  # an unusual file, or one that may be too large
        return (*_exact_extent(stream), "reaches")


def _ods_extents(stream: IO[bytes]) -> dict[str, tuple[int, int]]:
    """(columns, rows) of every table in an ODS content.xml, as far as its filled cells reach, repeated rows and
    cells counted as often as they are repeated (an empty one at the end of a row or table is no part of it)."""
    extents: dict[str, tuple[int, int]] = {}
    name, depth = None, 0
    row = column = filled = repeat = columns = rows = 0
    for piece in _pieces(stream):
        for end, tag, attributes, closed in _ODS_TAG.findall(piece):
            if tag == b"table:table":
                depth += -1 if end else 0 if closed else 1
                if end and depth == 0 and name is not None:
                    extents[name], name = (columns, rows), None
                elif not end and not closed and depth == 1:
                    found = _TABLE_NAME.search(attributes)
                    name = html.unescape((found[1] or found[2] if found else b"").decode("utf-8", "replace"))
                    row = columns = rows = 0
            elif name is None:
                continue
            elif tag == b"table:table-row":
                if not end:
                    found = _ROWS_REPEATED.search(attributes)
                    repeat, column, filled = _number(found[1] if found else b"", 1), 0, 0
                if end or closed:
                    if filled:
                        columns, rows = max(columns, filled), row + repeat
                    row += repeat
            elif not end:
                found = _COLUMNS_REPEATED.search(attributes)
                count = _number(found[1] if found else b"", 1)
                if not closed or b"office:value-type" in attributes or b"table:formula" in attributes:
                    filled = column + count
                column += count
    return extents


def _sheet_parts(archive: zipfile.ZipFile) -> list[str]:
    """The XLSX part of each sheet, in the workbook's order (calamine's); [] when the workbook does not say."""
    try:
        workbook = archive.read("xl/workbook.xml")
        relations = archive.read("xl/_rels/workbook.xml.rels")
    except KeyError:
        return []
    targets: dict[bytes, str] = {}
    for match in _RELATIONSHIP.finditer(relations):
        found, target = _ID.search(match[1]), _TARGET.search(match[1])
        if found and target:
            path = target[1].decode("utf-8", "replace")
            targets[found[1]] = path[1:] if path.startswith("/") else posixpath.normpath(posixpath.join("xl", path))
    parts = []
    for match in _SHEET.finditer(workbook):
        found = _RELATION_ID.search(match[1])
        parts.append(targets.get(found[1], "") if found else "")
    return parts


def check_xlsx_sheet(archive: zipfile.ZipFile, shown: str, sheet: str, index: int) -> None:
    """The sheet calamine is about to lay out fits the limits (every worksheet part, when the workbook does not
    say which is this one's)."""
    parts = _sheet_parts(archive)
    names = archive.namelist()
    chosen = [parts[index]] if index < len(parts) and parts[index] in names else \
        [name for name in names if "/worksheets/" in name and name.endswith(".xml")]
    for part in chosen:
        columns, rows, verb = _xlsx_extent(archive, part)
        if not _fits_sheet(columns, rows):
            raise _too_large(shown, sheet, verb, columns, rows)


def check_ods_sheets(archive: zipfile.ZipFile, shown: str) -> None:
    """Every table of an ODS workbook fits the limits (calamine lays them all out as it opens the file)."""
    if "content.xml" not in archive.namelist():
        return
    with _inflating(archive, archive.getinfo("content.xml")) as stream:
        extents = _ods_extents(stream)
    for name, (columns, rows) in extents.items():
        if not _fits_sheet(columns, rows):
            raise _too_large(shown, name, "declares", columns, rows)


@contextmanager
def workbook_archive(path: Path, shown: str) -> Iterator[zipfile.ZipFile]:
    """The workbook's zip archive; one that is damaged, encrypted or of an unknown kind is a located problem."""
    try:
        with zipfile.ZipFile(path) as archive:
            yield archive
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError,
            OSError) as error:
        raise ContentError([Problem(shown, 1, 1, f"cannot read the workbook ({error}); expected an XLSX or ODS "
                                                 "file saved by a spreadsheet program")]) from None

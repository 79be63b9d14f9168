"""Hardening, the last of issue 27: a `language:` that is no text is located like any other wrong value, and the
spreadsheet limits hold at their exact edges (each test here was first seen failing with the limit moved by one
or its arithmetic changed).

The command-line runs fork from a process that has already imported kitgen (tests/forked.py), their memory capped.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CONTENT, small_activity

from test_hardening4 import kitgen, refused  # noqa: E402 (the same forked runs)


# --------------------------------------------------------------------------- language: 7


def _library(tmp_path: Path, language: str) -> Path:
    """Two activities; growing-discard's `language:` replaced by `language`."""
    content = tmp_path / "content"
    content.mkdir()
    for name in ("growing-discard", "animal-habitats"):
        (content / f"{name}.yaml").write_text((CONTENT / f"{name}.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    path = content / "growing-discard.yaml"
    text = path.read_text(encoding="utf-8")
    assert "\nlanguage: en\n" in text
    path.write_text(text.replace("\nlanguage: en\n", f"\nlanguage: {language}\n"), encoding="utf-8")
    return tmp_path


EXPECTED = "content/growing-discard.yaml:9:11: language: expected a two-letter language code such as 'en' or 'ro', "


@pytest.mark.parametrize("language, got", [("7", "got 7"), ("[en]", "got a list"), ("null", "got nothing"),
                                           ("{en: 1}", "got a mapping"), ("true", "got true")])
def test_a_language_that_is_no_text_is_located(tmp_path: Path, language: str, got: str) -> None:
    # before: `error: no '7' edition of growing-discard; editions: 7`, no file, line or column
    folder = _library(tmp_path, language)
    assert refused(kitgen(folder, "build", "growing-discard", "--content", "content")) == [EXPECTED + got]
    assert refused(kitgen(folder, "check", "growing-discard", "--content", "content"))[:1] == [EXPECTED + got]
    assert not (folder / "output" / "growing-discard").exists()


def test_a_language_that_is_no_text_fails_its_activity_only_in_build_all(tmp_path: Path) -> None:
    folder = _library(tmp_path, "7")
    lines = refused(kitgen(folder, "build", "--all", "--content", "content"))
    assert EXPECTED + "got 7" in lines
    out = folder / "output"
    assert (out / "animal-habitats" / "manifest.json").is_file()
    assert (out / "index.html").is_file() and (out / "index.pdf").is_file()
    assert not (out / "growing-discard").exists()


# --------------------------------------------------------------------------- spreadsheet limits, at their edges


def _xlsx(path: Path, sheet_data: str, dimension: str = "") -> Path:
    """A one-sheet XLSX whose sheet part is `<dimension ref=...>` (if given) and `sheet_data`, written as given."""
    import zipfile

    from sheetfiles import write_xlsx

    small = path.with_suffix(".tmp.xlsx")
    write_xlsx(small, {"Sheet1": [["id"], ["a"]]})
    with zipfile.ZipFile(small) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    small.unlink()
    declared = f'<dimension ref="{dimension}"/>' if dimension else ""
    parts["xl/worksheets/sheet1.xml"] = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.'
                                         f'openxmlformats.org/spreadsheetml/2006/main">{declared}<sheetData>'
                                         f'{sheet_data}</sheetData></worksheet>').encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return path


def _sheet_problem(path: Path) -> str | None:
    """The message check_xlsx_sheet gives for the workbook's first sheet, None when it fits."""
    import zipfile

    from kitgen.core.errors import ContentError
    from kitgen.load.workbook_size import check_xlsx_sheet

    with zipfile.ZipFile(path) as archive:
        try:
            check_xlsx_sheet(archive, "cards.xlsx", "Sheet1", 0)
        except ContentError as error:
            return error.problems[0].message
    return None


LIMIT = "at most 256 columns × 20000 rows"


@pytest.mark.parametrize("dimension, expected", [
    ("A1:IV20000", None),  # exactly the limit, both ways
    ("A1:IW20000", f"sheet Sheet1 declares 257 columns × 20000 rows, {LIMIT}"),
    ("A1:IV20001", f"sheet Sheet1 declares 256 columns × 20001 rows, {LIMIT}"),
])
def test_a_sheet_declared_exactly_at_the_limit_is_read_and_one_past_it_is_not(tmp_path: Path, dimension: str,
                                                                              expected: str | None) -> None:
    path = _xlsx(tmp_path / "cards.xlsx", '<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c></row>',
                 dimension)
    assert _sheet_problem(path) == expected


@pytest.mark.parametrize("cell, expected", [
    ("IV20000", None),
    ("IW20000", f"sheet Sheet1 reaches 257 columns × 20000 rows, {LIMIT}"),
    ("IV20001", f"sheet Sheet1 reaches 256 columns × 20001 rows, {LIMIT}"),
])
def test_a_sheet_whose_cells_reach_exactly_the_limit_is_read(tmp_path: Path, cell: str, expected: str | None) -> None:
    row = cell.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    path = _xlsx(tmp_path / "cards.xlsx", f'<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c></row>'
                                          f'<row r="{row}"><c r="{cell}"><v>1</v></c></row>')
    assert _sheet_problem(path) == expected


@pytest.mark.parametrize("count, expected", [(256, None), (257, f"sheet Sheet1 reaches 257 columns × 1 rows, {LIMIT}")],
                         ids=["256", "257"])
def test_cells_written_without_a_reference_each_take_the_next_column(tmp_path: Path, count: int,
                                                                     expected: str | None) -> None:
    """<c> without r="...": calamine puts it in the column after the cell before it, so a row of 257 of them is
    257 columns wide."""
    path = _xlsx(tmp_path / "cards.xlsx", '<row r="1">' + "<c><v>1</v></c>" * count + "</row>")
    assert _sheet_problem(path) == expected


def test_a_cell_without_a_reference_follows_the_one_before_it(tmp_path: Path) -> None:
    path = _xlsx(tmp_path / "cards.xlsx", '<row r="1"><c r="IU1"><v>1</v></c><c><v>2</v></c></row>')
    assert _sheet_problem(path) is None  # IU, then IV: 256 columns
    path = _xlsx(tmp_path / "more.xlsx", '<row r="1"><c r="IU1"><v>1</v></c><c><v>2</v></c><c><v>3</v></c></row>')
    assert _sheet_problem(path) == f"sheet Sheet1 reaches 257 columns × 1 rows, {LIMIT}"


@pytest.mark.parametrize("references", [
    ["A1", "C7"], ["XFD1048576"], ["A123456789"], ["B999999999"], ["A1234567890"], ["A0000000001"],
    ["A000000001"], ["ZZZZZZZ1"], ["A" + "9" * 5000], ["b12", "AA3"],
], ids=lambda refs: "-".join(r[:12] for r in refs))
def test_the_quick_reading_of_a_sheet_and_the_tag_by_tag_reading_agree(references: list[str]) -> None:
    """A sheet whose cells are all written `<c r="B14"` is measured with a few searches of the whole part; any
    other is read tag by tag. Both must find the same extent, a row number of nine digits and of ten alike."""
    import io

    from kitgen.load.workbook_size import _exact_extent, _plain_extent

    piece = "".join(f'<row><c r="{reference}"><v>1</v></c></row>' for reference in references).encode()
    assert _plain_extent(piece) == _exact_extent(io.BytesIO(piece))


def test_a_workbook_may_hold_ten_thousand_files_and_no_more(tmp_path: Path) -> None:
    import zipfile

    from kitgen.core.errors import ContentError
    from kitgen.load.workbook_size import check_inflated, MAX_PARTS

    assert MAX_PARTS == 10_000
    path = tmp_path / "parts.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for number in range(10_000):
            archive.writestr(f"xl/media/p{number}.bin", b"")
    with zipfile.ZipFile(path) as archive:
        check_inflated(archive, "cards.xlsx")  # exactly the limit
    with zipfile.ZipFile(path, "a", zipfile.ZIP_STORED) as archive:
        archive.writestr("xl/media/one-more.bin", b"")
    with zipfile.ZipFile(path) as archive, pytest.raises(ContentError) as refused_error:
        check_inflated(archive, "cards.xlsx")
    assert refused_error.value.problems[0].message == "the workbook holds 10,001 files, at most 10,000"


def test_a_sheet_of_ten_thousand_rows_is_read_and_one_more_row_is_refused(tmp_path: Path) -> None:
    from kitgen.core.errors import ContentError
    from kitgen.load.spreadsheets import read_csv

    path = tmp_path / "cards.csv"
    path.write_text("id,name\n" + "".join(f"c{i},Card {i}\n" for i in range(10_000)), encoding="utf-8")
    assert len(read_csv(path).rows) == 10_000
    path.write_text(path.read_text(encoding="utf-8") + "last,Last\n", encoding="utf-8")
    with pytest.raises(ContentError) as error:
        read_csv(path)
    problem = error.value.problems[0]
    assert problem.message.endswith("more than 10,000 rows, expected at most 10,000")
    assert problem.line == 10_002  # the row past the limit: the heading, then 10,000 cards, then this one


# --------------------------------------------------------------------------- serve and the big-dimension XLSX


def test_serve_shows_the_big_dimension_workbook_located_and_keeps_serving(tmp_path: Path) -> None:
    """The 1.5 KB XLSX that once aborted the server (cells A1 and XFD1048576): its kit page shows the located
    error, and the server goes on answering, the other kit and the same page again."""
    import html
    import shutil

    from kitgen.app.serve import KitServer, start, stop
    from kitgen.load.library import Library
    from test_hostile import expected_line, HOSTILE
    from test_serve_security import copy_library, request

    content = copy_library(tmp_path)
    for name in ("far-cell.yaml", "far-cell.xlsx"):
        shutil.copyfile(HOSTILE / name, content / name)
    kits = KitServer(Library.open(content), log=lambda line: None)
    server, watching = start(kits, 0, first="growing-discard")
    try:
        port = server.server_address[1]
        host, same = f"127.0.0.1:{port}", ("Sec-Fetch-Site", "same-origin")
        wanted = expected_line(HOSTILE / "far-cell.yaml").removeprefix("content/")
        assert "declares 16384 columns × 1048576 rows, at most" in wanted
        for _ in range(2):
            status, body = request(port, "/kit/far-cell", host, same)
            assert wanted in html.unescape(body.decode()), body[:3000]
            assert b"<img" not in body and b"Traceback" not in body
            status, body = request(port, "/kit/growing-discard", host, same)
            assert status == 200 and b"<img" in body, "the server is still up and renders the other kits"
    finally:
        stop(server, watching)


# --------------------------------------------------------------------------- a million rows


def test_a_workbook_of_a_million_rows_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A million rows well inside the zipped and inflated size limits: measured and refused before calamine lays
    them out, at the first row past the limit (306 MB of memory before the 10,000-row error once)."""
    import zipfile

    from test_hostile import assert_refused, PEAK_MEMORY, run_kitgen

    content = tmp_path / "content"
    content.mkdir()
    (content / "rows.yaml").write_text((Path(__file__).parent / "hostile" / "far-cell.yaml").read_text(
        encoding="utf-8").replace("far-cell", "rows"), encoding="utf-8")
    path = _xlsx(content / "rows.xlsx", '<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c></row>')
    with zipfile.ZipFile(path) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    rows = b"".join(b'<row r="%d"><c r="A%d"><v>%d</v></c></row>' % (n, n, n) for n in range(2, 1_000_002))
    parts["xl/worksheets/sheet1.xml"] = parts["xl/worksheets/sheet1.xml"].replace(b"</sheetData>", rows + b"</sheetData>")
    assert len(parts["xl/worksheets/sheet1.xml"]) < 100_000_000
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    run = run_kitgen("build", "rows", "--content", "content", "--out", "out", cwd=tmp_path)
    assert_refused(run, "content/rows.xlsx: sheet Sheet1 reaches 1 columns × 20001 rows, at most 256 columns × "
                        "20000 rows")
    assert run.peak < PEAK_MEMORY, f"used {run.peak / 1024 ** 2:.0f} MB"


# --------------------------------------------------------------------------- NaN card data

NAN_ACTIVITY = small_activity("nan", "Points", "A tiny activity whose card data holds a number that is no number.") + (
    '      - {id: a, name: A, count: 1, caption: "two + two = {{ pts }} pts", data: {pts: VALUE}}\n')


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_card_data_that_is_no_finite_number_is_located_and_nothing_is_printed(tmp_path: Path, value: str) -> None:
    # before: the card printed "two + two = nan pts", exit 0
    content = tmp_path / "content"
    content.mkdir()
    (content / "nan.yaml").write_text(NAN_ACTIVITY.replace("VALUE", value), encoding="utf-8")
    lines = refused(kitgen(tmp_path, "build", "nan", "--content", "content"))
    shown = value.lstrip("-.")
    assert lines[0].startswith("content/nan.yaml:15:86: decks[0].cards[0].data.pts: expected true or false, a "
                               "finite number, text or a mapping of keys and values, got "), lines
    assert lines[0].endswith(shown), lines
    assert not (tmp_path / "output").exists() or not any((tmp_path / "output").rglob("*.pdf"))


# --------------------------------------------------------------------------- a PNG cut short


def _png(path: Path, width: int, height: int, rows: int) -> None:
    """An RGB PNG that declares `height` rows and holds `rows` of them."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    pixels = b"".join(b"\0" + b"\x80" * width * 3 for _ in range(rows))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(pixels)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("rows, expected", [(3_000, None), (10, "'short.png' is cut short: its image data holds 10 "
                                                                "of the 3,000 rows its header declares")])
def test_a_png_whose_image_data_is_cut_short_is_refused(tmp_path: Path, rows: int, expected: str | None) -> None:
    # before: accepted, its missing rows printed black, exit 0
    content = tmp_path / "content"
    content.mkdir()
    _png(content / "short.png", 100, 3_000, rows)
    (content / "nan.yaml").write_text(NAN_ACTIVITY.replace("data: {pts: VALUE}", "data: {pts: 4}, image: short.png"), encoding="utf-8")
    run = kitgen(tmp_path, "build", "nan", "--content", "content")
    if expected is None:
        assert run.returncode == 0, run.stderr[-3000:]
    else:
        lines = refused(run)
        assert lines[0].startswith("content/nan.yaml:15:") and expected in lines[0], lines

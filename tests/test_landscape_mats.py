"""Mats in landscape: a mat whose places fit one sheet only when it lies on its side is printed on one landscape
sheet, not in glued parts; `orientation: portrait` keeps the parts. Read from the files written."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pdfplumber
import pypdf
import pytest

from kitgen.app.build import build, BuildOptions, BuildResult
from kitgen.core.units import INCH, mm, parse_length, parse_paper
from kitgen.load.library import Library
from kitgen.plan.imposition import PAGE_MARGIN
from kitgen.plan.tiling import board_layout, BOARD_TITLE, FIGURE_TITLE, place_mat, tile

from conftest import CONTENT, pt_to_mm, small_activity, yaml_data

POKER = (63.5, 88.9)  # mm
A4_LANDSCAPE = (841.89, 595.28)  # pt
TOL_PT = 0.01


def _mat(orientation: str | None, fit: bool, columns: int, rows: int, width: float, height: float,
         gap: float) -> str:
    lines = ["boards:", "  - id: table", "    title: My table", "    per_player: false"]
    if orientation:
        lines.append(f"    orientation: {orientation}")
    if fit:
        lines.append("    fit: page")
    lines += ["    positions:", f"      columns: {columns}", f"      rows: {rows}", f"      width: {width}mm",
              f"      height: {height}mm", f"      gap: {gap}mm",
              f"      labels: [{', '.join('ABCDEFGH'[:columns * rows])}]",
              "    note: Put one card on each place."]
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=None)
def _kit(folder: str, orientation: str | None, paper: str = "a4",
         places: tuple[int, int, float, float, float] = (4, 2, *POKER, 6), fit: bool = False,
         large_print: bool = False) -> BuildResult:
    root = Path(folder)
    content = root / "content"
    content.mkdir(parents=True)
    text = small_activity("mat", "Mat test", "A tiny activity with a mat.") + "      - {id: a, count: 1}\n"
    (content / "mat.yaml").write_text(text + _mat(orientation, fit, *places), encoding="utf-8")
    return build("mat", BuildOptions(paper=paper, out_dir=root / "out", large_print=large_print), Library.open(content))


def _file(result: BuildResult, role: str) -> Path:
    return next(f.path for f in result.files if f.role == role)


def _dashed_boxes(page) -> list[tuple[float, float, float, float]]:
    """The dashed outlines on a page (the places), x0, top, x1, bottom in points."""
    shapes = page.curves + page.rects + page.lines
    return [(s["x0"], s["top"], s["x1"], s["bottom"]) for s in shapes
            if s.get("stroke") and (s.get("dash") or ([], 0))[0] and s["x1"] - s["x0"] > mm(20)]


def test_a_mat_of_poker_places_four_across_is_one_a4_landscape_sheet_with_card_sized_places(tmp_path: Path):
    """4 × 2 poker places, 6 mm apart: 272 mm wide, too wide for A4 upright, fits A4 on its side."""
    result = _kit(str(tmp_path), None)
    mat = _file(result, "mat")
    reader = pypdf.PdfReader(mat)
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert float(box.width) == pytest.approx(A4_LANDSCAPE[0], abs=TOL_PT)
    assert float(box.height) == pytest.approx(A4_LANDSCAPE[1], abs=TOL_PT)
    with pdfplumber.open(mat) as pdf:
        page = pdf.pages[0]
        places = _dashed_boxes(page)
        assert len(places) == 8, places
        for x0, top, x1, bottom in places:
            assert pt_to_mm(x1 - x0) == pytest.approx(POKER[0], abs=0.05)
            assert pt_to_mm(bottom - top) == pytest.approx(POKER[1], abs=0.05)
            assert x0 >= PAGE_MARGIN and top >= PAGE_MARGIN, (x0, top)
            assert x1 <= page.width - PAGE_MARGIN and bottom <= page.height - PAGE_MARGIN, (x1, bottom)
        ink = page.chars + page.curves + page.rects + page.lines
        assert all(PAGE_MARGIN - TOL_PT <= o["x0"] and o["x1"] <= page.width - PAGE_MARGIN + TOL_PT
                   and PAGE_MARGIN - TOL_PT <= o["top"] and o["bottom"] <= page.height - PAGE_MARGIN + TOL_PT
                   for o in ink)
        text = page.extract_text()
        assert "My table" in text and "Put one card on each place." in text and "part 1" not in text
    guide = pypdf.PdfReader(_file(result, "print-guide")).pages[0].extract_text()
    assert "one-sided, landscape" in guide and "glue" not in guide


def test_orientation_portrait_keeps_the_mat_in_parts_on_upright_sheets(tmp_path: Path):
    result = _kit(str(tmp_path), "portrait")
    reader = pypdf.PdfReader(_file(result, "mat"))
    assert len(reader.pages) == 2
    for page in reader.pages:
        assert (float(page.mediabox.width), float(page.mediabox.height)) == pytest.approx(
            A4_LANDSCAPE[::-1], abs=TOL_PT)
    assert "part 1 of 2" in reader.pages[0].extract_text() and "part 2 of 2" in reader.pages[1].extract_text()
    guide = pypdf.PdfReader(_file(result, "print-guide")).pages[0].extract_text()
    assert "landscape" not in guide and "trim and glue the parts" in guide


def test_in_large_print_the_mat_keeps_its_ordinary_frame_and_every_word_at_12_pt(tmp_path: Path):
    """The narrow frame has no room for a 12 pt note: in large print the mat is printed in parts as before."""
    result = _kit(str(tmp_path), None, large_print=True)
    with pdfplumber.open(_file(result, "mat")) as pdf:
        assert len(pdf.pages) > 1
        small = {(c["text"], round(c["size"], 1)) for page in pdf.pages for c in page.chars
                 if c["text"].strip() and c["size"] < 12 - 0.01}
        text = " ".join(page.extract_text() for page in pdf.pages)
    assert not small, sorted(small)[:10]
    assert "Put one card on each place." in " ".join(text.split())


def test_a_mat_that_fits_us_letter_on_its_side_is_one_11_by_8_5_inch_sheet(tmp_path: Path):
    """3 places of 70 × 96 mm: 236 mm wide in its ordinary frame, wider than Letter upright (8.5 in)."""
    result = _kit(str(tmp_path), None, "letter", (3, 1, 70, 96, 5))
    reader = pypdf.PdfReader(_file(result, "mat"))
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert float(box.width) == pytest.approx(11 * INCH, abs=TOL_PT)
    assert float(box.height) == pytest.approx(8.5 * INCH, abs=TOL_PT)
    with pdfplumber.open(_file(result, "mat")) as pdf:
        places = _dashed_boxes(pdf.pages[0])
    assert len(places) == 3
    assert all(pt_to_mm(x1 - x0) == pytest.approx(70, abs=0.05) and pt_to_mm(b - t) == pytest.approx(96, abs=0.05)
               for x0, t, x1, b in places)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_auto_turns_a_mat_only_when_that_saves_sheets_and_the_librarys_mats_stay_upright(paper: str):
    sheet = parse_paper(paper)
    # a mat that needs 2 upright parts and 4 on its side stays upright; `landscape` turns it anyway
    tall = place_mat(5, 2, mm(68), mm(94), mm(5), sheet)
    assert not tall.landscape and len(tall.tiles) == 2
    assert place_mat(5, 2, mm(68), mm(94), mm(5), sheet, "landscape").landscape
    small = place_mat(2, 1, mm(50), mm(50), mm(5), sheet)  # one sheet either way: upright
    assert not small.landscape and len(small.tiles) == 1 and small.page == sheet
    boards = []
    for path in sorted(CONTENT.glob("*.yaml")) + sorted(CONTENT.glob("*/activity.yaml")):
        data = yaml_data(path.read_text(encoding="utf-8"))
        boards += [(path.name, b) for b in data.get("boards") or [] if isinstance(b, dict) and "positions" in b]
    assert boards
    for name, board in boards:
        p = board["positions"]
        size = [parse_length(p[key]) for key in ("width", "height")]
        gap = parse_length(p.get("gap", "6mm"))
        figure = bool(board.get("qr") or board.get("picture") or board.get("image"))
        placed = place_mat(p["columns"], p["rows"], *size, gap, sheet, figure=figure)
        upright = tile(board_layout(p["columns"], p["rows"], *size, gap, FIGURE_TITLE if figure else BOARD_TITLE).size,
                       sheet)
        assert not placed.landscape and len(placed.tiles) == len(upright), (name, board["id"])


# --- fit: page ---------------------------------------------------------------------------------------------------

BIG = (4, 2, 66.0, 92.0, 6.0)  # 290 × 206 mm in the narrow frame: a little too big for A4 on its side (287 × 200)


def test_a_mat_a_little_too_big_keeps_its_place_size_and_is_printed_in_parts(tmp_path: Path):
    result = _kit(str(tmp_path), None, places=BIG)
    mat = _file(result, "mat")
    with pdfplumber.open(mat) as pdf:
        assert len(pdf.pages) > 1
        whole = [b for page in pdf.pages for b in _dashed_boxes(page)
                 if pt_to_mm(b[2] - b[0]) > 65 and pt_to_mm(b[3] - b[1]) > 91]
    assert whole and all(pt_to_mm(x1 - x0) == pytest.approx(66, abs=0.05)
                         and pt_to_mm(b - t) == pytest.approx(92, abs=0.05) for x0, t, x1, b in whole)
    assert " % of its size" not in pypdf.PdfReader(_file(result, "print-guide")).pages[0].extract_text()


def test_fit_page_prints_a_mat_a_little_too_big_smaller_on_one_sheet_and_the_guide_says_how_much(tmp_path: Path):
    result = _kit(str(tmp_path), None, places=BIG, fit=True)
    mat = _file(result, "mat")
    reader = pypdf.PdfReader(mat)
    assert len(reader.pages) == 1
    assert (float(reader.pages[0].mediabox.width), float(reader.pages[0].mediabox.height)) == pytest.approx(
        A4_LANDSCAPE, abs=TOL_PT)
    with pdfplumber.open(mat) as pdf:
        page = pdf.pages[0]
        places = _dashed_boxes(page)
        assert len(places) == 8
        for x0, top, x1, bottom in places:  # 97 %: the largest whole percent that fits 200 mm of 206
            assert pt_to_mm(x1 - x0) == pytest.approx(66 * 0.97, abs=0.05)
            assert pt_to_mm(bottom - top) == pytest.approx(92 * 0.97, abs=0.05)
        ink = page.chars + page.curves + page.rects + page.lines
        assert all(PAGE_MARGIN - TOL_PT <= o["x0"] and o["x1"] <= page.width - PAGE_MARGIN + TOL_PT
                   and PAGE_MARGIN - TOL_PT <= o["top"] and o["bottom"] <= page.height - PAGE_MARGIN + TOL_PT
                   for o in ink)
    guide = " ".join(pypdf.PdfReader(_file(result, "print-guide")).pages[0].extract_text().split())
    assert "one-sided, landscape; the mat is printed at 97 % of its size to fit one sheet" in guide, guide


def test_fit_page_refuses_a_mat_it_would_shrink_below_half_at_its_fit_line(tmp_path: Path):
    with pytest.raises(Exception) as refused:
        _kit(str(tmp_path), None, places=(4, 2, 160, 170, 6), fit=True)
    message = str(refused.value)
    assert "mat.yaml:" in message and "boards[0].fit" in message and "expected at least 50 %" in message, message

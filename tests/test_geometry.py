"""Pure geometry of the plan stage (impose, crop_marks, card_sheets) and of kitgen.core.units. No PDFs."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kitgen.core.errors import UsageError
from kitgen.plan import card_sheets, crop_marks, cut_guides, impose, Rect, Segment, Sheet
from kitgen.plan.imposition import BAND_HEIGHT, MARK_ZONE, PAGE_MARGIN, SHORT_MARK_GAP
from kitgen.core.units import CARD_PRESETS, CardSize, PAPER_SIZES, PaperSize, parse_card_size, parse_length, parse_paper

from conftest import yaml_data

PT_PER_MM = 72 / 25.4  # written out here on purpose: the tests do not trust kitgen's own constant
A4 = PaperSize(210 * PT_PER_MM, 297 * PT_PER_MM)
LETTER = PaperSize(8.5 * 72, 11 * 72)
POKER = CardSize(63.5 * PT_PER_MM, 88.9 * PT_PER_MM)
FIVE_MM = 5 * PT_PER_MM
EPS = 1e-6


def mm(value: float) -> float:
    return value * PT_PER_MM


def usable_width(page: PaperSize) -> float:
    """Room for cards across: the page minus a margin and a crop-mark zone on each side."""
    return page.width - 2 * (PAGE_MARGIN + MARK_ZONE)


def usable_height(page: PaperSize) -> float:
    """Room for cards down: as across, minus the calibration band at the bottom."""
    return page.height - 2 * (PAGE_MARGIN + MARK_ZONE) - BAND_HEIGHT


def same_rect(a: Rect, b: Rect) -> bool:
    """Equal to within float noise (1e-6 pt)."""
    return all(abs(u - v) <= EPS for u, v in zip((a.x, a.y, a.width, a.height), (b.x, b.y, b.width, b.height)))


def all_cells(grid) -> list[Rect]:
    return [grid.cell(i) for i in range(grid.per_sheet)]


def segment_rect_distance(seg: Segment, rect: Rect) -> float:
    """Shortest distance between an axis-aligned segment and a filled rectangle (0 if they touch)."""
    sx0, sx1 = sorted((seg.x0, seg.x1))
    sy0, sy1 = sorted((seg.y0, seg.y1))
    dx = max(rect.x - sx1, sx0 - rect.right, 0.0)
    dy = max(rect.y - sy1, sy0 - rect.top, 0.0)
    return math.hypot(dx, dy)


EVERY_PAPER = [pytest.param(p, id=name) for name, p in (("a4", A4), ("letter", LETTER))]
EVERY_PRESET = [pytest.param(size, id=name) for name, size in CARD_PRESETS.items()]


# --------------------------------------------------------------------------- units


def test_paper_sizes_are_the_standard_sizes():
    assert PAPER_SIZES["a4"] == pytest.approx(A4, abs=1e-9)
    assert PAPER_SIZES["letter"] == pytest.approx(LETTER, abs=1e-9)
    assert parse_paper(" A4 ") == PAPER_SIZES["a4"]
    assert parse_paper("Letter") == PAPER_SIZES["letter"]
    with pytest.raises(ValueError):
        parse_paper("a5")


@pytest.mark.parametrize("spec, width_mm, height_mm", [
    ("63x88mm", 63, 88),
    ("63 x 88 mm", 63, 88),
    ("63×88mm", 63, 88),
    ("63.5x88.9mm", 63.5, 88.9),
    ("6.35x8.89cm", 63.5, 88.9),
    ("2.5x3.5in", 63.5, 88.9),
    ("180x252pt", 63.5, 88.9),
    ("63X88MM", 63, 88),
])
def test_parse_card_size_with_units(spec, width_mm, height_mm):
    size = parse_card_size(spec)
    assert isinstance(size, CardSize)
    assert size.width == pytest.approx(mm(width_mm), abs=1e-6)
    assert size.height == pytest.approx(mm(height_mm), abs=1e-6)


@pytest.mark.parametrize("name, width_mm, height_mm", [
    ("poker", 63.5, 88.9),
    ("bridge", 57.2, 88.9),
    ("mini", 44.5, 63.5),
    ("tarot", 70, 120),
])
def test_card_presets(name, width_mm, height_mm):
    for spelling in (name, name.upper(), f"  {name.title()} "):
        size = parse_card_size(spelling)
        assert size.width == pytest.approx(mm(width_mm), abs=1e-6)
        assert size.height == pytest.approx(mm(height_mm), abs=1e-6)


@pytest.mark.parametrize("spec", [
    "", "   ", "63mm", "63x88", "x88mm", "63x", "63x88km", "63x88 mm mm", "-63x88mm", "63x-88mm",
    "0x88mm", "63x0mm", "0x0mm", "pokerr", "poker card", "63,5x88mm", "63x88x10mm", "sixty x 88mm",
])
def test_bad_card_sizes_raise_value_error(spec):
    with pytest.raises(ValueError):
        parse_card_size(spec)


def test_bad_card_size_message_names_the_spec_and_the_presets():
    with pytest.raises(ValueError) as caught:
        parse_card_size("63x88")
    message = str(caught.value)
    assert "'63x88'" in message
    for preset in CARD_PRESETS:
        assert preset in message


@pytest.mark.parametrize("spec, points", [("5mm", mm(5)), ("0.25in", 18), ("12pt", 12), ("1.5cm", mm(15))])
def test_parse_length(spec, points):
    assert parse_length(spec) == pytest.approx(points, abs=1e-9)


@pytest.mark.parametrize("spec", ["5", "mm", "5 km", "-5mm", "five mm", ""])
def test_bad_lengths_raise_value_error(spec):
    with pytest.raises(ValueError):
        parse_length(spec)


# --------------------------------------------------------------------------- imposition


def test_a4_poker_is_three_by_three():
    grid = impose(A4, POKER)
    assert (grid.columns, grid.rows) == (3, 3)
    assert grid.per_sheet == 9


def test_letter_poker_is_three_by_three_in_the_side_layout():
    # 612 pt wide: 3 × 180 pt cards leave 72 pt (25.4 mm): two 5 mm margins, two 3.5 mm ruler strips and two
    # 4 mm mark zones take 25 mm. 792 pt high: 3 × 252 = 756 pt leaves 12.7 mm, room for the 5 mm margins but
    # not for marks above and below, so the vertical cuts get hairlines on the cut instead.
    grid = impose(LETTER, POKER)
    assert (grid.columns, grid.rows, grid.layout, grid.guides) == (3, 3, "sides", True)
    assert grid.per_sheet == 9
    # the band layout would have held 6
    assert impose(LETTER, POKER, Sheet(fold=True)).layout == "band"


def test_a4_poker_keeps_the_band_layout_and_its_position():
    grid = impose(A4, POKER)
    assert (grid.columns, grid.rows, grid.layout, grid.guides) == (3, 3, "band", False)
    # the band layout as it was: centred across, the band on the 5 mm margin, the grid centred above it
    assert grid.left == pytest.approx((A4.width - 3 * POKER.width) / 2)
    usable = A4.height - 2 * (FIVE_MM + mm(4)) - mm(9)
    assert grid.bottom == pytest.approx(FIVE_MM + mm(9) + mm(4) + (usable - 3 * POKER.height) / 2)


@pytest.mark.parametrize("margin_mm, guides", [(5, True), (2.35, False), (2, False)])
def test_letter_margin_decides_marks_or_hairlines_for_the_vertical_cuts(margin_mm, guides):
    grid = impose(LETTER, POKER, Sheet(margin=mm(margin_mm)))
    assert grid.per_sheet == 9 and grid.guides is guides
    marks, lines = crop_marks(grid), cut_guides(grid)
    vertical = [m for m in marks if m.x0 == pytest.approx(m.x1)]
    # without room for full marks, short ones in the room left above and below (1.35 mm at 5 mm): no hairline
    assert bool(vertical) and not lines and grid.short_marks is guides
    for line in lines:  # a hairline on a vertical cut runs exactly along it, over the cards' height
        assert line.x0 == pytest.approx(line.x1) and round(line.x0, 6) in grid.cut_lines()[0]
        assert (min(line.y0, line.y1), max(line.y0, line.y1)) == (pytest.approx(grid.bottom), pytest.approx(grid.top))
    for mark in marks:  # nothing closer than the margin to an edge; no mark touches a card
        for x in (mark.x0, mark.x1):
            assert mm(margin_mm) - EPS <= x <= LETTER.width - mm(margin_mm) + EPS
        for y in (mark.y0, mark.y1):
            assert mm(margin_mm) - EPS <= y <= LETTER.height - mm(margin_mm) + EPS
        short = guides and mark.x0 == pytest.approx(mark.x1)
        assert min(segment_rect_distance(mark, c) for c in all_cells(grid)) == pytest.approx(
            SHORT_MARK_GAP if short else mm(1), abs=EPS)
    # the ruler strips lie inside the margins and clear of the cards and of the marks
    for strip in (grid.band, grid.side):
        assert strip.x >= mm(margin_mm) - EPS and strip.right <= LETTER.width - mm(margin_mm) + EPS
        assert strip.right <= grid.left - mm(4) + EPS or strip.x >= grid.right + mm(4) - EPS
        assert all(segment_rect_distance(m, strip) > 0 for m in marks)


def test_every_library_kit_fits_as_many_cards_on_letter_as_on_a4():
    from kitgen.load.library import Library

    library = Library.open(Path(__file__).resolve().parents[1] / "content")
    sizes = set()
    for path in library.activity_files().values():
        data = yaml_data(path.read_text(encoding="utf-8"))
        if data.get("decks"):
            sizes.add(data.get("card_size", "poker"))
    assert "poker" in sizes
    for size in sizes:
        card = parse_card_size(size)
        assert impose(LETTER, card).per_sheet >= impose(A4, card).per_sheet, size


@pytest.mark.parametrize("card", EVERY_PRESET)
def test_every_card_preset_fits_a4(card):
    grid = impose(A4, card)
    assert grid.columns >= 1 and grid.rows >= 1


@pytest.mark.parametrize("card", EVERY_PRESET)
@pytest.mark.parametrize("page", EVERY_PAPER)
def test_grid_is_centred_horizontally(page, card):
    grid = impose(page, card)
    left_gap = grid.left
    right_gap = page.width - grid.right
    assert left_gap == pytest.approx(right_gap, abs=EPS)
    cells = all_cells(grid)
    assert min(c.x for c in cells) == pytest.approx(left_gap, abs=EPS)
    assert page.width - max(c.right for c in cells) == pytest.approx(right_gap, abs=EPS)


@pytest.mark.parametrize("card", EVERY_PRESET)
@pytest.mark.parametrize("page", EVERY_PAPER)
def test_every_cell_keeps_five_mm_from_every_page_edge(page, card):
    grid = impose(page, card)
    for cell in all_cells(grid):
        assert cell.x >= FIVE_MM - EPS
        assert cell.y >= FIVE_MM - EPS
        assert page.width - cell.right >= FIVE_MM - EPS
        assert page.height - cell.top >= FIVE_MM - EPS


@pytest.mark.parametrize("card", EVERY_PRESET)
@pytest.mark.parametrize("page", EVERY_PAPER)
def test_cells_tile_the_grid_without_overlap(page, card):
    grid = impose(page, card)
    cells = all_cells(grid)
    for cell in cells:
        assert cell.width == pytest.approx(card.width) and cell.height == pytest.approx(card.height)
    # row by row from the top left
    assert cells[0].x == pytest.approx(grid.left) and cells[0].top == pytest.approx(grid.top)
    for i, a in enumerate(cells):
        for b in cells[i + 1:]:
            overlap_x = min(a.right, b.right) - max(a.x, b.x)
            overlap_y = min(a.top, b.top) - max(a.y, b.y)
            assert overlap_x <= EPS or overlap_y <= EPS, f"cells {a} and {b} overlap"


@pytest.mark.parametrize("card", EVERY_PRESET)
@pytest.mark.parametrize("page", EVERY_PAPER)
def test_calibration_band_is_inside_the_margins_and_clear_of_the_cards(page, card):
    grid = impose(page, card)
    for band in (grid.band, grid.side) if grid.layout == "sides" else (grid.band,):
        assert band.x >= FIVE_MM - EPS and band.y >= FIVE_MM - EPS
        assert page.width - band.right >= FIVE_MM - EPS and page.height - band.top >= FIVE_MM - EPS
        if grid.layout == "band":
            assert band.top <= min(c.y for c in all_cells(grid)) + EPS
        else:  # a side strip: beside the cards, and beyond their crop marks
            assert band.right <= grid.left - MARK_ZONE + EPS or band.x >= grid.right + MARK_ZONE - EPS
        for mark in crop_marks(grid):
            assert segment_rect_distance(mark, band) > 0, f"{mark} touches the calibration band"


@pytest.mark.parametrize("card", EVERY_PRESET)
@pytest.mark.parametrize("page", EVERY_PAPER)
def test_crop_marks_never_touch_a_card(page, card):
    grid = impose(page, card)
    marks = crop_marks(grid)
    assert marks
    smallest = min(segment_rect_distance(m, c) for m in marks for c in all_cells(grid))
    assert smallest > 0
    assert smallest >= mm(0.5) - EPS, f"a crop mark is only {smallest / PT_PER_MM:.3f} mm from a card"


@pytest.mark.parametrize("card", EVERY_PRESET)
@pytest.mark.parametrize("page", EVERY_PAPER)
def test_crop_marks_stay_five_mm_from_the_page_edges(page, card):
    for mark in crop_marks(impose(page, card)):
        for x in (mark.x0, mark.x1):
            assert FIVE_MM - EPS <= x <= page.width - FIVE_MM + EPS
        for y in (mark.y0, mark.y1):
            assert FIVE_MM - EPS <= y <= page.height - FIVE_MM + EPS


@pytest.mark.parametrize("card", EVERY_PRESET)
@pytest.mark.parametrize("page", EVERY_PAPER)
def test_crop_marks_continue_every_cut_line(page, card):
    grid = impose(page, card)
    cells = all_cells(grid)
    cut_xs = sorted({round(v, 6) for c in cells for v in (c.x, c.right)})
    cut_ys = sorted({round(v, 6) for c in cells for v in (c.y, c.top)})
    marks = crop_marks(grid)
    vertical = [m for m in marks if m.x0 == pytest.approx(m.x1)]
    horizontal = [m for m in marks if m.y0 == pytest.approx(m.y1)]
    assert len(vertical) + len(horizontal) == len(marks)
    # one mark above and one below the grid for every vertical cut (or, without room there, a hairline on the
    # cut), left and right for every horizontal one
    if grid.guides and not grid.short_marks:
        assert vertical == [] and sorted(round(g.x0, 6) for g in cut_guides(grid)) == cut_xs
    else:
        assert sorted(round(m.x0, 6) for m in vertical) == sorted(cut_xs * 2)
    assert sorted(round(m.y0, 6) for m in horizontal) == sorted(cut_ys * 2)
    for m in vertical:
        assert min(m.y0, m.y1) >= grid.top - EPS or max(m.y0, m.y1) <= grid.bottom + EPS
    for m in horizontal:
        assert min(m.x0, m.x1) >= grid.right - EPS or max(m.x0, m.x1) <= grid.left + EPS


@settings(max_examples=150, deadline=None)
@given(width=st.floats(10, 260), height=st.floats(10, 320), paper=st.sampled_from(["a4", "letter"]))
def test_any_card_size_either_fits_cleanly_or_is_refused(width, height, paper):
    page = A4 if paper == "a4" else LETTER
    card = CardSize(mm(width), mm(height))
    try:
        grid = impose(page, card)
    except UsageError:
        # refused only when not even one card fits between the margins, mark zones and band
        assert card.width > usable_width(page) + EPS or card.height > usable_height(page) + EPS
        return
    # as many as fit, and not fewer: the band layout's count, or more in the side layout
    band_count = max(math.floor(usable_width(page) / card.width + 1e-9), 0) * max(
        math.floor(usable_height(page) / card.height + 1e-9), 0)
    assert grid.per_sheet >= band_count
    if grid.layout == "sides":
        side_width = page.width - 2 * (PAGE_MARGIN + mm(3.5) + MARK_ZONE)
        assert grid.per_sheet > band_count
        assert grid.columns * card.width <= side_width + EPS < (grid.columns + 1) * card.width
        assert grid.rows * card.height <= page.height - 2 * PAGE_MARGIN + EPS
        return
    assert grid.columns * card.width <= usable_width(page) + EPS
    assert (grid.columns + 1) * card.width > usable_width(page) - EPS
    assert grid.rows * card.height <= usable_height(page) + EPS
    assert (grid.rows + 1) * card.height > usable_height(page) - EPS
    cells = all_cells(grid)
    assert grid.left == pytest.approx(page.width - grid.right, abs=EPS)
    for cell in cells:
        assert cell.x >= FIVE_MM - EPS and cell.y >= FIVE_MM - EPS
        assert cell.right <= page.width - FIVE_MM + EPS and cell.top <= page.height - FIVE_MM + EPS
    marks = crop_marks(grid)
    assert min(segment_rect_distance(m, c) for m in marks for c in cells) > 0
    for m in marks:
        assert FIVE_MM - EPS <= min(m.x0, m.x1) and max(m.x0, m.x1) <= page.width - FIVE_MM + EPS
        assert FIVE_MM - EPS <= min(m.y0, m.y1) and max(m.y0, m.y1) <= page.height - FIVE_MM + EPS


@pytest.mark.parametrize("page", EVERY_PAPER)
@pytest.mark.parametrize("spec", ["300x400mm", "250x100mm", "100x350mm", "20x20in"])
def test_card_too_big_for_the_paper_is_a_usage_error(page, spec):
    with pytest.raises(UsageError) as caught:
        impose(page, parse_card_size(spec))
    assert "does not fit" in str(caught.value)


def test_the_page_width_itself_is_too_wide_for_a_card():
    # a card exactly as wide as the page can never keep a 5 mm margin
    with pytest.raises(UsageError):
        impose(A4, CardSize(A4.width, mm(50)))
    with pytest.raises(UsageError):
        impose(A4, CardSize(mm(50), A4.height))


@pytest.mark.parametrize("card", EVERY_PRESET)
@pytest.mark.parametrize("page", EVERY_PAPER)
def test_crop_marks_are_3_mm_long_and_start_1_mm_from_the_card(page, card):
    """Measured on the marks themselves: each is 3 mm long, its near end 1 mm from the nearest card edge."""
    grid = impose(page, card)
    cells = all_cells(grid)
    for mark in crop_marks(grid):
        length, gap = mm(3), mm(1)
        if grid.short_marks and mark.x0 == pytest.approx(mark.x1):  # the short marks above and below
            length, gap = grid.short_room - SHORT_MARK_GAP, SHORT_MARK_GAP
        elif grid.side is not None:  # beside the ruler strips: stopping 1 mm short of them
            room = (grid.left - grid.band.right) if mark.x1 <= grid.left + EPS else (grid.side.x - grid.right)
            length = min(mm(3), room - 2 * mm(1))
        assert math.hypot(mark.x1 - mark.x0, mark.y1 - mark.y0) == pytest.approx(length, abs=EPS)
        assert min(segment_rect_distance(mark, c) for c in cells) == pytest.approx(gap, abs=EPS)


@pytest.mark.parametrize("page", EVERY_PAPER)
def test_the_calibration_band_is_9_mm_high_on_the_5_mm_margin(page):
    band = impose(page, POKER, Sheet(fold=True)).band  # a gutter fold always keeps the band
    assert band.height == pytest.approx(mm(9), abs=EPS)
    assert (band.x, band.y) == (pytest.approx(FIVE_MM, abs=EPS), pytest.approx(FIVE_MM, abs=EPS))
    assert band.right == pytest.approx(page.width - FIVE_MM, abs=EPS)


def test_the_layout_constants_are_the_measures_the_tests_assume():
    """usable_width and usable_height above are built from these: they must be the documented measures."""
    assert (PAGE_MARGIN, MARK_ZONE, BAND_HEIGHT) == (pytest.approx(FIVE_MM), pytest.approx(mm(4)),
                                                     pytest.approx(mm(9)))


def test_a_card_that_fits_exactly_is_accepted_and_a_hair_larger_is_not():
    for page in (A4, LETTER):
        exact = CardSize(usable_width(page), usable_height(page))
        grid = impose(page, exact)
        assert (grid.columns, grid.rows) == (1, 1)
        with pytest.raises(UsageError):
            impose(page, CardSize(exact.width + mm(0.1), exact.height))
        with pytest.raises(UsageError):
            impose(page, CardSize(exact.width, exact.height + mm(0.1)))


# --------------------------------------------------------------------------- sheets and backs


@pytest.mark.parametrize("card", EVERY_PRESET)
@pytest.mark.parametrize("page", EVERY_PAPER)
def test_back_cell_mirrors_the_column_in_the_same_row(page, card):
    grid = impose(page, card)
    for index in range(grid.per_sheet):
        row, column = divmod(index, grid.columns)
        face, back = grid.cell(index), grid.back_cell(index)
        expected = grid.cell(row * grid.columns + (grid.columns - 1 - column))
        assert same_rect(back, expected), (index, back, expected)
        # physically: flipping the sheet about its long edge puts the back exactly behind the face
        assert back.x == pytest.approx(page.width - face.right, abs=EPS)
        assert back.y == pytest.approx(face.y, abs=EPS)


@pytest.mark.parametrize("page, total", [
    pytest.param(A4, 40, id="a4-40"), pytest.param(LETTER, 40, id="letter-40"),
    pytest.param(A4, 9, id="a4-exactly-one-sheet"), pytest.param(A4, 1, id="a4-one-card"),
    pytest.param(A4, 10, id="a4-one-card-over"),
])
def test_card_sheets_put_every_back_behind_its_face(page, total):
    grid = impose(page, POKER)
    items = [f"card-{i}" for i in range(total)]
    sheets = card_sheets(items, grid)
    assert len(sheets) == math.ceil(total / grid.per_sheet)
    assert [s.number for s in sheets] == list(range(1, len(sheets) + 1))
    assert [item for s in sheets for _, item in s.faces] == items
    for sheet in sheets:
        assert [item for _, item in sheet.backs] == [item for _, item in sheet.faces]
        assert len(sheet.faces) <= grid.per_sheet
        for (face_rect, face_item), (back_rect, back_item) in zip(sheet.faces, sheet.backs):
            assert face_item == back_item
            assert back_rect.x == pytest.approx(page.width - face_rect.right, abs=EPS)
            assert back_rect.y == pytest.approx(face_rect.y, abs=EPS)
    # all but the last sheet are full
    assert all(len(s.faces) == grid.per_sheet for s in sheets[:-1])


def test_partly_filled_last_sheet_mirrors_columns():
    grid = impose(A4, POKER)  # 3 × 3
    sheets = card_sheets(list(range(40)), grid)
    last = sheets[-1]
    assert len(sheets) == 5 and len(last.faces) == 4

    def column_row(rect: Rect) -> tuple[int, int]:
        column = round((rect.x - grid.left) / grid.card.width)
        row = round((grid.top - rect.top) / grid.card.height)
        return column, row

    faces = [column_row(r) for r, _ in last.faces]
    backs = [column_row(r) for r, _ in last.backs]
    assert faces == [(0, 0), (1, 0), (2, 0), (0, 1)]
    assert backs == [(grid.columns - 1 - c, r) for c, r in faces] == [(2, 0), (1, 0), (0, 0), (2, 1)]


def test_two_column_grid_swaps_columns():
    grid = impose(A4, CARD_PRESETS["tarot"])
    assert grid.columns == 2
    for index in range(grid.per_sheet):
        row, column = divmod(index, 2)
        assert same_rect(grid.back_cell(index), grid.cell(row * 2 + (1 - column)))


def test_no_cards_no_sheets():
    assert card_sheets([], impose(A4, POKER)) == []

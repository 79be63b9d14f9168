"""Tests written against mutants that survived the rest of the suite: each states a behaviour the code must have,
measured from what the library computes or writes (text fitting, leaks, geometry, checks, writing)."""
from __future__ import annotations

from pathlib import Path

import pytest
from reportlab.pdfbase.pdfmetrics import stringWidth

from kitgen.core.display import Text
from kitgen.plan import Rect
from kitgen.render.fit import DoesNotFit, fitted_items, fitted_plain, label_items, Slot
from kitgen.fonts.registry import BOLD, register_fonts, REGULAR

register_fonts()


def width_at_one_point(text: str, font: str = REGULAR) -> float:
    return stringWidth(text, font, 1.0)


# --------------------------------------------------------------------------- text fitting


def test_a_word_is_set_at_the_largest_half_point_size_that_fits_the_width():
    word = "Wander"
    box = Rect(0, 0, width_at_one_point(word) * 10.2, 100)  # 10 pt fits, 10.5 pt does not
    fit = fitted_plain(word, Slot(box, max_size=14))
    assert fit.size == 10.0 and fit.lines == (word,)
    assert fit.widths[0] == pytest.approx(width_at_one_point(word) * 10.0)


def test_text_is_never_set_below_the_minimum_of_seven_points():
    word = "Wander"
    fits_at_seven = Rect(0, 0, width_at_one_point(word) * 7.0, 100)
    assert fitted_plain(word, Slot(fits_at_seven, max_size=12)).size == 7.0
    needs_six_and_a_half = Rect(0, 0, width_at_one_point(word) * 6.6, 100)
    with pytest.raises(DoesNotFit):
        fitted_plain(word, Slot(needs_six_and_a_half, max_size=12))
    with pytest.raises(DoesNotFit):  # markup takes the other road (a Paragraph): the same minimum
        fitted_items(f"<b>{word}</b>", Slot(Rect(0, 0, width_at_one_point(word, BOLD) * 6.6, 100), max_size=12))
    size = fitted_items(f"<b>{word}</b>", Slot(Rect(0, 0, width_at_one_point(word, BOLD) * 7.05, 100), max_size=12))[1]
    assert size == 7.0


def test_a_bold_slot_is_measured_in_the_bold_font():
    word = "Wander"
    assert width_at_one_point(word, BOLD) > width_at_one_point(word) * 1.05
    box = Rect(0, 0, width_at_one_point(word) * 10.2, 100)  # regular fits at 10 pt; bold needs less
    fit = fitted_plain(word, Slot(box, max_size=14, bold=True))
    assert fit.size < 10.0 and fit.widths[0] <= box.width
    assert fit.widths[0] == pytest.approx(width_at_one_point(word, BOLD) * fit.size)


def test_lines_break_at_spaces_and_each_line_fits_its_box():
    text = "one two three four five six seven eight nine ten"
    box = Rect(0, 0, 120, 200)
    fit = fitted_plain(text, Slot(box, max_size=12))
    assert fit.size == 12.0
    assert " ".join(fit.lines) == text and len(fit.lines) > 1
    for line, width in zip(fit.lines, fit.widths):
        assert width == pytest.approx(width_at_one_point(line) * 12)
        assert width <= box.width + 0.01
    # greedy: each line but the last could not take the next word
    for line, following in zip(fit.lines, fit.lines[1:]):
        longer = f"{line} {following.split()[0]}"
        assert width_at_one_point(longer) * 12 > box.width + 0.01


def test_the_height_of_the_lines_limits_the_size():
    text = "alpha beta"
    one_word = max(width_at_one_point(w) for w in text.split())
    box_width = one_word * 12 + 1  # at 12 pt the two words need two lines
    assert width_at_one_point(text) * 12 > box_width
    two_lines = 12 * 1.18 + 12  # baseline to baseline, plus one line
    assert fitted_plain(text, Slot(Rect(0, 0, box_width, two_lines), max_size=12)).size == 12.0
    smaller = fitted_plain(text, Slot(Rect(0, 0, box_width, two_lines - 1), max_size=12))
    assert smaller.size < 12.0
    assert smaller.height(1.18) <= two_lines - 1 + 0.01


@pytest.mark.parametrize("align", ["left", "center", "right"])
def test_plain_lines_are_aligned_in_their_box(align):
    box = Rect(40, 50, 200, 80)
    items, size = fitted_items("short line", Slot(box, max_size=10, align=align))
    [line] = items
    assert isinstance(line, Text) and size == 10.0
    width = width_at_one_point("short line") * 10
    expected = {"left": box.x, "center": box.x + (box.width - width) / 2, "right": box.right - width}[align]
    assert line.x == pytest.approx(expected)


@pytest.mark.parametrize("valign", ["middle", "top"])
def test_a_block_of_lines_is_centred_or_set_at_the_top(valign):
    box = Rect(10, 20, 70, 200)
    items, size = fitted_items("one two three four five six", Slot(box, max_size=10), valign=valign)
    assert len(items) > 1 and size == 10.0
    baselines = [item.y for item in items]
    assert all(a - b == pytest.approx(10 * 1.18) for a, b in zip(baselines, baselines[1:]))  # one leading apart
    ink_top, ink_bottom = baselines[0] + 0.76 * size, baselines[-1] - 0.24 * size
    if valign == "top":
        assert ink_top == pytest.approx(box.top)
    else:
        assert (ink_top + ink_bottom) / 2 == pytest.approx(box.y + box.height / 2)


def test_markup_is_centred_or_set_at_the_top_of_its_box():
    box = Rect(10, 20, 150, 200)
    middle, size = fitted_items("<b>Bold</b> words", Slot(box, max_size=10))
    top, _ = fitted_items("<b>Bold</b> words", Slot(box, max_size=10), valign="top")
    assert size == 10.0
    ys_middle = [i.y for i in middle if isinstance(i, Text)]
    ys_top = [i.y for i in top if isinstance(i, Text)]
    assert ys_middle and ys_top
    assert max(ys_top) > box.top - 12 and max(ys_top) < box.top  # first baseline one line below the top
    # one line of 10 pt is 11.8 pt high: centring moves it down by half the room left under it
    assert max(ys_top) - max(ys_middle) == pytest.approx((box.height - 10 * 1.18) / 2, abs=0.01)


def test_an_origin_is_carried_by_every_line():
    items, _ = fitted_items("<b>Bold</b> words", Slot(Rect(0, 0, 150, 50), max_size=10), origin="card 'x'")
    assert items and all(i.origin == "card 'x'" for i in items if isinstance(i, Text))
    items, _ = fitted_items("plain words", Slot(Rect(0, 0, 150, 50), max_size=10), origin="card 'x'")
    assert items and all(i.origin == "card 'x'" for i in items)


@pytest.mark.parametrize("width", [45, 52, 60, 67, 75, 83, 90])
def test_a_label_too_long_for_its_box_is_cut_short_with_an_ellipsis_and_fits(width):
    box = Rect(0, 0, width, 12)
    text = "A label much longer than its little box"
    [line] = label_items(text, Slot(box, max_size=9))
    assert line.text.endswith("…") and text.startswith(line.text[:-1].rstrip())
    assert len(line.text) > 5  # cut only as much as needed, not to one letter
    assert width_at_one_point(line.text) * line.size <= box.width + 0.01
    kept = len(line.text[:-1])
    one_more = text[:kept + 1] if text[kept] != " " else text[:kept + 2]
    assert width_at_one_point(one_more + "…") * line.size > box.width + 0.01  # one letter more would not fit


def test_a_label_is_cut_down_to_a_single_letter_when_only_that_fits(monkeypatch):
    import signal

    def too_slow(*_):
        raise TimeoutError("label_items did not return")

    box = Rect(0, 0, width_at_one_point("A…") * 7 + 0.5, 12)
    assert width_at_one_point("AB…") * 7 > box.width
    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(5)
    try:
        [line] = label_items("ABCDEF", Slot(box, max_size=7))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert line.text == "A…"


def test_text_is_black_unless_a_colour_is_given():
    items, _ = fitted_items("plain words", Slot(Rect(0, 0, 150, 50), max_size=10))
    assert items and all(not any(i.color) for i in items)  # grey 0 or RGB 0, 0, 0
    items, _ = fitted_items("<b>Bold</b> words", Slot(Rect(0, 0, 150, 50), max_size=10))
    texts = [i for i in items if isinstance(i, Text)]
    assert texts and all(not any(i.color) for i in texts)  # grey 0 or RGB 0, 0, 0
    red, _ = fitted_items("plain words", Slot(Rect(0, 0, 150, 50), max_size=10, color=(1, 0, 0)))
    assert red and all(tuple(i.color) == (1, 0, 0) for i in red)


def test_markup_fits_in_a_fresh_process_before_anything_registered_the_fonts():
    import subprocess
    import sys

    script = ("from kitgen.plan import Rect\n"
              "from kitgen.render.fit import Slot, fitted_items\n"
              "items, size = fitted_items('<b>Bold</b> words', Slot(Rect(0, 0, 150, 50), max_size=10))\n"
              "print(size, sorted({i.font for i in items if hasattr(i, 'font')}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout.split()[0]) == 10.0 and "KitSans-Bold" in done.stdout, done.stdout


# --------------------------------------------------------------------------- imposition and tiling

from kitgen.plan.imposition import crop_marks, impose, MARK_GAP, MARK_ZONE, PAGE_MARGIN, Sheet  # noqa: E402
from kitgen.plan.tiling import alignment_marks, BOARD_BORDER, board_layout, BOARD_TITLE, LABEL_BAND, OVERLAP, tile  # noqa: E402
from kitgen.core.units import mm, parse_card_size, parse_paper, Size  # noqa: E402

PAPER_NAMES = ("a4", "letter")


@pytest.mark.parametrize("paper", PAPER_NAMES)
@pytest.mark.parametrize("bleed", [0.0, mm(3)])
def test_the_grid_is_centred_across_the_page_and_its_marks_are_symmetric(paper, bleed):
    page = parse_paper(paper)
    grid = impose(page, parse_card_size("poker"), Sheet(bleed=bleed))
    cells = [grid.cell(i) for i in range(grid.per_sheet)]
    left, right = min(c.x for c in cells), max(c.right for c in cells)
    assert left == pytest.approx(page.width - right)  # centred: a long-edge flip lands backs behind faces
    assert grid.right == pytest.approx(right) and grid.left == pytest.approx(left)
    marks = crop_marks(grid)
    horizontal = [m for m in marks if m.y0 == m.y1]
    west = [m for m in horizontal if m.x1 <= left]
    east = [m for m in horizontal if m.x0 >= right]
    assert west and len(west) == len(east)
    # a mark stops MARK_GAP short of the art (cut line + bleed) and is MARK_ZONE - MARK_GAP long, or, in the side
    # layout, stops MARK_GAP short of the ruler strip
    west_far, east_far = MARK_ZONE + bleed, MARK_ZONE + bleed
    if grid.side is not None:
        west_far = min(west_far, left - grid.band.right - MARK_GAP)
        east_far = min(east_far, grid.side.x - right - MARK_GAP)
    assert west_far == pytest.approx(east_far)
    for m in west:
        assert left - m.x1 == pytest.approx(MARK_GAP + bleed) and left - m.x0 == pytest.approx(west_far)
    for m in east:
        assert m.x0 - right == pytest.approx(MARK_GAP + bleed) and m.x1 - right == pytest.approx(east_far)


@pytest.mark.parametrize("paper", PAPER_NAMES)
@pytest.mark.parametrize("card", ["poker", "mini", "bridge", "40x40mm", "30x25mm", "60x55mm"])
def test_a_gutter_fold_puts_faces_above_the_fold_and_backs_mirrored_below_all_on_the_page(paper, card):
    page = parse_paper(paper)
    grid = impose(page, parse_card_size(card), Sheet(fold=True))
    fold = grid.fold_y
    assert fold == pytest.approx(page.height / 2)
    for i in range(grid.per_sheet):
        face, back = grid.cell(i), grid.back_cell(i)
        assert face.y >= fold and back.top <= fold
        assert back.x == face.x and back.top - fold == pytest.approx(fold - face.y)  # mirrored about the fold
        assert face.top <= page.height - PAGE_MARGIN and back.y >= grid.band.top  # inside margins, above the band
    marks = crop_marks(grid)
    ups = {(round(m.x0, 3), round(m.y0, 3), round(m.y1, 3)) for m in marks if m.y0 > fold}
    downs = {(round(m.x0, 3), round(2 * fold - m.y0, 3), round(2 * fold - m.y1, 3)) for m in marks if m.y0 < fold}
    assert ups and ups == downs  # every mark above the fold has its mirror image below it
    assert all(0 <= m.y0 <= page.height and 0 <= m.y1 <= page.height for m in marks)


def test_a_board_is_its_positions_inside_a_border_with_a_title_band_on_top():
    layout = board_layout(3, 2, 100, 140, 10)
    assert layout.size == Size(2 * BOARD_BORDER + 3 * 100 + 2 * 10, 2 * BOARD_BORDER + BOARD_TITLE + 2 * 140 + 10)
    first, last = layout.positions[0], layout.positions[-1]
    assert (first.x, first.top) == pytest.approx((BOARD_BORDER, layout.size.height - BOARD_BORDER - BOARD_TITLE))
    assert (last.right, last.y) == pytest.approx((layout.size.width - BOARD_BORDER, BOARD_BORDER))
    assert layout.positions[1].x - first.right == pytest.approx(10)  # the gap between columns
    assert first.y - layout.positions[3].top == pytest.approx(10)  # and between rows
    assert layout.title_box.y == pytest.approx(first.top) and layout.title_box.width == pytest.approx(320)
    assert layout.title_box.top == pytest.approx(layout.size.height - BOARD_BORDER)


@pytest.mark.parametrize("board", [Size(mm(400), mm(150)), Size(mm(150), mm(400)), Size(mm(450), mm(500)),
                                   Size(mm(150), mm(200)), Size(mm(200), mm(150)),
                                   Size(mm(150), parse_paper("a4").height - 2 * PAGE_MARGIN - LABEL_BAND)])
def test_parts_cover_the_whole_board_overlap_by_the_glue_strip_and_fit_the_page(board):
    page = parse_paper("a4")
    tiles = tile(board, page)
    columns, rows = max(t.column for t in tiles) + 1, max(t.row for t in tiles) + 1
    assert [t.number for t in tiles] == list(range(1, len(tiles) + 1)) and len(tiles) == columns * rows
    assert [(t.row, t.column) for t in tiles] == sorted((t.row, t.column) for t in tiles)  # reading order
    for t in tiles:
        w = t.window
        assert w.x >= 0 and w.y >= -1e-6 and w.right <= board.width + 1e-6 and w.top <= board.height + 1e-6
        x, y = t.origin  # drawn inside the page margins, at the top of the page
        assert x == PAGE_MARGIN and y >= PAGE_MARGIN and y + w.height == pytest.approx(page.height - PAGE_MARGIN)
        assert x + w.width <= page.width - PAGE_MARGIN + 1e-6
    for a in tiles:
        for b in tiles:
            if b.row == a.row and b.column == a.column + 1:
                assert a.window.right - b.window.x == pytest.approx(OVERLAP)
            if b.column == a.column and b.row == a.row + 1:
                assert b.window.top - a.window.y == pytest.approx(OVERLAP)
    # together the windows cover the board: its corners and centre lie in some window
    for px, py in [(0, 0), (board.width, 0), (0, board.height), (board.width, board.height),
                   (board.width / 2, board.height / 2)]:
        assert any(t.window.x - 1e-6 <= px <= t.window.right + 1e-6 and t.window.y - 1e-6 <= py <= t.window.top + 1e-6
                   for t in tiles)
    # a board that fits one page is one part; a larger one uses no more parts than it needs
    window_w, window_h = page.width - 2 * PAGE_MARGIN, page.height - 2 * PAGE_MARGIN - LABEL_BAND
    assert (columns == 1) == (board.width <= window_w) and (rows == 1) == (board.height <= window_h)
    assert (columns - 1) * (window_w - OVERLAP) < board.width - OVERLAP / 2
    assert (rows - 1) * (window_h - OVERLAP) < board.height - OVERLAP / 2
    if board.width <= window_w:  # the width of a part is the page's, less its two margins
        assert tiles[0].window.width == pytest.approx(board.width)
    else:
        assert tiles[0].window.width == pytest.approx(page.width - 2 * PAGE_MARGIN)
    if board.height <= window_h:  # the height: the page's less its margins and the label band below the part
        assert tiles[0].window.height == pytest.approx(board.height)
    else:
        assert tiles[0].window.height == pytest.approx(window_h)


def test_alignment_marks_sit_in_the_middle_of_every_glue_strip():
    board = Size(mm(450), mm(500))
    tiles = tile(board, parse_paper("a4"))
    marks = alignment_marks(board, tiles)
    columns, rows = max(t.column for t in tiles) + 1, max(t.row for t in tiles) + 1
    assert columns > 1 and rows > 1
    for a in tiles:
        if a.column + 1 < columns:
            x = a.window.right - OVERLAP / 2
            assert sum(1 for m in marks if m[0] == pytest.approx(x) and a.window.y <= m[1] <= a.window.top) == 3
        if a.row + 1 < rows:
            y = a.window.y + OVERLAP / 2
            assert sum(1 for m in marks if m[1] == pytest.approx(y) and a.window.x <= m[0] <= a.window.right) == 3
    for m in marks:  # each mark lies in two parts' windows (the strip they share)
        assert sum(1 for t in tiles if t.window.x - 1e-6 <= m[0] <= t.window.right + 1e-6
                   and t.window.y - 1e-6 <= m[1] <= t.window.top + 1e-6) >= 2


# --------------------------------------------------------------------------- planning a kit

from kitgen.load import load_activity  # noqa: E402
from kitgen.plan.kit import CardRef, plan_kit, Seat  # noqa: E402

KIT_ACTIVITY = """\
id: planned
title: Planned
purpose: How many of everything a kit prints.
category: Test
players: 2-3
minutes: 10
language: en
card_size: poker
rules:
  prepare: Shuffle the cards.
  play: [Draw a card on your turn.]
  finish: The player with more cards wins.
decks:
  - id: main
    name: Main deck
    back: {title: Main, symbol: "★", pattern: stripes}
    cards:
      - {id: blue, name: Blue card, count: 2, text: A blue card.}
      - {id: green, name: Green card, count: 1, text: A green card.}
  - id: extra
    name: Extra deck
    optional: true
    back: {title: Extra, symbol: "◆", pattern: dots}
    cards:
      - {id: red, name: Red card, count: 4, text: A red card.}
slips:
  - {id: each, title: Mine, size: 90x60mm, lines: ["Name:"], copies: 2}
  - {id: shared, title: Ours, size: 90x60mm, lines: ["Team:"], per_player: false, copies: 3}
boards:
  - id: mine
    title: My mat
    positions: {columns: 2, rows: 1, width: 70mm, height: 95mm}
  - id: table
    title: Table mat
    per_player: false
    positions: {columns: 2, rows: 1, width: 70mm, height: 95mm}
"""


@pytest.mark.parametrize("kits", [1, 3])
def test_a_kit_plan_prints_every_card_slip_and_mat_for_every_kit_and_seat(tmp_path, kits):
    path = tmp_path / "planned.yaml"
    path.write_text(KIT_ACTIVITY, encoding="utf-8")
    activity = load_activity(path).activity
    plan = plan_kit(activity, parse_paper("a4"), parse_card_size("poker"), kits=kits)
    numbers = [0] if kits == 1 else [1, 2, 3]
    assert plan.kit_numbers == numbers and plan.kits == kits
    assert plan.seats == [Seat(k, p) for k in numbers for p in (1, 2, 3)]  # the table's size, not the minimum
    main, extra = plan.decks
    assert (main.deck_ids, main.optional, extra.deck_ids, extra.optional) == (("main",), False, ("extra",), True)
    main_refs = [ref for sheet in main.sheets for _, ref in sheet.faces]
    assert main_refs == [CardRef(0, k, n) for n in numbers for k in (0, 0, 1)]
    assert main.cards == 3 * kits and extra.cards == 4 * kits
    each, shared = plan.slips
    assert sum(len(s.faces) for s in each.sheets) == 2 * 3 * kits  # two per player of every kit
    assert sum(len(s.faces) for s in shared.sheets) == 3 * kits  # three per kit
    mine, table = plan.boards
    assert mine.copies == plan.seats and table.copies == [Seat(k, 0) for k in numbers]
    assert len(mine.tiles) >= 1 and mine.layout.size.width > 2 * mm(70)
    assert plan_kit(activity, parse_paper("a4"), parse_card_size("poker")).kit_numbers == [0]  # one kit unless asked


# --------------------------------------------------------------------------- content checks

from kitgen.check.content import check_activity  # noqa: E402
from kitgen.core.errors import ContentError  # noqa: E402

CHECKED = """\
id: checked
title: Checked
purpose: Host-key arithmetic and totals checked against the card data.
category: Test
players: 2
minutes: 10
language: en
card_size: poker
rules:
  prepare: Shuffle the cards.
  play: [Draw a card on your turn.]
  finish: The player with more coins wins.
decks:
  - id: coins
    name: Coins
    back: {title: Coins, symbol: "★", pattern: stripes}
    cards:
      - {id: c1, name: One, count: 3, data: {coins: 1, price: 1, order: 1, suit: a, face: false}}
      - {id: c2, name: Two, count: 2, data: {coins: 2, price: 3, order: 2, suit: a, face: true, weight: true}}
      - {id: c3, name: Three, count: 1, data: {coins: 3, price: 6, order: 3, suit: b, face: true}}
      - {id: blank, name: Blank, count: 1, data: {price: 0, coins: none}}  # a yes/no or a word is no number
HOST
"""


def checked(tmp_path: Path, host: str):
    path = tmp_path / "checked.yaml"
    path.write_text(CHECKED.replace("HOST", host), encoding="utf-8")
    return check_activity(load_activity(path))


def problems_of(tmp_path: Path, host: str) -> str:
    with pytest.raises(ContentError) as caught:
        checked(tmp_path, host)
    return str(caught.value)


def test_a_hand_is_summed_from_the_card_data_and_may_spend_exactly_what_it_makes(tmp_path):
    kit = checked(tmp_path, "host_key:\n  examples:\n    - {hand: [c1, c2], sum: coins, unit: coins, buys: c2}\n"
                            "    - {hand: [c3], sum: coins, unit: coins}\n")
    first, second = kit.hands
    assert (first.total, first.price, first.bought.id, first.affordable) == (3, 3, "c2", True)
    assert (second.total, second.price, second.bought, second.affordable) == (3, None, None, True)


@pytest.mark.parametrize("example, message", [
    ("{hand: [c1, nope], sum: coins, unit: coins}", "host_key.examples[0].hand[1]: no card 'nope' in any deck"),
    ("{hand: [c1, blank], sum: coins, unit: coins}",
     "host_key.examples[0].hand[1]: card 'blank' has no number 'coins' in its data"),
    ("{hand: [c1], sum: coins, unit: coins, buys: nope}", "host_key.examples[0].buys: no card 'nope' in any deck"),
    ("{hand: [c1], sum: coins, unit: coins, buys: c2, price: weight}",
     "host_key.examples[0].buys: card 'c2' has no number 'weight' in its data"),
    ("{hand: [c1, c1], sum: coins, unit: coins, buys: c2}",
     "host_key.examples[0].buys: the hand makes 2 coins but c2 costs 3, expected an affordable purchase"),
])
def test_a_hand_that_does_not_follow_from_the_cards_is_a_located_error(tmp_path, example, message):
    assert message in problems_of(tmp_path, f"host_key:\n  examples:\n    - {example}\n")


@pytest.mark.parametrize("totals, message", [
    ("{cards: 8}", "totals.cards: the content declares 8 cards but the decks hold 7"),
    ("{cards: 6}", "totals.cards: the content declares 6 cards but the decks hold 7"),
    ("{decks: {coins: 8}}", "deck 'coins' holds 7 cards but totals.decks.coins declares 8"),
    ("{decks: {coins: 6}}", "deck 'coins' holds 7 cards but totals.decks.coins declares 6"),
    ("{decks: {gold: 1}}", "totals.decks.gold: no deck 'gold'"),
])
def test_totals_that_differ_from_the_decks_in_either_direction_are_errors(tmp_path, totals, message):
    assert message in problems_of(tmp_path, f"totals: {totals}\n")


def test_totals_that_agree_with_the_decks_pass(tmp_path):
    assert checked(tmp_path, "totals: {cards: 7, decks: {coins: 7}}\n")


SCORING = "  scoring: {order: order, size: 3, points: 1, bonus_points: 5, bonus_same: suit, bonus_all: face}\n"


@pytest.mark.parametrize("cards, points, reason", [(["c1", "c2", "c3"], 1, "run")])
def test_a_set_is_scored_by_the_rule(tmp_path, cards, points, reason):
    kit = checked(tmp_path, f"host_key:\n{SCORING}  sets:\n    - {{cards: [{', '.join(cards)}], points: {points}}}\n")
    [(example, result)] = kit.sets
    assert (result.points, result.reason, [c.id for c in result.cards]) == (points, reason, cards)


@pytest.mark.parametrize("rule, points, reason", [
    ("{order: order, size: 2, points: 1, bonus_points: 5, bonus_same: suit}", 5, "same"),
    ("{order: order, size: 2, points: 1, bonus_points: 4, bonus_all: face}", 1, "run"),
    ("{order: order, size: 2, points: 1, bonus_points: 4, bonus_same: face}", 1, "run"),
])
def test_a_set_bonus_needs_every_card_to_share_it(tmp_path, rule, points, reason):
    kit = checked(tmp_path, f"host_key:\n  scoring: {rule}\n  sets:\n    - {{cards: [c1, c2]}}\n")
    [(_, result)] = kit.sets
    assert (result.points, result.reason) == (points, reason)


@pytest.mark.parametrize("cards, message", [
    ("[c1, c3, c2]", None),
    ("[c1, c2]", "host_key.sets[0]: a set has 3 cards, got 2"),
    ("[c1, c1, c2]", "host_key.sets[0]: c1, c1, c2 are not consecutive"),
    ("[c1, c2, blank]", "host_key.sets[0]: every card of a set needs a number 'order' in its data"),
    ("[c1, c2, nope]", "host_key.sets[0].cards[2]: no card 'nope' in any deck"),
])
def test_a_set_that_is_not_one_is_a_located_error(tmp_path, cards, message):
    host = f"host_key:\n{SCORING}  sets:\n    - {{cards: {cards}}}\n"
    if message is None:
        assert checked(tmp_path, host).sets[0][1].reason == "run"
    else:
        assert message in problems_of(tmp_path, host)


def test_a_set_whose_points_disagree_with_the_rule_is_an_error(tmp_path):
    message = problems_of(tmp_path, f"host_key:\n{SCORING}  sets:\n    - {{cards: [c1, c2, c3], points: 2}}\n")
    assert "host_key.sets[0].points: the scoring rule gives 1 point(s), the content says 2" in message


def test_a_card_table_lists_each_cards_values_blank_where_it_has_none_and_their_total(tmp_path):
    kit = checked(tmp_path, "host_key:\n  card_tables:\n"
                            "    - {title: Coin cards, deck: coins, fields: [{field: coins, heading: Coins},"
                            " {field: order, heading: Order}], total: Total}\n"
                            "    - {title: Two named, cards: [c3, c1], fields: [{field: price, heading: Price}]}\n")
    (_, whole), (_, named) = kit.tables
    assert [(row.card.id, row.values, row.total) for row in whole] == [
        ("c1", [1, 1], 2), ("c2", [2, 2], 4), ("c3", [3, 3], 6), ("blank", ["none", ""], 0)]
    assert [(row.card.id, row.values, row.total) for row in named] == [("c3", [6], 6), ("c1", [1], 1)]


@pytest.mark.parametrize("table, message", [
    ("{title: Gold cards, deck: gold, fields: [{field: coins, heading: Coins}]}",
     "host_key.card_tables[0].deck: no deck 'gold'; decks: coins"),
    ("{title: Named cards, cards: [c1, nope], fields: [{field: coins, heading: Coins}]}",
     "host_key.card_tables[0].cards[1]: no card 'nope' in any deck"),
])
def test_a_card_table_naming_what_does_not_exist_is_a_located_error(tmp_path, table, message):
    assert message in problems_of(tmp_path, f"host_key:\n  card_tables:\n    - {table}\n")


# --------------------------------------------------------------------------- writing files

import errno  # noqa: E402
import os  # noqa: E402

from kitgen.core.atomic import write_atomic  # noqa: E402


def test_a_rename_that_fails_is_reported_under_the_real_name_and_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "kit.pdf"
    target.write_bytes(b"old")

    def refused(source, destination):
        raise PermissionError(errno.EACCES, "Permission denied", str(source))

    monkeypatch.setattr(os, "replace", refused)
    with pytest.raises(PermissionError) as caught:
        write_atomic(target, b"new")
    assert caught.value.filename == str(target) and caught.value.strerror == "Permission denied"
    assert str(caught.value) == f"[Errno {errno.EACCES}] Permission denied: '{target}'"
    assert target.read_bytes() == b"old"


def test_leftover_cleaning_removes_only_files_never_a_folder_or_what_a_link_points_to(tmp_path):
    folder = tmp_path / "kit"
    folder.mkdir()
    (folder / ".kit.pdf.abcdefgh.tmp").mkdir()  # named like a temporary file, but a folder of someone's
    outside = tmp_path / "keep.txt"
    outside.write_text("mine")
    (folder / ".kit.pdf.ijklmnop.tmp").symlink_to(outside)
    (folder / ".kit.pdf.qrstuvwx.tmp").write_bytes(b"left by a killed build")
    write_atomic(folder / "kit.pdf", b"new")
    assert (folder / "kit.pdf").read_bytes() == b"new"
    assert (folder / ".kit.pdf.abcdefgh.tmp").is_dir() and outside.read_text() == "mine"
    assert not (folder / ".kit.pdf.qrstuvwx.tmp").exists()


def test_leftover_cleaning_removes_only_temporary_files_of_the_file_being_written(tmp_path):
    folder = tmp_path / "kit"
    folder.mkdir()
    (folder / ".gitignore").write_text("*\n")  # a hidden file of the user's: not kitgen's to remove
    (folder / ".kit.pdf.notes").write_text("notes")
    (folder / ".other.pdf.abcdefgh.tmp").write_bytes(b"another file's write")
    write_atomic(folder / "kit.pdf", b"new")
    assert (folder / ".gitignore").read_text() == "*\n" and (folder / ".kit.pdf.notes").read_text() == "notes"
    assert (folder / ".other.pdf.abcdefgh.tmp").exists()  # only kit.pdf's leftovers go with kit.pdf's write


def test_without_the_folder_lock_only_old_leftovers_are_removed(tmp_path, monkeypatch):
    folder = tmp_path / "kit"
    folder.mkdir()
    live, dead = folder / ".kit.pdf.abcdefgh.tmp", folder / ".kit.pdf.ijklmnop.tmp"
    live.write_bytes(b"another build is writing this now")
    dead.write_bytes(b"a build killed two hours ago")
    two_hours_ago = dead.stat().st_mtime - 7200
    os.utime(dead, (two_hours_ago, two_hours_ago))
    real_open = os.open

    def no_folder_handle(path, flags, *args, **kwargs):  # a system where a folder cannot be opened (no lock)
        if os.fspath(path) == os.fspath(folder):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", no_folder_handle)
    write_atomic(folder / "kit.pdf", b"new")
    assert (folder / "kit.pdf").read_bytes() == b"new"
    assert live.exists() and not dead.exists()


def test_a_label_whose_box_cannot_hold_one_letter_is_left_out_instead_of_looping():
    """A box 2 pt wide holds no letter and '…': the label is left out (this once looped forever)."""
    import subprocess
    import sys

    code = ("from kitgen.render.fit import Slot, label_items; from kitgen.plan import Rect; "
            "print(label_items('Wide', Slot(Rect(0, 0, 2, 12), max_size=9)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr

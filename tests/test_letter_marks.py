"""US Letter at the default 5 mm margin (9 poker cards, the rulers down the side margins): no hairline runs over a
card's edge, every cut is marked outside the grid on faces and backs (short marks above and below the cards in the
room Letter leaves), and the rulers' ticks are apart from every cut and from each other, the crop marks apart
from the rulers' spines. Positions are measured in the PDF (points, given here in mm)."""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import pdfplumber
import pypdf
import pytest

from conftest import form_placements, library_kit, pt_to_mm, shared

CARD = (63.5, 88.9)
HAIRLINE = 0.3  # pt: crop marks and cut lines are 0.25 pt; card art and the rulers are heavier
RULER = 0.5


@pytest.fixture(scope="module")
def letter() -> Path:
    result = library_kit("growing-discard", "letter")  # the Letter build the test run shares
    return result.folder / "growing-discard-cards.pdf"


def card_boxes(reader: pypdf.PdfReader, page: pypdf.PageObject) -> list[tuple[float, float, float, float]]:
    """The cards' cut rectangles on a page (PDF points, x0, y0, x1, y1): the forms of a card's size."""
    boxes = []
    for placed in form_placements(reader, page):
        b = placed.box
        if abs(pt_to_mm(b.x1 - b.x0) - CARD[0]) < 0.05 and abs(pt_to_mm(b.y1 - b.y0) - CARD[1]) < 0.05:
            boxes.append((b.x0, b.y0, b.x1, b.y1))
    return boxes


def strokes(page: pdfplumber.page.Page) -> list[dict]:
    """Every stroked line, curve and rectangle, with its box in PDF coordinates (y up) as y0/y1."""
    found = []
    for item in page.lines + page.curves + page.rects:
        if item.get("stroke"):
            found.append({**item, "py0": page.height - item["bottom"], "py1": page.height - item["top"]})
    return found


def distinct(values: list[float], tolerance: float = 0.1) -> list[float]:
    kept: list[float] = []
    for value in sorted(values):
        if not kept or value - kept[-1] > tolerance:
            kept.append(value)
    return kept


Page = tuple[int, list[tuple[float, float, float, float]], list[dict]]


def _pages(path: str) -> tuple[Page, ...]:
    reader = pypdf.PdfReader(path)
    with pdfplumber.open(path) as document:
        return tuple((number, card_boxes(reader, page), strokes(plumbed))
                     for number, (page, plumbed) in enumerate(zip(reader.pages, document.pages)))


@lru_cache(maxsize=None)
def _pages_of(path: str, mtime_ns: int) -> tuple[Page, ...]:
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:32]
    return shared(f"letter-marks-{digest}", lambda: _pages(path))


def pages(path: Path) -> tuple[Page, ...]:
    """Per page: its number, its cards' cut rectangles and its strokes (the file parsed once per test run, whichever
    test process asks first)."""
    return _pages_of(str(path), path.stat().st_mtime_ns)


def test_letter_default_holds_nine_cards_and_no_hairline_touches_a_card(letter):
    for number, cards, drawn in pages(letter):
        if number == 0:
            assert len(cards) == 9
        hairlines = [s for s in drawn if s["linewidth"] <= HAIRLINE]
        assert hairlines
        for s in hairlines:
            for x0, y0, x1, y1 in cards:
                dx = max(x0 - s["x1"], s["x0"] - x1, 0.0)
                dy = max(y0 - s["py1"], s["py0"] - y1, 0.0)
                assert max(dx, dy) > 0, (f"page {number + 1}: a hairline at {pt_to_mm(s['x0']):.2f}–"
                                         f"{pt_to_mm(s['x1']):.2f} × {pt_to_mm(s['py0']):.2f}–"
                                         f"{pt_to_mm(s['py1']):.2f} mm touches a card")


def test_every_cut_has_marks_outside_the_grid_on_faces_and_backs(letter):
    for number, cards, drawn in pages(letter):
        if len(cards) < 9:  # the last, partial sheet: its own cuts, checked the same way
            pass
        xs = distinct([v for c in cards for v in (c[0], c[2])])
        ys = distinct([v for c in cards for v in (c[1], c[3])])
        left, right = min(c[0] for c in cards), max(c[2] for c in cards)
        bottom, top = min(c[1] for c in cards), max(c[3] for c in cards)
        marks = [s for s in drawn if s["linewidth"] <= HAIRLINE]
        vertical = [s for s in marks if s["x1"] - s["x0"] < 0.01]
        horizontal = [s for s in marks if s["py1"] - s["py0"] < 0.01]
        for x in xs:
            at = [s for s in vertical if abs(s["x0"] - x) < 0.05]
            assert any(s["py0"] > top for s in at) and any(s["py1"] < bottom for s in at), \
                f"page {number + 1}: the cut at x = {pt_to_mm(x):.2f} mm has no mark above and below the cards"
        for y in ys:
            at = [s for s in horizontal if abs(s["py0"] - y) < 0.05]
            assert any(s["x1"] < left for s in at) and any(s["x0"] > right for s in at), \
                f"page {number + 1}: the cut at y = {pt_to_mm(y):.2f} mm has no mark beside the cards"
        for s in marks:  # nothing within the 5 mm margin
            assert min(s["x0"], s["py0"]) >= 72 * 5 / 25.4 - 0.01
            assert 612 - s["x1"] >= 72 * 5 / 25.4 - 0.01 and 792 - s["py1"] >= 72 * 5 / 25.4 - 0.01


def test_rulers_are_apart_from_every_cut_and_from_each_other(letter):
    for number, cards, drawn in pages(letter):
        left, right = min(c[0] for c in cards), max(c[2] for c in cards)
        _, ys = [], distinct([v for c in cards for v in (c[1], c[3])])
        ruler = [s for s in drawn if abs(s["linewidth"] - RULER) < 0.01]
        ticks = {side: [s for s in ruler if s["py1"] - s["py0"] < 0.01 and (s["x1"] < left if side == "left"
                                                                            else s["x0"] > right)]
                 for side in ("left", "right")}
        spines = {side: [s for s in ruler if s["x1"] - s["x0"] < 0.01 and s["py1"] - s["py0"] > 100
                         and (s["x1"] < left if side == "left" else s["x0"] > right)] for side in ("left", "right")}
        assert len(ticks["left"]) == 21 and len(ticks["right"]) == 17  # every 5 mm to 100; every 1/4 in to 4
        assert len(spines["left"]) == 1 and len(spines["right"]) == 1
        # the rulers measure what they say
        span = {side: max(t["py0"] for t in ticks[side]) - min(t["py0"] for t in ticks[side]) for side in ticks}
        assert pt_to_mm(span["left"]) == pytest.approx(100, abs=0.01) and span["right"] / 72 == pytest.approx(4)
        for side in ticks:
            nearest = min(abs(t["py0"] - y) for t in ticks[side] for y in ys)
            assert pt_to_mm(nearest) >= 1.5, f"page {number + 1}: a {side} ruler tick {pt_to_mm(nearest):.2f} mm " \
                "from a cut reads as its crop mark"
        level = min(abs(a["py0"] - b["py0"]) for a in ticks["left"] for b in ticks["right"])
        assert pt_to_mm(level) >= 5, f"page {number + 1}: the two rulers' ticks {pt_to_mm(level):.2f} mm apart"
        marks = [s for s in drawn if s["linewidth"] <= HAIRLINE and s["py1"] - s["py0"] < 0.01]
        for side, spine in spines.items():
            x = spine[0]["x0"]
            tick_reach = max(t["x1"] for t in ticks[side]) if side == "left" else min(t["x0"] for t in ticks[side])
            for m in marks:
                gap = min(abs(m["x0"] - x), abs(m["x1"] - x))
                assert pt_to_mm(gap) >= 1.0, f"page {number + 1}: a crop mark ends {pt_to_mm(gap):.2f} mm from " \
                    f"the {side} ruler's spine"
                if side == "left":
                    assert pt_to_mm(m["x0"] - tick_reach) >= 1.0 or m["x0"] > right

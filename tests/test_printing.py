"""Printing options, each measured in the PDFs kitgen wrote (millimetres, to 0.1 mm or better).

growing-discard is built once per variant (module scope, lazily): the default (long-edge duplex, crop
marks), gutter fold, short-edge duplex, no backs, 3 mm bleed, cut lines, back offset, ink-light and large
print. Card positions come from the page content streams (pypdf: every form XObject painted, with its
placement matrix and /BBox); card texts from PDFium; lines, rectangles, curves and characters from
pdfplumber. Expected values come from the standards (A4, poker cards 63.5 × 88.9 mm), from the YAML and
from the option given; never from kitgen's own geometry code.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pdfplumber
import pypdf
import pypdfium2 as pdfium
import pytest
from click.testing import CliRunner
from pypdf.generic import ContentStream

from conftest import ACTIVITY, CONTENT, MM_PER_PT, Box, file_of, library_kit, options_kit, pt_to_mm, yaml_data
from kitgen.cli import main

PT_PER_MM = 1 / MM_PER_PT
CARD_MM = (63.5, 88.9)  # poker, the activity's card_size
A4_MM = (210.0, 297.0)
TOL_MM = 0.1
EXACT_MM = 0.001  # for "exactly": numbers in the PDF are written to about 1e-4 pt
THIN = 0.3  # pt: crop marks and cut lines are hairlines (0.25 pt); card art and the ruler are heavier
OFFSET_MM = (1.5, -0.8)
BLEED_MM = 3.0
SYMBOL_MM = 15.0  # a filled shape larger than 15 × 15 mm is an area of ink, not a symbol
FOOTER_MM = 15.0  # the page footer sits in the bottom 15 mm and is small by design

VARIANTS: dict[str, dict] = {
    "base": {},
    "fold": {"fold": True},
    "short": {"duplex": "short"},
    "none": {"duplex": "none"},
    "bleed": {"bleed_mm": BLEED_MM},
    "lines": {"cut_lines": "lines"},
    "both": {"cut_lines": "both"},
    "offset": {"back_offset_mm": OFFSET_MM},
    "light": {"ink": "light"},
    "large": {"large_print": True},
    "letter": {"paper": "letter"},
    "letter-margin": {"paper": "letter", "margin_mm": 2.0},
    "fold-letter": {"paper": "letter", "fold": True},
    "shop": {"print_shop": True},
    "cutter": {"cutter": "silhouette", "corner_mm": 3.0},
}


def mm(value: float) -> float:
    """Millimetres → points."""
    return value * PT_PER_MM


def near(a: float, b: float, tol_mm: float = TOL_MM) -> bool:
    return abs(a - b) <= mm(tol_mm)


# --------------------------------------------------------------------------- builds


@pytest.fixture(scope="module")
def kit():
    """kit(name) → the BuildResult of growing-discard built with that variant's options (each built once)."""
    def get(name: str):
        if name in ("base", "letter"):  # the default options: the build the whole test run shares
            return library_kit(ACTIVITY, VARIANTS[name].get("paper", "a4"))
        return options_kit(ACTIVITY, **VARIANTS[name])  # once per test run, whichever test process asks first

    return get


@pytest.fixture(scope="module")
def activity_yaml() -> dict:
    data: dict = yaml_data((CONTENT / f"{ACTIVITY}.yaml").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def back_words(activity_yaml) -> set[str]:
    """Words printed only on card backs: each deck's back subtitle."""
    return {deck["back"]["subtitle"] for deck in activity_yaml["decks"]}


@pytest.fixture(scope="module")
def total_cards(activity_yaml) -> int:
    return sum(card["count"] for deck in activity_yaml["decks"] for card in deck["cards"])


# --------------------------------------------------------------------------- reading the PDFs


def _multiply(m1, m2):
    a1, b1, c1, d1, e1, f1 = m1
    a2, b2, c2, d2, e2, f2 = m2
    return (a1 * a2 + b1 * c2, a1 * b2 + b1 * d2, c1 * a2 + d1 * c2, c1 * b2 + d1 * d2,
            e1 * a2 + f1 * c2 + e2, e1 * b2 + f1 * d2 + f2)


def _apply(m, x, y):
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


@dataclass(frozen=True)
class Placed:
    """A form XObject painted by a page: its placement matrix, its /BBox and where that box landed."""

    name: str
    matrix: tuple[float, ...]
    bbox: tuple[float, float, float, float]
    box: Box

    @property
    def upright(self) -> bool:
        return _is(self.matrix, 1, 0, 0, 1)

    @property
    def rotated_180(self) -> bool:
        return _is(self.matrix, -1, 0, 0, -1)


def _is(matrix, a, b, c, d) -> bool:
    return all(abs(u - v) < 1e-6 for u, v in zip(matrix[:4], (a, b, c, d)))


@dataclass(frozen=True)
class Card:
    placed: Placed
    text: str
    side: str  # face or back

    @property
    def box(self) -> Box:
        return self.placed.box


@dataclass(frozen=True)
class Path_:
    """A path painted by the page itself (not inside a form), in page coordinates."""

    points: tuple[tuple[float, float], ...]
    rect: bool  # drawn with `re`
    linewidth: float
    stroke: bool
    fill: bool
    dashed: bool

    @property
    def bounds(self) -> Box:
        xs, ys = [p[0] for p in self.points], [p[1] for p in self.points]
        return Box(min(xs), min(ys), max(xs), max(ys))

    @property
    def is_segment(self) -> bool:
        return not self.rect and len(self.points) == 2


@dataclass(frozen=True)
class PageArt:
    """What a page's own content stream paints: forms (cards), paths, and where each text run starts."""

    forms: tuple[Placed, ...]
    paths: tuple[Path_, ...]
    texts: tuple[tuple[float, float, str], ...]

    @property
    def marks(self) -> list[Path_]:
        """Hairline straight lines: the crop marks (the ruler, 0.5 pt, and the fold line, 0.4 pt, are heavier)."""
        return [p for p in self.paths if p.is_segment and p.stroke and p.linewidth <= THIN]

    @property
    def thin_rects(self) -> list[Path_]:
        return [p for p in self.paths if p.rect and p.stroke and p.linewidth <= THIN]


PAINT = {b"S": (True, False), b"s": (True, False), b"f": (False, True), b"F": (False, True), b"f*": (False, True),
         b"B": (True, True), b"B*": (True, True), b"b": (True, True), b"b*": (True, True), b"n": (False, False)}


@lru_cache(maxsize=None)
def _page_art(path: str, mtime_ns: int) -> tuple[PageArt, ...]:
    reader = pypdf.PdfReader(path)
    pages = []
    for page in reader.pages:
        xobjects = page["/Resources"].get_object().get("/XObject", {})
        xobjects = xobjects.get_object() if xobjects else {}
        identity = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
        ctm, width, dashed, stack = identity, 1.0, False, []
        forms, paths, texts = [], [], []
        points: list[tuple[float, float]] = []
        rect = False
        line_matrix = text_matrix = identity
        leading = 0.0
        for operands, operator in ContentStream(page.get_contents(), reader).operations:
            if operator == b"q":
                stack.append((ctm, width, dashed))
            elif operator == b"Q":
                ctm, width, dashed = stack.pop()
            elif operator == b"cm":
                ctm = _multiply(tuple(float(v) for v in operands), ctm)
            elif operator == b"w":
                width = float(operands[0])
            elif operator == b"d":
                dashed = len(operands[0]) > 0
            elif operator == b"m":
                points, rect = [_apply(ctm, float(operands[0]), float(operands[1]))], False
            elif operator == b"l":
                points.append(_apply(ctm, float(operands[0]), float(operands[1])))
            elif operator == b"re":
                x, y, w, h = (float(v) for v in operands)
                points, rect = [_apply(ctm, px, py) for px, py in ((x, y), (x + w, y), (x + w, y + h), (x, y + h))], True
            elif operator in PAINT:
                stroke, fill = PAINT[operator]
                if points and (stroke or fill):
                    paths.append(Path_(tuple(points), rect, width, stroke, fill, dashed))
                points, rect = [], False
            elif operator == b"BT":
                line_matrix = text_matrix = identity
            elif operator == b"Tm":
                line_matrix = text_matrix = tuple(float(v) for v in operands)
            elif operator in (b"Td", b"TD"):
                line_matrix = text_matrix = _multiply((1, 0, 0, 1, float(operands[0]), float(operands[1])), line_matrix)
                leading = -float(operands[1]) if operator == b"TD" else leading
            elif operator == b"TL":
                leading = float(operands[0])
            elif operator == b"T*":
                line_matrix = text_matrix = _multiply((1, 0, 0, 1, 0, -leading), line_matrix)
            elif operator in (b"Tj", b"TJ", b"'", b'"'):
                if operator in (b"'", b'"'):
                    line_matrix = text_matrix = _multiply((1, 0, 0, 1, 0, -leading), line_matrix)
                x, y = _apply(_multiply(text_matrix, ctm), 0, 0)
                texts.append((x, y, str(operands[-1])))
            elif operator == b"Do":
                xobject = xobjects[str(operands[0])].get_object()
                if xobject.get("/Subtype") != "/Form":
                    continue
                full = _multiply(tuple(float(v) for v in xobject.get("/Matrix", [1, 0, 0, 1, 0, 0])), ctm)
                bbox = tuple(float(v) for v in xobject["/BBox"])
                corners = [_apply(full, x, y) for x in (bbox[0], bbox[2]) for y in (bbox[1], bbox[3])]
                xs, ys = [p[0] for p in corners], [p[1] for p in corners]
                forms.append(Placed(str(operands[0]), full, bbox, Box(min(xs), min(ys), max(xs), max(ys))))
        pages.append(PageArt(tuple(forms), tuple(paths), tuple(texts)))
    return tuple(pages)


def page_art(path: Path) -> tuple[PageArt, ...]:
    """Per page, what the page's own content stream paints (parsed with pypdf; forms are not entered)."""
    return _page_art(str(path), path.stat().st_mtime_ns)


def _placements(path: str, mtime_ns: int) -> tuple[tuple[Placed, ...], ...]:
    return tuple(art.forms for art in _page_art(path, mtime_ns))


@lru_cache(maxsize=None)
def _cards(path: str, mtime_ns: int, back_words: frozenset[str]) -> tuple[tuple[Card, ...], ...]:
    document = pdfium.PdfDocument(path)
    try:
        pages = []
        for index, placed in enumerate(_placements(path, mtime_ns)):
            textpage = document[index].get_textpage()
            cards = []
            for item in placed:
                b = item.box
                text = " ".join(textpage.get_text_bounded(b.x0, b.y0, b.x1, b.y1).split())
                side = "back" if any(word in text for word in back_words) else "face"
                cards.append(Card(item, text, side))
            pages.append(tuple(cards))
        return tuple(pages)
    finally:
        document.close()


def cards_by_page(path: Path, back_words: set[str]) -> tuple[tuple[Card, ...], ...]:
    """Per page, every card drawn, with its text (PDFium) and whether it is a face or a back."""
    return _cards(str(path), path.stat().st_mtime_ns, frozenset(back_words))


def page_side(cards: tuple[Card, ...]) -> str:
    sides = {card.side for card in cards}
    assert len(sides) == 1, f"a duplex page mixes faces and backs: {sides}"
    return sides.pop()


@dataclass(frozen=True)
class Drawn:
    """pdfplumber's objects of one page (forms included), coordinates in PDF space (y up)."""

    width: float
    height: float
    chars: list[dict]
    rects: list[dict]
    curves: list[dict]


@lru_cache(maxsize=None)
def _drawn(path: str, mtime_ns: int, index: int) -> Drawn:
    with pdfplumber.open(path, pages=[index + 1]) as pdf:
        page = pdf.pages[0]
        keep = ("x0", "x1", "y0", "y1", "linewidth", "stroke", "fill", "text", "size", "matrix")
        objects = page.objects

        def plain(kind: str) -> list[dict]:
            return [{k: o[k] for k in keep if k in o} for o in objects.get(kind, [])]

        return Drawn(float(page.width), float(page.height), plain("char"), plain("rect"), plain("curve"))


def drawn(path: Path, index: int) -> Drawn:
    """pdfplumber's view of one page (slow on pages full of pattern: ask only for the pages needed)."""
    return _drawn(str(path), path.stat().st_mtime_ns, index)


def page_size(path: Path) -> tuple[float, float]:
    box = pypdf.PdfReader(path).pages[0].mediabox
    return float(box.width), float(box.height)


def viewer_preferences(path: Path) -> dict:
    prefs = pypdf.PdfReader(path).trailer["/Root"].get("/ViewerPreferences")
    return {str(k): str(v) for k, v in prefs.get_object().items()} if prefs is not None else {}


@lru_cache(maxsize=None)
def _text(path: str, mtime_ns: int) -> str:
    document = pdfium.PdfDocument(path)  # PDFium's text: some 30 times quicker than pdfplumber's layout
    try:
        return " ".join(" ".join(page.get_textpage().get_text_range().split()) for page in document)
    finally:
        document.close()


def text_of(path: Path) -> str:
    """All text of a (text-only) PDF, whitespace collapsed."""
    return _text(str(path), path.stat().st_mtime_ns)


def cut_box(card: Card, bleed_mm: float = 0.0) -> Box:
    """The cut rectangle of a card: its painted box without the bleed."""
    b, inset = card.box, mm(bleed_mm)
    return Box(b.x0 + inset, b.y0 + inset, b.x1 - inset, b.y1 - inset)


def assert_card_size(box: Box, where: str) -> None:
    assert near(box.width, mm(CARD_MM[0])) and near(box.height, mm(CARD_MM[1])), (
        f"{where}: card is {pt_to_mm(box.width):.2f} × {pt_to_mm(box.height):.2f} mm, want {CARD_MM}")


def box_distance(a: Box, b: Box) -> float:
    """Shortest distance between two rectangles (0 when they touch or overlap)."""
    dx = max(b.x0 - a.x1, a.x0 - b.x1, 0.0)
    dy = max(b.y0 - a.y1, a.y0 - b.y1, 0.0)
    return math.hypot(dx, dy)


def distinct(values, tolerance: float) -> list[float]:
    out: list[float] = []
    for value in sorted(values):
        if not out or value - out[-1] > tolerance:
            out.append(value)
    return out


def same_box(a: Box, b: Box, tol_mm: float = TOL_MM) -> bool:
    return all(near(u, v, tol_mm) for u, v in zip((a.x0, a.y0, a.x1, a.y1), (b.x0, b.y0, b.x1, b.y1)))


def shifted(box: Box, dx: float, dy: float) -> Box:
    return Box(box.x0 + dx, box.y0 + dy, box.x1 + dx, box.y1 + dy)


# --------------------------------------------------------------------------- the default, as a reference


def test_default_is_long_edge_duplex_with_unrotated_backs_behind_their_faces(kit, back_words, total_cards):
    path = file_of(kit("base"), "cards")
    pages = cards_by_page(path, back_words)
    assert len(pages) % 2 == 0
    assert viewer_preferences(path).get("/Duplex") == "/DuplexFlipLongEdge"
    width, _ = page_size(path)
    faces = 0
    for number in range(0, len(pages), 2):
        front, back = pages[number], pages[number + 1]
        assert page_side(front) == "face" and page_side(back) == "back", f"pages {number + 1}, {number + 2}"
        assert len(front) == len(back)
        faces += len(front)
        for card in front:
            assert card.placed.upright
            assert_card_size(card.box, f"page {number + 1}")
            want = Box(width - card.box.x1, card.box.y0, width - card.box.x0, card.box.y1)
            matches = [b for b in back if same_box(b.box, want)]
            assert len(matches) == 1, f"page {number + 2}: no back behind the face at {card.box}"
            assert matches[0].placed.upright
    assert faces == total_cards


# --------------------------------------------------------------------------- gutter fold


def test_gutter_fold_puts_rotated_backs_mirrored_across_the_drawn_fold_line(kit, back_words, total_cards):
    path = file_of(kit("fold"), "cards")
    pages, art = cards_by_page(path, back_words), page_art(path)
    width, _ = page_size(path)
    per_page = [sum(card.side == "face" for card in page) for page in pages]
    # one page per sheet: every page holds its faces and their backs, and the faces fill the pages in order
    assert sum(per_page) == total_cards
    assert len(pages) == math.ceil(total_cards / max(per_page))
    assert "/Duplex" not in viewer_preferences(path), "a gutter-fold sheet prints one-sided"
    for index, page in enumerate(pages):
        where = f"fold page {index + 1}"
        faces = [c for c in page if c.side == "face"]
        backs = [c for c in page if c.side == "back"]
        assert len(faces) == len(backs) > 0, where
        folds = [p for p in art[index].paths if p.is_segment and p.dashed and p.stroke
                 and abs(p.bounds.height) < 0.01 and p.bounds.width > width - mm(2 * 5 + 1)]
        assert len(folds) == 1, f"{where}: expected one dashed fold line across the page, got {folds}"
        fold = folds[0].bounds.y0
        assert all(c.box.y0 > fold for c in faces) and all(c.box.y1 < fold for c in backs), where
        for face in faces:
            assert face.placed.upright, where
            assert_card_size(face.box, where)
            want_y = 2 * fold - face.box.y0 - face.box.height
            matches = [b for b in backs if near(b.box.x0, face.box.x0) and near(b.box.y0, want_y)]
            assert len(matches) == 1, (
                f"{where}: no back at x={pt_to_mm(face.box.x0):.2f} mm, y={pt_to_mm(want_y):.2f} mm "
                f"(mirror of the face at y={pt_to_mm(face.box.y0):.2f} mm across the fold at {pt_to_mm(fold):.2f} mm)")
            assert_card_size(matches[0].box, where)
        for back in backs:
            assert back.placed.rotated_180, f"{where}: back placed with matrix {back.placed.matrix}"
    # the words of a back are upside down on the sheet (so that they read upright once folded)
    plumbed = drawn(path, 0)
    for card in pages[0]:
        inside = [c for c in plumbed.chars
                  if card.box.contains_point((c["x0"] + c["x1"]) / 2, (c["y0"] + c["y1"]) / 2)]
        assert inside, card.text
        signs = {(c["matrix"][0] > 0, c["matrix"][3] > 0) for c in inside}
        assert signs == ({(True, True)} if card.side == "face" else {(False, False)}), (card.side, card.text)


# --------------------------------------------------------------------------- short-edge duplex


def test_short_edge_backs_are_rotated_and_mirrored_top_to_bottom(kit, back_words):
    path = file_of(kit("short"), "cards")
    assert viewer_preferences(path).get("/Duplex") == "/DuplexFlipShortEdge"
    pages = cards_by_page(path, back_words)
    _, height = page_size(path)
    assert len(pages) % 2 == 0
    for number in range(0, len(pages), 2):
        front, back = pages[number], pages[number + 1]
        assert page_side(front) == "face" and page_side(back) == "back"
        assert len(front) == len(back)
        for card in front:
            assert card.placed.upright
            want = Box(card.box.x0, height - card.box.y1, card.box.x1, height - card.box.y0)
            matches = [b for b in back if same_box(b.box, want)]
            assert len(matches) == 1, f"page {number + 2}: no back at the vertical mirror of {card.box}"
            assert matches[0].placed.rotated_180, matches[0].placed.matrix


def test_short_edge_back_pages_mirror_the_crop_marks_and_move_the_ruler_to_the_top(kit):
    path = file_of(kit("short"), "cards")
    _, height = page_size(path)
    art = page_art(path)
    for number in range(0, len(art), 2):
        face, back = art[number], art[number + 1]
        want = sorted((round(m.bounds.x0, 1), round(height - m.bounds.y1, 1), round(m.bounds.x1, 1),
                       round(height - m.bounds.y0, 1)) for m in face.marks)
        got = sorted((round(m.bounds.x0, 1), round(m.bounds.y0, 1), round(m.bounds.x1, 1), round(m.bounds.y1, 1))
                     for m in back.marks)
        assert len(want) == len(got) > 0
        for w, g in zip(want, got):
            assert all(near(a, b) for a, b in zip(w, g)), (number + 2, w, g)
        ruler_face = [p for p in face.paths if p.is_segment and abs(p.linewidth - 0.5) < 0.01]
        ruler_back = [p for p in back.paths if p.is_segment and abs(p.linewidth - 0.5) < 0.01]
        assert ruler_face and ruler_back
        assert max(p.bounds.y1 for p in ruler_face) < mm(20), "the ruler is at the bottom of a face page"
        assert min(p.bounds.y0 for p in ruler_back) > height - mm(20), "and at the top of its back page"


# --------------------------------------------------------------------------- no backs


def test_duplex_none_prints_faces_only(kit, back_words, total_cards):
    path = file_of(kit("none"), "cards")
    pages = cards_by_page(path, back_words)
    assert all(page_side(page) == "face" for page in pages)
    per_sheet = max(len(page) for page in pages)
    assert sum(len(page) for page in pages) == total_cards
    assert len(pages) == math.ceil(total_cards / per_sheet), "one page per sheet, no back pages"
    texts = " ".join(card.text for page in pages for card in page)
    assert not any(word in texts for word in back_words)
    prefs = viewer_preferences(path)
    assert "/Duplex" not in prefs
    assert prefs.get("/PrintScaling") == "/None"


# --------------------------------------------------------------------------- bleed


def test_bleed_keeps_cut_lines_at_card_size_and_spaces_cards_by_twice_the_bleed(kit, back_words):
    path = file_of(kit("bleed"), "cards")
    pages, art = cards_by_page(path, back_words), page_art(path)
    for index, cards in enumerate(pages):
        where = f"bleed page {index + 1}"
        assert len(cards) >= 1, where
        for card in cards:
            assert near(card.box.width, mm(CARD_MM[0] + 2 * BLEED_MM)), (where, pt_to_mm(card.box.width))
            assert near(card.box.height, mm(CARD_MM[1] + 2 * BLEED_MM)), (where, pt_to_mm(card.box.height))
            assert_card_size(cut_box(card, BLEED_MM), where)
        cuts = [cut_box(card, BLEED_MM) for card in cards]
        columns = distinct([c.x0 for c in cuts], mm(1))
        rows = distinct([c.y0 for c in cuts], mm(1))
        for left, right in zip(columns, columns[1:]):
            assert near(right - left, mm(CARD_MM[0] + 2 * BLEED_MM)), (where, pt_to_mm(right - left))
        for low, high in zip(rows, rows[1:]):
            assert near(high - low, mm(CARD_MM[1] + 2 * BLEED_MM)), (where, pt_to_mm(high - low))
        marks = art[index].marks
        assert marks, where
        # the marks continue the cut lines: a card apart within a card, twice the bleed apart between cards
        vertical = distinct([m.bounds.x0 for m in marks if m.bounds.width < 0.01], 0.01)
        horizontal = distinct([m.bounds.y0 for m in marks if m.bounds.height < 0.01], 0.01)
        if len(cards) == max(len(page) for page in pages):  # a full sheet: every column and row is cut
            gaps_x = [pt_to_mm(b - a) for a, b in zip(vertical, vertical[1:])]
            gaps_y = [pt_to_mm(b - a) for a, b in zip(horizontal, horizontal[1:])]
            assert gaps_x == pytest.approx([CARD_MM[0] if i % 2 == 0 else 2 * BLEED_MM
                                            for i in range(2 * len(columns) - 1)], abs=TOL_MM), where
            assert gaps_y == pytest.approx([CARD_MM[1] if i % 2 == 0 else 2 * BLEED_MM
                                            for i in range(2 * len(rows) - 1)], abs=TOL_MM), where
            edges_x = distinct([c.x0 for c in cuts] + [c.x1 for c in cuts], 0.01)
            edges_y = distinct([c.y0 for c in cuts] + [c.y1 for c in cuts], 0.01)
            assert [pt_to_mm(v) for v in vertical] == pytest.approx([pt_to_mm(v) for v in edges_x], abs=TOL_MM)
            assert [pt_to_mm(v) for v in horizontal] == pytest.approx([pt_to_mm(v) for v in edges_y], abs=TOL_MM)
        # no mark comes nearer than the bleed + 1 mm to a cut line, i.e. 1 mm to any art
        for mark in marks:
            to_cut = min(box_distance(mark.bounds, c) for c in cuts)
            to_art = min(box_distance(mark.bounds, card.box) for card in cards)
            assert pt_to_mm(to_cut) >= BLEED_MM + 1 - EXACT_MM, (where, mark, pt_to_mm(to_cut))
            assert pt_to_mm(to_art) >= 1 - EXACT_MM, (where, mark, pt_to_mm(to_art))


def test_bleed_back_forms_are_larger_than_the_card_by_the_bleed_on_every_side(kit, back_words):
    path = file_of(kit("bleed"), "cards")
    backs = [card for page in cards_by_page(path, back_words) for card in page if card.side == "back"]
    assert backs
    for card in backs:
        x0, y0, x1, y1 = card.placed.bbox
        assert [pt_to_mm(v) for v in (x0, y0, x1 - mm(CARD_MM[0]), y1 - mm(CARD_MM[1]))] == pytest.approx(
            [-BLEED_MM, -BLEED_MM, BLEED_MM, BLEED_MM], abs=EXACT_MM), card.placed.bbox


# --------------------------------------------------------------------------- cut lines


@pytest.mark.parametrize("variant", ["lines", "both"])
def test_cut_lines_are_thin_rectangles_exactly_on_every_card(kit, back_words, variant):
    path = file_of(kit(variant), "cards")
    pages, art = cards_by_page(path, back_words), page_art(path)
    for index, cards in enumerate(pages):
        where = f"{variant} page {index + 1}"
        rects = art[index].thin_rects
        if page_side(cards) == "back":  # a line on a back would show on the card wherever the cut lands
            assert rects == [], f"{where}: {len(rects)} cut lines on a back page"
            continue
        assert len(rects) == len(cards), f"{where}: {len(rects)} thin rectangles for {len(cards)} cards"
        for card in cards:
            on_line = [r for r in rects if same_box(r.bounds, card.box, EXACT_MM)]
            assert len(on_line) == 1, f"{where}: no thin rectangle on the cut line of {card.box}"
            assert not on_line[0].fill


def test_cut_lines_option_decides_the_margin_crop_marks(kit):
    art = {variant: page_art(file_of(kit(variant), "cards")) for variant in ("base", "lines", "both")}
    for index in range(len(art["base"])):
        assert art["base"][index].marks, f"default page {index + 1} has crop marks"
        assert art["lines"][index].marks == [], "cut_lines='lines' draws no crop marks in the margin"
        assert art["both"][index].marks == art["base"][index].marks, "'both' keeps the default's crop marks"
        assert art["base"][index].thin_rects == [], "the default draws no cut-line rectangles"


# --------------------------------------------------------------------------- back offset


def _moved(old: dict, new: dict, dx: float, dy: float) -> bool:
    return all(abs(new[k] - old[k] - d) <= mm(EXACT_MM) for k, d in (("x0", dx), ("x1", dx), ("y0", dy), ("y1", dy)))


def test_back_offset_moves_every_element_of_back_pages_and_nothing_on_face_pages(kit, back_words):
    base_path, offset_path = file_of(kit("base"), "cards"), file_of(kit("offset"), "cards")
    base_reader, offset_reader = pypdf.PdfReader(base_path), pypdf.PdfReader(offset_path)
    assert len(base_reader.pages) == len(offset_reader.pages)
    base_cards = cards_by_page(base_path, back_words)
    base_art, offset_art = page_art(base_path), page_art(offset_path)
    dx, dy = mm(OFFSET_MM[0]), mm(OFFSET_MM[1])
    backs = 0
    for index, (before, after) in enumerate(zip(base_art, offset_art)):
        where = f"page {index + 1}"
        if page_side(base_cards[index]) == "face":
            assert (offset_reader.pages[index].get_contents().get_data()
                    == base_reader.pages[index].get_contents().get_data()), f"{where}: a face page changed"
            continue
        backs += 1
        # placements: the same card backs, each moved by exactly the offset
        assert [f.name for f in before.forms] == [f.name for f in after.forms], where
        for old, new in zip(before.forms, after.forms):
            assert same_box(new.box, shifted(old.box, dx, dy), EXACT_MM), (where, old.box, new.box)
        # every mark, ruler tick and outline the page draws itself, and every text run (ruler labels, sheet label)
        assert len(before.marks) > 0 and len(before.paths) > len(before.marks), where
        assert len(before.paths) == len(after.paths), where
        for old, new in zip(before.paths, after.paths):
            assert (old.linewidth, old.rect) == (new.linewidth, new.rect)
            assert all(abs(n[0] - o[0] - dx) <= mm(EXACT_MM) and abs(n[1] - o[1] - dy) <= mm(EXACT_MM)
                       for o, n in zip(old.points, new.points)), (where, old, new)
        assert [t[2] for t in before.texts] == [t[2] for t in after.texts] and before.texts, where
        for old, new in zip(before.texts, after.texts):
            assert abs(new[0] - old[0] - dx) <= mm(EXACT_MM) and abs(new[1] - old[1] - dy) <= mm(EXACT_MM), (
                where, old, new)
    assert backs == len(base_art) // 2
    # what is drawn inside the cards is the same (the forms are unchanged), so it moves with them: check one
    # back page's characters as pdfplumber places them
    index = next(i for i in range(len(base_art)) if page_side(base_cards[i]) == "back" and i > 1)
    old_chars, new_chars = drawn(base_path, index).chars, drawn(offset_path, index).chars
    assert len(old_chars) == len(new_chars) > 0
    assert all(_moved(o, n, dx, dy) and o["text"] == n["text"] for o, n in zip(old_chars, new_chars))


def test_printer_profile_gives_the_same_kit_as_the_back_offset_option(kit, tmp_path, monkeypatch):
    config = tmp_path / "config" / "printers.json"
    monkeypatch.setenv("KITGEN_CONFIG", str(config))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("KITGEN_CONTENT", raising=False)
    runner = CliRunner()
    added = runner.invoke(main, ["printer", "add", "room12", "--back-offset", "1.5,-0.8"])
    assert added.exit_code == 0, added.output
    assert config.is_file() and not (tmp_path / "xdg").exists()
    assert json.loads(config.read_text())["room12"]["back_offset_mm"] == [1.5, -0.8]
    listed = runner.invoke(main, ["printer", "list"])
    assert listed.exit_code == 0 and "room12" in listed.output, listed.output

    outputs = {}
    for name, args in (("printer", ["--printer", "room12"]), ("offset", ["--back-offset", "1.5,-0.8"])):
        out = tmp_path / name
        result = runner.invoke(main, ["build", ACTIVITY, "--content", str(CONTENT), "--out", str(out), *args])
        assert result.exit_code == 0, result.output
        kit_folder = out / "variants" / "offset+1.5,-0.8" / ACTIVITY  # a printer shift builds a variant of its own
        outputs[name] = {p.name: p.read_bytes() for p in sorted(kit_folder.glob("*.pdf"))}
    assert outputs["printer"] and outputs["printer"] == outputs["offset"]
    library_build = file_of(kit("offset"), "cards")
    assert outputs["printer"][library_build.name] == library_build.read_bytes()


# --------------------------------------------------------------------------- calibration page


@pytest.mark.parametrize("duplex, preference", [("long", "/DuplexFlipLongEdge"), ("short", "/DuplexFlipShortEdge")])
def test_calibrate_writes_a_two_page_a4_test_with_viewer_preferences(tmp_path, duplex, preference):
    result = CliRunner().invoke(main, ["calibrate", "--paper", "a4", "--duplex", duplex, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    written = list(tmp_path.glob("*.pdf"))
    assert len(written) == 1, written
    path = written[0]
    reader = pypdf.PdfReader(path)
    assert len(reader.pages) == 2
    for page in reader.pages:
        assert [pt_to_mm(float(v)) for v in page.mediabox] == pytest.approx([0, 0, *A4_MM], abs=TOL_MM)
    prefs = viewer_preferences(path)
    assert prefs.get("/Duplex") == preference
    assert prefs.get("/PrintScaling") == "/None"
    # the front's cross and the back's scales are centred on the sheet; the scales are ticked every millimetre
    cx, cy = mm(A4_MM[0]) / 2, mm(A4_MM[1]) / 2
    front, back = page_art(path)
    around = Box(cx - mm(EXACT_MM), cy - mm(EXACT_MM), cx + mm(EXACT_MM), cy + mm(EXACT_MM))
    crossing = [p.bounds for p in front.paths if p.is_segment and box_distance(p.bounds, around) == 0]
    assert len(crossing) == 2 and {round(pt_to_mm(b.width)) for b in crossing} == {0, 30}, crossing
    ticks = [p.bounds for p in back.paths if p.is_segment and p.bounds.width < 0.01
             and near(p.bounds.y1, cy, EXACT_MM) and p.bounds.y0 < cy - 0.01]
    offsets = sorted(pt_to_mm(b.x0 - cx) for b in ticks)
    assert offsets == pytest.approx(list(range(-12, 13)), abs=EXACT_MM)


# --------------------------------------------------------------------------- ink-light


def _filled_areas(path: Path, indexes) -> list[tuple[int, float, float]]:
    found = []
    for index in indexes:
        art = drawn(path, index)
        for shape in art.rects + art.curves:
            w, h = pt_to_mm(shape["x1"] - shape["x0"]), pt_to_mm(shape["y1"] - shape["y0"])
            if shape["fill"] and w * h > SYMBOL_MM * SYMBOL_MM:
                found.append((index + 1, round(w, 1), round(h, 1)))
    return found


def test_ink_light_cards_have_no_filled_areas(kit, back_words):
    base = file_of(kit("base"), "cards")
    assert _filled_areas(base, [3]), "control: the default backs fill their panels"
    light = file_of(kit("light"), "cards")
    pages = cards_by_page(light, back_words)
    assert _filled_areas(light, range(len(pages))) == []
    # the backs are still drawn (as outlines) and still say which deck they belong to
    assert [page_side(page) for page in pages] == ["face", "back"] * (len(pages) // 2)
    plumbed = drawn(light, 1)
    for card in pages[1]:
        outlines = [c for c in plumbed.curves if c["stroke"] and card.box.contains_point(c["x0"], c["y0"])
                    and card.box.contains_point(c["x1"], c["y1"])]
        assert outlines, f"the back at {card.box} has no outline"


# --------------------------------------------------------------------------- large print


def _small_chars(path: Path, minimum: float, *, bullets: bool = True) -> list[tuple[int, str, float]]:
    small = []
    for index in range(len(pypdf.PdfReader(path).pages)):
        for char in drawn(path, index).chars:
            if not char["text"].strip() or (not bullets and char["text"] == "•"):
                continue
            if char["y0"] >= mm(FOOTER_MM) and char["size"] < minimum - 0.01:
                small.append((index + 1, char["text"], round(char["size"], 2)))
    return small


@pytest.mark.parametrize("role", ["sheets", "host-key", "print-guide"])
def test_large_print_documents_are_at_least_14_pt(kit, role):
    assert _small_chars(file_of(kit("base"), role), 14), f"control: the default {role} has text under 14 pt"
    small = _small_chars(file_of(kit("large"), role), 14)
    assert not small, f"{len(small)} characters under 14 pt above the footer, e.g. {small[:8]}"


@pytest.mark.parametrize("role", ["sheets", "host-key", "print-guide"])
def test_large_print_words_are_at_least_14_pt(kit, role):
    """Every character but the list bullets is at least 14 pt (the test above covers the bullets too)."""
    assert _small_chars(file_of(kit("base"), role), 14, bullets=False), f"control: the default {role} has small text"
    small = _small_chars(file_of(kit("large"), role), 14, bullets=False)
    assert not small, f"{len(small)} characters under 14 pt above the footer, e.g. {small[:8]}"


def test_large_print_keeps_the_card_size_and_positions(kit, back_words):
    base = cards_by_page(file_of(kit("base"), "cards"), back_words)
    large = cards_by_page(file_of(kit("large"), "cards"), back_words)
    assert len(base) == len(large)
    for index, (before, after) in enumerate(zip(base, large)):
        assert len(before) == len(after), f"page {index + 1}"
        for old, new in zip(before, after):
            assert same_box(old.box, new.box, EXACT_MM), f"page {index + 1}"
            assert_card_size(new.box, f"large page {index + 1}")


# --------------------------------------------------------------------------- the print guide says so


GUIDE_SAYS = {
    "base": ["flip on long edge"],
    "fold": ["fold each sheet", "Gutter fold"],
    "short": ["flip on short edge"],
    "none": ["no backs"],
    "bleed": [f"{BLEED_MM:g} mm past each cut line"],
    "lines": ["A thin line runs round every card exactly on its cut line"],
    "both": ["A thin line runs round every card exactly on its cut line", "crop marks"],
    "offset": ["shifted by 1.5,-0.8 mm"],
    "light": ["Ink-light"],
    "large": ["Large-print"],
}


@pytest.mark.parametrize("variant", list(GUIDE_SAYS))
def test_print_guide_states_the_chosen_options(kit, variant):
    text = text_of(file_of(kit(variant), "print-guide"))
    for phrase in GUIDE_SAYS[variant]:
        assert phrase in text, f"{variant}: the print guide does not say {phrase!r}"
    if variant != "base":
        base = text_of(file_of(kit("base"), "print-guide"))
        assert not all(phrase in base for phrase in GUIDE_SAYS[variant]), "the default guide says the same"
    if variant == "lines":
        assert "crop marks" not in text, "no crop marks are printed, so the guide must not tell how to use them"


# --------------------------------------------------------------------------- print, round two (issue 19)


def render_gray(path: Path, index: int, dpi: float):
    """Page `index` as a grayscale PIL image rendered by PDFium, and its scale in pixels per point."""
    document = pdfium.PdfDocument(str(path))
    try:
        image = document[index].render(scale=dpi / 72).to_pil().convert("L")
    finally:
        document.close()
    return image, dpi / 72


@lru_cache(maxsize=None)
def _words_by_page(path: str, mtime_ns: int) -> tuple[tuple[tuple[str, Box], ...], ...]:
    """Every word of every page with its box in PDF space (PDFium's font-height boxes, as pdfplumber's: the file
    read once, some 30 times quicker than pdfplumber's layout)."""
    document = pdfium.PdfDocument(path)
    try:
        pages = []
        for page in document:
            textpage = page.get_textpage()
            text = textpage.get_text_range(0, textpage.count_chars())
            words: list[tuple[str, Box]] = []
            start = None
            for index, char in enumerate(text + " "):
                if start is None and not char.isspace():
                    start = index
                elif start is not None and char.isspace():
                    boxes = [textpage.get_charbox(i, loose=True) for i in range(start, index)]
                    words.append((text[start:index], Box(min(b[0] for b in boxes), min(b[1] for b in boxes),
                                                         max(b[2] for b in boxes), max(b[3] for b in boxes))))
                    start = None
            pages.append(tuple(words))
        return tuple(pages)
    finally:
        document.close()


def _word_boxes(path: Path, index: int, words: set[str]) -> list[Box]:
    return [box for text, box in _words_by_page(str(path), path.stat().st_mtime_ns)[index] if text in words]


@pytest.mark.parametrize("variant", ["fold", "fold-letter"])
def test_fold_label_is_clear_of_every_crop_mark(kit, variant):
    path = file_of(kit(variant), "cards")
    art = page_art(path)
    for index in range(len(art)):
        found = _word_boxes(path, index, {"fold", "here"})  # the sheet label's "fold on the line" is not it
        labels = [b for b in found if any(abs(b.y0 - h.y0) < 0.5 for h in _word_boxes(path, index, {"here"}))]
        assert len(labels) == 2, f"page {index + 1}: the fold label is not printed"
        for mark in art[index].marks:
            gap = min(box_distance(mark.bounds, label) for label in labels)
            assert gap >= mm(0.5), f"{variant} page {index + 1}: a crop mark {pt_to_mm(gap):.2f} mm from the fold label"


def test_short_edge_guide_tells_hand_feeding_for_a_short_edge_flip(kit):
    long_edge = "put the stack back in the tray printed side up with the top edge the same way"
    short = text_of(file_of(kit("short"), "print-guide"))
    assert "turn the stack over top to bottom" in short
    assert long_edge not in short, "the long-edge instruction would turn the backs upside down"
    assert long_edge in text_of(file_of(kit("base"), "print-guide"))


def test_duplex_none_moves_the_deck_marks_to_the_faces(kit, activity_yaml):
    path = file_of(kit("none"), "cards")
    titles = {deck["back"]["title"]: deck for deck in activity_yaml["decks"]}
    pages = cards_by_page(path, set())
    counts = {title: 0 for title in titles}
    for page in pages:
        for card in page:
            found = [title for title in titles if title in card.text]
            assert len(found) == 1, f"a face without its deck's mark: {card.text!r}"
            counts[found[0]] += 1
    assert counts == {title: sum(c["count"] for c in deck["cards"]) for title, deck in titles.items()}
    # the same card of the two starting decks now looks different
    c1 = {card.text for page in pages for card in page if card.text.startswith("1 C1")}
    assert len(c1) == 2, c1
    guide = text_of(file_of(kit("none"), "print-guide"))
    assert "the backs show which deck" not in guide and "foot of each face" in guide
    # with backs, the faces carry no such mark
    base_faces = [c.text for page in cards_by_page(file_of(kit("base"), "cards"), {"starting deck", "supply"})
                  for c in page if c.side == "face"]
    assert not any("Player 1" in text for text in base_faces)


def _solid_square(path: Path, index: int, side_mm: float, dpi: float = 100) -> bool:
    """Whether some side_mm × side_mm square of the page is all dark ink (a filled area, not a stroke)."""
    from PIL import ImageChops

    def lightest_of_run(image, run: int, dx: int, dy: int):
        """Each pixel replaced by the lightest of the `run` pixels from it along (dx, dy), by doubling."""
        width, widest = 1, image
        while width * 2 <= run:
            widest = ImageChops.lighter(widest, ImageChops.offset(widest, -width * dx, -width * dy))
            width *= 2
        shift = run - width
        return ImageChops.lighter(widest, ImageChops.offset(widest, -shift * dx, -shift * dy)) if shift else widest

    image, scale = render_gray(path, index, dpi)
    size = int(mm(side_mm) * scale) | 1
    lightest = lightest_of_run(lightest_of_run(image, size, 1, 0), size, 0, 1)  # of each size × size square
    return lightest.getextrema()[0] < 128


def test_ink_light_faces_have_no_filled_symbols(kit, back_words):
    base, light = file_of(kit("base"), "cards"), file_of(kit("light"), "cards")
    faces = [i for i, page in enumerate(cards_by_page(light, back_words)) if page_side(page) == "face"]
    assert any(_solid_square(base, i, 4) for i in faces), "control: the default faces print solid symbols"
    assert [i + 1 for i in faces if _solid_square(light, i, 4)] == []
    # the symbols are still there, as outlines
    assert "◎" in text_of(light) and "●" not in text_of(light)


def test_backs_of_different_decks_never_meet_at_a_cut_without_bleed(kit, back_words):
    """Every back keeps a white border 1.4 mm deep inside its cut line (where a duplex shift lands)."""
    path = file_of(kit("base"), "cards")
    pages = cards_by_page(path, back_words)
    checked = 0
    for index, page in enumerate(pages):
        if page_side(page) != "back":
            continue
        image, scale = render_gray(path, index, 200)
        _, height = page_size(path)
        for card in page:
            b, depth, inset = card.box, mm(1.4), mm(0.15)
            strips = [(b.x0 + inset, b.y0 + inset, b.x0 + depth, b.y1 - inset), (b.x1 - depth, b.y0 + inset,
                      b.x1 - inset, b.y1 - inset), (b.x0 + inset, b.y0 + inset, b.x1 - inset, b.y0 + depth),
                      (b.x0 + inset, b.y1 - depth, b.x1 - inset, b.y1 - inset)]
            for x0, y0, x1, y1 in strips:
                crop = image.crop((round(x0 * scale), round((height - y1) * scale),
                                   round(x1 * scale), round((height - y0) * scale)))
                assert crop.getextrema()[0] >= 235, f"page {index + 1}: ink at the edge of the back at {b}"
            checked += 1
    assert checked
    # control: one page holds backs of two decks side by side
    assert any(len({c.text for c in page}) > 1 for page in pages if page_side(page) == "back")


def test_every_file_asks_for_actual_size_and_declares_the_pdf_version_of_its_keys(kit):
    for name in ("base", "fold"):
        for output in kit(name).files:
            reader = pypdf.PdfReader(output.path)
            prefs = viewer_preferences(output.path)
            assert prefs.get("/PrintScaling") == "/None", output.path.name
            header = output.path.read_bytes()[:8]
            need = "1.7" if "/Duplex" in prefs else "1.6"  # /Duplex is PDF 1.7, /PrintScaling 1.6
            assert header == f"%PDF-{need}".encode(), (output.path.name, header)
            assert reader.pdf_header == f"%PDF-{need}"


def _union(boxes: list[Box]) -> Box:
    return Box(min(b.x0 for b in boxes), min(b.y0 for b in boxes), max(b.x1 for b in boxes), max(b.y1 for b in boxes))


@pytest.mark.parametrize("variant, bleed_mm", [("base", 0.0), ("bleed", BLEED_MM), ("short", 0.0), ("fold", 0.0),
                                               ("offset", 0.0), ("letter", 0.0)])
def test_trim_box_is_the_cut_rectangle_and_bleed_box_the_art_on_every_card_page(kit, back_words, variant, bleed_mm):
    path = file_of(kit(variant), "cards")
    reader = pypdf.PdfReader(path)
    pages = cards_by_page(path, back_words)
    # the trim box is the rectangle round the page's own cards (a partly filled page's spans its cards only)
    for index, page in enumerate(reader.pages):
        trim = Box(*(float(v) for v in page.trimbox))
        bleed = Box(*(float(v) for v in page.bleedbox))
        cards = pages[index]
        want = _union([cut_box(c, bleed_mm) for c in cards])
        assert same_box(trim, want, EXACT_MM), (variant, index + 1, trim, want)
        grown = Box(want.x0 - mm(bleed_mm), want.y0 - mm(bleed_mm), want.x1 + mm(bleed_mm), want.y1 + mm(bleed_mm))
        assert same_box(bleed, grown, EXACT_MM), (variant, index + 1, bleed, grown)
        for card in cards:  # every card's cut rectangle lies inside the trim box
            c = cut_box(card, bleed_mm)
            assert trim.x0 - mm(EXACT_MM) <= c.x0 and c.x1 <= trim.x1 + mm(EXACT_MM)


def _colour_operators(reader: pypdf.PdfReader):
    """Every colour-setting operator of every page and of every form XObject they use, walked recursively."""
    seen: set[int] = set()

    def walk(contents, resources):
        for operands, operator in ContentStream(contents, reader).operations:
            if operator in (b"rg", b"RG", b"g", b"G", b"k", b"K", b"sc", b"scn", b"SC", b"SCN"):
                yield operator, tuple(float(v) for v in operands if not isinstance(v, pypdf.generic.NameObject))
            elif operator == b"Do" and resources is not None:
                xobject_ref = resources.get_object().get("/XObject", {}).get_object()[operands[0]]
                key = getattr(xobject_ref, "idnum", id(xobject_ref))
                xobject = xobject_ref.get_object()
                if xobject.get("/Subtype") == "/Form" and key not in seen:
                    seen.add(key)
                    yield from walk(xobject, xobject.get("/Resources"))

    for page in reader.pages:
        yield from walk(page.get_contents(), page.get("/Resources"))


def test_black_is_printed_in_black_ink_alone(kit):
    """No black as RGB 0/0/0 (a print shop would separate it into four inks): black is `0 g` / `0 G`."""
    for output in kit("base").files:
        operators = list(_colour_operators(pypdf.PdfReader(output.path)))
        rgb_black = [(op, values) for op, values in operators if op in (b"rg", b"RG") and not any(values)]
        assert rgb_black == [], f"{output.path.name}: {len(rgb_black)} black colours set as RGB"
        rich = [(op, values) for op, values in operators if op in (b"k", b"K") and any(values[:3])]
        assert rich == [], output.path.name
        assert (b"g", (0.0,)) in operators, f"{output.path.name}: no black text at all?"


def test_letter_holds_nine_poker_cards_with_ruler_and_marks_in_the_side_margins(kit, back_words, total_cards):
    path = file_of(kit("letter"), "cards")
    width, height = page_size(path)
    assert (round(width), round(height)) == (612, 792)
    pages, art = cards_by_page(path, back_words), page_art(path)
    assert max(len(page) for page in pages) == 9
    assert len(pages) == 2 * math.ceil(total_cards / 9)
    for index, cards in enumerate(pages):
        for card in cards:
            assert_card_size(card.box, f"letter page {index + 1}")
        marks = [m for m in art[index].marks if max(m.bounds.width, m.bounds.height) < mm(5)]
        # the short marks of the vertical cuts above and below the cards (tests/test_letter_marks.py) stay 0.5 mm
        # clear of them; every other mark 1 mm
        assert marks and all(box_distance(m.bounds, c.box) >= (mm(0.5) if m.bounds.height < mm(1) and
                                                              m.bounds.width < 0.01 else mm(1)) - mm(EXACT_MM)
                             for m in marks for c in cards)
        for m in marks:  # nothing printed closer than 5 mm to an edge
            b = m.bounds
            assert min(b.x0, b.y0, width - b.x1, height - b.y1) >= mm(5) - mm(EXACT_MM)
    # the ruler: 0.5 pt lines up the left margin, ticks from 0 to 100 mm
    face = art[0]
    ruler = [p for p in face.paths if p.is_segment and abs(p.linewidth - 0.5) < 0.01]
    left = [p for p in ruler if p.bounds.x1 < min(c.box.x0 for c in pages[0])]
    ticks = [p.bounds for p in left if abs(p.bounds.y1 - p.bounds.y0) < 0.01]
    assert ticks and pt_to_mm(max(t.y0 for t in ticks) - min(t.y0 for t in ticks)) == pytest.approx(100, abs=EXACT_MM)
    right = [p for p in ruler if p.bounds.x0 > max(c.box.x1 for c in pages[0])]
    inch = [p.bounds for p in right if abs(p.bounds.y1 - p.bounds.y0) < 0.01]
    assert inch and (max(t.y0 for t in inch) - min(t.y0 for t in inch)) / 72 == pytest.approx(4, abs=1e-4)
    # no hairline on the cuts: short marks of each vertical cut above and below the cards, on faces and backs
    xs = distinct([v for c in pages[0] for v in (c.box.x0, c.box.x1)], mm(0.05))
    for side in (art[0], art[1]):
        assert not [p for p in side.paths if p.is_segment and p.bounds.height > mm(200) and p.linewidth <= THIN]
    short = [m for m in face.marks if m.bounds.width < 0.01 and m.bounds.height < mm(1)]
    assert distinct([m.bounds.x0 for m in short], mm(0.05)) == pytest.approx(xs, abs=mm(EXACT_MM))
    # A4 is unchanged: 9 cards, the ruler at the bottom
    a4 = cards_by_page(file_of(kit("base"), "cards"), back_words)
    assert max(len(page) for page in a4) == 9


def test_margin_option_puts_crop_marks_above_and_below_on_letter(kit, back_words):
    path = file_of(kit("letter-margin"), "cards")
    width, height = page_size(path)
    art = page_art(path)
    cards = cards_by_page(path, back_words)[0]
    vertical = [m for m in art[0].marks if abs(m.bounds.x1 - m.bounds.x0) < 0.01]
    top = max(c.box.y1 for c in cards)
    assert len([m for m in vertical if m.bounds.y0 > top]) == 4
    everything = [p.bounds for p in art[0].paths] + [c.box for c in cards]
    closest = min(min(b.x0, b.y0, width - b.x1, height - b.y1) for b in everything)
    assert pt_to_mm(closest) >= 2 - EXACT_MM and pt_to_mm(closest) < 5
    assert "closer than 2 mm" in text_of(file_of(kit("letter-margin"), "print-guide"))


def test_print_guide_gives_cards_per_sheet_for_each_paper_and_the_margin(kit):
    for variant in ("base", "letter"):
        text = text_of(file_of(kit(variant), "print-guide"))
        assert "9 on A4, 9 on US Letter" in text
        assert "closer than 5 mm" in text


def test_margin_on_the_command_line_reaches_the_sheets(tmp_path, monkeypatch):
    monkeypatch.delenv("KITGEN_CONTENT", raising=False)
    runner = CliRunner()
    result = runner.invoke(main, ["build", ACTIVITY, "--content", str(CONTENT), "--out", str(tmp_path),
                                  "--paper", "letter", "--margin", "2"])
    assert result.exit_code == 0, result.output
    [path] = [p for p in tmp_path.rglob("*-cards.pdf")]
    art = page_art(path)
    top = max(form.box.y1 for form in art[0].forms)
    above = [m for m in art[0].marks if abs(m.bounds.x1 - m.bounds.x0) < 0.01 and m.bounds.y0 > top]
    assert len(above) == 4, "with --margin 2 the vertical cuts of 9 Letter cards get crop marks above them"
    refused = runner.invoke(main, ["build", ACTIVITY, "--content", str(CONTENT), "--out", str(tmp_path),
                                   "--margin", "30"])
    assert refused.exit_code == 2 and "--margin" in refused.output


def test_print_shop_writes_one_card_per_page_with_3_mm_bleed_and_its_trim_box(kit, back_words, total_cards):
    """The fronts one card a page, the backs each once in a file of their own (tests/test_print_shop.py checks
    them as PDF/X-4)."""
    files = {f.path.name.rsplit("-", 1)[-1]: f.path for f in kit("shop").files if f.role == "cards"}
    assert sorted(files) == ["backs.pdf", "fronts.pdf"]
    for name, expected in (("fronts.pdf", "face"), ("backs.pdf", "back")):
        path = files[name]
        reader = pypdf.PdfReader(path)
        pages, art = cards_by_page(path, back_words), page_art(path)
        assert [page_side(page) for page in pages] == [expected] * len(reader.pages)
        if name == "fronts.pdf":
            assert len(reader.pages) == total_cards
        for index, page in enumerate(reader.pages):
            media = Box(*(float(v) for v in page.mediabox))
            trim = Box(*(float(v) for v in page.trimbox))
            bleed = Box(*(float(v) for v in page.bleedbox))
            assert near(media.width, mm(CARD_MM[0] + 2 * BLEED_MM), EXACT_MM)
            assert near(media.height, mm(CARD_MM[1] + 2 * BLEED_MM), EXACT_MM)
            assert same_box(bleed, media, EXACT_MM)
            assert same_box(trim, Box(mm(BLEED_MM), mm(BLEED_MM), mm(BLEED_MM + CARD_MM[0]),
                                      mm(BLEED_MM + CARD_MM[1])), EXACT_MM), (index + 1, trim)
            [card] = pages[index]
            assert same_box(cut_box(card, BLEED_MM), trim, EXACT_MM)  # the card's cut rectangle is the trim box
            assert art[index].marks == [] and art[index].thin_rects == []  # no marks, no ruler: the shop trims
        assert "100 mm" not in " ".join(card.text for page in pages for card in page)
    assert "For the print shop" in text_of(file_of(kit("shop"), "print-guide"))


# --------------------------------------------------------------------------- Cricut print then cut

import xml.etree.ElementTree as ET  # noqa: E402

VARIANTS["cricut"] = {"cutter": "cricut", "png_dpi": 300}  # the card PNGs too: a test matches them to the pictures
CRICUT_PX = (2025, 2775)  # Design Space's Print Then Cut limit, 6.75 × 9.25 in, at 300 dpi


def _cricut_pairs(result) -> list[tuple[Path, Path]]:
    pngs = sorted(p for p in result.pictures if p.suffix == ".png" and "-cricut-" in p.name)
    return [(png, png.with_suffix(".svg")) for png in pngs]


def _svg_cuts_px(svg: Path) -> tuple[list[tuple[float, float, float, float]], ET.Element]:
    """The SVG's rectangles in pixels of a 300 dpi picture (x0, y0, x1, y1, y down), from its width in inches."""
    root = ET.parse(svg).getroot()
    view = [float(v) for v in root.get("viewBox").split()]
    px_per_unit = float(root.get("width").removesuffix("in")) * 300 / view[2]
    rects = [[float(r.get(k)) * px_per_unit for k in ("x", "y", "width", "height")]
             for r in root.iter("{http://www.w3.org/2000/svg}rect")]
    return [(x, y, x + w, y + h) for x, y, w, h in rects], root


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    runs, start = [], None
    for i, flag in enumerate(flags + [False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            runs.append((start, i))
            start = None
    return runs


def _card_frames(png: Path) -> list[tuple[int, int, int, int]]:
    """Each card's frame in the picture: the opaque rectangles on the transparent background (x0, y0, x1, y1)."""
    from PIL import Image

    alpha = Image.open(png).getchannel("A").point(lambda a: 255 if a > 127 else 0)
    width, height = alpha.size

    def opaque_lines(image: Image.Image) -> list[bool]:
        """For each row of pixels of `image`: has it an opaque pixel?"""
        data, span = image.tobytes(), image.size[0]
        return [b"\xff" in data[y * span:(y + 1) * span] for y in range(image.size[1])]

    columns = _runs(opaque_lines(alpha.transpose(Image.Transpose.TRANSPOSE)))
    rows = _runs(opaque_lines(alpha))
    return [(x0, y0, x1, y1) for y0, y1 in rows for x0, x1 in columns
            if alpha.getpixel(((x0 + x1) // 2, (y0 + y1) // 2)) and alpha.getpixel((x0 + 2, y0 + 2))]


def test_cricut_pictures_are_the_print_then_cut_area_at_300_dpi_each_with_an_svg_of_its_size(kit):
    from PIL import Image

    result = kit("cricut")
    pairs = _cricut_pairs(result)
    assert len(pairs) >= 2
    for png, svg in pairs:
        with Image.open(png) as image:
            assert image.size == CRICUT_PX
            assert image.info["dpi"] == pytest.approx((300, 300), abs=0.01)
            assert image.mode == "RGBA" and image.getpixel((0, 0))[3] == 0, "transparent outside the cards"
        assert svg.is_file() and svg.parent == file_of(result, "cards").parent
        root = ET.parse(svg).getroot()
        assert (root.get("width"), root.get("height")) in {("6.7500in", "9.2500in")}
        view = [float(v) for v in root.get("viewBox").split()]
        assert view[0] == view[1] == 0 and view[2] / view[3] == pytest.approx(6.75 / 9.25)
    # the Silhouette marks are not printed for a Cricut: the PDF's face pages have no 5 mm square
    assert not [r for r in drawn(file_of(result, "cards"), 0).rects
                if r["fill"] and near(r["x1"] - r["x0"], mm(5)) and near(r["y1"] - r["y0"], mm(5))]
    assert "Design Space" in text_of(file_of(result, "print-guide"))


def test_cricut_svg_outlines_coincide_with_the_cards_in_the_pictures_to_one_pixel(kit):
    from PIL import Image

    for png, svg in _cricut_pairs(kit("cricut")):
        frames = _card_frames(png)
        cuts, _ = _svg_cuts_px(svg)
        assert len(frames) == len(cuts) >= 1
        with Image.open(png) as image:
            gray = image.convert("L")
        for frame in frames:
            match = [c for c in cuts if all(abs(a - b) <= 1 for a, b in zip(frame, c))]
            assert len(match) == 1, f"{png.name}: no SVG outline on the card at {frame} px"
            x0, y0, x1, y1 = frame  # a poker card, 2.5 × 3.5 in at 300 dpi, with its art (dark ink) inside
            assert (abs(x1 - x0 - 750) <= 1, abs(y1 - y0 - 1050) <= 1) == (True, True)
            assert gray.crop(frame).getextrema()[0] < 64


def test_cricut_pictures_hold_every_card_of_the_deck_once(kit, activity_yaml, total_cards):
    """Each card drawn on the pictures is matched, by its pixels, to the PNG of its face design; each design
    appears as often as the YAML counts it (designs that look the same are counted together)."""
    from PIL import Image, ImageChops, ImageStat

    result = kit("cricut")

    def small(image) -> Image.Image:
        return image.convert("RGBA").convert("L").resize((50, 70), Image.Resampling.BOX)

    def distance(a, b) -> float:
        return ImageStat.Stat(ImageChops.difference(a, b)).mean[0]

    counts = {(deck["id"], card["id"]): card["count"] for deck in activity_yaml["decks"] for card in deck["cards"]}
    designs: list[tuple[Image.Image, int]] = []  # (picture, expected count) of each distinct-looking face
    for (deck, card), count in counts.items():
        [path] = [p for p in result.pictures if p.parent.name == "png" and p.name == f"{deck}-{card}.png"]
        picture = small(Image.open(path))
        same = [i for i, (other, _) in enumerate(designs) if distance(picture, other) < 1]
        if same:
            designs[same[0]] = (designs[same[0]][0], designs[same[0]][1] + count)
        else:
            designs.append((picture, count))
    seen = [0] * len(designs)
    for png, _ in _cricut_pairs(result):
        with Image.open(png) as image:
            for frame in _card_frames(png):
                cell = small(image.crop(frame))
                ranked = sorted((distance(cell, d), i) for i, (d, _) in enumerate(designs))
                assert ranked[0][0] < 3 and (len(ranked) == 1 or ranked[1][0] > 2 * ranked[0][0] + 1)
                seen[ranked[0][1]] += 1
    assert seen == [count for _, count in designs]
    assert sum(seen) == total_cards

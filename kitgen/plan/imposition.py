"""Imposition: where cards, their backs, cut marks and the calibration band go. Pure geometry, in points.

One engine serves every printing option: long- or short-edge duplex, no backs, gutter fold, bleed, margin.
Two layouts are tried and the denser kept: the ruler and sheet label in a band under the cards, or (when that
leaves a row out, as 9 poker cards on US Letter) in narrow strips down both side margins, with the crop marks
of the horizontal cuts beside the cards and the vertical cuts marked above and below when there is room, else
by hairlines on the cut.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from kitgen.core.choices import Duplex
from kitgen.core.errors import PlanError
from kitgen.core.units import CardSize, mm, PaperSize, to_mm

PAGE_MARGIN = mm(5)  # nothing is printed closer than this to a page edge
MARK_GAP = mm(1)  # crop marks stop this far from the art (card + bleed), so they never touch a card
MARK_LENGTH = mm(3)
MARK_ZONE = MARK_GAP + MARK_LENGTH
BAND_HEIGHT = mm(9)  # calibration bar and sheet label, at the bottom of every card sheet
GUTTER = mm(6)  # gutter fold: space between the fold line and the nearest card edge
# print-then-cut: Silhouette Studio's "Type 1" registration marks at its default settings, and the clearance
# kept round them: each of the three marked corners keeps a square zone, from the paper's corner to the inset, the
# mark's length and the clearance, with nothing printed in it but the mark (the sensor scans it for the mark)
REG_INSET, REG_SQUARE, REG_LENGTH, REG_THICKNESS, REG_CLEAR = mm(10), mm(5), mm(20), mm(0.5), mm(1.5)
REG_ZONE = REG_INSET + REG_LENGTH + REG_CLEAR
SIDE_STRIP = mm(3.5)  # side layout: the width of each side strip (ruler along one, words along the other)
# side layout without room for full marks above and below (9 poker cards on Letter): short marks of the vertical
# cuts in what room there is, this far from the cards, when at least SHORT_MARK_ROOM is left between the cards
# and the margin; below that, hairlines on the cuts
SHORT_MARK_GAP, SHORT_MARK_ROOM = mm(0.5), mm(1.0)
# the rulers' ticks (the 100 mm ruler every 5 mm, the 4 in one every 1/4 in), kept apart from the cuts
RULER_TICKS = tuple(mm(t) for t in range(0, 101, 5))
INCH_TICKS = tuple(e * 72 / 8 for e in range(0, 33, 2))



@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle; (x, y) is the lower-left corner, as in PDF."""

    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def top(self) -> float:
        return self.y + self.height

    def inset(self, amount: float) -> "Rect":
        return Rect(self.x + amount, self.y + amount, self.width - 2 * amount, self.height - 2 * amount)


@dataclass(frozen=True)
class Segment:
    """A straight line from (x0, y0) to (x1, y1)."""

    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True)
class Sheet:
    """The printing options that shape a card sheet."""

    duplex: Duplex = Duplex.LONG
    fold: bool = False  # gutter fold: backs on the same page, below a fold line
    bleed: float = 0.0  # points of art beyond every cut line
    margin: float = PAGE_MARGIN  # nothing is printed closer than this to a page edge
    print_shop: bool = False  # one card per page, the page its art box (card and bleed): no marks, no ruler
    cutter: bool = False  # print-then-cut: registration marks in the corners, cards kept clear of them
    corner: float = 0.0  # radius of the cards' corners, for cut lines and cut files


@dataclass(frozen=True)
class Grid:
    """A grid of equal card cells on one page; cells count row by row from the top left.

    With bleed, neighbouring cells are `2 × bleed` apart so their art never overlaps.
    """

    page: PaperSize
    card: CardSize
    columns: int
    rows: int
    left: float  # x of the first column's left cut line
    bottom: float  # y of the last row's bottom cut line
    band: Rect  # where the calibration bar and the sheet label go (side layout: the left strip)
    sheet: Sheet = field(default_factory=Sheet)
    side: Rect | None = None  # side layout: the right strip (the band then runs down the left margin)
    guides: bool = False  # side layout without room above and below: vertical cuts drawn as hairlines on the cut
    skipped: frozenset[int] = frozenset()  # print-then-cut: places (row by row) left empty, in a marked corner

    @property
    def layout(self) -> str:
        return "band" if self.side is None else "sides"

    @property
    def margin(self) -> float:
        return self.sheet.margin

    @property
    def short_room(self) -> float:
        """Side layout without full marks above and below: the room between the cards and the margin there."""
        return min(self.page.height - self.margin - self.top, self.bottom - self.margin)

    @property
    def short_marks(self) -> bool:
        """The vertical cuts marked by short marks above and below the cards (not by hairlines on the cut)."""
        return self.guides and self.short_room >= SHORT_MARK_ROOM

    @property
    def gap(self) -> float:
        return 2 * self.sheet.bleed

    @property
    def per_sheet(self) -> int:
        return self.columns * self.rows - len(self.skipped)

    @property
    def places(self) -> tuple[int, ...]:
        """The places cards go in, row by row from the top left (all of them but the `skipped`)."""
        return tuple(p for p in range(self.columns * self.rows) if p not in self.skipped)

    @property
    def right(self) -> float:
        return self.left + self.columns * self.card.width + (self.columns - 1) * self.gap

    @property
    def top(self) -> float:
        return self.bottom + self.rows * self.card.height + (self.rows - 1) * self.gap

    @property
    def fold_y(self) -> float | None:
        """Where the sheet folds (gutter fold only): halfway between the faces and their backs."""
        return self.bottom - GUTTER if self.sheet.fold else None

    def cell(self, index: int) -> Rect:
        """The cut rectangle of the card at `index` (0 = top left, row by row, past any skipped place)."""
        row, column = divmod(self.places[index] if self.skipped else index, self.columns)
        return Rect(self.left + column * (self.card.width + self.gap),
                    self.top - (row + 1) * self.card.height - row * self.gap, self.card.width, self.card.height)

    def back_cell(self, index: int) -> Rect:
        """Where the back of card `index` goes so that it lands behind its face."""
        return mirror(self.cell(index), self)

    def cut_lines(self) -> tuple[list[float], list[float]]:
        """The x positions of the vertical cuts and the y positions of the horizontal cuts (faces)."""
        cells = [self.cell(i) for i in range(self.per_sheet)]
        xs = sorted({round(c.x, 6) for c in cells} | {round(c.right, 6) for c in cells})
        ys = sorted({round(c.y, 6) for c in cells} | {round(c.top, 6) for c in cells})
        return xs, ys


def mirror(rect: Rect, grid: Grid) -> Rect:
    """The back position of a face rectangle: across the fold line, or across the page for duplex."""
    page, fold = grid.page, grid.fold_y
    if fold is not None:  # a gutter fold
        return Rect(rect.x, 2 * fold - rect.y - rect.height, rect.width, rect.height)
    if grid.sheet.duplex == "short":
        return Rect(rect.x, page.height - rect.y - rect.height, rect.width, rect.height)
    return Rect(page.width - rect.x - rect.width, rect.y, rect.width, rect.height)


def backs_rotated(sheet: Sheet) -> bool:
    """Backs are turned 180° for a short-edge flip and for a gutter fold (the sheet folds top over bottom)."""
    return sheet.fold or sheet.duplex == "short"


def _fit(length: float, card: float, gap: float) -> int:
    return math.floor((length + gap) / (card + gap) + 1e-9)


def impose(page: PaperSize, card: CardSize, sheet: Sheet = Sheet()) -> Grid:
    """As many cards as fit upright, with room for crop marks, margins, bleed and the ruler: the band layout,
    or the side layout when that holds more cards (for a gutter fold only when the band layout has no room).

    The grid is centred across the page, so a long-edge flip puts every back exactly behind its face.
    """
    if sheet.print_shop:
        bleed = sheet.bleed
        return Grid(PaperSize(card.width + 2 * bleed, card.height + 2 * bleed), card, 1, 1, bleed, bleed,
                    Rect(0, 0, 0, 0), sheet)
    band = _band_layout(page, card, sheet)
    if sheet.cutter and band is not None:  # the registration marks need their corners: the band layout without them
        band = _clear_of_marks(band)
    # a gutter fold takes the side layout only when the band leaves no room (a tall card on Letter)
    sides = None if sheet.cutter or (sheet.fold and band is not None) else _side_layout(page, card, sheet)
    if sides is not None and (band is None or sides.per_sheet > band.per_sheet):
        return sides
    if band is None:
        raise PlanError(f"a {card} card does not fit on this paper ({page}) with {to_mm(sheet.margin):g} mm margins, "
                        "crop marks and the calibration bar; choose a smaller card or larger paper")
    return band


def _band_layout(page: PaperSize, card: CardSize, sheet: Sheet) -> Grid | None:
    """The ruler and the sheet label in a band under the cards; crop marks on all four sides."""
    margin = sheet.margin
    zone = MARK_ZONE + sheet.bleed
    gap = 2 * sheet.bleed
    usable_width = page.width - 2 * (margin + zone)
    columns = _fit(usable_width, card.width, gap)
    band = Rect(margin, margin, page.width - 2 * margin, BAND_HEIGHT)
    if sheet.fold:
        # faces above the fold, backs mirrored below it; the lower half also holds the band
        half = page.height / 2
        usable_height = half - GUTTER - zone - margin - BAND_HEIGHT
        rows = _fit(usable_height, card.height, gap)
        bottom = half + GUTTER
    else:
        usable_height = page.height - 2 * (margin + zone) - BAND_HEIGHT
        rows = _fit(usable_height, card.height, gap)
        bottom = margin + BAND_HEIGHT + zone + (usable_height - (rows * card.height + (rows - 1) * gap)) / 2
    if columns < 1 or rows < 1:
        return None
    left = (page.width - (columns * card.width + (columns - 1) * gap)) / 2
    return Grid(page, card, columns, rows, left, bottom, band, sheet)


def ruler_starts(grid: Grid) -> tuple[float, float]:
    """Side layout: the page y of each ruler's zero tick, the 100 mm ruler near the top of the left strip and the
    4 in one near the bottom of the right strip (so their ticks are never level with each other), each moved by up
    to a tick's spacing so that no tick is level with a horizontal cut (a tick beside the cards reads as a crop
    mark). Both rulers run down the page from their zero tick."""
    _, cuts = grid.cut_lines()
    steps = [step * mm(0.05) for step in range(101)]  # up to 5 mm

    def apart(zero: float, ticks: tuple[float, ...]) -> float:
        return min((abs(zero - t - cut) for t in ticks for cut in cuts), default=mm(10))

    top = grid.band.top - mm(2)
    left = max((top - step for step in steps), key=lambda zero: (round(apart(zero, RULER_TICKS), 4), zero))
    low = grid.band.y + mm(8) + INCH_TICKS[-1]  # room under the 4 in ruler for its words
    right = max((low + step for step in steps), key=lambda zero: (round(apart(zero, INCH_TICKS), 4), -zero))
    return left, right


def corner_zones(page: PaperSize) -> list[Rect]:
    """Print-then-cut: the three marked corners' zones (top left, top right, bottom left), nothing printed in them
    but the registration marks."""
    w, h, zone = page.width, page.height, REG_ZONE
    return [Rect(0, h - zone, zone, zone), Rect(w - zone, h - zone, zone, zone), Rect(0, 0, zone, zone)]


def _overlap(a: Rect, b: Rect) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.top and b.y < a.top


def _clear_of_marks(grid: Grid) -> Grid:
    """The grid with each place whose card (with its bleed and crop-mark gap) reaches into a marked corner left
    empty, and the band beside the bottom-left corner's zone: clearance only where the marks are."""
    zones = corner_zones(grid.page)
    reach = grid.sheet.bleed + MARK_GAP
    skipped = frozenset(p for p in range(grid.columns * grid.rows)
                        if any(_overlap(grid.cell(p).inset(-reach), zone) for zone in zones))
    if len(skipped) == grid.columns * grid.rows:
        raise PlanError(f"a {grid.card} card does not fit on this paper ({grid.page}) beside the registration marks; "
                        "choose a smaller card or larger paper")
    start = REG_ZONE + mm(1)
    band = Rect(start, grid.band.y, grid.page.width - grid.margin - start, grid.band.height)
    return replace(grid, band=band, skipped=skipped)


def _side_layout(page: PaperSize, card: CardSize, sheet: Sheet) -> Grid | None:
    """The ruler down the left margin and the words down the right one, the crop marks of the horizontal cuts
    beside the cards; above and below the cards only the marks of the vertical cuts, or, when even they do not
    fit, hairlines on those cuts (`guides`)."""
    margin = sheet.margin
    zone = MARK_ZONE + sheet.bleed
    gap = 2 * sheet.bleed
    columns = _fit(page.width - 2 * (margin + SIDE_STRIP + zone), card.width, gap)
    rows = _fit(page.height - 2 * (margin + zone), card.height, gap)
    guides = False
    if sheet.fold:  # faces above the fold, backs mirrored below it, the strips beside both
        rows = _fit(page.height / 2 - GUTTER - zone - margin, card.height, gap)
    # hairlines on the cut only without bleed: with bleed they would cross the neighbouring card's art
    elif not sheet.bleed and (rows < 1 or _fit(page.height - 2 * margin, card.height, gap) > rows):
        rows, guides = _fit(page.height - 2 * margin, card.height, gap), True
    if columns < 1 or rows < 1:
        return None
    width = columns * card.width + (columns - 1) * gap
    height = rows * card.height + (rows - 1) * gap
    left, bottom = (page.width - width) / 2, (page.height - height) / 2
    if sheet.fold:
        bottom = page.height / 2 + GUTTER
    strip_height = page.height - 2 * margin
    band = Rect(margin, margin, SIDE_STRIP, strip_height)
    side = Rect(page.width - margin - SIDE_STRIP, margin, SIDE_STRIP, strip_height)
    return Grid(page, card, columns, rows, left, bottom, band, sheet, side, guides)


def crop_marks(grid: Grid) -> list[Segment]:
    """Short lines in the margin that continue every cut line; none of them touches a card or its bleed (nor, on
    a print-then-cut sheet, a marked corner's zone)."""
    marks = _crop_marks(grid)
    if grid.sheet.cutter:
        zones = corner_zones(grid.page)
        marks = [m for m in marks if not any(_overlap(Rect(min(m.x0, m.x1), min(m.y0, m.y1), abs(m.x1 - m.x0) + 1e-6,
                                                           abs(m.y1 - m.y0) + 1e-6), zone) for zone in zones)]
    return marks


def _crop_marks(grid: Grid) -> list[Segment]:
    xs, ys = grid.cut_lines()
    near, far = MARK_GAP + grid.sheet.bleed, MARK_ZONE + grid.sheet.bleed
    marks = []
    for x in ([] if grid.guides else xs):
        marks.append(Segment(x, grid.top + near, x, grid.top + far))
        marks.append(Segment(x, grid.bottom - far, x, grid.bottom - near))
    if grid.short_marks:  # short marks in the room left above and below the cards, up to the margin
        room = grid.short_room
        for x in xs:
            marks.append(Segment(x, grid.top + SHORT_MARK_GAP, x, grid.top + room))
            marks.append(Segment(x, grid.bottom - room, x, grid.bottom - SHORT_MARK_GAP))
    left_far = right_far = far
    if grid.side is not None:  # side layout: the marks stop short of the strips (the rulers, the words)
        left_far = min(far, grid.left - grid.band.right - MARK_GAP)
        right_far = min(far, grid.side.x - grid.right - MARK_GAP)
    for y in ys:
        marks.append(Segment(grid.left - left_far, y, grid.left - near, y))
        marks.append(Segment(grid.right + near, y, grid.right + right_far, y))
    fold = grid.fold_y
    if fold is not None:  # a gutter fold: the backs below the fold get their own marks
        marks += [Segment(s.x0, 2 * fold - s.y0, s.x1, 2 * fold - s.y1) for s in marks]
    return marks


def cut_guides(grid: Grid) -> list[Segment]:
    """Side layout without room for marks above and below: a hairline on every vertical cut, over the cards'
    height (it is cut away with the cut); nothing otherwise."""
    if not grid.guides or grid.short_marks:
        return []
    xs, _ = grid.cut_lines()
    return [Segment(x, grid.bottom, x, grid.top) for x in xs]


def trim_box(grid: Grid) -> Rect:
    """The rectangle the cut lines enclose on a face page (with a gutter fold: the faces and their backs)."""
    fold = grid.fold_y
    if fold is not None:  # a gutter fold
        low = 2 * fold - grid.top
        return Rect(grid.left, low, grid.right - grid.left, grid.top - low)
    return Rect(grid.left, grid.bottom, grid.right - grid.left, grid.top - grid.bottom)


def back_band(grid: Grid) -> Rect:
    """Where the band goes on a back page: behind the face page's band (at the top after a short-edge flip)."""
    band = grid.band
    if grid.sheet.duplex == "short":
        return Rect(band.x, grid.page.height - band.y - band.height, band.width, band.height)
    return band


def back_marks(grid: Grid) -> list[Segment]:
    """The crop marks as they fall on a back page (mirrored like the backs)."""
    page = grid.page
    if grid.sheet.duplex == "short":
        return [Segment(s.x0, page.height - s.y0, s.x1, page.height - s.y1) for s in crop_marks(grid)]
    return [Segment(page.width - s.x0, s.y0, page.width - s.x1, s.y1) for s in crop_marks(grid)]


# print-then-cut: Silhouette Studio's "Type 1" registration marks at its default settings (length 20 mm,
# thickness 0.5 mm, inset 10 mm): a filled square top left, an L top right and bottom left
def registration_rects(page: PaperSize) -> dict[str, list[Rect]]:
    """The marks as filled rectangles (PDF coordinates, origin lower left): the square, and each L as two bars."""
    w, h, inset, length, thick = page.width, page.height, REG_INSET, REG_LENGTH, REG_THICKNESS
    return {
        "square": [Rect(inset, h - inset - REG_SQUARE, REG_SQUARE, REG_SQUARE)],
        "top-right": [Rect(w - inset - length, h - inset - thick, length, thick),
                      Rect(w - inset - thick, h - inset - length, thick, length)],
        "bottom-left": [Rect(inset, inset, length, thick), Rect(inset, inset, thick, length)],
    }

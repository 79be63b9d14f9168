"""Imposition: where cards, cut marks and the calibration band go on a sheet. Pure geometry, in points."""
from __future__ import annotations

import math
from dataclasses import dataclass

from kitgen.errors import UsageError
from kitgen.units import CardSize, PaperSize, mm

PAGE_MARGIN = mm(5)  # nothing is printed closer than this to a page edge
MARK_GAP = mm(1)  # crop marks stop this far from the card grid, so they never touch a card
MARK_LENGTH = mm(3)
MARK_ZONE = MARK_GAP + MARK_LENGTH
BAND_HEIGHT = mm(9)  # calibration bar and sheet label, at the bottom of every card sheet


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
class Grid:
    """A centred grid of equal card cells on one page; cells count row by row from the top left."""

    page: PaperSize
    card: CardSize
    columns: int
    rows: int
    left: float  # x of the first column's left cut line
    bottom: float  # y of the last row's bottom cut line
    band: Rect  # where the calibration bar and the sheet label go

    @property
    def per_sheet(self) -> int:
        return self.columns * self.rows

    @property
    def right(self) -> float:
        return self.left + self.columns * self.card.width

    @property
    def top(self) -> float:
        return self.bottom + self.rows * self.card.height

    def cell(self, index: int) -> Rect:
        """The cut rectangle of the card at `index` (0 = top left, row by row)."""
        row, column = divmod(index, self.columns)
        return Rect(self.left + column * self.card.width, self.top - (row + 1) * self.card.height,
                    self.card.width, self.card.height)

    def back_cell(self, index: int) -> Rect:
        """Where the back of card `index` goes on the back sheet for a long-edge duplex flip."""
        row, column = divmod(index, self.columns)
        return self.cell(row * self.columns + (self.columns - 1 - column))

    def cut_lines(self) -> tuple[list[float], list[float]]:
        """The x positions of the vertical cuts and the y positions of the horizontal cuts."""
        xs = [self.left + c * self.card.width for c in range(self.columns + 1)]
        ys = [self.bottom + r * self.card.height for r in range(self.rows + 1)]
        return xs, ys


def impose(page: PaperSize, card: CardSize) -> Grid:
    """As many cards as fit upright, with room for crop marks, margins and the calibration band."""
    usable_width = page.width - 2 * (PAGE_MARGIN + MARK_ZONE)
    usable_height = page.height - 2 * (PAGE_MARGIN + MARK_ZONE) - BAND_HEIGHT
    columns = math.floor(usable_width / card.width + 1e-9)
    rows = math.floor(usable_height / card.height + 1e-9)
    if columns < 1 or rows < 1:
        raise UsageError(f"a {card} card does not fit on this paper ({page}) with 5 mm margins, "
                         "crop marks and the calibration bar; choose a smaller card or larger paper")
    left = (page.width - columns * card.width) / 2
    area_bottom = PAGE_MARGIN + BAND_HEIGHT + MARK_ZONE
    bottom = area_bottom + (usable_height - rows * card.height) / 2
    band = Rect(PAGE_MARGIN, PAGE_MARGIN, page.width - 2 * PAGE_MARGIN, BAND_HEIGHT)
    return Grid(page, card, columns, rows, left, bottom, band)


def crop_marks(grid: Grid) -> list[Segment]:
    """Short lines in the margin that continue every cut line; none of them touches a card."""
    xs, ys = grid.cut_lines()
    near, far = MARK_GAP, MARK_ZONE
    marks = []
    for x in xs:
        marks.append(Segment(x, grid.top + near, x, grid.top + far))
        marks.append(Segment(x, grid.bottom - far, x, grid.bottom - near))
    for y in ys:
        marks.append(Segment(grid.left - far, y, grid.left - near, y))
        marks.append(Segment(grid.right + near, y, grid.right + far, y))
    return marks

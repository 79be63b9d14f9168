"""Tiling: a mat larger than the paper, cut into page-sized parts that overlap by a glue strip."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from kitgen.plan.imposition import PAGE_MARGIN, Rect
from kitgen.core.units import mm, PaperSize, Size

OVERLAP = mm(12)  # the strip two neighbouring parts share; alignment marks sit in its middle
LABEL_BAND = mm(8)  # below each part: "mat, part 1 of 2" and the assembly hint
BOARD_BORDER = mm(8)
BOARD_TITLE = mm(14)
FIGURE_TITLE = mm(34)  # the title band of a mat with a picture or a QR code beside its title
# a mat whose places fit one sheet only in a narrow frame: 4 mm at the sides, 2 mm above an 8 mm title band, 6 mm
# below the places for the note; its owner's label goes into the title band, not under the mat
COMPACT_SIDE, COMPACT_TOP, COMPACT_TITLE, COMPACT_BOTTOM = mm(4), mm(2), mm(8), mm(6)
Orientation = Literal["auto", "portrait", "landscape"]
MIN_FIT_SCALE = 0.5  # `fit: page` prints a mat smaller down to half its size, no smaller


@dataclass(frozen=True)
class Tile:
    """One printed part of a board: `window` (board coordinates) is drawn at `origin` on the page."""

    number: int
    column: int
    row: int
    window: Rect
    origin: tuple[float, float]


@dataclass(frozen=True)
class BoardLayout:
    """A board's size and the rectangles of its card positions, in board coordinates (points)."""

    size: Size
    positions: list[Rect]
    title_box: Rect
    compact: bool = False  # the narrow frame of a mat on one sheet (COMPACT_SIDE ...), no label band under it


def board_layout(columns: int, rows: int, width: float, height: float, gap: float,
                 title_band: float = BOARD_TITLE, compact: bool = False) -> BoardLayout:
    """Positions in rows and columns inside a border, with a title band at the top (`FIGURE_TITLE` high for a
    mat that has a picture or a QR code there); `compact`: in the narrow frame of a mat that fits one sheet only
    so."""
    side, top, bottom = (COMPACT_SIDE, COMPACT_TOP, COMPACT_BOTTOM) if compact else (BOARD_BORDER,) * 3
    title_band = COMPACT_TITLE if compact else title_band
    board_width = 2 * side + columns * width + (columns - 1) * gap
    board_height = top + bottom + title_band + rows * height + (rows - 1) * gap
    positions = [Rect(side + c * (width + gap),
                      board_height - top - title_band - (r + 1) * height - r * gap, width, height)
                 for r in range(rows) for c in range(columns)]
    title = Rect(side, board_height - top - title_band, board_width - 2 * side, title_band)
    return BoardLayout(Size(board_width, board_height), positions, title, compact)


def landscape(paper: PaperSize) -> PaperSize:
    """The sheet turned on its side: A4 297 × 210 mm, Letter 11 × 8.5 in."""
    return PaperSize(max(paper), min(paper))


def portrait(paper: PaperSize) -> PaperSize:
    return PaperSize(min(paper), max(paper))


@dataclass(frozen=True)
class MatPlacement:
    """How a mat is printed: its layout, the page it is printed on (portrait or landscape) and its parts."""

    layout: BoardLayout
    page: PaperSize
    tiles: list[Tile]
    scale: float = 1.0  # `fit: page`: the mat drawn this much smaller (a whole percent), its tile's window whole

    @property
    def percent(self) -> int:
        return round(self.scale * 100)

    @property
    def landscape(self) -> bool:
        return self.page.width > self.page.height


def place_mat(columns: int, rows: int, width: float, height: float, gap: float, paper: PaperSize,
              orientation: Orientation = "auto", figure: bool = False, fit: bool = False,
              narrow: bool = True) -> MatPlacement:
    """The placement with the fewest sheets, portrait before landscape and the ordinary frame before the
    narrow one on a tie. A mat whose ordinary frame needs several sheets but whose places fit one sheet in the
    narrow frame (`compact`) is printed on that one sheet, centred; a mat with a picture or a QR code in its
    title band (a QR code must stay large enough to scan), or placed without `narrow`, keeps its ordinary
    frame. `fit`: a mat that still needs several sheets is drawn smaller on one, at the largest whole percent
    that fits (ValueError below MIN_FIT_SCALE)."""
    pages = {"portrait": [portrait(paper)], "landscape": [landscape(paper)],
             "auto": [portrait(paper), landscape(paper)]}[orientation]
    layout = board_layout(columns, rows, width, height, gap, FIGURE_TITLE if figure else BOARD_TITLE)
    options = []
    for page in pages:
        options.append(MatPlacement(layout, page, tile(layout.size, page)))
        if len(options[-1].tiles) > 1 and narrow and not figure:
            thin = board_layout(columns, rows, width, height, gap, compact=True)
            w, h = thin.size
            if w <= page.width - 2 * PAGE_MARGIN + 1e-6 and h <= page.height - 2 * PAGE_MARGIN + 1e-6:
                origin = ((page.width - w) / 2, (page.height - h) / 2)
                options.append(MatPlacement(thin, page, [Tile(1, 0, 0, Rect(0, 0, w, h), origin)]))
    best = min(options, key=lambda option: len(option.tiles))  # the first of the fewest
    if not fit or len(best.tiles) == 1:
        return best
    scaled = max((_scaled(layout if figure or not narrow else board_layout(columns, rows, width, height, gap, compact=True), page)
                  for page in pages), key=lambda option: option.scale)  # the first of the largest
    if scaled.scale < MIN_FIT_SCALE:
        raise ValueError(f"the mat would print at {scaled.percent} % of its size on one sheet, expected at least "
                         f"{round(MIN_FIT_SCALE * 100)} %; make its places smaller, or leave out fit: page to "
                         "print it in parts")
    return scaled


def _scaled(layout: BoardLayout, page: PaperSize) -> MatPlacement:
    """The whole mat on one page at the largest whole percent that fits inside the margins (and the label band
    under an ordinary frame); a narrow frame centred, an ordinary one at the top left as its parts are."""
    w, h = layout.size
    room_height = page.height - 2 * PAGE_MARGIN - (0 if layout.compact else LABEL_BAND)
    scale = math.floor(min((page.width - 2 * PAGE_MARGIN) / w, room_height / h, 1) * 100 + 1e-9) / 100
    if layout.compact:
        origin = ((page.width - scale * w) / 2, (page.height - scale * h) / 2)
    else:
        origin = (PAGE_MARGIN, page.height - PAGE_MARGIN - scale * h)
    return MatPlacement(layout, page, [Tile(1, 0, 0, Rect(0, 0, w, h), origin)], scale)


def _steps(length: float, window: float) -> int:
    return 1 if length <= window + 1e-6 else 1 + math.ceil((length - window) / (window - OVERLAP) - 1e-9)


def tile(board: Size, page: PaperSize) -> list[Tile]:
    """Parts in reading order; neighbouring windows overlap by exactly OVERLAP."""
    window_width = page.width - 2 * PAGE_MARGIN
    window_height = page.height - 2 * PAGE_MARGIN - LABEL_BAND
    columns, rows = _steps(board.width, window_width), _steps(board.height, window_height)
    tiles: list[Tile] = []
    for row in range(rows):
        for column in range(columns):
            x = column * (window_width - OVERLAP)
            top = board.height - row * (window_height - OVERLAP)
            width = min(window_width, board.width - x)
            height = min(window_height, top)
            window = Rect(x, top - height, width, height)
            origin = (PAGE_MARGIN, page.height - PAGE_MARGIN - height)
            tiles.append(Tile(len(tiles) + 1, column, row, window, origin))
    return tiles


def alignment_marks(board: Size, tiles: list[Tile]) -> list[tuple[float, float]]:
    """Board points in the middle of every overlap strip, where each pair of parts shows the same mark."""
    marks = []
    columns = max(t.column for t in tiles) + 1
    rows = max(t.row for t in tiles) + 1
    for tile_ in tiles:
        if tile_.column + 1 < columns:
            x = tile_.window.right - OVERLAP / 2
            marks += [(x, tile_.window.y + f * tile_.window.height) for f in (0.2, 0.5, 0.8)]
        if tile_.row + 1 < rows:
            y = tile_.window.y + OVERLAP / 2
            marks += [(tile_.window.x + f * tile_.window.width, y) for f in (0.2, 0.5, 0.8)]
    return sorted(set(marks))

"""Tiling: a mat larger than the paper, cut into page-sized parts that overlap by a glue strip."""
from __future__ import annotations

import math
from dataclasses import dataclass

from kitgen.plan.imposition import PAGE_MARGIN, Rect
from kitgen.core.units import mm, PaperSize, Size

OVERLAP = mm(12)  # the strip two neighbouring parts share; alignment marks sit in its middle
LABEL_BAND = mm(8)  # below each part: "mat, part 1 of 2" and the assembly hint
BOARD_BORDER = mm(8)
BOARD_TITLE = mm(14)
FIGURE_TITLE = mm(34)  # the title band of a mat with a picture or a QR code beside its title


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


def board_layout(columns: int, rows: int, width: float, height: float, gap: float,
                 title_band: float = BOARD_TITLE) -> BoardLayout:
    """Positions in rows and columns inside a border, with a title band at the top (`FIGURE_TITLE` high for a
    mat that has a picture or a QR code there)."""
    board_width = 2 * BOARD_BORDER + columns * width + (columns - 1) * gap
    board_height = 2 * BOARD_BORDER + title_band + rows * height + (rows - 1) * gap
    positions = [Rect(BOARD_BORDER + c * (width + gap),
                      board_height - BOARD_BORDER - title_band - (r + 1) * height - r * gap, width, height)
                 for r in range(rows) for c in range(columns)]
    title = Rect(BOARD_BORDER, board_height - BOARD_BORDER - title_band, board_width - 2 * BOARD_BORDER,
                 title_band)
    return BoardLayout(Size(board_width, board_height), positions, title)


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

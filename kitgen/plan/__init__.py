"""Plan stage: what goes on which page (imposition, sheets, copies), as plain data."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Sequence, TypeVar

from kitgen.plan.imposition import (back_marks, backs_rotated, crop_marks, cut_guides, Grid, impose, Rect, Segment,
                                    Sheet, trim_box)

__all__ = ["CardSheet", "Grid", "Rect", "Segment", "Sheet", "back_marks", "backs_rotated", "card_sheets", "crop_marks",
           "cut_guides", "impose", "trim_box"]

T = TypeVar("T")


@dataclass(frozen=True)
class CardSheet(Generic[T]):
    """One sheet of card stock: its faces and their backs (on the back page, or below the fold)."""

    number: int
    faces: list[tuple[Rect, T]]
    backs: list[tuple[Rect, T]]


def card_sheets(items: Sequence[T], grid: Grid) -> list[CardSheet[T]]:
    """Fill sheets in order; each item's back lands behind its face (see `Grid.back_cell`)."""
    sheets: list[CardSheet[T]] = []
    for start in range(0, len(items), grid.per_sheet):
        chunk = items[start:start + grid.per_sheet]
        faces = [(grid.cell(i), item) for i, item in enumerate(chunk)]
        backs = [(grid.back_cell(i), item) for i, item in enumerate(chunk)]
        sheets.append(CardSheet(len(sheets) + 1, faces, backs))
    return sheets

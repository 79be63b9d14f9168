"""Fit a piece of paragraph markup into a box by shrinking it, never below a legible minimum."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from kitgen.plan import Rect
from kitgen.render.fonts import BOLD, REGULAR, register_fonts

MIN_SIZE = 7.0  # points: the smallest type kitgen prints on a card
STEP = 0.5


@dataclass(frozen=True)
class Slot:
    """A box on a card and the type that goes in it."""

    box: Rect
    max_size: float
    bold: bool = False
    align: str = "center"  # left, center or right
    min_size: float = MIN_SIZE
    leading: float = 1.18
    color: tuple[float, float, float] = (0, 0, 0)


class DoesNotFit(Exception):
    """The text is too long for its box even at the minimum size."""


@lru_cache(maxsize=8192)
def fitted(markup: str, slot: Slot):  # -> reportlab Paragraph
    """The largest Paragraph of `markup` that fits `slot.box`, or DoesNotFit."""
    from reportlab.lib.colors import Color
    from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph

    register_fonts()
    alignment = {"left": TA_LEFT, "center": TA_CENTER, "right": TA_RIGHT}[slot.align]
    size = slot.max_size
    while size >= slot.min_size - 1e-9:
        style = ParagraphStyle("fit", fontName=BOLD if slot.bold else REGULAR, fontSize=size,
                               leading=size * slot.leading, alignment=alignment,
                               textColor=Color(*slot.color))
        paragraph = Paragraph(markup, style)
        _, height = paragraph.wrap(slot.box.width, slot.box.height)
        if height <= slot.box.height + 0.01 and paragraph.minWidth() <= slot.box.width + 0.01:
            return paragraph
        size -= STEP
    raise DoesNotFit(markup)


def draw_fitted(canvas, markup: str, slot: Slot, *, valign: str = "middle") -> float:
    """Draw `markup` in `slot`, vertically centred (or at the top); returns the font size used."""
    if not markup:
        return 0.0
    paragraph = fitted(markup, slot)
    _, height = paragraph.wrap(slot.box.width, slot.box.height)
    y = slot.box.top - height if valign == "top" else slot.box.y + (slot.box.height - height) / 2
    paragraph.drawOn(canvas, slot.box.x, y)
    return paragraph.style.fontSize

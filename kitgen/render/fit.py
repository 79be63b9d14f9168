"""Fit a piece of paragraph markup into a box by shrinking it, never below a legible minimum."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from kitgen.core.display import Item, Text
from kitgen.plan import Rect
from kitgen.fonts.registry import bold, register_fonts, regular
from kitgen.render.markup import unescape

if TYPE_CHECKING:
    from reportlab.platypus import Paragraph

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


def neutral(color: tuple[float, ...]) -> tuple[float, ...]:
    """A colour as the display list should hold it: a neutral (black, grey) as one grey level, printed in black
    ink alone (DeviceGray), never as RGB, which a print shop would separate into all four inks."""
    return (float(color[0]),) if len(set(color)) == 1 else tuple(color)


class DoesNotFit(Exception):
    """The text is too long for its box even at the minimum size."""


def fitted(markup: str, slot: Slot) -> Paragraph:
    """The largest Paragraph of `markup` that fits `slot.box` in the font family in use, or DoesNotFit."""
    return _fitted(markup, slot, bold() if slot.bold else regular())


@lru_cache(maxsize=8192)
def _fitted(markup: str, slot: Slot, font: str) -> Paragraph:
    from reportlab.lib.colors import Color
    from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
    from reportlab.lib.styles import ParagraphStyle
    from kitgen.render.platypus import Paragraph

    register_fonts()
    alignments: dict[str, Literal[0, 1, 2]] = {"left": TA_LEFT, "center": TA_CENTER, "right": TA_RIGHT}
    alignment = alignments[slot.align]
    size = slot.max_size
    while size >= slot.min_size - 1e-9:
        style = ParagraphStyle("fit", fontName=font, fontSize=size,
                               leading=size * slot.leading, alignment=alignment,
                               textColor=Color(*slot.color))
        paragraph = Paragraph(markup, style)
        _, height = paragraph.wrap(slot.box.width, slot.box.height)
        if height <= slot.box.height + 0.01 and paragraph.minWidth() <= slot.box.width + 0.01:
            return paragraph
        size -= STEP
    raise DoesNotFit(markup)


ASCENT = 0.76  # of the font size: from the baseline to the top of capitals (DejaVu Sans)
DESCENT = 0.24


@dataclass(frozen=True)
class Lines:
    """Plain text broken into lines at one font size, with each line's width in points."""

    size: float
    lines: tuple[str, ...]
    widths: tuple[float, ...]

    def height(self, leading: float) -> float:
        return (len(self.lines) - 1) * self.size * leading + self.size


@lru_cache(maxsize=65536)
def _unit_width(word: str, font: str) -> float:
    """The advance width of `word` at 1 pt (widths scale with the size: no kerning is applied)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return stringWidth(word, font, 1.0)


def _break(words: list[str], font: str, size: float, width: float) -> tuple[list[str], list[float]] | None:
    """Greedy line breaking at spaces: the lines and their widths in points; None when a single word is wider
    than the box."""
    space = _unit_width(" ", font) * size
    lines: list[str] = []
    widths: list[float] = []
    current: list[str] = []
    used = 0.0
    for word in words:
        advance = _unit_width(word, font) * size
        if advance > width + 0.01:
            return None
        if current and used + space + advance <= width + 0.01:
            current.append(word)
            used += space + advance
        else:
            if current:
                lines.append(" ".join(current))
                widths.append(used)
            current, used = [word], advance
    lines.append(" ".join(current))
    widths.append(used)
    return lines, widths


_WHITESPACE = re.compile(r"[ \t\n\r]+")  # not str.split(): a no-break space keeps words together


def fitted_plain(text: str, slot: Slot) -> Lines:
    """The largest size at which plain `text` fits `slot.box` in the font family in use, broken into lines; or
    DoesNotFit."""
    return _fitted_plain(text, slot, bold() if slot.bold else regular())


@lru_cache(maxsize=16384)
def _fitted_plain(text: str, slot: Slot, font: str) -> Lines:
    register_fonts()
    words = [word for word in _WHITESPACE.split(text) if word]
    size = slot.max_size
    while size >= slot.min_size - 1e-9:
        broken = _break(words, font, size, slot.box.width)
        if broken is not None:
            fit = Lines(size, tuple(broken[0]), tuple(broken[1]))
            if fit.height(slot.leading) <= slot.box.height + 0.01:
                return fit
        size -= STEP
    raise DoesNotFit(text)


def plain_items(text: str, slot: Slot, valign: str = "middle", origin: str = "") -> tuple[list[Item], float]:
    """Plain `text` fitted into `slot` as one Text item per line, and the size it was set at."""
    fit = fitted_plain(text, slot)
    leading = fit.size * slot.leading
    block = fit.height(slot.leading)
    top = slot.box.top if valign == "top" else slot.box.y + (slot.box.height + block) / 2
    baseline = top - ASCENT * fit.size - (1 - ASCENT - DESCENT) * fit.size / 2
    font = bold() if slot.bold else regular()
    color = neutral(slot.color)
    items: list[Item] = []
    for line, width in zip(fit.lines, fit.widths):
        if slot.align == "center":
            x = slot.box.x + (slot.box.width - width) / 2
        elif slot.align == "right":
            x = slot.box.right - width
        else:
            x = slot.box.x
        items.append(Text(x, baseline, line, font, fit.size, color, origin))
        baseline -= leading
    return items, fit.size


def fitted_items(markup: str, slot: Slot, *, valign: str = "middle", origin: str = "") -> tuple[list[Item], float]:
    """`markup` fitted into `slot`, vertically centred (or at the top): its items and the font size used.

    Plain text (the usual case) is measured and set directly; markup with tags is laid out as a Paragraph.
    """
    if not markup:
        return [], 0.0
    if "<" not in markup:
        return plain_items(unescape(markup), slot, valign, origin)
    from kitgen.render.recorder import record_paragraph

    paragraph = fitted(markup, slot)
    _, height = paragraph.wrap(slot.box.width, slot.box.height)
    y = slot.box.top - height if valign == "top" else slot.box.y + (slot.box.height - height) / 2
    items = record_paragraph(paragraph, slot.box.x, y)
    if origin:
        items = [replace(item, origin=origin) if isinstance(item, Text) else item for item in items]
    return items, paragraph.style.fontSize


def label_items(text: str, slot: Slot) -> list[Item]:
    """kitgen's own label text (plain); when even the smallest size is too wide, cut short with '…'."""
    return list(_label_items(text, slot, regular(), bold()))


@lru_cache(maxsize=256)
def _label_items(text: str, slot: Slot, regular_font: str, bold_font: str) -> tuple[Item, ...]:
    """`label_items`, set once for each text, slot and font family (a sheet's ruler note is the same on every
    page)."""
    return tuple(_fitted_label(text, slot))


def _fitted_label(text: str, slot: Slot) -> list[Item]:
    words = text
    while True:
        try:
            return plain_items(words, slot, "middle")[0]
        except DoesNotFit:
            shorter = words[: max(1, int(len(words) * 0.9))].rstrip() + "…" if not words.endswith("…") \
                else words[: max(1, len(words) - 2)].rstrip() + "…"
            if len(words) <= 1 or shorter == words:  # not even one letter and '…' fit: print nothing
                return []
            words = shorter

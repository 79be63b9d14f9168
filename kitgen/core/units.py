"""Lengths, paper sizes and card sizes. Inside kitgen every length is in PDF points (1/72 in)."""
from __future__ import annotations

import re
from typing import NamedTuple

POINTS_PER_INCH = 72.0
MM = POINTS_PER_INCH / 25.4  # points per millimetre
INCH = POINTS_PER_INCH

_UNITS = {"mm": MM, "cm": 10 * MM, "in": INCH, "pt": 1.0}
_LENGTH = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(mm|cm|in|pt)\s*$")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)\s*(mm|cm|in|pt)\s*$")


def mm(value: float) -> float:
    """Millimetres to points."""
    return value * MM


def to_mm(points: float) -> float:
    """Points to millimetres."""
    return points / MM


def parse_length(text: str) -> float:
    """`'5mm'`, `'0.25in'`, `'12pt'` → points."""
    match = _LENGTH.match(str(text))
    if not match:
        raise ValueError(f"expected a length such as '5mm' or '0.25in', got {text!r}")
    return float(match[1]) * _UNITS[match[2]]


class Size(NamedTuple):
    """A width and height in points."""

    width: float
    height: float

    def __str__(self) -> str:
        return f"{to_mm(self.width):g} × {to_mm(self.height):g} mm"


class CardSize(Size):
    """The cut size of a card, in points."""


class PaperSize(Size):
    """A sheet of paper, portrait, in points."""


CARD_PRESETS: dict[str, CardSize] = {
    "poker": CardSize(mm(63.5), mm(88.9)),
    "bridge": CardSize(mm(57.2), mm(88.9)),
    "mini": CardSize(mm(44.5), mm(63.5)),
    "tarot": CardSize(mm(70), mm(120)),
}

PAPER_SIZES: dict[str, PaperSize] = {
    "a4": PaperSize(mm(210), mm(297)),
    "letter": PaperSize(8.5 * INCH, 11 * INCH),
}


MIN_CARD_SIDE = mm(10)  # smaller cards cannot be cut by hand; tiny ones would impose millions of cells


def parse_card_size(spec: str) -> CardSize:
    """A preset name (`poker`, `bridge`, `mini`, `tarot`) or `WxH` with a unit (`63x88mm`)."""
    key = str(spec).strip().lower()
    if key in CARD_PRESETS:
        return CARD_PRESETS[key]
    match = _SIZE.match(key)
    if not match:
        presets = ", ".join(CARD_PRESETS)
        raise ValueError(f"expected a card size ({presets}) or WxH with a unit such as '63x88mm', got {spec!r}")
    unit = _UNITS[match[3]]
    width, height = float(match[1]) * unit, float(match[2]) * unit
    if not (width >= MIN_CARD_SIDE and height >= MIN_CARD_SIDE):  # also refuses NaN
        raise ValueError(f"a card or slip must be at least {to_mm(MIN_CARD_SIDE):g} mm a side, got {spec!r}")
    return CardSize(width, height)


def parse_paper(name: str) -> PaperSize:
    """`a4` or `letter` → the page size in points."""
    key = str(name).strip().lower()
    if key not in PAPER_SIZES:
        raise ValueError(f"expected a paper size ({', '.join(PAPER_SIZES)}), got {name!r}")
    return PAPER_SIZES[key]

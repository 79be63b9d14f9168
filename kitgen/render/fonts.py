"""The bundled font family (DejaVu Sans), registered once per process and embedded as subsets."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"
REGULAR = "KitSans"
BOLD = "KitSans-Bold"
_FILES = {REGULAR: "DejaVuSans.ttf", BOLD: "DejaVuSans-Bold.ttf"}


@lru_cache(maxsize=None)
def register_fonts() -> None:
    """Register the family with ReportLab (idempotent): render measures text with it, the backend embeds it."""
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics

    from kitgen.backend.fonts import truetype_font

    for name, file in _FILES.items():
        pdfmetrics.registerFont(truetype_font(name, FONT_DIR / file))
    for bold, italic, name in ((0, 0, REGULAR), (1, 0, BOLD), (0, 1, REGULAR), (1, 1, BOLD)):
        addMapping(REGULAR, bold, italic, name)


@lru_cache(maxsize=None)
def _covered() -> frozenset[int]:
    from reportlab.pdfbase import pdfmetrics

    register_fonts()
    codes: set[int] = set(pdfmetrics.getFont(REGULAR).face.charToGlyph)
    return frozenset(codes & set(pdfmetrics.getFont(BOLD).face.charToGlyph))


def missing_glyphs(text: str) -> list[str]:
    """Characters of `text` the bundled fonts cannot draw (line breaks and spaces are fine)."""
    covered = _covered()
    if covered.issuperset(map(ord, text)):
        return []
    return sorted({ch for ch in text if ord(ch) not in covered and ch not in "\n\r\t"})


def string_width(text: str, font: str, size: float) -> float:
    """The advance width of `text` in points."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    register_fonts()
    return stringWidth(text, font, size)

"""The bundled font family (DejaVu Sans), registered once per process and embedded as subsets."""
from __future__ import annotations

import re
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


# Characters kitgen cannot print truthfully yet: right-to-left scripts (they would come out reversed and
# unshaped) and anything beyond U+FFFF that is not drawn as a picture (it would print, but the PDF's text layer
# would name the wrong character for copying and searching).
_RIGHT_TO_LEFT = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff\U00010800-\U00010fff\U0001e800-\U0001efff"
RIGHT_TO_LEFT = re.compile(f"[{_RIGHT_TO_LEFT}]")
UNSUPPORTED = re.compile(f"[{_RIGHT_TO_LEFT}\U00010000-\U0010ffff]")


def unsupported_characters(text: str, pictures: bool = False) -> dict[str, str]:
    """Characters of `text` kitgen cannot print truthfully, each with why; with `pictures`, those beyond U+FFFF
    that print as pictures (emoji) are fine."""
    found = {}
    for char in UNSUPPORTED.findall(text):
        if RIGHT_TO_LEFT.match(char):
            found[char] = "right-to-left script, which kitgen would print reversed and unshaped; not supported yet"
        elif not pictures:
            found[char] = ("beyond U+FFFF: it would print, but copying or searching the PDF would give a wrong "
                           "character; not supported yet")
    return found

"""The font families kitgen prints with, registered once per process and embedded as subsets.

`standard` is DejaVu Sans (the default: most European alphabets and many symbols); `legible` is Atkinson
Hyperlegible (for young and dyslexic readers; Latin alphabets only), whose missing characters (★ ♠ → ...) are
measured and drawn with DejaVu Sans instead. A library's own font family (`LibraryFont`, from its `fonts/`
folder: kitgen.fonts.library) is registered the same way, DejaVu Sans drawing what it lacks. A build picks the
family for everything it renders with `family()`; `regular()` and `bold()` name the fonts of the family in use.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Literal

from kitgen.core.style import LibraryFont

if TYPE_CHECKING:
    from reportlab.pdfbase.ttfonts import TTFontFace

FONT_DIR = Path(__file__).resolve().parent  # the .ttf files sit beside this module
REGULAR = "KitSans"
BOLD = "KitSans-Bold"
LEGIBLE = "KitLegible"
LEGIBLE_BOLD = "KitLegible-Bold"
FAMILIES = {"standard": (REGULAR, BOLD), "legible": (LEGIBLE, LEGIBLE_BOLD)}
FAMILY_NAMES = {"standard": "DejaVu Sans", "legible": "Atkinson Hyperlegible"}
_FILES = {name: FONT_DIR / file for name, file in {
    REGULAR: "DejaVuSans.ttf", BOLD: "DejaVuSans-Bold.ttf",
    LEGIBLE: "AtkinsonHyperlegible-Regular.ttf", LEGIBLE_BOLD: "AtkinsonHyperlegible-Bold.ttf"}.items()}
FALLBACK = {LEGIBLE: REGULAR, LEGIBLE_BOLD: BOLD}  # a character the first lacks is drawn with the second
FONT_NAMES = set(_FILES)  # every font a `Text` may name (a library's family adds its two when it is registered)

_family: ContextVar[str] = ContextVar("font_family", default="standard")


@contextmanager
def family(name: str | LibraryFont | None) -> Iterator[None]:
    """Render with the family `name` (`standard`, `legible` or a library's own; None: standard) while the block
    runs."""
    key = register_library_font(name) if isinstance(name, LibraryFont) else name or "standard"
    register_family(key)
    token = _family.set(key)
    try:
        yield
    finally:
        _family.reset(token)


def regular() -> str:
    """The regular font of the family in use."""
    return FAMILIES[_family.get()][0]


def bold() -> str:
    """The bold font of the family in use."""
    return FAMILIES[_family.get()][1]


def register_fonts() -> None:
    """Register the standard family with ReportLab (idempotent): render measures text with it, the backend
    embeds it. The legible family is registered when a build first uses it (`family`)."""
    register_family("standard")


@lru_cache(maxsize=None)
def register_family(name: str) -> None:
    """Register one family; a legible font measures each character it lacks with its fallback's width, as the
    backend draws it."""
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics

    from kitgen.fonts.truetype import truetype_font

    if name != "standard":
        register_family("standard")  # the fallback
    regular_name, bold_name = FAMILIES[name]
    for font in dict.fromkeys((regular_name, bold_name)):
        loaded = truetype_font(font, _FILES[font])
        if name in _LIBRARY:  # embedded under its family's name, never as a bundled font of the same file
            loaded.face.name = _LIBRARY[name][font].encode("ascii")
        pdfmetrics.registerFont(loaded)
        fallback = FALLBACK.get(font)
        if fallback is not None:
            face, spare = _face(font), _face(fallback)
            own = _own_codes(font)
            face.charWidths = {**{code: width for code, width in spare.charWidths.items() if code not in own},
                               **face.charWidths}
    mappings: tuple[tuple[Literal[0, 1], Literal[0, 1], str], ...] = (
        (0, 0, regular_name), (1, 0, bold_name), (0, 1, regular_name), (1, 1, bold_name))
    for is_bold, italic, font in mappings:
        addMapping(regular_name, is_bold, italic, font)


_LIBRARY: dict[str, dict[str, str]] = {}  # a library family's key → its font names → the names they embed as


@lru_cache(maxsize=None)
def register_library_font(font: LibraryFont) -> str:
    """Make a library's family known (its files registered when it is first used, DejaVu Sans drawing what
    they lack); the key that `family` and `register_family` take for it."""
    key = f"library:{font.name}:{font.digest}"
    regular_name, bold_name = f"Lib-{font.digest}", f"Lib-{font.digest}-Bold"
    embedded = re.sub(r"[^A-Za-z0-9-]", "", font.name)[:40] or "LibraryFont"
    _FILES[regular_name] = font.regular
    names = {regular_name: embedded}
    if font.bold is not None:
        _FILES[bold_name] = font.bold
        names[bold_name] = f"{embedded}-Bold"
    else:
        bold_name = regular_name  # bold text in the regular file
    FALLBACK.update({regular_name: REGULAR, bold_name: BOLD if font.bold is not None else REGULAR})
    FAMILIES[key] = (regular_name, bold_name)
    FAMILY_NAMES[key] = font.name
    FONT_NAMES.update(names)
    _LIBRARY[key] = names
    return key


def _face(name: str) -> TTFontFace:
    """The typeface of the registered TrueType font `name` (every font kitgen registers is one)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    font = pdfmetrics.getFont(name)
    assert isinstance(font, TTFont), name
    return font.face


@lru_cache(maxsize=None)
def _own_codes(name: str) -> frozenset[int]:
    """The characters the font file `name` itself has a glyph for."""
    return frozenset(_face(name).charToGlyph)


def font_runs(name: str, text: str) -> list[tuple[str, str]]:
    """`text` in font `name` as (font, run) pieces: the characters the font lacks go to its fallback."""
    fallback = FALLBACK.get(name)
    if fallback is None:
        return [(name, text)]
    register_family(next(family for family, names in FAMILIES.items() if name in names))
    own = _own_codes(name)
    runs: list[tuple[str, str]] = []
    for char in text:
        font = name if ord(char) in own or ord(char) not in _own_codes(fallback) else fallback
        if runs and runs[-1][0] == font:
            runs[-1] = (font, runs[-1][1] + char)
        else:
            runs.append((font, char))
    return runs


@lru_cache(maxsize=None)
def _covered() -> frozenset[int]:
    register_fonts()
    return _own_codes(REGULAR) & _own_codes(BOLD)  # every family falls back to DejaVu Sans


def missing_glyphs(text: str) -> list[str]:
    """Characters of `text` no bundled font can draw (line breaks and spaces are fine)."""
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


def drawn_as_pictures(text: str) -> list[str]:
    """Characters of `text` to draw from the picture set when it has them: those no bundled font has, and every
    character beyond U+FFFF (the fonts draw a few emoji, but a PDF's text layer cannot name them truthfully), and
    a character followed by VS16 (U+FE0F), which asks for the emoji picture rather than the text glyph (❄️)."""
    emoji_style = {char for char, after in zip(text, text[1:]) if after == "\ufe0f"} if "\ufe0f" in text else set()
    astral = {char for char in text if ord(char) > 0xFFFF} if text and max(text) > "\uffff" else set()
    return sorted(set(missing_glyphs(text)) | astral | emoji_style)


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

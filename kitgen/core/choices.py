"""The printing choices a user makes, named once: what the content model, plan and render take as types.

Each is a string enum: a member equals its text (`Duplex.LONG == "long"`), prints as its text and is written to
JSON as its text, so manifests and folder names read as before while the code names the choice it means.
"""
from __future__ import annotations

from enum import Enum


class Choice(str, Enum):
    """One of a fixed set of words; `str()` and f-strings give the word itself (on every Python version)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    @classmethod
    def words(cls) -> tuple[str, ...]:
        """The words, in the order they are declared (the CLI's and settings' choices)."""
        return tuple(str(member.value) for member in cls)


class Duplex(Choice):
    """Backs for a long- or short-edge flip, or none."""

    LONG = "long"
    SHORT = "short"
    NONE = "none"


class CutLines(Choice):
    """Crop marks in the margin, thin lines round every card, or both."""

    MARKS = "marks"
    LINES = "lines"
    BOTH = "both"


class Ink(Choice):
    """Normal, or light: outlines and patterns only, no filled areas."""

    NORMAL = "normal"
    LIGHT = "light"


class Font(Choice):
    """DejaVu Sans, or Atkinson Hyperlegible (kitgen.fonts.registry)."""

    STANDARD = "standard"
    LEGIBLE = "legible"


class Cutter(Choice):
    """Print-then-cut: Silhouette registration marks and SVG cut files, or Cricut PNG pictures."""

    SILHOUETTE = "silhouette"
    CRICUT = "cricut"


class ShopBleed(Choice):
    """A print shop's bleed: 3 mm (European services' card templates) or 1/8 in (US services')."""

    MM3 = "3mm"
    EIGHTH_INCH = "eighth-inch"

    @property
    def millimetres(self) -> float:
        return 3.0 if self is ShopBleed.MM3 else 25.4 / 8

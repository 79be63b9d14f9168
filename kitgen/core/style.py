"""How things are drawn, beyond geometry: cut lines, back offset, ink use and type size."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kitgen.core.choices import CutLines, Font, Ink


@dataclass(frozen=True)
class LibraryFont:
    """A font family of the library's own `fonts/` folder (kitgen.fonts.library), checked embeddable."""

    name: str  # as the activity names it: the files' stem (`Andika` for Andika-Regular.ttf)
    regular: Path
    bold: Path | None  # None: bold text prints in the regular file
    digest: str  # of the files' bytes: a changed file is a different font to every cache
    licence: Path | None  # the licence text beside the files, if there is one

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Style:
    cut_lines: CutLines = CutLines.MARKS  # crop marks in the margin, thin lines round every card, or both
    back_offset: tuple[float, float] = (0.0, 0.0)  # points every back page is shifted by (printer correction)
    ink: Ink = Ink.NORMAL  # light: outlines and patterns only, no filled areas
    large_print: bool = False  # sheets at ≥ 14 pt with taller rows; card text as large as fits
    font: Font | LibraryFont = Font.STANDARD  # the font family of every text of every file
    cricut: bool = False  # the faces also go on Print Then Cut pictures (the print guide says how to use them)

    @property
    def light(self) -> bool:
        return self.ink == "light"

    @property
    def text_scale(self) -> float:
        """How much larger card text may start before it is shrunk to fit."""
        return 1.4 if self.large_print else 1.0

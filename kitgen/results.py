"""What a build is asked to do and what it made: plain data shared by the CLI, the batch and the build."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from kitgen.errors import UsageError
from kitgen.render.style import Style
from kitgen.units import mm, to_mm

if TYPE_CHECKING:
    from kitgen.load.model import Printing
    from kitgen.plan.imposition import Sheet


def kit_folder_name(activity_id: str, language: str, several_editions: bool) -> str:
    """`growing-discard`, or `trash-ro` when the activity has more than one language edition."""
    return f"{activity_id}-{language}" if several_editions else activity_id


def kits_for_class(class_size: int, players_per_kit: int) -> int:
    """Kits needed so every student plays: 28 students, 2 per kit → 14; 29 → 15."""
    return -(-class_size // players_per_kit)


@dataclass(frozen=True)
class BuildOptions:
    """What the user chose on the command line (or a test in code)."""

    paper: str = "a4"
    card_size: str | None = None  # overrides the activity's card size
    out_dir: Path = Path("output")
    incremental: bool = False  # skip a kit whose inputs have not changed since its last build
    kits: int = 1  # numbered kits to print ("Kit 7" on every back) when more than one
    class_size: int | None = None  # students to equip; overrides `kits` (rounded up to whole kits)
    duplex: str | None = None  # long, short or none (None: the activity's default, else long)
    fold: bool | None = None  # gutter fold instead of duplex
    bleed_mm: float | None = None
    cut_lines: str | None = None  # marks, lines or both
    back_offset_mm: tuple[float, float] = (0.0, 0.0)
    ink: str = "normal"  # normal or light
    large_print: bool = False

    def recorded(self) -> dict:
        """The options that change the output, as recorded in the manifest."""
        return {"paper": self.paper, "card_size": self.card_size, "kits": self.kits, "class_size": self.class_size,
                "duplex": self.duplex, "fold": self.fold, "bleed_mm": self.bleed_mm, "cut_lines": self.cut_lines,
                "back_offset_mm": list(self.back_offset_mm), "ink": self.ink, "large_print": self.large_print}

    def with_defaults(self, printing: Printing) -> "BuildOptions":
        """Fill the printing options the user left open from the activity's defaults, then kitgen's."""
        return replace(
            self,
            duplex=self.duplex or printing.duplex or "long",
            fold=self.fold if self.fold is not None else bool(printing.fold),
            bleed_mm=self.bleed_mm if self.bleed_mm is not None else to_mm(printing.bleed or 0.0),
            cut_lines=self.cut_lines or printing.cut_lines or "marks")

    def sheet(self) -> Sheet:
        if self.duplex not in ("long", "short", "none"):
            raise UsageError(f"duplex must be long, short or none, got {self.duplex!r}")
        if not 0 <= self.bleed_mm <= 10:
            raise UsageError(f"bleed must be between 0 and 10 mm, got {self.bleed_mm:g}")
        from kitgen.plan.imposition import Sheet

        return Sheet(self.duplex, bool(self.fold), mm(self.bleed_mm or 0.0))  # type: ignore[arg-type]

    def style(self) -> Style:
        if self.cut_lines not in ("marks", "lines", "both") or self.ink not in ("normal", "light"):
            raise UsageError("cut lines must be marks, lines or both; ink normal or light")
        if any(abs(v) > 20 for v in self.back_offset_mm):
            raise UsageError("a back offset of more than 20 mm is not a printer shift; measure again")
        offset = (mm(self.back_offset_mm[0]), mm(self.back_offset_mm[1]))
        return Style(self.cut_lines, offset, self.ink, self.large_print)  # type: ignore[arg-type]

    def kits_for(self, players_per_kit: int) -> int:
        return kits_for_class(self.class_size, players_per_kit) if self.class_size else self.kits


@dataclass(frozen=True)
class OutputFile:
    path: Path
    pages: int
    role: str  # cards, optional-cards, slips, mat, sheets, host-key, print-guide
    for_players: bool
    sheets: int  # sheets of paper or card stock


@dataclass
class BuildResult:
    activity_id: str
    language: str
    folder: Path
    files: list[OutputFile] = field(default_factory=list)
    skipped: bool = False  # up to date, nothing written
    quality: list[str] = field(default_factory=list)  # shrunk text, colours weak in grayscale
    summary: dict = field(default_factory=dict)  # title, purpose, category, players, minutes, language

    @property
    def pages(self) -> int:
        return sum(f.pages for f in self.files)

    def sheets(self, card_stock: bool) -> int:
        """Sheets of paper (card files print two-sided on card stock)."""
        return sum(f.sheets for f in self.files if f.role.endswith("cards") == card_stock)



"""What a build is asked to do: the options as typed, and resolved into what plan and render read."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, get_args, TypeVar

from kitgen.core.errors import UsageError
from kitgen.core.choices import CutLines, Duplex, Font, Ink
from kitgen.core.style import Style
from kitgen.plan.imposition import Sheet
from kitgen.core.units import CardSize, mm, PaperSize, parse_card_size, parse_paper, to_mm

if TYPE_CHECKING:
    from kitgen.load.model import Activity


def kits_for_class(class_size: int, players_per_kit: int) -> int:
    """Kits needed so every student plays: 28 students, 2 per kit → 14; 29 → 15."""
    return -(-class_size // players_per_kit)


MAX_KITS = 60
DUPLEX: tuple[Duplex, ...] = get_args(Duplex)  # the choices, for the CLI too
CUT_LINES: tuple[CutLines, ...] = get_args(CutLines)
INK: tuple[Ink, ...] = get_args(Ink)
FONTS: tuple[Font, ...] = get_args(Font)
_Choice = TypeVar("_Choice", bound=str)


def _chosen(what: str, value: object, choices: tuple[_Choice, ...]) -> _Choice:
    """`value`, one of `choices`; a UsageError naming them otherwise."""
    for choice in choices:
        if value == choice:
            return choice
    raise UsageError(f"{what} must be {', '.join(choices[:-1])} or {choices[-1]}, got {value!r}")


@dataclass(frozen=True)
class ResolvedOptions:
    """The printing choices of one build, resolved and validated: what plan and render read."""

    paper: PaperSize
    card: CardSize
    sheet: Sheet
    style: Style
    kits: int


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
    margin_mm: float | None = None  # nothing printed closer to the paper's edge (None: 5 mm)
    print_shop: bool = False  # one card per page with bleed (3 mm unless asked), faces each followed by its back
    cutter: str | None = None  # "silhouette": print-then-cut registration marks and an SVG cut file per card file;
    # "cricut": PNG pictures of the faces within Design Space's print-then-cut size, each with an SVG of its outlines
    corner_mm: float = 0.0  # rounded card corners (cut lines and cut files follow them)
    cut_lines: str | None = None  # marks, lines or both
    back_offset_mm: tuple[float, float] = (0.0, 0.0)
    ink: str = "normal"  # normal or light
    large_print: bool = False
    png_dpi: int | None = None  # also a PNG of every card design at this resolution, in the kit's png/ folder
    font: str | None = None  # standard or legible (None: the activity's `font`, else standard)

    def recorded(self) -> dict[str, Any]:
        """The options that change the output, as recorded in the manifest."""
        return {"paper": self.paper, "card_size": self.card_size, "kits": self.kits, "class_size": self.class_size,
                "duplex": self.duplex, "fold": self.fold, "bleed_mm": self.bleed_mm, "cut_lines": self.cut_lines,
                "margin_mm": self.margin_mm, "print_shop": self.print_shop, "cutter": self.cutter,
                "corner_mm": self.corner_mm,
                "back_offset_mm": list(self.back_offset_mm), "ink": self.ink, "large_print": self.large_print,
                "png_dpi": self.png_dpi, "font": self.font}

    def resolve(self, activity: Activity) -> ResolvedOptions:
        """Every choice made and checked once: the user's, else the activity's defaults, else kitgen's."""
        printing = activity.printing
        duplex = self.duplex or printing.duplex or "long"
        bleed_mm = self.bleed_mm if self.bleed_mm is not None else to_mm(printing.bleed or 0.0)
        if self.print_shop:  # a print shop trims each card: it needs bleed, and the backs behind their faces
            bleed_mm = self.bleed_mm if self.bleed_mm is not None else 3.0
            duplex = "long"
        cut_lines = self.cut_lines or printing.cut_lines or "marks"
        try:
            paper, card = parse_paper(self.paper), parse_card_size(self.card_size or activity.card_size)
        except ValueError as error:
            raise UsageError(str(error)) from None
        chosen_duplex = _chosen("duplex", duplex, DUPLEX)
        chosen_cut_lines = _chosen("cut lines", cut_lines, CUT_LINES)
        ink = _chosen("ink", self.ink, INK)
        font = _chosen("font", self.font or activity.font or "standard", FONTS)
        if not 0 <= bleed_mm <= 10:
            raise UsageError(f"bleed must be between 0 and 10 mm, got {bleed_mm:g}")
        margin_mm = 5.0 if self.margin_mm is None else self.margin_mm
        if not 0 <= margin_mm <= 20:
            raise UsageError(f"margin must be between 0 and 20 mm, got {margin_mm:g}")
        if any(abs(v) > 20 for v in self.back_offset_mm):
            raise UsageError("a back offset of more than 20 mm is not a printer shift; measure again")
        kits = self.kits_for(activity.players.max)
        if not 1 <= kits <= MAX_KITS:
            raise UsageError(f"{kits} kits asked for, expected 1 to {MAX_KITS}")
        fold = self.fold if self.fold is not None else bool(printing.fold)
        offset = (mm(self.back_offset_mm[0]), mm(self.back_offset_mm[1]))
        if self.print_shop:  # no gutter fold, no printer's shift: the shop prints every page as it is
            fold, offset = False, (0.0, 0.0)
        if self.cutter not in (None, "silhouette", "cricut"):
            raise UsageError(f"cutter must be silhouette or cricut, got {self.cutter!r}")
        if not 0 <= self.corner_mm <= 10:
            raise UsageError(f"corner radius must be between 0 and 10 mm, got {self.corner_mm:g}")
        sheet = Sheet(chosen_duplex, fold, mm(bleed_mm), mm(margin_mm), self.print_shop,
                      self.cutter == "silhouette", mm(self.corner_mm))  # cricut: Design Space prints its own marks
        return ResolvedOptions(paper, card, sheet,
                               Style(chosen_cut_lines, offset, ink, self.large_print, font, self.cutter == "cricut"),
                               kits)

    def kits_for(self, players_per_kit: int) -> int:
        return kits_for_class(self.class_size, players_per_kit) if self.class_size else self.kits

    def variant(self) -> str:
        """What these options change from the defaults, as a folder name (`letter-class28`); empty for the
        default build. Every recorded option counts, so two different outputs never share a name."""
        defaults = BuildOptions().recorded()
        parts = [_VARIANT_PARTS.get(key, lambda v, k=key: f"{k.removesuffix('_mm').replace('_', '-')}-{_plain(v)}")(
            value) for key, value in self.recorded().items() if key != "png_dpi" and value != defaults.get(key)]
        return re.sub(r"[^A-Za-z0-9.,+-]+", "", "-".join(parts))

    def placed(self) -> "BuildOptions":
        """These options with `out_dir` moved to the variant's own folder, `<out>/variants/<variant>/`, so that
        builds with different options never overwrite each other; the default build stays in `<out>/`."""
        name = self.variant()
        return replace(self, out_dir=Path(self.out_dir) / VARIANTS / name) if name else self


VARIANTS = "variants"  # the folder of non-default builds inside the output folder


def _plain(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(_plain(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return "yes" if value is True else "no" if value is False else str(value)


_VARIANT_PARTS: dict[str, Callable[[Any], str]] = {
    "paper": str, "card_size": str, "class_size": lambda v: f"class{v}", "kits": lambda v: f"kits{v}",
    "fold": lambda v: "fold" if v else "no-fold", "ink": lambda v: f"{v}-ink", "large_print": lambda v: "large-print",
    "back_offset_mm": lambda v: "offset{:+g},{:+g}".format(*v), "bleed_mm": lambda v: f"bleed{v:g}mm",
    "duplex": lambda v: f"duplex-{v}", "cut_lines": lambda v: f"cut-{v}",
}

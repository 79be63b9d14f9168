"""What a build is asked to do: the options as typed, and resolved into what plan and render read.

Every option is declared once, as a field of `BuildOptions` (its name, type and default) with its flag, range,
help and settings key in the field's metadata; `OPTIONS` reads them back for the CLI, the settings file, serve,
the manifest and the variant folder name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import UnionType
from typing import Any, get_args, get_origin, get_type_hints, TYPE_CHECKING, Union

from kitgen.core.choices import CutLines, Cutter, Duplex, Font, Ink, ShopBleed
from kitgen.core.errors import UsageError
from kitgen.core.style import LibraryFont, Style
from kitgen.core.units import CARD_PRESETS, CardSize, mm, PAPER_SIZES, PaperSize, parse_card_size, parse_paper, to_mm
from kitgen.plan.imposition import Sheet
from kitgen.plan.option import Option, OPTION, option, parse_offset, plain

if TYPE_CHECKING:
    from kitgen.load.model import Activity


def kits_for_class(class_size: int, players_per_kit: int) -> int:
    """Kits needed so every student plays: 28 students, 2 per kit → 14; 29 → 15."""
    return -(-class_size // players_per_kit)


MAX_KITS = 60
MAX_CLASS = 500
DUPLEX, CUT_LINES, INK, FONTS, CUTTERS = Duplex.words(), CutLines.words(), Ink.words(), Font.words(), Cutter.words()
_SIZES = ", ".join(CARD_PRESETS)


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
    """What the user chose on the command line, in kitgen.toml or serve's page (or a test in code)."""

    paper: str = field(default="a4", metadata=option(
        "--paper", "Paper size of every file.", words=tuple(PAPER_SIZES), example='"letter"', variant=str))
    card_size: str | None = field(default=None, metadata=option(
        "--card-size", f"{_SIZES} or WxH such as 63x88mm (default: the activity's).", metavar="SIZE",
        example='"bridge"', variant=str, valid=parse_card_size))
    out_dir: Path = field(default=Path("output"), metadata=option(
        "--out", "Folder to write kits into.", setting="output", example='"printed"', named=False, recorded=False))
    incremental: bool = False  # skip a kit whose inputs have not changed since its last build (--force: False)
    kits: int = field(default=1, metadata=option(
        "--kits", "Numbered kits to print.", low=1, high=MAX_KITS, example="4", variant=lambda v: f"kits{v}"))
    class_size: int | None = field(default=None, metadata=option(
        "--class-size", "Students to equip: prints enough numbered kits (overrides --kits).", low=1, high=MAX_CLASS,
        example="28", variant=lambda v: f"class{v}"))
    duplex: Duplex | None = field(default=None, metadata=option(
        "--duplex", "Backs for a long- or short-edge flip, or no backs (default: the activity's, else long); "
        "short not with --fold.",
        example='"short"', variant=lambda v: f"duplex-{v}"))
    fold: bool | None = field(default=None, metadata=option(
        "--fold/--no-fold", "Gutter fold: faces and backs on one side of the sheet (default: the activity's, "
        "else no). Not with --back-offset or --duplex short (a usage error: there is no back page to shift or "
        "flip); the offset of a --printer or of the settings is not applied.", example="true",
        variant=lambda v: "fold" if v else "no-fold"))
    bleed_mm: float | None = field(default=None, metadata=option(
        "--bleed", "Card art extends this far past the cut line.", low=0, high=10, metavar="MM", example="3",
        variant=lambda v: f"bleed{v:g}mm"))
    cut_lines: CutLines | None = field(default=None, metadata=option(
        "--cut-lines", "Crop marks in the margin, thin lines round every card, or both.", example='"both"',
        variant=lambda v: f"cut-{v}"))
    margin_mm: float | None = field(default=None, metadata=option(
        "--margin", "Print no closer than this to the paper's edge (default 5; a printer that prints closer may "
        "fit more, e.g. --margin 2 puts crop marks above and below 9 cards on Letter).", low=0, high=20,
        metavar="MM", example="3"))
    print_shop: bool = field(default=False, metadata=option(
        "--print-shop", "PDF/X-4 files for a print-on-demand service: the fronts one card a page, the backs each "
        "once, every page the card and its bleed (3 mm unless --bleed or --shop-bleed) with its trim box.",
        example="true"))
    shop_bleed: ShopBleed | None = field(default=None, metadata=option(
        "--shop-bleed", "A print shop's card template: 3mm (69.5 × 94.9 mm pages for poker cards) or eighth-inch "
        "(1/8 in, 69.85 × 95.25 mm, as US services ask); implies --print-shop.", example='"eighth-inch"'))
    cutter: Cutter | None = field(default=None, metadata=option(
        "--cutter", "Print-then-cut: silhouette, Studio's registration marks on the card sheets (their corners "
        "kept clear) and cut files of the card outlines (SVG and DXF) beside each card file; cricut, the card faces as PNG pictures of at most 6.75 × 9.25 in "
        "(300 dpi), each with an SVG of its card outlines.", example='"silhouette"'))
    corner_mm: float = field(default=0.0, metadata=option(
        "--corners", "Round the cards' corners by this radius (cut lines and cut files follow).", low=0, high=10,
        metavar="MM", label="corner radius", example="3"))
    back_offset_mm: tuple[float, float] = field(default=(0.0, 0.0), metadata=option(
        "--back-offset", "Shift back pages by X,Y mm (measure with kitgen calibrate); not with --fold.", low=-20, high=20,
        metavar="X,Y", example='"1.5,-0.8"', label="back offset",
        variant=lambda v: "offset{:+g},{:+g}".format(*v)))
    ink: Ink = field(default=Ink.NORMAL, metadata=option(
        "--ink", "light: outlines only, no filled areas.", example='"light"', variant=lambda v: f"{v}-ink"))
    large_print: bool = field(default=False, metadata=option(
        "--large-print", "Sheets at 14 pt or more; card text as large as fits.", example="true",
        variant=lambda v: "large-print"))
    png_dpi: int | None = field(default=None, metadata=option(
        "--png", "Also a PNG of every card face, back and slip at DPI (e.g. 300), in the kit's png/ folder.",
        low=36, high=1200, metavar="DPI", example="300", named=False))
    font: Font | None = field(default=None, metadata=option(
        "--font", "legible: Atkinson Hyperlegible for every text (default: the activity's font, else standard, "
        "DejaVu Sans).", example='"legible"'))

    def __post_init__(self) -> None:
        for one in OPTIONS:  # a word given in code ("long") becomes its enum; every value checked once, here
            value = getattr(self, one.name)
            if value is not None and value != one.default:
                object.__setattr__(self, one.name, one.checked(value))

    def recorded(self) -> dict[str, Any]:
        """The options that change the output, as recorded in the manifest."""
        return {one.name: _recordable(getattr(self, one.name)) for one in OPTIONS if one.recorded}

    def resolve(self, activity: Activity, library_font: LibraryFont | None = None) -> ResolvedOptions:
        """Every choice made and checked once: the user's, else the activity's defaults, else kitgen's;
        `library_font` is the family of the library's fonts/ folder that the activity's `font` names."""
        printing = activity.printing
        duplex = Duplex(self.duplex or printing.duplex or Duplex.LONG)
        bleed_mm = self.bleed_mm if self.bleed_mm is not None else to_mm(printing.bleed or 0.0)
        print_shop = self.print_shop or self.shop_bleed is not None
        if self.shop_bleed is not None and self.bleed_mm is not None:
            raise UsageError("--shop-bleed sets the bleed: give it or --bleed, not both")
        if print_shop:  # a print shop trims each card: it needs bleed, and the backs behind their faces
            bleed_mm = self.bleed_mm if self.bleed_mm is not None else (
                ShopBleed(self.shop_bleed).millimetres if self.shop_bleed is not None else 3.0)
            duplex = Duplex.LONG
        OPTION_NAMED["bleed_mm"].checked(bleed_mm)  # the activity's own bleed is held to the flag's range too
        cut_lines = CutLines(self.cut_lines or printing.cut_lines or CutLines.MARKS)
        try:
            paper, card = parse_paper(self.paper), parse_card_size(self.card_size or activity.card_size)
        except ValueError as error:
            raise UsageError(str(error)) from None
        font: Font | LibraryFont = OPTION_NAMED["font"].checked(self.font or Font.STANDARD) if self.font or not \
            activity.font else library_font or OPTION_NAMED["font"].checked(activity.font)
        margin_mm = 5.0 if self.margin_mm is None else self.margin_mm
        kits = self.kits_for(activity.players.max)
        if not 1 <= kits <= MAX_KITS:
            raise UsageError(f"{kits} kits asked for, expected 1 to {MAX_KITS}")
        fold = self.fold if self.fold is not None else bool(printing.fold)
        offset = (mm(self.back_offset_mm[0]), mm(self.back_offset_mm[1]))
        if print_shop:  # no gutter fold, no printer's shift: the shop prints every page as it is
            fold, offset = False, (0.0, 0.0)
        sheet = Sheet(duplex, fold, mm(bleed_mm), mm(margin_mm), print_shop,
                      self.cutter == Cutter.SILHOUETTE, mm(self.corner_mm))  # cricut: Design Space prints its own
        style = Style(cut_lines, offset, Ink(self.ink), self.large_print, font, self.cutter == Cutter.CRICUT)
        return ResolvedOptions(paper, card, sheet, style, kits)

    def kits_for(self, players_per_kit: int) -> int:
        return kits_for_class(self.class_size, players_per_kit) if self.class_size else self.kits

    def variant(self) -> str:
        """What these options change from the defaults, as a folder name (`letter-class28`); empty for the
        default build. Every recorded option counts, so two different outputs never share a name."""
        parts = [one.folder_part(getattr(self, one.name)) for one in OPTIONS
                 if one.recorded and one.named and getattr(self, one.name) != one.default]
        return re.sub(r"[^A-Za-z0-9.,+-]+", "", "-".join(parts))

    def placed(self) -> "BuildOptions":
        """These options with `out_dir` moved to the variant's own folder, `<out>/variants/<variant>/`, so that
        builds with different options never overwrite each other; the default build stays in `<out>/`."""
        name = self.variant()
        return replace(self, out_dir=Path(self.out_dir) / VARIANTS / name) if name else self


VARIANTS = "variants"  # the folder of non-default builds inside the output folder


def _recordable(value: Any) -> Any:
    """A value as the manifest's JSON holds it: an offset as a list, an enum as its word."""
    if isinstance(value, tuple):
        return list(value)
    return str(value) if isinstance(value, (Duplex, CutLines, Ink, Font, Cutter, ShopBleed)) else value


def _declared() -> tuple[Option, ...]:
    hints = get_type_hints(BuildOptions)
    declared = []
    for one in fields(BuildOptions):
        if OPTION not in one.metadata:
            continue
        kind = hints[one.name]
        if get_origin(kind) in (Union, UnionType):  # X | None → X
            kind = next(k for k in get_args(kind) if k is not type(None))
        declared.append(Option(one.name, kind=get_origin(kind) or kind, default=one.default,
                               **one.metadata[OPTION]))
    return tuple(declared)


OPTIONS: tuple[Option, ...] = _declared()
OPTION_NAMED = {one.name: one for one in OPTIONS}

# Two choices of a command that are not build options: the edition to build and a saved printer profile
LANGUAGE = Option("language", "--lang", "Build only this language edition (default: all).", metavar="LANG",
                  setting="languages", example='["en", "ro"]', recorded=False, named=False)
PRINTER = Option("printer", "--printer", "Use a saved printer profile's back offset.", metavar="NAME",
                 example='"room12"', recorded=False, named=False)
LANGUAGE_CODE = re.compile(r"[a-z]{2}")


def language_code(text: str, what: str = "--lang") -> str:
    """A two-letter language code, or a UsageError naming `what`."""
    if not LANGUAGE_CODE.fullmatch(text):
        raise UsageError(f"{what} takes a two-letter language code such as en or ro, got {text!r}")
    return text


__all__ = ["BuildOptions", "CUTTERS", "CUT_LINES", "DUPLEX", "FONTS", "INK", "LANGUAGE", "OPTIONS", "OPTION_NAMED",
           "Option", "PRINTER", "ResolvedOptions", "VARIANTS", "kits_for_class", "parse_offset", "plain"]

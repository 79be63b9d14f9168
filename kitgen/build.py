"""The library API: build one activity into its kit (load → check → plan → render → write)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from kitgen.checks import check_activity
from kitgen.errors import BuildError, ContentError, UsageError
from kitgen.inputs import read_manifest
from kitgen.library import Library
from kitgen.load import LoadedActivity, load_activity
from kitgen.load.model import Printing
from kitgen.locale import translations
from kitgen.plan.kit import kits_for_class
from kitgen.plan.imposition import Sheet
from kitgen.render.style import Style
from kitgen.units import mm, parse_card_size, parse_paper, to_mm

MAX_KITS = 60


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

    @property
    def pages(self) -> int:
        return sum(f.pages for f in self.files)

    def sheets(self, card_stock: bool) -> int:
        """Sheets of paper (card files print two-sided on card stock)."""
        return sum(f.sheets for f in self.files if f.role.endswith("cards") == card_stock)


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def host_only_texts(loaded: LoadedActivity) -> list[str]:
    """Every string the content marks as host-key material."""
    key = loaded.activity.host_key
    texts = list(key.intro)
    for example in key.examples:
        texts += [t for t in (example.title, example.note) if t]
    for section in key.sections:
        texts += [section.title, *section.paragraphs, *section.items]
    return [_normalise(t) for t in texts if len(_normalise(t)) >= 12]


def check_no_leak(host_texts: list[str], printed: list[str], file_name: str) -> None:
    """A player-facing file that prints host-key material is a build error, never a silent omission."""
    normalised = [_normalise(p) for p in printed]
    for secret in host_texts:
        for paragraph in normalised:
            if secret in paragraph:
                raise BuildError(f"{file_name}: host-key text would be printed in a player file: {secret[:70]!r}")


def editions(path: Path) -> list[str]:
    """The languages an activity file can be built in: its own and one per overlay file."""
    from kitgen.load import edition_languages
    from kitgen.load.yaml_source import read_yaml

    data, _source = read_yaml(path)
    own = data.get("language", "en") if isinstance(data, dict) else "en"
    return sorted({str(own), *edition_languages(path)})


def build(activity_id: str, options: BuildOptions = BuildOptions(), library: Library | None = None,
          language: str | None = None) -> BuildResult:
    """Build one edition of an activity (its own language unless `language` says otherwise)."""
    library = library or Library.open()
    path = library.find(activity_id)
    several = len(editions(path)) > 1
    return build_loaded(load_activity(path, language), options, library, several_editions=several)


def build_all_editions(activity_id: str, options: BuildOptions = BuildOptions(),
                       library: Library | None = None) -> list[BuildResult]:
    """Build every language edition of an activity."""
    library = library or Library.open()
    path = library.find(activity_id)
    languages = editions(path)
    return [build_loaded(load_activity(path, lang), options, library, several_editions=len(languages) > 1)
            for lang in languages]


def build_loaded(loaded: LoadedActivity, options: BuildOptions, library: Library, *,
                 several_editions: bool = False) -> BuildResult:
    """Check, plan, render every file in memory, and only then write them all."""
    from kitgen.inputs import input_record, is_up_to_date, templates_used
    from kitgen.plan.kit import plan_kit
    from kitgen.render.kit import KitRenderer, root_templates
    from kitgen.render.markup import environment
    from kitgen.render.quality import collecting
    from kitgen.write import OutputData, write_outputs

    check_activity(loaded)
    activity = loaded.activity
    options = options.with_defaults(activity.printing)
    try:
        paper = parse_paper(options.paper)
        card = parse_card_size(options.card_size or activity.card_size)
    except ValueError as error:
        raise UsageError(str(error)) from None
    stem = f"{activity.id}-{activity.language}" if several_editions else activity.id
    folder = options.out_dir / stem
    env = environment(tuple(library.template_dirs(loaded.folder)), activity.language)
    inputs = input_record(loaded.files, templates_used(env, root_templates(activity)), activity.language,
                          options.recorded())
    if options.incremental and is_up_to_date(folder, inputs):
        return _from_manifest(activity.id, activity.language, folder)
    kits = options.kits_for(activity.players.max)
    if not 1 <= kits <= MAX_KITS:
        raise UsageError(f"{kits} kits asked for, expected 1 to {MAX_KITS}")
    try:
        plan = plan_kit(activity, paper, card, kits, options.sheet())
    except UsageError as error:  # a size from the content that cannot fit the paper
        if options.card_size:
            raise
        raise ContentError([loaded.source.problem(("card_size",), f"card_size: {error}")]) from None
    with collecting() as quality:
        rendered = KitRenderer(activity, plan, env, stem, translations(activity.language),
                               loaded.source, options.style()).render()
    secrets = host_only_texts(loaded)
    for document in rendered:
        if document.for_players:
            check_no_leak(secrets, document.text, document.name)
    record = {"activity": activity.id, "language": activity.language, "inputs": inputs, "quality": quality}
    write_outputs(folder, [OutputData(d.name, d.data, d.pages, d.role, d.for_players, d.sheets) for d in rendered],
                  record)
    result = BuildResult(activity.id, activity.language, folder, quality=quality)
    for document in rendered:
        result.files.append(OutputFile(folder / document.name, document.pages, document.role, document.for_players,
                                       document.sheets))
    return result


def _from_manifest(activity_id: str, language: str, folder: Path) -> BuildResult:
    manifest = read_manifest(folder) or {}
    files = [OutputFile(folder / name, entry["pages"], entry["role"], entry["for_players"], entry["sheets"])
             for name, entry in manifest.get("files", {}).items()]
    return BuildResult(activity_id, language, folder, files, skipped=True, quality=manifest.get("quality", []))


__all__ = ["BuildOptions", "BuildResult", "OutputFile", "build", "build_all_editions", "build_loaded", "editions"]

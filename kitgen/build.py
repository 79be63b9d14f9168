"""The library API: build one activity into its kit (load → check → plan → render → write)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from kitgen import __version__
from kitgen.checks import card_texts, check_activity, evaluate_hand
from kitgen.errors import BuildError, UsageError
from kitgen.library import Library
from kitgen.load import LoadedActivity, load_activity
from kitgen.locale import translations
from kitgen.plan import card_sheets, impose
from kitgen.units import parse_card_size, parse_paper


@dataclass(frozen=True)
class BuildOptions:
    """What the user chose on the command line (or a test in code)."""

    paper: str = "a4"
    card_size: str | None = None  # overrides the activity's card size
    out_dir: Path = Path("output")


@dataclass(frozen=True)
class OutputFile:
    path: Path
    pages: int
    role: str  # cards, sheets, host-key, print-guide
    for_players: bool


@dataclass
class BuildResult:
    activity_id: str
    folder: Path
    files: list[OutputFile] = field(default_factory=list)


@dataclass(frozen=True)
class CardRef:
    """One printed card: deck and card-kind indexes within the activity."""

    deck: int
    kind: int


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


def build(activity_id: str, options: BuildOptions = BuildOptions(), library: Library | None = None) -> BuildResult:
    """Build one activity of the library by id."""
    library = library or Library.open()
    return build_loaded(load_activity(library.find(activity_id)), options, library)


def build_loaded(loaded: LoadedActivity, options: BuildOptions, library: Library) -> BuildResult:
    """Check, plan, render every file in memory, and only then write them all."""
    from kitgen.render.kit import render_kit

    check_activity(loaded)
    activity = loaded.activity
    try:
        paper = parse_paper(options.paper)
        card = parse_card_size(options.card_size or activity.card_size)
    except ValueError as error:
        raise UsageError(str(error)) from None
    grid = impose(paper, card)
    refs = [CardRef(d, k) for d, deck in enumerate(activity.decks)
            for k, kind in enumerate(deck.cards) for _ in range(kind.count)]
    sheets = card_sheets(refs, grid)
    _ = translations(activity.language).gettext
    rendered = render_kit(loaded, library, grid, sheets, options.paper)
    secrets = host_only_texts(loaded)
    for document in rendered:
        if document.for_players:
            check_no_leak(secrets, document.text, document.name)
    folder = options.out_dir / activity.id
    from kitgen.write import write_outputs

    record = {"activity": activity.id, "kitgen": __version__, "paper": options.paper,
              "card_size": options.card_size or activity.card_size}
    write_outputs(folder, {d.name: d.data for d in rendered}, record)
    result = BuildResult(activity.id, folder)
    for document in rendered:
        result.files.append(OutputFile(folder / document.name, document.pages, document.role, document.for_players))
    return result


__all__ = ["BuildOptions", "BuildResult", "CardRef", "OutputFile", "build", "build_loaded",
           "card_texts", "evaluate_hand"]

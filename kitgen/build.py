"""The library API: build one activity into its kit (load → check → plan → render → write)."""
from __future__ import annotations

import re
from pathlib import Path

from kitgen.checks import check_activity
from kitgen.errors import BuildError, ContentError, UsageError
from kitgen.library import Library
from kitgen.load import LoadedActivity, load_activity
from kitgen.load.editions import editions, own_language
from kitgen.load.problems import dotted
from kitgen.locale import translations
from kitgen.results import BuildOptions, BuildResult, OutputFile, kit_folder_name, kits_for_class
from kitgen.units import parse_card_size, parse_paper

MAX_KITS = 60


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def host_only_texts(loaded: LoadedActivity) -> list[str]:
    """Every string the content marks as host-key material."""
    key = loaded.activity.host_key
    texts = list(key.intro)
    for example in key.examples:
        texts += [t for t in (example.title, example.note) if t]
    for walk in key.walkthroughs:
        texts += [walk.title, *(step.text for step in walk.steps)]
    texts += [table.title for table in key.card_tables]
    texts += [example.note for example in key.sets if example.note]
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


def _load(activity_id: str, path: Path, language: str | None) -> LoadedActivity:
    """Load one edition and make sure its id is the one its file name promises."""
    loaded = load_activity(path, language)
    if loaded.activity.id != activity_id:
        raise ContentError([loaded.source.problem(("id",), f"id: {loaded.activity.id!r} does not match the file "
                                                            f"name, expected {activity_id!r}")])
    return loaded


def check(activity_id: str, library: Library | None = None) -> None:
    """Validate every edition of an activity and run its content checks, without rendering."""
    library = library or Library.open()
    path = library.find(activity_id)
    for language in editions(path):
        check_activity(_load(activity_id, path, language))


def build(activity_id: str, options: BuildOptions = BuildOptions(), library: Library | None = None,
          language: str | None = None) -> BuildResult:
    """Build one edition of an activity (its own language unless `language` says otherwise)."""
    from kitgen.inputs import fresh_result

    library = library or Library.open()
    path = library.find(activity_id)
    if options.incremental:
        fresh = fresh_result(path, language or own_language(path), library, options)
        if fresh is not None:
            return fresh
    several = len(editions(path)) > 1
    return build_loaded(_load(activity_id, path, language), options, library, several_editions=several)


def build_all_editions(activity_id: str, options: BuildOptions = BuildOptions(),
                       library: Library | None = None) -> list[BuildResult]:
    """Build every language edition of an activity (an incremental build skips it when nothing changed)."""
    from kitgen.inputs import fresh_results

    library = library or Library.open()
    path = library.find(activity_id)
    if options.incremental:
        fresh = fresh_results(path, library, options)
        if fresh is not None:
            return fresh
    languages = editions(path)
    return [build_loaded(_load(activity_id, path, lang), options, library, several_editions=len(languages) > 1)
            for lang in languages]


def build_loaded(loaded: LoadedActivity, options: BuildOptions, library: Library, *,
                 several_editions: bool = False) -> BuildResult:
    """Check, plan, render every file in memory, and only then write them all."""
    from kitgen.inputs import input_record, templates_used
    from kitgen.plan.kit import plan_kit
    from kitgen.render.kit import KitRenderer, root_templates
    from kitgen.render.markup import environment
    from kitgen.render.quality import collecting
    from kitgen.write import OutputData, write_outputs

    check_activity(loaded)
    activity = loaded.activity
    requested, options = options, options.with_defaults(activity.printing)
    try:
        paper = parse_paper(options.paper)
        card = parse_card_size(options.card_size or activity.card_size)
    except ValueError as error:
        raise UsageError(str(error)) from None
    stem = kit_folder_name(activity.id, activity.language, several_editions)
    folder = options.out_dir / stem
    template_dirs = library.template_dirs(loaded.folder)
    inputs = input_record(loaded.files, templates_used(template_dirs, root_templates(activity)), activity.language,
                          requested.recorded())
    kits = options.kits_for(activity.players.max)
    if not 1 <= kits <= MAX_KITS:
        raise UsageError(f"{kits} kits asked for, expected 1 to {MAX_KITS}")
    sheet = options.sheet()
    try:
        plan = plan_kit(activity, paper, card, kits, sheet)
    except UsageError as error:  # a size from the content that cannot fit the paper
        loc = getattr(error, "loc", None) or (None if options.card_size else ("card_size",))
        if loc is None:
            raise
        raise ContentError([loaded.source.problem(loc, f"{dotted(loc)}: {error}")]) from None
    env = environment(tuple(template_dirs), activity.language)
    with collecting() as quality:
        rendered = KitRenderer(activity, plan, env, stem, translations(activity.language),
                               loaded.source, options.style()).render()
    secrets = host_only_texts(loaded)
    for document in rendered:
        if document.for_players:
            check_no_leak(secrets, document.text, document.name)
    summary = {"title": activity.title, "purpose": activity.purpose, "category": activity.category,
               "players": str(activity.players), "minutes": str(activity.minutes), "language": activity.language}
    record = {"activity": activity.id, "language": activity.language, "inputs": inputs, "quality": quality,
              "summary": summary}
    write_outputs(folder, [OutputData(d.name, d.data, d.pages, d.role, d.for_players, d.sheets) for d in rendered],
                  record)
    result = BuildResult(activity.id, activity.language, folder, quality=quality, summary=summary)
    for document in rendered:
        result.files.append(OutputFile(folder / document.name, document.pages, document.role, document.for_players,
                                       document.sheets))
    return result


__all__ = ["BuildOptions", "BuildResult", "OutputFile", "build", "check", "build_all_editions", "build_loaded", "editions",
           "kits_for_class"]

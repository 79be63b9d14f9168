"""The library API: build one activity into its kit (load → check → plan → render → write)."""
from __future__ import annotations

from types import ModuleType

from kitgen.core.errors import ContentError, KitgenError, Problem
from kitgen.core.files import BuildResult, OutputFile
from kitgen.load.editions import editions, own_language
from kitgen.load.library import Library
from kitgen.plan.options import BuildOptions, kits_for_class
from kitgen.write.fresh import fresh_result, fresh_results


def _rendering() -> ModuleType:
    """The start-up seam: the content model (pydantic), Jinja and ReportLab arrive with `kitgen.app.rendering`,
    imported only when a kit is really loaded, so a kit that is up to date is told so without them."""
    from kitgen.app import rendering

    return rendering


def check(activity_id: str, library: Library | None = None, language: str | None = None, *,
          options: BuildOptions = BuildOptions()) -> None:
    """Everything `build` does to every edition of an activity (or the one in `language`) but the writing: load,
    check, plan and render each file as it would be printed with `options`; one ContentError lists every
    problem found, those of every card and file (a bad picture, a QR code or text that cannot fit, a character
    no font has, host-key text in a player's file)."""
    library = library or Library.open()
    path = library.find(activity_id)
    several = len(editions(path)) > 1
    problems: list[Problem] = []
    for lang in [language] if language else editions(path):
        problems += _rendering().edition_problems(activity_id, path, lang, library, options,
                                                  several_editions=several)
    if problems:
        raise ContentError(list(dict.fromkeys(problems)))  # a problem two editions share, once


def build(activity_id: str, options: BuildOptions = BuildOptions(), library: Library | None = None,
          language: str | None = None) -> BuildResult:
    """Build one edition of an activity (its own language unless `language` says otherwise)."""
    library = library or Library.open()
    path = library.find(activity_id)
    if options.incremental:
        fresh = fresh_result(path, language or own_language(path), library, options)
        if fresh is not None:
            return fresh
    several = len(editions(path)) > 1
    rendering = _rendering()
    result: BuildResult = rendering.build_loaded(rendering.load_edition(activity_id, path, language), options,
                                                 library, several_editions=several)
    return result


def build_all_editions(activity_id: str, options: BuildOptions = BuildOptions(),
                       library: Library | None = None) -> list[BuildResult]:
    """Build every language edition of an activity (an incremental build skips it when nothing changed)."""
    library = library or Library.open()
    path = library.find(activity_id)
    if options.incremental:
        fresh = fresh_results(path, library, options)
        if fresh is not None:
            return fresh
    languages = editions(path)
    rendering = _rendering()
    results, failed = [], []
    for lang in languages:  # an edition that fails does not stop the others; its error is raised after them
        try:
            results.append(rendering.build_loaded(rendering.load_edition(activity_id, path, lang), options, library,
                                                  several_editions=len(languages) > 1))
        except KitgenError as error:
            failed.append(error)
    if failed:
        raise failed[0]
    return results


__all__ = ["BuildOptions", "BuildResult", "OutputFile", "build", "check", "build_all_editions", "editions",
           "kits_for_class"]

"""The library API: build one activity into its kit (load → check → plan → render → write)."""
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from kitgen.core import collector
from kitgen.core.errors import ContentError, KitgenError, Problem, UnprintableContent
from kitgen.core.files import BuildResult, OutputFile
from kitgen.load.editions import editions, in_edition, in_edition_text, own_language
from kitgen.load.library import Library
from kitgen.plan.options import BuildOptions, kits_for_class
from kitgen.write.fresh import fresh_result, fresh_results


def rendering_stage() -> ModuleType:
    """The start-up seam: the content model (pydantic), Jinja and ReportLab arrive with `kitgen.app.rendering`,
    imported only when a kit is really loaded, so a kit that is up to date is told so without them (and without
    a collection while they are imported, `collector.importing`)."""
    loaded = sys.modules.get("kitgen.app.rendering")
    if loaded is not None:
        return loaded
    with collector.importing():
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
    rendering = rendering_stage()
    found = {lang: rendering.edition_problems(activity_id, path, lang, library, options, several_editions=several)
             for lang in ([language] if language else editions(path))}
    own = set(found.get(own_language(path), ()))  # a problem the file's own language has too is every edition's
    problems: list[Problem] = []
    for lang, edition in found.items():
        problems += [p for p in edition if p in own] + in_edition([p for p in edition if p not in own], path, lang)
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
    rendering = rendering_stage()
    with _named_edition(path, language):
        result: BuildResult = rendering.build_loaded(rendering.load_edition(activity_id, path, language), options,
                                                     library, several_editions=several)
    return result


@contextmanager
def _named_edition(path: Path, language: str | None) -> Iterator[None]:
    """An edition's problems found outside its own file (in the activity file every edition shares) say which
    edition they were found in."""
    try:
        yield
    except ContentError as error:
        raise ContentError(in_edition(error.problems, path, language)) from None
    except UnprintableContent as error:
        raise UnprintableContent(in_edition_text(str(error), path, language)) from None


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
    rendering = rendering_stage()
    results, failed = [], []
    for lang in languages:  # an edition that fails does not stop the others; its error is raised after them
        try:
            with _named_edition(path, lang):
                results.append(rendering.build_loaded(rendering.load_edition(activity_id, path, lang), options,
                                                      library, several_editions=len(languages) > 1))
        except KitgenError as error:
            failed.append(error)
    if failed:
        raise failed[0]
    return results


__all__ = ["BuildOptions", "BuildResult", "OutputFile", "build", "check", "build_all_editions", "editions",
           "kits_for_class"]

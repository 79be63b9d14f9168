"""Build a whole library: every activity and language edition, in parallel, one failure never stopping the rest."""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from kitgen.app.build import build, build_all_editions, rendering_stage
from kitgen.app.index import thumbnail
from kitgen.app.report import ActivityReport
from kitgen.core.errors import describe_os_error, KitgenError
from kitgen.core.files import kit_folder_name
from kitgen.load.editions import edition_file, edition_languages, editions
from kitgen.load.library import Library, refuse_outside, refuse_shared_folder
from kitgen.load.yaml_source import read_yaml
from kitgen.plan.options import LANGUAGE_CODE, BuildOptions
from kitgen.write.fresh import fresh_results, read_manifest

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext


def build_one(activity_id: str, options: BuildOptions, content: Path, language: str | None = None) -> ActivityReport:
    """Build one edition of an activity (every edition when `language` is None); errors become part of the report."""

    library = Library(content)
    try:
        results = build_all_editions(activity_id, options, library) if language is None else \
            [build(activity_id, options, library, language)]
        # the index's thumbnails are drawn here, in the worker, while the other core builds another kit
        return ActivityReport(activity_id, results, thumbnails={r.folder.name: thumbnail(r) for r in results})
    except KitgenError as error:
        return ActivityReport(activity_id, error=str(error), exit_code=error.exit_code)
    except OSError as error:  # a folder or file the system will not let kitgen write
        return ActivityReport(activity_id, error=describe_os_error(error), exit_code=1)
    except Exception as error:  # an unexpected failure in one kit must not stop the others
        return ActivityReport(activity_id, error=f"internal error: {type(error).__name__}: {error}", exit_code=1)


@dataclass(frozen=True)
class Edition:
    """One unit of work for the pool: an activity in one language."""

    activity_id: str
    language: str | None  # None: every edition (its only one, or the file could not be read to list them)
    cost: int  # bytes of YAML behind it: a rough guide to how long it takes to build


def _editions(files: dict[str, Path], stale: list[str]) -> list[Edition]:
    """Every edition of the stale activities, the costliest first so no core is left with a big one at the end."""

    units = []
    for activity_id in stale:
        path = files[activity_id]
        try:  # without overlay files there is one edition: its worker reads the file, not this process
            languages: list[str | None] = list(editions(path)) if edition_languages(path) else [None]
        except KitgenError:
            languages = [None]
        for language in languages:
            # a language that is no code (`language: ../x`) names no overlay: its worker reports it, located
            overlay = edition_file(path, language) if language and LANGUAGE_CODE.fullmatch(language) else None
            cost = path.stat().st_size + (overlay.stat().st_size if overlay and overlay.is_file() else 0)
            units.append(Edition(activity_id, language, cost))
    return sorted(units, key=lambda unit: -unit.cost)


def _merge(activity_id: str, ordered: list[tuple[str | None, ActivityReport]]) -> ActivityReport:
    """One activity's report from its editions' reports, in language order: the editions that were built keep their
    results; each one that failed is named with its error (the report's error lists them all)."""
    failed = {language or "": part for language, part in ordered if part.error}
    report = ActivityReport(activity_id, [r for _, part in ordered for r in part.results],
                            thumbnails={k: v for _, part in ordered for k, v in part.thumbnails.items()})
    if failed:
        several = len(ordered) > 1
        report.failed_editions = {language: part.error or "" for language, part in failed.items() if language}
        report.error = "\n".join(f"{activity_id} ({language} edition): {part.error}" if several and language
                                 else part.error or "" for language, part in failed.items())
        report.exit_code = max(part.exit_code for part in failed.values())
    return report


def _warm_up(library: Library, languages: set[str]) -> None:
    """Import everything a build uses, register the fonts, compile the library's templates and read the
    catalogs once, before the workers fork and share them."""
    import kitgen.export.raster  # noqa: F401  (the workers draw the index's thumbnails with PDFium and PIL)
    from PIL import Image

    from kitgen.locale import translations
    from kitgen.fonts.registry import register_fonts
    from kitgen.render.markup import compile_templates

    rendering_stage()  # the pipeline (content model, Jinja, ReportLab) at its seam, frozen before the workers fork
    Image.preinit()  # PIL's JPEG writer
    register_fonts()
    compile_templates(tuple(library.template_dirs()))
    for language in sorted(languages):
        try:
            translations(language)
        except KitgenError:
            pass  # the edition's own build reports a missing catalog


def _end_with_parent(parent: int) -> None:
    """Pool initializer: the worker ends as soon as the process that started it does (killed, or its terminal
    closed) instead of waiting forever on a pipe nobody writes to. On Linux the kernel sends it SIGKILL
    (PR_SET_PDEATHSIG); elsewhere a thread watches the parent's process id."""
    import signal
    import sys

    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(1, int(signal.SIGKILL), 0, 0, 0) == 0:  # 1: PR_SET_PDEATHSIG
                if os.getppid() != parent:  # the parent died before the request was made
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _alone(unit: Edition, options: BuildOptions, content: Path, context: BaseContext | None) -> ActivityReport:
    """One edition built in a process of its own (after a worker died): a crash there fails this edition only."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_end_with_parent,
                                 initargs=(os.getpid(),)) as pool:
            return pool.submit(build_one, unit.activity_id, options, content, unit.language).result()
    except BrokenProcessPool:
        return ActivityReport(unit.activity_id, exit_code=1, error=f"{unit.activity_id}: internal error: the process "
                              "building this kit ended abruptly (out of memory, or a crash in a library kitgen uses)")


def build_library(library: Library, options: BuildOptions, *, jobs: int | None = None,
                  on_done: Callable[[ActivityReport], None] | None = None,
                  on_start: Callable[[str, str | None], None] | None = None) -> list[ActivityReport]:
    """Build every activity, `jobs` editions at a time (default: one per CPU core); reports in library order.
    `on_start(activity_id, language)` is called as an edition's build begins (in the pool: as a worker is free
    for it, the pool taking them in order), `on_done(report)` as an activity is finished.

    Up-to-date activities are recognised here from their manifests, without loading the renderer.
    """

    files = library.activity_files()
    reports: dict[str, ActivityReport] = {}
    stale = []
    for activity_id, path in files.items():
        try:  # a file leading out of the library, or an activity sharing another's kit folder, is never built
            refuse_outside(library, path)
            refuse_shared_folder(library, activity_id, path)
        except KitgenError as error:
            reports[activity_id] = ActivityReport(activity_id, error=str(error), exit_code=error.exit_code)
            if on_done:
                on_done(reports[activity_id])
            continue
        try:
            fresh = fresh_results(path, library, options) if options.incremental else None
        except KitgenError:
            fresh = None  # an unreadable file: its build reports the error, the others go on
        if fresh is None:
            stale.append(activity_id)
        else:
            reports[activity_id] = ActivityReport(activity_id, fresh)
            if on_done:
                on_done(reports[activity_id])
    units = _editions(files, stale)
    parts: dict[str, dict[str | None, ActivityReport]] = {activity_id: {} for activity_id in stale}
    expected = Counter(unit.activity_id for unit in units)  # editions per activity

    def finished(unit: Edition, report: ActivityReport) -> None:
        parts[unit.activity_id][unit.language] = report
        if len(parts[unit.activity_id]) == expected[unit.activity_id]:
            done = parts[unit.activity_id]
            reports[unit.activity_id] = _merge(unit.activity_id, [(language, done[language])
                                                                  for language in sorted(done, key=str)])
            if on_done:
                on_done(reports[unit.activity_id])

    jobs = max(1, min(jobs or os.cpu_count() or 1, len(units)))
    if units:
        _warm_up(library, {unit.language for unit in units if unit.language})
    def starting(unit: Edition) -> None:
        if on_start:
            on_start(unit.activity_id, unit.language)

    if jobs == 1:
        for unit in units:
            starting(unit)
            finished(unit, build_one(unit.activity_id, options, library.content, unit.language))
    else:
        import gc
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        gc.freeze()  # the workers' garbage collection then leaves the shared heap alone (no copy-on-write)
        from concurrent.futures.process import BrokenProcessPool

        done: set[Edition] = set()
        try:
            with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_end_with_parent,
                                     initargs=(os.getpid(),)) as pool:
                futures = {pool.submit(build_one, unit.activity_id, options, library.content, unit.language): unit
                           for unit in units}
                for unit in units[:jobs]:
                    starting(unit)
                begun = min(jobs, len(units))
                for future in as_completed(futures):
                    try:
                        report = future.result()
                    except BrokenProcessPool:  # a worker died: every edition not yet reported is built alone
                        break
                    if begun < len(units):  # a worker is free: the pool gives it the next edition in order
                        starting(units[begun])
                        begun += 1
                    done.add(futures[future])
                    finished(futures[future], report)
            for index, unit in enumerate(units):
                if unit not in done:
                    if index >= begun:
                        starting(unit)
                    finished(unit, _alone(unit, options, library.content, context))
        finally:
            gc.unfreeze()
    return [reports[activity_id] for activity_id in files]


def _cards_in(data: object) -> int:
    """Cards an activity's YAML asks for (listed with their counts, or generated from a product), without the model."""
    total = 0
    decks = data.get("decks") if isinstance(data, dict) else None
    for deck in decks if isinstance(decks, list) else []:
        if not isinstance(deck, dict):
            continue
        for card in deck.get("cards") or []:
            count = card.get("count", 1) if isinstance(card, dict) else 1
            total += count if isinstance(count, int) and count > 0 else 1
        product = (deck.get("generate") or {}).get("product") if isinstance(deck.get("generate"), dict) else None
        if isinstance(product, dict):
            size = 1
            for values in product.values():
                size *= len(values) if isinstance(values, (list, dict)) else 1
            total += size
    return total


def kit_sizes(library: Library, options: BuildOptions) -> dict[str, int]:
    """How much work each activity's build is, in pages, for the progress bar's estimate: the pages of its last
    build (its editions' manifests in `options.out_dir`), else the pages its cards need (faces and backs, nine to a
    sheet) and a few for its sheets, rules and host key. Never less than 1; never fails."""

    sizes: dict[str, int] = {}
    for activity_id, path in library.activity_files().items():
        try:
            languages = list(editions(path))
        except Exception:
            languages = []
        pages = 0
        for language in languages:
            manifest = read_manifest(Path(options.out_dir) / kit_folder_name(activity_id, language, len(languages) > 1))
            pages += sum(entry.get("pages", 0) for entry in manifest["files"].values()) if manifest else 0
        if not pages:
            try:
                cards = _cards_in(read_yaml(path)[0])
            except Exception:
                cards = 0
            pages = (-(-cards // 9) * 2 + 4) * max(1, len(languages))
        sizes[activity_id] = max(1, pages)
    return sizes

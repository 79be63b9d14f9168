"""`kitgen build`, `check` and `preview`: the commands that run the pipeline, printing what the library API says."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import click

from kitgen.app.batch import build_library, kit_sizes
from kitgen.app.build import build as build_kit, build_all_editions, check as check_activity
from kitgen.app.index import KITS_PAGE, write_index, write_kits_page
from kitgen.app.report import ActivityReport, library_exit_code, report, shown_notes, summary_table, written
from kitgen.app.request import chosen_ids, known_ids, languages_of, Request, request
from kitgen.cli.common import (content_option, debug_option, describe, flags, guarded, ids_argument, main, PRINTING,
                               stopping_like_ctrl_c, typed, verbosity)
from kitgen.core.errors import ContentError, describe_os_error, KitgenError, UsageError
from kitgen.core.files import BuildResult
from kitgen.load.library import Library
from kitgen.locale import library_locale
from kitgen.plan.options import VARIANTS


@main.command()
@ids_argument
@click.option("--all", "build_all", is_flag=True, help="Build every activity in the library, in parallel.")
@flags("paper", "card_size", "language", "class_size", "kits")
@click.option("--force", is_flag=True, help="Rebuild even when nothing changed.")
@click.option("--jobs", type=click.IntRange(1, 64), help="Parallel builds for --all (default: CPU cores).")
@click.option("--quiet", "-q", is_flag=True, help="Print only errors and the summary.")
@click.option("--verbose", "-v", is_flag=True, help="Say more: every file written, every quality note.")
@click.option("--watch", is_flag=True, help="Stay running and rebuild whenever a content file or template changes.")
@flags("png_dpi", *PRINTING)
@content_option
@flags("out_dir")
@debug_option
def build(activity_ids: tuple[str, ...], build_all: bool, force: bool, jobs: int | None, quiet: bool, watch: bool,
          content_dir: Path | None, debug: bool, verbose: bool = False, **given: Any) -> None:
    """Build the kit of each ACTIVITY_ID (every language edition), or of the whole library with --all.

    \b
    Examples:
      kitgen build growing-discard
      kitgen build trash --lang ro --paper letter
      kitgen build --all --out printed/
      kitgen build growing-discard --class-size 28
      kitgen build growing-discard --fold --ink light
      kitgen build --all --printer room12
      kitgen build growing-discard --watch
      kitgen build growing-discard --png 300
    """
    chosen = typed(given)

    def run() -> None:
        if bool(activity_ids) == build_all:
            raise UsageError("name one or more activities, or use --all (see kitgen list)")
        level = verbosity(quiet, verbose)
        library = Library.open(content_dir)
        known_ids(library, activity_ids)
        asked = request(library, chosen, incremental=not force)

        def build_once() -> int:
            code = _build_library(library, asked, jobs, level) if build_all else 0
            if not build_all:
                _build_some(library, asked, activity_ids, level)
            _kits_page(asked.out_dir, quiet)
            return code

        if watch:
            _watch(library, asked.out_dir, build_once)
        else:
            code = build_once()
            if code:
                sys.exit(code)  # some kits failed (2: their content is invalid); the others were built

    guarded(run, debug)


def _built(library: Library, asked: Request, activity_id: str) -> list[BuildResult]:
    languages = languages_of(library, activity_id, asked.language)
    if languages:
        return [build_kit(activity_id, asked.options, library, lang) for lang in languages]
    return build_all_editions(activity_id, asked.options, library)


def _build_some(library: Library, asked: Request, activity_ids: tuple[str, ...], level: int) -> None:
    for activity_id in activity_ids:
        for result in _built(library, asked, activity_id):
            for line in written(result, level, asked.options.png_dpi):
                click.echo(line)
            if not result.skipped:
                _quality_report([result], level)


def _quality_report(results: list[BuildResult], level: int) -> None:
    """Shrunk text and grayscale problems: a summary line with the count, each kit's full list in its folder's
    quality.txt, and the notes themselves when there are few (none with --quiet)."""
    for line in report(results, show=shown_notes(level)):
        click.echo(line)


def _kits_page(out_dir: Path, quiet: bool) -> None:
    """The list of every kit in the output folder, once a build with other options than the defaults was made."""
    if not ((out_dir / VARIANTS).is_dir() or (out_dir / KITS_PAGE).is_file()):
        return
    try:
        page = write_kits_page(out_dir)
    except OSError as error:
        click.echo(f"error: {describe_os_error(error)}", err=True)
        return
    if not quiet:
        click.echo(f"every kit built: {page}")


def _build_library(library: Library, asked: Request, jobs: int | None, level: int) -> int:
    """Build the library with a progress bar on a terminal, then the index, the summary and the quality report."""
    options = asked.options
    reports = _with_progress(library, asked, jobs, quiet=level < 0)
    for one in reports:
        if one.error:
            click.echo(one.error, err=True)
    try:
        index: tuple[Path, Path] | None = write_index(library, reports, options.out_dir)
    except (KitgenError, OSError) as error:  # the summary still says what was built
        click.echo(describe(error) if isinstance(error, KitgenError) else f"error: {describe_os_error(error)}",
                   err=True)
        index = None
    results = [result for one in reports for result in one.results]
    if level > 0:  # every file written, as a single-kit build lists them
        for result in results:
            if not result.skipped:
                for line in written(result, 0):
                    click.echo(line)
    click.echo(summary_table(reports))
    _quality_report(results, level)
    if index:
        click.echo(f"library index: {index[0]} and {index[1]}")
    return library_exit_code(reports, index is not None)


def progress_shown(quiet: bool) -> bool:
    """The progress bar of build --all is drawn on a terminal, unless --quiet."""
    return sys.stderr.isatty() and not quiet


def _with_progress(library: Library, asked: Request, jobs: int | None, quiet: bool) -> list[ActivityReport]:
    """`build_library`, drawing a bar that follows the kits' sizes in pages (a line per kit off a terminal)."""
    if not progress_shown(quiet):
        def said(one: ActivityReport) -> None:
            if not quiet:
                click.echo(f"{one.activity_id}: {one.status}", err=True)
        return build_library(library, asked.options, jobs=jobs, on_done=said)
    sizes = kit_sizes(library, asked.options)
    building: list[str] = []  # the editions being built now, named in the bar
    begun: set[str] = set()
    steps: list[str] = []  # (the bar is only moved by `update`, told the editions being built)
    with click.progressbar(steps, length=sum(sizes.values()), label="kits", file=sys.stderr,
                           item_show_func=lambda item: f"building {item}" if item else "") as bar:
        def start(activity_id: str, language: str | None) -> None:
            begun.add(activity_id)
            building.append(f"{activity_id} ({language})" if language else activity_id)
            bar.update(0, current_item=", ".join(building))

        def done(one: ActivityReport) -> None:
            building[:] = [name for name in building if name.split(" (")[0] != one.activity_id]
            if one.activity_id in begun:
                bar.update(sizes.get(one.activity_id, 0), current_item=", ".join(building))
            else:  # up to date (or refused) without building: it leaves the estimate
                bar.length = (bar.length or 0) - sizes.get(one.activity_id, 0)

        return build_library(library, asked.options, jobs=jobs, on_done=done, on_start=start)


def _watch(library: Library, out_dir: Path, build_once: Callable[[], int]) -> None:
    """Build, then rebuild after every change until Ctrl-C; a content error is shown and waited out.

    A usage error in the first build (an unknown activity, a bad option) ends the command, as without --watch;
    later (an activity file removed while watching) it is shown and waited out like the others.
    """
    def rebuild(files: list[str]) -> None:
        if files:
            shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
            click.echo(f"changed: {shown}", err=True)
        try:
            build_once()
        except KitgenError as error:
            if isinstance(error, UsageError) and not files:
                raise
            click.echo(describe(error), err=True)
        if not files:
            click.echo(f"watching {library.content} and the templates; Ctrl-C stops", err=True)

    from kitgen.app.watch import watch as watch_folders  # the file watcher, only for --watch

    with stopping_like_ctrl_c():
        try:
            watch_folders(lambda: [library.content, *library.template_dirs(), *library_locale(library.content)],
                          rebuild, skip=[out_dir])
        except KeyboardInterrupt:
            click.echo("stopped watching; every output file is either complete or as it was before", err=True)


@main.command()
@ids_argument
@click.option("--all", "check_all", is_flag=True, help="Check every activity in the library.")
@flags("language", language="Check only this language edition (default: all).")
@click.option("--quiet", "-q", is_flag=True, help="Print only the problems.")
@click.option("--verbose", "-v", is_flag=True, help="Say more: the file, editions and cards checked.")
@content_option
@debug_option
def check(activity_ids: tuple[str, ...], check_all: bool, content_dir: Path | None, debug: bool,
          quiet: bool = False, verbose: bool = False, language: str | None = None) -> None:
    """Check an activity (every edition) as its build would, without writing anything.

    \b
    Examples:
      kitgen check growing-discard
      kitgen check growing-discard trash
      kitgen check --all
    """
    def run() -> None:
        level = verbosity(quiet, verbose)
        library = Library.open(content_dir)
        ids = chosen_ids(library, activity_ids, check_all)
        asked = request(library, {"language": language} if language else {})  # kitgen.toml's options, as build
        failed = [one for one in ids if not _checked(library, one, asked, level)]
        if failed:
            sys.exit(2)

    guarded(run, debug)


def _checked(library: Library, activity_id: str, asked: Request, level: int) -> bool:
    """Check one activity's editions, saying `ok` (with -v what was checked) or its problems."""
    from kitgen.app.listing import checked_summary  # the content model, for the card count

    try:
        languages = languages_of(library, activity_id, asked.language)
        asked_editions: list[str | None] = list(languages) if languages else [None]
        for lang in asked_editions:
            check_activity(activity_id, library, lang, options=asked.options)
    except ContentError as error:
        click.echo(str(error), err=True)
        return False
    if level > 0:
        click.echo(f"{activity_id}: ok ({checked_summary(library.find(activity_id), languages)})")
    elif level == 0:
        click.echo(f"{activity_id}: ok")
    return True


@main.command()
@ids_argument
@click.option("--all", "preview_all", is_flag=True, help="Preview every activity in the library.")
@click.option("--quiet", "-q", is_flag=True, help="Print only errors.")
@click.option("--verbose", "-v", is_flag=True, help="Say more: every picture written.")
@click.option("--dpi", type=click.IntRange(20, 300), default=50, show_default=True, help="Resolution of the PNGs.")
@flags("paper", "card_size", "class_size", "kits", *PRINTING)
@content_option
@flags("out_dir", "language", language="Preview only this language edition (default: all).")
@debug_option
def preview(activity_ids: tuple[str, ...], dpi: int, content_dir: Path | None, debug: bool,
            preview_all: bool = False, quiet: bool = False, verbose: bool = False, **given: Any) -> None:
    """Write a PNG of every page next to the PDFs of the kit built with these options (built first if needed).

    Takes build's options, and previews the kit that build wrote with them: the default kit, or a variant's.

    \b
    Example:
      kitgen preview growing-discard --dpi 72
      kitgen preview growing-discard trash -v
      kitgen preview --all --paper letter
    """
    chosen = typed(given)

    def run() -> None:
        from kitgen.app.preview import write_previews  # PDFium, only for this command

        level = verbosity(quiet, verbose)
        library = Library.open(content_dir)
        ids = chosen_ids(library, activity_ids, preview_all)
        asked = request(library, chosen, incremental=True)
        for activity_id in ids:
            for result in _built(library, asked, activity_id):
                if level >= 0:
                    click.echo(f"previewing {result.folder} ({'as built' if result.skipped else 'built now'})")
                pictures = write_previews(result, dpi)
                if level > 0:
                    for png in pictures:
                        click.echo(f"wrote {png}")
                elif level == 0:
                    click.echo(f"wrote {len(pictures)} picture{'s' if len(pictures) != 1 else ''} in "
                               f"{result.folder / 'preview'}")

    guarded(run, debug)

"""The command line: a thin Click layer over kitgen's library API.

Exit codes: 0 ok, 1 a build or check failed, 2 bad usage or invalid content.
"""
from __future__ import annotations

import re
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import click

from kitgen import __version__
from kitgen.core.errors import ContentError, describe_os_error, KitgenError, UnprintableContent, UsageError
from kitgen.plan.options import CUT_LINES, DUPLEX, FONTS, INK
from kitgen.core.units import PAPER_SIZES


def _describe(error: KitgenError) -> str:
    """A kitgen error as the user should see it: located content errors as they are, others prefixed."""
    if isinstance(error, (ContentError, UnprintableContent)):  # already `file:line:column: ...`
        return str(error)
    return f"error: {error}"


def _fail(error: BaseException, debug: bool) -> None:
    """Print the error as the user should see it (no traceback unless --debug) and exit."""
    if debug:
        raise error
    if isinstance(error, KitgenError):
        click.echo(_describe(error), err=True)
    elif isinstance(error, KeyboardInterrupt):
        click.echo("interrupted; every output file is either complete or as it was before", err=True)
        sys.exit(130)
    elif isinstance(error, OSError):  # the file system refused: not a bug in kitgen, nothing to debug there
        click.echo(f"error: {describe_os_error(error)}", err=True)
    else:
        click.echo(f"internal error: {type(error).__name__}: {error} (run with --debug for the traceback)", err=True)
    sys.exit(getattr(error, "exit_code", 1))


def _guarded(action: Callable[[], None], debug: bool) -> None:
    try:
        action()
    except (Exception, KeyboardInterrupt) as error:
        _fail(error, debug)


content_option = click.option(
    "--content", "content_dir", type=click.Path(file_okay=False, path_type=Path),
    help="Library folder to read activities from (default: $KITGEN_CONTENT, ./content, else the built-in library).")
out_option = click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
                          default=Path("output"), show_default=True, help="Folder to write kits into.")
debug_option = click.option("--debug", is_flag=True, help="Show the Python traceback of an error.")


def _completion_library(ctx):
    from kitgen.load.library import Library

    try:
        return Library.open(ctx.params.get("content_dir"))
    except Exception:  # completion never fails loudly
        return None


def _complete_ids(ctx, param, incomplete: str) -> list:
    """Shell completion of activity ids from the library (--content when already typed)."""
    library = _completion_library(ctx)
    return [click.shell_completion.CompletionItem(activity_id) for activity_id in
            (library.activity_files() if library else []) if activity_id.startswith(incomplete)]


def _complete_languages(ctx, param, incomplete: str) -> list:
    """The language editions of the activities typed so far (of the whole library when none is)."""
    from kitgen.load.editions import editions

    library = _completion_library(ctx)
    if library is None:
        return []
    files = library.activity_files()
    typed = ctx.params.get("activity_ids") or [ctx.params.get("activity_id")]
    chosen = [files[i] for i in typed if i in files] or list(files.values())
    languages = set()
    for path in chosen:
        try:
            languages.update(editions(path))
        except Exception:
            continue
    return [click.shell_completion.CompletionItem(lang) for lang in sorted(languages) if lang.startswith(incomplete)]


def _complete_printers(ctx, param, incomplete: str) -> list:
    from kitgen.app.printers import load_printers

    try:
        names = sorted(load_printers())
    except Exception:
        names = []
    return [click.shell_completion.CompletionItem(name) for name in names if name.startswith(incomplete)]


def _chosen_ids(library, activity_ids: tuple[str, ...], use_all: bool) -> list[str]:
    """The activities a command works on: the ids given (each known, else "did you mean"), or the library's."""
    if bool(activity_ids) == use_all:
        raise UsageError("name one or more activities, or use --all (see kitgen list)")
    ids = list(library.activity_files()) if use_all else list(activity_ids)
    _known_ids(library, ids)
    return ids


def _known_ids(library, activity_ids) -> None:
    """An unknown activity id ends the command before anything is done, naming the closest known id."""
    import difflib

    known = list(library.activity_files())
    for activity_id in activity_ids:
        if activity_id not in known:
            close = difflib.get_close_matches(activity_id, known, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise UsageError(f"no activity {activity_id!r} in {library.content}; {hint}"
                             f"available: {', '.join(known) or '(none)'}")


def print_options(command):
    """The printing choices shared by build and preview."""
    for option in reversed([
        click.option("--duplex", type=click.Choice(DUPLEX),
                     help="Backs for a long- or short-edge flip, or no backs (default: the activity's, else long)."),
        click.option("--fold/--no-fold", default=None,
                     help="Gutter fold: faces and backs on one side of the sheet (default: the activity's, else no)."),
        click.option("--bleed", "bleed_mm", type=click.FloatRange(0, 10), metavar="MM",
                     help="Card art extends this far past the cut line."),
        click.option("--cut-lines", type=click.Choice(CUT_LINES),
                     help="Crop marks in the margin, thin lines round every card, or both."),
        click.option("--margin", "margin_mm", type=click.FloatRange(0, 20), metavar="MM", expose_value=False,
                     callback=lambda ctx, _param, value: ctx.meta.__setitem__("kitgen.margin_mm", value),
                     help="Print no closer than this to the paper's edge (default 5; a printer that prints closer "
                          "may fit more, e.g. --margin 2 puts crop marks above and below 9 cards on Letter)."),
        click.option("--print-shop", is_flag=True, expose_value=False,
                     callback=lambda ctx, _param, value: ctx.meta.__setitem__("kitgen.print_shop", value),
                     help="One card per page with bleed (3 mm unless --bleed), each face followed by its back, "
                          "trim box set: the file print-on-demand services ask for."),
        click.option("--cutter", type=click.Choice(["silhouette", "cricut"]), expose_value=False,
                     callback=lambda ctx, _param, value: ctx.meta.__setitem__("kitgen.cutter", value),
                     help="Print-then-cut: silhouette, registration marks on the card sheets and an SVG cut file "
                          "of the card outlines beside each card file; cricut, the card faces as PNG pictures of "
                          "at most 6.75 × 9.25 in (300 dpi), each with an SVG of its card outlines."),
        click.option("--corners", "corner_mm", type=click.FloatRange(0, 10), metavar="MM", expose_value=False,
                     callback=lambda ctx, _param, value: ctx.meta.__setitem__("kitgen.corner_mm", value),
                     help="Round the cards' corners by this radius (cut lines and cut files follow)."),
        click.option("--back-offset", metavar="X,Y", help="Shift back pages by X,Y mm (measure with kitgen calibrate)."),
        click.option("--printer", metavar="NAME", shell_complete=_complete_printers,
                     help="Use a saved printer profile's back offset."),
        click.option("--ink", type=click.Choice(INK), default="normal", show_default=True,
                     help="light: outlines only, no filled areas."),
        click.option("--large-print", is_flag=True, help="Sheets at 14 pt or more; card text as large as fits."),
        click.option("--font", type=click.Choice(FONTS), expose_value=False,
                     callback=lambda ctx, _param, value: ctx.meta.__setitem__("kitgen.font", value),
                     help="legible: Atkinson Hyperlegible for every text (default: the activity's font, else "
                          "standard, DejaVu Sans)."),
    ]):
        command = option(command)
    return command


def _print_choices(duplex, fold, bleed_mm, cut_lines, back_offset, printer, ink, large_print) -> dict:
    from kitgen.app.printers import parse_offset, printer_offset

    if back_offset and printer:
        raise UsageError("give --back-offset or --printer, not both")
    offset = parse_offset(back_offset) if back_offset else printer_offset(printer) if printer else (0.0, 0.0)
    return {"duplex": duplex, "fold": fold, "bleed_mm": bleed_mm, "cut_lines": cut_lines,
            "back_offset_mm": offset, "ink": ink, "large_print": large_print,
            "margin_mm": click.get_current_context().meta.get("kitgen.margin_mm"),
            "print_shop": bool(click.get_current_context().meta.get("kitgen.print_shop")),
            "cutter": click.get_current_context().meta.get("kitgen.cutter"),
            "corner_mm": click.get_current_context().meta.get("kitgen.corner_mm") or 0.0,
            "font": click.get_current_context().meta.get("kitgen.font")}


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kitgen")
def main() -> None:
    """Turn YAML classroom card activities into print-ready PDF kits.

    \b
    Examples:
      kitgen build growing-discard
      kitgen build --all
      kitgen list
    """


@main.command()
@click.argument("activity_ids", nargs=-1, shell_complete=_complete_ids)
@click.option("--all", "build_all", is_flag=True, help="Build every activity in the library, in parallel.")
@click.option("--paper", type=click.Choice(list(PAPER_SIZES), case_sensitive=False), default="a4",
              show_default=True, help="Paper size of every file.")
@click.option("--card-size", metavar="SIZE", help="poker, bridge, mini, tarot or WxH such as 63x88mm.")
@click.option("--lang", "language", metavar="LANG", shell_complete=_complete_languages,
              help="Build only this language edition (default: all).")
@click.option("--class-size", type=click.IntRange(1, 500), help="Students to equip: prints enough numbered kits.")
@click.option("--kits", type=click.IntRange(1, 60), default=1, show_default=True, help="Numbered kits to print.")
@click.option("--force", is_flag=True, help="Rebuild even when nothing changed.")
@click.option("--jobs", type=click.IntRange(1, 64), help="Parallel builds for --all (default: CPU cores).")
@click.option("--quiet", "-q", is_flag=True, help="Print only errors and the summary.")
@click.option("--verbose", "-v", is_flag=True, help="Say more: every file written, every quality note.")
@click.option("--watch", is_flag=True, help="Stay running and rebuild whenever a content file or template changes.")
@click.option("--png", "png_dpi", type=click.IntRange(36, 1200), metavar="DPI",
              help="Also a PNG of every card face, back and slip at DPI (e.g. 300), in the kit's png/ folder.")
@print_options
@content_option
@out_option
@debug_option
def build(activity_ids: tuple[str, ...], build_all: bool, paper: str, card_size: str | None, language: str | None,
          class_size: int | None, kits: int, force: bool, jobs: int | None, quiet: bool, watch: bool,
          png_dpi: int | None, duplex, fold,
          bleed_mm, cut_lines, back_offset, printer, ink, large_print, content_dir: Path | None, out_dir: Path,
          debug: bool, verbose: bool = False) -> None:
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
    from kitgen.plan.options import BuildOptions

    def run() -> None:
        from kitgen.load.library import Library

        if bool(activity_ids) == build_all:
            raise UsageError("name one or more activities, or use --all (see kitgen list)")
        if language is not None and not re.fullmatch(r"[a-z]{2}", language):
            raise UsageError(f"--lang takes a two-letter language code such as en or ro, got {language!r}")
        level = _verbosity(quiet, verbose)
        library = Library.open(content_dir)
        _known_ids(library, activity_ids)
        chosen = _with_settings(library, paper=paper, card_size=card_size, class_size=class_size, language=language,
                                printer=printer, out_dir=out_dir, back_offset=back_offset)
        options = BuildOptions(paper=chosen["paper"].lower(), card_size=chosen["card_size"], out_dir=chosen["out_dir"],
                               incremental=not force, kits=kits, class_size=chosen["class_size"], png_dpi=png_dpi,
                               **_print_choices(duplex, fold, bleed_mm, cut_lines, back_offset, chosen["printer"], ink,
                                                large_print)).placed()  # not the default: out/variants/<name>/

        def build_once() -> int:
            code = _build_all(library, options, jobs, level) if build_all else 0
            if not build_all:
                _build_some(library, options, activity_ids, chosen["language"], level)
            _kits_page(chosen["out_dir"], quiet)
            return code

        if watch:
            _watch(library, chosen["out_dir"], build_once)
        else:
            code = build_once()
            if code:
                sys.exit(code)  # some kits failed (2: their content is invalid); the others were built

    _guarded(run, debug)


def _cell(text: str, width: int = 48) -> str:
    """One table cell on one line, at most `width` characters (a long title is cut with '…')."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 1] + "…"


def _kits_page(out_dir: Path, quiet: bool) -> None:
    """The list of every kit in the output folder, each variant with its paper and class size, after every build
    that succeeded, once a build with other options than the defaults has been made there."""
    from kitgen.app.index import KITS_PAGE, write_kits_page
    from kitgen.plan.options import VARIANTS

    if (out_dir / VARIANTS).is_dir() or (out_dir / KITS_PAGE).is_file():  # once there is more than one variant
        try:
            page = write_kits_page(out_dir)
        except OSError as error:
            click.echo(f"error: {describe_os_error(error)}", err=True)
            return
        if not quiet:
            click.echo(f"every kit built: {page}")


def _watch(library, out_dir: Path, build_once: Callable[[], int]) -> None:
    """Build, then rebuild after every change until Ctrl-C; a content error is shown and waited out.

    A usage error in the first build (an unknown activity, a bad option) ends the command, as without --watch;
    later (an activity file removed while watching) it is shown and waited out like the others.
    """
    from kitgen.locale import library_locale
    from kitgen.app.watch import watch

    def rebuild(files: list[str]) -> None:
        if files:
            shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
            click.echo(f"changed: {shown}", err=True)
        try:
            build_once()
        except KitgenError as error:
            if isinstance(error, UsageError) and not files:
                raise
            click.echo(_describe(error), err=True)
        if not files:
            click.echo(f"watching {library.content} and the templates; Ctrl-C stops", err=True)

    with _stopping_like_ctrl_c():
        try:
            watch(lambda: [library.content, *library.template_dirs(), *library_locale(library.content)], rebuild,
                  skip=[out_dir])
        except KeyboardInterrupt:
            click.echo("stopped watching; every output file is either complete or as it was before", err=True)


@contextmanager
def _stopping_like_ctrl_c():
    """`kill` (SIGTERM) and a closed terminal (SIGHUP) stop a long-running command as Ctrl-C does: cleanly."""
    import signal

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    names = [name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {name: signal.signal(getattr(signal, name), interrupt) for name in names}
    try:
        yield
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


_SETTING_OF = {"paper": "paper", "card_size": "card_size", "class_size": "class_size", "language": "languages",
               "printer": "printer", "out_dir": "output"}


def _with_settings(library, **given) -> dict:
    """The options' values: as typed on the command line, else from the library's kitgen.toml, else the option's
    own default. `language` may become a list (the settings' languages); a typed --back-offset leaves the settings'
    printer aside."""
    from click.core import ParameterSource

    from kitgen.app.settings import load_settings

    ctx = click.get_current_context()
    settings = load_settings(library.content)
    chosen = dict(given)
    for name, key in _SETTING_OF.items():
        if name not in given or key not in settings:
            continue
        if ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT):
            continue  # typed (or from the environment): the command line wins
        if name == "printer" and given.get("back_offset"):
            continue
        chosen[name] = settings[key]
    return chosen


def _languages(library, activity_id: str, language) -> list[str] | None:
    """The editions to build or check: --lang's one; the settings' languages this activity has (every edition when
    it has none of them); None for every edition."""
    from kitgen.load.editions import editions

    if language is None or isinstance(language, str):
        return [language] if language else None
    return [lang for lang in editions(library.find(activity_id)) if lang in language] or None


def _verbosity(quiet: bool, verbose: bool) -> int:
    """-1 with --quiet, 1 with --verbose, else 0."""
    if quiet and verbose:
        raise UsageError("give -q/--quiet or -v/--verbose, not both")
    return -1 if quiet else 1 if verbose else 0


def _build_some(library, options, activity_ids, language, level: int) -> None:
    from kitgen.app.build import build as build_kit, build_all_editions

    quiet = level < 0

    for activity_id in activity_ids:
        languages = _languages(library, activity_id, language)
        results = ([build_kit(activity_id, options, library, lang) for lang in languages] if languages
                   else build_all_editions(activity_id, options, library))
        for result in results:
            if result.skipped:
                click.echo(f"{result.folder}: up to date (use --force to rebuild)")
                continue
            if not quiet:
                for file in result.files:
                    click.echo(f"wrote {file.path}  ({file.pages} page{'s' if file.pages != 1 else ''})")
                if result.pictures:
                    click.echo(f"wrote {len(result.pictures)} card pictures in {result.pictures[0].parent}/  "
                               f"({options.png_dpi} dpi)")
                    if level > 0:
                        for picture in result.pictures:
                            click.echo(f"wrote {picture}")
            _quality_report([result], level)


def _quality_report(results, level: int) -> None:
    """Shrunk text and grayscale problems (missing glyphs are errors and never get this far): a summary line with
    the count, each kit's full list in its folder's quality.txt, and the notes themselves when there are few
    (none with --quiet)."""
    from kitgen.app.report import report, SHOWN

    for line in report(results, show=0 if level < 0 else SHOWN if level == 0 else sys.maxsize):
        click.echo(line)


def _build_all(library, options, jobs: int | None, level: int) -> int:
    """Build the library; 2 when some activities' content is invalid, 1 when some kits failed otherwise (the
    others were built), else 0."""
    from kitgen.app.batch import build_library
    from kitgen.app.report import summary_table
    from kitgen.app.index import write_index

    from kitgen.app.batch import kit_sizes

    quiet = level < 0
    show_bar = _progress_shown(quiet)
    sizes = kit_sizes(library, options) if show_bar else {}  # pages: the estimate follows the kits' sizes
    building: list[str] = []  # the editions being built now, named in the bar
    begun: set[str] = set()
    with click.progressbar(length=sum(sizes.values()), label="kits", file=sys.stderr,
                           item_show_func=lambda item: f"building {item}" if item else "") \
            if show_bar else _NoBar() as bar:
        def start(activity_id: str, language: str | None) -> None:
            begun.add(activity_id)
            building.append(f"{activity_id} ({language})" if language else activity_id)
            bar.update(0, current_item=", ".join(building))

        def done(report) -> None:
            building[:] = [name for name in building if name.split(" (")[0] != report.activity_id]
            if report.activity_id in begun:
                bar.update(sizes.get(report.activity_id, 0), current_item=", ".join(building))
            else:  # up to date (or refused) without building: it leaves the estimate
                bar.length -= sizes.get(report.activity_id, 0)
            if not show_bar and not quiet:
                click.echo(f"{report.activity_id}: {report.status}", err=True)

        reports = build_library(library, options, jobs=jobs, on_done=done, on_start=start)
    for report in reports:
        if report.error:
            click.echo(report.error, err=True)
    try:
        index = write_index(library, reports, options.out_dir)
    except (KitgenError, OSError) as error:  # the summary still says what was built
        click.echo(_describe(error) if isinstance(error, KitgenError) else f"error: {describe_os_error(error)}",
                   err=True)
        index = None
    if level > 0:  # every file written, as a single-kit build lists them
        for result in (result for report in reports for result in report.results if not result.skipped):
            for file in result.files:
                click.echo(f"wrote {file.path}  ({file.pages} page{'s' if file.pages != 1 else ''})")
    click.echo(summary_table(reports))
    _quality_report([result for report in reports for result in report.results], level)
    if index:
        click.echo(f"library index: {index[0]} and {index[1]}")
    if index is None:
        return 1
    return max([report.exit_code or 1 for report in reports if report.error], default=0)  # 2: invalid content


def _progress_shown(quiet: bool) -> bool:
    """The progress bar of build --all is drawn on a terminal, unless --quiet."""
    return sys.stderr.isatty() and not quiet


class _NoBar:
    length = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def update(self, n: int, current_item=None) -> None:
        return None


@main.command()
@click.argument("activity_ids", nargs=-1, shell_complete=_complete_ids)
@click.option("--all", "check_all", is_flag=True, help="Check every activity in the library.")
@click.option("--lang", "language", metavar="LANG", shell_complete=_complete_languages,
              help="Check only this language edition (default: all).")
@click.option("--quiet", "-q", is_flag=True, help="Print only the problems.")
@click.option("--verbose", "-v", is_flag=True, help="Say more: the file, editions and cards checked.")
@content_option
@debug_option
def check(activity_ids: tuple[str, ...], check_all: bool, language: str | None, content_dir: Path | None,
          debug: bool, quiet: bool = False, verbose: bool = False) -> None:
    """Validate an activity (every edition) and run its content checks, without rendering.

    \b
    Examples:
      kitgen check growing-discard
      kitgen check growing-discard trash
      kitgen check --all
    """
    def run() -> None:
        from kitgen.app.build import check as check_activity
        from kitgen.load.library import Library

        level = _verbosity(quiet, verbose)
        library = Library.open(content_dir)
        ids = _chosen_ids(library, activity_ids, check_all)
        chosen = _with_settings(library, language=language)
        failed: list[str] = []
        for one in ids:
            try:
                languages = _languages(library, one, chosen["language"])
                for lang in languages or [None]:
                    check_activity(one, library, lang)
                if level > 0:
                    click.echo(f"{one}: ok ({_checked(library.find(one), languages)})")
                elif level == 0:
                    click.echo(f"{one}: ok")
            except ContentError as error:
                click.echo(str(error), err=True)
                failed.append(one)
        if failed:
            sys.exit(2)

    _guarded(run, debug)


def _checked(path: Path, languages: list[str] | None) -> str:
    """What `check -v` says was checked: the file, its editions and its cards."""
    from kitgen.load import load_activity
    from kitgen.load.editions import editions

    languages = languages or list(editions(path))
    activity = load_activity(path).activity
    cards = sum(card.count for deck in activity.decks for card in deck.cards)
    return (f"{path}; edition{'s' if len(languages) != 1 else ''} {', '.join(languages)}; "
            f"{cards} card{'s' if cards != 1 else ''} in {len(activity.decks)} deck{'s' if len(activity.decks) != 1 else ''}")


@main.command(name="list")
@click.argument("activity_ids", nargs=-1, shell_complete=_complete_ids)
@click.option("--all", "list_all", is_flag=True, help="Every activity (the default when no id is given).")
@click.option("--quiet", "-q", is_flag=True, help="Only the ids, one a line.")
@click.option("--verbose", "-v", is_flag=True, help="Also the file each activity is read from.")
@content_option
@debug_option
def list_activities(content_dir: Path | None, debug: bool, activity_ids: tuple[str, ...] = (),
                    list_all: bool = False, quiet: bool = False, verbose: bool = False) -> None:
    """A table of the library: id, title, players, time and language editions.

    \b
    Example:
      kitgen list --content ~/school-library/content
    """
    def run() -> None:
        from kitgen.load.library import refuse_outside
        from kitgen.load.editions import editions
        from kitgen.load.library import Library
        from kitgen.load import load_activity

        library = Library.open(content_dir)
        if activity_ids and list_all:
            raise UsageError("name activities, or use --all, not both")
        _known_ids(library, activity_ids)
        level = _verbosity(quiet, verbose)
        rows = [("id", "title", "players", "minutes", "editions")]
        sources = ["file"]
        for activity_id, path in library.activity_files().items():
            if activity_ids and activity_id not in activity_ids:
                continue
            if level < 0:
                click.echo(activity_id)
                continue
            sources.append(str(path))
            try:
                refuse_outside(library, path)
                activity = load_activity(path).activity
                rows.append((activity_id, activity.title, str(activity.players), str(activity.minutes),
                             ", ".join(editions(path))))
            except ContentError:
                rows.append((activity_id, "(invalid: kitgen check shows why)", "", "", ""))
            except UsageError:
                rows.append((activity_id, "(refused: kitgen check shows why)", "", "", ""))
        if level < 0:
            return
        rows = [tuple(_cell(cell) for cell in row) for row in rows]
        if level > 0:  # the path is the last column, never cut
            rows = [(*row, source) for row, source in zip(rows, sources)]
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())

    _guarded(run, debug)


@main.command()
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the schema (default: schema/activity.schema.json beside the content folder).")
@content_option
@debug_option
def schema(output: Path | None, content_dir: Path | None, debug: bool) -> None:
    """Write the JSON Schema of the content format, for editors that check YAML as you type.

    \b
    Example:
      kitgen schema -o schema/activity.schema.json
      kitgen schema -o - | jq .title
    """
    def run() -> None:
        from kitgen.load.library import own_content_dir
        from kitgen.app.schema import write_schema

        if output is not None and str(output) == "-":
            from kitgen.app.schema import schema_text

            click.echo(schema_text(), nl=False)
            return
        target = output or own_content_dir(content_dir).parent / "schema" / "activity.schema.json"
        write_schema(target)
        click.echo(f"wrote {target}")

    _guarded(run, debug)


@main.command()
@click.argument("activity_id")
@click.option("--from", "table", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A CSV, XLSX or ODS file whose rows become the cards (copied into the new activity's folder).")
@click.option("--folder", "as_folder", is_flag=True,
              help="Start a folder, <content>/<id>/activity.yaml, for language editions and templates of its own.")
@content_option
@debug_option
def new(activity_id: str, table: Path | None, content_dir: Path | None, debug: bool, as_folder: bool = False) -> None:
    """Start a new activity from a commented example that builds at once.

    \b
    Examples:
      kitgen new my-card-game && kitgen build my-card-game
      kitgen new animal-sort --from animals.csv
      kitgen new my-card-game --folder
    """
    def run() -> None:
        from kitgen.load.library import builtin_root, own_content_dir
        from kitgen.app.scaffold import scaffold

        folder = own_content_dir(content_dir)
        started = not folder.is_dir()
        path = scaffold(folder, activity_id, table)
        if as_folder and path.name != "activity.yaml":
            target = folder / activity_id / "activity.yaml"
            target.parent.mkdir()
            path.replace(target)
            path = target
        if path.name == "activity.yaml":  # a folder deeper: the editor's schema modeline points two folders up
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace("$schema=../schema/", "$schema=../../schema/", 1), encoding="utf-8")
        click.echo(f"wrote {path}; build it with: kitgen build {activity_id}")
        schema_file = folder.parent / "schema" / "activity.schema.json"  # where the modeline points
        if not schema_file.exists():
            from kitgen.app.schema import write_schema

            write_schema(schema_file)
            click.echo(f"wrote {schema_file} (editors check the YAML against it as you type)")
        if started:
            from kitgen.app.settings import settings_file, template
            from kitgen.core.atomic import write_atomic

            settings = settings_file(folder)
            if not settings.exists():
                write_atomic(settings, template().encode("utf-8"))
                click.echo(f"wrote {settings} (this library's settings: paper, card size, class size, ...; every "
                           f"key commented)")
        if started and content_dir is None:
            click.echo(f"started your own library in {folder}/: from this folder kitgen now reads activities there "
                       f"(the built-in ones: --content {builtin_root() / 'content'})")

    _guarded(run, debug)


@main.command()
@click.argument("activity_ids", nargs=-1, shell_complete=_complete_ids)
@click.option("--all", "preview_all", is_flag=True, help="Preview every activity in the library.")
@click.option("--quiet", "-q", is_flag=True, help="Print only errors.")
@click.option("--verbose", "-v", is_flag=True, help="Say more: every picture written.")
@click.option("--paper", type=click.Choice(list(PAPER_SIZES), case_sensitive=False), default="a4", show_default=True)
@click.option("--dpi", type=click.IntRange(20, 300), default=50, show_default=True, help="Resolution of the PNGs.")
@click.option("--card-size", metavar="SIZE", help="As for build: poker, bridge, mini, tarot or WxH such as 63x88mm.")
@click.option("--class-size", type=click.IntRange(1, 500), help="As for build: the kits of a class.")
@click.option("--kits", type=click.IntRange(1, 60), default=1, show_default=True, help="As for build.")
@print_options
@content_option
@out_option
@debug_option
@click.option("--lang", "language", metavar="LANG", help="Preview only this language edition (default: all).")
def preview(activity_ids: tuple[str, ...], paper: str, dpi: int, duplex, fold, bleed_mm, cut_lines, back_offset,
            printer, ink, large_print, content_dir: Path | None, out_dir: Path, debug: bool,
            language: str | None = None, card_size: str | None = None, class_size: int | None = None, kits: int = 1,
            preview_all: bool = False, quiet: bool = False, verbose: bool = False) -> None:
    """Write a PNG of every page next to the PDFs of the kit built with these options (built first if needed).

    Takes build's options, and previews the kit that build wrote with them: the default kit, or a variant's.

    \b
    Example:
      kitgen preview growing-discard --dpi 72
      kitgen preview growing-discard trash -v
      kitgen preview --all --paper letter
    """
    def run() -> None:
        from kitgen.app.build import build_all_editions, BuildOptions
        from kitgen.load.library import Library
        from kitgen.app.preview import write_previews
        from kitgen.app.build import build as build_kit

        level = _verbosity(quiet, verbose)
        library = Library.open(content_dir)
        ids = _chosen_ids(library, activity_ids, preview_all)
        chosen = _with_settings(library, paper=paper, card_size=card_size, class_size=class_size, language=language,
                                printer=printer, out_dir=out_dir, back_offset=back_offset)
        options = BuildOptions(paper=chosen["paper"].lower(), out_dir=chosen["out_dir"], incremental=True,
                               card_size=chosen["card_size"], class_size=chosen["class_size"], kits=kits,
                               **_print_choices(duplex, fold, bleed_mm, cut_lines, back_offset, chosen["printer"], ink,
                                                large_print)).placed()
        for activity_id in ids:
            languages = _languages(library, activity_id, chosen["language"])
            results = ([build_kit(activity_id, options, library, lang) for lang in languages] if languages
                       else build_all_editions(activity_id, options, library))
            for result in results:
                if level >= 0:
                    click.echo(f"previewing {result.folder} ({'as built' if result.skipped else 'built now'})")
                pictures = write_previews(result, dpi)
                if level > 0:
                    for png in pictures:
                        click.echo(f"wrote {png}")
                elif level == 0:
                    click.echo(f"wrote {len(pictures)} picture{'s' if len(pictures) != 1 else ''} in "
                               f"{result.folder / 'preview'}")

    _guarded(run, debug)


@main.command()
@click.argument("activity_id", required=False, shell_complete=_complete_ids)
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0: a free one).")
@click.option("--paper", type=click.Choice(list(PAPER_SIZES), case_sensitive=False), help="Paper shown first.")
@click.option("--card-size", metavar="SIZE", help="Card size shown first (default: the activity's).")
@click.option("--class-size", type=click.IntRange(1, 500), help="Class size shown first.")
@click.option("--lang", "language", metavar="LANG", help="Language edition shown first.")
@click.option("--printer", metavar="NAME", help="Printer profile shown first.")
@content_option
@debug_option
def serve(activity_id: str | None, port: int, paper: str | None, card_size: str | None, class_size: int | None,
          language: str | None, printer: str | None, content_dir: Path | None, debug: bool) -> None:
    """Show the library in your browser: every page of each kit, refreshed by itself after each save.

    Listens on 127.0.0.1 only; nothing is written (the PDFs download from the page). The options can be
    switched in the page too. Ctrl-C stops.

    \b
    Examples:
      kitgen serve
      kitgen serve growing-discard --paper letter
    """
    def run() -> None:
        import time
        import urllib.parse

        from kitgen.load.library import Library
        from kitgen.app.serve import KitServer, start, stop

        library = Library.open(content_dir)
        if activity_id:
            _known_ids(library, [activity_id])  # an unknown id ends the command, as in build
        chosen = _with_settings(library, paper=paper, card_size=card_size, class_size=class_size, language=language,
                                printer=printer)  # the library's kitgen.toml, as in build; typed options win
        languages = chosen["language"] if isinstance(chosen["language"], list) else None
        defaults = {"paper": chosen["paper"].lower() if chosen["paper"] else None, "card_size": chosen["card_size"],
                    "lang": None if languages else chosen["language"], "printer": chosen["printer"],
                    "class_size": str(chosen["class_size"]) if chosen["class_size"] else None}
        kits = KitServer(library, defaults, log=lambda line: click.echo(line, err=True), languages=languages)
        server, watching = start(kits, port, first=activity_id)  # watching, then the kit rendered
        address = f"http://127.0.0.1:{server.server_address[1]}/"
        if activity_id:
            address += f"kit/{urllib.parse.quote(activity_id)}{kits._query_string(kits.defaults)}"
        click.echo(f"serving {address}  (Ctrl-C stops)", err=True)
        with _stopping_like_ctrl_c():
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                stop(server, watching)
                click.echo("stopped serving", err=True)

    _guarded(run, debug)


@main.command()
@click.argument("language")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write it (default: locale/LANG.po beside the content folder, where builds look).")
@content_option
@debug_option
def translate(language: str, output: Path | None, content_dir: Path | None, debug: bool) -> None:
    """Write a catalog to fill in for LANGUAGE: every fixed string kitgen prints, with its English text.

    \b
    Example:
      kitgen translate nl   # then fill in locale/nl.po and build an activity.nl.yaml edition
    """
    def run() -> None:
        from kitgen.load.library import own_content_dir
        from kitgen.locale import catalog_template
        from kitgen.core.atomic import write_atomic

        if not re.fullmatch(r"[a-z]{2}", language):
            raise UsageError(f"expected a two-letter language code such as nl or pt, got {language!r}")
        target = output or own_content_dir(content_dir).parent / "locale" / f"{language}.po"
        if target.exists():
            raise UsageError(f"{target} already exists; edit it, or remove it to start again")
        write_atomic(target, catalog_template(language))
        click.echo(f"wrote {target}: fill in each msgstr; an empty one is printed in English")

    _guarded(run, debug)


@main.command()
@click.option("--paper", type=click.Choice(list(PAPER_SIZES), case_sensitive=False), default="a4", show_default=True)
@click.option("--duplex", type=click.Choice(["long", "short"]), default="long", show_default=True)
@out_option
@debug_option
def calibrate(paper: str, duplex: str, out_dir: Path, debug: bool) -> None:
    """Write a duplex alignment test page: print it two-sided to measure how far your printer shifts the back.

    \b
    Example:
      kitgen calibrate --paper a4 && kitgen printer add room12 --back-offset 1.5,-0.8
    """
    def run() -> None:
        from kitgen.app.calibrate import calibration_pdf
        from kitgen.core.units import parse_paper
        from kitgen.core.atomic import write_atomic

        target = out_dir / f"calibration-{paper.lower()}-{duplex}.pdf"
        write_atomic(target, calibration_pdf(parse_paper(paper), duplex))
        click.echo(f"wrote {target}  (2 pages: print two-sided at 100%, flip on the {duplex} edge)")

    _guarded(run, debug)


@main.command()
@click.option("--open", "open_it", is_flag=True, help="Open the guide in the default viewer.")
@debug_option
def docs(open_it: bool, debug: bool) -> None:
    """Print where the authoring guide is (every content field, with examples); --open opens it.

    \b
    Example:
      kitgen docs --open
    """
    def run() -> None:
        from kitgen.load.library import builtin_root

        guide = builtin_root() / "docs" / "authoring.md"
        if not guide.is_file():
            raise UsageError(f"the authoring guide is missing from this installation ({guide})")
        click.echo(str(guide))
        if open_it:
            click.launch(str(guide))

    _guarded(run, debug)


@main.group()
def printer() -> None:
    """Saved printer profiles (the measured back offset), used with --printer NAME.

    \b
    Example:
      kitgen printer add room12 --back-offset 1.5,-0.8
    """


@printer.command(name="add")
@click.argument("name")
@click.option("--back-offset", required=True, metavar="X,Y", help="What kitgen calibrate's back page showed, in mm.")
@debug_option
def printer_add(name: str, back_offset: str, debug: bool) -> None:
    """Save (or replace) a printer profile.

    \b
    Example:
      kitgen printer add room12 --back-offset 1.5,-0.8
    """
    def run() -> None:
        from kitgen.app.printers import parse_offset, save_printer

        path = save_printer(name, parse_offset(back_offset))
        click.echo(f"saved printer {name!r} in {path}")

    _guarded(run, debug)


@printer.command(name="list")
@debug_option
def printer_list(debug: bool) -> None:
    """Show the saved printer profiles.

    \b
    Example:
      kitgen printer list
    """
    def run() -> None:
        from kitgen.app.printers import config_file, load_printers

        printers = load_printers()
        if not printers:
            click.echo(f"no printer profiles yet ({config_file()})")
        for name, profile in sorted(printers.items()):
            x, y = profile["back_offset_mm"]
            click.echo(f"{name}: back offset {x:+g} mm, {y:+g} mm")

    _guarded(run, debug)

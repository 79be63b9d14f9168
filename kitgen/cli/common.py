"""What every command shares: the `kitgen` group, how an error is shown and its exit code, the common options,
shell completion, and the build options' flags made from their one declaration (`kitgen.plan.options`)."""
from __future__ import annotations

import signal
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

import click
from click.core import ParameterSource

from kitgen import __version__
from kitgen.app.printers import load_printers
from kitgen.core.errors import ContentError, describe_os_error, KitgenError, UnprintableContent, UsageError
from kitgen.load.editions import editions
from kitgen.load.library import Library
from kitgen.plan.options import LANGUAGE, Option, OPTION_NAMED, PRINTER

F = TypeVar("F", bound=Callable[..., Any])


def describe(error: KitgenError) -> str:
    """A kitgen error as the user should see it: located content errors as they are, others prefixed."""
    if isinstance(error, (ContentError, UnprintableContent)):  # already `file:line:column: ...`
        return str(error)
    return f"error: {error}"


def fail(error: BaseException, debug: bool) -> None:
    """Print the error as the user should see it (no traceback unless --debug) and exit."""
    if debug:
        raise error
    if isinstance(error, KitgenError):
        click.echo(describe(error), err=True)
    elif isinstance(error, KeyboardInterrupt):
        click.echo("interrupted; every output file is either complete or as it was before", err=True)
        sys.exit(130)
    elif isinstance(error, OSError):  # the file system refused: not a bug in kitgen, nothing to debug there
        click.echo(f"error: {describe_os_error(error)}", err=True)
    else:
        click.echo(f"internal error: {type(error).__name__}: {error} (run with --debug for the traceback)", err=True)
    sys.exit(getattr(error, "exit_code", 1))


def guarded(action: Callable[[], None], debug: bool) -> None:
    """Run a command's work; every error ends it as `fail` says."""
    try:
        action()
    except (Exception, KeyboardInterrupt) as error:
        fail(error, debug)


@contextmanager
def stopping_like_ctrl_c() -> Iterator[None]:
    """`kill` (SIGTERM) and a closed terminal (SIGHUP) stop a long-running command as Ctrl-C does: cleanly."""
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    names = [name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {name: signal.signal(getattr(signal, name), interrupt) for name in names}
    try:
        yield
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


def wait_for_ctrl_c(tick: float = 0.5) -> None:
    """Sleep until Ctrl-C (or SIGTERM/SIGHUP under `stopping_like_ctrl_c`) raises KeyboardInterrupt.

    In short sleeps: the kernel may hand a signal to any thread (a watcher's, a server's), which does not wake
    a long sleep in the main thread; Python raises KeyboardInterrupt when the main thread next wakes."""
    while True:
        time.sleep(tick)


def verbosity(quiet: bool, verbose: bool) -> int:
    """-1 with --quiet, 1 with --verbose, else 0."""
    if quiet and verbose:
        raise UsageError("give -q/--quiet or -v/--verbose, not both")
    return -1 if quiet else 1 if verbose else 0


def typed(given: dict[str, Any]) -> dict[str, Any]:
    """The options of `given` that the user typed (or set in the environment): they win over kitgen.toml."""
    ctx = click.get_current_context()
    return {name: value for name, value in given.items()
            if ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)}


def _completion_library(ctx: click.Context) -> Library | None:
    try:
        return Library.open(ctx.params.get("content_dir"))
    except Exception:  # completion never fails loudly
        return None


def complete_ids(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion of activity ids from the library (--content when already typed)."""
    library = _completion_library(ctx)
    return [click.shell_completion.CompletionItem(activity_id) for activity_id in
            (library.activity_files() if library else []) if activity_id.startswith(incomplete)]


def complete_languages(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """The language editions of the activities typed so far (of the whole library when none is)."""
    library = _completion_library(ctx)
    if library is None:
        return []
    files = library.activity_files()
    chosen_ids = ctx.params.get("activity_ids") or [ctx.params.get("activity_id")]
    chosen = [files[i] for i in chosen_ids if i in files] or list(files.values())
    languages: set[str] = set()
    for path in chosen:
        try:
            languages.update(editions(path))
        except Exception:
            continue
    return [click.shell_completion.CompletionItem(lang) for lang in sorted(languages) if lang.startswith(incomplete)]


def complete_printers(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    try:
        names = sorted(load_printers())
    except Exception:
        names = []
    return [click.shell_completion.CompletionItem(name) for name in names if name.startswith(incomplete)]


COMPLETION = {LANGUAGE.name: complete_languages, PRINTER.name: complete_printers}


def flag(one: Option, help: str | None = None) -> Callable[[F], F]:
    """The Click option of a declared option: its flag, type, range, choices, default and help."""
    kwargs: dict[str, Any] = {"help": help or one.help, "metavar": one.metavar}
    if one.kind is bool:
        kwargs.update({"default": None} if "/" in one.flag else {"is_flag": True})
    elif one.choices:
        kwargs["type"] = click.Choice(one.choices, case_sensitive=False)
    elif one.kind is int:
        kwargs["type"] = click.IntRange(_whole(one.low), _whole(one.high))
    elif one.kind is float:
        kwargs["type"] = click.FloatRange(one.low, one.high)
    elif one.kind is Path:
        kwargs["type"] = click.Path(file_okay=False, path_type=Path)
    if one.default is not None and one.kind not in (bool, tuple) and one.default != 0:
        kwargs.update(default=str(one.default) if one.choices else one.default, show_default=True)
    if one.name in COMPLETION:
        kwargs["shell_complete"] = COMPLETION[one.name]
    return click.option(one.flag, one.name, **kwargs)


def _whole(number: float | None) -> int | None:
    return None if number is None else int(number)


def flags(*names: str, **helps: str) -> Callable[[F], F]:
    """The flags of the named options (build options, `language`, `printer`), in that order in --help; `helps`
    replaces an option's help where a command means something else by it (serve: "shown first")."""
    declared = {**OPTION_NAMED, LANGUAGE.name: LANGUAGE, PRINTER.name: PRINTER}

    def decorate(command: F) -> F:
        for name in reversed(names):
            command = flag(declared[name], helps.get(name))(command)
        return command
    return decorate


PRINTING = ("duplex", "fold", "bleed_mm", "cut_lines", "margin_mm", "print_shop", "shop_bleed", "cutter", "corner_mm",
            "back_offset_mm", "printer", "ink", "large_print", "font")  # the printing choices of build and preview

content_option = click.option(
    "--content", "content_dir", type=click.Path(file_okay=False, path_type=Path),
    help="Library folder to read activities from (default: $KITGEN_CONTENT, ./content, else the built-in library).")
debug_option = click.option("--debug", is_flag=True, help="Show the Python traceback of an error.")
quiet_option = click.option("--quiet", "-q", is_flag=True, help="Print only errors and the summary.")


def ids_argument(command: F) -> F:
    return click.argument("activity_ids", nargs=-1, shell_complete=complete_ids)(command)


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

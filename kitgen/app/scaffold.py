"""`kitgen new`: a new activity from a commented example that builds at once (optionally with its cards read
from a spreadsheet)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from kitgen.app.build import check
from kitgen.app.new_cards import mapped_cards
from kitgen.app.schema import write_schema
from kitgen.app.settings import settings_file, template
from kitgen.core.atomic import write_atomic
from kitgen.core.errors import ContentError, display_path, UsageError
from kitgen.load.fields import ID_PATTERN
from kitgen.load.library import builtin_root, Library

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "activity.yaml"
_CARDS = re.compile(r"(?m)^    cards:\n(?:      .*\n|\n)*?(?=^\S)")


def scaffold(content: Path, activity_id: str, table: Path | None = None, sheet: str | None = None) -> Path:
    """Write `<content>/<id>.yaml`, or with `table` a folder `<content>/<id>/` holding `activity.yaml` and a copy
    of the spreadsheet (and of the picture files it names), its columns already mapped; refuse bad ids and never
    overwrite."""
    if not re.fullmatch(ID_PATTERN, activity_id):  # (re.match's `$` accepts a final newline)
        raise UsageError(f"{activity_id!r} is not a valid id: use lower-case letters, digits and '-'")
    if sheet is not None and table is None:
        raise UsageError("--sheet chooses a sheet of the --from workbook; name the workbook with --from")
    content.mkdir(parents=True, exist_ok=True)
    target = content / f"{activity_id}.yaml"
    if target.exists() or (content / activity_id).exists():
        raise UsageError(f"{target if target.exists() else content / activity_id} already exists")
    title = activity_id.replace("-", " ").capitalize()
    text = EXAMPLE.read_text(encoding="utf-8").replace("new-activity", activity_id).replace("New activity", title)
    if table is None:
        write_atomic(target, text.encode("utf-8"))
        return target
    cards, files = mapped_cards(table, sheet)
    text, replaced = _CARDS.subn(cards, text, count=1)
    if not replaced:
        raise UsageError("the example activity has no cards list to replace")  # kitgen's own file changed
    folder = content / activity_id
    folder.mkdir()
    try:
        shutil.copyfile(table, folder / table.name)
        for name in files:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(table.parent / name, folder / name)
        target = folder / "activity.yaml"
        write_atomic(target, text.encode("utf-8"))
        check(activity_id, Library(content))  # the promise: its first build succeeds
    except ContentError as error:
        shutil.rmtree(folder)
        copy = display_path(folder / table.name)  # said of the file the teacher has, the copy being gone
        raise UsageError(f"{table} cannot become cards as it is, so nothing was written:\n"
                         + "\n".join(str(p).replace(copy, str(table)) for p in error.problems[:10])) from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return target


def start_activity(folder: Path, activity_id: str, table: Path | None = None, as_folder: bool = False,
                   library_typed: bool = True, sheet: str | None = None) -> list[str]:
    """`kitgen new`: the activity (as `<id>/activity.yaml` with `as_folder`), the JSON Schema its editor modeline
    points to, and in a new library its commented kitgen.toml; what was written, as lines to show."""
    started = not folder.is_dir()
    path = scaffold(folder, activity_id, table, sheet)
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

"""The library's settings: `kitgen.toml` at the library root (next to `content/`).

Each key is the default of the command-line option of the same name; an option typed on the command line
wins. A setting acts exactly as if the option had been typed, so a Letter library's kits land in the same
variant folder as `--paper letter` builds. Every key is optional; an unknown key or a wrong value is an error
naming the file (exit 2), never silently ignored.
"""
from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path

from kitgen.core.errors import UsageError
from kitgen.plan.options import LANGUAGE, LANGUAGE_CODE, Option, OPTIONS, PRINTER

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SETTINGS_FILE = "kitgen.toml"

# Every option the settings file may set, by its key: the build options and the two choices of a command
SETTABLE: dict[str, Option] = {one.key: one for one in (*OPTIONS, LANGUAGE, PRINTER) if one.key}
KEYS = tuple(SETTABLE)


def settings_file(content: Path) -> Path:
    """Where a library's settings are: beside its content folder."""
    return Path(content).parent / SETTINGS_FILE


def template() -> str:
    """The commented settings file `kitgen new` writes into a new library: every key, none set."""
    lines = [f"# {SETTINGS_FILE}: this library's own defaults for kitgen. Uncomment a line to use it;",
             "# an option typed on the command line always wins (kitgen build --paper a4 ...).", ""]
    for key, one in SETTABLE.items():
        flag = one.flag.split("/")[0]
        lines += [f"# {one.help} ({flag})", f"# {key} = {one.example}", ""]
    return "\n".join(lines)


MAX_SETTINGS_BYTES = 100_000  # the template kitgen writes is about 3 kB
MAX_NESTING = 4  # a list of values is 1 deep; no setting is a table
_DOTTED_KEY = re.compile(r"^[ \t]*[A-Za-z0-9_\-]+(?:[ \t]*\.[ \t]*[A-Za-z0-9_\-]+)+[ \t]*=", re.M)


def _shape_problem(text: str) -> tuple[int, str] | None:
    """(line, what is wrong) when the file is not the flat `key = value` list settings are, found before TOML
    is parsed (a TOML reader takes minutes over 50,000 dotted keys and recurses over deep nesting), or None."""
    dotted = _DOTTED_KEY.search(text)
    if dotted:
        return (text.count("\n", 0, dotted.start()) + 1,
                f"dotted key {dotted.group(0).strip().rstrip('=').strip()[:40]!r}: settings are plain key = value "
                "lines, expected a key such as paper")
    depth, quote, line = 0, "", 1
    for index, char in enumerate(text):
        if char == "\n":
            line += 1
            quote = ""  # a comment ends here (and a one-line string cannot go on: TOML reports it)
        elif quote == "#":
            continue
        elif quote:
            if char == quote and text[index - 1] != "\\":
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return line, f"values nest more than {MAX_NESTING} deep, expected plain key = value lines"
        elif char in "]}":
            depth = max(depth - 1, 0)
        elif char == "#":
            quote = "#"  # a comment, to the end of the line
    return None


def _problem(path: Path, message: str, at_start: bool = False) -> UsageError:
    return UsageError(f"{path}{':1:1' if at_start else ''}: {message}")


def load_settings(content: Path) -> dict[str, object]:
    """The settings of the library whose content folder is `content`: {key: value}, `output` made a path from the
    file's folder; {} when there is no settings file."""
    path = settings_file(content)
    try:
        size = path.stat().st_size
        if size > MAX_SETTINGS_BYTES:
            raise _problem(path, f"the settings file is {size:,} bytes, expected at most {MAX_SETTINGS_BYTES:,}",
                           at_start=True)
        with path.open("rb") as handle:
            raw = handle.read(MAX_SETTINGS_BYTES + 1)
        if len(raw) > MAX_SETTINGS_BYTES:
            raise _problem(path, f"the settings file is over {MAX_SETTINGS_BYTES:,} bytes, expected at most "
                                 f"{MAX_SETTINGS_BYTES:,}", at_start=True)
        text = raw.decode("utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as error:
        line = error.object[:error.start].count(b"\n") + 1
        column = error.start - (error.object.rfind(b"\n", 0, error.start) + 1) + 1
        raise UsageError(f"{path}:{line}:{column}: the file is not UTF-8 text, expected UTF-8 (save it again as "
                         "UTF-8)") from None
    except OSError as error:
        raise _problem(path, f"cannot be read: {error}") from None
    shape = _shape_problem(text)
    if shape:
        line, message = shape
        raise UsageError(f"{path}:{line}:1: {message}")
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise _problem(path, "values nest too deep, expected plain key = value lines") from None
    except tomllib.TOMLDecodeError as error:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(error))
        located = f"{path}:{where[1]}:{where[2]}" if where else str(path)
        raise UsageError(f"{located}: TOML syntax: {message}") from None
    settings: dict[str, object] = {}
    problems: list[str] = []  # every wrong setting at once, each at its line
    for key, value in data.items():
        line, column = _key_place(text, key)
        if key not in KEYS:
            close = difflib.get_close_matches(key, list(KEYS), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f"; settings: {', '.join(KEYS)}"
            problems.append(f"{path}:{line}:{column}: unknown setting {key!r}{hint}")
            continue
        try:
            settings[key] = _checked(path, key, value)
        except UsageError as error:
            problems.append(f"{path}:{line}:{column}: {str(error).removeprefix(f'{path}: ')}")
    if problems:
        raise UsageError("\n".join(problems))
    return settings


def _key_place(text: str, key: str) -> tuple[int, int]:
    """The line and column (1-based) where `key = ...` is written (bare or quoted), or 1, 1."""
    written = re.search(rf"^[ \t]*(?P<key>{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')[ \t]*=", text, re.M)
    if written is None:
        return 1, 1
    start = written.start("key")
    return text.count("\n", 0, start) + 1, start - (text.rfind("\n", 0, start) + 1) + 1


def _checked(path: Path, key: str, value: object) -> object:
    """A setting's value, as its option's flag would take it; `output` made a path from the file's folder."""
    one = SETTABLE[key]
    if one is LANGUAGE:
        languages = [value] if isinstance(value, str) else value
        if not isinstance(languages, list) or not languages or not all(
                isinstance(lang, str) and LANGUAGE_CODE.fullmatch(lang) for lang in languages):
            raise _problem(path, f"languages: expected two-letter codes such as [\"en\", \"ro\"], got {value!r}")
        return list(languages)
    try:
        checked = one.checked(value, key)
    except UsageError as error:
        raise _problem(path, str(error)) from None
    if one.name != "out_dir":
        return checked
    library = path.parent.resolve()
    out = (library / checked).resolve()
    if out != library and not out.is_relative_to(library):  # a typed --out may go anywhere; a setting stays home
        raise _problem(path, f"output: expected a folder inside the library ({library}), got {value!r}")
    return path.parent / checked


def chosen_options(content: Path, typed: dict[str, object]) -> dict[str, object]:
    """Each option's value by precedence: typed on the command line, else the library's kitgen.toml, else its
    default (left out). `typed` holds only what the user typed, by option name; the result adds the settings'
    values by option name too (`language` may be the settings' list of languages). A typed back offset leaves the
    settings' printer aside, and a typed printer the settings' back offset."""
    chosen = dict(typed)
    for key, value in load_settings(content).items():
        name = SETTABLE[key].name
        if name in typed:
            continue
        if (name == PRINTER.name and "back_offset_mm" in typed) or (name == "back_offset_mm" and "printer" in typed):
            continue
        chosen[name] = value
    return chosen

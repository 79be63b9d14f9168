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
from typing import Any

from kitgen.core.errors import UsageError
from kitgen.core.units import PAPER_SIZES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SETTINGS_FILE = "kitgen.toml"

# key → (the option it sets, an example value for the commented file, what it means)
KEYS: dict[str, tuple[str, str, str]] = {
    "paper": ("--paper", '"letter"', "paper size of every file: " + " or ".join(PAPER_SIZES) + " (default a4)"),
    "card_size": ("--card-size", '"bridge"', "poker, bridge, mini, tarot or WxH such as 63x88mm (default: each "
                                             "activity's own)"),
    "class_size": ("--class-size", "28", "students to equip: enough numbered kits and record sheets for them"),
    "languages": ("--lang", '["en", "ro"]', "the language editions to build, check and preview, where an "
                                            "activity has them (default: every edition)"),
    "printer": ("--printer", '"room12"', "a printer profile saved with kitgen printer add (its back offset)"),
    "output": ("--out", '"printed"', "the folder kits are written to, from this file's folder (default output)"),
}


def settings_file(content: Path) -> Path:
    """Where a library's settings are: beside its content folder."""
    return Path(content).parent / SETTINGS_FILE


def template() -> str:
    """The commented settings file `kitgen new` writes into a new library: every key, none set."""
    lines = [f"# {SETTINGS_FILE}: this library's own defaults for kitgen. Uncomment a line to use it;",
             "# an option typed on the command line always wins (kitgen build --paper a4 ...).", ""]
    for key, (option, example, meaning) in KEYS.items():
        lines += [f"# {meaning} ({option})", f"# {key} = {example}", ""]
    return "\n".join(lines)


def _problem(path: Path, message: str) -> UsageError:
    return UsageError(f"{path}: {message}")


def load_settings(content: Path) -> dict[str, Any]:
    """The settings of the library whose content folder is `content`: {key: value}, `output` made a path from the
    file's folder; {} when there is no settings file."""
    path = settings_file(content)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise _problem(path, f"cannot be read: {error}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(error))
        located = f"{path}:{where[1]}:{where[2]}" if where else str(path)
        raise UsageError(f"{located}: TOML syntax: {message}") from None
    settings: dict[str, Any] = {}
    for key, value in data.items():
        if key not in KEYS:
            close = difflib.get_close_matches(key, list(KEYS), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f"; settings: {', '.join(KEYS)}"
            raise _problem(path, f"unknown setting {key!r}{hint}")
        settings[key] = _checked(path, key, value)
    return settings


def _checked(path: Path, key: str, value: object) -> int | str | list[str] | Path:
    if key == "class_size":
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 500:
            raise _problem(path, f"class_size: expected a whole number from 1 to 500, got {value!r}")
        return value
    if key == "languages":
        languages = [value] if isinstance(value, str) else value
        if not isinstance(languages, list) or not languages or not all(
                isinstance(lang, str) and re.fullmatch(r"[a-z]{2}", lang) for lang in languages):
            raise _problem(path, f"languages: expected two-letter codes such as [\"en\", \"ro\"], got {value!r}")
        return list(languages)
    if not isinstance(value, str) or not value.strip():
        raise _problem(path, f"{key}: expected a text such as {KEYS[key][1]}, got {value!r}")
    if key == "paper":
        if value.lower() not in PAPER_SIZES:
            raise _problem(path, f"paper: expected one of {', '.join(PAPER_SIZES)}, got {value!r}")
        return value.lower()
    if key == "output":
        return path.parent / value
    return value

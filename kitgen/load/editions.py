"""Language editions: an activity file plus `<name>.<lang>.yaml` overlays beside it (light: no validation)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from kitgen.core.errors import display_path, Problem
from kitgen.load.yaml_source import read_yaml


def edition_file(path: Path, language: str) -> Path:
    """`trash/activity.yaml` + `en` → `trash/activity.en.yaml`: the overlay holding that edition's text."""
    return path.with_name(f"{path.stem}.{language}{path.suffix}")


def edition_languages(path: Path) -> list[str]:
    """Languages with an overlay file next to the activity file (the file's own language not included)."""
    return sorted(p.suffixes[-2].lstrip(".") for p in path.parent.glob(f"{path.stem}.*{path.suffix}")
                  if len(p.suffixes) >= 2 and len(p.suffixes[-2]) == 3)


def language_of(data: Any) -> str:
    """The `language:` an activity file's data declares, as text ("en" without one). A value that is no text (`7`,
    a list) is shown as written: validation reports it at its place."""
    return str(data.get("language", "en")) if isinstance(data, dict) else "en"


def own_language(path: Path) -> str:
    """The language the activity file itself is written in."""
    data, _source = read_yaml(path)
    return language_of(data)


def editions(path: Path) -> list[str]:
    """The languages an activity file can be built in: its own and one per overlay file."""
    return sorted({own_language(path), *edition_languages(path)})


def _edition_note(path: Path, language: str | None) -> tuple[str, str] | None:
    """(the edition file as shown, the words a problem of that edition found outside it ends with), or None for
    the activity file's own language."""
    if language is None or not language.isalpha():  # (a language such as '../x' is refused where it is named)
        return None
    overlay = edition_file(path, language)
    if not overlay.is_file():
        return None
    return display_path(overlay), f" (in the {language!r} edition, made with {overlay.name})"


def in_edition(problems: list[Problem], path: Path, language: str | None) -> list[Problem]:
    """The problems of the `language` edition of the activity `path`: each located outside the edition's own file
    (in the activity file, or a spreadsheet, that every edition shares) says which edition it was found in."""
    named = _edition_note(path, language)
    if named is None:
        return problems
    shown, note = named
    return [p if p.file == shown else replace(p, message=p.message + note) for p in problems]


def in_edition_text(text: str, path: Path, language: str | None) -> str:
    """An error's lines (`file:line:column: ...`), each outside the edition's own file saying which edition."""
    named = _edition_note(path, language)
    if named is None:
        return text
    shown, note = named
    return "\n".join(line if line.startswith(shown + ":") or not line.strip() else line + note
                     for line in text.split("\n"))

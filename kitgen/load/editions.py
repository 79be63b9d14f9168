"""Language editions: an activity file plus `<name>.<lang>.yaml` overlays beside it (light: no validation)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

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

"""What a kit is made from (content, templates, fonts, catalog, options, kitgen version), for incremental builds."""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

import jinja2
from jinja2 import meta

from kitgen.locale import LOCALE_DIR
from kitgen.render.fonts import FONT_DIR
from kitgen.write import MANIFEST


@lru_cache(maxsize=1024)
def _hash(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def file_hash(path: Path) -> str:
    """SHA-256 of a file, cached per process by path, modification time and size."""
    stat = path.stat()
    return _hash(str(path), stat.st_mtime_ns, stat.st_size)


def templates_used(env: jinja2.Environment, roots: set[str]) -> dict[str, str]:
    """Each template name a kit renders, with what it imports or extends, → the file it resolves to."""
    found: dict[str, str] = {}
    pending = sorted(roots)
    while pending:
        name = pending.pop()
        if name in found:
            continue
        source, filename, _ = env.loader.get_source(env, name)  # type: ignore[union-attr]
        found[name] = filename or name
        pending += [n for n in meta.find_referenced_templates(env.parse(source)) if isinstance(n, str)]
    return dict(sorted(found.items()))


def input_record(content_files: list[Path], templates: dict[str, str], language: str, options: dict) -> dict:
    """Everything whose change must rebuild the kit, as plain JSON data."""
    from kitgen import __version__

    files = [*content_files, *(Path(p) for p in templates.values()), *sorted(FONT_DIR.glob("*.ttf"))]
    catalog = LOCALE_DIR / language / "LC_MESSAGES" / "kitgen.po"
    if catalog.exists():
        files.append(catalog)
    return {
        "kitgen": __version__,
        "options": options,
        "templates": templates,
        "files": {str(path): file_hash(path) for path in files},
    }


def read_manifest(folder: Path) -> dict | None:
    try:
        return json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return None


def is_up_to_date(folder: Path, inputs: dict) -> bool:
    """True when the manifest records the same inputs and every output file it lists is still there."""
    manifest = read_manifest(folder)
    if not manifest or manifest.get("inputs") != inputs:
        return False
    return all((folder / name).is_file() and (folder / name).stat().st_size == entry.get("bytes")
               for name, entry in manifest.get("files", {}).items())

"""What a kit is made from (content, templates, fonts, catalog, options, kitgen version), for incremental builds."""
from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from kitgen.core.files import BuildResult, kit_folder_name, OutputFile
from kitgen.core.notes import Note
from kitgen.load.yaml_source import read_yaml
from kitgen.load.editions import editions
from kitgen.core.errors import UsageError
from kitgen.locale import catalog_candidates, catalog_files
from kitgen import __version__
from kitgen.jinja.lookup import resolve_template
from kitgen.fonts.registry import FONT_DIR
from kitgen.write.kitdir import artefact_name_ok, MANIFEST, remove_leftovers_beside, UNFINISHED

if TYPE_CHECKING:
    from kitgen.core.files import BuildResult
    from kitgen.load.library import Library
    from kitgen.plan.options import BuildOptions

Manifest = dict[str, Any]  # a kit's manifest, as JSON


@lru_cache(maxsize=1024)
def _hash(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def file_hash(path: Path) -> str:
    """SHA-256 of a file, cached per process by path, modification time and size."""
    stat = path.stat()
    return _hash(str(path), stat.st_mtime_ns, stat.st_size)


ABSENT = "absent"  # recorded for a file whose appearance must rebuild the kit (a library's new catalog)

_REFERENCE = re.compile(r"""{%-?\s*(?:extends|include|import|from)\s+["']([^"']+)["']""")


@lru_cache(maxsize=256)
def _references(path: str, mtime_ns: int) -> tuple[str, ...]:
    return tuple(_REFERENCE.findall(Path(path).read_text(encoding="utf-8")))


def templates_used(dirs: list[Path], roots: set[str]) -> dict[str, str]:
    """Each template name a kit renders, with what it imports or extends, → the file it resolves to."""
    found: dict[str, str] = {}
    pending = sorted(roots)
    while pending:
        name = pending.pop()
        if name in found:
            continue
        path = resolve_template(dirs, name)
        if path is None:
            found[name] = ""
            continue
        found[name] = str(path)
        pending += list(_references(str(path), path.stat().st_mtime_ns))
    return dict(sorted(found.items()))


def input_record(content_files: list[Path], templates: dict[str, str], language: str, options: dict[str, Any],
                 catalog_folders: tuple[Path, ...] = (), absent_files: tuple[Path, ...] = ()) -> dict[str, Any]:
    """Everything whose change must rebuild the kit (content files with their spreadsheets, templates, fonts, the
    language's catalogs in the library and in kitgen), as plain JSON data; `absent_files` may not exist yet
    (a library font's licence or bold file): one added since rebuilds the kit."""

    files = [*content_files, *(Path(p) for p in templates.values()), *sorted(FONT_DIR.glob("*.ttf"))]
    files += catalog_files(language, catalog_folders)

    absent = [path for folder in catalog_folders for path in catalog_candidates(folder, language) if not path.is_file()]
    absent += [path for path in absent_files if not path.is_file()]
    return {
        "kitgen": __version__,
        "options": options,
        "templates": templates,
        "files": {**{str(path): file_hash(path) for path in files}, **{str(path): ABSENT for path in absent}},
    }


_ENTRY = {"sha256": str, "bytes": int, "pages": int, "sheets": int, "role": str, "for_players": bool}


def _strings(value: object, kind: type = str) -> TypeGuard[dict[str, Any]]:
    """A mapping of strings to `kind`."""
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, kind) for k, v in value.items())


def _well_formed(manifest: object) -> TypeGuard[Manifest]:
    """A manifest of a whole kit, in the shape every reader relies on (anything else is no manifest at all)."""
    if not isinstance(manifest, dict) or manifest.get(UNFINISHED) is not None:
        return False
    files, inputs, artefacts = manifest.get("files"), manifest.get("inputs", {}), manifest.get("artefacts", {})
    return (_strings(files, dict)
            and _strings(artefacts, dict) and all(isinstance(entry.get("sha256"), str) and
                                                  isinstance(entry.get("bytes"), int) for entry in artefacts.values())
            and all(isinstance(entry.get(key), kind) for entry in files.values() for key, kind in _ENTRY.items())
            and isinstance(inputs, dict) and _strings(inputs.get("files", {})) and _strings(inputs.get("templates", {}))
            and isinstance(inputs.get("options", {}), dict)
            and isinstance(manifest.get("quality", []), list) and isinstance(manifest.get("summary", {}), dict)
            and all(isinstance(manifest.get(key, ""), str) for key in ("activity", "language")))


def read_manifest(folder: Path) -> Manifest | None:
    """The folder's manifest when it is one kitgen wrote for a whole kit, else None."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if _well_formed(manifest) else None


def _matches(folder: Path, name: str, entry: dict[str, Any]) -> bool:
    """The output file is there, a plain file in the folder, with the size and SHA-256 its manifest records."""
    path = folder / name
    if Path(name).name != name or name in (MANIFEST, ".", "..") or path.is_symlink() or not path.is_file():
        return False
    if path.stat().st_size != entry["bytes"]:
        return False
    return bool(hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"])


def _artefact_matches(folder: Path, name: str, entry: dict[str, Any]) -> bool:
    """An exporter's file (`png/fox.png`) is there, a plain file, with the size and SHA-256 its manifest records."""
    path = folder / name
    if not artefact_name_ok(name) or path.is_symlink() or not path.is_file():
        return False
    return bool(path.stat().st_size == entry["bytes"]
                and hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"])


def _outputs_intact(folder: Path, manifest: Manifest) -> bool:
    """Every output file the manifest lists (and every exporter's file) is still there, byte for byte as it was
    written."""
    return all(_matches(folder, name, entry) for name, entry in manifest["files"].items()) and all(
        _artefact_matches(folder, name, entry) for name, entry in manifest.get("artefacts", {}).items())


def verified_manifest(folder: Path) -> Manifest | None:
    """The folder's manifest when it describes a whole kit and every file it lists matches it, else None."""
    manifest = read_manifest(folder)
    return manifest if manifest is not None and _outputs_intact(folder, manifest) else None


def _unchanged(inputs: dict[str, Any], options: dict[str, Any], template_dirs: list[Path]) -> bool:

    if inputs.get("kitgen") != __version__ or inputs.get("options") != options:
        return False
    for name, digest in inputs.get("files", {}).items():
        path = Path(name)
        if digest == ABSENT:  # a library catalog that did not exist then: one added since rebuilds the kit
            if path.exists():
                return False
            continue
        if not path.is_file() or file_hash(path) != digest:
            return False
    return all(str(resolve_template(template_dirs, name) or "") == resolved
               for name, resolved in inputs.get("templates", {}).items())


def library_id(activity_path: Path, library: Library) -> str:
    """The id a library gives the activity in this file (its file or folder name)."""
    return activity_path.parent.name if activity_path.stem == "activity" and activity_path.parent != library.content \
        else activity_path.stem


def fresh_result(activity_path: Path, language: str, library: Library, options: BuildOptions) -> BuildResult | None:
    """The result of the last build of one edition when nothing it depends on changed, else None.

    Reads only the manifest, the YAML of the activity file (for its id and editions) and file hashes:
    a no-op rebuild needs neither the validation model nor the renderer.
    """

    data, _ = read_yaml(activity_path)
    if not isinstance(data, dict) or data.get("id") != library_id(activity_path, library):
        return None  # let the full build report it
    languages = editions(activity_path)
    if language not in languages:  # never "up to date": there is no such kit
        raise UsageError(f"no {language!r} edition of {data['id']}; editions: {', '.join(languages)}")
    folder = Path(options.out_dir) / kit_folder_name(data["id"], language, len(languages) > 1)
    manifest = read_manifest(folder)
    if manifest is None or str(activity_path) not in manifest.get("inputs", {}).get("files", {}):
        return None  # never built, or another file built this folder
    if not _unchanged(manifest["inputs"], options.recorded(), library.template_dirs(activity_path.parent)):
        return None
    if not _outputs_intact(folder, manifest):
        return None  # a file is missing, or is not the one this manifest was written with
    remove_leftovers_beside(folder)  # what a killed build of this kit left: the next build removes it
    return _result_of(folder, manifest, data["id"], language)


def _result_of(folder: Path, manifest: Manifest, activity_id: str, language: str) -> BuildResult:
    """The result a manifest records: its files, quality notes and summary (nothing is written)."""

    files = [OutputFile(folder / name, entry["role"], entry["pages"], entry["sheets"])
             for name, entry in manifest.get("files", {}).items()]
    return BuildResult(activity_id, language, folder, files, skipped=True, quality=[Note.from_json(n) for n in manifest.get("quality", [])],
                       summary=manifest.get("summary", {}))


def last_good_results(activity_id: str, out_dir: Path) -> list[BuildResult]:
    """The kits an activity's last successful builds left in `out_dir` (its folders whose manifest names it and
    whose files are all there), whatever changed since: what the index shows while its content has errors."""
    results = []
    for manifest_path in sorted(Path(out_dir).glob(f"*/{MANIFEST}")):
        manifest = read_manifest(manifest_path.parent)
        if manifest and manifest.get("activity") == activity_id and manifest.get("summary") \
                and _outputs_intact(manifest_path.parent, manifest):
            results.append(_result_of(manifest_path.parent, manifest, activity_id, manifest.get("language", "")))
    return results


def fresh_results(activity_path: Path, library: Library, options: BuildOptions) -> list[BuildResult] | None:
    """The last results of every edition when none of them needs building, else None."""

    results = [fresh_result(activity_path, language, library, options) for language in editions(activity_path)]
    fresh = [result for result in results if result is not None]
    return fresh if len(fresh) == len(results) else None

"""Write stage: every output file is written atomically, and a manifest records what kitgen made."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "manifest.json"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def stage(path: Path, data: bytes) -> Path:
    """Write `data` to a new temporary file beside `path` (flushed to disk); the caller renames it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; outputs get the usual permissions
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return Path(temporary)


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file in the same folder, then rename it into place."""
    os.replace(stage(path, data), path)


@dataclass(frozen=True)
class OutputData:
    """A rendered file waiting to be written."""

    name: str
    data: bytes
    pages: int
    role: str
    for_players: bool
    sheets: int


def _listed(folder: Path) -> set[str]:
    try:
        return set(json.loads((folder / MANIFEST).read_text()).get("files", {}))
    except (OSError, ValueError, AttributeError):
        return set()


def write_outputs(folder: Path, files: list[OutputData], record: dict) -> list[Path]:
    """Write every file (all rendered before anything is written), then the manifest; remove files that
    the previous manifest listed and this build no longer makes (and nothing else)."""
    stale = _listed(folder) - {f.name for f in files}
    entries = {f.name: {"sha256": hashlib.sha256(f.data).hexdigest(), "bytes": len(f.data), "pages": f.pages,
                        "sheets": f.sheets, "role": f.role, "for_players": f.for_players} for f in files}
    manifest = (json.dumps(dict(record, files=entries), indent=2, sort_keys=True) + "\n").encode()
    staged: list[tuple[Path, Path]] = []
    try:  # every file is on disk before any is replaced: a failure here leaves the previous kit whole
        for name, data in [*((f.name, f.data) for f in files), (MANIFEST, manifest)]:
            staged.append((stage(folder / name, data), folder / name))
    except BaseException:
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)
        raise
    for temporary, target in staged:  # renames only, the manifest last
        os.replace(temporary, target)
    written = [target for _, target in staged[:-1]]
    for name in stale:
        target = folder / name
        if Path(name).name == name and name not in (MANIFEST, ".", "..") and target.is_file() \
                and not target.is_symlink():
            target.unlink()
    return written

"""Write stage: every output file is written atomically, and a manifest records what kitgen made.

A kit is switched from its old files to its new ones in an order a kill cannot spoil: every new file is first
written in full beside its target (`.NAME.XXXXXXXX.tmp`), then the manifest is replaced by one that marks the
folder as being changed, then the files are renamed into place, files the new kit no longer has are removed,
and the new manifest goes in last. Whenever the process dies, the folder holds the old kit with its manifest,
the new kit with its manifest, or files under a manifest that says they are unfinished, which no up-to-date
check accepts (kitgen.inputs also compares every file with the sha256 its manifest records). Temporary files a
killed build left are removed by the next write into that folder, under a lock that live builds hold.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

MANIFEST = "manifest.json"
UNFINISHED = "unfinished"  # the key of the manifest that stands in while a kit's files are being switched
_TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")  # what stage() makes: mkstemp's eight characters
_ORPHAN_AGE = 3600.0  # without a lock (no fcntl), a temporary file this many seconds old is a dead build's


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _naming(error: OSError, path: Path) -> OSError:
    """The same failure, naming the file the user asked for, not kitgen's temporary file beside it."""
    if error.errno is None:
        return error
    return OSError(error.errno, error.strerror or str(error), str(path))  # PermissionError etc. by errno


def stage(path: Path, data: bytes) -> Path:
    """Write `data` to a new temporary file beside `path` (flushed to disk); the caller renames it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise _naming(error, path) from error
    try:
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; outputs get the usual permissions
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise _naming(error, path) from error
        raise
    return Path(temporary)


def _replace(temporary: Path, target: Path) -> None:
    try:
        os.replace(temporary, target)
    except OSError as error:
        raise _naming(error, target) from error


@contextmanager
def _locked(folder: Path) -> Iterator[bool]:
    """Hold the folder's lock (released by the system when the process dies); False where there is none."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system
        yield False
        return
    try:
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        yield False
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield True
    finally:
        os.close(handle)


def _remove_leftovers(folder: Path, locked: bool, target: str | None = None) -> None:
    """Remove the temporary files of writes that were killed (of `target` only, when given): under the folder's
    lock no live write has one; without a lock, only those older than an hour."""
    prefix = f".{target}." if target else "."
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    now = time.time()
    for entry in entries:
        if not (entry.name.startswith(prefix) and _TEMPORARY.fullmatch(entry.name)):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and (
                    locked or now - entry.stat(follow_symlinks=False).st_mtime > _ORPHAN_AGE):
                os.unlink(entry.path)
        except FileNotFoundError:
            pass


def _sync(folder: Path) -> None:
    """Make the renames in `folder` durable (where the system allows a folder to be synced)."""
    try:
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file in the same folder, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path.parent) as locked:
        _remove_leftovers(path.parent, locked, path.name)
        _replace(stage(path, data), path)


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
    """The file names the folder's manifest lists (none when it is missing or not a manifest)."""
    try:
        files = json.loads((folder / MANIFEST).read_text()).get("files", {})
    except (OSError, ValueError, AttributeError):
        return set()
    return {name for name in files if isinstance(name, str)} if isinstance(files, dict) else set()


def _encoded(manifest: dict) -> bytes:
    return (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()


def _own_file(folder: Path, name: str) -> bool:
    """A plain file directly in `folder` that a manifest may name (not the manifest, a folder or a symlink)."""
    target = folder / name
    return Path(name).name == name and name not in (MANIFEST, ".", "..") and target.is_file() \
        and not target.is_symlink()


def write_outputs(folder: Path, files, record: dict) -> list[Path]:
    """Write every file (all rendered before anything is written), then the manifest; remove files that the
    previous manifest listed and this build no longer makes (and nothing else). Items of `files` have `.name`,
    `.data`, `.pages`, `.role`, `.for_players` and `.sheets`."""
    files = list(files)
    entries = {f.name: {"sha256": hashlib.sha256(f.data).hexdigest(), "bytes": len(f.data), "pages": f.pages,
                        "sheets": f.sheets, "role": str(f.role), "for_players": f.for_players} for f in files}
    manifest = _encoded(dict(record, files=entries))
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder) as locked:
        _remove_leftovers(folder, locked)
        previous = _listed(folder)
        unfinished = _encoded({UNFINISHED: True, "files": {name: {} for name in sorted(previous | set(entries))}})
        staged: list[tuple[Path, Path]] = []
        try:  # every file is on disk before any is replaced: a failure here leaves the previous kit whole
            for name, data in [*((f.name, f.data) for f in files), (MANIFEST, manifest), (MANIFEST, unfinished)]:
                staged.append((stage(folder / name, data), folder / name))
            *outputs, final, marker = staged
            _replace(*marker)  # from here until the final manifest, nothing takes the folder for a kit
            staged.remove(marker)
            for pair in outputs:
                _replace(*pair)
                staged.remove(pair)
            for name in sorted(previous - set(entries)):
                if _own_file(folder, name):
                    (folder / name).unlink()
            _replace(*final)
            staged.remove(final)
        finally:
            for temporary, _ in staged:
                temporary.unlink(missing_ok=True)
        _sync(folder)
    return [folder / f.name for f in files]

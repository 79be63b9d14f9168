"""Files written whole or not at all: a temporary file beside the target, flushed, then renamed into place.

A folder lock (released by the system when the process dies) lets the next write remove what a killed write
left behind; without a lock (no fcntl) only temporary files older than an hour are removed.
"""
from __future__ import annotations

import os
import re
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")  # what stage() makes: mkstemp's eight characters
ORPHAN_AGE = 3600.0  # without a lock (no fcntl), a temporary file this many seconds old is a dead build's


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def naming_error(error: OSError, path: Path) -> OSError:
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
        raise naming_error(error, path) from error
    try:
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; outputs get the usual permissions
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise naming_error(error, path) from error
        raise
    return Path(temporary)


def replace_file(temporary: Path, target: Path) -> None:
    try:
        os.replace(temporary, target)
    except OSError as error:
        raise naming_error(error, target) from error


@contextmanager
def folder_lock(folder: Path) -> Iterator[bool]:
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


def remove_leftovers(folder: Path, locked: bool, target: str | None = None) -> None:
    """Remove the temporary files of writes that were killed (of `target` only, when given): under the folder's
    lock no live write has one; without a lock, only those older than an hour."""
    prefix = f".{target}." if target else "."
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    now = time.time()
    for entry in entries:
        if not (entry.name.startswith(prefix) and TEMPORARY.fullmatch(entry.name)):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and (
                    locked or now - entry.stat(follow_symlinks=False).st_mtime > ORPHAN_AGE):
                os.unlink(entry.path)
        except FileNotFoundError:
            pass


def sync_folder(folder: Path) -> None:
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
    with folder_lock(path.parent) as locked:
        remove_leftovers(path.parent, locked, path.name)
        replace_file(stage(path, data), path)



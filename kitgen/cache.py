"""The user's cache folder: what kitgen keeps between runs so that a cold start is quicker.

Compiled templates and parsed font metrics live there, each kind in a folder named with kitgen's version.
Entries are code or pickled data, so the folder is used only when it belongs to the user alone; anything
unreadable is ignored and rebuilt. Deleting the folder is always safe.
"""
from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path

from kitgen import __version__


def cache_dir() -> Path | None:
    """`$KITGEN_CACHE` (`off` keeps nothing), else `$XDG_CACHE_HOME/kitgen`, else `~/.cache/kitgen` (none when
    there is no home folder to be found)."""
    setting = os.environ.get("KITGEN_CACHE")
    if setting == "off":
        return None
    if setting:
        return Path(setting)
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "kitgen"
    try:
        home = Path.home()
    except (RuntimeError, KeyError, OSError):  # no $HOME and no entry in the user database: no cache
        return None
    return home / ".cache" / "kitgen"


@lru_cache(maxsize=8)
def _private_folder(folder: Path) -> bool:
    """Create `folder` for this user alone; False when it exists but others could write to it (then it is not
    used). Checked once per process."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return False
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def cache_file(kind: str, name: str) -> Path | None:
    """`<cache>/<kind>-<kitgen version>/<name>`, or None when there is no cache folder kitgen may use."""
    base = cache_dir()
    if base is None or not hasattr(os, "getuid"):
        return None
    folder = base / f"{kind}-{__version__}"
    return folder / name if _private_folder(folder) else None


def keep(file: Path | None, data: bytes) -> None:
    """Store an entry (atomically); a cache that cannot be written costs a recomputation next time, nothing more."""
    if file is None:
        return
    from kitgen.write import write_atomic

    try:
        write_atomic(file, data)
    except OSError:
        pass


def recall(file: Path | None) -> bytes | None:
    """An entry's bytes, or None when there is none (or it cannot be read)."""
    try:
        return file.read_bytes() if file is not None and file.is_file() else None
    except OSError:
        return None

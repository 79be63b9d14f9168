"""The user's cache folder: what kitgen keeps between runs so that a cold start is quicker.

Compiled templates and parsed font metrics live there, each kind in a folder named with kitgen's version.
Entries are code or pickled data, so the folder is used only when it belongs to the user alone, and each entry
is sealed with a digest keyed by the cache's own random key: an entry damaged, cut short or written by anything
else is never unpickled but ignored and rebuilt. Deleting the folder is always safe.
"""
from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Any, Generic, TypeVar

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


def _private_folder(folder: Path) -> bool:
    """Create `folder` for this user alone; False when it exists but others could write to it (then it is not
    used). Checked at every use (a stat): a long-running serve or watch sees a folder opened to others later."""
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
    from kitgen.core.atomic import write_atomic

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


SEALED_MAGIC = b"kitgen-sealed-1\n"
SEAL_BYTES = 32


@lru_cache(maxsize=8)
def _secret(base: Path) -> bytes | None:
    """The cache's own random key (`<cache>/seal-<version>/key`, made on first use, in a folder of the user's
    alone), or None when it can be neither read nor made (then nothing sealed is kept or read)."""
    folder = base / f"seal-{__version__}"
    if not _private_folder(folder):
        return None
    key = folder / "key"
    try:
        data = key.read_bytes()
        if len(data) == SEAL_BYTES:
            return data
    except OSError:
        pass
    import tempfile

    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".seal.", suffix=".tmp")  # mode 0600
        with os.fdopen(handle, "wb") as stream:
            stream.write(os.urandom(SEAL_BYTES))
        try:
            os.link(temporary, key)  # the first process to make one wins; the others read it
        except FileExistsError:
            pass
        finally:
            os.unlink(temporary)
        data = key.read_bytes()
    except OSError:
        return None
    return data if len(data) == SEAL_BYTES else None


def _seal(entry: Path, payload: bytes) -> bytes | None:
    """The seal of `payload` kept as `entry` (`<cache>/<kind>-<version>/<name>`)."""
    import hashlib

    secret = _secret(entry.parent.parent)
    return None if secret is None else hashlib.blake2b(payload, key=secret, digest_size=SEAL_BYTES).digest()


def keep_sealed(file: Path | None, payload: bytes) -> None:
    """Store an entry of pickled or compiled data with a seal: a digest of it keyed with the folder's own secret,
    so that an entry damaged, cut short or written by anyone else is never unpickled (see `recall_sealed`)."""
    if file is None:
        return
    seal = _seal(file, payload)
    if seal is not None:
        keep(file, SEALED_MAGIC + seal + payload)


def recall_sealed(file: Path | None) -> bytes | None:
    """A sealed entry's payload when its seal is right; None when there is none, or it is damaged or forged
    (the caller then rebuilds it and keeps it anew)."""
    import hmac

    data = recall(file)
    if file is None or not data or not data.startswith(SEALED_MAGIC):
        return None
    seal, payload = data[len(SEALED_MAGIC):len(SEALED_MAGIC) + SEAL_BYTES], data[len(SEALED_MAGIC) + SEAL_BYTES:]
    expected = _seal(file, payload)
    return payload if expected is not None and hmac.compare_digest(seal, expected) else None


SHELF_MAGIC = b"kitgen-shelf-2\n"
# what this process last read or kept, by shelf (each kind of shelf holds values of its own type)
_SHELVES: dict[tuple[str, str], dict[bytes, Any]] = {}
MAX_SHELVES_IN_MEMORY = 32


DRAWING_CODE = ("__init__.py", "core", "locale", "jinja", "fonts", "pictures", "load", "check", "plan", "render",
                "export")  # the package's folders whose code decides what a kept drawing looks like


@lru_cache(maxsize=1)
def code_digest() -> bytes:
    """The digest of this installation's drawing code and fonts (see `digest_of_code`), once per process."""
    return digest_of_code(Path(__file__).resolve().parents[1])


def digest_of_code(package: Path) -> bytes:
    """A digest of the code that draws and of the fonts: a cached drawing is only reused by the code that drew it
    (an editable checkout changes without a new version number). The layers above the drawing (write, app, the
    CLI) are left out, so editing a command keeps every drawing."""
    import hashlib

    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    drawing = [path for path in package.rglob("*.py") if path.relative_to(package).parts[0] in DRAWING_CODE]
    for path in sorted(drawing):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    for path in sorted((package / "fonts").glob("*.ttf")):
        info = path.stat()
        digest.update(f"{path.name}:{info.st_size}:{info.st_mtime_ns}".encode())
    return digest.digest()


V = TypeVar("V")  # what a shelf holds


class Shelf(Generic[V]):
    """Entries addressed by a digest of everything they were made from, so one found is always right.

    A shelf is read once per process (then kept in memory, so `--watch` and `serve` reuse what the last build
    made) and written back, atomically, with only the entries this build used: it never grows past one kit's
    worth. A file that is cut short, altered or unreadable is an empty shelf; two builds writing the same
    shelf leave one of their two complete versions.
    """

    def __init__(self, kind: str, name: str, kept: bool = True):
        """`kept=False`: a shelf that finds nothing and keeps nothing (for work that is thrown away, which must not
        replace what a shelf of the same name holds)."""
        self.key = (kind, name)
        self.kept = kept
        self.file = cache_file(kind, name) if kept else None
        entries = _SHELVES.get(self.key) if kept else {}
        if entries is None:
            entries = _read_shelf(self.file)
        # what builds put on this shelf (kept in memory, or read back from its file)
        self.entries: dict[bytes, V] = entries
        self.used: dict[bytes, V] = {}
        self.added = False

    def get(self, key: bytes) -> V | None:
        """The entry made from `key`: kept by an earlier build, or put by this one (two decks may share a design)."""
        value = self.used.get(key)
        if value is None:
            value = self.entries.get(key)
            if value is not None:
                self.used[key] = value
        return value

    def put(self, key: bytes, value: V) -> None:
        self.used[key] = value
        self.added = True

    def save(self) -> None:
        """Keep the entries this build used, in memory and (when something changed) in the cache folder."""
        if not self.kept:
            return
        changed = self.added or len(self.used) != len(self.entries)
        _SHELVES.pop(self.key, None)
        while len(_SHELVES) >= MAX_SHELVES_IN_MEMORY:
            _SHELVES.pop(next(iter(_SHELVES)))
        _SHELVES[self.key] = self.used
        if changed and self.file is not None:
            import pickle

            payload = pickle.dumps(self.used, protocol=pickle.HIGHEST_PROTOCOL)
            seal = _seal(self.file, payload)
            if seal is not None:
                _replace_quickly(self.file, SHELF_MAGIC + seal + payload)


def _replace_quickly(file: Path, data: bytes) -> None:
    """Write a shelf atomically but without waiting for the disk (no fsync: a shelf a crash cuts short fails its
    checksum and is ignored); temporary files left by a killed build more than an hour ago are removed."""
    import tempfile
    import time

    try:
        for stale in file.parent.glob(".*.tmp"):
            if stale.stat().st_mtime < time.time() - 3600:
                stale.unlink(missing_ok=True)
        handle, temporary = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, file)
    except OSError:
        Path(temporary).unlink(missing_ok=True)


def _read_shelf(file: Path | None) -> dict[bytes, Any]:
    """A shelf's entries from its file; {} for a missing, damaged or foreign file."""
    import hmac
    import pickle

    data = recall(file)
    if file is None or not data or not data.startswith(SHELF_MAGIC):
        return {}
    check, payload = data[len(SHELF_MAGIC):len(SHELF_MAGIC) + SEAL_BYTES], data[len(SHELF_MAGIC) + SEAL_BYTES:]
    seal = _seal(file, payload)
    if seal is None or not hmac.compare_digest(seal, check):  # damaged, cut short, or not written by kitgen
        return {}
    try:
        entries = pickle.loads(payload)
    except Exception:  # written by another version of a library it names, or not a shelf at all
        return {}
    return entries if isinstance(entries, dict) else {}

"""Write stage: every output file is written atomically, and a manifest records what kitgen made.

A kit is switched from its old files to its new ones in one step, so that no kill leaves a mix on disk: the new
kit (its files, then its manifest) is written in full into a fresh folder beside the kit's (`.KIT.new-XXXXXXXX`),
the files the user put into the kit folder (any name the old manifest does not list: notes, pictures, cutter
files) are linked into it as well, and then the two folders trade places in one rename (Linux
`renameat2(RENAME_EXCHANGE)`); the old kit, now in the fresh folder's place, is removed last. Where the system
cannot exchange two folders, the old folder is renamed aside (`.KIT.old-XXXXXXXX`) and the new one into its
place: a kill between those two renames leaves no kit folder, and the next write puts the old one back before
anything else. Folders a killed build left beside the kit are removed by the next write of that kit, under a lock
on the folder that holds the kits (live writes hold it); kitgen.write.fresh compares every file with the sha256 its
manifest records, so a file changed by hand is noticed too.
"""
from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Protocol

from kitgen.core.errors import UsageError
from kitgen.core.atomic import folder_lock, naming_error, ORPHAN_AGE, replace_file, stage, sync_folder, TEMPORARY

MANIFEST = "manifest.json"
UNFINISHED = "unfinished"  # marks a kit an earlier kitgen was killed while switching: no whole kit (refused)
@dataclass(frozen=True)
class OutputData:
    """A rendered file waiting to be written."""

    name: str
    data: bytes
    pages: int
    role: str
    for_players: bool
    sheets: int


class WrittenFile(Protocol):
    """What `write_outputs` reads of a file it writes (a rendered `OutputFile`, an `OutputData`)."""

    @property
    def name(self) -> str: ...
    @property
    def data(self) -> bytes: ...
    @property
    def pages(self) -> int: ...
    @property
    def sheets(self) -> int: ...
    @property
    def role(self) -> object: ...  # recorded as its text
    @property
    def for_players(self) -> bool: ...


def _listed(folder: Path, section: str = "files") -> set[str]:
    """The names the folder's manifest lists in `section` (`files`, or `artefacts`: the exporters' files, by path
    in the kit folder); none when it is missing or not a manifest."""
    try:
        files = json.loads((folder / MANIFEST).read_text()).get(section, {})
    except (OSError, ValueError, AttributeError):
        return set()
    return {name for name in files if isinstance(name, str)} if isinstance(files, dict) else set()


def artefact_name_ok(name: str) -> bool:
    """An exporter's file: a name in the kit folder or in one folder of it (`png/fox.png`), never hidden, never
    the manifest, never leading out."""
    parts = name.split("/")
    return 1 <= len(parts) <= 2 and all(part and not part.startswith(".") and Path(part).name == part
                                        for part in parts) and name != MANIFEST


def _encoded(manifest: dict[str, Any]) -> bytes:
    return (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()


def _own_file(folder: Path, name: str) -> bool:
    """A plain file directly in `folder` that a manifest may name (not the manifest, a folder or a symlink)."""
    target = folder / name
    return Path(name).name == name and name not in (MANIFEST, ".", "..") and target.is_file() \
        and not target.is_symlink()


def _suffixed(kit: str) -> re.Pattern[str]:
    """The names of the folders a write of `kit` makes beside it: mkdtemp's eight characters after new-/old-."""
    return re.compile(rf"\.{re.escape(kit)}\.(new|old)-[a-z0-9_]{{8}}")


def _dead(path: str, locked: bool, now: float) -> bool:
    """A leftover no live write is using: any, under the lock; without a lock, one untouched for an hour."""
    try:
        return locked or now - os.lstat(path).st_mtime > ORPHAN_AGE
    except OSError:
        return False


def _recover_and_clean(folder: Path, locked: bool) -> None:
    """Undo what a killed write of this kit left: a kit folder renamed aside and not replaced is put back (a kill
    between the two renames of the portable switch), then every folder a write made beside the kit is removed."""
    pattern, now = _suffixed(folder.name), time.time()
    try:
        names = sorted(entry.name for entry in os.scandir(folder.parent) if pattern.fullmatch(entry.name))
    except OSError:
        return
    olds = [name for name in names if name.split(".")[-1].startswith("old-")]
    if olds and not os.path.lexists(folder):  # (never a live write's: it renames its new kit in at once)
        os.rename(folder.parent / olds[0], folder)
        names.remove(olds[0])
    for name in names:
        path = folder.parent / name
        if _dead(str(path), locked, now):
            shutil.rmtree(path, ignore_errors=True)


def remove_leftovers_beside(folder: Path) -> None:
    """Remove what killed writes of the kit in `folder` left beside it (for a build that finds the kit up to date
    and writes nothing); under the same lock as the writes."""
    folder = Path(os.path.abspath(folder))
    try:
        with folder_lock(folder.parent) as locked:
            _recover_and_clean(folder, locked)
    except OSError:
        pass


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_renameat2: Callable[..., int] | Literal[False] | None = None  # False: the system has no such call


def _exchange(first: Path, second: Path) -> bool:
    """Swap two folders in one step (Linux renameat2 with RENAME_EXCHANGE). False where the system or the file
    system cannot; other failures raise."""
    global _renameat2
    if _renameat2 is None:
        try:
            function = ctypes.CDLL(None, use_errno=True).renameat2
            function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            function.restype = ctypes.c_int
            _renameat2 = function
        except (OSError, AttributeError, TypeError):
            _renameat2 = False
    if not _renameat2:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
        return False  # no such call, or a file system that cannot exchange (nothing was changed)
    raise OSError(code, os.strerror(code), str(second))


def _stage_into(staging: Path, name: str, data: bytes, named: Path) -> None:
    """Write `name` into the new kit's private folder (through a temporary file, as every write); a failure names
    the file the user asked for (`named`), not the private folder's."""
    try:
        replace_file(stage(staging / name, data), staging / name)
    except OSError as error:
        raise naming_error(error, named) from error


def _carry(source: str, target: Path, owned: frozenset[str] = frozenset(), at: str = "") -> None:
    """Put the user's file, link or folder at `source` into the new kit too (files are linked, not copied, where
    the system allows); the old kit keeps its own until it is removed after the switch. Inside a folder, the files
    kitgen's exporters own (`owned`, by path in the kit folder) are left to the new kit."""
    info = os.lstat(source)
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(source), target)
    elif stat.S_ISDIR(info.st_mode):
        os.mkdir(target)
        shutil.copystat(source, target, follow_symlinks=False)
        for entry in os.scandir(source):
            inner = f"{at}{Path(source).name}/{entry.name}"
            if inner in owned and entry.is_file(follow_symlinks=False):
                continue
            _carry(entry.path, target / entry.name, owned, f"{at}{Path(source).name}/")
    elif stat.S_ISREG(info.st_mode):
        try:
            os.link(source, target, follow_symlinks=False)
        except OSError:
            shutil.copy2(source, target, follow_symlinks=False)


def _refuse_foreign(folder: Path, given: Path) -> None:
    """A folder that holds anything but has no kitgen manifest is someone else's: never adopted as a kit folder
    (its files would be moved, its special files dropped, its sub-folders re-created)."""
    if not folder.is_dir() or (folder / MANIFEST).is_file():  # a damaged manifest is still a kit's, rewritten
        return
    if any(not TEMPORARY.fullmatch(entry.name) for entry in os.scandir(folder)):
        raise UsageError(f"{given}: this folder is not a kit folder (it has no {MANIFEST} written by kitgen); "
                         "expected an empty or a kit folder: move its files or choose another --out")


def write_outputs(folder: Path, files: Iterable[WrittenFile], record: dict[str, Any], artefacts: dict[str, bytes] | None = None) -> list[Path]:
    """Write every file (all rendered before anything is written), then the manifest; remove files that the
    previous manifest listed and this build no longer makes (and nothing else). Items of `files` have `.name`,
    `.data`, `.pages`, `.role`, `.for_players` and `.sheets`. The kit folder is switched from the old kit to the
    new one in one step (see the module's text). The exporters' `artefacts` ({path in the kit folder: bytes}) are
    written with the kit and listed in its manifest too, so they are replaced and removed with it."""
    files, artefacts = list(files), dict(artefacts or {})
    entries = {f.name: {"sha256": hashlib.sha256(f.data).hexdigest(), "bytes": len(f.data), "pages": f.pages,
                        "sheets": f.sheets, "role": str(f.role), "for_players": f.for_players} for f in files}
    for name in artefacts:
        if not artefact_name_ok(name) or name in entries:
            raise ValueError(f"not a file name for a kit folder: {name!r}")
    made = {name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)} for name, data in artefacts.items()}
    manifest = _encoded(dict(record, files=entries, **({"artefacts": made} if made else {})))
    given = folder
    folder = Path(os.path.abspath(folder))
    if folder.is_symlink():
        folder = folder.resolve()  # the folder it names is the kit folder (the link itself stays)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with folder_lock(folder.parent) as locked:
        _recover_and_clean(folder, locked)
        _refuse_foreign(folder, given)
        folder.mkdir(exist_ok=True)
        with folder_lock(folder) as locked_kit:
            previous = _listed(folder)
            owned = frozenset(_listed(folder, "artefacts") | set(artefacts))
            try:
                staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.new-", dir=folder.parent))
            except OSError as error:
                raise naming_error(error, given / (files[0].name if files else MANIFEST)) from error
            trash = staging
            try:
                os.chmod(staging, stat.S_IMODE(os.stat(folder).st_mode))
                for f in files:
                    if Path(f.name).name != f.name or f.name in (MANIFEST, ".", ".."):
                        raise ValueError(f"not a file name for a kit folder: {f.name!r}")
                    _stage_into(staging, f.name, f.data, given / f.name)
                now = time.time()
                for entry in os.scandir(folder):
                    name = entry.name
                    if name == MANIFEST or name in entries or (name in previous and _own_file(folder, name)):
                        continue  # kitgen's: replaced by the new kit, or no longer made
                    if name in owned and entry.is_file(follow_symlinks=False):
                        continue  # an exporter's file: the same
                    if TEMPORARY.fullmatch(name) and _dead(entry.path, locked_kit, now):
                        continue  # a file a killed write left (never a live write's: see the lock)
                    _carry(entry.path, staging / name, owned)
                for emptied in {name.split("/")[0] for name in owned if "/" in name}:
                    if (staging / emptied).is_dir() and not any((staging / emptied).iterdir()):
                        (staging / emptied).rmdir()  # held only an earlier build's exporter files
                for name, data in sorted(artefacts.items()):
                    (staging / name).parent.mkdir(exist_ok=True)
                    _stage_into(staging, name, data, given / name)
                _stage_into(staging, MANIFEST, manifest, given / MANIFEST)
                sync_folder(staging)
                if not _exchange(staging, folder):
                    aside = folder.parent / f".{folder.name}.old-{staging.name[-8:]}"
                    os.rename(folder, aside)  # a kill from here to the next rename: the next write puts it back
                    try:
                        os.rename(staging, folder)
                    except BaseException:
                        os.rename(aside, folder)
                        raise
                    trash = aside
                sync_folder(folder.parent)
            finally:
                shutil.rmtree(trash, ignore_errors=True)  # the old kit after the switch; the unused new one before
    return [given / f.name for f in files]

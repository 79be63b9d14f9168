"""Rebuild while you edit: `kitgen build ... --watch` keeps one warm process and rebuilds what changed.

A cold `kitgen build` spends most of its time starting Python and importing ReportLab and pydantic; a
watching process pays that once, so a rebuild after an edit costs only the kits that changed (the build is
incremental, as without --watch). The operating system's file events (watchfiles) say when something below the
watched folders changed; nothing is polled. A change is acted on once the events have stopped for one interval,
so an editor's save-in-several-steps gives one rebuild, and the files are then compared with a snapshot taken
before, so only real changes to content files (not editor droppings, not the output) trigger a rebuild.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:
    from watchfiles._rust_notify import RustNotify

Snapshot = dict[str, tuple[int, int]]


def ignored(name: str) -> bool:
    """Editor droppings and hidden files: swap files, backups, lock files (a spreadsheet program's `~$name.xlsx`
    and `.~lock.name.ods#` too). A spreadsheet itself is watched like any content file."""
    return name.startswith((".", "#", "~$")) or name.endswith(("~", ".swp", ".tmp"))


def snapshot(folders: Iterable[Path], skip: Iterable[Path] = ()) -> Snapshot:
    """Every file below `folders` (not below `skip`): path → (modification time in ns, size in bytes).

    A symlinked folder is followed only when it leads to a folder inside one of `folders` that this scan has
    not seen yet: a link out of the library (`ln -s /usr`) or back up into it (`ln -s .`) is not followed.
    """
    skipped = {str(Path(folder).resolve()) for folder in skip}
    roots = [Path(folder).resolve() for folder in folders]
    seen: Snapshot = {}
    visited: set[tuple[int, int]] = set()  # (device, inode) of every folder scanned
    pending = [Path(folder) for folder in folders]
    while pending:
        folder = pending.pop()
        try:
            real = folder.resolve()
            info = real.stat()
        except (OSError, RuntimeError):
            continue  # a folder that is missing or unreadable now is looked at again next time
        if str(real) in skipped or (info.st_dev, info.st_ino) in visited:
            continue
        visited.add((info.st_dev, info.st_ino))
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if ignored(entry.name):
                continue
            try:
                if entry.is_dir():
                    if entry.is_symlink():
                        target = Path(entry.path).resolve()
                        if not any(target.is_relative_to(root) for root in roots):
                            continue
                    pending.append(Path(entry.path))
                elif entry.is_file():
                    info = entry.stat()
                    seen[entry.path] = (info.st_mtime_ns, info.st_size)
            except (OSError, RuntimeError):
                continue
    return seen


def changed(before: Snapshot, after: Snapshot) -> list[str]:
    """Files added, removed or modified between two snapshots, sorted."""
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


class _Stop:
    """`stop()` as the event object watchfiles asks `is_set()` every step."""

    def __init__(self, stop: Callable[[], bool]):
        self.is_set = stop


def file_events(folders: list[Path]) -> tuple[RustNotify, list[str]]:
    """A watcher of the operating system's file events below `folders` (those that exist now)."""
    from watchfiles._rust_notify import RustNotify  # (watchfiles.main uses it without exporting it)

    existing = [str(folder) for folder in folders if Path(folder).is_dir()]
    return RustNotify(existing, False, False, 300, True, True), existing


def watch(folders: Callable[[], list[Path]], rebuild: Callable[[list[str]], None], *, skip: Iterable[Path] = (),
          interval: float = 0.03, stop: Callable[[], bool] = lambda: False) -> None:
    """Call `rebuild([])` once, then `rebuild(changed_files)` each time files below `folders()` change and
    settle (no event for `interval` seconds), until `stop()`.

    The watcher is listening before the first build, so a save made while it runs is not missed; `folders`
    is asked again after each change, so a new activity folder (or templates folder) is watched too.
    """
    skip = list(skip)
    skipped = [str(Path(folder).resolve()) for folder in skip]
    watched = folders()
    notify, listening = file_events(watched)
    current = snapshot(watched, skip)
    step = max(10, int(interval * 1000))
    stop_event = _Stop(stop)
    try:
        rebuild([])
        while not stop():
            raw = notify.watch(60_000, step, step * 5, stop_event)  # grouped until quiet for one step
            if raw == "signal":
                raise KeyboardInterrupt
            if raw == "stop" or raw == "timeout":
                continue
            relevant = [path for _change, path in raw if not ignored(Path(path).name)
                        and not any(Path(path).resolve().is_relative_to(folder) for folder in skipped)]
            if not relevant:
                continue  # only the output or an editor's swap file changed
            watched = folders()
            latest = snapshot(watched, skip)
            if [str(folder) for folder in watched if Path(folder).is_dir()] != listening:
                notify.close()
                notify, listening = file_events(watched)
            files = changed(current, latest)
            current = latest
            if files:
                rebuild(files)
    finally:
        notify.close()

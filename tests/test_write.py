"""The write stage and the up-to-date check: a kit on disk is never mixed, and a file that does not match its
manifest is noticed.

Kills are real: a forked child is sent SIGKILL as it reaches a chosen step (a rename, an exchange of two folders,
a removal, a new folder or link, a flush to disk), so no `finally` or `except` of kitgen's runs, as when a build is
killed or the machine loses power.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import signal
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

import pytest

import kitgen.write.kitdir
from kitgen.app.build import build, BuildOptions
from kitgen.write.fresh import verified_manifest
from kitgen.load.library import Library
from kitgen.write.kitdir import MANIFEST, write_outputs
from kitgen.core.atomic import write_atomic

from conftest import yaml_data, yaml_text

REPO = Path(__file__).resolve().parents[1]
GROWING = REPO / "content" / "growing-discard.yaml"
ACTIVITY = "growing-discard"


def output(name: str, data: bytes, role: str = "cards") -> SimpleNamespace:
    """A rendered file as write_outputs takes it (duck typed)."""
    return SimpleNamespace(name=name, data=data, pages=1, role=role, for_players=role != "host-key", sheets=1)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# the calls a kill may come before: every change a write makes on disk, and every flush
STEPS = ("replace", "rename", "unlink", "rmdir", "mkdir", "link", "symlink", "fsync")


@pytest.fixture(autouse=True)
def no_cache_on_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kills here count the steps of writing a kit. A build also keeps its drawings in the user's cache, and
    whether it writes there depends on what earlier builds kept (a probe build that counts the steps fills the
    cache, so the build it is measuring for writes less): with no cache folder, every build of the same input makes
    the same steps."""
    monkeypatch.setenv("KITGEN_CACHE", "off")


def stepping(wrap: Callable, portable: bool = False, only: tuple[str, ...] | None = None) -> list[tuple]:
    """(owner, name, replacement) for every step, each real call wrapped by `wrap`; with `portable`, the system
    cannot exchange two folders (the two-rename switch is used)."""
    exchange = (lambda first, second: False) if portable else kitgen.write.kitdir._exchange
    patches = [(os, name, wrap(getattr(os, name))) for name in STEPS] + [(kitgen.write.kitdir, "_exchange", wrap(exchange))]
    return [patch for patch in patches if only is None or patch[1] in only]


def killed_at(step: int, action: Callable[[], object], portable: bool = False,
              only: tuple[str, ...] | None = None) -> str:
    """Run `action` in a forked child killed with SIGKILL when it reaches its `step`-th step (counting from 0; of
    the `only` kinds, when given). 'killed', 'finished' (it never got that far) or 'failed'."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        code = 3
        try:
            calls = [0]

            def lethal(real):
                def call(*args, **kwargs):
                    if calls[0] == step:
                        os.kill(os.getpid(), signal.SIGKILL)
                    calls[0] += 1
                    return real(*args, **kwargs)
                return call

            for owner, name, replacement in stepping(lethal, portable, only):
                setattr(owner, name, replacement)
            action()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return "killed"
    return "finished" if os.WEXITSTATUS(status) == 0 else "failed"


def steps_of(action: Callable[[], object], monkeypatch: pytest.MonkeyPatch, portable: bool = False) -> int:
    """How many steps `action` makes (run in this process)."""
    calls = [0]

    def counted(real):
        def call(*args, **kwargs):
            calls[0] += 1
            return real(*args, **kwargs)
        return call

    with monkeypatch.context() as patch:
        for owner, name, replacement in stepping(counted, portable):
            patch.setattr(owner, name, replacement)
        action()
    return calls[0]


def leftovers(where: Path) -> list[str]:
    """What killed writes may leave, anywhere under `where`: temporary files and the folders beside a kit."""
    return sorted(str(p.relative_to(where)) for p in where.rglob("*")
                  if p.name.endswith(".tmp") or re.fullmatch(r"\..+\.(new|old)-[a-z0-9_]{8}", p.name))


# --------------------------------------------------------------------------- write_atomic


def test_write_atomic_replaces_the_file_and_never_writes_into_it(tmp_path: Path):
    """A reader holding the old file (here: a second name for it) keeps the old bytes: the new ones go to a new
    file that is renamed over the old name."""
    target = tmp_path / "kit.pdf"
    target.write_bytes(b"old contents")
    os.link(target, tmp_path / "reader.pdf")
    write_atomic(target, b"new contents, longer")
    assert target.read_bytes() == b"new contents, longer"
    assert (tmp_path / "reader.pdf").read_bytes() == b"old contents"
    assert temporaries(tmp_path) == []


def test_a_full_disk_keeps_the_old_file_and_names_the_real_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    target = tmp_path / "kit.pdf"
    target.write_bytes(b"old contents")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(kitgen.write.kitdir.os, "fsync", full)
    with pytest.raises(OSError) as caught:
        write_atomic(target, b"new contents")
    assert caught.value.errno == errno.ENOSPC
    assert caught.value.filename == str(target)
    assert target.read_bytes() == b"old contents"
    assert temporaries(tmp_path) == []


def test_a_refused_temporary_file_is_reported_under_the_real_name(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch):
    def refuse(dir: str, prefix: str, suffix: str):
        raise PermissionError(errno.EACCES, "Permission denied", os.path.join(dir, prefix + "k2j4h5g6" + suffix))

    monkeypatch.setattr(kitgen.write.kitdir.tempfile, "mkstemp", refuse)
    target = tmp_path / "kit" / "sheets.pdf"
    with pytest.raises(PermissionError) as caught:
        write_outputs(target.parent, [output("sheets.pdf", b"%PDF")], {})
    assert caught.value.filename == str(target)


def test_write_atomic_removes_what_a_killed_write_left(tmp_path: Path):
    target = tmp_path / "index.pdf"
    assert killed_at(0, lambda: write_atomic(target, b"new"), only=("replace",)) == "killed"
    assert len(temporaries(tmp_path)) == 1, "the kill came after the temporary file was written"
    (tmp_path / ".notes.txt.tmp").write_bytes(b"not kitgen's")
    write_atomic(target, b"newer")
    assert target.read_bytes() == b"newer"
    assert temporaries(tmp_path) == [".notes.txt.tmp"]


# --------------------------------------------------------------------------- write_outputs


OLD = [output("k-cards.pdf", b"old cards"), output("k-sheets.pdf", b"old sheets", "sheets"),
       output("k-optional.pdf", b"old optional deck", "optional-cards")]
NEW = [output("k-cards.pdf", b"new cards!"), output("k-sheets.pdf", b"new sheets!", "sheets"),
       output("k-guide.pdf", b"new guide", "print-guide")]
# what a teacher (or a later stage of the build) put into the kit folder: kitgen's manifest never lists it
USER = {"notes.txt": b"bring scissors", "png/k-cards-1.png": b"\x89PNG picture", "png/k-cards-2.png": b"\x89PNG 2",
        "latest.pdf": ("link", "k-cards.pdf")}


def tree(folder: Path) -> dict[str, object]:
    """Everything in the folder, at any depth: a file's bytes, or ('link', target) for a symbolic link."""
    state: dict[str, object] = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.is_symlink():
            state[name] = ("link", os.readlink(path))
        elif path.is_file():
            state[name] = path.read_bytes()
    return state


def add_user_files(folder: Path) -> None:
    for name, data in USER.items():
        (folder / name).parent.mkdir(exist_ok=True)
        if isinstance(data, tuple):
            os.symlink(data[1], folder / name)
        else:
            (folder / name).write_bytes(data)


def whole(folder: Path, files: list[SimpleNamespace], record: dict, user: dict | None = None) -> bool:
    """The folder holds exactly this kit, every file byte for byte, a manifest that lists them, and the user's
    files (`user`) untouched."""
    if not folder.is_dir():
        return False
    state = {name: data for name, data in tree(folder).items() if not name.endswith(".tmp")}
    manifest = json.loads(state.pop(MANIFEST, b"null"))
    return (state == {**{f.name: f.data for f in files}, **(user or {})} and isinstance(manifest, dict)
            and manifest.get("build") == record["build"] and sorted(manifest["files"]) == sorted(f.name for f in files))


def test_write_outputs_lists_every_file_with_its_hash(tmp_path: Path):
    write_outputs(tmp_path, NEW, {"build": 2})
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert manifest["build"] == 2
    for item in NEW:
        entry = manifest["files"][item.name]
        assert entry == {"sha256": hashlib.sha256(item.data).hexdigest(), "bytes": len(item.data), "pages": 1,
                         "sheets": 1, "role": item.role, "for_players": item.for_players}
    assert verified_manifest(tmp_path) == manifest


def test_write_outputs_keeps_the_users_files_and_removes_only_what_kitgen_no_longer_makes(tmp_path: Path):
    kit = tmp_path / "k"
    assert write_outputs(kit, OLD, {"build": 1}) == [kit / f.name for f in OLD]
    add_user_files(kit)
    (kit / "k-optional.pdf.bak").write_bytes(b"a copy the teacher made")
    assert write_outputs(kit, NEW, {"build": 2}) == [kit / f.name for f in NEW]
    assert whole(kit, NEW, {"build": 2}, {**USER, "k-optional.pdf.bak": b"a copy the teacher made"})
    assert leftovers(tmp_path) == []
    (kit / "k-guide.pdf").unlink()
    write_outputs(kit, NEW, {"build": 3})  # a listed file missing: written again, nothing else disturbed
    assert whole(kit, NEW, {"build": 3}, {**USER, "k-optional.pdf.bak": b"a copy the teacher made"})


def test_a_users_file_with_the_name_of_a_new_output_gives_way_to_it(tmp_path: Path):
    """As before: the kit's file is written over a file of that name the manifest did not list."""
    kit = tmp_path / "k"
    write_outputs(kit, OLD, {"build": 1})
    (kit / "k-guide.pdf").write_bytes(b"the user's own guide")
    write_outputs(kit, NEW, {"build": 2})
    assert whole(kit, NEW, {"build": 2})


def the_kit(kit: Path) -> str:
    """'old', 'new' (each whole, with the user's files) or 'missing' (no kit folder: the two-rename switch was
    killed between its renames, with the old kit whole beside it); anything else is a mix."""
    if whole(kit, OLD, {"build": 1}, USER):
        return "old"
    if whole(kit, NEW, {"build": 2}, USER):
        return "new"
    aside = sorted(kit.parent.glob(f".{kit.name}.old-*"))
    if not kit.exists() and len(aside) == 1 and whole(aside[0], OLD, {"build": 1}, USER):
        return "missing"
    return f"mixed: {sorted(tree(kit)) if kit.exists() else 'no folder'}"


@pytest.mark.parametrize("portable", [False, True], ids=["exchange", "two-renames"])
def test_a_kill_at_any_step_leaves_the_old_kit_or_the_new_one(portable: bool, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch):
    """Killed at each step of the switch in turn: the folder holds the whole old kit or the whole new one (every
    file's bytes compared), the user's files are there, and the up-to-date check accepts exactly that kit; the
    next write leaves its kit whole and nothing of the killed one behind. With the portable switch a kill
    between its two renames leaves no kit folder (the check finds no kit), and the next write puts the old kit
    back before it starts."""
    probe = tmp_path / "probe" / "k"
    write_outputs(probe, OLD, {"build": 1})
    add_user_files(probe)
    steps = steps_of(lambda: write_outputs(probe, NEW, {"build": 2}), monkeypatch, portable)
    assert steps >= 12, steps
    outcomes = []
    for step in range(steps + 1):
        kit = tmp_path / str(step) / "k"
        write_outputs(kit, OLD, {"build": 1})
        add_user_files(kit)
        outcome = killed_at(step, lambda kit=kit: write_outputs(kit, NEW, {"build": 2}), portable)
        assert outcome == ("finished" if step == steps else "killed"), (step, outcome)
        state = the_kit(kit)
        outcomes.append(state)
        assert state in ("old", "new", "missing") and (state != "missing" or portable), (step, state)
        checked = verified_manifest(kit)
        assert (checked or {}).get("build") == {"old": 1, "new": 2, "missing": None}[state], (step, state)
        if state == "missing":
            write_outputs(kit, OLD, {"build": 3})  # the next write first puts the old kit (and the user's files) back
            assert whole(kit, OLD, {"build": 3}, USER), step
        write_outputs(kit, NEW, {"build": 4})
        assert whole(kit, NEW, {"build": 4}, USER), step
        assert leftovers(tmp_path / str(step)) == [], step
    assert outcomes[0] == "old" and outcomes[-1] == "new", outcomes
    assert set(outcomes) == ({"old", "new", "missing"} if portable else {"old", "new"}), outcomes


def test_a_kill_leaves_its_new_kit_aside_and_the_next_write_removes_it(tmp_path: Path):
    kit = tmp_path / "k"
    write_outputs(kit, OLD, {"build": 1})
    add_user_files(kit)
    (kit / ".k-cards.pdf.a1b2c3d4.tmp").write_bytes(b"left by a killed write of an older kitgen")
    (tmp_path / ".other.new-abcd1234").mkdir()  # another kit's: not this write's to remove
    (tmp_path / ".k.new-notes").mkdir()  # not a name kitgen makes
    assert killed_at(0, lambda: write_outputs(kit, NEW, {"build": 2}), only=("_exchange",)) == "killed"
    assert whole(kit, OLD, {"build": 1}, USER)
    aside = sorted(p.name for p in tmp_path.glob(".k.new-????????"))
    assert len(aside) == 1 and whole(tmp_path / aside[0], NEW, {"build": 2}, USER), "the kill came before the switch"
    write_outputs(kit, NEW, {"build": 3})
    assert whole(kit, NEW, {"build": 3}, USER)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == [".k.new-notes",
                                                                                      ".other.new-abcd1234"]
    assert leftovers(kit) == []


def test_a_manifest_is_accepted_only_while_every_file_matches_it(tmp_path: Path):
    write_outputs(tmp_path, NEW, {"build": 2})
    assert verified_manifest(tmp_path) is not None
    cards = tmp_path / "k-cards.pdf"
    cards.write_bytes(b"new cards?")  # same size, other bytes
    assert verified_manifest(tmp_path) is None
    cards.write_bytes(b"new cards!")
    assert verified_manifest(tmp_path) is not None
    cards.unlink()
    assert verified_manifest(tmp_path) is None


@pytest.mark.parametrize("text", ["[1, 2]", '{"files": [1]}', '{"files": {"a.pdf": 3}}', '"text"', "{",
                                  '{"files": {"a.pdf": {"sha256": 1, "bytes": "x"}}}', '{"inputs": []}'],
                         ids=["list", "files-list", "entry-int", "string", "not-json", "wrong-types", "inputs-list"])
def test_a_manifest_of_the_wrong_shape_is_no_manifest(text: str, tmp_path: Path):
    (tmp_path / "a.pdf").write_bytes(b"x")
    (tmp_path / MANIFEST).write_text(text)
    assert verified_manifest(tmp_path) is None
    write_outputs(tmp_path, NEW, {"build": 2})
    assert whole(tmp_path, NEW, {"build": 2}) or (tmp_path / "a.pdf").read_bytes() == b"x"


# --------------------------------------------------------------------------- the next build notices


def growing_copy(content: Path, change: Callable[[dict], None] | None = None) -> None:
    data = yaml_data(GROWING.read_text(encoding="utf-8"))
    if change:
        change(data)
    content.mkdir(parents=True, exist_ok=True)
    (content / f"{ACTIVITY}.yaml").write_text(yaml_text(data), encoding="utf-8")


def incremental(content: Path, out: Path):
    return build(ACTIVITY, BuildOptions(out_dir=out, incremental=True), Library.open(content))


def typo(data: dict) -> None:
    """A typo in the rules ("tunrs"): every file keeps its size, only the rules page's bytes differ."""
    data["rules"]["play"][0] = data["rules"]["play"][0].replace("turns", "tunrs", 1)


@pytest.mark.parametrize("kill", ["at the switch", "at the last step"])
def test_a_killed_build_then_a_revert_leaves_a_whole_kit_that_the_check_judges_right(
        kill: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Build A; fix a typo into B (every file keeps its size), build it and kill it just before the folders are
    switched, or at its very last step (the old kit's removal): the folder holds kit A or kit B whole, byte for
    byte. Go back to A: the next build calls the folder up to date only if it holds kit A, and leaves kit A."""
    content, out = tmp_path / "content", tmp_path / "out"
    growing_copy(content)
    first = incremental(content, out)
    reference = snapshot(first.folder)
    shutil.copytree(out, tmp_path / "probe")
    growing_copy(content, typo)
    steps = steps_of(lambda: incremental(content, tmp_path / "probe"), monkeypatch)
    second = snapshot(tmp_path / "probe" / ACTIVITY)
    assert {name: len(data) for name, data in second.items() if name != MANIFEST} == \
        {name: len(data) for name, data in reference.items() if name != MANIFEST}, "the sizes must not tell"
    if kill == "at the switch":
        assert killed_at(0, lambda: incremental(content, out), only=("_exchange",)) == "killed"
    else:
        assert killed_at(steps - 1, lambda: incremental(content, out)) == "killed"
    now = snapshot(first.folder)
    assert now == (reference if kill == "at the switch" else second), "the kit on disk is not whole"
    growing_copy(content)
    again = incremental(content, out)
    assert again.skipped == (kill == "at the switch"), "a kit that is not A's was called up to date"
    assert snapshot(first.folder) == reference
    assert leftovers(out) == []


def test_an_output_file_that_does_not_match_its_manifest_is_rebuilt(tmp_path: Path):
    content, out = tmp_path / "content", tmp_path / "out"
    growing_copy(content)
    first = incremental(content, out)
    reference = snapshot(first.folder)
    sheets = next(f.path for f in first.files if f.role == "sheets")
    spoilt = bytearray(sheets.read_bytes())
    spoilt[len(spoilt) // 2] ^= 0x20  # same size, one byte changed
    sheets.write_bytes(bytes(spoilt))
    again = incremental(content, out)
    assert not again.skipped
    assert snapshot(first.folder) == reference
    assert incremental(content, out).skipped


def test_a_missing_output_file_is_rebuilt(tmp_path: Path):
    content, out = tmp_path / "content", tmp_path / "out"
    growing_copy(content)
    first = incremental(content, out)
    guide = next(f.path for f in first.files if f.role == "print-guide")
    guide.unlink()
    again = incremental(content, out)
    assert not again.skipped
    assert guide.is_file()


def test_a_killed_build_leaves_nothing_behind_after_the_next_one(tmp_path: Path):
    content, out = tmp_path / "content", tmp_path / "out"
    growing_copy(content)
    incremental(content, out)
    growing_copy(content, lambda data: data.update(title="Another title"))
    assert killed_at(0, lambda: incremental(content, out), only=("_exchange",)) == "killed"
    assert leftovers(out), "the kill came after the new kit was written beside the old one"
    assert not incremental(content, out).skipped
    assert leftovers(out) == []
    assert incremental(content, out).skipped


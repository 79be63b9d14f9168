"""The write stage and the up-to-date check: a kit on disk is never mixed, and a file that does not match its
manifest is noticed.

Kills are real: a forked child is sent SIGKILL as it reaches a chosen rename or removal, so no `finally` or
`except` of kitgen's runs, as when a build is killed or the machine loses power.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

import pytest
import yaml

import kitgen.write
from kitgen.build import BuildOptions, build
from kitgen.inputs import verified_manifest
from kitgen.library import Library
from kitgen.write import MANIFEST, write_atomic, write_outputs

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


def killed_at(step: int, action: Callable[[], object]) -> str:
    """Run `action` in a forked child killed with SIGKILL when it reaches its `step`-th rename or removal
    (counting from 0). 'killed', 'finished' (it never got that far) or 'failed'."""
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

            os.replace, os.rename, os.unlink = lethal(os.replace), lethal(os.rename), lethal(os.unlink)
            action()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return "killed"
    return "finished" if os.WEXITSTATUS(status) == 0 else "failed"


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

    monkeypatch.setattr(kitgen.write.os, "fsync", full)
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

    monkeypatch.setattr(kitgen.write.tempfile, "mkstemp", refuse)
    target = tmp_path / "kit" / "sheets.pdf"
    with pytest.raises(PermissionError) as caught:
        write_outputs(target.parent, [output("sheets.pdf", b"%PDF")], {})
    assert caught.value.filename == str(target)


def test_write_atomic_removes_what_a_killed_write_left(tmp_path: Path):
    target = tmp_path / "index.pdf"
    assert killed_at(0, lambda: write_atomic(target, b"new")) == "killed"
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


def whole(folder: Path, files: list[SimpleNamespace], record: dict) -> bool:
    """The folder holds exactly this kit: its files, byte for byte, and a manifest that lists them."""
    state = {name: data for name, data in snapshot(folder).items() if not name.endswith(".tmp")}
    manifest = json.loads(state.pop(MANIFEST, b"null"))
    return (state == {f.name: f.data for f in files} and isinstance(manifest, dict)
            and manifest.get("build") == record["build"] and sorted(manifest["files"]) == sorted(state))


def test_write_outputs_lists_every_file_with_its_hash(tmp_path: Path):
    write_outputs(tmp_path, NEW, {"build": 2})
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert manifest["build"] == 2
    for item in NEW:
        entry = manifest["files"][item.name]
        assert entry == {"sha256": hashlib.sha256(item.data).hexdigest(), "bytes": len(item.data), "pages": 1,
                         "sheets": 1, "role": item.role, "for_players": item.for_players}
    assert verified_manifest(tmp_path) == manifest


@pytest.mark.parametrize("step", range(8))
def test_a_kill_at_any_step_leaves_the_old_kit_the_new_one_or_one_marked_unfinished(step: int, tmp_path: Path):
    """Killed at its `step`-th rename or removal: the folder holds the whole old kit, the whole new one, or a
    manifest that no check accepts (so the next build rebuilds); a later write leaves no temporary file."""
    write_outputs(tmp_path, OLD, {"build": 1})
    outcome = killed_at(step, lambda: write_outputs(tmp_path, NEW, {"build": 2}))
    if outcome == "finished":
        assert whole(tmp_path, NEW, {"build": 2})
        return
    assert outcome == "killed"
    if not (whole(tmp_path, OLD, {"build": 1}) or whole(tmp_path, NEW, {"build": 2})):
        assert verified_manifest(tmp_path) is None, f"a mixed kit passes as whole: {sorted(snapshot(tmp_path))}"
    write_outputs(tmp_path, OLD, {"build": 3})
    assert whole(tmp_path, OLD, {"build": 3}), "the next build put the old kit back whole (the stale file gone)"
    assert temporaries(tmp_path) == []


def test_some_kill_leaves_a_marked_kit(tmp_path: Path):
    """The steps above do reach the middle of the switch (else they would prove nothing)."""
    outcomes = []
    for step in range(8):
        folder = tmp_path / str(step)
        write_outputs(folder, OLD, {"build": 1})
        killed_at(step, lambda: write_outputs(folder, NEW, {"build": 2}))
        outcomes.append("old" if whole(folder, OLD, {"build": 1}) else "new" if whole(folder, NEW, {"build": 2})
                        else "marked")
    assert {"old", "marked", "new"} <= set(outcomes), outcomes


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
    data = yaml.safe_load(GROWING.read_text(encoding="utf-8"))
    if change:
        change(data)
    content.mkdir(parents=True, exist_ok=True)
    (content / f"{ACTIVITY}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False),
                                              encoding="utf-8")


def incremental(content: Path, out: Path):
    return build(ACTIVITY, BuildOptions(out_dir=out, incremental=True), Library.open(content))


def renames_and_removals(action: Callable[[], object], monkeypatch: pytest.MonkeyPatch) -> int:
    """How many renames and removals `action` makes (run in this process)."""
    calls = [0]

    def counted(real):
        def call(*args, **kwargs):
            calls[0] += 1
            return real(*args, **kwargs)
        return call

    with monkeypatch.context() as patch:
        for name in ("replace", "rename", "unlink"):
            patch.setattr(os, name, counted(getattr(os, name)))
        action()
    return calls[0]


def typo(data: dict) -> None:
    """A typo in the rules ("fisrt"): every file keeps its size, only the rules page's bytes differ."""
    data["rules"]["play"][0] = data["rules"]["play"][0].replace("first", "fisrt", 1)


def test_a_kill_before_the_manifest_then_a_revert_rebuilds_the_old_kit(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch):
    """Build A; fix a typo into B, build it and kill it at its last rename (its files are in place, its manifest
    is not); go back to A: the next build must not call the mixed folder up to date (the typo still printed),
    and must put kit A back."""
    content, out = tmp_path / "content", tmp_path / "out"
    growing_copy(content)
    first = incremental(content, out)
    reference = snapshot(first.folder)
    shutil.copytree(out, tmp_path / "probe")
    growing_copy(content, typo)
    steps = renames_and_removals(lambda: incremental(content, tmp_path / "probe"), monkeypatch)
    second = snapshot(tmp_path / "probe" / ACTIVITY)
    assert {name: len(data) for name, data in second.items() if name != MANIFEST} == \
        {name: len(data) for name, data in reference.items() if name != MANIFEST}, "the sizes must not tell"
    assert killed_at(steps - 1, lambda: incremental(content, out)) == "killed"
    now = snapshot(first.folder)
    assert any(now.get(name) == data for name, data in second.items() if name != MANIFEST), \
        "the kill came after B's files were in place"
    growing_copy(content)
    again = incremental(content, out)
    assert not again.skipped, "a mixed kit was called up to date"
    assert snapshot(first.folder) == reference
    assert temporaries(first.folder) == []


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
    first = incremental(content, out)
    growing_copy(content, lambda data: data.update(title="Another title"))
    assert killed_at(0, lambda: incremental(content, out)) == "killed"
    assert temporaries(first.folder), "the kill came after the files were staged"
    incremental(content, out)
    assert temporaries(first.folder) == []


"""`kitgen build --watch`: one warm process that rebuilds after each edit, shows content errors and goes on.

The end-to-end test runs the command in a real process on a copy of the library, edits the YAML as an
author would, and reads the kit's PDF after each rebuild; what the PDF must say comes from the edit.
"""
from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import pypdf
import pytest

from conftest import ACTIVITY, CONTENT, kitgen_env
from kitgen.app.watch import changed, snapshot, watch

LINE_TIMEOUT = 120  # seconds: generous, a slow machine must not make this test flaky


def test_snapshot_sees_added_changed_and_removed_files_but_not_editor_files_or_the_output(tmp_path: Path):
    content, out = tmp_path / "content", tmp_path / "content" / "out"
    (content / "nested").mkdir(parents=True)
    out.mkdir()
    (content / "a.yaml").write_text("a")
    (content / "nested" / "b.yaml").write_text("b")
    (out / "kit.pdf").write_text("pdf")
    before = snapshot([content], skip=[out])
    assert sorted(Path(p).name for p in before) == ["a.yaml", "b.yaml"]
    (content / ".a.yaml.swp").write_text("swap")
    (content / "a.yaml~").write_text("backup")
    (out / "kit.pdf").write_text("rebuilt pdf")
    assert changed(before, snapshot([content], skip=[out])) == []
    (content / "a.yaml").write_text("a, edited")
    (content / "nested" / "b.yaml").unlink()
    (content / "c.yaml").write_text("c")
    assert [Path(p).name for p in changed(before, snapshot([content], skip=[out]))] == ["a.yaml", "c.yaml", "b.yaml"]


def run_watch(folder: Path, rebuild: Callable[[list[str]], None],
              seconds_after_first_change: float = 1.0) -> list[list[str]]:
    """Run `watch` on `folder` in a thread until a rebuild with changed files has happened and some time passed."""
    done = threading.Event()
    calls: list[list[str]] = []

    def record(files: list[str]) -> None:
        calls.append(files)
        rebuild(files)

    thread = threading.Thread(target=watch, args=(lambda: [folder], record),
                              kwargs={"interval": 0.2, "stop": done.is_set}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not any(calls) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(seconds_after_first_change)  # no further call may follow
    done.set()
    thread.join(timeout=5)
    return calls


def test_several_quick_writes_give_one_rebuild(tmp_path: Path):
    source = tmp_path / "a.yaml"
    source.write_text("0")

    def edit_in_steps(files: list[str]) -> None:
        if not files:  # after the first build, an editor saves in steps, faster than the interval
            time.sleep(0.5)
            for step in range(3):
                source.write_text(f"{step + 1}" * (step + 1))
                time.sleep(0.05)

    assert run_watch(tmp_path, edit_in_steps) == [[], [str(source)]]


def test_a_save_during_the_first_build_is_not_missed(tmp_path: Path):
    source = tmp_path / "a.yaml"
    source.write_text("0")

    def save_while_building(files: list[str]) -> None:
        if not files:
            source.write_text("saved while the first build ran")

    assert run_watch(tmp_path, save_while_building) == [[], [str(source)]]


def test_the_files_are_not_scanned_over_and_over_while_nothing_changes(tmp_path: Path, monkeypatch):
    """The operating system says when a file was saved (no polling): a big library costs nothing while idle, and
    a save is noticed at once rather than at the next scan."""
    import kitgen.app.watch

    for number in range(20):
        (tmp_path / f"{number}.yaml").write_text("x")
    scans: list[float] = []
    real_snapshot = kitgen.app.watch.snapshot
    monkeypatch.setattr(kitgen.app.watch, "snapshot", lambda *args, **kwargs: scans.append(1) or real_snapshot(*args, **kwargs))
    source = tmp_path / "0.yaml"

    def edit_once_after_idling(files: list[str]) -> None:
        if not files:
            time.sleep(1.5)  # idle: polling every 0.2 s would scan the folder about 7 times
            scans.clear()
            source.write_text("edited")

    assert run_watch(tmp_path, edit_once_after_idling) == [[], [str(source)]]
    assert len(scans) <= 2, f"{len(scans)} scans for one save"


def test_an_unknown_activity_ends_the_watch_at_once(tmp_path: Path):
    """No edit can fix a wrong command line, so --watch does not wait: exit 2, as without it."""
    from click.testing import CliRunner

    from kitgen.cli import main

    shutil.copytree(CONTENT, tmp_path / "content")
    result = CliRunner().invoke(main, ["build", "no-such-activity", "--watch", "--content", str(tmp_path / "content"),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "no activity 'no-such-activity'" in result.output
    assert "watching" not in result.output


class Watcher:
    """`kitgen build ACTIVITY --watch` in a real process, its output (stdout and stderr) read line by line."""

    def __init__(self, root: Path):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kitgen", "build", ACTIVITY, "--watch", "--content", "content", "--out", "out"],
            cwd=root, env=kitgen_env(root), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:  # type: ignore[union-attr]
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, text: str) -> str:
        deadline = time.monotonic() + LINE_TIMEOUT
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                assert self.process.poll() is None, f"the watcher exited: {self.seen}"
                continue
            self.seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"no line with {text!r} in {LINE_TIMEOUT} s; saw {self.seen}")


def cards_text(root: Path) -> str:
    """The text of the card file's first sheet of faces (the card this test edits is on it)."""
    reader = pypdf.PdfReader(root / "out" / ACTIVITY / f"{ACTIVITY}-cards.pdf")
    return " ".join(reader.pages[0].extract_text().split())


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")
def test_watch_rebuilds_after_an_edit_survives_a_broken_file_and_stops_cleanly(tmp_path: Path):
    shutil.copytree(CONTENT, tmp_path / "content")
    source = tmp_path / "content" / f"{ACTIVITY}.yaml"
    original = source.read_text(encoding="utf-8")
    old_text = "Counts 1 coin while it is in your hand."
    assert old_text in original
    watcher = Watcher(tmp_path)
    try:
        watcher.wait_for("watching")
        assert old_text in cards_text(tmp_path)

        source.write_text(original.replace(old_text, "Worth one coin while you hold it."), encoding="utf-8")
        watcher.wait_for("changed:")
        watcher.wait_for("quality report")
        assert "Worth one coin while you hold it." in cards_text(tmp_path)

        source.write_text(original.replace("decks:", "decks: [", 1), encoding="utf-8")  # a YAML syntax error
        watcher.wait_for("changed:")
        error = watcher.wait_for("YAML syntax")
        assert error.startswith(f"{os.path.join('content', ACTIVITY + '.yaml')}:")
        assert "Worth one coin while you hold it." in cards_text(tmp_path), "the last good kit is kept"

        source.write_text(original, encoding="utf-8")
        watcher.wait_for("changed:")
        watcher.wait_for("quality report")
        assert old_text in cards_text(tmp_path)

        watcher.process.send_signal(signal.SIGINT)
        assert watcher.process.wait(timeout=30) == 0
        watcher.wait_for("stopped watching")
        assert not any("Traceback" in line for line in watcher.seen), watcher.seen
    finally:
        if watcher.process.poll() is None:
            watcher.process.kill()


@pytest.mark.skipif(sys.platform == "win32", reason="sends POSIX signals")
@pytest.mark.parametrize("stop", ["SIGTERM", "SIGHUP"])
def test_kill_or_a_closed_terminal_stops_the_watch_as_cleanly_as_ctrl_c(tmp_path: Path, stop: str):
    shutil.copytree(CONTENT, tmp_path / "content")
    watcher = Watcher(tmp_path)
    try:
        watcher.wait_for("watching")
        watcher.process.send_signal(getattr(signal, stop))
        assert watcher.process.wait(timeout=30) == 0
        watcher.wait_for("stopped watching")
        assert not list((tmp_path / "out").rglob("*.tmp")), "no half-written file is left behind"
        manifest = json.loads((tmp_path / "out" / ACTIVITY / "manifest.json").read_text())
        for name, entry in manifest["files"].items():
            assert len(pypdf.PdfReader(tmp_path / "out" / ACTIVITY / name).pages) == entry["pages"], name
    finally:
        if watcher.process.poll() is None:
            watcher.process.kill()

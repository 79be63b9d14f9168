"""`kitgen serve` hardened: the watcher hears a save made during the first render, and an error of thousands of
problems reads each file it names once and shows a capped list.

The server runs in this process (`start`), so the test can wrap its renders.
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from conftest import CONTENT, REPO
from kitgen import serve
from kitgen.errors import ContentError, Problem
from kitgen.library import Library
from kitgen.serve import KitServer, located, start, stop


def copy_library(root: Path) -> Path:
    shutil.copytree(CONTENT, root / "content")
    shutil.copytree(REPO / "templates", root / "templates")
    return root / "content"


def wait_until(condition, what: str) -> None:
    """Poll `condition` (at most 1,200 times, 50 ms apart): a guard against a hang, not a time limit."""
    for _ in range(1200):
        if condition():
            return
        time.sleep(0.05)
    pytest.fail(f"never happened: {what}")


# ---------------------------------------------------------------------------------------------- watcher


def test_a_save_made_during_the_first_render_is_heard(tmp_path: Path):
    content = copy_library(tmp_path)
    source = content / "growing-discard.yaml"
    original = source.read_text(encoding="utf-8")
    kits = KitServer(Library.open(content), log=lambda line: None)
    render = kits.render

    def saving_first(shown) -> None:
        if not source.read_text(encoding="utf-8").count("Growing discard, saved early"):
            source.write_text(original.replace("title: Growing discard deck", "title: Growing discard, saved early",
                                               1), encoding="utf-8")
        render(shown)

    kits.render = saving_first  # type: ignore[method-assign]
    server, watching = start(kits, 0, first="growing-discard")
    try:
        wait_until(lambda: kits.generation >= 1, "the save during the first render rendered the kit again")
        assert kits.kit("growing-discard", {}).title == "Growing discard, saved early"
    finally:
        stop(server, watching)


# ---------------------------------------------------------------------------------------------- located problems


def test_five_thousand_problems_read_their_file_once_and_show_a_capped_list(tmp_path: Path, monkeypatch):
    source = tmp_path / "big.yaml"
    source.write_text("".join(f"key{n}: value {n}\n" for n in range(1, 5001)), encoding="utf-8")
    reads: list[str] = []
    read_text = Path.read_text

    def counted(path: Path, *args, **kwargs) -> str:
        reads.append(str(path))
        return read_text(path, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counted)
    problems = [Problem(str(source), n, 1, f"problem {n}") for n in range(1, 5001)]
    shown = located(ContentError(problems))
    assert reads == [str(source)]
    assert len(shown) == serve.SHOWN_PROBLEMS + 1
    assert shown[0] == {"file": str(source), "line": 1, "column": 1, "message": "problem 1", "text": "key1: value 1"}
    last = shown[serve.SHOWN_PROBLEMS - 1]
    assert (last["line"], last["text"]) == (serve.SHOWN_PROBLEMS, f"key{serve.SHOWN_PROBLEMS}: value "
                                                                  f"{serve.SHOWN_PROBLEMS}")
    assert shown[-1] == {"message": f"and {5000 - serve.SHOWN_PROBLEMS} more problems"}


def test_problems_in_two_files_read_each_file_once(tmp_path: Path, monkeypatch):
    files = [tmp_path / "a.yaml", tmp_path / "b.yaml"]
    for file in files:
        file.write_text("".join(f"{file.stem}{n}: x\n" for n in range(1, 31)), encoding="utf-8")
    reads: list[str] = []
    read_text = Path.read_text
    monkeypatch.setattr(Path, "read_text", lambda path, *a, **k: reads.append(str(path)) or read_text(path, *a, **k))
    shown = located(ContentError([Problem(str(f), n, 1, "bad") for n in range(30, 0, -1) for f in files]))
    assert sorted(reads) == sorted(map(str, files))
    assert len(shown) == 60 and all(entry["text"] == f"{Path(entry['file']).stem}{entry['line']}: x"
                                    for entry in shown)

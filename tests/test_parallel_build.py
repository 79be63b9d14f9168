"""A big deck's designs drawn and its card forms compressed by a forked second process (`kitgen.core.forked`):
the files are the same bytes as a build in one process, and a failure in the second process is an ordinary
error of the build (or, when only the second process fails, the build draws that part itself).

Each build runs in a fresh process (`build` forks only from a process with no other thread), with the
threshold lowered so that a small deck is shared; the builds count the processes they forked.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.bench import synthetic_activity
from conftest import CONTENT, kitgen_env

CARDS = 70  # c00050 and c00060 (patched below) are in the deck's later half, the second process's

# a build in a fresh process: MIN_SHARED set, `kitgen.render.cards` patched by PATCH, then `kitgen ARGS`;
# prints how many second processes were started and how many items each was given
SCRIPT = """
import os, sys
import kitgen.core.forked as forked
forked.MIN_SHARED = int(sys.argv[1])
started = []
start = forked.Forked.__init__
def counted(self, work, items):
    started.append(len(items))
    start(self, work, items)
forked.Forked.__init__ = counted
import kitgen.render.cards as cards
PARENT = os.getpid()
PATCH
from kitgen.cli import main
try:
    main(sys.argv[2:])
finally:
    print("STARTED", started, file=sys.stderr)
"""

# one card's template output and another's face of the deck's later half fail in the second process only; the
# build makes them itself
FAILS_IN_THE_COPY = """
face = cards.DRAW["face"]
def failing(design, *args):
    if os.getpid() != PARENT and "'c00050'" in design.label:
        raise RuntimeError("the second process failed")
    return face(design, *args)
cards.DRAW["face"] = failing
import kitgen.render.markup as markup
template_text = markup.template_text
def failing_template(env, name, **context):
    if os.getpid() != PARENT and getattr(context.get("card"), "id", "") == "c00060":
        raise RuntimeError("the second process failed")
    return template_text(env, name, **context)
markup.template_text = failing_template
"""

# the second process is killed while it draws
KILLED = """
import signal
face = cards.DRAW["face"]
def dying(design, *args):
    if os.getpid() != PARENT:
        os.kill(os.getpid(), signal.SIGKILL)
    return face(design, *args)
cards.DRAW["face"] = dying
"""

# one card of the later half cannot be drawn, in either process: the build stops with its error
UNPRINTABLE = """
from kitgen.core.errors import UnprintableContent
face = cards.DRAW["face"]
def unprintable(design, *args):
    if "'c00050'" in design.label:
        raise UnprintableContent(design.label + ": this card cannot be printed")
    return face(design, *args)
cards.DRAW["face"] = unprintable
"""


def _build(tmp_path: Path, content: Path, activity: str, out: Path, min_shared: int, patch: str = "",
           *options: str) -> tuple[subprocess.CompletedProcess[str], list[int]]:
    args = ["build", activity, "--force", "-q", "--content", str(content), "--out", str(out), *options]
    done = subprocess.run([sys.executable, "-c", SCRIPT.replace("PATCH", patch), str(min_shared), *args],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env=kitgen_env(tmp_path, KITGEN_CACHE="off"))
    line = next(line for line in done.stderr.splitlines() if line.startswith("STARTED"))
    return done, eval(line.removeprefix("STARTED "))  # a list of numbers, printed by the child above


def _files(folder: Path) -> dict[str, bytes]:
    """Every file's bytes, the test's own folder in the manifest's input paths written as TMP."""
    return {str(path.relative_to(folder)): path.read_bytes().replace(str(folder.parent).encode(), b"TMP")
            for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.fixture
def deck(tmp_path: Path) -> Path:
    content = tmp_path / "content"
    content.mkdir()
    synthetic_activity(content, "deck", CARDS)
    return content


# a one-process build of the deck, per option set, made once per test process (the deck is the same each time)
_serial: dict[tuple[str, ...], dict[str, bytes]] = {}


def serial_files(tmp_path: Path, deck: Path, *options: str) -> dict[str, bytes]:
    if options not in _serial:
        one, one_started = _build(tmp_path, deck, "deck", tmp_path / "serial", 10 ** 9, "", *options)
        assert one.returncode == 0, one.stderr
        assert one_started == [], "shared below the threshold"
        _serial[options] = _files(tmp_path / "serial")
    return _serial[options]


@pytest.mark.parametrize("options", [(), ("--cut-lines", "both", "--kits", "2")])
def test_a_deck_shared_with_a_second_process_is_the_same_bytes(tmp_path: Path, deck: Path,
                                                              options: tuple[str, ...]) -> None:
    serial = serial_files(tmp_path, deck, *options)
    two, two_started = _build(tmp_path, deck, "deck", tmp_path / "out", 1, "", *options)
    assert two.returncode == 0, two.stderr
    assert len(two_started) >= 2, two_started  # the designs, then the card file's forms
    assert sum(two_started) >= 3 * CARDS // 2, "half of the faces' template outputs, designs and forms"
    assert _files(tmp_path / "out") == serial


def test_growing_discard_shared_with_a_second_process_is_the_same_bytes(tmp_path: Path) -> None:
    """A real kit: pictures, emoji, several decks and backs, slips and documents."""
    one, _ = _build(tmp_path, CONTENT, "growing-discard", tmp_path / "out", 10 ** 9)
    assert one.returncode == 0, one.stderr
    serial = _files(tmp_path / "out")
    two, started = _build(tmp_path, CONTENT, "growing-discard", tmp_path / "out", 1)
    assert two.returncode == 0, two.stderr
    assert started, "shared"
    assert _files(tmp_path / "out") == serial


def test_a_design_the_second_process_fails_on_is_drawn_by_the_build(tmp_path: Path, deck: Path) -> None:
    serial = serial_files(tmp_path, deck)
    two, started = _build(tmp_path, deck, "deck", tmp_path / "out", 1, FAILS_IN_THE_COPY)
    assert two.returncode == 0, two.stderr
    assert started and "failed" not in two.stderr
    assert _files(tmp_path / "out") == serial


def test_a_second_process_that_dies_is_an_error_without_a_traceback(tmp_path: Path, deck: Path) -> None:
    done, started = _build(tmp_path, deck, "deck", tmp_path / "out", 1, KILLED)
    assert started
    assert done.returncode == 1, done.stderr
    assert "the second process drawing the cards stopped (signal 9)" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists(), "nothing written"


def test_an_unprintable_card_in_the_second_half_stops_the_build_as_it_does_in_one_process(tmp_path: Path,
                                                                                           deck: Path) -> None:
    one, _ = _build(tmp_path, deck, "deck", tmp_path / "one", 10 ** 9, UNPRINTABLE)
    two, started = _build(tmp_path, deck, "deck", tmp_path / "two", 1, UNPRINTABLE)
    assert started
    assert one.returncode == two.returncode != 0
    assert "this card cannot be printed" in two.stderr and "Traceback" not in two.stderr
    assert [line for line in one.stderr.splitlines() if "STARTED" not in line] == \
        [line for line in two.stderr.splitlines() if "STARTED" not in line]

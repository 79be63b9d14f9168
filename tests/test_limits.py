"""Every limit checked before the work: sizes too small to cut are refused before imposition (issue 27)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import forked
import pytest
from conftest import kitgen_env

from kitgen.core.units import mm, parse_card_size

CONTENT = Path(__file__).resolve().parent.parent / "content"


def _library(tmp_path: Path, activity: str, old: str = "", new: str = "") -> Path:
    """A library holding one activity of the project's content, `old` replaced by `new` in its source."""
    (tmp_path / "content").mkdir(parents=True)
    text = (CONTENT / f"{activity}.yaml").read_text(encoding="utf-8")
    if old:
        assert old in text
        text = text.replace(old, new, 1)
    (tmp_path / "content" / f"{activity}.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def _kitgen(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # a timeout, not a duration: before the minimum, 0.05 mm cards imposed 21 million cells and never finished
    return forked.run(list(args), cwd=folder, env=kitgen_env(folder), timeout=60)


def _refused(result: subprocess.CompletedProcess[str], where: str, size: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert f"{where}" in result.stderr and "at least 10 mm a side" in result.stderr and size in result.stderr


def test_tiny_card_size_typed_is_refused(tmp_path: Path) -> None:
    folder = _library(tmp_path, "growing-discard")
    result = _kitgen(folder, "build", "growing-discard", "--card-size", "0.05x0.05mm")
    _refused(result, "card size:", "0.05x0.05mm")
    assert not (folder / "output").exists()


def test_tiny_card_size_in_settings_names_the_file(tmp_path: Path) -> None:
    folder = _library(tmp_path, "growing-discard")
    (folder / "kitgen.toml").write_text('card_size = "0.05x0.05mm"\n', encoding="utf-8")
    result = _kitgen(folder, "build", "growing-discard")
    _refused(result, "kitgen.toml:1:1: card_size:", "0.05x0.05mm")
    assert not (folder / "output").exists()


@pytest.mark.parametrize("size", ["9x80mm", "80x9.9mm", "0.2x0.2mm", "nanxnanmm"])
def test_tiny_card_size_in_content_is_located(tmp_path: Path, size: str) -> None:
    folder = _library(tmp_path, "growing-discard", "card_size: poker", f"card_size: {size}")
    result = _kitgen(folder, "build", "growing-discard")
    if size.startswith("nan"):  # not even a number: refused by the size's own pattern
        assert result.returncode == 2 and "card_size" in result.stderr, result.stderr
        return
    _refused(result, "content/growing-discard.yaml:", size)
    assert "card_size:" in result.stderr


def test_tiny_slip_size_in_content_is_located(tmp_path: Path) -> None:
    folder = _library(tmp_path, "needle-in-a-card-stack", "size: 90x60mm", "size: 0.05x0.05mm")
    result = _kitgen(folder, "build", "needle-in-a-card-stack")
    line = (folder / "content" / "needle-in-a-card-stack.yaml").read_text(encoding="utf-8").split("\n").index(
        "    size: 0.05x0.05mm") + 1
    _refused(result, f"content/needle-in-a-card-stack.yaml:{line}:", "0.05x0.05mm")


def test_ten_mm_is_allowed() -> None:
    size = parse_card_size("10x10mm")
    assert (size.width, size.height) == (mm(10), mm(10))
    with pytest.raises(ValueError, match="at least 10 mm"):
        parse_card_size("0.39x1in")


@pytest.mark.parametrize("output", ["../..", "/tmp/elsewhere", "inside/../../out"])
def test_settings_output_stays_in_the_library(tmp_path: Path, output: str) -> None:
    folder = _library(tmp_path / "lib", "growing-discard")
    (folder / "kitgen.toml").write_text(f'output = "{output}"\n', encoding="utf-8")
    result = _kitgen(folder, "build", "growing-discard")
    assert result.returncode == 2, result.stderr
    assert "kitgen.toml:1:1: output: expected a folder inside the library" in result.stderr
    assert not list(tmp_path.glob("**/growing-discard-cards.pdf"))


def test_settings_output_inside_and_typed_out_anywhere(tmp_path: Path) -> None:
    folder = _library(tmp_path / "lib", "growing-discard")
    (folder / "kitgen.toml").write_text('output = "printed"\n', encoding="utf-8")
    assert _kitgen(folder, "build", "growing-discard").returncode == 0
    assert (folder / "printed" / "growing-discard" / "growing-discard-cards.pdf").is_file()
    typed = _kitgen(folder, "build", "growing-discard", "--out", str(tmp_path / "away"))
    assert typed.returncode == 0, typed.stderr
    assert (tmp_path / "away" / "growing-discard" / "growing-discard-cards.pdf").is_file()


def test_folder_without_a_manifest_is_never_adopted(tmp_path: Path) -> None:
    folder = _library(tmp_path, "growing-discard")
    theirs = folder / "output" / "growing-discard"
    (theirs / "photos").mkdir(parents=True)
    (theirs / "photos" / "holiday.jpg").write_bytes(b"jpeg")
    os.mkfifo(theirs / "pipe")
    before = sorted(str(p.relative_to(theirs)) for p in theirs.rglob("*"))
    result = _kitgen(folder, "build", "growing-discard")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "not a kit folder" in result.stderr, result.stderr
    assert sorted(str(p.relative_to(theirs)) for p in theirs.rglob("*")) == before
    assert (theirs / "pipe").is_fifo()
    # an empty folder, or a kit folder kitgen wrote, is built into as before
    shutil.rmtree(theirs)
    theirs.mkdir()
    assert _kitgen(folder, "build", "growing-discard").returncode == 0
    (theirs / "notes.txt").write_text("mine", encoding="utf-8")
    assert _kitgen(folder, "build", "growing-discard", "--force").returncode == 0
    assert (theirs / "notes.txt").read_text(encoding="utf-8") == "mine"

"""`kitgen.toml` at the library root: the library's own defaults, which the command line overrides."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pypdf
import pytest
from click.testing import CliRunner

from conftest import ACTIVITY, CONTENT
from kitgen.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


def library(tmp_path: Path, settings: str) -> Path:
    """A library root: content/ with growing-discard and the trash folder, and kitgen.toml holding `settings`."""
    root = tmp_path / "school"
    (root / "content").mkdir(parents=True)
    shutil.copy(CONTENT / f"{ACTIVITY}.yaml", root / "content")
    shutil.copytree(CONTENT / "trash", root / "content" / "trash")
    (root / "kitgen.toml").write_text(settings, encoding="utf-8")
    return root


def width_of(pdf: Path) -> float:
    return float(pypdf.PdfReader(pdf).pages[0].mediabox.width)


def test_the_settings_file_sets_paper_and_output_folder_and_the_command_line_overrides_them(tmp_path, monkeypatch):
    root = library(tmp_path, 'paper = "letter"\noutput = "printed"\n')
    monkeypatch.chdir(root)
    runner = CliRunner()
    result = runner.invoke(main, ["build", ACTIVITY])
    assert result.exit_code == 0, result.output
    letter = root / "printed" / "variants" / "letter" / ACTIVITY / f"{ACTIVITY}-cards.pdf"
    assert width_of(letter) == pytest.approx(612, abs=0.5)
    assert not (root / "output").exists()

    typed = runner.invoke(main, ["build", ACTIVITY, "--paper", "a4", "--out", str(tmp_path / "elsewhere")])
    assert typed.exit_code == 0, typed.output
    assert width_of(tmp_path / "elsewhere" / ACTIVITY / f"{ACTIVITY}-cards.pdf") == pytest.approx(595.3, abs=0.5)


def test_languages_card_size_and_class_size_come_from_the_settings(tmp_path):
    root = library(tmp_path, 'languages = ["ro"]\ncard_size = "bridge"\nclass_size = 6\n')
    runner = CliRunner()
    check = runner.invoke(main, ["check", "trash", ACTIVITY, "-v", "--content", str(root / "content")])
    assert check.exit_code == 0, check.output
    assert "edition ro;" in check.output  # trash: only its Romanian edition
    assert f"{ACTIVITY}: ok ({root / 'content' / (ACTIVITY + '.yaml')}; edition en;" in check.output  # has no ro

    out = tmp_path / "out"
    built = runner.invoke(main, ["build", ACTIVITY, "--content", str(root / "content"), "--out", str(out)])
    assert built.exit_code == 0, built.output
    assert [p.name for p in (out / "variants").iterdir()] == ["bridge-class6"]


def test_a_mistake_in_the_settings_is_located_and_exits_2(tmp_path):
    runner = CliRunner()
    for number, (text, expected) in enumerate([('papr = "letter"\n', "did you mean 'paper'?"),
                           ('class_size = "many"\n', "class_size: expected a whole number from 1 to 500"),
                           ('paper = "a3"\n', "paper: expected one of a4, letter"),
                           ('paper = "letter\n', "kitgen.toml:1:")]):
        root = library(tmp_path / str(number), text)
        result = runner.invoke(main, ["build", ACTIVITY, "--content", str(root / "content"),
                                      "--out", str(tmp_path / "out")])
        assert result.exit_code == 2, (text, result.output)
        assert expected in result.output and "kitgen.toml" in result.output, (text, result.output)
        assert "Traceback" not in result.output


def test_new_in_a_new_folder_writes_a_settings_file_with_every_key_commented(tmp_path, monkeypatch):
    from kitgen.app.settings import KEYS

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["new", "my-game"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "kitgen.toml").read_text(encoding="utf-8")
    assert "kitgen.toml" in result.output
    assert tomllib.loads(text) == {}  # nothing set: every key is commented
    uncommented = "\n".join(line[2:] for line in text.splitlines() if line.startswith("# ") and " = " in line)
    assert set(tomllib.loads(uncommented)) == set(KEYS)  # each key, with an example value that parses
    again = CliRunner().invoke(main, ["new", "other-game"])
    assert again.exit_code == 0 and "kitgen.toml" not in again.output  # an existing library: left alone

"""Hardening, the last of issue 27: a `language:` that is no text is located like any other wrong value, and the
spreadsheet limits hold at their exact edges (each test here was first seen failing with the limit moved by one
or its arithmetic changed).

The command-line runs fork from a process that has already imported kitgen (tests/forked.py), their memory capped.
"""
from __future__ import annotations

from pathlib import Path

import forked
import pytest
from conftest import CONTENT, kitgen_env

MEMORY = 1_500_000_000  # bytes of address space a run may map
HANG_GUARD = 120  # seconds: a run still going then is stopped and fails (a guard, not a duration asserted)


def kitgen(folder: Path, *args: str) -> forked.Completed:
    return forked.run(list(args), cwd=folder, env=kitgen_env(folder), timeout=HANG_GUARD, memory=MEMORY)


def refused(run: forked.Completed) -> list[str]:
    """The error lines of a run that ended with exit 2, no traceback and no internal error."""
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr[-3000:]
    assert run.returncode == 2, (run.returncode, run.stdout[-2000:], run.stderr[-3000:])
    return run.stderr.splitlines()


# --------------------------------------------------------------------------- language: 7


def _library(tmp_path: Path, language: str) -> Path:
    """Two activities; growing-discard's `language:` replaced by `language`."""
    content = tmp_path / "content"
    content.mkdir()
    for name in ("growing-discard", "animal-habitats"):
        (content / f"{name}.yaml").write_text((CONTENT / f"{name}.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    path = content / "growing-discard.yaml"
    text = path.read_text(encoding="utf-8")
    assert "\nlanguage: en\n" in text
    path.write_text(text.replace("\nlanguage: en\n", f"\nlanguage: {language}\n"), encoding="utf-8")
    return tmp_path


EXPECTED = "content/growing-discard.yaml:9:11: language: expected a two-letter language code such as 'en' or 'ro', "


@pytest.mark.parametrize("language, got", [("7", "got 7"), ("[en]", "got a list"), ("null", "got nothing"),
                                           ("{en: 1}", "got a mapping"), ("true", "got true")])
def test_a_language_that_is_no_text_is_located(tmp_path: Path, language: str, got: str) -> None:
    # before: `error: no '7' edition of growing-discard; editions: 7`, no file, line or column
    folder = _library(tmp_path, language)
    assert refused(kitgen(folder, "build", "growing-discard", "--content", "content")) == [EXPECTED + got]
    assert refused(kitgen(folder, "check", "growing-discard", "--content", "content"))[:1] == [EXPECTED + got]
    assert not (folder / "output" / "growing-discard").exists()


def test_a_language_that_is_no_text_fails_its_activity_only_in_build_all(tmp_path: Path) -> None:
    folder = _library(tmp_path, "7")
    lines = refused(kitgen(folder, "build", "--all", "--content", "content"))
    assert EXPECTED + "got 7" in lines
    out = folder / "output"
    assert (out / "animal-habitats" / "manifest.json").is_file()
    assert (out / "index.html").is_file() and (out / "index.pdf").is_file()
    assert not (out / "growing-discard").exists()

"""Compiled templates kept between runs: reused, checked against their source, and never trusted blindly.

Every build here runs in a real process with its own cache folder (`KITGEN_CACHE`), on a copy of the
library, so the repository's templates and the user's cache are never touched. Correctness is judged
from the files: a build that reads compiled templates from the cache writes byte for byte what a build
without the cache writes.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pypdf
import forked
import pytest

from conftest import ACTIVITY, CONTENT, REPO, kitgen_env


def run_build(root: Path, cache: str, *extra: str) -> subprocess.CompletedProcess:
    return forked.run(["build", ACTIVITY, "--force", "-q", *extra], cwd=root, env=kitgen_env(root, KITGEN_CACHE=cache),
                      timeout=300)


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.pdf"))}


def entries(cache: Path) -> dict[Path, tuple[int, bytes]]:
    """Every cache entry: compiled templates (*.bytecode), parsed font metrics (*.pickle) and shelves (not the key
    that seals them: tests/test_hardening4.py plants entries sealed with the wrong key)."""
    return {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in cache.rglob("*")
            if p.is_file() and not p.parent.name.startswith("seal-")}


@pytest.fixture()
def library(tmp_path: Path) -> Path:
    shutil.copytree(CONTENT, tmp_path / "content")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    return tmp_path


def test_a_second_run_reads_the_compiled_templates_and_writes_the_same_files(library, tmp_path):
    cache = tmp_path / "cache"
    first = run_build(library, str(cache))
    assert first.returncode == 0, first.stderr
    kit = library / "output" / ACTIVITY
    built_fresh = digests(kit)
    stored = entries(cache)
    # one entry per template the kit renders (cards, backs, sheets, host key, guide) and the macros they import,
    # and one per font file (regular and bold)
    assert len([p for p in stored if p.suffix == ".bytecode"]) >= 5, sorted(p.name for p in stored)
    assert sorted(p.name.split("-")[0:2] for p in stored if p.suffix == ".pickle") == [
        ["DejaVuSans", "759720"], ["DejaVuSans", "Bold"]]
    second = run_build(library, str(cache))
    assert second.returncode == 0, second.stderr
    assert entries(cache) == stored, "the second run rewrote compiled templates instead of reading them"
    assert digests(kit) == built_fresh
    uncached = run_build(library, "off")
    assert uncached.returncode == 0, uncached.stderr
    assert digests(kit) == built_fresh


def test_an_edited_template_is_compiled_again(library, tmp_path):
    cache = tmp_path / "cache"
    assert run_build(library, str(cache)).returncode == 0
    sheets = library / "templates" / "player-sheets.xml.j2"
    sheets.write_text(sheets.read_text(encoding="utf-8").replace(
        '<h2>{{ _("Prepare") }}</h2>', "<h2>Before the first turn</h2>", 1), encoding="utf-8")
    assert run_build(library, str(cache)).returncode == 0
    text = "".join(page.extract_text() for page in
                   pypdf.PdfReader(library / "output" / ACTIVITY / f"{ACTIVITY}-sheets.pdf").pages)
    assert "Before the first turn" in text
    assert "Prepare" not in text


def test_a_damaged_cache_entry_is_ignored(library, tmp_path):
    cache = tmp_path / "cache"
    assert run_build(library, str(cache)).returncode == 0
    built_fresh = digests(library / "output" / ACTIVITY)
    damaged = list(entries(cache))
    # compiled templates, font metrics, and the shelves of card templates' output, drawn card designs, their
    # PDF streams, laid-out documents and whole PDF files
    assert {path.suffix for path in damaged} == {".bytecode", ".pickle", ""}
    assert {path.parent.name.split("-")[0] for path in damaged} == {"templates", "fonts", "texts", "designs",
                                                                     "streams", "documents", "files"}
    for path in damaged:
        path.write_bytes(b"not a compiled template")
    result = run_build(library, str(cache))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert digests(library / "output" / ACTIVITY) == built_fresh
    assert all(path.read_bytes() != b"not a compiled template" for path in damaged), "entries were not renewed"


def test_no_cache_is_written_when_it_is_off(library, tmp_path):
    result = run_build(library, "off", "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert not [p for p in tmp_path.rglob("*") if p.suffix in (".bytecode", ".pickle")]


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="folder permissions are POSIX")
def test_a_cache_folder_others_can_write_to_is_not_used(library, tmp_path):
    cache = tmp_path / "cache"
    assert run_build(library, str(cache)).returncode == 0
    folders = {path.parent for path in entries(cache)}
    assert len(folders) == 7, folders  # templates, fonts; card templates' output, designs, PDF streams, documents,
    # whole files
    for folder in folders:
        folder.chmod(0o777)
        for path in folder.iterdir():
            path.write_bytes(b"planted by another user")
    result = run_build(library, str(cache))
    assert result.returncode == 0, result.stderr
    assert all(p.read_bytes() == b"planted by another user" for folder in folders for p in folder.iterdir()), \
        "kitgen used (rewrote) a cache folder that other users can write to"

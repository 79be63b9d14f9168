"""The cache folder is checked at every use, not once per process: a long-running `serve` or `--watch` stops
using a folder that has since been opened to other users' writes."""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from kitgen.core import cache

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")


def test_a_folder_opened_to_others_after_first_use_is_no_longer_used(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("KITGEN_CACHE", str(tmp_path / "cache"))
    first = cache.cache_file("designs", "one")
    assert first is not None and first.parent.is_dir()
    first.parent.chmod(first.parent.stat().st_mode | stat.S_IWOTH)  # another user may now put files there
    assert cache.cache_file("designs", "one") is None
    first.parent.chmod(0o700)
    assert cache.cache_file("designs", "one") == first
    assert os.stat(first.parent).st_uid == os.getuid()

"""The test suite's own helpers: a missing system tool is loud under CI, and the counters count."""
from __future__ import annotations

import pytest
from _pytest.outcomes import Failed, Skipped

from conftest import TooMuchWork, counted_lines, lines_run, require_tool


def test_a_missing_tool_fails_under_ci_naming_its_package(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(Failed, match="Debian package no-such-package"):
        require_tool("no-such-tool-kitgen", package="no-such-package")


def test_a_missing_tool_is_skipped_locally_saying_what_to_install(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(Skipped, match="apt-get install no-such-package"):
        require_tool("no-such-tool-kitgen", package="no-such-package")


def test_a_present_tool_is_its_path():
    assert require_tool("sh", package="dash").endswith("/sh")


def test_lines_run_counts_kitgen_lines_only_and_stops_past_its_limit():
    from kitgen.core.units import mm

    assert lines_run(lambda: sum(range(1000))) == 0  # no kitgen code ran
    assert 0 < lines_run(lambda: mm(10)) < 10
    with pytest.raises(TooMuchWork), counted_lines(limit=5):
        for _ in range(10):
            mm(1)

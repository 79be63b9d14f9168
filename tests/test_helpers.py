"""The test suite's own helpers: a missing system tool is loud under CI, and the counters count."""
from __future__ import annotations

import pytest
from _pytest.outcomes import Failed, Skipped

import forked
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


def test_two_replies_of_the_fork_helper_that_arrive_together_are_both_read(tmp_path):
    """A quick run's pid and status reach the test process in one read: the second must not wait for the pipe
    (it did, with a buffered reader: 60 s, then every later run read the reply of the one before)."""
    import os

    read, write = os.pipe()
    os.write(write, b'{"id": 7, "pid": 123}\n{"id": 7, "code": 0, "peak": 1}\n')
    with os.fdopen(read, "rb", buffering=0) as stream:
        forked._pending.clear()
        assert forked._reply(stream, 2, 7, "pid")["pid"] == 123
        assert forked._reply(stream, 2, 7, "code")["code"] == 0
        os.write(write, b'{"id": 7, "code": 0}\n{"id": 8, "pid": 5}\n')  # a late reply of run 7 is read past
        assert forked._reply(stream, 2, 8, "pid")["pid"] == 5
    os.close(write)

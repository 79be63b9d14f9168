"""Ctrl-C stops a long-running command even when the kernel hands the signal to another thread.

`kitgen serve` waits in its main thread while a watcher and the web server run in others. A process-directed
SIGINT may be delivered to any of them; Python only raises KeyboardInterrupt once the main thread runs again,
so the wait must wake by itself. The test sends SIGINT to a helper thread (`pthread_kill`) in a child process
and expects the wait to end with KeyboardInterrupt.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from kitgen.cli.common import wait_for_ctrl_c

HANG_SECONDS = 20  # a guard against a hang, not a measured duration

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals to a thread")


def interrupted_in_child(wait, hang_seconds: float = HANG_SECONDS) -> str:
    """Fork; in the child the main thread waits while a side thread takes a SIGINT. "interrupted": the wait
    ended with KeyboardInterrupt; "returned"; "hung": still waiting after `hang_seconds` (then killed)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        code = 1
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)

            def take_the_signal() -> None:
                time.sleep(0.2)  # the main thread is asleep by then
                signal.pthread_kill(threading.get_ident(), signal.SIGINT)

            threading.Thread(target=take_the_signal, daemon=True).start()
            try:
                wait()
            except KeyboardInterrupt:
                code = 0
        finally:
            os._exit(code)
    deadline = time.monotonic() + hang_seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return "interrupted" if os.waitstatus_to_exitcode(status) == 0 else "returned"
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return "hung"


def test_the_wait_ends_when_the_signal_reaches_another_thread():
    assert interrupted_in_child(lambda: wait_for_ctrl_c(tick=0.05)) == "interrupted"


def test_a_single_long_sleep_would_hang_so_the_test_can_fail():
    assert interrupted_in_child(lambda: time.sleep(3600), hang_seconds=2) == "hung"

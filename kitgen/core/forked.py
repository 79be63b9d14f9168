"""Work shared with a second process: a big deck's card designs drawn (or its card forms compressed) by a forked
copy of the build while the build itself goes on with the rest, so a cold build of thousands of cards uses both
cores of a laptop.

What the copy makes is handed back in the order of the items it was given and merged by what each is made
from, never by when it arrived, so the output is the same bytes as a build in one process. The copy never
raises: at the first item whose work fails it stops, and the build does that item and the rest itself, so the
error is raised where and as a build in one process raises it. A copy that dies (killed, out of memory) is a
BuildError, reported like any other.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import threading
from typing import Callable, Generic, Iterable, Sequence, TypeVar

from kitgen.core.errors import BuildError

T = TypeVar("T")  # an item of work
R = TypeVar("R")  # what the work makes of it

MIN_SHARED = 300  # items of work below which a second process costs more than it saves (the fork, the pickling)


def can_fork() -> bool:
    """Whether a second process may be forked here: a POSIX system with two cores or more, a process with no
    other thread (the web server's threads could hold a lock the copy would wait on), and not a worker of
    `build --all`, which already keeps every core busy."""
    return (hasattr(os, "fork") and (os.cpu_count() or 1) > 1 and threading.active_count() == 1
            and multiprocessing.parent_process() is None)


def worth_sharing(count: int) -> bool:
    """Whether `count` items of work are worth a second process."""
    return count >= MIN_SHARED and can_fork()


class Forked(Generic[T, R]):
    """`work(item)` for each of `items`, in a forked copy of this process, started at once; `results()` waits for
    them. Use it as a context manager: leaving the block early (an error in the build's own half) stops the copy."""

    def __init__(self, work: Callable[[T], R], items: Sequence[T]) -> None:
        self.count = len(items)
        self._done: list[R] | None = None
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the copy: never returns into the build, never runs its clean-ups or flushes its output
            os.close(read)
            status = 0
            try:
                made = []
                try:
                    for item in items:
                        made.append(work(item))
                except BaseException:  # the build does this item again itself, and raises its error as ever
                    pass
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(pickle.dumps(made, protocol=pickle.HIGHEST_PROTOCOL))
            except BaseException:
                status = 1
            finally:
                os._exit(status)
        os.close(write)
        self._pid: int | None = pid
        self._read = read

    def results(self) -> list[R]:
        """What the copy made, in the order of its items: all of them, or those before the first that failed."""
        if self._done is None:
            with os.fdopen(self._read, "rb") as pipe:
                data = pipe.read()
            status = self._reap()
            if status != 0:
                raise BuildError(f"the second process drawing the cards stopped ({_described(status)}); "
                                 "nothing was written")
            done = pickle.loads(data)
            assert isinstance(done, list) and len(done) <= self.count
            self._done = done
        return self._done

    def _reap(self) -> int:
        assert self._pid is not None
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        return status

    def close(self) -> None:
        """Stop the copy if its results were never asked for."""
        if self._pid is not None:
            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._reap()
            os.close(self._read)

    def __enter__(self) -> Forked[T, R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _described(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def first_uses(keys: Iterable[T]) -> list[T]:
    """Each key once, in the order of its first use."""
    return list(dict.fromkeys(keys))

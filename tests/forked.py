"""`kitgen ARGS` in a process of its own, forked from one that has already imported kitgen.

Most command-line tests want what only a new process gives: its own memory (capped where an attack asks for
gigabytes), its own exit status, a hang that can be killed. Starting Python and importing the drawing stack
costs about a second a run, and the suite makes hundreds of runs. So each test process starts one helper
process that imports kitgen once and then, for every run, forks a child: a fresh process (own pid, session,
working folder, environment, memory limit, standard streams) that starts where the imports end. The helper
never runs a command itself, so every child starts from the same state.

`run(args, cwd=..., env=...)` returns a `subprocess.CompletedProcess` like `subprocess.run(capture_output=True,
text=True)` and raises `subprocess.TimeoutExpired` after killing the child when the hang guard runs out.
Tests of how a process starts (imports, interpreter flags, the console script) keep using `subprocess`.
"""
from __future__ import annotations

import atexit
import faulthandler
import json
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve()


# --------------------------------------------------------------------------- the helper process


def _child(request: dict[str, Any]) -> int:
    """In the forked child: become the requested process and run the command; the exit status."""
    os.setsid()
    if request["memory"]:
        resource.setrlimit(resource.RLIMIT_AS, (request["memory"], request["memory"]))
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    stdin = os.open(os.devnull, os.O_RDONLY)
    os.dup2(stdin, 0)
    os.dup2(os.open(request["out"], os.O_WRONLY), 1)
    os.dup2(os.open(request["err"], os.O_WRONLY), 2)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    faulthandler.enable(file=sys.__stderr__ if sys.__stderr__ is not None else sys.stderr)  # SIGABRT: the stacks
    from kitgen.cli import main
    code: object = 0
    try:
        main(args=request["args"], prog_name="python -m kitgen")
    except SystemExit as stop:
        code = stop.code
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 1
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()  # what the interpreter does on exit: the child leaves with os._exit
    sys.stdout.flush()
    sys.stderr.flush()
    return 0 if code is None else int(code)  # type: ignore[call-overload]


def _serve() -> None:
    """The helper: read one request a line, fork a child for it, report its pid, then its status."""
    import kitgen.app.rendering  # noqa: F401  (what a build imports, once)
    import kitgen.cli  # noqa: F401
    import kitgen.export.pdf  # noqa: F401
    import kitgen.export.raster  # noqa: F401
    reply = os.fdopen(os.dup(1), "w", buffering=1)
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            reply.close()
            status = 1
            try:
                status = _child(request)
            finally:
                os._exit(status)
        print(json.dumps({"id": request["id"], "pid": pid}), file=reply)
        _, status, usage = os.wait4(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        print(json.dumps({"id": request["id"], "code": code, "peak": usage.ru_maxrss * 1024}), file=reply)


# --------------------------------------------------------------------------- the test side

class Hung(subprocess.TimeoutExpired):
    """A run the hang guard stopped; its message ends with what the run printed, its stacks last."""

    def __str__(self) -> str:
        return f"{super().__str__()}; its last output:\n{self.stderr}"


class Completed(subprocess.CompletedProcess):
    """A finished run, with `peak`: the largest resident set of the process in bytes (a worker's, if larger)."""

    peak: int = 0


_helper: subprocess.Popen[bytes] | None = None
_pending = bytearray()  # what the helper wrote that no reply has taken yet


def _started() -> subprocess.Popen[bytes]:
    global _helper
    if _helper is None or _helper.poll() is not None:
        _helper = subprocess.Popen([sys.executable, str(HERE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   bufsize=0, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
        _pending.clear()
        atexit.register(_helper.kill)
    return _helper


_requests = 0  # the runs asked for so far: each reply names the run it is for


def _reply(stream: IO[bytes], seconds: float | None, request: int, key: str) -> dict[str, Any]:
    """The helper's reply holding `key` for run `request`; a late reply for an earlier run is read past.

    The pipe is read unbuffered, into `_pending`: a buffered reader may already hold the next reply when
    `select` says the pipe is empty (a quick run's two replies arrive together), and the wait would never end."""
    deadline = None if seconds is None else time.monotonic() + seconds
    while True:
        while b"\n" not in _pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([stream], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(stream.fileno(), 65536)
            if not chunk:
                raise RuntimeError("the kitgen fork helper stopped")
            _pending.extend(chunk)
        end = _pending.index(b"\n")
        reply: dict[str, Any] = json.loads(_pending[:end])
        del _pending[:end + 1]
        if reply.get("id") == request and key in reply:
            return reply


def _restart() -> None:
    """Drop a helper that did not answer in time (the next run starts a new one): its later replies are lost."""
    global _helper
    if _helper is not None:
        _helper.kill()
        _helper.wait()
    _helper = None


def run(args: list[str], *, cwd: Path | str, env: dict[str, str] | None = None, timeout: float | None = None,
        memory: int | None = None) -> Completed:
    """`python -m kitgen ARGS` in a fresh process (forked), its output captured as text."""
    helper = _started()
    assert helper.stdin is not None and helper.stdout is not None
    with tempfile.NamedTemporaryFile() as out, tempfile.NamedTemporaryFile() as err:
        global _requests
        _requests += 1
        number = _requests
        request = {"id": number, "args": [str(a) for a in args], "cwd": str(cwd),
                   "env": dict(os.environ if env is None else env), "memory": memory, "out": out.name, "err": err.name}
        data = memoryview((json.dumps(request) + "\n").encode())
        while data:  # (an unbuffered pipe may take a long request in parts)
            data = data[helper.stdin.write(data) or 0:]
        try:
            pid = _reply(helper.stdout, 120, number, "pid")["pid"]
        except TimeoutError:  # the helper did not even fork: start a new one for the next run
            _restart()
            raise subprocess.TimeoutExpired(["kitgen", *args], 120) from None
        try:
            done = _reply(helper.stdout, timeout, number, "code")
        except TimeoutError:  # the hang guard: the run's stacks (SIGABRT), then kill it and read its status
            try:
                os.kill(pid, signal.SIGABRT)
                time.sleep(1)
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:  # it ended as the guard ran out: its status is on its way
                pass
            try:
                _reply(helper.stdout, 60, number, "code")
            except TimeoutError:
                _restart()
            stacks = Path(err.name).read_text("utf-8", "replace")[-6000:]
            raise Hung(["kitgen", *args], timeout or 0, stderr=stacks) from None
        try:
            os.killpg(pid, signal.SIGKILL)  # any worker the run left behind
        except ProcessLookupError:
            pass
        completed = Completed(["kitgen", *args], done["code"], Path(out.name).read_text("utf-8", "replace"),
                              Path(err.name).read_text("utf-8", "replace"))
        completed.peak = done["peak"]
        return completed


if __name__ == "__main__":
    _serve()

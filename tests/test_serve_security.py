"""`kitgen serve` answers only its own page: requests for another host (DNS rebinding) get 421, requests another
site's page makes get 403 before anything is rendered, a connection that sends its request slowly or not at all
is closed, connections beyond the cap are turned away, the watcher hears a save made during the first render,
and an error of thousands of problems reads its file once and shows a capped list.

The server runs in this process (`start`), so the test can count its renders and its open connections; the
requests are written by hand on raw sockets, so every header (or its absence) is the test's own.
"""
from __future__ import annotations

import select
import shutil
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import CONTENT, REPO
from kitgen.app import serve
from kitgen.core.errors import ContentError, Problem
from kitgen.load.library import Library
from kitgen.core.files import Role
from kitgen.app.serve import KitServer, located, start, stop

HANG_GUARD = 60  # seconds a socket waits before the test gives up: only against a hang, never a measurement
KIT = "/kit/growing-discard"


@dataclass
class Running:
    kits: KitServer
    server: serve._HTTPServer
    renders: list[dict]  # the options of each kit rendered, in turn
    port: int
    host_key: str  # the path of the host key's PDF
    picture: str  # the path of a page's picture


def copy_library(root: Path) -> Path:
    shutil.copytree(CONTENT, root / "content")
    shutil.copytree(REPO / "templates", root / "templates")
    return root / "content"


def counting_renders(kits: KitServer) -> list[dict]:
    """Every render of `kits` from now on, by its options."""
    renders: list[dict] = []
    render = kits.render

    def counted(shown) -> None:
        renders.append(dict(shown.query))
        render(shown)

    kits.render = counted  # type: ignore[method-assign]
    return renders


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory):
    kits = KitServer(Library.open(copy_library(tmp_path_factory.mktemp("served"))), log=lambda line: None)
    renders = counting_renders(kits)
    server, watching = start(kits, 0, first="growing-discard")  # the host key is in memory from here on
    try:
        files = kits.kit("growing-discard", {}).files
        host_key = next(f.name for f in files if f.role is Role.HOST_KEY)
        yield Running(kits, server, renders, server.server_address[1], f"{KIT}/{host_key}",
                      f"/page/{files[0].fingerprints[0]}.png")
    finally:
        stop(server, watching)


def request(port: int, target: str, host: str | None, *headers: tuple[str, str]) -> tuple[int, bytes]:
    """GET `target` with exactly these headers (`host` None: no Host header); the status and the body."""
    lines = [f"GET {target} HTTP/1.1"] + ([f"Host: {host}"] if host is not None else [])
    lines += [f"{name}: {value}" for name, value in headers] + ["Connection: close", "", ""]
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as connection:
        connection.sendall("\r\n".join(lines).encode())
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def closed_by_server(connection: socket.socket) -> bool:
    """True once the server has closed the connection (waits up to HANG_GUARD for it)."""
    connection.settimeout(HANG_GUARD)
    try:
        return connection.recv(65536) == b""
    except ConnectionResetError:
        return True


def wait_until(condition, what: str) -> None:
    """Poll `condition` (at most 1,200 times, 50 ms apart): a guard against a hang, not a time limit."""
    for _ in range(1200):
        if condition():
            return
        time.sleep(0.05)
    pytest.fail(f"never happened: {what}")


def no_kit_bytes(body: bytes) -> bool:
    return b"%PDF" not in body and b"\x89PNG" not in body and b"<img" not in body


# ---------------------------------------------------------------------------------------------- Host: 421


@pytest.mark.parametrize("host", [
    "attacker.example", "attacker.example:{port}", None, "", "127.0.0.1:{other}", "localhost:{other}",
    "127.0.0.1", "localhost", "[::1]:{port}", "127.0.0.1.attacker.example:{port}", "localhost.:{port}",
])
def test_a_request_for_another_host_gets_421_and_no_byte_of_a_kit(running: Running, host: str | None):
    port = running.port
    renders = len(running.renders)
    shown = host.format(port=port, other=port + 1 if port < 65535 else port - 1) if host is not None else None
    for target in ["/", "/events", f"{KIT}?class_size=23", f"{running.host_key}?class_size=24", running.host_key,
                   running.picture]:
        status, body = request(port, target, shown)
        assert status == 421, (host, target)
        assert no_kit_bytes(body), (host, target)
    assert len(running.renders) == renders


def test_two_host_headers_or_a_target_naming_another_host_get_421(running: Running):
    own = f"127.0.0.1:{running.port}"
    status, body = request(running.port, running.host_key, own, ("Host", "attacker.example"))
    assert status == 421 and no_kit_bytes(body)
    status, body = request(running.port, f"http://attacker.example{running.host_key}", own)
    assert status == 421 and no_kit_bytes(body)


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}"])
def test_the_servers_own_host_is_answered(running: Running, host: str):
    shown = host.format(port=running.port)
    status, body = request(running.port, running.host_key, shown)
    assert status == 200 and body.startswith(b"%PDF")
    status, body = request(running.port, running.picture, shown, ("Sec-Fetch-Site", "same-origin"))
    assert status == 200 and body.startswith(b"\x89PNG")
    status, body = request(running.port, "/", shown, ("Sec-Fetch-Site", "none"))
    assert status == 200 and b'href="/kit/growing-discard"' in body


# ---------------------------------------------------------------------------------------------- cross-site: 403


@pytest.mark.parametrize("header", [
    ("Sec-Fetch-Site", "cross-site"),
    ("Sec-Fetch-Site", "same-site"),  # a page on another port of localhost: another origin, the same site
    ("Sec-Fetch-Site", "something-new"),
    ("Origin", "http://attacker.example"),
    ("Origin", "null"),
    ("Origin", "http://127.0.0.1:{other}"),
    ("Origin", "http://localhost:{port}"),  # the request names 127.0.0.1: localhost is another origin
    ("Origin", "https://127.0.0.1:{port}"),
])
def test_a_cross_site_request_gets_403_and_renders_nothing(running: Running, header: tuple[str, str]):
    port = running.port
    name, value = header[0], header[1].format(port=port, other=port + 1 if port < 65535 else port - 1)
    renders = len(running.renders)
    for target in [f"{KIT}?class_size=41", f"{running.host_key}?class_size=43", "/", "/events", running.picture]:
        status, body = request(port, target, f"127.0.0.1:{port}", (name, value))
        assert status == 403, (header, target)
        assert no_kit_bytes(body), (header, target)
    assert len(running.renders) == renders


def test_a_same_origin_request_renders_and_the_count_sees_it(running: Running):
    """The control of the test above: such a request from the page itself is rendered, and counted."""
    port = running.port
    renders = len(running.renders)
    status, body = request(port, f"{KIT}?class_size=29", f"127.0.0.1:{port}", ("Sec-Fetch-Site", "same-origin"),
                           ("Origin", f"http://127.0.0.1:{port}"))
    assert status == 200 and b"<img" in body
    assert running.renders[renders:] == [{"class_size": "29"}]


# ---------------------------------------------------------------------------------------------- timeouts, cap


def test_a_connection_that_sends_nothing_is_closed_after_the_head_timeout(running: Running, monkeypatch):
    monkeypatch.setattr(serve, "HEAD_SECONDS", 0.5)
    with socket.create_connection(("127.0.0.1", running.port), timeout=HANG_GUARD) as connection:
        assert closed_by_server(connection)


def test_a_request_head_sent_a_byte_at_a_time_is_cut_off_at_the_deadline(running: Running, monkeypatch):
    """Each byte comes well within a read timeout; the head as a whole is not in within HEAD_SECONDS."""
    monkeypatch.setattr(serve, "HEAD_SECONDS", 1.0)
    closed = False
    with socket.create_connection(("127.0.0.1", running.port), timeout=HANG_GUARD) as connection:
        connection.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\nX-Slow: ".encode())
        for _ in range(600):  # 600 bytes, 0.1 s apart: a guard against a hang, not a time limit
            if select.select([connection], [], [], 0.1)[0]:
                closed = closed_by_server(connection)
                break
            try:
                connection.sendall(b"a")
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
    assert closed


def test_the_event_stream_outlives_the_head_timeout(running: Running, monkeypatch):
    monkeypatch.setattr(serve, "HEAD_SECONDS", 0.3)
    with socket.create_connection(("127.0.0.1", running.port), timeout=HANG_GUARD) as connection:
        connection.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n"
                           f"Sec-Fetch-Site: same-origin\r\n\r\n".encode())
        received = b""
        while b"data: " not in received or not received.endswith(b"\n\n"):
            chunk = connection.recv(4096)
            assert chunk, "the stream was closed"
            received += chunk
        assert received.startswith(b"HTTP/1.0 200")
        generation = running.kits.generation
        assert f"data: {generation}\n\n".encode() in received
        time.sleep(1.0)  # past the head's deadline: the stream must not be cut by it
        running.kits.changed([])
        received = b""
        while f"data: {generation + 1}\n\n".encode() not in received:
            chunk = connection.recv(4096)
            assert chunk, "the stream was closed"
            received += chunk


def test_a_closed_event_stream_gives_back_its_connection_before_its_next_write(running: Running, monkeypatch):
    """With no news and no heartbeat due for ten minutes, the stream's thread still ends once the browser
    closes it (it would end only at a failed write otherwise)."""
    monkeypatch.setattr(serve, "HEARTBEAT_SECONDS", 600.0)
    server = running.server
    wait_until(lambda: server.open_connections == 0, "no connection open")
    with socket.create_connection(("127.0.0.1", running.port), timeout=HANG_GUARD) as connection:
        connection.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n\r\n".encode())
        received = b""
        while b"data: " not in received:
            chunk = connection.recv(4096)
            assert chunk, "the stream was closed"
            received += chunk
        assert server.open_connections == 1
    wait_until(lambda: server.open_connections == 0, "the closed stream's connection given back")


def test_connections_beyond_the_cap_are_turned_away_and_a_request_is_answered_after(running: Running, monkeypatch):
    monkeypatch.setattr(serve, "HEAD_SECONDS", 120.0)  # the held connections stay for the whole test
    server = running.server
    cap = server.max_connections
    threads = threading.active_count()
    held = [socket.create_connection(("127.0.0.1", running.port), timeout=HANG_GUARD) for _ in range(cap)]
    try:
        wait_until(lambda: server.open_connections == cap, f"{cap} connections open")
        for _ in range(20):
            with socket.create_connection(("127.0.0.1", running.port), timeout=HANG_GUARD) as extra:
                answer = b""
                while chunk := extra.recv(4096):
                    answer += chunk
                assert answer.startswith(b"HTTP/1.0 503"), answer
        assert server.open_connections == cap
        assert threading.active_count() - threads <= cap  # one thread per held connection, none for the others
    finally:
        for connection in held:
            connection.close()
    wait_until(lambda: server.open_connections == 0, "the held connections closed")
    status, body = request(running.port, "/", f"localhost:{running.port}")
    assert status == 200 and b"Activity library" in body


# ---------------------------------------------------------------------------------------------- watcher


def test_a_save_made_during_the_first_render_is_heard(tmp_path: Path):
    content = copy_library(tmp_path)
    source = content / "growing-discard.yaml"
    original = source.read_text(encoding="utf-8")
    kits = KitServer(Library.open(content), log=lambda line: None)
    render = kits.render

    def saving_first(shown) -> None:
        if not source.read_text(encoding="utf-8").count("Growing discard, saved early"):
            source.write_text(original.replace("title: Growing discard deck", "title: Growing discard, saved early",
                                               1), encoding="utf-8")
        render(shown)

    kits.render = saving_first  # type: ignore[method-assign]
    server, watching = start(kits, 0, first="growing-discard")
    try:
        wait_until(lambda: kits.generation >= 1, "the save during the first render rendered the kit again")
        assert kits.kit("growing-discard", {}).title == "Growing discard, saved early"
    finally:
        stop(server, watching)


# ---------------------------------------------------------------------------------------------- located problems


def test_five_thousand_problems_read_their_file_once_and_show_a_capped_list(tmp_path: Path, monkeypatch):
    source = tmp_path / "big.yaml"
    source.write_text("".join(f"key{n}: value {n}\n" for n in range(1, 5001)), encoding="utf-8")
    reads: list[str] = []
    read_text = Path.read_text

    def counted(path: Path, *args, **kwargs) -> str:
        reads.append(str(path))
        return read_text(path, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counted)
    problems = [Problem(str(source), n, 1, f"problem {n}") for n in range(1, 5001)]
    shown = located(ContentError(problems))
    assert reads == [str(source)]
    assert len(shown) == serve.SHOWN_PROBLEMS + 1
    assert shown[0] == {"file": str(source), "line": 1, "column": 1, "message": "problem 1", "text": "key1: value 1"}
    last = shown[serve.SHOWN_PROBLEMS - 1]
    assert (last["line"], last["text"]) == (serve.SHOWN_PROBLEMS, f"key{serve.SHOWN_PROBLEMS}: value "
                                                                  f"{serve.SHOWN_PROBLEMS}")
    assert shown[-1] == {"message": f"and {5000 - serve.SHOWN_PROBLEMS} more problems"}


def test_problems_in_two_files_read_each_file_once(tmp_path: Path, monkeypatch):
    files = [tmp_path / "a.yaml", tmp_path / "b.yaml"]
    for file in files:
        file.write_text("".join(f"{file.stem}{n}: x\n" for n in range(1, 31)), encoding="utf-8")
    reads: list[str] = []
    read_text = Path.read_text
    monkeypatch.setattr(Path, "read_text", lambda path, *a, **k: reads.append(str(path)) or read_text(path, *a, **k))
    shown = located(ContentError([Problem(str(f), n, 1, "bad") for n in range(30, 0, -1) for f in files]))
    assert sorted(reads) == sorted(map(str, files))
    assert len(shown) == 60 and all(entry["text"] == f"{Path(entry['file']).stem}{entry['line']}: x"
                                    for entry in shown)

"""`kitgen serve` keeps renderings only for the option sets an open page shows: each page's event stream names
its kit and options, a save renders again those of the open pages and forgets the others, and a request with
invalid options is answered with the error once and never rendered again. Work is counted in renders (every
call of `KitServer.render`), never timed; the server runs in this process, the requests are raw sockets."""
from __future__ import annotations

import json
import re
import socket
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from kitgen.app.serve import KitServer, start, stop
from kitgen.load.library import Library

from test_serve_security import copy_library, counting_renders, HANG_GUARD, KIT, request, wait_until

SAME_ORIGIN = ("Sec-Fetch-Site", "same-origin")


@contextmanager
def served(tmp_path: Path, log=lambda line: None) -> Iterator[tuple[KitServer, object, list[dict], str]]:
    """A server on a copy of the library with growing-discard rendered first: the kits, the HTTP server, the
    renders counted from then on, and the path of the activity's file."""
    content = copy_library(tmp_path)
    kits = KitServer(Library.open(content), log=log)
    server, watching = start(kits, 0, first="growing-discard")
    renders = counting_renders(kits)
    try:
        yield kits, server, renders, str(content / "growing-discard.yaml")
    finally:
        stop(server, watching)


@contextmanager
def open_page(port: int, target: str) -> Iterator[str]:
    """The page at `target` as a browser holds it open: fetched, then its event stream (the address its script
    names) open until the block ends; yields the page."""
    host = f"127.0.0.1:{port}"
    status, body = request(port, target, host, SAME_ORIGIN)
    assert status == 200, (status, body[:200])
    page = body.decode()
    found = re.search(r"new EventSource\((\"[^\"]*\"|'[^']*')\)", page)
    assert found, "the page opens an event stream"
    events = json.loads(found[1]) if found[1].startswith('"') else found[1].strip("'")
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as stream:
        stream.sendall(f"GET {events} HTTP/1.1\r\nHost: {host}\r\nSec-Fetch-Site: same-origin\r\n\r\n".encode())
        received = b""
        while b"data: " not in received:  # the first message: the stream is counted from here on
            chunk = stream.recv(4096)
            assert chunk, "the stream was closed"
            received += chunk
        yield page


def save_renders(kits: KitServer, renders: list[dict], source: str) -> list[dict]:
    """The options of every kit one save of `source` renders (the call the file watcher makes on a save)."""
    before = len(renders)
    kits.changed([source])
    return renders[before:]


def test_after_five_option_sets_were_viewed_and_closed_a_save_renders_what_it_did_before(tmp_path: Path):
    with served(tmp_path) as (kits, server, renders, source):
        port = server.server_address[1]
        with open_page(port, KIT):
            before_any = save_renders(kits, renders, source)
            assert before_any == [{}], "the open page's kit, rendered again"
            with open_page(port, f"{KIT}?class_size=1"):  # the control: a page still open keeps its kit
                assert sorted(map(str, save_renders(kits, renders, source))) == ["{'class_size': '1'}", "{}"]
            for size in (2, 3, 4, 5):
                with open_page(port, f"{KIT}?class_size={size}"):
                    pass
            assert {"class_size": "5"} in renders, "each option set was rendered when its page asked for it"
            wait_until(lambda: server.open_connections == 1, "the five pages' streams closed")
            assert save_renders(kits, renders, source) == before_any
            assert save_renders(kits, renders, source) == before_any
        wait_until(lambda: server.open_connections == 0, "the last page closed")
        assert save_renders(kits, renders, source) == [], "no page open: nothing rendered"
        with open_page(port, f"{KIT}?class_size=2") as page:  # asked for again: rendered again, and shown
            assert renders[-1] == {"class_size": "2"} and "<img" in page


def test_a_request_with_invalid_options_is_answered_once_and_never_rendered_on_a_save(tmp_path: Path):
    logged: list[str] = []
    with served(tmp_path, log=logged.append) as (kits, server, renders, source):
        port = server.server_address[1]
        with open_page(port, KIT), open_page(port, f"{KIT}?paper=a5") as page:
            assert "paper must be one of" in page
            assert renders == [{"paper": "a5"}], "answered once"
            for _ in range(3):
                assert save_renders(kits, renders, source) == [{}]
        assert sum("'a5'" in line for line in logged) == 1, logged

"""`kitgen serve`: the library as a local web page that shows each kit's pages and refreshes itself after a save.

One warm process holds the library. A kit is rendered in memory through the library API (`render_kit`), its
pages rasterised with PDFium on request, and nothing is written to disk: the PDFs are downloaded from memory.
The operating system's file events (watchfiles) say when a content file or template was saved; the kits that
an open page shows are rendered again at once, and every open page is told over one long-lived response
(Server-Sent Events) to reload. Each page's event stream names the kit and options it shows: while it is open,
that rendering is kept; a save renders again only those and forgets the others (a page that asks for one of
them again has it rendered then). A request with invalid options is answered with the error and never kept.
A page's picture is named by a fingerprint of what is drawn on it, so after an edit the browser fetches, and
the server rasterises, only the pages that changed.

The server listens on 127.0.0.1 only (the kits may hold a host key); port 0 picks a free port. It answers only
requests addressed to itself (`Host: 127.0.0.1:PORT` or `localhost:PORT`; others get 421, which defeats DNS
rebinding) and refuses requests another site's page makes (`Sec-Fetch-Site`, `Origin`: 403). A request's head
must arrive within HEAD_SECONDS, and at most MAX_CONNECTIONS connections are served at once.
"""
from __future__ import annotations

import io
import queue
import select
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from kitgen.app.serve_kits import ShownKit as ShownKit  # (the names serve has always given)
from kitgen.app.serve_pages import KitServer as KitServer
from kitgen.app.shown_errors import located as located, SHOWN_PROBLEMS as SHOWN_PROBLEMS  # (the page's cap)

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

HEAD_SECONDS = 5.0  # a request's line and headers must have arrived by then, or its connection is closed
SEND_SECONDS = 30.0  # then each read or write (the event stream writes every HEARTBEAT_SECONDS at least)
HEARTBEAT_SECONDS = 10.0  # an event stream with no news says it is still there this often
MAX_CONNECTIONS = 32  # open at once (each holds a thread); one more is answered 503 and closed


def own_hosts(address: tuple[Any, ...]) -> frozenset[str]:
    """The `Host` values that name the server listening at `address`: its loopback address or localhost, with
    its port (without it too on port 80, where browsers leave it out)."""
    host, port = address[0], address[1]
    names = [f"[{host}]" if ":" in host else host, "localhost"]
    return frozenset([f"{name}:{port}" for name in names] + (names if port == 80 else []))


class _HeadReader(io.RawIOBase):
    """A connection's bytes, read before a deadline (until `deadline` is None): a client that sends its request
    line and headers slowly, or not at all, is cut off instead of holding its thread."""

    def __init__(self, connection: socket.socket, seconds: float):
        self.connection = connection
        self.deadline: float | None = time.monotonic() + seconds

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        if self.deadline is not None:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the request line and headers took too long")
            self.connection.settimeout(remaining)
        return self.connection.recv_into(buffer)


class _Handler(BaseHTTPRequestHandler):
    server: "_HTTPServer"
    timeout = SEND_SECONDS  # each read or write once the request's head is in (the head has HEAD_SECONDS)

    def log_message(self, format: str, *args: Any) -> None:  # the terminal shows rebuilds, not every request
        return None

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # the plain reader the base made: the head is read through a deadline instead
        self.head = _HeadReader(self.connection, HEAD_SECONDS)
        self.rfile = io.BufferedReader(self.head)

    def parse_request(self) -> bool:
        parsed = super().parse_request()  # reads the headers
        self.head.deadline = None
        self.connection.settimeout(self.timeout)
        return parsed

    def _refused(self) -> bool:
        """Answer a request for another host (DNS rebinding: 421) or from another site (403) and say True; a
        page on another port of localhost is another origin but the same site, so `same-site` is refused too."""
        hosts = self.headers.get_all("Host") or []
        host = hosts[0].strip().lower() if len(hosts) == 1 else ""
        if host not in self.server.hosts or not self.path.startswith("/"):  # "http://elsewhere/...": another host
            answers = " or ".join(sorted(self.server.hosts))
            self._send(421, "text/plain; charset=utf-8", f"misdirected request: this server is {answers}\n".encode())
            return True
        site = (self.headers.get("Sec-Fetch-Site") or "none").strip().lower()
        origins = self.headers.get_all("Origin") or []
        if site not in ("same-origin", "none") or any(o.strip().lower() != f"http://{host}" for o in origins):
            self._send(403, "text/plain; charset=utf-8",
                       b"refused: a request from another site (open the address kitgen serve printed)\n")
            return True
        return False

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        if self._refused():
            return
        kits = self.server.kits
        url = urllib.parse.urlsplit(self.path)
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query).items()}
        parts = [urllib.parse.unquote(p) for p in url.path.strip("/").split("/") if p]
        try:
            if not parts:
                self._send(200, "text/html; charset=utf-8", kits.library_page().encode())
            elif parts == ["events"]:
                self._events(query)
            elif len(parts) == 2 and parts[0] in ("page", "large") and parts[1].endswith(".png"):
                picture = kits.picture(parts[1][:-4], large=parts[0] == "large")
                if picture is None:
                    self._send(404, "text/plain", b"no such page (the kit was rebuilt since)")
                else:
                    self._send(200, "image/png", picture, cache="max-age=86400, immutable")
            elif parts == ["pictures"]:
                self._send(200, "text/html; charset=utf-8", kits.pictures_page(query.get("q", "")).encode())
            elif len(parts) == 2 and parts[0] == "picture" and parts[1].endswith(".svg"):
                from kitgen.pictures.emoji import drawing_svg

                drawing = drawing_svg(parts[1][:-4])
                if drawing is None:
                    self._send(404, "text/plain", b"no such picture")
                else:
                    self._send(200, "image/svg+xml", drawing, cache="max-age=86400")
            elif len(parts) in (2, 3) and parts[0] in ("kit", "thumb") and not kits.known(_named(parts)):
                self._send(404, "text/html; charset=utf-8", kits.missing_page(_named(parts)).encode())
            elif len(parts) == 2 and parts[0] == "thumb" and parts[1].endswith(".png"):
                thumbnail = kits.thumbnail(parts[1][:-4])
                if thumbnail is None:
                    self._send(404, "text/plain", b"no pages to show")
                else:
                    self._send(200, "image/png", thumbnail)
            elif len(parts) == 2 and parts[0] == "kit":
                self._send(200, "text/html; charset=utf-8", kits.kit_page(parts[1], query).encode())
            elif len(parts) == 3 and parts[0] == "kit":
                shown = kits.kit(parts[1], {**kits.defaults, **query})
                file = next((f for f in shown.files if f.name == parts[2]), None)
                if file is None:
                    self._send(404, "text/plain", b"no such file")
                else:  # shown in the browser (to print) or saved (the page's download link), by its own name
                    self._send(200, "application/pdf", file.data,
                               disposition=f"inline; filename=\"{urllib.parse.quote(file.name)}\"")
            else:
                self._send(404, "text/plain", b"not found")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _send(self, status: int, kind: str, body: bytes, cache: str = "no-store", disposition: str = "") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("X-Content-Type-Options", "nosniff")
        if disposition:
            self.send_header("Content-Disposition", disposition)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        self.end_headers()
        self.wfile.write(body)

    def _events(self, query: dict[str, str]) -> None:
        """A Server-Sent Events stream: the current generation at once, then one message per rebuild. While it is
        open, the kit its `kit` and options name is kept rendered."""
        kits = self.server.kits
        if "kit" not in query:
            self._stream(kits)
            return
        with kits.shown_by_a_page(query["kit"], {**kits.defaults, **query}):
            self._stream(kits)

    def _stream(self, kits: KitServer) -> None:
        listener: queue.Queue[int] = queue.Queue()
        kits.listeners.append(listener)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(f"retry: 500\ndata: {kits.generation}\n\n".encode())
            self.wfile.flush()
            beat = time.monotonic() + HEARTBEAT_SECONDS
            while not self.server.stopping.is_set() and not self._stream_closed():
                try:
                    message = f"data: {listener.get(timeout=1)}\n\n"
                except queue.Empty:
                    if time.monotonic() < beat:
                        continue
                    message = ": still here\n\n"
                beat = time.monotonic() + HEARTBEAT_SECONDS
                self.wfile.write(message.encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            kits.listeners.remove(listener)

    def _stream_closed(self) -> bool:
        """The browser closed its event stream: its thread and connection slot are given back within a second,
        not at a write that fails."""
        if not select.select([self.connection], [], [], 0)[0]:
            return False
        try:
            peeked: bytes = self.connection.recv(1, socket.MSG_PEEK)
            return peeked == b""
        except OSError:
            return True


def _named(parts: list[str]) -> str:
    """The activity a `/kit/ID...` or `/thumb/ID.png` address names."""
    return parts[1].removesuffix(".png") if parts[0] == "thumb" else parts[1]


class _HTTPServer(ThreadingHTTPServer):
    """A thread per connection, at most MAX_CONNECTIONS at once: one more is answered 503 and closed at once."""

    daemon_threads = True
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], kits: KitServer) -> None:
        super().__init__(address, _Handler)
        self.kits = kits
        self.stopping = threading.Event()
        assert isinstance(self.server_address, tuple)  # (host, port, ...): an internet address
        self.hosts = own_hosts(self.server_address)
        self.max_connections = MAX_CONNECTIONS
        self.open_connections = 0
        self._counting = threading.Lock()

    def process_request(self, request: socket.socket | tuple[bytes, socket.socket], client_address: Any) -> None:
        with self._counting:
            full = self.open_connections >= self.max_connections
            if not full:
                self.open_connections += 1
        if full:
            assert isinstance(request, socket.socket)  # a TCP server's request is its connection
            self._turn_away(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._closed_one()
            raise

    def process_request_thread(self, request: socket.socket | tuple[bytes, socket.socket],
                               client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._closed_one()

    def _closed_one(self) -> None:
        with self._counting:
            self.open_connections -= 1

    def _turn_away(self, request: socket.socket) -> None:
        """A 503 written without waiting (it fits in the socket's buffer, or is dropped), then closed."""
        try:
            request.setblocking(False)
            request.send(_TOO_MANY)
        except OSError:
            pass
        self.shutdown_request(request)


_TOO_MANY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 21\r\n"
             b"Connection: close\r\n\r\ntoo many connections\n")


def start(kits: KitServer, port: int = 0, first: str | None = None) -> tuple[_HTTPServer, threading.Event]:
    """Listen on 127.0.0.1:`port` (0: a free one), watch the library, render the kit `first` (when given) and
    serve, in threads; returns the server (its `server_address` says the port) and the event that stops the
    watching. The watcher listens before the first render, so a save made meanwhile is heard."""
    server = _HTTPServer(("127.0.0.1", port), kits)
    watching = threading.Event()
    try:
        kits.watch(watching)
        if first:
            kits.kit(first, kits.defaults)  # before the address is printed: the first page is quick
    except BaseException:
        watching.set()
        server.server_close()
        raise
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    return server, watching


def stop(server: _HTTPServer, watching: threading.Event) -> None:
    watching.set()
    server.stopping.set()
    server.shutdown()
    server.server_close()

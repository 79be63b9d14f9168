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

import hashlib
import html
import io
import json
import queue
import select
import socket
import threading
import time
import urllib.parse
from collections import Counter, OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, TypedDict

from kitgen.app.printers import load_printers, printer_offset
from kitgen.app.watch import file_events, ignored
from kitgen.load.editions import editions, own_language
from kitgen.core.units import PAPER_SIZES, parse_card_size
from kitgen.app.shown_errors import located, ShownProblem, SHOWN_PROBLEMS  # noqa: F401 (SHOWN_PROBLEMS: the page's cap)
from kitgen.core.display import page_fingerprints
from kitgen.core.errors import KitgenError, UsageError
from kitgen.load.library import Library
from kitgen.plan.options import BuildOptions
from kitgen.core.files import OutputFile, Role
from kitgen.core.notes import Note

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer
    from watchfiles._rust_notify import RustNotify

    from kitgen.core.display import Document



PREVIEW_SCALE = 0.75  # 54 dpi: an A4 page is 446 pixels wide, shown at half that for sharpness on dense screens
KEPT_KITS = 6  # kits (activity × options) kept rendered at most, besides those an open page shows
OPTION_NAMES = ("lang", "paper", "card_size", "class_size", "printer")
HEAD_SECONDS = 5.0  # a request's line and headers must have arrived by then, or its connection is closed
SEND_SECONDS = 30.0  # then each read or write (the event stream writes every HEARTBEAT_SECONDS at least)
HEARTBEAT_SECONDS = 10.0  # an event stream with no news says it is still there this often
MAX_CONNECTIONS = 32  # open at once (each holds a thread); one more is answered 503 and closed
_ROLE_ORDER = [Role.PRINT_GUIDE, Role.CARDS, Role.OPTIONAL_CARDS, Role.SLIPS, Role.MAT, Role.SHEETS, Role.HOST_KEY]


@dataclass
class ShownFile:
    name: str
    role: Role
    pages: int
    data: bytes
    fingerprints: list[str]  # one per page: names its picture


@dataclass
class ShownKit:
    """One activity edition rendered with one set of options, or what went wrong; the last good files stay."""

    activity_id: str
    query: dict[str, str]
    files: list[ShownFile] = field(default_factory=list)
    error: list[ShownProblem] | None = None
    seconds: float = 0.0
    language: str = ""
    editions: list[str] = field(default_factory=list)
    title: str = ""
    invalid: bool = False  # the options themselves are wrong: no save can mend it, so it is never rendered again
    quality: list[Note] = field(default_factory=list)  # the last good render's quality notes


SHOWN_NOTES = 50  # the kit page lists at most this many quality notes
KitKey = tuple[str, tuple[tuple[str, str], ...]]  # an activity and the options a page gives


def kit_key(activity_id: str, query: dict[str, str]) -> KitKey:
    """What names one rendering: the activity and the options given (empty ones left out)."""
    return activity_id, tuple(sorted((name, query[name]) for name in OPTION_NAMES if query.get(name)))


class KitServer:
    """The state behind the page: the library, the kits rendered so far, the pictures, the open event streams."""

    def __init__(self, library: Library, defaults: dict[str, str] | None = None, log: Callable[[str], None] = print,
                 languages: list[str] | None = None):
        self.library = library
        self.defaults = {k: v for k, v in (defaults or {}).items() if v}
        self.languages = languages or []  # the editions shown first, in this order, where a kit has them
        self.log = log
        self.lock = threading.RLock()  # one render or rasterisation at a time (ReportLab and PDFium share state)
        self.kits: OrderedDict[tuple[str, tuple[tuple[str, str], ...]], ShownKit] = OrderedDict()
        self.sources: dict[str, tuple[bytes, int]] = {}  # fingerprint → (PDF, page index)
        self.pictures: dict[str, bytes] = {}  # fingerprint → PNG
        self.generation = 0
        self.listeners: list[queue.Queue[int]] = []
        self.open_pages: Counter[KitKey] = Counter()  # kit key → event streams open on a page showing it
        self._pages_lock = threading.Lock()  # (not `lock`: a stream opens or closes while a kit renders)

    # ------------------------------------------------------------------ rendering

    def options(self, query: dict[str, str]) -> BuildOptions:
        paper = (query.get("paper") or "a4").lower()
        if paper not in PAPER_SIZES:
            raise UsageError(f"paper must be one of {', '.join(PAPER_SIZES)}, got {paper!r}")
        if query.get("card_size"):
            try:
                parse_card_size(query["card_size"])
            except ValueError as error:
                raise UsageError(str(error)) from None
        class_size = query.get("class_size") or ""
        if class_size and not (class_size.isdigit() and 1 <= int(class_size) <= 500):
            raise UsageError(f"class size must be a whole number from 1 to 500, got {class_size!r}")
        offset = printer_offset(query["printer"]) if query.get("printer") else (0.0, 0.0)
        return BuildOptions(paper=paper, card_size=query.get("card_size") or None,
                            class_size=int(class_size) if class_size else None, back_offset_mm=offset)

    def kit(self, activity_id: str, query: dict[str, str]) -> ShownKit:
        """The kit as last rendered with these options (rendered now if it is not kept); with invalid options,
        the error, answered now and neither kept nor rendered again on a save."""
        key = kit_key(activity_id, query)
        with self.lock:
            if key not in self.kits:
                shown = self.kits[key] = ShownKit(activity_id, dict(key[1]))
                self.render(shown)
                if shown.invalid:
                    del self.kits[key]
                    return shown
                self._keep_at_most(KEPT_KITS, key)
            self.kits.move_to_end(key)
            return self.kits[key]

    def _keep_at_most(self, count: int, asked: KitKey) -> None:
        """Forget the kits used longest ago that no open page shows (nor the `asked` one), until at most `count`
        are kept."""
        shown = self.shown_keys() | {asked}
        for key in [key for key in self.kits if key not in shown][:max(len(self.kits) - count, 0)]:
            del self.kits[key]
            self._forget_unused()

    @contextmanager
    def shown_by_a_page(self, activity_id: str, query: dict[str, str]) -> Iterator[None]:
        """While the block runs (a page's event stream is open), the kit it names is kept and rendered again
        after every save that touches it."""
        key = kit_key(activity_id, query)
        with self._pages_lock:
            self.open_pages[key] += 1
        try:
            yield
        finally:
            with self._pages_lock:
                self.open_pages[key] -= 1
                if self.open_pages[key] <= 0:
                    del self.open_pages[key]

    def shown_keys(self) -> set[KitKey]:
        """The kits some open page shows."""
        with self._pages_lock:
            return set(self.open_pages)

    def render(self, shown: ShownKit) -> None:
        from kitgen.app.rendering import load_edition, render_kit  # the pipeline, at the first render

        start = time.perf_counter()
        try:
            path = self.library.find(shown.activity_id)
            shown.editions = editions(path)
            preferred = [lang for lang in self.languages if lang in shown.editions]
            shown.language = shown.query.get("lang") or (preferred[0] if preferred else own_language(path))
            options = self._valid_options(shown)
            loaded = load_edition(shown.activity_id, path, shown.language)
            shown.title = loaded.activity.title
            kit = render_kit(loaded, options, self.library, several_editions=len(shown.editions) > 1, pdf=False)
            files = self._files(kit.files)
        except Exception as error:  # shown in the page, with the last good pages under it
            shown.error = located(error)
            shown.seconds = time.perf_counter() - start
            self.log(f"{shown.activity_id}: {shown.error[0].get('message')}")
            return
        shown.files, shown.error, shown.quality = files, None, kit.notes
        shown.seconds = time.perf_counter() - start
        self._forget_unused()

    def _valid_options(self, shown: ShownKit) -> BuildOptions:
        """The kit's build options; UsageError, with the kit marked invalid, when they are not options it has."""
        try:
            if shown.language not in shown.editions:
                raise UsageError(f"{shown.activity_id} has no {shown.language!r} edition "
                                 f"(editions: {', '.join(shown.editions)})")
            return self.options(shown.query)
        except KitgenError:
            shown.invalid = True
            raise

    def _files(self, rendered: Iterable[OutputFile]) -> list[ShownFile]:
        """The rendered files, print guide first, each as PDF (a file that draws what it drew before is not
        written again: the backend keeps its bytes, so a small edit rewrites only the files it touches)."""
        from kitgen.export.pdf import write_pdf

        order = {role: i for i, role in enumerate(_ROLE_ORDER)}
        files = []
        for file in sorted(rendered, key=lambda f: order.get(f.role, len(order))):
            assert file.document is not None  # a rendered file has its drawing
            prints = page_fingerprints(file.document, salt=str(PREVIEW_SCALE))
            data = write_pdf(file.document)
            for index, fingerprint in enumerate(prints):
                self.sources[fingerprint] = (data, index)
            files.append(ShownFile(file.name, file.role, file.pages, data, prints))
        return files

    def _forget_unused(self) -> None:
        used = {fp for kit in self.kits.values() for file in kit.files for fp in file.fingerprints}
        for store in (self.sources, self.pictures):
            for fingerprint in [fp for fp in store if fp not in used]:
                del store[fingerprint]

    def picture(self, fingerprint: str) -> bytes | None:
        """The PNG of one page, rasterised the first time it is asked for."""
        with self.lock:
            if fingerprint in self.pictures:
                return self.pictures[fingerprint]
            if fingerprint not in self.sources:
                return None

            from kitgen.export.raster import encoded, page_image

            data, index = self.sources[fingerprint]
            self.pictures[fingerprint] = encoded(page_image(data, index, PREVIEW_SCALE), "PNG", compress_level=1)
            return self.pictures[fingerprint]

    def changed(self, paths: list[str]) -> None:
        """Files were saved: render again the kits an open page shows that they belong to (all of them for a
        template) and forget those no page shows, then tell the open pages."""
        with self.lock:
            start = time.perf_counter()
            shown_keys = self.shown_keys()
            for key, shown in list(self.kits.items()):
                if key not in shown_keys:
                    del self.kits[key]  # rendered again if a page asks for it
                elif self._affects(shown.activity_id, paths):
                    self.render(shown)
            self._forget_unused()
            self.generation += 1
            names = ", ".join(Path(p).name for p in paths[:3]) + (" ..." if len(paths) > 3 else "")
            self.log(f"changed: {names}; pages refreshed in {time.perf_counter() - start:.2f}s")
        self.broadcast()

    def _affects(self, activity_id: str, paths: list[str]) -> bool:
        content = self.library.content.resolve()
        for path in map(lambda p: Path(p).resolve(), paths):
            if not path.is_relative_to(content):
                return True  # a template of the library or kitgen's
            relative = path.relative_to(content).parts
            if relative and (relative[0] == activity_id or relative[0].split(".")[0] == activity_id):
                return True
        return False

    # ------------------------------------------------------------------ server push

    def broadcast(self) -> None:
        for listener in list(self.listeners):
            listener.put(self.generation)

    def watch(self, stop: threading.Event) -> None:
        """Listen to the library's file events from now on (a save made once this returns is heard) and act on
        them in a thread until `stop` is set."""
        notify, _folders = file_events([self.library.content, *self.library.template_dirs()])
        threading.Thread(target=self._act_on_events, args=(notify, stop), daemon=True).start()

    def _act_on_events(self, notify: RustNotify, stop: threading.Event) -> None:
        try:
            while not stop.is_set():
                raw = notify.watch(400, 30, 5_000, stop)  # grouped until quiet for 30 ms, at most 400 ms
                if isinstance(raw, str):
                    continue  # "timeout", or "stop" (then `stop` is set)
                paths = sorted({path for _change, path in raw if not ignored(Path(path).name)})
                if paths:
                    self.changed(paths)
        finally:
            notify.close()

    # ------------------------------------------------------------------ pages

    def library_page(self) -> str:
        from kitgen.load import load_activity

        rows = []
        for activity_id, path in self.library.activity_files().items():
            try:
                title = load_activity(path).activity.title
            except Exception:  # the kit's page shows the located error
                title = "(has errors: open it to see where)"
            link = f"/kit/{urllib.parse.quote(activity_id)}{self.query_string(self.defaults)}"
            rows.append(f'<li><a href="{html.escape(link)}">{html.escape(activity_id)}</a> — {html.escape(title)}</li>')
        body = f"<h1>Activity library</h1><p class=where>{html.escape(str(self.library.content))}</p>" \
               f"<ul class=library>{''.join(rows)}</ul>"
        return _document("Activity library", body, self.generation, "/events")

    def kit_page(self, activity_id: str, query: dict[str, str]) -> str:
        shown = self.kit(activity_id, {**self.defaults, **query})
        parts = [f'<p><a href="/">← library</a></p><h1>{html.escape(shown.title or activity_id)}</h1>',
                 self._options_form(shown)]
        if shown.error:
            parts.append('<section class=error id=error><h2>Not rebuilt: the content has errors</h2><ul>')
            for entry in shown.error:
                if "file" in entry:
                    parts.append(f'<li><code class=where>{html.escape(entry["file"])}:{entry["line"]}:'
                                 f'{entry["column"]}</code>: {html.escape(entry["message"])}'
                                 f'<pre class=source>{entry["line"]:>4} | {html.escape(entry["text"])}\n'
                                 f'{" " * (7 + max(entry["column"] - 1, 0))}^</pre></li>')
                else:
                    parts.append(f"<li>{html.escape(entry['message'])}</li>")
            parts.append("</ul>" + ("<p>Below: the last good pages.</p>" if shown.files else "") + "</section>")
        else:
            pages = sum(f.pages for f in shown.files)
            parts.append(f"<p class=status id=status>{pages} pages, rendered in {shown.seconds:.2f} s</p>")
        if shown.quality:  # as `kitgen build` lists them, each with its place
            parts.append(f'<section class=quality id=quality><h2>Quality notes <small>{len(shown.quality)}</small></h2>'
                         '<ul>' + "".join(f'<li data-kind="{note.kind}">{html.escape(str(note))}</li>'
                                          for note in shown.quality[:SHOWN_NOTES]) +
                         (f"<li>… and {len(shown.quality) - SHOWN_NOTES} more</li>"
                          if len(shown.quality) > SHOWN_NOTES else "") + "</ul></section>")
        query_string = self.query_string(shown.query)
        for file in shown.files:
            href = f"/kit/{urllib.parse.quote(activity_id)}/{urllib.parse.quote(file.name)}{query_string}"
            parts.append(f'<section class=file data-role="{file.role}"><h2>{html.escape(file.role.value.replace("-", " "))} '
                         f'<small>{html.escape(file.name)}, {file.pages} page{"s" if file.pages != 1 else ""} · '
                         f'<a href="{html.escape(href)}" download>download PDF</a></small></h2><div class=pages>')
            for number, fingerprint in enumerate(file.fingerprints, 1):
                parts.append(f'<img src="/page/{fingerprint}.png" alt="{html.escape(file.name)} page {number}" '
                             f'title="page {number}" loading="lazy">')
            parts.append("</div></section>")
        events = f"/events?{urllib.parse.urlencode({'kit': activity_id, **shown.query})}"  # the kit this page shows
        return _document(shown.title or activity_id, "".join(parts), self.generation, events)

    def _options_form(self, shown: ShownKit) -> str:
        def select(name: str, label: str, choices: list[tuple[str, str]]) -> str:
            current = shown.language if name == "lang" else shown.query.get(name, "")
            options = "".join(f'<option value="{html.escape(value)}"{" selected" if value == current else ""}>'
                              f"{html.escape(text)}</option>" for value, text in choices)
            return f'<label>{label} <select name="{name}" onchange="this.form.submit()">{options}</select></label>'

        try:
            printers = sorted(load_printers())
        except KitgenError:
            printers = []
        fields = [select("paper", "paper", [(p, p.upper() if p == "a4" else p.title()) for p in PAPER_SIZES]),
                  select("card_size", "card size", [("", "the activity's")] + [(s, s) for s in
                                                                              ("poker", "bridge", "mini", "tarot")]),
                  f'<label>class size <input name="class_size" type="number" min="1" max="500" '
                  f'value="{html.escape(shown.query.get("class_size", ""))}" placeholder="one kit" '
                  f'onchange="this.form.submit()"></label>']
        if len(shown.editions) > 1:
            fields.insert(0, select("lang", "language", [(lang, lang) for lang in shown.editions]))
        if printers:
            fields.append(select("printer", "printer", [("", "no profile")] + [(p, p) for p in printers]))
        return f'<form class=options method=get>{"".join(fields)}</form>'

    @staticmethod
    def query_string(query: dict[str, str]) -> str:
        kept = {name: query[name] for name in OPTION_NAMES if query.get(name)}
        return "?" + urllib.parse.urlencode(kept) if kept else ""


_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{margin:.2em 0} h2{font-size:1.1em;margin:1.2em 0 .4em} small{font-weight:normal;color:#555}
.options label{margin-right:1.2em} .options input{width:5em} .status{color:#555}
.pages{display:flex;flex-wrap:wrap;gap:10px}
.pages img{width:223px;border:1px solid #bbb;box-shadow:0 1px 3px #0002;background:#fff}
.error{border:2px solid #b00020;background:#fff3f3;padding:.2em 1em;margin:1em 0}
.error h2{color:#b00020} .source{background:#fff;padding:.4em;margin:.3em 0;overflow-x:auto}
"""

_SCRIPT = """
let shown = %d;
const events = new EventSource(%s);  // it names the kit and options shown: they stay rendered while it is open
events.onmessage = async (event) => {  // a rebuild: the page's new body replaces the old one, in place
  const generation = Number(event.data);
  if (generation === shown) return;
  shown = generation;
  try {
    const response = await fetch(location.href, {cache: 'no-store'});
    const page = new DOMParser().parseFromString(await response.text(), 'text/html');
    for (const script of page.body.querySelectorAll('script')) script.remove();
    document.body.replaceWith(page.body);
    document.title = page.title;
  } catch (error) { location.reload(); }
};
"""


def _document(title: str, body: str, generation: int, events: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} · kitgen'
            f"</title><style>{_STYLE}</style></head><body data-generation=\"{generation}\">{body}"
            f"<script>{_SCRIPT % (generation, json.dumps(events))}</script></body></html>")


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
            elif len(parts) == 2 and parts[0] == "page" and parts[1].endswith(".png"):
                picture = kits.picture(parts[1][:-4])
                if picture is None:
                    self._send(404, "text/plain", b"no such page (the kit was rebuilt since)")
                else:
                    self._send(200, "image/png", picture, cache="max-age=86400, immutable")
            elif len(parts) == 2 and parts[0] == "kit":
                self._send(200, "text/html; charset=utf-8", kits.kit_page(parts[1], query).encode())
            elif len(parts) == 3 and parts[0] == "kit":
                shown = kits.kit(parts[1], {**kits.defaults, **query})
                file = next((f for f in shown.files if f.name == parts[2]), None)
                if file is None:
                    self._send(404, "text/plain", b"no such file")
                else:
                    self._send(200, "application/pdf", file.data)
            else:
                self._send(404, "text/plain", b"not found")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _send(self, status: int, kind: str, body: bytes, cache: str = "no-store") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
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

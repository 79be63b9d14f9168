"""Benchmark: `python -m benchmarks.bench` builds synthetic decks and libraries in fresh processes and prints a table.

Cases: the floor (Python with kitgen's dependencies imported, then its build modules), the CLI's start, the real
library (full and no-op), synthetic decks of 200, 2,000 and 20,000 distinct
cards, a synthetic library of 200 activities on one worker and on every core, and `kitgen serve` from a save to
the refreshed page (over HTTP, and in headless Chromium when Playwright and chromium are there). Each case runs
`--repeat` times (median wall time; peak resident memory of the child process). With the `typst` package (the
`bench` extra), the 200- and 2,000-card decks are also compiled by Typst from a document the benchmark writes,
in turn with kitgen's builds, and the paired ratios kitgen ÷ Typst (wall and CPU time) are printed.
"""
from __future__ import annotations

import argparse

import kitgen as kitgen_package
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from kitgen.load.library import builtin_root

ACTIVITY = """id: {id}
title: Synthetic deck {id}
purpose: Measure how kitgen's build time grows with the number of cards.
category: Benchmark
players: 2
minutes: 10
rules:
  prepare: Shuffle the deck.
  play: Take turns.
decks:
  - id: deck
    name: Synthetic deck
    back: {{title: Synthetic, symbol: "★", pattern: stripes}}
    cards:
{cards}
record_sheets:
  - id: record
    title: Record
    columns: [Turn, Note]
    rows: 6
"""

# the words of the synthetic cards' texts (the same texts go to kitgen and to the Typst document)
ADJECTIVES = "rusty bright hollow quiet silver broken swift ancient tiny heavy golden crooked".split()
NOUNS = "gear lantern engine bridge harbour compass anvil beacon spring ladder kettle magnet".split()
KINDS = ["Part — Engine", "Part — Frame", "Action — Repair", "Action — Trade", "Event — Storm", "Upgrade — Tool"]
WORDS = ("when you play this card take one token from the supply and place it on any robot in your yard if the "
         "robot already holds two tokens discard them all and draw a new card then pass the turn to the player on "
         "your left unless a storm is showing").split()


def card_texts(cards: int) -> list[tuple[str, str, str, str]]:
    """Title, type line, a 22–36-word body and a footer "card i/N" for each of `cards` distinct cards (always the
    same texts for the same number)."""
    import random

    rng = random.Random(18)
    texts = []
    for i in range(1, cards + 1):
        title = f"{rng.choice(ADJECTIVES).title()} {rng.choice(NOUNS)}"
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(22, 36)))
        texts.append((title, rng.choice(KINDS), body[0].upper() + body[1:] + ".", f"card {i}/{cards}"))
    return texts


# what any build has to import before it draws anything: the floor under every build case below
DEPENDENCIES = "import click, yaml, jinja2.sandbox, pydantic, reportlab.pdfgen.canvas, reportlab.platypus"
KITGEN_MODULES = "import kitgen.cli, kitgen.app.build, kitgen.render.kit, kitgen.load.model"

# the reference under the deck cases: the same sheets drawn with a plain ReportLab canvas and nothing else
# (poker cards 3 × 3 on A4, crop marks, mirrored backs, embedded DejaVu Sans, the same texts with the body
# wrapped at one size; no validation, no text fitting, no documents). Arguments: a JSON file of the card texts
# (title, type line, body, footer), the font folder, the output file.
PLAIN_CANVAS = """
import json, sys
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
texts, fonts, out = json.load(open(sys.argv[1], encoding="utf-8")), sys.argv[2], sys.argv[3]
pdfmetrics.registerFont(TTFont("Sans", fonts + "/DejaVuSans.ttf"))
pdfmetrics.registerFont(TTFont("Sans-Bold", fonts + "/DejaVuSans-Bold.ttf"))
mm, page = 72 / 25.4, (595.2756, 841.8898)
w, h = 63.5 * mm, 88.9 * mm
x0, y0 = (page[0] - 3 * w) / 2, (page[1] - 3 * h) / 2
c = Canvas(out, pagesize=page, invariant=1, pageCompression=1)
for first in range(0, len(texts), 9):
    for side in ("face", "back"):
        for i in range(first, min(first + 9, len(texts))):
            column, row = (i - first) % 3, (i - first) // 3
            x, y = x0 + (2 - column if side == "back" else column) * w, y0 + (2 - row) * h
            c.setLineWidth(0.6)
            c.roundRect(x + 2 * mm, y + 2 * mm, w - 4 * mm, h - 4 * mm, 2.5 * mm)
            if side == "face":
                title, kind, body, footer = texts[i]
                c.setFont("Sans-Bold", 10)
                c.drawString(x + 4.5 * mm, y + h - 9 * mm, title)
                c.setFont("Sans", 7.5)
                c.drawString(x + 4.5 * mm, y + h - 13 * mm, kind)
                c.line(x + 4.5 * mm, y + h - 14.5 * mm, x + w - 4.5 * mm, y + h - 14.5 * mm)
                c.setFont("Sans", 7)
                for n, line in enumerate(simpleSplit(body, "Sans", 7, w - 9 * mm)):
                    c.drawString(x + 4.5 * mm, y + h - 18.5 * mm - n * 9, line)
                c.setFont("Sans", 6)
                c.drawCentredString(x + w / 2, y + 6 * mm, footer)
            else:
                c.setFont("Sans-Bold", 14)
                c.drawCentredString(x + w / 2, y + h / 2, "Synthetic")
        c.setLineWidth(0.25)
        for k in range(4):
            c.line(x0 + k * w, y0 - 8 * mm, x0 + k * w, y0 - 1 * mm)
            c.line(x0 + k * w, y0 + 3 * h + 1 * mm, x0 + k * w, y0 + 3 * h + 8 * mm)
            c.line(x0 - 8 * mm, y0 + k * h, x0 - 1 * mm, y0 + k * h)
            c.line(x0 + 3 * w + 1 * mm, y0 + k * h, x0 + 3 * w + 8 * mm, y0 + k * h)
        c.showPage()
c.save()
"""


def synthetic_activity(folder: Path, activity_id: str, cards: int, copies: int = 1) -> None:
    """An activity whose deck holds `cards` distinct cards (title, type line, body, footer), `copies` of each."""
    import json

    def quoted(text: str) -> str:  # a JSON string is a YAML string
        return json.dumps(text, ensure_ascii=False)

    lines = [f"      - {{id: c{i:05d}, count: {copies}, name: {quoted(title)}, caption: {quoted(kind)}, "
             f"text: {quoted(body)}, footer: {quoted(footer)}}}"
             for i, (title, kind, body, footer) in enumerate(card_texts(cards), 1)]
    (folder / f"{activity_id}.yaml").write_text(ACTIVITY.format(id=activity_id, cards="\n".join(lines)),
                                                encoding="utf-8")


# The same deck as a Typst document: A4, poker cards 3 × 3 with crop marks, faces and mirrored backs on
# alternate pages, DejaVu Sans (the font files kitgen embeds). The body has one size that fits the longest
# text (Typst does not fit text to its box here; kitgen does). Backs have a flat fill: kitgen's stripes as a Typst
# `tiling` cost Typst about 0.6 s more for 2,000 cards. CARDS stands for the list of cards.
TYPST_DOCUMENT = """#let W = 63.5mm
#let H = 88.9mm
#let X0 = (210mm - 3 * W) / 2
#let Y0 = (297mm - 3 * H) / 2
#set page(paper: "a4", margin: 0pt)
#set text(font: "DejaVu Sans", size: 7pt, lang: "en")
#let mark(dx, dy, length, angle) = place(dx: dx, dy: dy, line(length: length, angle: angle, stroke: 0.25pt))
#let marks = {
  for k in range(4) {
    mark(X0 + k * W, Y0 - 8mm, 7mm, 90deg)
    mark(X0 + k * W, Y0 + 3 * H + 1mm, 7mm, 90deg)
    mark(X0 - 8mm, Y0 + k * H, 7mm, 0deg)
    mark(X0 + 3 * W + 1mm, Y0 + k * H, 7mm, 0deg)
  }
}
#let frame(body, fill: none) = block(width: W, height: H, inset: 2mm,
  block(width: 100%, height: 100%, radius: 2.5mm, stroke: 0.6pt, inset: 2.5mm, fill: fill, clip: true, body))
#let face(c) = frame[
  #text(size: 10pt, weight: "bold", c.at(0))
  #v(-0.5em)
  #text(size: 7.5pt, c.at(1))
  #v(-0.6em)
  #line(length: 100%, stroke: 0.4pt)
  #par(justify: false, leading: 0.5em, c.at(2))
  #place(bottom + center, text(size: 6pt, c.at(3)))
]
#let back = frame(fill: luma(225))[
  #align(center + horizon, box(fill: white, inset: 3mm, radius: 2mm)[
    #text(size: 14pt, weight: "bold")[Synthetic] \\
    #text(size: 20pt)[★]
  ])
]
#let sheet(chunk) = {
  marks
  for (j, c) in chunk.enumerate() {
    place(dx: X0 + calc.rem(j, 3) * W, dy: Y0 + calc.quo(j, 3) * H, face(c))
  }
  pagebreak()
  marks
  for j in range(chunk.len()) {
    place(dx: X0 + (2 - calc.rem(j, 3)) * W, dy: Y0 + calc.quo(j, 3) * H, back)
  }
}
#let cards = (
CARDS
)
#for first in range(0, cards.len(), step: 9) {
  if first > 0 { pagebreak() }
  sheet(cards.slice(first, calc.min(first + 9, cards.len())))
}
"""

# compile a Typst document in a fresh process: document, PDF, font folder (no system fonts, nothing fetched)
TYPST_COMPILE = ("import sys, typst; typst.compile(sys.argv[1], output=sys.argv[2], font_paths=[sys.argv[3]], "
                 "ignore_system_fonts=True)")


def typst_document(path: Path, cards: int) -> None:
    """Write the synthetic deck of `cards` distinct cards as a Typst document."""
    def string(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    rows = [f"  ({', '.join(string(t) for t in texts)})," for texts in card_texts(cards)]
    path.write_text(TYPST_DOCUMENT.replace("CARDS", "\n".join(rows)), encoding="utf-8")


def typst_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("typst") is not None


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Wall seconds and peak resident memory (MB) of one fresh process."""
    wall, peak, _ = run_timed(command, cwd, env)
    return wall, peak


def run_timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, int, float]:
    """Wall seconds, peak resident memory (MB) and CPU seconds (user + system) of one fresh process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env={**os.environ, **(env or {})})
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0,):
        raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read().decode()[-400:]}")
    return wall, usage.ru_maxrss // 1024, usage.ru_utime + usage.ru_stime


def cold_cache(warm: Path) -> dict[str, str]:
    """The environment of a cold build: a fresh copy of `warm` (compiled templates and font metrics, as after
    any earlier run of kitgen), so that nothing drawn by an earlier run of the same case is reused."""
    copy = Path(tempfile.mkdtemp(prefix="cache-", dir=warm.parent))
    shutil.copytree(warm, copy, dirs_exist_ok=True)
    return {"KITGEN_CACHE": str(copy)}


KEPT_WARM = ("templates-", "fonts-", "seal-")  # what a cold build finds: compiled templates and font metrics


def warm_cache(work: Path, kitgen: list[str]) -> Path:
    """A cache folder after one small build: templates compiled and font metrics read, no deck of the cases."""
    content, warm = work / "warm-up" / "content", work / "warm-cache"
    content.mkdir(parents=True)
    synthetic_activity(content, "warm-up", 9)
    run(kitgen + ["build", "warm-up", "-q", "--content", str(content), "--out", str(work / "out-warm-up")], work,
        {"KITGEN_CACHE": str(warm)})
    return only_warm(warm)


def only_warm(cache: Path) -> Path:
    """`cache` with compiled templates and font metrics alone: every drawing, text, document and file removed."""
    for shelf in cache.iterdir():
        if shelf.is_dir() and not shelf.name.startswith(KEPT_WARM):
            shutil.rmtree(shelf)
    return cache


def library_warm_cache(work: Path, kitgen: list[str], warm: Path, content: Path) -> Path:
    """`warm` with the templates of the library in `content` compiled too (Jinja keys a compiled template by its
    file, and this library's templates are a copy), none of its drawings."""
    library_warm = Path(cold_cache(warm)["KITGEN_CACHE"])
    out = work / "out-library-warm"
    run(kitgen + ["build", "--all", "--force", "-q", "--content", str(content), "--out", str(out)], work,
        {"KITGEN_CACHE": str(library_warm)})
    return only_warm(library_warm)


def measure(name: str, command: list[str], cwd: Path, repeat: int, out: Path | None, cards: int,
            env: dict[str, str] | None = None, cold_from: Path | None = None) -> dict:
    """Median wall time of `repeat` fresh processes; with `cold_from`, each starts from a copy of that cache."""
    walls, peaks = [], []
    for _ in range(repeat):
        wall, peak = run(command, cwd, {**(env or {}), **(cold_cache(cold_from) if cold_from else {})})
        walls.append(wall)
        peaks.append(peak)
    pdfs = list(out.rglob("*.pdf")) if out else []
    pages = 0
    if pdfs:
        import json
        for manifest in out.rglob("manifest.json"):
            pages += sum(f["pages"] for f in json.loads(manifest.read_text())["files"].values())
    median = statistics.median(walls)
    return {"case": name, "wall": median, "peak": max(peaks), "pages": pages,
            "bytes": sum(p.stat().st_size for p in pdfs), "ms_per_card": (median * 1000 / cards) if cards else None}


def library_cases(work: Path, kitgen: list[str], repeat: int, warm: Path) -> list[dict]:
    """The CLI's start and the real library: full (with and without compiled templates kept) and no-op, and one
    kit built cold in a new process (templates and font metrics kept, none of its drawings)."""
    library = work / "library"
    shutil.copytree(builtin_root() / "content", library / "content")
    shutil.copytree(builtin_root() / "templates", library / "templates")
    out = work / "out-library"
    full = kitgen + ["build", "--all", "--force", "-q", "--content", str(library / "content"), "--out", str(out)]
    noop = kitgen + ["build", "--all", "-q", "--content", str(library / "content"), "--out", str(out)]
    one_noop = kitgen + ["build", "growing-discard", "-q", "--content", str(library / "content"), "--out", str(out)]
    python = kitgen[:1]
    warm = library_warm_cache(work, kitgen, warm, library / "content")
    return [measure("floor: Python + dependencies imported", python + ["-c", DEPENDENCIES], work, repeat, None, 0),
            measure("floor: + kitgen's build modules", python + ["-c", KITGEN_MODULES], work, repeat, None, 0),
            measure("kitgen --help", kitgen + ["--help"], work, repeat, None, 0),
            measure("library, full build", full, work, repeat, out, 0, cold_from=warm),
            measure("library, full, no template cache", full, work, repeat, out, 0, env={"KITGEN_CACHE": "off"}),
            measure("library, no-op rebuild", noop, work, repeat, None, 0),
            measure("one kit, no-op rebuild", one_noop, work, repeat, None, 0),
            measure("one kit (growing-discard), cold", one_noop + ["--force"], work, repeat, None, 0, cold_from=warm)]


def _sigint_default() -> None:
    """In the watcher: SIGINT (Ctrl-C) as in a terminal, also when the benchmark runs as a background job,
    whose children inherit SIGINT ignored."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def watch_case(work: Path, kitgen: list[str], repeat: int) -> dict:
    """`kitgen build growing-discard --watch`: the time from saving an edit to the rebuilt kit (median)."""
    content = work / "watched" / "content"
    shutil.copytree(builtin_root() / "content", content)
    source = content / "growing-discard.yaml"
    original = source.read_text(encoding="utf-8")
    walls = watched_saves(kitgen, content, "growing-discard", work / "out-watched", repeat, lambda turn: source.write_text(
        original.replace("purpose: ", f"purpose: ({turn}) ", 1), encoding="utf-8"))
    return _save_row("save → rebuilt kit, --watch", walls)


def watch_edit_case(work: Path, kitgen: list[str], repeat: int) -> dict:
    """2,000 distinct cards in `--watch`: one card edited at each save (median save → rebuilt kit)."""
    content = work / "watched-deck" / "content"
    content.mkdir(parents=True)
    synthetic_activity(content, "deck-2000", 2000)
    source = content / "deck-2000.yaml"

    def edit(turn: int) -> None:
        card = f"{{id: c{turn * 97 + 5:05d}, count: 1, name: \""
        source.write_text(source.read_text(encoding="utf-8").replace(card, f"{card}Edited ", 1), encoding="utf-8")
    walls = watched_saves(kitgen, content, "deck-2000", work / "out-watched-deck", repeat, edit)
    return _save_row("2,000 cards, one edited, --watch", walls)


def watched_saves(kitgen: list[str], content: Path, activity: str, out: Path, repeat: int,
                  edit: Callable[[int], None]) -> list[float]:
    """Start `kitgen build ACTIVITY --watch`, then time `repeat` saves (each `edit(turn)`) to the rebuilt kit."""
    import queue
    import threading

    process = subprocess.Popen(kitgen + ["build", activity, "--watch", "--content", str(content), "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               preexec_fn=_sigint_default)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()  # type: ignore

    def wait_for(text: str) -> None:
        while text not in lines.get(timeout=300):
            pass

    walls = []
    try:
        wait_for("watching")
        for turn in range(repeat):
            start = time.perf_counter()
            edit(turn)
            wait_for("quality report")
            walls.append(time.perf_counter() - start)
    finally:
        _interrupt(process)
    return walls


def _serving_a_copy(folder: Path, kitgen: list[str]) -> tuple[Path, str, subprocess.Popen[str]]:
    """`kitgen serve growing-discard` over a copy of the library in `folder`: the activity's file, its text, and
    the serving process."""
    content = folder / "content"
    shutil.copytree(builtin_root() / "content", content)
    source = content / "growing-discard.yaml"
    process = subprocess.Popen(kitgen + ["serve", "growing-discard", "--content", str(content)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=_sigint_default)
    return source, source.read_text(encoding="utf-8"), process


def serve_case(work: Path, kitgen: list[str], repeat: int) -> list[dict]:
    """`kitgen serve growing-discard`: from saving an edit to the page refreshed, as a browser does it: the
    server's push received, the page fetched again and every picture it names that was not fetched before
    (pictures are named by what they show, so a browser keeps the unchanged ones). Median of at least 7 saves;
    then again after five other option sets were viewed and their pages closed (a save renders only what an
    open page shows, so it should cost the same)."""
    import http.client
    import json
    import queue
    import re
    import socket
    import threading
    import urllib.request

    source, original, process = _serving_a_copy(work / "served", kitgen)
    rows = []
    try:
        for line in process.stdout:  # type: ignore[union-attr]
            if line.startswith("serving "):
                url = line.split()[1]
                break
        base = url.split("/kit/")[0]
        host, port = base.removeprefix("http://").split(":")
        fetched: set[str] = set()

        def refresh(address: str = url) -> str:
            page = urllib.request.urlopen(address, timeout=120).read().decode()
            for picture in re.findall(r'src="(/page/[^"]+)"', page):
                if picture not in fetched:
                    urllib.request.urlopen(base + picture, timeout=120).read()
                    fetched.add(picture)
            return page

        def open_stream(page: str) -> tuple[socket.socket, queue.Queue[str]]:
            """The event stream the page's script opens (it names the kit and options the page shows)."""
            stream = http.client.HTTPConnection(host, int(port), timeout=120)
            stream.request("GET", json.loads(re.search(r"new EventSource\((\"[^\"]*\")\)", page)[1]))
            connection = stream.sock  # (the response reads it after the connection object lets go of it)
            response = stream.getresponse()
            pushed: queue.Queue[str] = queue.Queue()
            threading.Thread(target=lambda: [pushed.put(raw.decode()) for raw in response
                                             if raw.startswith(b"data:")], daemon=True).start()
            pushed.get(timeout=120)
            return connection, pushed

        stream, pushed = open_stream(refresh())
        turn = 0
        for case in ("save → refreshed page, serve", "save after 5 option sets viewed, serve"):
            walls = []
            for _ in range(max(repeat, 7)):
                start = time.perf_counter()
                source.write_text(original.replace("purpose: ", f"purpose: ({turn}) ", 1), encoding="utf-8")
                pushed.get(timeout=120)
                refresh()
                walls.append(time.perf_counter() - start)
                turn += 1
                time.sleep(0.2)
            rows.append(_save_row(case, walls))
            for size in (21, 22, 23, 24, 25):  # five other option sets, each page opened and closed
                other, _ = open_stream(refresh(f"{url}{'&' if '?' in url else '?'}class_size={size}"))
                other.shutdown(socket.SHUT_RDWR)  # the page closed, as a browser closes it
                other.close()
            time.sleep(1.5)  # the server notices a closed stream within a second
        stream.shutdown(socket.SHUT_RDWR)
        stream.close()
    finally:
        _interrupt(process)
    return rows


BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--no-first-run", "--disable-sync"]


def browser_serve_case(work: Path, kitgen: list[str]) -> tuple[list[dict], list[str]]:
    """`kitgen serve growing-discard` in headless Chromium (Playwright, the test extras, and the system's
    chromium): from saving a new purpose to the open page showing it with its first four pictures loaded, median
    of 7 saves. No row, and a note saying why, without them."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return [], ["Chromium row skipped: playwright is not installed (pip install -e '.[test]')"]
    if chromium is None:
        return [], ["Chromium row skipped: no chromium on PATH (the Debian package chromium)"]
    source, original, process = _serving_a_copy(work / "served-in-chromium", kitgen)
    loaded = ("() => { const i = [...document.querySelectorAll('section.file img')].slice(0, 4);"
              " return i.length === 4 && i.every(x => x.complete && x.naturalWidth > 0); }")
    walls = []
    try:
        for line in process.stdout:  # type: ignore[union-attr]
            if line.startswith("serving "):
                url = line.split()[1]
                break
        os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=BROWSER_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.goto(url)
            page.wait_for_function(loaded, timeout=120_000)
            for turn in range(8):  # the first save warms the process up: not counted
                purpose = f"Measured save {turn}."
                start = time.perf_counter()
                source.write_text(original.replace("purpose: ", f"purpose: {purpose} ", 1), encoding="utf-8")
                page.wait_for_function(f"() => document.querySelector('p.purpose').textContent.startsWith("
                                       f"{purpose!r})", timeout=120_000, polling=5)
                page.wait_for_function(loaded, timeout=120_000, polling=5)
                if turn:
                    walls.append(time.perf_counter() - start)
                time.sleep(0.3)
            browser.close()
    finally:
        _interrupt(process)
    return [_save_row("save → refreshed page, Chromium", walls)], [
        f"save → refreshed page in Chromium: median {statistics.median(walls):.3f} s of 7 saves "
        f"({', '.join(f'{w:.3f}' for w in walls)}; target 0.3 s)"]


def _interrupt(process: subprocess.Popen) -> None:
    """Stop a long-running kitgen (watch, serve) as Ctrl-C does; kill it if it does not end in 30 s."""
    import signal

    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _save_row(case: str, walls: list[float]) -> dict:
    """A table row for a save-to-result time (median of the saves)."""
    return {"case": case, "wall": statistics.median(walls), "peak": 0, "pages": 0, "bytes": 0, "ms_per_card": None}


def deck_cases(work: Path, kitgen: list[str], repeat: int, quick: bool, warm: Path) -> list[dict]:
    """Distinct cards (200, 2,000 and 20,000), and 40 card kinds printed once and 30 times each."""
    decks = work / "decks" / "content"
    decks.mkdir(parents=True)
    rows = []
    for cards, kits in [(200, 1), (2000, 1)] + ([] if quick else [(2000, 10)]):
        synthetic_activity(decks, f"deck-{cards}", cards)
        out = work / f"out-{cards}-{kits}"
        command = kitgen + ["build", f"deck-{cards}", "--force", "-q", "--content", str(decks), "--out", str(out)] \
            + (["--kits", str(kits)] if kits > 1 else [])
        label = f"{cards * kits:,} cards" + (f" ({kits} kits of {cards:,})" if kits > 1 else " (distinct)")
        rows.append(measure(label, command, work, repeat if cards * kits <= 2000 else 1, out, cards * kits,
                            cold_from=warm))
        if cards == 2000 and kits == 1:
            rows.append(plain_canvas_case(work, repeat, cards))
    for copies in (1, 30):
        synthetic_activity(decks, f"repeat-{copies}", 40, copies)
        out = work / f"out-repeat-{copies}"
        command = kitgen + ["build", f"repeat-{copies}", "--force", "-q", "--content", str(decks), "--out", str(out)]
        rows.append(measure(f"{40 * copies:,} cards (40 kinds × {copies})", command, work, 1, out, 40 * copies,
                            cold_from=warm))
    return rows


def plain_canvas_case(work: Path, repeat: int, cards: int) -> dict:
    """The same card sheets from a plain ReportLab canvas: what drawing alone costs with ReportLab."""
    import json

    from kitgen.fonts.registry import FONT_DIR

    pdf, texts = work / f"plain-{cards}.pdf", work / f"texts-{cards}.json"
    texts.write_text(json.dumps(card_texts(cards)), encoding="utf-8")
    command = [sys.executable, "-c", PLAIN_CANVAS, str(texts), str(FONT_DIR), str(pdf)]
    row = measure(f"reference: plain canvas, {cards:,}", command, work, repeat, None, cards)
    row.update(pages=2 * -(-cards // 9), bytes=pdf.stat().st_size)
    return row


def typst_pairs(work: Path, kitgen: list[str], pairs: int, warm: Path) -> tuple[list[dict], list[str]]:
    """The same synthetic decks (200 and 2,000 distinct cards) built by kitgen and compiled by Typst, in turn
    (A B A B, fresh processes), so that a drift in the machine's speed hits both alike. Each kitgen run starts
    from its own copy of the warm cache: compiled templates and font metrics as after any earlier run of kitgen,
    nothing drawn from this deck. Returns the Typst rows and the ratio lines."""
    from kitgen.fonts.registry import FONT_DIR

    decks = work / "typst-decks" / "content"
    decks.mkdir(parents=True)
    rows, lines = [], []
    for cards in (200, 2000):
        synthetic_activity(decks, f"deck-{cards}", cards)
        document, pdf = work / f"deck-{cards}.typ", work / f"deck-{cards}-typst.pdf"
        typst_document(document, cards)
        out = work / f"out-typst-pair-{cards}"
        build = kitgen + ["build", f"deck-{cards}", "--force", "-q", "--content", str(decks), "--out", str(out)]
        compile_ = [sys.executable, "-c", TYPST_COMPILE, str(document), str(pdf), str(FONT_DIR)]
        kitgen_runs, typst_runs = [], []
        for _ in range(pairs):
            kitgen_runs.append(run_timed(build, work, cold_cache(warm)))
            typst_runs.append(run_timed(compile_, work))
        wall = statistics.median(r[0] for r in typst_runs)
        rows.append({"case": f"{cards:,} cards, Typst", "wall": wall, "peak": max(r[1] for r in typst_runs),
                     "pages": typst_pages(pdf), "bytes": pdf.stat().st_size, "ms_per_card": wall * 1000 / cards})
        walls = [k[0] / t[0] for k, t in zip(kitgen_runs, typst_runs)]
        cpus = [k[2] / t[2] for k, t in zip(kitgen_runs, typst_runs)]
        lines.append(f"kitgen ÷ Typst, {cards:,} cards: wall {ratio_text(walls)}; CPU {ratio_text(cpus)}")
    return rows, lines


def edit_pairs(work: Path, kitgen: list[str], pairs: int, warm: Path) -> tuple[list[dict], list[str]]:
    """2,000 distinct cards, one of them edited, rebuilt by a new process that finds the earlier build's drawings
    in its cache; paired with a cold build of the same deck (its own fresh cache) run just before it."""
    decks = work / "edit-decks" / "content"
    decks.mkdir(parents=True)
    synthetic_activity(decks, "deck-2000", 2000)
    source = decks / "deck-2000.yaml"
    build = kitgen + ["build", "deck-2000", "-q", "--content", str(decks), "--out", str(work / "out-edit")]
    colds, edits = [], []
    for turn in range(pairs):
        env = cold_cache(warm)
        colds.append(run_timed(build + ["--force"], work, env)[0])
        text = source.read_text(encoding="utf-8")
        card = f"{{id: c{turn * 97 + 5:05d}, count: 1, name: \""
        source.write_text(text.replace(card, f"{card}Edited ", 1), encoding="utf-8")
        edits.append(run_timed(build, work, env)[0])
    row = {"case": "2,000 cards, one edited (new process)", "wall": statistics.median(edits), "peak": 0,
           "pages": 0, "bytes": 0, "ms_per_card": None}
    return [row], [f"one card of 2,000 edited ÷ cold build of the deck: {ratio_text([e / c for e, c in zip(edits, colds)])}"]


def ratio_text(ratios: list[float]) -> str:
    """The median of paired ratios, then the range and every pair."""
    return (f"{statistics.median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f}; pairs: "
            f"{', '.join(f'{r:.2f}' for r in ratios)})")


def typst_pages(pdf: Path) -> int:
    """Pages of the PDF Typst wrote (pypdfium2, which kitgen uses for previews, opens it)."""
    import pypdfium2

    document = pypdfium2.PdfDocument(str(pdf))
    try:
        return len(document)
    finally:
        document.close()


def parallel_cases(work: Path, kitgen: list[str], pairs: int = 2) -> tuple[list[dict], list[float]]:
    """200 small activities on one worker and on every core, in turn (A B A B), so that a drift in the
    machine's speed hits both alike; the speed-up is the median of the pairs' ratios."""
    many = work / "many" / "content"
    many.mkdir(parents=True)
    for index in range(200):
        synthetic_activity(many, f"activity-{index:03d}", 40)
    runs: dict[int, list[dict]] = {}
    for _ in range(pairs):
        for jobs in (1, os.cpu_count() or 1):
            out = work / f"out-many-{jobs}"
            command = kitgen + ["build", "--all", "--force", "-q", "--jobs", str(jobs), "--content", str(many),
                                "--out", str(out)]
            runs.setdefault(jobs, []).append(measure(f"200 activities, {jobs} worker(s)", command, work, 1, out,
                                                     200 * 40))
    one, every = runs.values() if len(runs) == 2 else (runs[1], runs[1])
    rows = []
    for side in (one, every):
        row = dict(side[0])
        row["wall"] = statistics.median(r["wall"] for r in side)
        row["peak"] = max(r["peak"] for r in side)
        row["ms_per_card"] = row["wall"] * 1000 / (200 * 40)
        rows.append(row)
    return rows, [a["wall"] / b["wall"] for a, b in zip(one, every)]


def print_table(rows: list[dict], speedups: list[float], notes: list[str] = ()) -> None:
    print(f"{'case':<36} {'median wall':>11} {'peak MB':>8} {'pages':>6} {'bytes':>11} {'ms/card':>8}")
    for row in rows:
        per_card = f"{row['ms_per_card']:.2f}" if row["ms_per_card"] else "-"
        size = f"{row['bytes']:,}" if row["bytes"] else "-"
        print(f"{row['case']:<36} {row['wall']:>10.2f}s {row['peak'] or '-':>8} {row['pages'] or '-':>6} "
              f"{size:>11} {per_card:>8}")
    repeats = [r for r in rows if "40 kinds" in r["case"]]
    if len(repeats) == 2:
        extra = (repeats[1]["bytes"] - repeats[0]["bytes"]) / (40 * 29)
        print(f"bytes per additional copy of a card kind: {extra:,.0f}")
    if speedups:
        print(f"parallel speed-up on {os.cpu_count()} cores: {statistics.median(speedups):.2f}× "
              f"(pairs: {', '.join(f'{s:.2f}' for s in speedups)})")
    for line in notes:
        print(line)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per case (median is reported), and pairs of "
                                                              "kitgen and Typst runs")
    parser.add_argument("--quick", action="store_true", help="skip the 20,000-card and 200-activity cases")
    parser.add_argument("--typst-only", action="store_true", help="only kitgen against Typst, 200 and 2,000 cards")
    parser.add_argument("--serve-only", action="store_true", help="only the save → refreshed page rows of serve")
    args = parser.parse_args(argv)
    # as an installed package is: byte-compiled (an editable checkout may not be, and would pay for it each run)
    compileall.compile_dir(str(Path(kitgen_package.__file__).resolve().parent), quiet=1)  # as an installed package is
    kitgen = [sys.executable, "-m", "kitgen"]
    speedups: list[float] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="kitgen-bench-") as tmp:
        work = Path(tmp)
        rows = []
        if args.serve_only:
            browser_rows, notes = browser_serve_case(work, kitgen)
            print_table(serve_case(work, kitgen, args.repeat) + browser_rows, [], notes)
            return
        warm = warm_cache(work, kitgen)
        if not args.typst_only:
            rows = library_cases(work, kitgen, args.repeat, warm) + [watch_case(work, kitgen, args.repeat),
                                                                       watch_edit_case(work, kitgen, args.repeat),
                                                                       *serve_case(work, kitgen, args.repeat)] \
                + deck_cases(work, kitgen, args.repeat, args.quick, warm)
            browser_rows, notes = browser_serve_case(work, kitgen)
            rows += browser_rows
        edit_rows, edit_notes = edit_pairs(work, kitgen, args.repeat, warm)
        rows += edit_rows
        notes += edit_notes
        if typst_available():
            typst_rows, typst_notes = typst_pairs(work, kitgen, args.repeat, warm)
            rows += typst_rows
            notes += typst_notes
        else:
            notes.append("Typst rows skipped: the typst package is not installed (pip install -e '.[bench]')")
        if not args.quick and not args.typst_only:
            many, speedups = parallel_cases(work, kitgen)
            rows += many
    print_table(rows, speedups, notes)


if __name__ == "__main__":
    main()

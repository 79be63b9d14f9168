"""`kitgen serve`: the library in a real browser (headless Chromium driven by Playwright), refreshed by itself
after each save.

The server runs as a real process on a copy of the library; the test edits the YAML as an author would and
reads what the browser shows: the page's pictures (their proportions are the paper's), the downloaded PDF (its
pages are the pictures), the error with its place and source line, and the recovery after the fix.
"""
from __future__ import annotations

import io
import os
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pypdf
import pytest

from conftest import CONTENT, REPO, kitgen_env, require_tool

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
A4, LETTER = 297 / 210, 11 / 8.5
TIMEOUT_MS = 60_000


class Served:
    """`kitgen serve ID` in a process of its own; `url` is the address it printed."""

    def __init__(self, root: Path, activity: str, *extra: str):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kitgen", "serve", activity, "--content", str(root / "content"), *extra],
            cwd=root, env=kitgen_env(root, KITGEN_CACHE="off", PYTHONFAULTHANDLER="1"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.process.stdout], daemon=True).start()
        deadline = time.monotonic() + 120
        while True:
            line = self.lines.get(timeout=max(1.0, deadline - time.monotonic()))
            if line.startswith("serving "):
                self.url = line.split()[1]
                break

    def stop(self) -> str:
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:  # a hang: SIGABRT makes faulthandler print every thread's stack
            self.process.send_signal(signal.SIGABRT)
            self.process.wait(timeout=10)
            time.sleep(0.5)
            stacks = []
            while not self.lines.empty():
                stacks.append(self.lines.get())
            raise AssertionError("kitgen serve did not stop on SIGINT:\n" + "".join(stacks)) from None
        finally:
            if self.process.poll() is None:
                self.process.kill()
        rest = []
        while not self.lines.empty():
            rest.append(self.lines.get())
        return "".join(rest)


@pytest.fixture
def library(tmp_path: Path) -> Path:
    shutil.copytree(CONTENT, tmp_path / "content")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    return tmp_path


@pytest.fixture
def browser():
    chromium_path = require_tool("chromium", package="chromium")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def shown_pictures(page) -> list[dict]:
    """Every page picture the browser shows: its section's role, its address, and its pixel size once loaded."""
    return page.eval_on_selector_all(
        "section.file img",
        "imgs => imgs.map(i => ({role: i.closest('section').dataset.role, src: i.getAttribute('src'),"
        " width: i.naturalWidth, height: i.naturalHeight, complete: i.complete}))")


def wait_for_pictures(page, count: int) -> list[dict]:
    """The first `count` pictures loaded (the others load as they are scrolled to)."""
    page.wait_for_function(
        f"() => {{ const i = [...document.querySelectorAll('section.file img')].slice(0, {count});"
        f" return i.length === {count} && i.every(x => x.complete && x.naturalWidth > 0); }}", timeout=TIMEOUT_MS)
    return shown_pictures(page)


def test_serve_shows_the_kit_refreshes_after_a_save_shows_a_located_error_and_recovers(library: Path, browser):
    source = library / "content" / "growing-discard.yaml"
    original = source.read_text(encoding="utf-8")
    served = Served(library, "growing-discard")
    try:
        assert served.url.startswith("http://127.0.0.1:")
        page = browser.new_page(viewport={"width": 1280, "height": 1400})
        page.goto(served.url)
        pictures = wait_for_pictures(page, 4)
        # the print guide first, then the kit's files; one picture per page of each PDF, A4 proportions
        roles = [p["role"] for p in pictures]
        assert roles[0] == "print-guide" and roles.index("cards") > 0
        assert pictures[0]["height"] / pictures[0]["width"] == pytest.approx(A4, rel=0.01)
        links = page.eval_on_selector_all("section.file a[download]", "links => links.map(a => a.href)")
        pdf_pages = 0
        for link in links:
            with urllib.request.urlopen(link, timeout=60) as response:
                pdf_pages += len(pypdf.PdfReader(io.BytesIO(response.read())).pages)
        assert pdf_pages == len(pictures) > 10
        cards_before = [p["src"] for p in pictures if p["role"] == "cards"]

        # an edit is shown without touching the browser: the title, and the card whose caption changed
        generation = page.evaluate("document.body.dataset.generation")
        source.write_text(original.replace("title: Growing discard deck", "title: Growing discard, edited", 1)
                          .replace("count: 6", "count: 5", 1), encoding="utf-8")
        page.wait_for_function("() => document.querySelector('h1').textContent === 'Growing discard, edited'",
                               timeout=TIMEOUT_MS)
        assert page.evaluate("document.body.dataset.generation") != generation  # the page the server sent after
        after = wait_for_pictures(page, 4)
        assert [p["src"] for p in after if p["role"] == "cards"] != cards_before

        # a broken edit: the error names file:line:column and shows the line, under it the last good pages
        broken = original.replace("count: 6", "count: six", 1)
        line = broken.splitlines().index(next(l for l in broken.splitlines() if "count: six" in l)) + 1
        column = broken.splitlines()[line - 1].index("six") + 1
        source.write_text(broken, encoding="utf-8")
        page.wait_for_selector("section.error", timeout=TIMEOUT_MS)
        error = page.inner_text("section.error")
        assert f"growing-discard.yaml:{line}:{column}" in error
        assert "count: six" in page.inner_text("section.error pre.source")
        assert len(shown_pictures(page)) == len(after)

        # fixed: the error goes, the pages are the original kit's again
        source.write_text(original, encoding="utf-8")
        page.wait_for_function("() => !document.querySelector('section.error')", timeout=TIMEOUT_MS)
        assert page.inner_text("h1") == "Growing discard deck"
        assert [p["src"] for p in wait_for_pictures(page, 4) if p["role"] == "cards"][:2] == cards_before[:2]

        # the options in the page: Letter pictures have Letter's proportions
        page.select_option("select[name=paper]", "letter")
        page.wait_for_url(re.compile(r"[?&]paper=letter\b"), timeout=TIMEOUT_MS)
        letter = wait_for_pictures(page, 2)
        assert letter[0]["height"] / letter[0]["width"] == pytest.approx(LETTER, rel=0.01)
        page.close()
    finally:
        log = served.stop()
    assert "stopped serving" in log


def test_a_save_refreshes_the_open_page_in_the_browser_and_it_shows_the_new_text(library: Path, browser):
    """Each save of a new purpose: the page in the browser shows that purpose, its print guide's picture is the
    new one, loaded, and it is the same page (refreshed in place, not opened again)."""
    source = library / "content" / "growing-discard.yaml"
    original = source.read_text(encoding="utf-8")
    served = Served(library, "growing-discard")
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 1400})
        page.goto(served.url)
        wait_for_pictures(page, 4)
        page.evaluate("window.openedOnce = true")  # gone if the page were opened again
        purpose = page.inner_text("p.purpose")
        assert purpose and "Bring a pencil" not in purpose
        for turn in range(2):
            guide = [p["src"] for p in shown_pictures(page) if p["role"] == "print-guide"]
            new = f"Bring a pencil ({turn}). {purpose}"
            source.write_text(original.replace(f"purpose: {purpose}", f"purpose: {new}", 1), encoding="utf-8")
            page.wait_for_function(f"() => document.querySelector('p.purpose').textContent === {new!r}",
                                   timeout=TIMEOUT_MS)
            pictures = wait_for_pictures(page, 4)
            assert [p["src"] for p in pictures if p["role"] == "print-guide"] != guide, "the guide states the purpose"
            assert page.evaluate("window.openedOnce") is True
        page.close()
    finally:
        served.stop()


def test_serve_listens_on_the_loopback_only_and_lists_the_library(library: Path):
    served = Served(library, "growing-discard")
    try:
        port = int(served.url.split(":")[2].split("/")[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=60) as response:
            listing = response.read().decode()
        for activity in ("growing-discard", "trash", "needle-in-a-card-stack", "junkyard-robots"):
            assert f'href="/kit/{activity}"' in listing
        import socket

        outside = [a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
                   if not a[4][0].startswith("127.")]
        for address in outside:
            with pytest.raises(OSError):
                socket.create_connection((address, port), timeout=2).close()
    finally:
        served.stop()


@pytest.mark.slow  # a measurement (printed, not asserted): the unit suite's refresh test is the one above
def test_save_to_refreshed_page_in_the_browser(library: Path, browser):
    """Save → the page reloaded with its new pictures loaded, in a real browser: measured, median of 7."""
    source = library / "content" / "growing-discard.yaml"
    original = source.read_text(encoding="utf-8")
    served = Served(library, "growing-discard")
    walls = []
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 1400})
        page.goto(served.url)
        wait_for_pictures(page, 4)
        for turn in range(7):
            generation = page.evaluate("document.body.dataset.generation")
            start = time.perf_counter()
            source.write_text(original.replace("purpose: ", f"purpose: ({turn}) ", 1), encoding="utf-8")
            page.wait_for_function(f"() => document.body.dataset.generation !== '{generation}'", timeout=TIMEOUT_MS,
                                   polling=5)
            wait_for_pictures(page, 4)
            walls.append(time.perf_counter() - start)
            time.sleep(0.3)
        page.close()
    finally:
        served.stop()
    print(f"save → refreshed page in the browser: median {statistics.median(walls):.3f} s "
          f"({', '.join(f'{w:.2f}' for w in walls)})")
    assert len(walls) == 7  # every save refreshed the page (the target, 0.3 s, is python -m benchmarks.bench's)


def downloaded_pdfs(url: str) -> dict[str, pypdf.PdfReader]:
    """The kit page at `url` and every PDF it offers for download, by file name."""
    with urllib.request.urlopen(url, timeout=60) as response:
        page = response.read().decode()
    origin = url.split("/kit/")[0]
    files = {}
    for href in re.findall(r'<a href="([^"]+)" download>', page):
        with urllib.request.urlopen(origin + href.replace("&amp;", "&"), timeout=60) as response:
            files[href.split("/")[-1].split("?")[0]] = pypdf.PdfReader(io.BytesIO(response.read()))
    return files


def test_serve_shows_the_kit_with_the_library_settings_and_a_typed_option_wins(library: Path):
    """kitgen.toml says Letter and English first: serve shows the English edition of Trash on Letter paper, as
    build would write it; `--paper a4` typed on the command line wins over the file."""
    (library / "kitgen.toml").write_text('paper = "letter"\nlanguages = ["en"]\n', encoding="utf-8")
    served = Served(library, "trash")
    try:
        assert "paper=letter" in served.url
        files = downloaded_pdfs(served.url)
    finally:
        served.stop()
    assert files and all(name.startswith("trash-en-") for name in files), sorted(files)
    for name, reader in files.items():
        for page in reader.pages:
            assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == (612, 792), name
    served = Served(library, "trash", "--paper", "a4", "--lang", "ro")
    try:
        files = downloaded_pdfs(served.url)
    finally:
        served.stop()
    assert files and not any(name.startswith("trash-en-") for name in files), sorted(files)
    for name, reader in files.items():
        for page in reader.pages:
            assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == (595, 842), name

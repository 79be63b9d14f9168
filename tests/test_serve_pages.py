"""`kitgen serve`'s pages, read as a browser gets them (urllib against a server on a copy of the library): a kit
the library does not have is a 404 page that names it and links to the library; the library page shows a card
per kit with its first card page drawn small, its title and its problems (with their places) or quality notes
counted; the pictures page lists what `picture:` can name, with a search box; a kit page's pictures enlarge and
each PDF opens to print; and the terminal names the place of a kit's first problem.

Pictures are measured as pixels (their size, and the same pixels as the PDF's page drawn by PDFium), PDFs by
their pages; nothing is timed."""
from __future__ import annotations

import html
import io
import re
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pypdf
import pytest
from PIL import Image

from benchmarks.bench import ACTIVITY
from kitgen.app import serve_pages
from kitgen.app.serve import KitServer, start, stop
from kitgen.export.raster import page_image
from kitgen.load.library import Library
from kitgen.pictures.emoji import emoji_available, search_pictures

from test_serve_security import copy_library

SHORT_CARD = '      - {id: c, count: 9, name: Card, text: "Short."}'  # leaves each face's bottom empty: quality notes


class Site:
    def __init__(self, kits: KitServer, port: int, content: Path, log: list[str]):
        self.kits, self.port, self.content, self.log = kits, port, content, log

    def get(self, target: str) -> tuple[int, dict[str, str], bytes]:
        """GET `target` as a browser typing the address does: the status, the headers and the body."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{target}", timeout=120) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def page(self, target: str) -> str:
        status, _, body = self.get(target)
        assert status == 200, (target, status, body[:300])
        return body.decode()


@contextmanager
def served(tmp_path: Path) -> Iterator[Site]:
    content = copy_library(tmp_path)
    (content / "deck.yaml").write_text(ACTIVITY.format(id="deck", cards=SHORT_CARD), encoding="utf-8")
    log: list[str] = []
    kits = KitServer(Library.open(content), log=log.append)
    server, watching = start(kits, 0)
    try:
        yield Site(kits, server.server_address[1], content, log)
    finally:
        stop(server, watching)


def png(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG"), data[:20]
    return Image.open(io.BytesIO(data)).convert("RGB")


def break_growing_discard(content: Path) -> tuple[str, int, int]:
    """Save growing-discard with a count that is not a number; the file, line and column of the problem."""
    source = content / "growing-discard.yaml"
    broken = source.read_text(encoding="utf-8").replace("count: 6", "count: six", 1)
    source.write_text(broken, encoding="utf-8")
    lines = broken.splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "count: six" in text)
    return str(source), line, lines[line - 1].index("six") + 1


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with served(tmp_path_factory.mktemp("pages")) as running:
        yield running


# ---------------------------------------------------------------------------------------------- 1. unknown kit


@pytest.mark.parametrize("target", ["/kit/nope", "/kit/nope?paper=letter", "/kit/nope/nope-cards.pdf"])
def test_a_kit_the_library_does_not_have_is_a_404_page_naming_it_with_a_link_to_the_library(site: Site,
                                                                                            target: str):
    renders = len(site.log)
    status, headers, body = site.get(target)
    assert status == 404
    assert headers["Content-Type"].startswith("text/html")
    page = body.decode()
    assert "nope" in re.sub(r"<[^>]+>", "", page.split("<body", 1)[1]), "the page names the kit asked for"
    assert 'href="/"' in page
    assert "content has errors" not in page and "<img" not in page
    assert site.log[renders:] == [], "nothing was rendered, nothing logged"


def test_a_kit_the_library_has_is_answered_200(site: Site):  # the control of the test above
    status, _, body = site.get("/kit/trash")
    assert status == 200 and b"<img" in body


# ---------------------------------------------------------------------------------------------- 2. the library


def kit_cards(page: str) -> dict[str, str]:
    """The library page's card of each kit, by its id."""
    return dict(re.findall(r'<li class="kit[^"]*" data-kit="([^"]+)">(.*?)</li>(?=<li class="kit|</ul>)', page, re.S))


def library_drawn(site: Site) -> str:
    """The library page once every kit on it is drawn (it draws for a few seconds at a time, then asks again)."""
    for _ in range(50):
        page = site.page("/")
        if "not drawn yet" not in page:
            assert 'http-equiv="refresh"' not in page
            return page
        assert '<meta http-equiv="refresh" content="1">' in page
    pytest.fail("the library page never had every kit drawn")


def test_the_library_shows_a_card_per_kit_with_its_first_card_page_its_title_and_its_notes_counted(site: Site):
    page = library_drawn(site)
    cards = kit_cards(page)
    assert sorted(cards) == sorted(site.kits.library.activity_files())
    for activity_id, card in cards.items():
        shown = site.kits.kit(activity_id, {})
        assert f"<strong>{html.escape(shown.title)}</strong>" in card, activity_id
        thumb = re.search(r'<img src="([^"]+)"', card)
        assert thumb, f"{activity_id} has a picture"
        status, headers, data = site.get(thumb[1])
        assert status == 200 and headers["Content-Type"] == "image/png"
        picture = png(data)
        cards_pdf = next(f for role in ("cards", "optional-cards", "print-guide") for f in shown.files if f.role == role)
        expected = page_image(cards_pdf.data, 0, width_px=picture.width).convert("RGB")
        assert picture.size == expected.size and picture.tobytes() == expected.tobytes(), \
            f"{activity_id}: the picture is the first page of its cards PDF"
        assert 100 <= picture.width <= 600
        notes = len(shown.quality)
        assert re.search(rf'class=count data-notes="{notes}">{"no" if notes == 0 else notes} quality note', card), \
            (activity_id, card)
    assert len(site.kits.kit("deck", {}).quality) > 0, "a kit with quality notes is among them"
    assert 'href="/pictures"' in page


def test_the_library_page_draws_the_kits_a_few_at_a_time_and_asks_again_until_all_are(tmp_path: Path,
                                                                                       monkeypatch):
    monkeypatch.setattr(serve_pages, "LIBRARY_SECONDS", 0.0)  # one kit a request: the least it draws
    with served(tmp_path) as site:
        kits = len(site.kits.library.activity_files())
        for drawn in range(1, kits + 1):
            page = site.page("/")
            assert len(kit_cards(page)) == kits, "every kit has its card, drawn or not"
            assert page.count("not drawn yet") == kits - drawn
            assert ('<meta http-equiv="refresh" content="1">' in page) == (drawn < kits)
            assert all(f'href="/kit/{activity}"' in page for activity in site.kits.library.activity_files())
        assert len(site.kits.summaries) == kits


def test_a_broken_kit_on_the_library_page_counts_its_problems_with_their_places(tmp_path: Path):
    with served(tmp_path) as site:
        library_drawn(site)
        file, line, column = break_growing_discard(site.content)
        source = site.content / "growing-discard.yaml"
        source.write_text(source.read_text(encoding="utf-8").replace("count: 6", "count: seven", 1), encoding="utf-8")
        site.kits.changed([str(source)])  # what the watcher does on the save
        cards = kit_cards(library_drawn(site))
        broken = cards["growing-discard"]
        assert 'data-problems="2">2 problems' in broken, broken
        assert f"{html.escape(file)}:{line}:{column}</code>: " in broken
        assert "data-problems" not in cards["trash"], "the other kits are not touched"


# ---------------------------------------------------------------------------------------------- 3. pictures


def gallery(page: str) -> list[tuple[str, str, str]]:
    """(drawing address, emoji, name) of each picture the page lists."""
    return re.findall(r'<li><img src="([^"]+)"[^>]*><span class=emoji>([^<]*)</span><code>([^<]*)</code></li>', page)


@pytest.mark.skipif(not emoji_available(), reason="the OpenMoji picture set is not installed")
def test_the_pictures_page_lists_what_picture_can_name_with_a_search_box(site: Site):
    page = site.page("/pictures?q=bear")
    listed = gallery(page)
    assert [(html.unescape(name), html.unescape(emoji)) for _, emoji, name in listed] == search_pictures("bear")
    assert ("polar bear", "🐻\u200d❄️") in [(html.unescape(n), html.unescape(e)) for _, e, n in listed]
    form = re.search(r"<form[^>]*>.*?</form>", page, re.S)
    assert form and 'method=get' in form[0] and 'action="/pictures"' in form[0]
    assert re.search(r'<input type=search name=q value="bear"', form[0])
    assert not re.search(r'(src|href)="(https?:)?//', page), "no asset from elsewhere"
    for address, _, name in listed[:3]:
        status, headers, body = site.get(address)
        assert status == 200 and headers["Content-Type"] == "image/svg+xml", name
        assert b"<svg" in body[:400]
    everything = gallery(site.page("/pictures"))
    assert len(everything) == len(search_pictures()) > 1000
    assert gallery(site.page("/pictures?q=zzzqqq")) == []
    assert site.get("/picture/..%2F..%2Fsetup.svg")[0] == 404


# ---------------------------------------------------------------------------------------------- 4. a kit's page


def test_a_kit_pages_pictures_enlarge_and_each_pdf_opens_to_print(site: Site):
    page = site.page("/kit/growing-discard")
    sections = re.findall(r'<section class=file data-role="[^"]+">(.*?)</section>', page, re.S)
    assert len(sections) >= 3
    total = 0
    for section in sections:
        links = dict((kind, href) for href, kind in
                     re.findall(r'<a href="([^"]+\.pdf[^"]*)"[^>]* (download|target="_blank")', section))
        assert set(links) == {"download", 'target="_blank"'}, section[:300]
        assert links["download"] == links['target="_blank"']
        status, headers, body = site.get(html.unescape(links["download"]))
        name = html.unescape(links["download"]).split("/")[-1].split("?")[0]
        assert status == 200 and headers["Content-Type"] == "application/pdf" and body.startswith(b"%PDF")
        assert headers["Content-Disposition"] == f'inline; filename="{name}"'
        enlarged = re.findall(r'<a href="#([^"]+)" class=enlarge id="at-\1"><img src="(/page/[^"]+)"', section)
        assert len(enlarged) == len(pypdf.PdfReader(io.BytesIO(body)).pages), name
        for target, small in enlarged[:2]:
            big = re.search(rf'<div class=enlarged id="{re.escape(target)}"><a href="#at-{re.escape(target)}"[^>]*>'
                            rf'<img src="([^"]+)"', page)
            assert big, f"{target}: a larger picture the link shows"
            small_png, big_png = png(site.get(small)[2]), png(site.get(big[1])[2])
            assert big_png.width >= 2 * small_png.width
            assert big_png.height / big_png.width == pytest.approx(small_png.height / small_png.width, rel=0.01)
        total += len(enlarged)
    assert total == sum(f.pages for f in site.kits.kit("growing-discard", {}).files)
    assert ".enlarged:target" in page and ".enlarged{display:none}" in page


# ---------------------------------------------------------------------------------------------- 5. the terminal


def test_the_terminal_names_the_place_of_a_kits_first_problem(tmp_path: Path):
    """Every line about the problem, from the save's rebuild and from a request that renders the kit, names its
    place. (The server's own watcher hears the save too: its lines are held to the same.)"""
    with served(tmp_path) as site:
        site.page("/kit/growing-discard")
        file, line, column = break_growing_discard(site.content)
        place = f"{file}:{line}:{column}: "

        def about() -> list[str]:
            return [entry for entry in site.log if "expected a positive integer" in entry]

        with site.kits.shown_by_a_page("growing-discard", {}):  # a page shows the kit: a save renders it again
            site.kits.changed([file])
        rebuilt = [entry for entry in about() if entry.startswith("changed: growing-discard.yaml")]
        assert rebuilt, site.log
        with site.kits.lock:
            site.kits.kits.clear()  # the kit asked for again: rendered on the request
        before = len(about())
        assert "Not rebuilt" in site.page("/kit/growing-discard")
        assert len(about()) > before, site.log
        assert all(place in entry for entry in about()), about()


# ---------------------------------------------------------------------------------------------- the new addresses


def test_the_new_addresses_answer_only_the_servers_own_page(site: Site):
    """The library's pictures, the enlarged pages, the pictures page and a missing kit's page: another host gets
    421, another site 403, with nothing drawn; the server's own page gets them."""
    from test_serve_security import no_kit_bytes, request

    site.kits.summary("growing-discard")
    fingerprint = site.kits.kit("growing-discard", {}).files[0].fingerprints[0]
    targets = ["/thumb/growing-discard.png", f"/large/{fingerprint}.png", "/pictures?q=bear", "/picture/1F43B.svg",
               "/kit/nope"]
    own = f"127.0.0.1:{site.port}"
    drawn = (dict(site.kits.large), site.kits.summaries["growing-discard"].thumbnail)
    for target in targets:
        status, body = request(site.port, target, "attacker.example")
        assert status == 421 and no_kit_bytes(body) and b"<svg" not in body, target
        status, body = request(site.port, target, own, ("Sec-Fetch-Site", "cross-site"))
        assert status == 403 and no_kit_bytes(body) and b"<svg" not in body, target
    assert (dict(site.kits.large), site.kits.summaries["growing-discard"].thumbnail) == drawn, "nothing drawn"
    answers = [request(site.port, target, own, ("Sec-Fetch-Site", "same-origin"))[0] for target in targets]
    assert answers == [200, 200, 200, 200 if emoji_available() else 404, 404]

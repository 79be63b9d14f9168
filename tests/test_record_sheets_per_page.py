"""Short record sheets print several to a page, one under the other, each copy whole with its own title and
name line and a dashed cut line between two; a long sheet still has a page of its own for every player.

Read back from the sheets PDF with pdfplumber: titles, row numbers and the dashed lines drawn."""
from __future__ import annotations

from pathlib import Path

import pdfplumber

from conftest import small_activity
from kitgen.app.build import build, BuildOptions
from kitgen.load.library import Library

TITLE = "Score card"


def sheets_pdf(tmp_path: Path, rows: int, players: int = 4) -> Path:
    text = small_activity("scores", "Scores", "A tiny activity with a record sheet.") + "      - {id: a, count: 4}\n"
    text = text.replace("players: 2\n", f"players: {players}\n")
    text += ("record_sheets:\n  - id: score\n    title: " + TITLE + "\n    intro: One row per turn.\n"
             f"    columns: [Turn, Points]\n    rows: {rows}\n    total_row: true\n")
    content = tmp_path / "content"
    content.mkdir()
    (content / "scores.yaml").write_text(text, encoding="utf-8")
    result = build("scores", BuildOptions(out_dir=tmp_path / "out", paper="a4"), Library.open(content))
    (path,) = [f.path for f in result.files if f.path.name.endswith("-sheets.pdf")]
    return path


def copies(path: Path) -> tuple[int, dict[int, list[tuple[int, float, float]]], list[list[dict]]]:
    """The file's pages, each player's copy titles as (page, top, bottom of the copy: the next title or the
    page's foot), and each page's dashed lines."""
    found: dict[int, list[tuple[int, float, float]]] = {}
    dashes = []
    with pdfplumber.open(path) as pdf:
        for index, page in enumerate(pdf.pages):
            lines = page.extract_text_lines()
            titles = [(line["top"], int(line["text"].rsplit(" ", 1)[1])) for line in lines
                      if line["text"].startswith(f"{TITLE} · Player ")]
            for n, (top, player) in enumerate(titles):
                bottom = titles[n + 1][0] if n + 1 < len(titles) else page.height
                found.setdefault(player, []).append((index, top, bottom))
            dashes.append([line for line in page.lines if line.get("dash") and line["dash"][0]])
        return len(pdf.pages), found, dashes


def rows_of(path: Path, page: int, top: float, bottom: float) -> list[str]:
    """The first-column words (row numbers, Total) between `top` and `bottom` of a page."""
    with pdfplumber.open(path) as pdf:
        words = pdf.pages[page].extract_words()
    left = min(w["x0"] for w in words if w["text"] == "Turn")
    return [w["text"] for w in words if top < w["top"] < bottom and abs(w["x0"] - left) < 8
            and (w["text"].isdigit() or w["text"] == "Total")]


def test_a_short_sheet_prints_several_copies_to_a_page_each_whole(tmp_path):
    path = sheets_pdf(tmp_path, rows=3)
    pages, found, dashes = copies(path)
    assert sorted(found) == [1, 2, 3, 4]
    assert all(len(places) == 1 for places in found.values()), found  # each player's title once
    sheet_pages = {places[0][0] for places in found.values()}
    # before: the rules page and one page a player (5); now the four copies share fewer pages
    assert len(sheet_pages) < 4 and pages < 5, (pages, found)
    for player, [(page, top, bottom)] in found.items():
        assert rows_of(path, page, top, bottom) == ["1", "2", "3", "Total"], player
    for page in sheet_pages:
        on_page = sum(1 for places in found.values() if places[0][0] == page)
        # one cut line (dashed, in two halves around its label) between two copies on a page
        assert len(dashes[page]) == 2 * (on_page - 1), (page, dashes[page])
    with pdfplumber.open(path) as pdf:
        text = "\n".join(pdf.pages[page].extract_text() for page in sheet_pages)
    assert text.count("cut here") == sum(1 for places in found.values()) - len(sheet_pages)


def test_a_long_sheet_still_has_a_page_of_its_own_for_each_player(tmp_path):
    path = sheets_pdf(tmp_path, rows=30)
    _, found, dashes = copies(path)
    assert sorted(found) == [1, 2, 3, 4]
    assert all(len(places) == 1 for places in found.values()), found
    assert len({places[0][0] for places in found.values()}) == 4  # no page holds two copies
    assert not any(dashes), "no cut line where copies do not share a page"

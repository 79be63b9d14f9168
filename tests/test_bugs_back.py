"""Five one-line bugs that the suite once let through (issue 27), each pinned by a test that reads what kitgen
printed or computed: the calibration ruler's length, the print guide's cutting time, a spreadsheet's `columns:`
renames, emoji sequences matched longest first, and kitgen serve rendering again after a template is saved."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import file_of, library_kit, MM_PER_PT, plain_text
from kitgen.load import load_activity
from test_printing import page_art
from test_spreadsheets import csv_text, HEAD, ROWS


@pytest.fixture(scope="module")
def built():
    return library_kit("growing-discard")


def test_the_calibration_ruler_on_a4_is_100_mm_long(built) -> None:
    for art in page_art(file_of(built, "cards")):
        ruler = [p for p in art.paths if p.is_segment and abs(p.linewidth - 0.5) < 0.01]
        assert ruler, "each page prints the ruler"
        longest = max(p.bounds.x1 - p.bounds.x0 for p in ruler)
        assert longest * MM_PER_PT == pytest.approx(100, abs=0.05)


def test_the_print_guide_gives_ten_seconds_a_straight_cut(built) -> None:
    """Each card sheet is cut along every line of the grid (a sheet's last row, half filled, is cut as the rest),
    plus its two edges: ten seconds a cut."""
    arts = page_art(file_of(built, "cards"))
    faces = arts[::2]  # face, back, face, back ...
    assert all(art.forms for art in arts) and len(arts) == 2 * len(faces)
    columns = max(len({round(f.box.x0, 1) for f in art.forms}) for art in faces)
    rows = max(len({round(f.box.y0, 1) for f in art.forms}) for art in faces)
    cuts = len(faces) * (columns + rows + 2)
    text = " ".join(plain_text(file_of(built, "print-guide")).split())
    found = re.search(r"about (\d+) min of cutting", text)
    assert found, text[:2000]
    assert int(found[1]) == max(1, round(cuts * 10 / 60)), (cuts, found[0])


def test_a_columns_rename_gives_the_card_field_its_spreadsheet_column(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    renamed = [["id", "Animal", "count", "caption", "habitat", "legs"]] + ROWS[1:]
    (content / "animals.csv").write_text(csv_text(renamed), encoding="utf-8")
    (content / "animals.yaml").write_text(
        HEAD + "    cards: {file: animals.csv, columns: {Animal: name}, data: [habitat, legs]}\n", encoding="utf-8")
    cards = load_activity(content / "animals.yaml").activity.decks[0].cards
    assert [card.name for card in cards] == ["Cat", "Fish", "Owl"]


@pytest.mark.parametrize("sequence", ["\U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466",  # a family
                                      "\U0001F1EC\U0001F1E7",  # a flag (two regional letters)
                                      "\U0001F44D\U0001F3FD"],  # a thumb with a skin tone
                         ids=["zwj-family", "flag", "skin-tone"])
def test_an_emoji_sequence_is_matched_whole(sequence: str) -> None:
    from kitgen.pictures.emoji import emoji_available, emoji_runs

    if not emoji_available():
        pytest.skip("no emoji pictures installed")
    text = f"a{sequence}b"
    assert emoji_runs(text, set(sequence)) == [(1, 1 + len(sequence), emoji_runs(sequence, set(sequence))[0][2])]
    assert emoji_runs(sequence, set(sequence))[0][:2] == (0, len(sequence))


def test_serve_renders_the_open_kit_again_after_a_template_is_saved(tmp_path: Path) -> None:
    from test_serve_renders import open_page, save_renders, served
    from test_serve_security import KIT

    with served(tmp_path) as (kits, server, renders, source):
        with open_page(server.server_address[1], KIT):
            template = next((tmp_path / "templates").rglob("*.j2"))
            assert save_renders(kits, renders, str(template)) == [{}], "the open page's kit, rendered again"

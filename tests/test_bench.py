"""The benchmark's inputs and its table: what `python -m kitgen.bench` measures must be what it says.

No time is asserted here (speed targets live in the benchmark, not in tests); these tests check that the
synthetic decks hold the cards the table's rows count, that the plain-canvas reference draws the same
sheets, and that the derived figures are computed from the rows.
"""
from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pdfplumber
import pytest

from conftest import form_placements, pdf_reader, pt_to_mm
from kitgen.bench import PLAIN_CANVAS, print_table, synthetic_activity
from kitgen.build import BuildOptions, build
from kitgen.library import Library
from kitgen.render.fonts import FONT_DIR


@pytest.mark.parametrize("cards, copies", [(40, 1), (20, 3)])
def test_a_synthetic_deck_holds_the_distinct_cards_and_copies_it_counts(tmp_path: Path, cards: int, copies: int):
    content = tmp_path / "content"
    content.mkdir()
    synthetic_activity(content, "deck", cards, copies)
    result = build("deck", BuildOptions(out_dir=tmp_path / "out"), Library.open(content))
    path = next(f.path for f in result.files if f.role == "cards")
    reader = pdf_reader(path)
    placed = Counter(p.name for page in reader.pages for p in form_placements(reader, page) if "face" in p.name)
    assert len(placed) == cards, "each distinct card is one form"
    assert set(placed.values()) == {copies}, "and is placed once per copy"
    text = " ".join(page.extract_text() for page in reader.pages)
    last_row, last_column = cards // 20 - 1, 19
    assert f"Card {last_row}-{last_column}" in text
    assert f"Row {last_row} and column {last_column}:" in " ".join(text.split())


def test_the_plain_canvas_reference_draws_the_same_sheets(tmp_path: Path):
    pdf = tmp_path / "plain.pdf"
    subprocess.run([sys.executable, "-c", PLAIN_CANVAS, "20", str(FONT_DIR / "DejaVuSans.ttf"), str(pdf)], check=True)
    with pdfplumber.open(pdf) as document:
        assert len(document.pages) == 6, "20 cards: three sheets of 3 × 3, each a face page and a back page"
        face, back = document.pages[0], document.pages[1]
        assert (round(pt_to_mm(face.width), 1), round(pt_to_mm(face.height), 1)) == (210.0, 297.0)
        assert face.extract_text().count("Card 0-") == 9
        assert back.extract_text().count("Synthetic") == 9
        marks = sorted({round(pt_to_mm(line["x0"]), 2) for line in face.lines if line["x0"] == line["x1"]})
        assert [round(b - a, 2) for a, b in zip(marks, marks[1:])] == [63.5, 63.5, 63.5]
        assert "DejaVuSans" in {char["fontname"].split("+")[-1] for char in face.chars}


def test_the_table_derives_bytes_per_copy_and_the_speed_up_from_its_rows(capsys: pytest.CaptureFixture[str]):
    def row(case: str, wall: float, size: int = 0) -> dict:
        return {"case": case, "wall": wall, "peak": 50, "pages": 10, "bytes": size, "ms_per_card": None}

    rows = [row("40 cards (40 kinds × 1)", 0.5, 200_000), row("1,200 cards (40 kinds × 30)", 0.6, 200_000 + 300 * 40 * 29)]
    print_table(rows, [2.0, 1.5, 1.8])
    printed = capsys.readouterr().out
    assert "bytes per additional copy of a card kind: 300\n" in printed
    assert "speed-up" in printed and "1.80× (pairs: 2.00, 1.50, 1.80)" in printed
    assert printed.splitlines()[1].split()[-5:] == ["0.50s", "50", "10", "200,000", "-"]

"""The benchmark's inputs and its table: what `python -m benchmarks.bench` measures must be what it says.

No time is asserted here (speed targets live in the benchmark, not in tests); these tests check that the
synthetic decks hold the cards the table's rows count, that the plain-canvas reference and the Typst document
draw the same sheets (measured in the PDFs they make), and that the derived figures are computed from the rows.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pdfplumber
import pytest

from conftest import form_placements, pdf_reader, pt_to_mm
from benchmarks.bench import (card_texts, PLAIN_CANVAS, print_table, ratio_text, synthetic_activity, TYPST_COMPILE,
                          typst_document)
from kitgen.app.build import build, BuildOptions
from kitgen.load.library import Library
from kitgen.fonts.registry import FONT_DIR


def test_the_synthetic_cards_have_a_title_a_type_line_a_body_of_22_to_36_words_and_a_footer():
    texts = card_texts(200)
    assert len(set(texts)) == 200 and texts == card_texts(200), "distinct, and the same on every run"
    assert all(title and kind for title, kind, _, _ in texts)
    assert {len(body.split()) for _, _, body, _ in texts} <= set(range(22, 37))
    assert {len(body.split()) for _, _, body, _ in texts} >= {22, 36}, "the whole range is used"
    assert [footer for *_, footer in texts] == [f"card {i}/200" for i in range(1, 201)]


@pytest.mark.parametrize("cards, copies", [(20, 1), (10, 3)])
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
    text = " ".join(" ".join(page.extract_text() for page in reader.pages).split())
    title, kind, body, footer = card_texts(cards)[-1]
    assert title in text and kind in text and footer == f"card {cards}/{cards}" and footer in text
    assert " ".join(body.split()[:3]) in text


def _plain_canvas(tmp_path: Path, cards: int) -> Path:
    texts, pdf = tmp_path / "texts.json", tmp_path / "plain.pdf"
    texts.write_text(json.dumps(card_texts(cards)), encoding="utf-8")
    subprocess.run([sys.executable, "-c", PLAIN_CANVAS, str(texts), str(FONT_DIR), str(pdf)], check=True)
    return pdf


def _typst(tmp_path: Path, cards: int) -> Path:
    pytest.importorskip("typst", reason="the typst package (pip install -e '.[bench]')")
    document, pdf = tmp_path / "deck.typ", tmp_path / "deck.pdf"
    typst_document(document, cards)
    subprocess.run([sys.executable, "-c", TYPST_COMPILE, str(document), str(pdf), str(FONT_DIR)], check=True)
    return pdf


def _marks(page, vertical: bool) -> list[float]:
    """Positions (mm) of the crop marks: the 7 mm lines outside the grid of cards."""
    lines = [line for line in page.lines if (line["x0"] == line["x1"]) == vertical
             and round(pt_to_mm(max(line["x1"] - line["x0"], line["bottom"] - line["top"]))) == 7]
    return sorted({round(pt_to_mm(line["x0"] if vertical else line["top"]), 2) for line in lines})


def _centres(page, text: str) -> list[float]:
    """Horizontal centres (mm) of each word `text` on the page, left to right."""
    return sorted(round(pt_to_mm((word["x0"] + word["x1"]) / 2), 1) for word in page.extract_words()
                  if word["text"] == text)


@pytest.mark.parametrize("make", [_plain_canvas, _typst], ids=["plain canvas", "typst"])
def test_the_references_draw_the_same_sheets(tmp_path: Path, make):
    """20 cards: three sheets of 3 × 3 poker cards on A4, each a face page and a back page with the backs
    mirrored (flip on the long edge), the same texts, DejaVu Sans embedded."""
    pdf = make(tmp_path, 20)
    texts = card_texts(20)
    with pdfplumber.open(pdf) as document:
        assert len(document.pages) == 6
        face, back, last_face, last_back = document.pages[0], document.pages[1], document.pages[4], document.pages[5]
        assert (round(pt_to_mm(face.width), 1), round(pt_to_mm(face.height), 1)) == (210.0, 297.0)
        for page in (face, back):
            columns, rows = _marks(page, vertical=True), _marks(page, vertical=False)
            assert [round(b - a, 2) for a, b in zip(columns, columns[1:])] == [63.5] * 3, "card width 63.5 mm"
            assert [round(b - a, 2) for a, b in zip(rows, rows[1:])] == [88.9] * 3, "card height 88.9 mm"
            assert round(columns[0] + columns[-1], 1) == 210.0 and round(rows[0] + rows[-1], 1) == 297.0, \
                "the grid is centred on the page"
        words = " ".join(face.extract_text().split())
        for title, kind, body, footer in texts[:9]:
            assert title in words and kind in words and footer in words
        assert " ".join(texts[0][2].split()[:4]) in words
        assert back.extract_text().count("Synthetic") == 9
        assert "card 20/20" in last_face.extract_text()
        # the last sheet holds cards 19 and 20 in the first two columns; their backs are in the last two
        left = _marks(last_face, vertical=True)[0]
        faces = [int((x - left) // 63.5) for x in _centres(last_face, "19/20") + _centres(last_face, "20/20")]
        backs = [int((x - left) // 63.5) for x in _centres(last_back, "Synthetic")]
        assert faces == [0, 1] and backs == [1, 2], "columns of the faces, and of their backs, mirrored"
        assert {char["fontname"].split("+")[-1] for char in face.chars} >= {"DejaVuSans"}


def test_the_table_derives_bytes_per_copy_and_the_speed_up_from_its_rows(capsys: pytest.CaptureFixture[str]):
    def row(case: str, wall: float, size: int = 0) -> dict:
        return {"case": case, "wall": wall, "peak": 50, "pages": 10, "bytes": size, "ms_per_card": None}

    rows = [row("40 cards (40 kinds × 1)", 0.5, 200_000), row("1,200 cards (40 kinds × 30)", 0.6, 200_000 + 300 * 40 * 29)]
    print_table(rows, [2.0, 1.5, 1.8])
    printed = capsys.readouterr().out
    assert "bytes per additional copy of a card kind: 300\n" in printed
    assert "speed-up" in printed and "1.80× (pairs: 2.00, 1.50, 1.80)" in printed
    assert printed.splitlines()[1].split()[-5:] == ["0.50s", "50", "10", "200,000", "-"]


def test_the_table_prints_the_paired_ratios_against_typst(capsys: pytest.CaptureFixture[str]):
    print_table([], [], [f"kitgen ÷ Typst, 200 cards: wall {ratio_text([4.0, 2.0, 3.0])}"])
    assert capsys.readouterr().out.splitlines()[-1] == \
        "kitgen ÷ Typst, 200 cards: wall 3.00× (2.00–4.00; pairs: 4.00, 2.00, 3.00)"


@pytest.mark.slow  # a smoke run of the paired rows: the ratios are printed, never asserted
def test_the_paired_typst_rows_run_and_print_their_ratios(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """One pair (kitgen, then Typst) of each deck, as `python -m benchmarks.bench --typst-only` runs five: both
    compile, Typst's PDF has every sheet, and a ratio line is printed for each deck. Under CI=true a missing
    typst package (the `bench` extra, which .ci/run installs) is a failure, elsewhere a skip."""
    from benchmarks.bench import typst_available, typst_pairs, warm_cache

    if not typst_available():
        message = "the typst package is not installed (pip install -e '.[bench]')"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    kitgen = [sys.executable, "-m", "kitgen"]
    rows, lines = typst_pairs(tmp_path, kitgen, 1, warm_cache(tmp_path, kitgen))
    assert [(row["case"], row["pages"]) for row in rows] == [("200 cards, Typst", 46), ("2,000 cards, Typst", 446)]
    assert [line.split(":")[0] for line in lines] == ["kitgen ÷ Typst, 200 cards", "kitgen ÷ Typst, 2,000 cards"]
    with capsys.disabled():
        print_table(rows, [], lines)


def test_a_cold_build_starts_from_compiled_templates_and_font_metrics_alone(tmp_path: Path):
    """The benchmark's cold rows keep what any earlier run of kitgen leaves (templates, fonts, the seal) and
    nothing drawn, rendered or written for a kit."""
    from benchmarks.bench import only_warm

    for shelf in ("templates-0.1.0", "fonts-0.1.0", "seal-0.1.0", "designs-0.1.0", "streams-0.1.0", "files-0.1.0",
                  "texts-0.1.0", "documents-0.1.0"):
        (tmp_path / shelf).mkdir()
        (tmp_path / shelf / "entry").write_bytes(b"kept")
    only_warm(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fonts-0.1.0", "seal-0.1.0", "templates-0.1.0"]

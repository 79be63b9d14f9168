"""Quality notes a teacher needs, measured on what is drawn: body text of a player sheet below 10 pt, a card
sheet or mat part under a quarter used, a player page more than two-thirds empty, a card face whose bottom third
is empty. Each note names its file and page (and the card it is about), and carries the figures it measured."""
from __future__ import annotations

import shutil
from pathlib import Path

import pypdf
import pytest

from benchmarks.bench import ACTIVITY
from kitgen.app.build import build, BuildOptions
from kitgen.core.files import BuildResult
from kitgen.core.notes import Note, NoteKind
from kitgen.load.library import Library

REPO = Path(__file__).resolve().parent.parent
FILL = " ".join(["Take turns clockwise and play one card from your hand each turn."] * 40)  # about half a page


def activity(tmp_path: Path, cards: str, *, prepare: str = FILL, count: int = 9, extra: str = "") -> BuildResult:
    """Build a one-deck activity of `count` copies of a card with text `cards` (a sheet's worth by default)."""
    content = tmp_path / "content"
    content.mkdir(exist_ok=True)
    line = f'      - {{id: c, count: {count}, name: Card, text: "{cards}"}}'
    text = ACTIVITY.format(id="deck", cards=line).replace("prepare: Shuffle the deck.", f"prepare: {prepare}")
    (content / "deck.yaml").write_text(text + extra, encoding="utf-8")
    return build("deck", BuildOptions(out_dir=tmp_path / "out", incremental=False), Library(content))


def notes(result: BuildResult, kind: NoteKind) -> list[Note]:
    return [note for note in result.quality if note.kind is kind]


def page_text(result: BuildResult, note: Note) -> str:
    return pypdf.PdfReader(result.folder / note.file).pages[note.page - 1].extract_text()


CARD_TEXT = " ".join(["A sentence that fills the card face down to its bottom edge."] * 3)


def test_a_well_filled_kit_has_none_of_these_notes(tmp_path: Path):
    result = activity(tmp_path, CARD_TEXT)
    assert not [n for n in result.quality if n.kind is not NoteKind.SHRUNK], result.quality


SMALL_TEMPLATE = """<doc><h1>{{ activity.title }}</h1>
{% for paragraph in activity.rules.prepare %}<small>{{ paragraph }}</small>{% endfor %}</doc>"""


def test_player_sheets_whose_body_text_is_small_are_noted_with_the_size_they_print_at(tmp_path: Path):
    (tmp_path / "templates").mkdir()  # the library's own player sheets set every paragraph small
    (tmp_path / "templates" / "player-sheets.xml.j2").write_text(SMALL_TEMPLATE, encoding="utf-8")
    result = activity(tmp_path, CARD_TEXT)
    found = notes(result, NoteKind.SMALL_BODY)
    assert len(found) == 1, result.quality
    note = found[0]
    assert (note.file, note.page) == ("deck-sheets.pdf", 1)
    assert note.figure("size") == 8.5 and note.figure("minimum") == 10
    assert str(note) == "deck-sheets.pdf, page 1: body text prints at 8.5 pt (at least 10 pt for players)"
    assert "Take turns clockwise" in page_text(result, note)


def body_sizes(path: Path) -> list[float]:
    """The size most characters of each page print at, read from the PDF."""
    import collections

    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return [collections.Counter(round(c["size"], 1) for c in page.chars if c["text"].strip()).most_common(1)[0][0]
                for page in pdf.pages]


def test_junkyard_robots_rules_print_at_10_pt_or_more(tmp_path: Path):
    """Its rules, with both worked examples' computed hands, take two pages at body size (not one page shrunk)."""
    content = tmp_path / "content"
    content.mkdir()
    shutil.copy(REPO / "content" / "junkyard-robots.yaml", content)
    result = build("junkyard-robots", BuildOptions(out_dir=tmp_path / "out"), Library(content))
    sheets = result.folder / "junkyard-robots-sheets.pdf"
    assert min(body_sizes(sheets)[:2]) >= 10  # 9.8 pt when the page shrank as far as it had to
    assert "End of the game" in pypdf.PdfReader(sheets).pages[1].extract_text()  # run over, whole
    assert not notes(result, NoteKind.SMALL_BODY)


def test_rules_too_long_for_one_page_at_10_pt_run_over_instead_of_shrinking(tmp_path: Path):
    result = activity(tmp_path, CARD_TEXT, prepare="[" + ", ".join([f'"{FILL}"'] * 4) + "]")
    sheets = result.folder / "deck-sheets.pdf"
    assert body_sizes(sheets)[:2] == [10.5, 10.5]
    assert "Take turns clockwise" in pypdf.PdfReader(sheets).pages[1].extract_text()
    assert not notes(result, NoteKind.SMALL_BODY)


def test_a_last_card_sheet_holding_one_card_is_noted(tmp_path: Path):
    result = activity(tmp_path, CARD_TEXT, count=10)  # nine on the first sheet, one on the second
    found = notes(result, NoteKind.SHEET_UNUSED)
    assert [(n.file, n.page) for n in found] == [("deck-cards.pdf", 3)]  # its face page (the backs are not repeated)
    assert 0.05 < found[0].figure("used") < 0.25
    assert "the cards on this sheet cover 10% of it (under a quarter)" in str(found[0])


MAT = """
boards:
  - id: wide
    title: A mat too wide for one sheet
    per_player: false
    positions: {columns: 3, rows: 2, width: 70mm, height: 96mm, gap: 5mm, labels: [One, Two, Three]}
"""


def test_a_mat_part_that_is_a_thin_strip_is_noted(tmp_path: Path):
    result = activity(tmp_path, CARD_TEXT, extra=MAT)
    found = notes(result, NoteKind.SHEET_UNUSED)
    assert [(n.file, n.page) for n in found] == [("deck-mat.pdf", 2)], result.quality
    assert found[0].figure("used") < 0.25 and "this part of the mat uses" in found[0].what


def test_a_player_page_two_thirds_empty_is_noted(tmp_path: Path):
    result = activity(tmp_path, CARD_TEXT, prepare="Shuffle the deck.")
    found = notes(result, NoteKind.PAGE_EMPTY)
    assert [(n.file, n.page) for n in found] == [("deck-sheets.pdf", 1)], result.quality
    assert found[0].figure("empty") > 2 / 3
    assert "Shuffle the deck." in page_text(result, found[0])


def test_a_card_face_whose_bottom_third_is_empty_is_noted_with_its_card(tmp_path: Path):
    result = activity(tmp_path, "Short.")
    found = notes(result, NoteKind.FACE_BOTTOM_EMPTY)
    assert len(found) == 1, result.quality
    note = found[0]
    assert note.where.endswith("decks[0].cards[0] (card 'c')") and (note.file, note.page) == ("deck-cards.pdf", 1)
    assert note.figure("empty") > 1 / 3
    assert str(note) == f"{note.where}: the bottom {note.figure('empty'):.0%} of the card face is empty"


def test_notes_survive_the_manifest_as_typed_values(tmp_path: Path):
    first = activity(tmp_path, "Short.")
    again = build("deck", BuildOptions(out_dir=tmp_path / "out", incremental=True), Library(tmp_path / "content"))
    assert again.skipped and again.quality == first.quality
    assert {n.kind for n in again.quality} >= {NoteKind.FACE_BOTTOM_EMPTY}


@pytest.mark.parametrize("data", ["an old kitgen's line", {"kind": "unknown-kind", "what": "x"}])
def test_a_note_kept_by_an_older_kitgen_is_read_as_other(data: object):
    assert Note.from_json(data).kind is NoteKind.OTHER


def test_the_summary_counts_notes_by_their_kind_not_by_their_words(tmp_path: Path):
    from types import SimpleNamespace

    from kitgen.app.report import QualityReport

    kit = SimpleNamespace(folder=tmp_path, quality=[
        Note(NoteKind.OTHER, "a caption shrunk to 7 pt, hard to read in grayscale", "card 1"),
        Note(NoteKind.SHEET_UNUSED, "the cards on this sheet cover 10% of it (under a quarter)", file="x.pdf", page=3)])
    made = QualityReport.of([kit])
    assert made.count(NoteKind.SHRUNK) == 0 and made.count(NoteKind.SHEET_UNUSED) == 1
    assert made.lines(0) == [f"quality report: 2 notes (1 sheet under a quarter used, 1 other), full list in "
                             f"{tmp_path / 'quality.txt'}"]
    assert (tmp_path / "quality.txt").read_text().splitlines() == [
        "card 1: a caption shrunk to 7 pt, hard to read in grayscale",
        "x.pdf, page 3: the cards on this sheet cover 10% of it (under a quarter)"]


def test_serve_lists_the_kits_quality_notes_on_its_page(tmp_path: Path):
    import html

    from kitgen.app.serve import KitServer

    built = activity(tmp_path, "Short.")  # the same notes as a build
    page = KitServer(Library(tmp_path / "content"), log=lambda line: None).kit_page("deck", {})
    assert "<h2>Quality notes" in page
    assert all(html.escape(str(note)) in page for note in built.quality), built.quality
    assert 'data-kind="face-bottom-empty"' in page

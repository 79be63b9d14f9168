"""Answers from data: host-key card tables whose cells are computed from the cards (a value such as
`{{ a * b }}`, a table grouped by a card-data field), checked against the mats and the paired deck, and a
field no card has refused with its place and a "did you mean". The PDFs are opened and read."""
from __future__ import annotations

import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import pdfplumber
import pypdf
import pytest
from click.testing import CliRunner

from kitgen.app.build import build, BuildOptions, BuildResult
from kitgen.cli import main
from kitgen.load.library import Library

from conftest import library_kit, plain_text
from sheetfiles import write_xlsx

REPO = Path(__file__).resolve().parents[1]
TIMES = REPO / "content" / "times-table-pairs"
HABITATS = REPO / "content" / "animal-habitats.yaml"


class _Kit(Mapping[str, str]):
    """A built kit: its folder, and each written PDF's text by the end of its name (host-key, print-guide,
    cards), read when first asked for."""

    def __init__(self, result: BuildResult) -> None:
        self.folder = result.folder
        self._pdfs = {file.path.stem.removeprefix(result.activity_id + "-"): file.path
                      for file in result.files if file.path.suffix == ".pdf"}

    def __getitem__(self, role: str) -> str:
        return plain_text(self._pdfs[role])

    def __iter__(self) -> Iterator[str]:
        return iter(self._pdfs)

    def __len__(self) -> int:
        return len(self._pdfs)


def _built(library: Path, activity: str, out: Path) -> _Kit:
    """The kit built from `library` into `out`; the library's own kits are built once per run and shared."""
    if library == REPO / "content":
        return _Kit(library_kit(activity))
    return _Kit(build(activity, BuildOptions(out_dir=out), Library(library)))


def _table(pdf: Path, *headings: str) -> list[list[str]]:
    """The rows of the table whose header row reads these headings, cell by cell: each word goes to the column
    whose heading starts left of it (pdfplumber's word positions); the table ends at a line left of it."""
    with pdfplumber.open(pdf) as document:
        words = [word for page in document.pages for word in page.extract_words()]
    lines: list[list[dict]] = []
    for word in words:
        if not lines or abs(word["top"] - lines[-1][-1]["top"]) > 2:
            lines.append([])
        lines[-1].append(word)
    rows: list[list[str]] = []
    starts: list[float] = []
    body = 0.0
    last_top = 0.0
    for line in lines:
        if not starts:
            if " ".join(word["text"] for word in line) == " ".join(headings):
                at, body = 0, line[0]["bottom"] - line[0]["top"]
                for heading in headings:
                    starts.append(line[at]["x0"])
                    at += len(heading.split())
            continue
        size = line[0]["bottom"] - line[0]["top"]
        if line[0]["x0"] < starts[0] - 2 or abs(size - body) > 0.5 or "page" in [word["text"] for word in line]:
            break  # the heading after the table, or the page's footer
        if not rows or line[0]["top"] - last_top > 1.4 * body:  # a new row; closer lines are a cell wrapping
            rows.append([""] * len(starts))
        last_top = line[0]["top"]
        cells = rows[-1]
        for word in line:
            column = max(i for i, start in enumerate(starts) if start <= word["x0"] + 2)
            cells[column] = (cells[column] + " " + word["text"]).strip()
    return rows


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes else "")


def _times_copy(tmp_path: Path) -> Path:
    library = tmp_path / "content"
    shutil.copytree(TIMES, library / "times-table-pairs")
    return library


def _answer_rows(kit: Path) -> dict[int, list[str]]:
    """The host key's table in the kit folder: answer card → the questions printed beside it (`3 × 4`)."""
    key = kit / "times-table-pairs-host-key.pdf"
    return {int(answer): [re.sub(r"\s*×\s*", " × ", q.strip()) for q in questions.split(",")]
            for answer, questions in _table(key, "Answer card", "Question cards")}


def test_times_table_answers_are_computed_from_the_questions(tmp_path: Path):
    facts = (TIMES / "facts.csv").read_text(encoding="utf-8").splitlines()
    assert facts[0].split(",") == ["a", "b"]  # no typed product (nor name) to contradict a × b
    rows = _answer_rows(_built(REPO / "content", "times-table-pairs", tmp_path / "out").folder)
    expected: dict[int, list[str]] = {}
    for line in facts[1:]:
        a, b = line.split(",")
        expected.setdefault(int(a) * int(b), []).append(f"{a} × {b}")
    assert list(rows.items()) == sorted(expected.items())  # in the order of the answers
    assert rows[12] == ["3 × 4", "4 × 3"] and rows[21] == ["3 × 7"]


def test_a_question_changed_in_its_spreadsheet_changes_the_printed_answer(tmp_path: Path):
    library = _times_copy(tmp_path)
    facts = library / "times-table-pairs" / "facts.csv"
    # 4 × 10 becomes 2 × 10, and its answer card 40 a second 20
    changed = re.sub(r"(?m)^4,10$", "2,10", facts.read_text(encoding="utf-8"))
    assert changed != facts.read_text(encoding="utf-8")
    facts.write_text(changed, encoding="utf-8")
    sheet = library / "times-table-pairs" / "answers.xlsx"
    rows = [["id", "name", "value", "count"]] + [
        [f"answer-{n}", str(n), str(n), 2 if n in (12, 20, 24) else 1]
        for n in (3, 4, 6, 8, 9, 12, 15, 16, 18, 20, 21, 24, 27, 28, 30, 32, 36)]
    write_xlsx(sheet, {"Answers": rows})
    rows_printed = _answer_rows(_built(library, "times-table-pairs", tmp_path / "out").folder)
    assert rows_printed[20] == ["4 × 5", "2 × 10"] and 40 not in rows_printed


def test_an_answer_card_that_no_question_makes_is_refused(tmp_path: Path):
    """3 × 7 = 22 cannot be printed: the answer card 22 pairs with no question, and 21 has no card."""
    library = _times_copy(tmp_path)
    sheet = library / "times-table-pairs" / "answers.xlsx"
    answers = [(n, 2 if n in (12, 24) else 1) for n in (3, 4, 6, 8, 9, 12, 15, 16, 18, 20, 22, 24, 27, 28, 30,
                                                        32, 36, 40)]
    write_xlsx(sheet, {"Answers": [["id", "name", "value", "count"]] + [
        [f"answer-{n}", str(n), str(n), count] for n, count in answers]})
    for command in ("check", "build"):
        code, output = _run(command, "--content", str(library), "times-table-pairs", "--out", str(tmp_path / "o")) \
            if command == "build" else _run(command, "--content", str(library), "times-table-pairs")
        assert code == 2, output
        assert re.search(r"answers\.xlsx, sheet Answers, row 12: card 'answer-22' shows 22 but no card of 'questions' makes 22",
                         output), output
        assert re.search(r"facts\.csv:8:\d+ .*: 3 × 7 make 21: deck 'answers' needs 1 card\(s\) showing 21, it has 0",
                         output.replace("\u00a0", " ")), output
    assert not (tmp_path / "o" / "times-table-pairs").exists()


def test_a_computed_column_prints_its_value_and_adds_to_the_total(tmp_path: Path):
    library = _times_copy(tmp_path)
    activity = library / "times-table-pairs" / "activity.yaml"
    text = activity.read_text(encoding="utf-8")
    start = text.index("  card_tables:\n")
    activity.write_text(text[:start] + """  card_tables:
    - title: Questions and their answers
      deck: questions
      fields:
        - {field: a, heading: Times}
        - {field: b, heading: By}
        - {value: "{{ a * b }}", heading: Answer}
      total: Sum
""", encoding="utf-8")
    host_key = _built(library, "times-table-pairs", tmp_path / "out")["host-key"].replace("\u00a0", " ")
    lines = [re.sub(r"\s+", " ", line).strip() for line in host_key.splitlines()]
    assert "Card Times By Answer Sum" in lines
    assert re.sub(r"\s*×\s*", "×", "3 × 7 3 7 21 31") in [re.sub(r"\s*×\s*", "×", line) for line in lines]
    # a value that cannot be computed is said at the column, with the card
    activity.write_text(activity.read_text(encoding="utf-8").replace("{{ a * b }}", "{{ a * c }}"), encoding="utf-8")
    code, output = _run("check", "--content", str(library), "times-table-pairs")
    assert code == 2
    assert re.search(r"activity\.yaml:\d+:\d+: host_key\.card_tables\[0\]\.fields\[2\]\.value: cannot compute "
                     r"'\{\{ a \* c \}\}' for card '3-x-1'", output), output


def _habitats_copy(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    library = tmp_path / "content"
    library.mkdir()
    text = HABITATS.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    (library / "animal-habitats.yaml").write_text(text, encoding="utf-8")
    return library


def test_a_card_table_field_no_card_has_is_located_with_did_you_mean(tmp_path: Path):
    library = _habitats_copy(tmp_path, ("{field: also, heading:", "{field: Habitta, heading:"))
    lines = HABITATS.read_text(encoding="utf-8").splitlines()
    row = next(n for n, line in enumerate(lines, 1) if "{field: also, heading:" in line)
    column = lines[row - 1].index("also") + 1
    for args in (("check",), ("build", "--out", str(tmp_path / "o"))):
        code, output = _run(*args, "--content", str(library), "animal-habitats")
        assert code == 2, output
        assert (f"animal-habitats.yaml:{row}:{column}: host_key.card_tables[0].fields[0].field: no card of deck "
                f"'animals' has 'Habitta' in its data; did you mean 'habitat'?") in output, output
        assert "Traceback" not in output


def test_habitat_answers_are_grouped_from_the_cards(tmp_path: Path):
    key = _built(REPO / "content", "animal-habitats", tmp_path / "out").folder / "animal-habitats-host-key.pdf"
    rows = {row[0]: row[1:] for row in _table(key, "Habitat", "Animals", "Some also live in")}
    assert rows == {
        "Forest": ["Fox, Owl, Hedgehog, Squirrel, Badger", "Fields and towns (Fox, Owl, Badger)"],
        "Desert": ["Camel, Scorpion, Lizard, Snake, Desert tortoise", "Many habitats (Lizard, Snake)"],
        "Savanna": ["Lion, Elephant, Giraffe, Zebra, Rhino", "Rainforest (Elephant)"],
        "Rainforest": ["Monkey, Parrot, Sloth, Gorilla, Orangutan", ""],
        "Ocean": ["Shark, Octopus, Dolphin, Whale, Jellyfish", "Ice and snow (Whale)"],
        "River and lake": ["Frog, Duck, Beaver, Flamingo, Crocodile", ""],
        "Ice and snow": ["Polar bear, Penguin, Seal, Reindeer, Arctic hare", "Ocean (Penguin, Seal)"]}
    # a walrus whose card says Desert is listed under Desert: the answers are the cards' own data, nothing typed
    library = _habitats_copy(tmp_path, (
        '      # Ice and snow\n',
        '      # Ice and snow\n      - {id: walrus, count: 1, name: Walrus, picture: seal, data: {habitat: Desert},\n'
        '         text: "Lies on the ice and uses its tusks to pull itself out of the water."}\n'),
        ("cards: 35\n  decks: {animals: 35}", "cards: 36\n  decks: {animals: 36}"))
    key = _built(library, "animal-habitats", tmp_path / "walrus").folder / "animal-habitats-host-key.pdf"
    rows = {row[0]: row[1:] for row in _table(key, "Habitat", "Animals", "Some also live in")}
    assert rows["Desert"][0] == "Camel, Scorpion, Lizard, Snake, Desert tortoise, Walrus"
    assert rows["Ice and snow"][0] == "Polar bear, Penguin, Seal, Reindeer, Arctic hare"


def test_a_habitat_that_is_no_place_on_the_mats_is_located(tmp_path: Path):
    library = _habitats_copy(tmp_path, ("name: Camel, picture: dromedary camel, data: {habitat: Desert}",
                                        "name: Camel, picture: dromedary camel, data: {habitat: Desrt}"))
    lines = (library / "animal-habitats.yaml").read_text(encoding="utf-8").splitlines()
    row = next(n for n, line in enumerate(lines, 1) if "Desrt" in line)
    column = lines[row - 1].index("Desrt") + 1
    code, output = _run("check", "--content", str(library), "animal-habitats")
    assert code == 2
    assert (f"animal-habitats.yaml:{row}:{column}: decks[0].cards[5].data.habitat: 'Desrt' is not a place on the "
            f"mats 'land', 'water-and-ice'; did you mean 'Desert'?") in output, output


def test_the_habitat_content_defects_stay_fixed(tmp_path: Path):
    texts = _built(REPO / "content", "animal-habitats", tmp_path / "out")
    key = texts.folder / "animal-habitats-host-key.pdf"
    habitats = {row[0]: row[1].split(", ") for row in _table(key, "Habitat", "Animals", "Some also live in")}
    assert "Flamingo" in habitats["River and lake"] and "Polar bear" in habitats["Ice and snow"]
    assert "Savanna" in habitats and "Rainforest" in habitats  # two habitats, not "Savanna and jungle"
    assert all(len(animals) == 5 for animals in habitats.values()), habitats
    assert "jungle" not in "\n".join(texts.values()).lower()
    for word in ("Turtle", "Otter", "Snail", "Tortoise"):
        assert word not in texts["cards"]
    for mat in ("mat-land", "mat-water-and-ice"):  # each mat is one sheet: no place cut by a glue seam
        pdf = pypdf.PdfReader(texts.folder / f"animal-habitats-{mat}.pdf")
        assert len(pdf.pages) == 1
    with pdfplumber.open(texts.folder / "animal-habitats-mat-land.pdf") as mat:
        assert {"Forest", "Desert", "Savanna", "Rainforest"} <= {w["text"] for w in mat.pages[0].extract_words()}


@pytest.mark.parametrize("activity", ["times-table-pairs", "animal-habitats", "needle-in-a-card-stack", "growing-discard"])
def test_the_print_guide_says_sort_by_backs_only_when_backs_differ(tmp_path: Path, activity: str):
    guide = _built(REPO / "content", activity, tmp_path / "out")["print-guide"].replace("\n", " ")
    if activity == "growing-discard":  # two starting decks with their own backs
        assert "the backs show which deck a card belongs to" in guide
    else:
        assert "sort these cards by their backs" not in guide and "backs show which deck" not in guide
    if activity == "times-table-pairs":
        assert "All the cards have the same back, as the game needs" in guide
        # the answer cards listed as they read (their numbers), not as `1 3, 1 4`
        assert re.search(r"Answer cards: 20 cards: 3, 4, 6, 8, 9, 15, .*\(1 card each\); 12, 24 \(2 cards each\)",
                         guide), guide

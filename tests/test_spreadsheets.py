"""Cards from spreadsheets: a deck's cards (and a mat's labels) read from CSV, XLSX and ODS files.

Every test writes its own small library into a temporary folder (the XLSX and ODS files with the minimal
writers in sheetfiles.py), builds or checks it with kitgen, and looks at what came out: the PDFs' bytes and
text, the error lines, the manifest of an incremental build.
"""
from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import forked
import pypdf
import pytest

from kitgen.app.batch import build_library
from kitgen.app.build import build, BuildOptions, check
from kitgen.core.errors import ContentError
from kitgen.load.library import Library
from kitgen.load import load_activity
from kitgen.load.spreadsheets import read_csv, read_workbook

from conftest import kitgen_env, library_kit, lines_run
from sheetfiles import write_ods, write_xlsx

REPO = Path(__file__).resolve().parents[1]

HEAD = """id: animals
title: Animal sort
purpose: Sort animals by where they live.
category: Science
players: 2-4
minutes: 15
rules:
  prepare: Shuffle the cards.
  play: Sort them by habitat.
totals: {cards: 4}
host_key:
  card_tables:
    - {title: Legs, deck: animals, fields: [{field: legs, heading: Legs}], total: All}
decks:
  - id: animals
    name: Animals
    back: {title: Animals}
"""
ROWS = [["id", "name", "count", "caption", "habitat", "legs"],
        ["cat", "Cat", 2, "{{ habitat }}", "house", 4],
        [None, None, None, None, None, None],  # an empty row: skipped
        ["fish", "Fish", 1, "{{ habitat }}", "sea", 0],
        ["owl", "Owl", 1, "{{ habitat }} (night)", "wood", 2]]
YAML_CARDS = """    cards:
      - {id: cat, name: Cat, count: 2, caption: "{{ habitat }}", data: {habitat: house, legs: 4}}
      - {id: fish, name: Fish, count: 1, caption: "{{ habitat }}", data: {habitat: sea, legs: 0}}
      - {id: owl, name: Owl, count: 1, caption: "{{ habitat }} (night)", data: {habitat: wood, legs: 2}}
"""


def csv_text(rows: list[list], delimiter: str = ",") -> str:
    def cell(value) -> str:
        text = "" if value is None else str(value)
        return f'"{text}"' if delimiter in text or '"' in text else text
    return "".join(delimiter.join(cell(v) for v in row) + "\n" for row in rows)


def library_with(tmp_path: Path, kind: str, rows: list[list] = ROWS, reference: str | None = None) -> Path:
    """A library holding the animal sort with its cards in YAML (`yaml`) or in a spreadsheet (csv, xlsx, ods)."""
    content = tmp_path / kind / "content"
    content.mkdir(parents=True)
    if kind == "yaml":
        (content / "animals.yaml").write_text(HEAD + YAML_CARDS, encoding="utf-8")
        return content
    name = f"animals.{kind}"
    if kind == "csv":
        (content / name).write_text(csv_text(rows), encoding="utf-8")
    elif kind == "xlsx":
        write_xlsx(content / name, {"Animals": rows})
    else:
        write_ods(content / name, {"Animals": rows})
    reference = reference or f"{{file: {name}, data: [habitat, legs]}}"
    (content / "animals.yaml").write_text(HEAD + f"    cards: {reference}\n", encoding="utf-8")
    return content


def errors_of(content: Path) -> list[str]:
    with pytest.raises(ContentError) as caught:
        check("animals", Library(content))
    return str(caught.value).splitlines()


# ------------------------------------------------------------------------------------------- same kit


@pytest.mark.parametrize("kind", ["csv", "xlsx", "ods"])
def test_cards_from_a_spreadsheet_build_the_same_pdfs_as_the_same_cards_in_yaml(tmp_path: Path, kind: str):
    built = {}
    for source in ("yaml", kind):
        content = library_with(tmp_path, source)
        result = build("animals", BuildOptions(out_dir=tmp_path / f"out-{source}"), Library(content))
        built[source] = {f.path.name: f.path.read_bytes() for f in result.files}
    assert sorted(built["yaml"]) == sorted(built[kind])
    for name, data in built["yaml"].items():
        assert data == built[kind][name], f"{name} differs between YAML and {kind}"
    cards = next(name for name in built[kind] if name.endswith("-cards.pdf"))
    text = "".join(page.extract_text() for page in pypdf.PdfReader(tmp_path / f"out-{kind}/animals/{cards}").pages)
    assert text.count("Cat") == 2 and "sea" in text and "wood (night)" in text  # the empty row made no card


# ------------------------------------------------------------------------------------------- located errors


BAD_CELL = [row[:] for row in ROWS]
BAD_CELL[4][2] = "six"  # row 5 of the sheet, column C (count)


def test_a_bad_cell_in_a_csv_is_named_by_file_line_and_column(tmp_path: Path):
    lines = errors_of(library_with(tmp_path, "csv", BAD_CELL))
    assert lines == [f"{tmp_path / 'csv/content/animals.csv'}:5:3 (column 'count'): "
                     "expected a positive integer, got 'six'"]


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_a_bad_cell_in_a_workbook_is_named_by_file_sheet_and_cell(tmp_path: Path, kind: str):
    lines = errors_of(library_with(tmp_path, kind, BAD_CELL))
    assert lines == [f"{tmp_path / kind / 'content' / ('animals.' + kind)}, sheet Animals, C5 (column 'count'): "
                     "expected a positive integer, got 'six'"]


def test_a_placeholder_that_fails_in_a_cell_is_named_by_its_cell(tmp_path: Path):
    rows = [row[:] for row in ROWS]
    rows[3][3] = "{{ habitt }}"
    lines = errors_of(library_with(tmp_path, "csv", rows))
    assert len(lines) == 1 and lines[0].startswith(f"{tmp_path / 'csv/content/animals.csv'}:4:4 (column 'caption'): ")
    assert "'habitt' is undefined" in lines[0]


def test_an_unknown_column_gets_a_suggestion_at_its_heading(tmp_path: Path):
    rows = [row[:] for row in ROWS]
    rows[0][3] = "captoin"
    lines = errors_of(library_with(tmp_path, "xlsx", rows))
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{tmp_path / 'xlsx/content/animals.xlsx'}, sheet Animals, D1 (column 'captoin'): "
                               "unknown column 'captoin'; did you mean 'caption'?")


def test_a_data_column_missing_from_the_sheet_is_reported_in_the_yaml(tmp_path: Path):
    content = library_with(tmp_path, "csv", reference="{file: animals.csv, data: [habitat, legs, wings]}")
    lines = errors_of(content)
    assert any(line.startswith(f"{content / 'animals.yaml'}:") and "no column 'wings'" in line for line in lines), lines


def test_a_row_that_does_not_fit_is_an_error_and_an_empty_row_is_skipped(tmp_path: Path):
    content = library_with(tmp_path, "csv")
    text = (content / "animals.csv").read_text().splitlines()
    text[3] += ",extra"  # line 4: one cell more than the headings
    (content / "animals.csv").write_text("\n".join(text) + "\n")
    lines = errors_of(content)
    assert lines == [f"{content / 'animals.csv'}:4:7: a value in column G, which has no heading; "
                     "expected at most 6 columns"]
    with_short = library_with(tmp_path / "short", "csv")
    text = (with_short / "animals.csv").read_text().splitlines()
    text[4] = "owl,Owl,1"
    (with_short / "animals.csv").write_text("\n".join(text) + "\n")
    assert errors_of(with_short) == [f"{with_short / 'animals.csv'}:5:1 (row 5): the row has 3 cells, expected 6 "
                                     "(one per column; a value with a comma needs quotes)"]


def test_encoding_and_delimiter_are_detected_or_declared(tmp_path: Path):
    rows = [row[:] for row in ROWS]
    rows[4][1] = "Hibou; la chouette"
    rows[3][1] = "Poisson rouge à l'étang"
    path = tmp_path / "animals.csv"
    path.write_bytes(csv_text(rows, ";").encode("cp1252"))  # what a French spreadsheet program saves
    table = read_csv(path)
    assert table.headers == ROWS[0]
    assert [cells[1] for _, cells in table.rows] == ["Cat", "Poisson rouge à l'étang", "Hibou; la chouette"]
    assert [number for number, _ in table.rows] == [2, 4, 5]
    path.write_bytes(csv_text(rows, "|").encode("utf-8"))
    assert read_csv(path, "utf-8", "|").rows[2][1][1] == "Hibou; la chouette"


# ------------------------------------------------------------------------------------------- inputs


def test_a_changed_spreadsheet_rebuilds_only_its_kit(tmp_path: Path):
    content = library_with(tmp_path, "csv")
    shutil.copytree(REPO / "templates", content.parent / "templates")  # the library's own: only the CSV changes
    (content / "other.yaml").write_text(HEAD.replace("id: animals\ntitle", "id: other\ntitle") + YAML_CARDS)
    options = BuildOptions(out_dir=tmp_path / "out", incremental=True)
    first = {r.activity_id: r.status for r in build_library(Library(content), options, jobs=1)}
    assert first == {"animals": "built", "other": "built"}
    manifest = (tmp_path / "out/animals/manifest.json").read_text()
    assert str(content / "animals.csv") in manifest  # the spreadsheet is an input of the kit
    again = {r.activity_id: r.status for r in build_library(Library(content), options, jobs=1)}
    assert again == {"animals": "up to date", "other": "up to date"}
    csv = content / "animals.csv"
    csv.write_text(csv.read_text().replace("Owl", "Barn owl"))
    after = {r.activity_id: r.status for r in build_library(Library(content), options, jobs=1)}
    assert after == {"animals": "built", "other": "up to date"}
    cards = pypdf.PdfReader(tmp_path / "out/animals/animals-cards.pdf")
    assert "Barn owl" in "".join(page.extract_text() for page in cards.pages)


def test_a_spreadsheet_outside_the_activity_folder_is_refused(tmp_path: Path):
    content = library_with(tmp_path, "csv", reference="{file: ../animals.csv, data: [habitat, legs]}")
    (content.parent / "animals.csv").write_text(csv_text(ROWS))
    lines = errors_of(content)
    assert len(lines) == 1 and "is outside the activity folder" in lines[0]


# ------------------------------------------------------------------------------------------- speed and the library


def test_reading_a_sheet_is_linear_in_its_rows(tmp_path: Path):
    """Twice the rows, at most a little more than twice the work (lines of kitgen run), for CSV and XLSX."""
    def rows(count: int) -> list[list]:
        return [["id", "name", "caption", "legs"]] + [[f"c{i}", f"Card {i}", "{{ legs }} legs", i % 9]
                                                      for i in range(count)]

    for count in (1000, 2000):
        (tmp_path / f"{count}.csv").write_text(csv_text(rows(count)))
        write_xlsx(tmp_path / f"{count}.xlsx", {"Cards": rows(count)})
    for read, suffix in ((read_csv, ".csv"), (read_workbook, ".xlsx")):
        small, large = (lines_run(lambda: read(tmp_path / f"{count}{suffix}")) for count in (1000, 2000))
        assert large <= 2.2 * small, f"{suffix}: {small:,} lines of kitgen for 1000 rows, {large:,} for 2000"


@pytest.mark.slow  # a measurement, printed, not asserted: python -m benchmarks.bench holds the figures
def test_reading_ten_thousand_rows_measured(tmp_path: Path):
    rows = [["id", "name", "caption", "legs"]] + [[f"c{i}", f"Card {i}", "{{ legs }} legs", i % 9] for i in
                                                  range(10_000)]
    content = library_with(tmp_path, "csv", rows, reference="{file: animals.csv, data: [legs]}")
    yaml_content = tmp_path / "y" / "content"
    yaml_content.mkdir(parents=True)
    (yaml_content / "animals.yaml").write_text(HEAD.replace("totals: {cards: 4}\n", "") + "    cards:\n" + "".join(
        f"      - {{id: c{i}, name: Card {i}, count: 1, caption: '{{{{ legs }}}} legs', data: {{legs: {i % 9}}}}}\n"
        for i in range(10_000)))
    (content / "animals.yaml").write_text((content / "animals.yaml").read_text().replace("totals: {cards: 4}\n", ""))

    def best(path: Path) -> float:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            loaded = load_activity(path)
            times.append(time.perf_counter() - start)
            from kitgen.load.yaml_source import _read_yaml
            _read_yaml.cache_clear()
        assert len(loaded.activity.decks[0].cards) == 10_000
        return min(times)

    from_sheet, from_yaml = best(content / "animals.yaml"), best(yaml_content / "animals.yaml")
    def fastest(read) -> float:  # the best of three: this machine is shared
        times = []
        for _ in range(3):
            start = time.perf_counter()
            assert len(read().rows) == 10_000
            times.append(time.perf_counter() - start)
        return min(times)

    write_xlsx(tmp_path / "big.xlsx", {"Cards": rows})
    reading = fastest(lambda: read_csv(content / "animals.csv"))
    reading_xlsx = fastest(lambda: read_workbook(tmp_path / "big.xlsx"))
    print(f"10,000 rows: load from CSV {from_sheet:.3f} s, from YAML {from_yaml:.3f} s, reading the CSV "
          f"{reading:.3f} s, the XLSX {reading_xlsx:.3f} s")


def test_the_library_example_reads_its_cards_from_a_csv_and_an_xlsx(tmp_path: Path):
    path = REPO / "content/times-table-pairs/activity.yaml"
    loaded = load_activity(path)
    assert [p.name for p in loaded.files] == ["activity.yaml", "answers.xlsx", "facts.csv"]
    questions, answers = loaded.activity.decks
    assert questions.total == answers.total == 20
    assert sorted(card.data["a"] * card.data["b"] for card in questions.cards) == sorted(
        int(card.name) for card in answers.cards for _ in range(card.count))
    result = library_kit("times-table-pairs")
    cards = next(f.path for f in result.files if f.path.name.endswith("-cards.pdf"))
    text = " ".join(page.extract_text() for page in pypdf.PdfReader(cards).pages)
    # every answer card's number is its value, printed large in the middle (big-value), not a small title
    assert all(card.value == card.name and card.layout == "big-value" and not card.show_title
               for card in answers.cards)
    assert "What is 4 times 7?" in text and "the answer" not in text


def test_new_from_a_spreadsheet_maps_its_columns_and_builds(tmp_path: Path):
    from click.testing import CliRunner

    from kitgen.cli import main

    sheet = tmp_path / "animals.xlsx"
    write_xlsx(sheet, {"Animals": [["id", "name", "count", "habitat"], ["cat", "Cat", 3, "house"],
                                   ["owl", "Owl", 1, "wood"]]})
    content = tmp_path / "lib" / "content"
    done = CliRunner().invoke(main, ["new", "animal-sort", "--from", str(sheet), "--content", str(content)])
    assert done.exit_code == 0, done.output
    activity = (content / "animal-sort" / "activity.yaml").read_text(encoding="utf-8")
    assert "      file: animals.xlsx\n      sheet: Animals\n      data: [habitat]" in activity
    assert "#   D habitat: data, {{ habitat }} in a card's texts (row 2: 'house')" in activity
    assert (content / "animal-sort" / "animals.xlsx").read_bytes() == sheet.read_bytes()
    result = build("animal-sort", BuildOptions(out_dir=tmp_path / "out"), Library(content))
    cards = next(f.path for f in result.files if f.path.name.endswith("-cards.pdf"))
    text = " ".join(page.extract_text() for page in pypdf.PdfReader(cards).pages)
    assert text.count("Cat") == 3 and text.count("Owl") == 1


def test_a_teachers_sheet_of_names_without_ids_builds_and_a_repeated_name_is_located_at_its_cell(tmp_path: Path):
    """`kitgen new animals --from animals.csv` on a sheet headed name,text,habitat: the ids are made from the
    names (`ids: name`), the build that `new` promises works, a name written twice later gets an id of its own
    (fox-2); without `ids:` the names are the ids and a name written twice is reported at the second name's cell."""
    (tmp_path / "animals.csv").write_text("name,text,habitat\nFox,Lives in woods,Forest\nCamel,Stores fat,Desert\n",
                                          encoding="utf-8")
    env = kitgen_env(tmp_path)
    made = forked.run(["new", "animals", "--from", "animals.csv"], cwd=tmp_path, env=env, timeout=300)
    assert made.returncode == 0, made.stderr
    assert "build it with: kitgen build animals" in made.stdout
    built = forked.run(["build", "animals"], cwd=tmp_path, env=env, timeout=300)
    assert built.returncode == 0, built.stderr
    cards = next((tmp_path / "output" / "animals").glob("*-cards.pdf"))
    text = " ".join(page.extract_text() for page in pypdf.PdfReader(cards).pages)
    assert "Fox" in text and "Camel" in text
    sheet = tmp_path / "content" / "animals" / "animals.csv"
    sheet.write_text(sheet.read_text(encoding="utf-8") + "Fox,Hunts at night,Forest\n", encoding="utf-8")
    again = forked.run(["build", "animals"], cwd=tmp_path, env=env, timeout=300)
    assert again.returncode == 0, again.stderr
    loaded = load_activity(tmp_path / "content" / "animals" / "activity.yaml").activity
    assert [card.id for card in loaded.decks[0].cards] == ["fox", "camel", "fox-2"]
    activity = tmp_path / "content" / "animals" / "activity.yaml"
    yaml = activity.read_text(encoding="utf-8")
    assert yaml.count("\n      ids: name ") == 1
    activity.write_text(re.sub(r"\n      ids: name .*", "", yaml), encoding="utf-8")
    again = forked.run(["build", "animals"], cwd=tmp_path, env=env, timeout=300)
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert again.stderr.splitlines()[0] == ("content/animals/animals.csv:4:1 (column 'name'): card id 'Fox' is also "
                                            "the id in row 2, expected each card id once per deck")

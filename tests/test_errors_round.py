"""Errors where the teacher must look, all in one round (#25): a habitat sort whose deck is read from a
spreadsheet (`cards: {file: animals.csv, card: ...}`), broken one way at a time; each problem must name the line
of YAML or the cell of the sheet where the teacher fixes it, say what was probably meant, and come with every
other problem of the activity in the same run."""
from __future__ import annotations

from pathlib import Path

import pypdf
import pytest

from kitgen.app.build import build, BuildOptions, check
from kitgen.core.errors import ContentError, UnprintableContent
from kitgen.core.notes import NoteKind
from kitgen.load.library import Library

from sheetfiles import write_xlsx

ANIMALS = [("penguin", "ocean"), ("seal", "ocean"), ("camel", "desert"), ("fox", "forest"), ("owl", "forest"),
           ("hedgehog", "forest"), ("frog", "pond"), ("shark", "ocean"), ("eagle", "mountain"), ("bear", "forest"),
           ("cat", "house"), ("dog", "house"), ("cow", "farm"), ("horse", "farm"), ("duck", "pond"), ("goat", "farm"),
           ("snake", "desert"), ("lizard", "desert"), ("whale", "ocean"), ("crab", "ocean")]
HEAD = """id: habitat
title: Habitat sort
purpose: Sort animals by where they live.
category: Science
players: 2-4
minutes: 15
rules:
  prepare: Shuffle the cards.
  play: Sort them by habitat.
decks:
  - id: animals
    name: Animals
    back: {title: Animals}
    cards:
      file: FILE
      data: [habitat]
      card:
        caption: "{{ habitat }}"
"""


def rows(extra: dict[str, list[object]] | None = None) -> list[list[object]]:
    """The sheet: id, name, habitat (and any extra columns), one row per animal, headings in row 1."""
    extra = extra or {}
    table: list[list[object]] = [["id", "name", "habitat", *extra]]
    for n, (animal, habitat) in enumerate(ANIMALS):
        table.append([animal, animal.title(), habitat, *(values[n] for values in extra.values())])
    return table


def csv_text(table: list[list[object]]) -> str:
    return "".join(",".join("" if cell is None else str(cell) for cell in row) + "\n" for row in table)


def habitat(tmp_path: Path, table: list[list[object]] | None = None, kind: str = "csv", yaml: str = HEAD) -> Path:
    """The library folder `content/` holding the habitat sort (a folder activity) and its sheet."""
    folder = tmp_path / "content" / "habitat"
    folder.mkdir(parents=True)
    table = table if table is not None else rows()
    if kind == "csv":
        (folder / "animals.csv").write_text(csv_text(table), encoding="utf-8")
    else:
        write_xlsx(folder / "animals.xlsx", {"Animals": table})
    (folder / "activity.yaml").write_text(yaml.replace("FILE", f"animals.{kind}"), encoding="utf-8")
    return tmp_path / "content"


def problems(content: Path) -> list[str]:
    """`kitgen check habitat`'s problems, one a line, the folder's path made relative to the library."""
    with pytest.raises(ContentError) as caught:
        check("habitat", Library(content))
    return [line.replace(f"{content}/", "") for line in str(caught.value).splitlines()]


def line_of(content: Path, needle: str, name: str = "habitat/activity.yaml") -> int:
    return next(n for n, line in enumerate((content / name).read_text().splitlines(), 1) if needle in line)


# ------------------------------------------------------------------------------------------- 1. the card template


def test_a_typo_in_the_card_template_is_one_problem_at_its_yaml_line_with_a_suggestion(tmp_path: Path):
    content = habitat(tmp_path, yaml=HEAD.replace("{{ habitat }}", "{{ habitta }}"))
    line = line_of(content, "habitta")
    assert problems(content) == [f"habitat/activity.yaml:{line}:18: decks[0].cards.card.caption: 'habitta' is "
                                 "undefined on 20 cards, did you mean 'habitat'?"]


def test_a_typo_in_a_template_made_name_is_one_problem_at_its_yaml_line(tmp_path: Path):
    table = [row[:1] + row[2:] for row in rows()]  # no name column: the template makes each name
    yaml = HEAD.replace('        caption: "{{ habitat }}"\n', '        name: "{{ habitta }} animal"\n')
    content = habitat(tmp_path, table, yaml=yaml)
    line = line_of(content, "habitta")
    assert problems(content) == [f"habitat/activity.yaml:{line}:15: decks[0].cards.card.name: the name cannot be "
                                 "filled from the rows: 'habitta' is undefined on 20 cards, did you mean 'habitat'?"]


def test_a_typo_in_one_cell_stays_at_its_cell_with_a_suggestion(tmp_path: Path):
    table = rows({"text": ["Lives in the {{ habitat }}."] * 20})
    table[5][3] = "Lives in the {{ habita }}."
    lines = problems(habitat(tmp_path, table))
    assert lines == ["habitat/animals.csv:6:4 (column 'text'): 'habita' is undefined, did you mean 'habitat'?"]


# ------------------------------------------------------------------------------------------- 2. a card id twice


def test_an_id_repeated_in_a_csv_is_reported_at_the_second_rows_cell_naming_the_first_row(tmp_path: Path):
    table = rows()
    table[6][0] = "penguin"  # line 7 of the file; the first penguin is on line 2
    assert problems(habitat(tmp_path, table)) == [
        "habitat/animals.csv:7:1 (column 'id'): card id 'penguin' is also the id in row 2, expected each card id "
        "once per deck"]


def test_a_template_made_id_repeated_in_a_workbook_is_reported_at_the_cell_it_was_made_from(tmp_path: Path):
    table = [["animal", "name", "habitat"]] + [row for row in rows()[1:]]
    table[6][0] = "penguin"  # row 7
    yaml = HEAD.replace("data: [habitat]", "data: [habitat, animal]").replace(
        "      card:\n", '      card:\n        id: "{{ animal }}"\n')
    assert problems(habitat(tmp_path, table, "xlsx", yaml)) == [
        "habitat/animals.xlsx, sheet Animals, A7 (column 'animal'): card id 'penguin' is also the id in row 2, "
        "expected each card id once per deck"]


# ------------------------------------------------------------------------------------------- 3. render stage, by cell

LONG = " ".join(["word"] * 400)


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_text_too_long_for_a_card_from_a_workbook_is_named_by_its_cell(tmp_path: Path, kind: str):
    from sheetfiles import write_ods

    table = rows({"text": [""] * 20})
    table[3][3] = LONG  # row 4, column D: the camel's text
    content = habitat(tmp_path, table, "xlsx")
    if kind == "ods":
        (content / "habitat/animals.xlsx").unlink()
        write_ods(content / "habitat/animals.ods", {"Animals": table})
        yaml = content / "habitat/activity.yaml"
        yaml.write_text(yaml.read_text().replace("animals.xlsx", "animals.ods"))
    expected = (f"habitat/animals.{kind}, sheet Animals, D4 (column 'text'): card 'camel': the text does not fit on "
                "the card even at 7 pt; shorten it or choose a larger card")
    assert problems(content) == [expected]
    with pytest.raises(UnprintableContent) as caught:  # the build says it at the same cell
        build("habitat", BuildOptions(out_dir=tmp_path / "out"), Library(content))
    assert str(caught.value).replace(f"{content}/", "") == expected


def test_a_character_no_font_has_in_a_csv_cell_is_named_by_its_cell(tmp_path: Path):
    table = rows({"text": [""] * 20})
    table[5][3] = "Says \u0f00 at dawn"  # row 6, column D
    lines = problems(habitat(tmp_path, table))
    assert len(lines) == 1 and lines[0].startswith("habitat/animals.csv:6:4 (column 'text'): card 'owl': "
                                                   "the bundled font cannot draw 'ༀ' (U+0F00)"), lines


# ------------------------------------------------------------------------------------------- 4. all in one round

TABLE_KEY = """host_key:
  card_tables:
    - {title: Where they live, cards: [penguin, camle], fields: [{field: habitat, heading: Habitat}]}
"""


def test_a_column_without_a_heading_is_reported_with_every_other_problem(tmp_path: Path):
    table = rows({"": [""] * 20, "count": [1] * 20})
    table[3][3] = "oops"  # row 4: a value under no heading
    table[8][4] = "six"  # row 9: a count that is no number
    yaml = HEAD.replace("players: 2-4", "players: many") + TABLE_KEY
    content = habitat(tmp_path, table, yaml=yaml)
    assert problems(content) == [
        "habitat/activity.yaml:5:10: players: expected a number such as 20 or a range such as '20-25', got 'many'",
        "habitat/animals.csv:1:4: a column without a heading, expected a heading naming a card field or a data "
        "column",
        "habitat/animals.csv:9:5 (column 'count'): expected a positive integer, got 'six'"]
    (content / "habitat/activity.yaml").write_text(HEAD.replace("FILE", "animals.csv") + TABLE_KEY)
    (content / "habitat/animals.csv").write_text(csv_text(rows({"": [""] * 3 + ["oops"] + [""] * 16,
                                                                "count": [1] * 20})))
    assert problems(content) == [  # the schema is met: the content checks' problems come with the sheet's
        "habitat/activity.yaml:21:49: host_key.card_tables[0].cards[1]: no card 'camle' in any deck, did you mean "
        "'camel'?",
        "habitat/animals.csv:1:4: a column without a heading, expected a heading naming a card field or a data "
        "column"]


def test_a_sheet_that_cannot_be_read_leaves_the_rest_of_the_activity_checked(tmp_path: Path):
    content = habitat(tmp_path, [row[1:] for row in rows()], yaml=HEAD.replace("players: 2-4", "players: many"))
    (content / "habitat/animals.csv").write_text(csv_text([["habitat"], ["ocean"]]))  # no id, no name: unread
    assert problems(content) == [
        "habitat/activity.yaml:5:10: players: expected a number such as 20 or a range such as '20-25', got 'many'",
        "habitat/animals.csv:1:1 (row 1): no 'id' column; expected a column headed 'id' (each card's id) or 'name' "
        "(the name is then the id), or ids: name or ids: row beside file:, then any of: count, name, symbol, value, caption, text, footer, color, image, "
        "picture, qr, layout, fit, show_title"]


# ------------------------------------------------------------------------------------------- 5. editions named

SHOP = """id: shop
title: Shop
purpose: Add up coins.
category: Number
language: en
players: 2
minutes: 10
rules:
  prepare: Shuffle the cards.
  play: Take turns.
decks:
  - id: main
    name: Main
    back: {title: Main}
    cards:
      - {id: coin, count: 4, name: Coin, data: {coins: 2}}
      - {id: cake, count: 2, name: Cake, data: {price: 2}}
host_key:
  examples:
    - {hand: [coin], sum: coins, unit: coins, buys: cake}
"""
SHOP_FR = """title: Boutique
decks:
  - name: Pioche
    cards:
      - {name: Pièce, data: {coins: 1}}
      - {name: Gâteau}
"""


def test_a_problem_only_an_edition_has_names_the_edition(tmp_path: Path):
    folder = tmp_path / "content" / "shop"
    folder.mkdir(parents=True)
    (folder / "activity.yaml").write_text(SHOP, encoding="utf-8")
    (folder / "activity.fr.yaml").write_text(SHOP_FR, encoding="utf-8")
    (folder / "activity.nl.yaml").write_text("title: Winkel\n", encoding="utf-8")  # no Dutch catalog
    content = tmp_path / "content"
    with pytest.raises(ContentError) as caught:
        check("shop", Library(content))
    lines = [line.replace(f"{content}/", "") for line in str(caught.value).splitlines()]
    assert lines[0].startswith("shop/activity.yaml:5:11: no catalog for language 'nl'; available: de, en, es, fr, "
                               "it, ro (a library adds one as ")
    assert lines[0].endswith(" (in the 'nl' edition, made with activity.nl.yaml)")
    assert lines[1] == ("shop/activity.yaml:20:53: host_key.examples[0].buys: the hand makes 1 coins but cake costs "
                        "2, expected an affordable purchase (in the 'fr' edition, made with activity.fr.yaml)")
    assert len(lines) == 2
    with pytest.raises(ContentError) as built:  # the build of that edition says so too
        build("shop", BuildOptions(out_dir=tmp_path / "out"), Library(content), "fr")
    assert str(built.value).replace(f"{content}/", "") == lines[1]


# ------------------------------------------------------------------------------------------- 6. did you mean


def test_a_mistyped_card_id_anywhere_gets_the_card_it_probably_meant(tmp_path: Path):
    key = """host_key:
  card_tables:
    - {title: Cold, cards: [Pengiun, seal], fields: [{field: habitat, heading: Habitat}]}
  walkthroughs:
    - title: A turn
      steps:
        - {text: Ana lays the camel., cards: [camle]}
  examples:
    - {hand: [hedgehog], sum: legs, unit: legs, buys: wahle}
"""
    lines = problems(habitat(tmp_path, yaml=HEAD + key))
    assert "habitat/activity.yaml:21:29: host_key.card_tables[0].cards[0]: no card 'Pengiun' in any deck, did you " \
           "mean 'penguin'?" in lines
    assert any("host_key.walkthroughs[0].steps[0].cards[0]: no card 'camle' in any deck, did you mean 'camel'?" in line
               for line in lines), lines
    assert any("host_key.examples[0].buys: no card 'wahle' in any deck, did you mean 'whale'?" in line
               for line in lines), lines


def test_a_mistyped_picture_file_gets_the_file_it_probably_meant(tmp_path: Path):
    import base64

    table = rows({"image": ["hedgehog2.png" if animal == "hedgehog" else "" for animal, _ in ANIMALS]})
    content = habitat(tmp_path, table)
    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")
    (content / "habitat/hedgehog.png").write_bytes(png)
    (content / "habitat/frog.png").write_bytes(png)
    lines = problems(content)
    assert len(lines) == 1 and lines[0].startswith("habitat/animals.csv:7:4 (column 'image'): no picture "
                                                   "'hedgehog2.png' in "), lines
    assert lines[0].endswith(", did you mean 'hedgehog.png'?"), lines


# ------------------------------------------------------------------------------------------- 7. kitgen.toml


def test_every_wrong_setting_is_located_at_its_line(tmp_path: Path):
    from click.testing import CliRunner

    from kitgen.cli import main

    content = habitat(tmp_path)
    settings = tmp_path / "kitgen.toml"
    settings.write_text('# my settings\npaper = "a4"\npapr = "letter"\n\n  class_size = "many"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "habitat", "--content", str(content)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    lines = result.stderr.replace(f"{tmp_path}/", "").splitlines()
    assert lines == ["error: kitgen.toml:3:1: unknown setting 'papr'; did you mean 'paper'?",
                     "kitgen.toml:5:3: class_size: expected a whole number from 1 to 500, got 'many'"], lines
    settings.write_text('paper = "a4"\n\npaper = "letter"\n', encoding="utf-8")  # TOML's own: at its place too
    result = CliRunner().invoke(main, ["check", "habitat", "--content", str(content)])
    assert result.stderr.replace(f"{tmp_path}/", "").startswith("error: kitgen.toml:3:"), result.stderr


# ------------------------------------------------------------------------------------------- 8. not UTF-8


def test_a_csv_saved_as_windows_western_european_is_read_with_a_hint_at_its_first_such_byte(tmp_path: Path):
    """Excel's plain "CSV" on a French Windows: `Renard élégant` is cp1252, and also valid Shift-JIS (é then a
    letter makes a kanji): it was refused as Japanese; it is read, and the report says how to save it."""
    table = rows()
    table[4][1] = "Renard élégant"  # line 5; é is the 12th character of "fox,Renard élégant"
    content = habitat(tmp_path, table)
    (content / "habitat/animals.csv").write_bytes(csv_text(table).encode("cp1252"))
    result = build("habitat", BuildOptions(out_dir=tmp_path / "out"), Library(content))
    hints = [note for note in result.quality if note.kind == NoteKind.ENCODING]
    assert [str(note).replace(f"{content}/", "") for note in hints] == [
        "habitat/animals.csv:5:12: this file is not UTF-8 and was read as Windows' Western European (cp1252), which "
        "has no emoji and few letters beyond Western European ones; save it as \"CSV UTF-8\" in the spreadsheet "
        "program"]
    cards = next(f.path for f in result.files if f.path.name.endswith("-cards.pdf"))
    assert "Renard\nélégant" in "".join(page.extract_text() for page in pypdf.PdfReader(cards).pages)  # two lines


@pytest.mark.parametrize("encoding", ["utf-8", "cp1252"])
def test_emoji_turned_into_question_marks_where_pictures_were_expected_get_the_hint(tmp_path: Path, encoding: str):
    table = rows({"picture": ["?"] * 20})
    table[2][1] = "Phoque gris clair à pois"  # line 3: not ASCII in cp1252
    content = habitat(tmp_path, table)
    (content / "habitat/animals.csv").write_bytes(csv_text(table).encode(encoding))
    legacy = "this file is not UTF-8 (from line 3, column 24); " if encoding == "cp1252" else ""
    assert problems(content) == [
        f"habitat/animals.csv:2:4 (column 'picture'): '?' where a picture was expected (20 rows): saving as plain "
        f"\"CSV\" turns each emoji into '?'; {legacy}save it as \"CSV UTF-8\" in the spreadsheet program and put the "
        "emoji back, or write each picture's name (penguin)"]


def test_a_mistyped_card_id_in_a_placeholder_gets_the_card_it_probably_meant(tmp_path: Path):
    yaml = HEAD.replace("  play: Sort them by habitat.", "  play: The penguin lives in the {{ cards.Pengiun.habitat }}.")
    lines = problems(habitat(tmp_path, yaml=yaml))
    assert lines == ["habitat/activity.yaml:9:9: rules.play[0]: 'cards.Pengiun.habitat' is undefined, did you mean "
                     "the card 'penguin'?"], lines
    yaml = yaml.replace("{{ cards.Pengiun.habitat }}", "{{ cards.Pengiun.habitat | upper }}")  # through Jinja
    lines = problems(habitat(tmp_path / "jinja", yaml=yaml))
    assert lines == ["habitat/activity.yaml:9:9: rules.play[0]: 'dict object' has no attribute 'Pengiun', did you "
                     "mean the card 'penguin'?"], lines

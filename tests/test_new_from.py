"""`kitgen new ID --from FILE [--sheet NAME]` on sheets as teachers have them (a CSV saved by a spreadsheet
program, an XLSX with a notes sheet and a title row, an ODS in French with a column and a row left empty):
the activity it writes builds at once, one card per row, with ids made from the names, the same every time."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from PIL import Image
from click.testing import CliRunner

from kitgen.cli import main
from kitgen.load import load_activity

from conftest import plain_text
from sheetfiles import write_ods, write_xlsx

ANIMALS = [("Polar bear", "Ice, snow", "polar bear"), ("Camel", "Desert", "camel"), ("Penguin", "Ice, snow", "penguin"),
           ("Lion", "Savanna", "lion"), ("Elephant", "Savanna", "elephant"), ("Giraffe", "Savanna", "giraffe"),
           ("Zebra", "Savanna", "zebra"), ("Kangaroo", "Bush", "kangaroo"), ("Koala", "Forest", "koala"),
           ("Panda", "Forest", "panda"), ("Tiger", "Jungle", "tiger"), ("Monkey", "Jungle", "monkey"),
           ("Owl", "Forest", "owl"), ("Fox", "Forest", "fox"), ("Wolf", "Forest", "wolf"), ("Frog", "Pond", "frog"),
           ("Crocodile", "River", "crocodile"), ("Dolphin", "Sea", "dolphin"), ("Whale", "Sea", "whale"),
           ("Octopus", "Sea", "octopus")]
SLUGS = ["polar-bear", "camel", "penguin", "lion", "elephant", "giraffe", "zebra", "kangaroo", "koala", "panda",
         "tiger", "monkey", "owl", "fox", "wolf", "frog", "crocodile", "dolphin", "whale", "octopus"]


def kitgen(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(main, list(args))
    return done.exit_code, done.output


def new_and_build(tmp_path: Path, sheet: Path, *options: str, activity: str = "x") -> tuple[str, list[str], str]:
    """`kitgen new ACTIVITY --from SHEET OPTIONS`, then `kitgen build ACTIVITY`: the YAML written, the cards' ids as
    the build reads them, and the text of the cards PDF (both commands must succeed)."""
    content = tmp_path / "library" / "content"
    code, said = kitgen("new", activity, "--from", str(sheet), *options, "--content", str(content))
    assert code == 0, said
    out = tmp_path / "printed"
    code, said = kitgen("build", activity, "--content", str(content), "--out", str(out))
    assert code == 0, said
    yaml = (content / activity / "activity.yaml").read_text(encoding="utf-8")
    ids = [card.id for card in load_activity(content / activity / "activity.yaml").activity.decks[0].cards]
    return yaml, ids, plain_text(out / activity / f"{activity}-cards.pdf")


def printed(text: str, name: str) -> int:
    """How many cards print `name` (a name on two lines counts too)."""
    return len(re.findall(r"\b" + r"\s+".join(map(re.escape, name.split())) + r"\b", text))


def test_a_csv_saved_by_a_spreadsheet_program_builds_one_card_per_row_with_ids_from_its_names(tmp_path: Path):
    rows = ["Animal,Habitat,Picture"] + [f'{name},"{habitat}",{picture}' if "," in habitat else
                                         f"{name},{habitat},{picture}" for name, habitat, picture in ANIMALS]
    sheet = tmp_path / "animals.csv"
    sheet.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(rows).encode("utf-8") + b"\r\n")  # "CSV UTF-8" as Excel saves it
    yaml, ids, text = new_and_build(tmp_path, sheet)
    assert "        Animal: name " in yaml and "# 'Animal' → name (row 2: 'Polar bear')" in yaml
    assert "        Picture: picture " in yaml and "# 'Picture' → picture, a picture by name" in yaml
    assert "      data: [Habitat] " in yaml and "      ids: name " in yaml
    assert ids == SLUGS
    for name, _, _ in ANIMALS:
        assert printed(text, name) == 1, name
    _, again, _ = new_and_build(tmp_path / "again", sheet, activity="y")
    assert again == ids  # the same sheet, the same ids


def test_an_xlsx_sheet_with_a_title_row_in_german_builds_and_a_repeated_name_gets_its_own_id(tmp_path: Path):
    animals = ANIMALS[:11] + [("Penguin", "Ice, snow", "penguin")] + ANIMALS[11:19]  # 20 rows, Penguin twice
    rows: list[list] = [["Tiere der Welt", None, None, None], ["Tier", "Lebensraum", "Bild", "Anzahl"]]
    rows += [[name, habitat, picture, 2 if name == "Camel" else 1] for name, habitat, picture in animals]
    sheet = tmp_path / "tiere.xlsx"
    write_xlsx(sheet, {"Notes": [["These are the animals for class 3b."], ["Print on card."]], "Animals": rows},
               merged={"Animals": ["A1:D1"]})
    yaml, ids, text = new_and_build(tmp_path, sheet, "--sheet", "Animals")
    assert "      sheet: Animals\n      header_row: 2 " in yaml
    assert "# row 1 holds a title ('Tiere der Welt'), not read" in yaml
    assert "        Tier: name " in yaml and "        Bild: picture " in yaml and "        Anzahl: count " in yaml
    data = next(line for line in yaml.splitlines() if line.startswith("      data: "))
    assert data.startswith("      data: [Lebensraum] ") and "Tiere der Welt" not in data
    assert ids == SLUGS[:11] + ["penguin-2"] + SLUGS[11:19]
    assert printed(text, "Penguin") == 2 and printed(text, "Camel") == 2 and printed(text, "Tiere der Welt") == 0
    for name, _, _ in animals:
        if name not in ("Penguin", "Camel"):
            assert printed(text, name) == 1, name
    _, again, _ = new_and_build(tmp_path / "again", sheet, "--sheet", "Animals", activity="y")
    assert again == ids
    # the title row is not read, and a problem in the sheet is still named by its own cell
    rows[6][3] = "six"  # row 7, column D
    content = tmp_path / "library" / "content"
    write_xlsx(content / "x" / "tiere.xlsx", {"Notes": [["notes"]], "Animals": rows}, merged={"Animals": ["A1:D1"]})
    code, said = kitgen("build", "x", "--content", str(content), "--out", str(tmp_path / "printed"))
    assert code == 2 and "Traceback" not in said
    assert "tiere.xlsx, sheet Animals, D7 (column 'Anzahl'): expected a positive integer, got 'six'" in said


def test_an_ods_in_french_with_an_unheaded_column_and_an_empty_row_builds(tmp_path: Path):
    rows: list[list] = [["Les animaux", None, None, None, None], ["Nom", "Habitat", "Dessin", None, None]]
    for number, (name, habitat, picture) in enumerate(ANIMALS):
        rows.append([name, habitat, picture, "à revoir" if number == 3 else None, None])
        if number == 9:
            rows.append([None, None, None, None, None])  # row 13: empty
    sheet = tmp_path / "animaux.ods"
    write_ods(sheet, {"Animaux": rows}, spans={"Animaux": {(0, 0): 5}})
    yaml, ids, text = new_and_build(tmp_path, sheet)
    assert "      sheet: Animaux\n      header_row: 2 " in yaml
    assert "        Nom: name " in yaml and "        Dessin: picture " in yaml
    assert "      ignore: [D] " in yaml and "# column D has values but no heading: not read" in yaml
    assert "# empty row 13: skipped, no card" in yaml
    assert ids == SLUGS
    for name, _, _ in ANIMALS:
        assert printed(text, name) == 1, name
    assert "revoir" not in text


def test_headings_in_kitgens_languages_map_by_what_their_values_are(tmp_path: Path):
    """Dutch and Romanian headings, accents and case ignored; `Image` of picture names is a picture, `Foto` of
    files beside the sheet an image (copied along), `Emoji` of words that name no picture data; a `Nombre` of
    words (Spanish) is the name; a column of ids that repeat cannot be the ids."""
    Image.new("RGB", (40, 40), (200, 30, 30)).save(tmp_path / "vos.png")
    sheet = tmp_path / "dieren.csv"
    sheet.write_text("NAAM,Aantal,Image,Emoji,Număr\nVos,2,fox,🦊,1\nUil,1,owl,a wise bird,1\n", encoding="utf-8")
    yaml, ids, text = new_and_build(tmp_path, sheet)
    assert "        NAAM: name " in yaml and "        Aantal: count " in yaml and "        Image: picture " in yaml
    assert "      data: [Emoji, Număr] " in yaml and "#   D Emoji: data, {{ Emoji }} in a card's texts (kept as data: row 3: no picture named 'a wise bird'" in yaml
    assert ids == ["vos", "uil"] and printed(text, "Vos") == 2 and printed(text, "Uil") == 1
    files = tmp_path / "files" / "kaart.csv"
    files.parent.mkdir()
    Image.new("RGB", (40, 40), (200, 30, 30)).save(files.parent / "vos.png")
    files.write_text("Naam,Foto\nVos,vos.png\nUil,\n", encoding="utf-8")
    yaml, ids, _ = new_and_build(tmp_path / "files", files)
    assert "        Foto: image " in yaml and "# 'Foto' → image, a picture file" in yaml
    assert (tmp_path / "files" / "library" / "content" / "x" / "vos.png").is_file()
    spanish = tmp_path / "es" / "animales.csv"
    spanish.parent.mkdir()
    spanish.write_text("id,Nombre,Cuvânt\nzorro,Zorro,Vulpe\nzorro,Búho,Bufniță\n", encoding="utf-8")
    yaml, ids, text = new_and_build(tmp_path / "es", spanish)
    assert "        Nombre: name " in yaml and "        id: data.id " in yaml and "      ids: name " in yaml
    assert "the id 'zorro' is in rows 2 and 3" in yaml
    assert ids == ["zorro", "buho"] and printed(text, "Búho") == 1


def test_a_sheet_without_names_gets_row_ids(tmp_path: Path):
    sheet = tmp_path / "facts.csv"
    sheet.write_text("Habitat,Notes\nSea,wet\n,\nDesert,dry\nSea,again\n", encoding="utf-8")
    yaml, ids, _ = new_and_build(tmp_path, sheet)
    assert "      ids: row " in yaml and "      data: [Habitat, Notes] " in yaml
    assert ids == ["row-1", "row-2", "row-3"]


def test_an_unknown_sheet_is_refused_with_the_sheets_and_a_suggestion(tmp_path: Path):
    sheet = tmp_path / "tiere.xlsx"
    write_xlsx(sheet, {"Notes": [["notes"]], "Animals": [["name"], ["Fox"]]})
    content = tmp_path / "content"
    code, said = kitgen("new", "x", "--from", str(sheet), "--sheet", "Animls", "--content", str(content))
    assert code == 2 and "Traceback" not in said
    assert f"{sheet} has no sheet 'Animls'; did you mean 'Animals'? its sheets: Notes, Animals" in said
    code, said = kitgen("new", "x", "--from", str(sheet), "--sheet", "Zebras", "--content", str(content))
    assert code == 2 and f"{sheet} has no sheet 'Zebras'; its sheets: Notes, Animals" in said
    assert not (content / "x").exists()


def test_header_row_ids_and_ignore_are_checked_where_they_are_written(tmp_path: Path):
    """The deck options `new` writes, written by hand wrongly: each problem at its key in the YAML."""
    from kitgen.app.build import check
    from kitgen.core.errors import ContentError
    from kitgen.load.library import Library

    from conftest import small_activity

    folder = tmp_path / "content" / "a"
    folder.mkdir(parents=True)
    (folder / "animals.csv").write_text("Animals\n\nid,name\nfox,Fox\n", encoding="utf-8")
    reference = "{file: animals.csv, header_row: 2, ignore: [Zoo], ids: name}"
    (folder / "activity.yaml").write_text(small_activity("a", "A", "Sort.", reference), encoding="utf-8")
    try:
        check("a", Library(tmp_path / "content"))
    except ContentError as error:
        said = str(error)
    else:
        raise AssertionError("the build should stop")
    assert ("decks[0].cards.header_row: row 2 of content/a/animals.csv is empty, expected the row that holds the "
            "headings") in said.replace(str(tmp_path) + "/", "")
    (folder / "activity.yaml").write_text(small_activity("a", "A", "Sort.", reference.replace("2", "3")),
                                          encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        check("a", Library(tmp_path / "content"))
    said = str(caught.value)
    assert "decks[0].cards.ignore[0]: no column 'Zoo' in" in said
    assert "decks[0].cards.ids: the cards' ids are given by a column, expected either that or ids: name" in said
    line = small_activity("a", "A", "Sort.", reference).splitlines().index(f"    cards: {reference}") + 1
    assert f"activity.yaml:{line}:" in said

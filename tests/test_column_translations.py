"""A spreadsheet deck translated by columns: `name_fr` and `text_fr` beside `name` and `text` give the French
edition its card texts, cell by cell, without a second spreadsheet.

Each test writes a small library (an activity folder with its CSV and a French edition file holding only
`language: fr`), builds or checks it, and reads what came out: the cards PDFs' text, the manifests, the errors.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kitgen.app.build import build_all_editions, BuildOptions, check
from kitgen.core.errors import ContentError
from kitgen.core.notes import NoteKind
from kitgen.load import load_activity
from kitgen.load.library import Library

from conftest import plain_text

ACTIVITY = """id: animals
title: Animal sort
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
    cards: {file: animals.csv, data: [habitat], card: {caption: "Lives in: {{ habitat }}"}}
"""
HEADINGS = "id,name,name_fr,text,text_fr,habitat,habitat_fr"
ROWS = ["cat,Cat,Chat,It purrs by the fire.,Il ronronne près du feu.,house,maison",
        "fish,Fish,Poisson,It swims all day.,Il nage toute la journée.,sea,mer",
        "owl,Owl,Hibou,It hoots at night.,,wood,bois",  # no French text: the English one is printed
        "frog,Frog,Grenouille,It jumps in the pond.,Elle saute dans la mare.,pond,étang"]
FRENCH = ["Chat", "Poisson", "Hibou", "Grenouille", "Il ronronne près du feu.", "Il nage toute la journée.",
          "Elle saute dans la mare."]
ENGLISH = ["Cat", "Fish", "Owl", "Frog", "It purrs by the fire.", "It swims all day.", "It hoots at night.",
           "It jumps in the pond."]


def library(tmp_path: Path, headings: str = HEADINGS) -> Path:
    content = tmp_path / "content"
    folder = content / "animals"
    folder.mkdir(parents=True)
    (folder / "activity.yaml").write_text(ACTIVITY, encoding="utf-8")
    (folder / "activity.fr.yaml").write_text("language: fr\n", encoding="utf-8")
    (folder / "animals.csv").write_text("\n".join([headings, *ROWS]) + "\n", encoding="utf-8")
    return content


def cards_text(result) -> str:
    path = next(f.path for f in result.files if f.path.name.endswith(".pdf") and f.role == "cards")
    return " ".join(plain_text(path).split())


def test_the_french_edition_takes_its_cards_from_the_fr_columns_and_the_english_one_has_no_french(tmp_path: Path):
    results = build_all_editions("animals", BuildOptions(out_dir=tmp_path / "out"), Library(library(tmp_path)))
    by_language = {result.language: result for result in results}
    assert sorted(by_language) == ["en", "fr"]
    french, english = cards_text(by_language["fr"]), cards_text(by_language["en"])
    for text in FRENCH:
        assert text in french, text
    assert "It hoots at night." in french  # the empty text_fr cell: the English text
    for text in ("It purrs by the fire.", "It swims all day.", "It jumps in the pond."):
        assert text not in french
    for english_word, french_word in (("house", "maison"), ("wood", "bois"), ("pond", "étang")):  # habitat_fr
        assert f"Lives in: {french_word}" in french and f"Lives in: {english_word}" in english
        assert english_word not in french and french_word not in english
    for text in ENGLISH:
        assert text in english, text
    for text in FRENCH:
        assert text not in english, text
    notes = [note for note in by_language["fr"].quality if note.kind is NoteKind.UNTRANSLATED_CELL]
    assert len(notes) == 1 and "animals.csv:4:5 (column 'text_fr')" in str(notes[0]), notes
    assert not [note for note in by_language["en"].quality if note.kind is NoteKind.UNTRANSLATED_CELL]


def test_the_cards_keep_their_ids_and_order_in_every_edition(tmp_path: Path):
    content = library(tmp_path)
    path = content / "animals" / "activity.yaml"
    ids = {language: [card.id for card in load_activity(path, language).activity.decks[0].cards]
           for language in ("en", "fr")}
    assert ids["en"] == ids["fr"] == ["cat", "fish", "owl", "frog"]
    results = build_all_editions("animals", BuildOptions(out_dir=tmp_path / "out"), Library(content))
    for result in results:  # the cards print in the same order
        text = cards_text(result)
        names = ENGLISH[:4] if result.language == "en" else FRENCH[:4]
        assert [text.index(name) for name in names] == sorted(text.index(name) for name in names), text


def test_ids_made_from_the_names_are_those_of_the_base_names(tmp_path: Path):
    content = library(tmp_path, HEADINGS.removeprefix("id,"))
    (content / "animals" / "animals.csv").write_text(
        "\n".join([HEADINGS.removeprefix("id,"), *(row.split(",", 1)[1] for row in ROWS)]) + "\n", encoding="utf-8")
    path = content / "animals" / "activity.yaml"
    ids = {language: [card.id for card in load_activity(path, language).activity.decks[0].cards]
           for language in ("en", "fr")}
    assert ids["fr"] == ids["en"] == ["Cat", "Fish", "Owl", "Frog"]
    assert [card.name for card in load_activity(path, "fr").activity.decks[0].cards] == FRENCH[:4]


@pytest.mark.parametrize("heading, message", [
    ("nmae_fr", "the column 'nmae_fr' translates 'nmae', which is no card field or data column; "
                "did you mean 'name_fr'?"),
    ("name_fe", "the column 'name_fe' is for the language 'fe', which has no catalog; did you mean 'name_fr'?"),
    ("id_fr", "the column 'id_fr' translates the id, which stays the same in every edition"),
])
def test_a_wrong_translation_heading_is_an_error_at_its_cell(tmp_path: Path, heading: str, message: str):
    content = library(tmp_path, HEADINGS.replace("name_fr", heading))
    at = f"{content / 'animals' / 'animals.csv'}:1:3 (column {heading!r}): "
    for language in ("en", "fr"):  # in the base edition too
        with pytest.raises(ContentError) as caught:
            check("animals", Library(content), language=language)
        lines = str(caught.value).splitlines()
        assert any(line.startswith(at + message) for line in lines), lines

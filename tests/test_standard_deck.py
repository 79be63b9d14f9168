"""The standard playing-card deck (`generate: {standard: 52}`): its ranks and suits follow the edition's language.

The tests write a small library into a temporary folder, build it and read the card faces of the PDF
(each card side's own text, as tests/test_library.py reads them).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kitgen.app.build import build
from kitgen.core.errors import ContentError
from kitgen.load.library import Library
from kitgen.load.loader import load_activity
from kitgen.plan.options import BuildOptions
from test_library import card_pages

ACTIVITY = """id: deck
title: Deck
purpose: Play with an ordinary deck.
category: Cards
players: 2
minutes: 10
rules:
  prepare: Shuffle.
  play: Play.
decks:
  - id: standard
    name: Standard deck
    back: {title: Deck}
    generate:
      standard: 52
      card:
        footer: "no. {{ order }} {{ color }}"
"""


def library(tmp_path: Path, activity: str = ACTIVITY, **editions: str) -> Path:
    folder = tmp_path / "content" / "deck"
    folder.mkdir(parents=True)
    (folder / "activity.yaml").write_text(activity, encoding="utf-8")
    for language, text in editions.items():
        (folder / f"activity.{language}.yaml").write_text(text, encoding="utf-8")
    return tmp_path / "content"


def faces(tmp_path: Path, language: str | None = None, **editions: str) -> list[str]:
    """The text of every card face of the built card file (the back left out)."""
    result = build("deck", BuildOptions(out_dir=tmp_path / "out"), Library(library(tmp_path, **editions)), language)
    cards = next(f.path for f in result.files if f.role == "cards")
    texts = {side.text for sides in card_pages(cards).pages for side in sides}
    return sorted(text for text in texts if "no." in text)


def face(texts: list[str], title: str) -> list[str]:
    """The words of the one face whose text names the card `title` ("Roi de pique")."""
    found = [text for text in texts if title in text]
    assert len(found) == 1, (title, found)
    return found[0].split()


def test_the_deck_has_52_distinct_cards_with_their_data(tmp_path: Path):
    deck = load_activity(library(tmp_path) / "deck" / "activity.yaml").activity.decks[0]
    assert len(deck.cards) == 52 == len({card.id for card in deck.cards}) == deck.total
    assert deck.cards[0].id == "A♠" and deck.cards[12].id == "K♠" and deck.cards[-1].id == "K♣"
    king = deck.cards[12].data
    assert (king["rank"], king["order"], king["suit"], king["color"], king["face"]) == ("K", 13, "spades",
                                                                                         "black", True)
    assert sorted(card.data["order"] for card in deck.cards) == sorted(list(range(1, 14)) * 4)
    assert {card.data["color"] for card in deck.cards if card.data["suit"] in ("hearts", "diamonds")} == {"red"}


def test_a_32_card_deck_runs_from_7_to_ace(tmp_path: Path):
    deck = load_activity(library(tmp_path, ACTIVITY.replace("standard: 52", "standard: 32"))
                         / "deck" / "activity.yaml").activity.decks[0]
    assert len(deck.cards) == 32 and {card.data["rank"] for card in deck.cards} == {"A", "7", "8", "9", "10",
                                                                                   "J", "Q", "K"}


def test_a_french_edition_prints_french_ranks_and_suits(tmp_path: Path):
    texts = faces(tmp_path, "fr", fr="title: Paquet\n")
    assert len(texts) == 52
    assert face(texts, "Roi de pique")[0] == "R"
    assert face(texts, "Dame de cœur")[0] == "D"
    assert face(texts, "Valet de carreau")[0] == "V"
    assert face(texts, "As de trèfle")[0] == "A"
    assert not any(word in text.split() for text in texts for word in ("K", "Q", "J", "King", "spades"))
    # the card's placeholders use its data: `{{ order }}` and `{{ color }}` in the footer
    assert "no. 13 black" in " ".join(face(texts, "Roi de pique"))


def test_the_english_deck_prints_k_q_j(tmp_path: Path):
    texts = faces(tmp_path)
    assert face(texts, "King of spades")[0] == "K"
    assert face(texts, "Queen of hearts")[0] == "Q"
    assert face(texts, "Jack of diamonds")[0] == "J"
    assert "no. 12 red" in " ".join(face(texts, "Queen of hearts"))


def test_a_german_edition_takes_the_catalogs_words(tmp_path: Path):
    edition = "title: Karten\n"
    deck = load_activity(library(tmp_path, de=edition) / "deck" / "activity.yaml", "de").activity.decks[0]
    assert [card.id for card in deck.cards[10:13]] == ["B♠", "D♠", "K♠"]
    assert deck.cards[13].data["suit"] == "Herz" and deck.cards[0].data["title"] == "Pik-Ass"


def test_an_override_in_the_content_wins_over_the_catalog(tmp_path: Path):
    edition = ("title: Paquet\ndecks:\n  - generate:\n      ranks: {K: {rank: Ro, rank_name: Roy}, J: Va}\n"
               "      suits: {spades: piques}\n")
    texts = faces(tmp_path, "fr", fr=edition)
    assert face(texts, "Roy de piques")[0] == "Ro"
    assert face(texts, "Valet de cœur")[0] == "Va"
    assert face(texts, "Dame de piques")[0] == "D"  # what is not overridden still comes from the catalog


def test_standard_and_product_are_not_both_given(tmp_path: Path):
    both = ACTIVITY.replace("standard: 52", "standard: 52\n      product: {n: [1, 2]}")
    with pytest.raises(ContentError, match="either product or standard"):
        load_activity(library(tmp_path, both) / "deck" / "activity.yaml")

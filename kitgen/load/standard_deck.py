"""The standard playing-card deck (`generate: {standard: 52}`), in the edition's language.

Rank letters, rank names and suit names come from the gettext catalogs (context "card rank",
"card rank name", "card suit"), so a French edition prints R, D, V and "pique" without the author
spelling them out. The content can still override any word (`ranks:` and `suits:` of `generate`).
"""
from __future__ import annotations

import gettext
from pathlib import Path
from typing import Any, Callable, Literal, Mapping

Suit = Literal["spades", "hearts", "diamonds", "clubs"]
Rank = Literal["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS: tuple[Suit, ...] = ("spades", "hearts", "diamonds", "clubs")  # the keys of `suits:`, in the deck's order
SYMBOLS = {"spades": "♠", "hearts": "♥", "diamonds": "♦", "clubs": "♣"}
COLORS = {"spades": "black", "hearts": "red", "diamonds": "red", "clubs": "black"}
RANKS: tuple[Rank, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")  # `ranks:`; 1..13
SIZES: dict[int, tuple[Rank, ...]] = {52: RANKS, 32: ("A", "7", "8", "9", "10", "J", "Q", "K")}  # 32: piquet
FACES = ("J", "Q", "K")

# The card every standard card is made from, unless `card:` says otherwise (its fields win).
DEFAULT_CARD = {
    "id": "{{ rank }}{{ symbol }}",
    "value": "{{ rank }}",
    "symbol": "{{ symbol }}",
    "color": "{{ color }}",
    "caption": "{{ title }}",
}


def _words(pgettext: Callable[[str, str], str]) -> tuple[dict[str, str], dict[str, str], dict[str, str], str]:
    """Rank letters, rank names, suit names and the "King of spades" pattern, in the catalog's language."""
    letters = {
        "A": pgettext("card rank", "A"),
        "J": pgettext("card rank", "J"),
        "Q": pgettext("card rank", "Q"),
        "K": pgettext("card rank", "K"),
    }
    names = {
        "A": pgettext("card rank name", "Ace"),
        "2": pgettext("card rank name", "Two"),
        "3": pgettext("card rank name", "Three"),
        "4": pgettext("card rank name", "Four"),
        "5": pgettext("card rank name", "Five"),
        "6": pgettext("card rank name", "Six"),
        "7": pgettext("card rank name", "Seven"),
        "8": pgettext("card rank name", "Eight"),
        "9": pgettext("card rank name", "Nine"),
        "10": pgettext("card rank name", "Ten"),
        "J": pgettext("card rank name", "Jack"),
        "Q": pgettext("card rank name", "Queen"),
        "K": pgettext("card rank name", "King"),
    }
    suits = {
        "spades": pgettext("card suit", "spades"),
        "hearts": pgettext("card suit", "hearts"),
        "diamonds": pgettext("card suit", "diamonds"),
        "clubs": pgettext("card suit", "clubs"),
    }
    # TRANSLATORS: a playing card's full name, e.g. "King of spades"; keep %(rank)s and %(suit)s
    title = pgettext("playing card", "%(rank)s of %(suit)s")
    return letters, names, suits, title


def catalog(language: str, folders: tuple[Path, ...] = ()) -> gettext.NullTranslations:
    """The edition's catalogs; English (the message ids) for a language without one (the build reports that)."""
    from kitgen.core.errors import UsageError
    from kitgen.locale import translations

    try:
        return translations(language, folders)
    except UsageError:
        return gettext.NullTranslations()


def _override(value: Any, word: str) -> dict[str, Any]:
    """`J: B` (a text) sets the rank letter or suit name; a mapping sets any of the card's data."""
    return dict(value) if isinstance(value, dict) else {word: value}


def standard_data(size: int, ranks: Mapping[Rank, Any], suits: Mapping[Suit, Any],
                  translations: gettext.NullTranslations) -> list[dict[str, Any]]:
    """Every card's data, suit by suit (A♠, 2♠ … K♠, A♥ …).

    A card's data: `rank` (A, 2 … 10, J, Q, K in the language), `rank_name`, `order` (A = 1 … K = 13),
    `face` (true for J, Q, K), `suit` (its name), `symbol` (♠ ♥ ♦ ♣), `color` (black or red) and
    `title` ("King of spades"). `ranks:` and `suits:` of the content override any of them.
    """
    letters, names, suit_names, title = _words(translations.pgettext)
    cards = []
    for suit in SUITS:
        suit_data = {"suit": suit_names[suit], "symbol": SYMBOLS[suit], "color": COLORS[suit],
                     **_override(suits.get(suit, {}), "suit")}
        for rank in SIZES[size]:
            data = {"rank": letters.get(rank, rank), "rank_name": names[rank], "order": RANKS.index(rank) + 1,
                    "face": rank in FACES, **suit_data, **_override(ranks.get(rank, {}), "rank")}
            data.setdefault("title", title % {"rank": data["rank_name"], "suit": data["suit"]})
            cards.append(data)
    return cards

"""Numbers typed into a player's text that repeat the content: a card's data, how many of a card its deck
holds, a deck's size. Each is a located quality note naming the placeholder that would print it instead."""
from __future__ import annotations

import re
from typing import Iterator

from kitgen.core.errors import Problem
from kitgen.core.notes import Note, NoteKind
from kitgen.load.model import Activity
from kitgen.load.source import dotted, Location, SourceMap


def _located(source: SourceMap, loc: Location, message: str) -> Problem:
    return source.problem(loc, f"{dotted(loc)}: {message}")


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\d)")
_PLACEHOLDER = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)
PLAYER_SECTIONS = ("rules", "player_aids", "record_sheets")  # the texts typed numbers are looked for in
NEARBY = 30  # characters after a card's name in which a number is taken to be about that card


def typed_numbers(activity: Activity, source: SourceMap) -> list[Note]:
    """A located note for each number typed into a player's text (rules, aids, record sheets) a little after
    a card's id that equals a number of that card's data: it repeats the card, so it should be a
    placeholder (`{{ cards.Worker.metal }}`), or it will contradict the card once the card changes."""
    numbers: dict[str, dict[float, str]] = {}
    for deck in activity.decks:
        for card in deck.cards:
            values = numbers.setdefault(card.id, {})
            for key, value in card.data.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    values.setdefault(float(value), key)
    ids = sorted((i for i, v in numbers.items() if v and len(i) > 1 and not i.isdigit()), key=len, reverse=True)
    if not ids:
        return _typed_counts(activity, source)
    named = re.compile(r"(?<!\w)(" + "|".join(re.escape(i) for i in ids) + r")(?!\w)")
    notes: list[Note] = _typed_counts(activity, source)
    for section in PLAYER_SECTIONS:
        for loc, text in content_strings_of(getattr(activity, section), (section,)):
            plain = _PLACEHOLDER.sub(lambda m: " " * len(m[0]), text)
            found = list(named.finditer(plain))
            for n, match in enumerate(found):
                end = min(match.end() + NEARBY, found[n + 1].start() if n + 1 < len(found) else len(plain))
                for number in _NUMBER.finditer(plain, match.end(), end):
                    repeated = numbers[match[1]].get(float(number[0]))
                    if repeated is not None and _about(repeated, plain[max(match.end(), number.start() - 12):
                                                                       number.start()], plain[number.end():]):
                        notes.append(Note(NoteKind.TYPED_NUMBER, str(_located(
                            source, loc, f"{number[0]!r} after {match[1]!r} repeats the card's data ({repeated}: "
                            f"{number[0]}); print it with {{{{ {_reference(match[1])}.{repeated} }}}} so it follows "
                            "the card")), figures=(("value", float(number[0])),)))
    return notes


_BEFORE = re.compile(r"(?<![\w.])(\d+)\s+$")
_CARDS = re.compile(r"(?<![\w.])(\d+)(?:\s+|-)(?:\w+\s+)?cards?\b")


def _typed_counts(activity: Activity, source: SourceMap) -> list[Note]:
    """Notes for counts typed into a player's text: a number just before a card's id that is how many of that
    card its deck holds (`12 C2`: `{{ count.C2 }}`), and a number of cards that is a deck's or the kit's
    number of cards (`40 cards`: `{{ total }}`)."""
    counts = {card.id: card.count for deck in reversed(activity.decks) for card in deck.cards}
    ids = sorted((i for i, n in counts.items() if n > 1 and len(i) > 1 and not i.isdigit()), key=len, reverse=True)
    named = re.compile(r"(?<!\w)(" + "|".join(re.escape(i) for i in ids) + r")(?!\w)") if ids else None
    totals = {deck.total: (f"decks[{deck.id!r}]", deck) for deck in reversed(activity.decks)}
    kit = sum(deck.total for deck in activity.decks if not deck.optional)
    notes = []
    for section in PLAYER_SECTIONS:
        for loc, text in content_strings_of(getattr(activity, section), (section,)):
            plain = _PLACEHOLDER.sub(lambda m: " " * len(m[0]), text)
            for match in named.finditer(plain) if named else ():
                before = _BEFORE.search(plain, max(0, match.start() - 8), match.start())
                if before and counts[match[1]] == int(before[1]):
                    notes.append(Note(NoteKind.TYPED_NUMBER, str(_located(
                        source, loc, f"{before[1]!r} before {match[1]!r} repeats how many its deck holds; print it "
                        f"with {{{{ {_reference(match[1]).replace('cards', 'count', 1)} }}}} so it follows the deck")),
                        figures=(("value", float(before[1])),)))
            for number in _CARDS.finditer(plain):
                n, name = int(number[1]), ""
                if n == kit and n > 1:
                    name, what = "total", "the kit"
                elif n in totals and n > 1:  # a deck's size, said of that deck (`10 event cards`, `52-card deck`)
                    near = plain[max(0, number.start() - 20):number.end() + 20].lower()
                    deck = totals[n][1]
                    if any(word[:4] in near for word in re.split(r"\W+", f"{deck.id} {deck.name}".lower())
                           if len(word) > 3 and word[:4] not in ("card", "deck")):
                        name, what = totals[n][0], f"deck {deck.id!r}"
                if name:
                    notes.append(Note(NoteKind.TYPED_NUMBER, str(_located(
                        source, loc, f"{number[0]!r} repeats the number of cards of {what}; print it with "
                        f"{{{{ {name} }}}} so it follows the decks")), figures=(("value", float(number[1])),)))
    return notes


_WORDS = {"price": ("price", "cost"), "cost": ("price", "cost")}


def _about(field_name: str, before: str, after: str) -> bool:
    """Whether a number is said of a card's field: `2 metal`, `1 Worker` (field workers), `costs 3`."""
    words = _WORDS.get(field_name.lower(), (field_name.lower().rstrip("s"),))
    following = re.match(r"\s*(\w+)", after)
    if following and following[1].lower().rstrip("s") in words:
        return True
    return any(word in before.lower() for word in words)


def _reference(card_id: str) -> str:
    return f"cards.{card_id}" if re.fullmatch(r"[A-Za-z_]\w*", card_id) else f"cards[{card_id!r}]"


def content_strings_of(value: object, loc: Location) -> Iterator[tuple[Location, str]]:
    """Every text of a part of the content (a model, or a list of them), with its place."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from content_strings_of(item, loc + (index,))
    elif hasattr(value, "model_dump"):
        yield from value_strings(value.model_dump(exclude_defaults=True), loc)
    elif isinstance(value, str):
        yield loc, value


def value_strings(value: object, loc: Location) -> Iterator[tuple[Location, str]]:
    if isinstance(value, str):
        yield loc, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from value_strings(item, loc + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from value_strings(item, loc + (index,))

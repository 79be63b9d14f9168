"""Content checks that go beyond the schema: references exist, host-key arithmetic follows from card data."""
from __future__ import annotations

from dataclasses import dataclass

import jinja2

from kitgen.errors import ContentError, Problem
from kitgen.load import LoadedActivity
from kitgen.load.model import Activity, CardKind, HandExample
from kitgen.render.markup import expand

CARD_TEXT_FIELDS = ("name", "symbol", "value", "caption", "text", "footer")


@dataclass(frozen=True)
class HandResult:
    """A worked hand computed from the card data."""

    example: HandExample
    cards: list[CardKind]
    total: float
    bought: CardKind | None
    price: float | None

    @property
    def affordable(self) -> bool:
        return self.price is None or self.total >= self.price


def _number(card: CardKind, field: str) -> float | None:
    value = card.data.get(field)
    return value if isinstance(value, (int, float)) else None


def evaluate_hand(activity: Activity, example: HandExample) -> tuple[HandResult | None, list[tuple[tuple, str]]]:
    """The hand's total and purchase, or the problems (relative location, message) that prevent it."""
    problems: list[tuple[tuple, str]] = []
    cards: list[CardKind] = []
    for index, card_id in enumerate(example.hand):
        card = activity.card(card_id)
        if card is None:
            problems.append((("hand", index), f"no card {card_id!r} in any deck"))
        elif _number(card, example.sum) is None:
            problems.append((("hand", index), f"card {card_id!r} has no number {example.sum!r} in its data"))
        else:
            cards.append(card)
    bought = activity.card(example.buys) if example.buys else None
    price = None
    if example.buys and bought is None:
        problems.append((("buys",), f"no card {example.buys!r} in any deck"))
    elif bought is not None:
        price = _number(bought, example.price)
        if price is None:
            problems.append((("buys",), f"card {example.buys!r} has no number {example.price!r} in its data"))
    if problems:
        return None, problems
    total = sum(_number(card, example.sum) or 0 for card in cards)
    result = HandResult(example, cards, total, bought, price)
    if not result.affordable:
        problems.append((("buys",), f"the hand makes {total:g} {example.unit} but {example.buys} costs "
                                    f"{price:g}, expected an affordable purchase"))
    return result, problems


def card_texts(card: CardKind) -> dict[str, str]:
    """The card's printed texts with `{{ field }}` placeholders filled from its data."""
    texts = {}
    for field in CARD_TEXT_FIELDS:
        value = getattr(card, field)
        if value is not None:
            texts[field] = expand(value, card.data)
    return texts


def check_activity(loaded: LoadedActivity) -> None:
    """Every content problem at once, located; raises ContentError when there is any."""
    activity, source = loaded.activity, loaded.source
    problems: list[Problem] = []
    for d, deck in enumerate(activity.decks):
        for c, card in enumerate(deck.cards):
            for field in CARD_TEXT_FIELDS:
                value = getattr(card, field)
                if value is None:
                    continue
                try:
                    expand(value, card.data)
                except jinja2.TemplateError as error:
                    loc = ("decks", d, "cards", c, field)
                    problems.append(source.problem(loc, f"decks[{d}].cards[{c}].{field}: {error}; expected "
                                                        "'{{ name }}' placeholders that name a key of the card's data"))
    for e, example in enumerate(activity.host_key.examples):
        _, found = evaluate_hand(activity, example)
        for relative, message in found:
            loc = ("host_key", "examples", e) + relative
            where = f"host_key.examples[{e}]." + ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in relative)
            problems.append(source.problem(loc, f"{where.replace('.[', '[')}: {message}"))
    if problems:
        raise ContentError(problems)

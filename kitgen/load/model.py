"""The content model: what an activity file may say, validated by pydantic."""
from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union

from pydantic import (BaseModel, BeforeValidator, ConfigDict, Field, PlainValidator, StringConstraints,
                      WithJsonSchema, field_validator, model_validator)
from pydantic_core import PydanticCustomError

from kitgen.units import parse_card_size

MAX_COUNT = 10_000

ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,62}$"


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_COUNT:
        if isinstance(value, int) and not isinstance(value, bool) and value > MAX_COUNT:
            raise PydanticCustomError("count", "expected a positive integer of at most {limit}, got {got}",
                                      {"limit": f"{MAX_COUNT:,}", "got": value})
        raise PydanticCustomError("count", "expected a positive integer, got {got}", {"got": repr(value)})
    return value


Count = Annotated[int, PlainValidator(_positive_int),
                  WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_COUNT})]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=5000)]
Id = Annotated[str, StringConstraints(pattern=ID_PATTERN)]


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


Paragraphs = Annotated[list[Text], BeforeValidator(_as_list)]


def _card_size(value: Any) -> str:
    try:
        parse_card_size(value)
    except ValueError as error:
        raise PydanticCustomError("card_size", str(error)) from None
    return str(value)


CardSizeSpec = Annotated[str, PlainValidator(_card_size),
                         WithJsonSchema({"type": "string", "examples": ["poker", "bridge", "mini", "tarot", "63x88mm"]})]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Players(Strict):
    """How many play one kit."""

    min: Count
    max: Count

    @model_validator(mode="before")
    @classmethod
    def _from_number(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return {"min": value, "max": value}
        return value

    @model_validator(mode="after")
    def _ordered(self) -> "Players":
        if self.min > self.max:
            raise PydanticCustomError("players", "expected min ≤ max, got min {min} and max {max}",
                                      {"min": self.min, "max": self.max})
        return self

    def __str__(self) -> str:
        return str(self.min) if self.min == self.max else f"{self.min}–{self.max}"


class Minutes(Strict):
    """How long one round takes, in minutes."""

    min: Count
    max: Count

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return {"min": value, "max": value}
        if isinstance(value, str):
            match = re.fullmatch(r"\s*(\d+)\s*(?:[-–]\s*(\d+))?\s*", value)
            if not match:
                raise PydanticCustomError("minutes", "expected minutes such as 20 or '20-25', got {got}",
                                          {"got": repr(value)})
            return {"min": int(match[1]), "max": int(match[2] or match[1])}
        return value

    def __str__(self) -> str:
        return str(self.min) if self.min == self.max else f"{self.min}–{self.max}"


class Rules(Strict):
    """The players' rules, one list of paragraphs per section; headings come from the locale."""

    prepare: Paragraphs
    play: Paragraphs
    example: Paragraphs = []
    finish: Paragraphs = []
    adaptation: Paragraphs = []
    about: Paragraphs = []
    free_alternative: Paragraphs = []


Scalar = Union[int, float, str]


class CardKind(Strict):
    """One kind of card in a deck: `count` identical copies. Text fields may use `{{ field }}` from `data`."""

    id: Name
    count: Count
    name: Name | None = None
    symbol: Name | None = None
    value: Name | None = None
    caption: Name | None = None
    text: Text | None = None
    footer: Name | None = None
    data: dict[str, Scalar] = {}

    @property
    def title(self) -> str:
        return self.name or self.id


class Back(Strict):
    """The design on the back of a deck's cards; decks that must be told apart need different backs."""

    title: Name
    subtitle: Name | None = None
    symbol: Name | None = None
    pattern: Literal["stripes", "dots", "grid", "diamonds", "plain"] = "stripes"


class Deck(Strict):
    id: Id
    name: Name
    back: Back
    cards: list[CardKind] = Field(min_length=1)
    note: Text | None = None

    @field_validator("cards")
    @classmethod
    def _unique_ids(cls, cards: list[CardKind]) -> list[CardKind]:
        seen: set[str] = set()
        for index, card in enumerate(cards):
            if card.id in seen:
                raise PydanticCustomError("duplicate", "card id {id!r} appears twice (cards[{index}]), "
                                          "expected each card id once per deck",
                                          {"id": card.id, "index": index})
            seen.add(card.id)
        return cards

    @property
    def total(self) -> int:
        return sum(card.count for card in self.cards)


class Column(Strict):
    heading: Name
    width: float = Field(default=1.0, gt=0, le=20)

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        return {"heading": value} if isinstance(value, str) else value


class RecordSheet(Strict):
    """A table the players fill in by hand: one numbered row per turn (or round)."""

    id: Id
    title: Name
    intro: Paragraphs = []
    columns: list[Column] = Field(min_length=1, max_length=12)
    rows: Count
    number_rows: bool = True
    per_player: bool = True


class HandExample(Strict):
    """A worked hand: the cards' `sum` field is added up; `buys` is checked against its `price` field."""

    title: Name | None = None
    hand: list[Name] = Field(min_length=1)
    sum: Name
    unit: Name
    buys: Name | None = None
    price: Name = "price"
    note: Text | None = None


class HostSection(Strict):
    title: Name
    paragraphs: Paragraphs = []
    items: list[Text] = []


class HostKey(Strict):
    """Material for the adult only; it is printed in its own file and checked never to leak."""

    intro: Paragraphs = []
    examples: list[HandExample] = []
    sections: list[HostSection] = []


class Activity(Strict):
    """One classroom activity: metadata, rules, decks, record sheets and the host key."""

    id: Id
    title: Name
    purpose: Text
    category: Name
    players: Players
    minutes: Minutes
    language: Annotated[str, StringConstraints(pattern=r"^[a-z]{2}$")] = "en"
    card_size: CardSizeSpec = "poker"
    rules: Rules
    decks: list[Deck] = []
    record_sheets: list[RecordSheet] = []
    host_key: HostKey = HostKey()

    @field_validator("decks")
    @classmethod
    def _unique_decks(cls, decks: list[Deck]) -> list[Deck]:
        ids = [deck.id for deck in decks]
        for index, deck_id in enumerate(ids):
            if deck_id in ids[:index]:
                raise PydanticCustomError("duplicate", "deck id {id!r} appears twice, expected unique deck ids",
                                          {"id": deck_id})
        return decks

    def card(self, card_id: str) -> CardKind | None:
        """The first card kind with this id in any deck."""
        for deck in self.decks:
            for card in deck.cards:
                if card.id == card_id:
                    return card
        return None

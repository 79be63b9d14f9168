"""The content model: what an activity file may say, validated by pydantic."""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import (AllowInfNan, BeforeValidator, Field, PrivateAttr, StringConstraints,
                      ValidationInfo, WithJsonSchema, field_validator, model_validator)
from pydantic_core import PydanticCustomError

from kitgen.core.choices import Duplex
from kitgen.core.choices import CutLines
from kitgen.core.errors import Hints
from kitgen.load.problems import first_error
from kitgen.load.standard_deck import Rank, Suit
from kitgen.load.table_schema import cards_schema, labels_schema
from kitgen.core.units import parse_length
from kitgen.load.ranges import Minutes, Players, RANGE_SCHEMA
from kitgen.load.strict import Illustrated, Strict
from kitgen.load.fields import (as_list, CardSizeSpec, Count, FontName, Id, Length, MAX_COUNT, MAX_HAND, MAX_MAT_SIDE,
                                MAX_PLACES, Name, Paragraphs, RESERVED_NAMES, Text, Url)


Scalar = Union[bool, int, Annotated[float, AllowInfNan(False)], str]  # no NaN or infinity: it would print "nan"
DataValue = Union[Scalar, dict[str, Scalar]]


Layout = Literal["text", "picture", "big-value", "word-picture", "pair"]
"""How a card face places its parts: text (the default), picture (a large picture), big-value (the value
large in the middle), word-picture (the name large above a picture), pair (picture and word, halves)."""
Fit = Literal["contain", "cover"]  # a picture whole inside its box, or filling it and cut at the edges


class Link(Strict):
    """A web address printed in the print guide with its QR code."""

    title: Name
    url: Url


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
    color: Name | None = None
    image: Name | None = None  # a PNG, JPEG or SVG file, relative to the activity's folder or the library's images/
    picture: Name | None = None  # a picture of the emoji set, by name (chipmunk) or as the emoji itself
    qr: Url | None = None  # a web address printed as a QR code on the face
    layout: Layout | None = None  # default: the deck's
    fit: Fit | None = None  # default: the deck's
    show_title: bool | None = None  # default: the deck's
    data: dict[str, DataValue] = {}

    @model_validator(mode="after")
    def _one_picture(self) -> "CardKind":
        if self.image and self.picture:
            raise PydanticCustomError("picture", "expected either image (a file) or picture (a name), not both")
        return self

    @property
    def title(self) -> str:
        return self.name or self.id


class Back(Strict):
    """The design on the back of a deck's cards; decks that must be told apart need different backs."""

    title: Name
    subtitle: Name | None = None
    symbol: Name | None = None
    pattern: Literal["stripes", "dots", "grid", "diamonds", "plain"] = "stripes"
    image: Name | None = None  # printed in the panel instead of the symbol
    picture: Name | None = None


class Generate(Strict):
    """A deck made of every combination of field values, e.g. 4 suits × 13 ranks = 52 cards.

    Each combination's values become the card's `data`; `card` is a card kind whose texts use them,
    e.g. `id: "{{ rank }}{{ suit.symbol }}"`.
    """

    product: dict[Name, Annotated[list[DataValue], Field(min_length=1, max_length=1000)]] | None = Field(
        default=None, min_length=1)
    # or a standard playing-card deck whose words follow the edition's language (load/standard_deck.py)
    standard: Literal[52, 32] | None = None
    ranks: dict[Rank, Name | dict[Name, Scalar]] = {}  # a standard deck's words, overridden: `J: B` or a mapping
    suits: dict[Suit, Name | dict[Name, Scalar]] = {}
    card: dict[Name, Any] = {}

    @model_validator(mode="after")
    def _size(self) -> "Generate":
        if (self.product is None) == (self.standard is None):
            raise PydanticCustomError("generate", "expected either product or standard, not both and not neither")
        if self.product is None:
            return self
        if not self.card:
            raise PydanticCustomError("generate", "expected a card (the pattern every card of the product follows)")
        if self.ranks or self.suits:
            raise PydanticCustomError("generate", "ranks and suits go with standard, not with product")
        size = 1
        for values in self.product.values():  # counted before any card is made
            size *= len(values)
            if size > MAX_COUNT:
                sizes = " × ".join(str(len(v)) for v in self.product.values())
                raise PydanticCustomError("generate", "the product makes {sizes} cards, expected at most {limit}",
                                          {"sizes": sizes, "limit": f"{MAX_COUNT:,}"})
        return self


class Deck(Strict):
    """A pile of cards with one back design. `optional` decks go to a file of their own."""

    id: Id
    name: Name
    back: Back
    cards: list[CardKind] = Field(default=[], json_schema_extra=cards_schema)  # or a spreadsheet (load/spreadsheets.py)
    generate: Generate | None = None
    optional: bool = False
    note: Text | None = None
    layout: Layout = "text"
    fit: Fit = "contain"
    show_title: bool = True

    @model_validator(mode="after")
    def _cards(self, info: ValidationInfo) -> "Deck":
        if self.generate is not None:
            if self.cards:
                raise PydanticCustomError("deck", "expected either cards or generate, not both")
            object.__setattr__(self, "cards", generated_cards(self.generate, info.context))
        if not self.cards:
            raise PydanticCustomError("deck", "expected at least one card (cards or generate)")
        seen: dict[str, int] = {}
        for index, card in enumerate(self.cards):
            if card.id in seen:  # located at the second card's id (its YAML line or spreadsheet cell)
                raise PydanticCustomError("duplicate", "card id '{id}' is also the id of cards[{first}], "
                                          "expected each card id once per deck",
                                          {"id": card.id, "index": index, "first": seen[card.id]})
            seen[card.id] = index
        if self.total > MAX_COUNT:
            raise PydanticCustomError("deck", "the deck has {n} cards, expected at most {limit}",
                                      {"n": f"{self.total:,}", "limit": f"{MAX_COUNT:,}"})
        return self

    @property
    def total(self) -> int:
        return sum(card.count for card in self.cards)


class Column(Strict):
    heading: Name
    width: float = Field(default=1.0, gt=0, le=20)
    fill: Name | None = None  # printed in every row, e.g. a box to tick

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        return {"heading": value} if isinstance(value, str) else value


class RecordSheet(Illustrated):
    """A table the players fill in by hand: one numbered row per turn (or round)."""

    id: Id
    title: Name
    intro: Paragraphs = []
    columns: list[Annotated[Column, WithJsonSchema({"anyOf": [
        {"type": "string"},
        {"type": "object", "properties": {"heading": {"type": "string"}, "width": {"type": "number"},
                                          "fill": {"type": "string"}},
         "required": ["heading"], "additionalProperties": False}]})]] = Field(min_length=1, max_length=12)
    rows: Count
    number_rows: bool = True
    total_row: bool = False
    per_player: bool = True


class HandExample(Strict):
    """A worked hand: the cards' `sum` field is added up; `buys` is checked against its `price` field."""

    title: Name | None = None
    hand: list[Name] = Field(min_length=1, max_length=MAX_HAND)
    sum: Name
    unit: Name
    buys: Name | None = None
    price: Name = "price"
    note: Text | None = None


class HostSection(Strict):
    title: Name
    paragraphs: Paragraphs = []
    items: list[Text] = []


Tally = Annotated[int, Field(strict=True, ge=0, le=MAX_COUNT)]
"""A count a holder has in a walkthrough's state: 0 or more."""

Amounts = Annotated[Union[dict[Name, Count], list[Name]], BeforeValidator(as_list),
                    WithJsonSchema({"anyOf": [
                        {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
                        {"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                        "description": "counts such as {metal: 2}, or card ids whose amounts come from their data"})]
"""What a walkthrough step changes: counts by name, or card ids whose numbers are read from their data."""


class Step(Strict):
    """One step of a walkthrough; the cards it names must exist. The changes (gain, pay, build, move) are
    replayed by the build against the walkthrough's state, in that order."""

    cards: list[Name] = []
    text: Text
    who: Name | None = None  # the holder the step acts on; default the previous step's, else the first in start
    gain: Amounts = {}  # counts added; card ids add their data through the walkthrough's `values`
    pay: Amounts = {}  # counts taken away; card ids take their cost through the walkthrough's `costs`
    # pay each card's cost, then hold the card: one id or a list of them
    build: Annotated[list[Name], BeforeValidator(as_list), WithJsonSchema(
        {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]})] = []
    move: Amounts = {}  # counts, or named cards (one each), taken from `who` and given to `to`
    to: Name | None = None
    # a card `who` holds, put face up on the place labelled `at` of the game's mat (game.places); `finds` is
    # the card lying there face down, which comes into `who`'s hand (a king found face up comes back by itself)
    place: Name | None = None
    at: Name | None = None
    finds: Name | None = None
    turn: Count | None = None  # the player's own turn number, for a move the game allows once in some turns

    @property
    def changes(self) -> bool:
        return bool(self.gain or self.pay or self.build or self.move or self.place)


class Walkthrough(Strict):
    """A worked sequence of moves, step by step; with a `start` state it is replayed and checked."""

    title: Name
    start: dict[Name, dict[Name, Tally]] = {}  # holder (a player, a pile) → counts by name
    costs: dict[Name, Name] = {}  # card data field → the count a payment takes it from (workers: Worker)
    values: dict[Name, Name] = {}  # card data field → the count a gain of that card adds to (coins: coins)
    plurals: dict[Name, Name] = {}  # a count's name when there is not exactly 1 (Worker: Workers)
    show: list[Name] = []  # holders printed after each step; default every holder, in the order met
    end: dict[Name, dict[Name, Tally]] = {}  # counts the last step must leave; shown as a sum
    face_up: dict[Name, Name] = {}  # places of the game's mat already face up at the start: label → card
    steps: list[Step] = Field(min_length=1)

    @property
    def replayed(self) -> bool:
        return bool(self.start or self.face_up) or any(step.changes for step in self.steps)


class Rules(Illustrated):
    """The players' rules, one list of paragraphs per section; headings come from the locale."""

    prepare: Paragraphs
    play: Paragraphs
    # a paragraph, or a worked example as a walkthrough: replayed like the host key's, its running state printed
    example: Annotated[list[Union[Text, Walkthrough]], BeforeValidator(as_list)] = []
    finish: Paragraphs = []
    adaptation: Paragraphs = []
    about: Paragraphs = []
    free_alternative: Paragraphs = []


class Places(Strict):
    """A mat's places for `place` steps: each lies face down until a card whose data field `fits` equals the
    place's label (or a wild card) is put there face up; the face-down card found there comes into the hand.
    A card that fits a face-down place may not be moved anywhere else; a number card may take a wild card's
    place, and the wild card comes back into the hand."""

    mat: Id
    fits: Name  # the card data field a place's label must equal (`rank.rank`: a 7 fits place 7)
    wild: list[Name] = []  # values of that field that fit any face-down place (`K`)
    holder: Name = "place"  # how a place is named in the printed state: `place 7`


class OnceIn(Strict):
    """A move from a holder to another (each named, or by the last word of its name: `hand`) that a player may
    make once in `turns` of their own turns: every such step gives its `turn`, and two of them are `turns` apart."""

    source: Name = Field(alias="from")
    to: Name
    turns: Count


class GameRules(Strict):
    """Rules of the game that every replayed walkthrough and worked example of the kit is held to."""

    # holder (or the last word of its name: `hand` for "Ana's hand") → the most it may hold, all counts together
    at_most: dict[Name, Count] = {}
    # holders (or their last word: `sets`) that receive named cards only as sets scored by host_key.scoring
    sets: list[Name] = []
    places: Places | None = None  # a mat whose places take the card that fits them (Trash's chain)
    once_in: list[OnceIn] = []  # moves a player may make only once in some of their own turns


class DataField(Strict):
    """A column of a card table: a `data` field of the cards, or a value computed from it (`{{ a * b }}`)."""

    field: Name | None = None
    value: Text | None = None  # placeholders filled from each card's data, as on the cards
    heading: Name

    @model_validator(mode="after")
    def _one_source(self) -> "DataField":
        if (self.field is None) == (self.value is None):
            raise PydanticCustomError("column", "expected either field (a data field of the cards) or value "
                                                "(computed from it, such as '{{ a * b }}')")
        return self


class Pairing(Strict):
    """The deck whose cards pair with a grouped table's rows: one card per card of the row, whose `field` (a
    data field, or a printed text such as value) is the row's value (each answer card and its questions)."""

    deck: Id
    field: Name


class CardTable(Strict):
    """A table of card data computed from the decks (e.g. each robot's cost), one row per card or, with
    `group_by`, one row per value of a field with the cards that have it (each habitat with its animals)."""

    title: Name
    deck: Id | None = None
    cards: list[Name] = []
    fields: list[DataField] = []
    total: Name | None = None  # heading of a column that adds up the numeric fields
    group_by: DataField | None = None  # one row per value, the cards that have it in the column `cards_heading`
    cards_heading: Name | None = None  # heading of the card column (default "Card", or the deck's name when grouped)
    places: list[Id] = []  # mats whose place labels are the only values group_by may take, in their order
    pairs_with: Pairing | None = None  # with group_by: the deck whose cards must match the rows one for one

    @model_validator(mode="after")
    def _rows(self) -> "CardTable":
        if bool(self.deck) == bool(self.cards):
            raise PydanticCustomError("table", "expected either deck (every card of a deck) or cards (named cards)")
        if not self.fields and self.group_by is None:
            raise PydanticCustomError("table", "expected at least one column in fields, or group_by")
        if self.group_by is not None and self.total:
            raise PydanticCustomError("table", "a table grouped by a field has no total column")
        if (self.places or self.pairs_with) and self.group_by is None:
            raise PydanticCustomError("table", "places and pairs_with need group_by")
        return self


class SetScoring(Strict):
    """How a set scores: `size` cards in consecutive `order`; a bonus when all share `bonus_same`
    or all have a true `bonus_all`."""

    order: Name
    size: Count = 3
    points: int = 1
    bonus_points: int = 2
    bonus_same: Name | None = None
    bonus_all: Name | None = None
    labels: dict[Literal["run", "same", "all"], Name] = {}  # how the host key names each kind of set


class SetExample(Strict):
    cards: list[Name] = Field(min_length=1)
    points: int | None = None  # when given, checked against the scoring rule
    note: Text | None = None


class HostKey(Strict):
    """Material for the adult only; it is printed in its own file and checked never to leak."""

    intro: Paragraphs = []
    examples: list[HandExample] = []
    walkthroughs: list[Walkthrough] = []
    card_tables: list[CardTable] = []
    scoring: SetScoring | None = None
    sets: list[SetExample] = []
    sections: list[HostSection] = []


class PositionGrid(Strict):
    """Labelled places for real cards, in rows and columns."""

    columns: Count
    rows: Count
    width: Length
    height: Length
    gap: Length = Field(default=parse_length("6mm"), json_schema_extra={"default": "6mm"})
    labels: list[Name] = Field(default=[], max_length=MAX_PLACES, json_schema_extra=labels_schema)
    # a picture in each place, in the order of the labels: an emoji-set name, or a PNG, JPEG or SVG file
    pictures: list[Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]] = Field(
        default=[], max_length=MAX_PLACES)
    qr: list[Url | Literal[""]] = Field(default=[], max_length=MAX_PLACES)  # a QR code in each place, likewise

    @model_validator(mode="after")
    def _bounded(self) -> "PositionGrid":
        if self.columns * self.rows > MAX_PLACES:
            raise PydanticCustomError("places", "{columns} × {rows} places, expected at most {limit} per mat",
                                      {"columns": self.columns, "rows": self.rows, "limit": MAX_PLACES})
        for name, given in (("pictures", self.pictures), ("QR codes", self.qr)):
            if len(given) > self.columns * self.rows:
                raise PydanticCustomError("places", "{count} {name} for {places} places, expected at most one a "
                                          "place", {"count": len(given), "name": name, "places": self.columns * self.rows})
        if max(self.columns * (self.width + self.gap), self.rows * (self.height + self.gap)) > MAX_MAT_SIDE:
            raise PydanticCustomError("places", "the places make a mat wider or taller than 2 m, expected at most "
                                      "2 m a side")
        return self


class Board(Illustrated):
    """A mat of labelled places: on one sheet (portrait or landscape) when it fits, else tiled across sheets."""

    id: Id
    title: Name
    positions: PositionGrid
    note: Text | None = None
    per_player: bool = True
    orientation: Literal["auto", "portrait", "landscape"] = "auto"
    fit: Literal["page"] | None = None  # `page`: scaled down to one sheet when it is a little too big


class Slip(Strict):
    """A small form, several to a page with cut marks; `fold` adds a fold line that hides what is written."""

    id: Id
    title: Name
    size: CardSizeSpec
    per_player: bool = True
    copies: Count = 1
    fold: bool = False
    outside: Paragraphs = []
    lines: list[Name] = []


class AidStep(Strict):
    title: Name
    text: Text


class PlayerAid(Strict):
    """A one-page summary each player keeps in front of them (phases of a turn)."""

    id: Id
    title: Name
    steps: list[AidStep] = Field(min_length=1)
    note: Text | None = None
    per_player: bool = True


class Printing(Strict):
    """This activity's printing defaults; command-line options override them."""

    duplex: Duplex | None = None  # the same choices as --duplex and --cut-lines (one definition each)
    fold: bool | None = None
    bleed: Length | None = None
    cut_lines: CutLines | None = None

    @field_validator("bleed")
    @classmethod
    def _bleed(cls, value: float | None) -> float | None:
        if value is not None and value > parse_length("10mm") + 1e-9:
            raise PydanticCustomError("bleed", "expected a bleed of at most 10 mm")
        return value


class Totals(Strict):
    """Counts the content promises; the build checks them against the decks."""

    cards: Count | None = None
    decks: dict[Id, Count] = {}


_Identified = Union[Slip, Board, PlayerAid, RecordSheet]  # what an activity lists with unique ids


class Activity(Strict):
    """One classroom activity: metadata, rules, decks, record sheets and the host key."""

    id: Id
    title: Name
    purpose: Text
    category: Name
    players: Annotated[Players, WithJsonSchema(RANGE_SCHEMA)]
    minutes: Annotated[Minutes, WithJsonSchema(RANGE_SCHEMA)]
    language: Annotated[str, StringConstraints(pattern=r"^[a-z]{2}$")] = "en"
    working_title: bool = False
    credits: Text | None = None  # who made the activity: printed at the foot of every page of its documents
    card_size: CardSizeSpec = "poker"
    font: FontName | None = None  # legible: Atkinson Hyperlegible; another name: a family of the library's fonts/
    links: list[Link] = []  # web addresses for the adult (a rules video), printed in the print guide with a QR code
    printing: Printing = Printing()
    rules: Rules
    decks: list[Deck] = []
    totals: Totals | None = None
    boards: list[Board] = []
    slips: list[Slip] = []
    player_aids: list[PlayerAid] = []
    record_sheets: list[RecordSheet] = []
    host_key: HostKey = HostKey()
    game: GameRules = GameRules()  # rules every replayed walkthrough and worked example of the kit is checked against
    _cards: dict[str, CardKind] = PrivateAttr(default_factory=dict)  # card id → its first card kind
    _hints: Hints = PrivateAttr(default_factory=Hints)  # 'did you mean' for mistyped card ids, MAX_HINTS of them

    @field_validator("id")
    @classmethod
    def _folder_name(cls, value: str) -> str:
        if value in RESERVED_NAMES:  # the kit folder's name: Windows has no folder called con, nul, aux...
            raise PydanticCustomError("reserved", "'{id}' names a device on Windows, not a folder; expected another "
                                      "id, such as '{id}-game'", {"id": value})
        return value

    @field_validator("slips", "boards", "player_aids", "record_sheets")
    @classmethod
    def _unique_ids(cls, items: list[_Identified]) -> list[_Identified]:
        seen: set[str] = set()
        for item in items:
            if item.id in seen:
                raise PydanticCustomError("duplicate", "id '{id}' appears twice, expected unique ids", {"id": item.id})
            seen.add(item.id)
        return items

    @field_validator("decks")
    @classmethod
    def _unique_decks(cls, decks: list[Deck]) -> list[Deck]:
        ids: set[str] = set()
        for deck_id in (deck.id for deck in decks):
            if deck_id in ids:
                raise PydanticCustomError("duplicate", "deck id '{id}' appears twice, expected unique deck ids",
                                          {"id": deck_id})
            ids.add(deck_id)
        total = sum(deck.total for deck in decks)
        if total > MAX_COUNT:
            raise PydanticCustomError("count", "the decks hold {n} cards, expected at most {limit} per kit",
                                      {"n": f"{total:,}", "limit": f"{MAX_COUNT:,}"})
        return decks

    @model_validator(mode="after")
    def _index_cards(self) -> "Activity":
        for deck in self.decks:
            for card in deck.cards:
                self._cards.setdefault(card.id, card)
        return self

    def card(self, card_id: str) -> CardKind | None:
        """The first card kind with this id in any deck (one look-up, however many cards there are)."""
        return self._cards.get(card_id)

    def close_card(self, card_id: str) -> str | None:
        """The card id nearest a mistyped one, whatever its case (`Pengiun` → `penguin`), or None."""
        ids = {known.lower(): known for known in self._cards} if self._hints.budget > 0 else {}
        found = self._hints.close(card_id.lower(), list(ids)) if ids else None
        return ids[found] if found else None


def generated_cards(generate: Generate, context: dict[str, Any] | None = None) -> list[CardKind]:
    """Every combination of the product's values as a card kind; id and name are filled in now.

    A standard deck's words come from the catalogs of `context["language"]` (English without one).
    """
    import itertools

    from pydantic import ValidationError

    from kitgen.load.placeholders import expand

    card = generate.card
    if generate.standard is not None:
        from kitgen.load.standard_deck import catalog, DEFAULT_CARD, standard_data

        context = context or {}
        words = catalog(context.get("language", "en"), tuple(context.get("catalogs", ())))
        combinations = standard_data(generate.standard, generate.ranks, generate.suits, words)
        card = {**DEFAULT_CARD, **card}
    else:
        assert generate.product is not None
        fields = list(generate.product)
        combinations = [dict(zip(fields, values)) for values in itertools.product(*generate.product.values())]
    cards = []
    for combination in combinations:
        data = {**card.get("data", {}), **combination}
        spec = {**card, "data": data}
        try:
            for key in ("id", "name"):
                if isinstance(spec.get(key), str):
                    spec[key] = expand(spec[key], data)
        except Exception as error:  # a template mistake in content
            raise PydanticCustomError("generate", "card template: {error}", {"error": str(error)}) from None
        spec.setdefault("count", 1)
        try:
            cards.append(CardKind.model_validate(spec))
        except ValidationError as error:
            raise PydanticCustomError("generate", "card template gives an invalid card: {problem}",
                                      {"problem": first_error(error, CardKind)}) from None
    return cards

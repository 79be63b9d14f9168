"""Content checks that go beyond the schema: references exist, host-key arithmetic follows from card data."""
from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from pydantic import BaseModel, ValidationError


from kitgen.core.errors import ContentError, Hints, Problem
from kitgen.core.notes import Note
from kitgen.load import LoadedActivity
from kitgen.load.model import (Activity, Board, CardKind, CardTable, DataField, HandExample, HostKey, PlayerAid,
                               RecordSheet, Rules, SetExample, Slip, Walkthrough)
from kitgen.load.placeholders import expand, on_cards, unfilled
from kitgen.load.problems import validation_problems
from kitgen.load.source import dotted, Location, SourceMap
from kitgen.check.replay import data_value, example_replays, no_card, Replay, replay_problems, replays
from kitgen.check.typed import content_strings_of, typed_numbers, value_strings

__all__ = ["content_strings_of", "typed_numbers"]  # (kept importable from here)

CARD_TEXT_FIELDS = ("name", "symbol", "value", "caption", "text", "footer", "color")


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
    value = data_value(card, field)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def evaluate_hand(activity: Activity, example: HandExample) -> tuple[HandResult | None, list[tuple[Location, str]]]:
    """The hand's total and purchase, or the problems (relative location, message) that prevent it."""
    problems: list[tuple[Location, str]] = []
    cards: list[CardKind] = []
    for index, card_id in enumerate(example.hand):
        card = activity.card(card_id)
        if card is None:
            problems.append((("hand", index), no_card(activity, card_id)))
        elif _number(card, example.sum) is None:
            problems.append((("hand", index), f"card {card_id!r} has no number {example.sum!r} in its data"))
        else:
            cards.append(card)
    bought = activity.card(example.buys) if example.buys else None
    price = None
    if example.buys and bought is None:
        problems.append((("buys",), no_card(activity, example.buys)))
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


def is_color(text: str) -> bool:
    """A colour kitgen can print: a name it knows or #rrggbb."""
    return text.lower() in ("black", "red", "blue", "green") or re.fullmatch(r"#[0-9a-fA-F]{6}", text) is not None


def card_texts(card: CardKind) -> dict[str, str]:
    """The card's printed texts with `{{ field }}` placeholders filled from its data."""
    texts = {}
    for field in CARD_TEXT_FIELDS:
        value = getattr(card, field)
        if value is not None:
            texts[field] = expand(value, card.data)
    return texts


@dataclass(frozen=True)
class TableRow:
    card: CardKind | None  # the row's card; None in a table grouped by a field
    values: list[object]  # one per column; "" where the card's data has none
    total: float
    label: str = ""  # the first cell: the card's name, or the value the row groups by
    cards: tuple[CardKind, ...] = ()  # the cards of a grouped row, in deck order


@dataclass(frozen=True)
class CheckedKit:
    """An activity that passed every check, with what the checks computed, for render to print as it is."""

    loaded: LoadedActivity
    texts: dict[tuple[int, int], dict[str, str]]  # (deck, card) → the card's texts, placeholders filled
    hands: list[HandResult]  # host_key.examples, in order
    sets: list[tuple[SetExample, SetResult]]  # host_key.sets, scored
    tables: list[tuple[CardTable, list[TableRow]]]  # host_key.card_tables, with their rows
    replays: list[Replay | None]  # host_key.walkthroughs replayed (None: a walkthrough that only tells)
    examples: list[Replay | None]  # rules.example replayed (None: a paragraph, or an example that only tells)
    shown: Activity  # the activity as printed: placeholders of rules, aids, sheets and host key filled
    notes: list[Note] = field(default_factory=list)  # located notes for the quality report: typed card numbers

    @property
    def activity(self) -> Activity:
        """The activity as printed (every `{{ cards.C2.price }}` outside the decks filled in)."""
        return self.shown


def check_activity(loaded: LoadedActivity) -> CheckedKit:
    """Every content problem at once, located (raises ContentError when there is any); else what was computed."""
    activity, source = loaded.activity, loaded.source
    problems: list[Problem] = list(loaded.problems)  # (its spreadsheets', gathered as it was read)
    texts: dict[tuple[int, int], dict[str, str]] = {}
    hints = Hints()
    shared: dict[tuple[Location, str], int] = {}  # (a sheet's card template field, why it fails) → cards
    expected = "; expected '{{ name }}' placeholders that name a key of the card's data"
    for d, deck in enumerate(activity.decks):
        for c, card in enumerate(deck.cards):
            filled = texts[(d, c)] = {}
            for field in CARD_TEXT_FIELDS:
                value = getattr(card, field)
                if value is None:
                    continue
                loc: Location = ("decks", d, "cards", c, field)
                try:
                    text = filled[field] = expand(value, card.data)
                    if field == "color" and not is_color(text):
                        problems.append(source.problem(loc, f"decks[{d}].cards[{c}].color: expected black, red, blue, "
                                                            f"green or #rrggbb, got {text!r}"))
                except Exception as error:  # a placeholder that fails: undefined, 1/0, a call, a huge range
                    why = unfilled(error, card.data, hints)
                    if loc in source.templates:  # written once for every row of a sheet: said once, there
                        shared[(source.templates[loc], why)] = shared.get((source.templates[loc], why), 0) + 1
                        continue
                    problems.append(source.problem(loc, f"decks[{d}].cards[{c}].{field}: {why}"
                                                        f"{'' if why.endswith('?') else expected}"))
    for (template, why), count in shared.items():
        problems.append(source.problem(template, f"{dotted(template)}: {on_cards(why, count)}"
                                                 f"{'' if why.endswith('?') else expected}"))
    hands: list[HandResult] = []
    for e, example in enumerate(activity.host_key.examples):
        hand, failed = evaluate_hand(activity, example)
        if hand is not None:  # (None comes with problems, and then the check raises below)
            hands.append(hand)
        for relative, message in failed:
            loc = ("host_key", "examples", e) + relative
            where = f"host_key.examples[{e}]." + ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in relative)
            problems.append(source.problem(loc, f"{where.replace('.[', '[')}: {message}"))
    sets, found = _scored_sets(activity, source)
    problems += found
    problems += _script_problems(activity, source)
    problems += _reference_problems(activity, source)
    problems += _totals_problems(activity, source)
    walked = replays(activity)
    problems += replay_problems(walked, source)
    worked = example_replays(activity)
    problems += replay_problems(worked, source, ("rules", "example"))
    problems += _set_problems(activity, source)
    shown, found = shown_activity(activity, source)
    problems += found
    tables, found = _tables(activity, source)
    problems += found
    if problems:
        raise ContentError(problems)
    return CheckedKit(loaded, texts, hands, sets, tables, walked, worked, shown,
                      list(loaded.notes) + typed_numbers(activity, source))


def _walkthroughs(activity: Activity) -> Iterator[tuple[Location, Walkthrough]]:
    """Every walkthrough of the kit with its place: the host key's, then the rules' worked examples."""
    for w, walk in enumerate(activity.host_key.walkthroughs):
        yield ("host_key", "walkthroughs", w), walk
    for e, item in enumerate(activity.rules.example):
        if isinstance(item, Walkthrough):
            yield ("rules", "example", e), item


def _set_problems(activity: Activity, source: SourceMap) -> list[Problem]:
    """Named cards moved to a holder of `game.sets` must make a set under the host key's scoring rule."""
    holders = set(activity.game.sets)
    problems = []
    for where, walk in _walkthroughs(activity):
        for s, step in enumerate(walk.steps):
            to = step.to or ""
            if not holders or not (to in holders or (to.split() or [""])[-1] in holders):
                continue
            if not isinstance(step.move, list):  # counted, not named: whole sets at least
                size = activity.host_key.scoring.size if activity.host_key.scoring else 1
                laid = sum(step.move.values())
                if laid % size:
                    problems.append(_located(source, where + ("steps", s, "move"),
                                             f"{laid} cards laid down in {to}, expected whole sets of {size}"))
                continue
            cards = [card for card in (activity.card(c) for c in step.move) if card is not None]
            if len(cards) != len(step.move):
                continue  # the unknown card is reported by the replay
            result = score_set(activity, cards)
            if isinstance(result, str):
                problems.append(_located(source, where + ("steps", s, "move"), f"not a set: {result}"))
    return problems


_SHOWN: dict[str, type[Rules] | type[HostKey] | type[PlayerAid] | type[RecordSheet] | type[Slip] | type[Board]] = {
    "rules": Rules, "host_key": HostKey, "player_aids": PlayerAid, "record_sheets": RecordSheet, "slips": Slip,
    "boards": Board}


def placeholder_context(activity: Activity) -> dict[str, object]:
    """What the texts outside the decks may print, computed from the content so that they follow it:
    `cards` maps each card id to its data (`{{ cards.Worker.metal }}`, `{{ cards['Recycling Center'].workers }}`,
    `{{ cards.C2.price + 1 }}`), `count` each card id to how many of it its deck holds (`{{ count.C2 }}`),
    `decks` each deck id to its number of cards (`{{ decks.supply }}`), `total` the cards of every deck that is
    not optional, `places` each mat id to its number of places (`{{ places['layout-mat'] }}`), `game` the
    game's rules (`{{ game.at_most.hand }}`) and `scoring` the host key's scoring rule (`{{ scoring.points }}`)."""
    cards: dict[str, object] = {}
    count: dict[str, int] = {}
    for deck in activity.decks:
        for card in deck.cards:
            cards.setdefault(card.id, card.data)
            count.setdefault(card.id, card.count)
    scoring = activity.host_key.scoring
    return {"cards": cards, "count": count, "decks": {deck.id: deck.total for deck in activity.decks},
            "total": sum(deck.total for deck in activity.decks if not deck.optional),
            "places": {board.id: len(board.positions.labels) for board in activity.boards},
            "game": activity.game.model_dump(by_alias=True),
            "scoring": scoring.model_dump() if scoring is not None else {}}


def shown_activity(activity: Activity, source: SourceMap) -> tuple[Activity, list[Problem]]:
    """The activity with every placeholder of its rules, player aids, record sheets, slips, mats and host key
    filled from the card data, and a located problem for each one that cannot be filled."""
    context = placeholder_context(activity)
    problems: list[Problem] = []

    def filled(value: object, loc: Location) -> object:
        if loc[:2] == ("host_key", "card_tables"):  # a table's values are filled per card, from that card's data
            return value
        if isinstance(value, str):
            if "{" not in value:
                return value
            try:
                return expand(value, context)
            except Exception as error:  # an unknown card or field, 1/0, a budget overrun
                missing = re.search(r"'cards\.([^.']+)|has no attribute '([^']+)'", str(error))  # cards.Pengiun
                named = (missing[1] or missing[2]) if missing else ""
                close = activity.close_card(named) if named and activity.card(named) is None else None
                problems.append(_located(source, loc, f"{error}, did you mean the card {close!r}?" if close else
                                         f"{error}; expected placeholders such as {{{{ cards.C2.price }}}} that name "
                                         "a card id and a key of its data"))
                return value
        if isinstance(value, dict):
            return {key: filled(item, loc + (key,)) for key, item in value.items()}
        if isinstance(value, list):
            return [filled(item, loc + (index,)) for index, item in enumerate(value)]
        return value

    update: dict[str, object] = {}
    for name, model in _SHOWN.items():
        value = getattr(activity, name)
        dumped = (value.model_dump() if not isinstance(value, list) else [item.model_dump() for item in value])
        expanded = filled(dumped, (name,))
        if expanded != dumped:
            try:  # what the placeholders filled in is held to the schema as written text is
                update[name] = (_validated(model, expanded, source, (name,)) if not isinstance(expanded, list)
                                else [_validated(model, item, source, (name, i)) for i, item in enumerate(expanded)])
            except ContentError as error:
                problems += error.problems
    decks = []
    for d, deck in enumerate(activity.decks):  # a deck's note is printed in the print guide
        note = filled(deck.note, ("decks", d, "note")) if deck.note else deck.note
        decks.append(deck.model_copy(update={"note": note}) if note != deck.note else deck)
    if any(new is not old for new, old in zip(decks, activity.decks)):
        update["decks"] = decks
    return (activity.model_copy(update=update) if update else activity), problems


def _validated(model: type[BaseModel], value: object, source: SourceMap, loc: Location) -> Any:
    """`value` validated as `model`; a ContentError located at `loc` when it is not one."""
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise ContentError([Problem(p.file, p.line, p.column, f"{p.message} (once its placeholders are filled)")
                            for p in validation_problems(error, model, source, loc)]) from None


def _data_names(cards: list[CardKind]) -> list[str]:
    """Every data field the cards have, a mapping's keys reached with a dot (`rank.order`), in order met."""
    names: dict[str, None] = {}

    def walk(value: object, prefix: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                names[prefix + str(key)] = None
                walk(item, f"{prefix}{key}.")

    for card in cards:
        walk(card.data, "")
    return list(names)


def _numeric(text: str) -> object:
    """A computed cell as a number when it reads as one (so that a total adds it up), else the text."""
    try:
        return int(text)
    except ValueError:
        try:
            number = float(text)
        except ValueError:
            return text
        return number if math.isfinite(number) else text


def _column(column: DataField, cards: list[CardKind], loc: Location, where: str, source: SourceMap
            ) -> tuple[list[object], list[Problem]]:
    """One cell per card, from the data field or computed by the placeholders; a field no card has, or a value
    that cannot be computed for a card, is a problem at the column."""
    if column.field is not None:
        cells = [data_value(card, column.field) for card in cards]
        if cards and all(cell is None for cell in cells):
            known = _data_names(cards)
            close = difflib.get_close_matches(column.field, known, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else (
                f"; the cards' data fields: {', '.join(known)}" if known else "; the cards have no data")
            return [], [_located(source, loc + ("field",), f"no card of {where} has {column.field!r} in its data{hint}")]
        return ["" if cell is None else cell for cell in cells], []
    assert column.value is not None  # (the model requires field or value)
    computed: list[object] = []
    for card in cards:
        try:
            computed.append(_numeric(expand(column.value, card.data)))
        except Exception as error:  # undefined name, 1/0, work beyond the budget: said at the column
            return [], [_located(source, loc + ("value",), f"cannot compute {column.value!r} for card {card.id!r}: "
                                                          f"{error}; expected placeholders that name its data")]
    return computed, []


def _tables(activity: Activity, source: SourceMap) -> tuple[list[tuple[CardTable, list[TableRow]]], list[Problem]]:
    """Each host-key card table with its rows computed from the cards, and the problems of its columns."""
    tables: list[tuple[CardTable, list[TableRow]]] = []
    problems: list[Problem] = []
    for t, table in enumerate(activity.host_key.card_tables):
        cards = table_cards(activity, table)
        where = f"deck {table.deck!r}" if table.deck else "the cards listed"
        at: Location = ("host_key", "card_tables", t)
        columns: list[list[object]] = []
        for f, column in enumerate(table.fields):
            cells, found = _column(column, cards, at + ("fields", f), where, source)
            columns.append(cells or [""] * len(cards))  # (a column that cannot be filled is said, and left empty)
            problems += found
        keys: list[object] = []
        if table.group_by is not None:
            keys, found = _column(table.group_by, cards, at + ("group_by",), where, source)
            problems += found
            if found:
                continue
        if table.group_by is None:
            rows = []
            for index, card in enumerate(cards):
                values = [cells[index] for cells in columns]
                rows.append(TableRow(card, values, sum(v for v in values if isinstance(v, (int, float))),
                                     card.title, (card,)))
        else:
            rows, found = _grouped(activity, table, cards, keys, columns, source)
            problems += found
        tables.append((table, rows))
    return tables, problems


def _grouped(activity: Activity, table: CardTable, cards: list[CardKind], keys: list[object],
             columns: list[list[object]], source: SourceMap) -> tuple[list[TableRow], list[Problem]]:
    """One row per value of `group_by`, in the order the cards first have it: the value, the cards that have it,
    and per other column its values, each with the cards that have it ("Ocean (Penguin, Seal)")."""
    assert table.group_by is not None
    name = table.group_by.field or table.group_by.value
    boards = {board.id: board for board in activity.boards}
    labels = list(dict.fromkeys(label for board_id in table.places if board_id in boards
                                for label in boards[board_id].positions.labels))
    groups: dict[str, list[int]] = {label: [] for label in labels}
    problems: list[Problem] = []
    for index, (card, key) in enumerate(zip(cards, keys)):
        at = _card_location(activity, card) + ("data",)
        if key == "":
            problems.append(_located(source, at, f"card {card.id!r} has no {name!r} in its data, so the table "
                                                 f"{table.title!r} cannot place it"))
            continue
        if labels and str(key) not in groups:
            close = difflib.get_close_matches(str(key), labels, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f"; the places: {', '.join(labels)}"
            if table.group_by.field:
                at += tuple(table.group_by.field.split("."))
            mats = f"the mat {table.places[0]!r}" if len(table.places) == 1 else \
                f"the mats {', '.join(repr(b) for b in table.places)}"
            problems.append(_located(source, at, f"{key!r} is not a place on {mats}{hint}"))
            continue
        groups.setdefault(str(key), []).append(index)
    groups = {key: members for key, members in groups.items() if members}  # (an empty place: no row)
    if not labels and all(isinstance(_numeric(key), (int, float)) for key in groups):
        groups = dict(sorted(groups.items(), key=lambda item: float(item[0])))  # numbers in order: 3, 4, 6 …
    if table.pairs_with is not None:
        problems += _pairing_problems(activity, table, {key: [cards[i] for i in members]
                                                          for key, members in groups.items()}, source)
    rows = []
    for key, members in groups.items():
        values: list[object] = [", ".join(cards[i].title for i in members)]
        for cells in columns:
            by_value: dict[str, list[str]] = {}
            for i in members:
                if cells[i] != "":
                    by_value.setdefault(str(cells[i]), []).append(cards[i].title)
            values.append("; ".join(f"{value} ({', '.join(names)})" for value, names in by_value.items()))
        rows.append(TableRow(None, values, 0, key, tuple(cards[i] for i in members)))
    return rows, problems


def _pairing_problems(activity: Activity, table: CardTable, groups: dict[str, list[CardKind]], source: SourceMap
                      ) -> list[Problem]:
    """Each row's value printed on as many cards of the paired deck as the row has cards, and no card of that
    deck with a value no row has: an answer card 22 that no question makes is refused where it is written."""
    pairing = table.pairs_with
    assert pairing is not None
    d = next((i for i, deck in enumerate(activity.decks) if deck.id == pairing.deck), None)
    t = activity.host_key.card_tables.index(table)
    if d is None:
        return [_located(source, ("host_key", "card_tables", t, "pairs_with", "deck"),
                         f"no deck {pairing.deck!r}; decks: {', '.join(deck.id for deck in activity.decks)}")]
    problems = []
    counted: dict[str, int] = {}
    for c, card in enumerate(activity.decks[d].cards):
        value = data_value(card, pairing.field)
        if value is None and pairing.field in CARD_TEXT_FIELDS and getattr(card, pairing.field) is not None:
            value = expand(getattr(card, pairing.field), card.data)
        if value is None:
            problems.append(_located(source, ("decks", d, "cards", c),
                                     f"card {card.id!r} has no {pairing.field!r} to pair it with a row of "
                                     f"{table.title!r}"))
            continue
        if str(value) not in groups:
            problems.append(_located(source, ("decks", d, "cards", c),
                                     f"card {card.id!r} shows {value} but no card of {table.deck or 'the table'!r} "
                                     f"makes {value}"))
        counted[str(value)] = counted.get(str(value), 0) + card.count
    for key, members in groups.items():
        wanted = sum(member.count for member in members)
        if counted.get(key, 0) != wanted:
            names = ", ".join(member.title for member in members)
            problems.append(_located(source, _card_location(activity, members[0]),
                                     f"{names} make {key}: deck {pairing.deck!r} needs {wanted} card(s) showing "
                                     f"{key}, it has {counted.get(key, 0)}"))
    return problems


def _card_location(activity: Activity, card: CardKind) -> Location:
    for d, deck in enumerate(activity.decks):
        for c, kind in enumerate(deck.cards):
            if kind is card:
                return ("decks", d, "cards", c)
    return ("decks",)


@dataclass(frozen=True)
class SetResult:
    """A scored set computed from the card data and the activity's scoring rule."""

    cards: list[CardKind]
    points: int
    reason: str  # "run", "same" or "all"


def score_set(activity: Activity, cards: list[CardKind]) -> SetResult | str:
    """Points of a set under `host_key.scoring`, or why the cards are not a set."""
    rule = activity.host_key.scoring
    if rule is None:
        return "the host key has sets but no scoring rule"
    if len(cards) != rule.size:
        return f"a set has {rule.size} cards, got {len(cards)}"
    orders = [_number(card, rule.order) for card in cards]
    numbers = [order for order in orders if order is not None]
    if len(numbers) != len(orders):
        return f"every card of a set needs a number {rule.order!r} in its data"
    ordered = sorted(numbers)
    if any(b - a != 1 for a, b in zip(ordered, ordered[1:])):
        return f"{', '.join(c.id for c in cards)} are not consecutive"
    if rule.bonus_same and len({str(data_value(card, rule.bonus_same)) for card in cards}) == 1:
        return SetResult(cards, rule.bonus_points, "same")
    if rule.bonus_all and all(data_value(card, rule.bonus_all) for card in cards):
        return SetResult(cards, rule.bonus_points, "all")
    return SetResult(cards, rule.points, "run")


def table_cards(activity: Activity, table: CardTable) -> list[CardKind]:
    """The card kinds a host-key card table lists: a whole deck or named cards."""
    if table.deck:
        deck = next((d for d in activity.decks if d.id == table.deck), None)
        return list(deck.cards) if deck else []
    return [card for card in (activity.card(c) for c in table.cards) if card is not None]


def content_strings(activity: Activity) -> Iterator[tuple[Location, str]]:
    """Every text the content gives, with its place (`("decks", 0, "cards", 2, "text")`)."""
    return value_strings(activity.model_dump(exclude_defaults=True), ())


def _script_problems(activity: Activity, source: SourceMap) -> list[Problem]:
    """Text kitgen cannot print truthfully yet (right-to-left scripts), refused where the content says it."""
    from kitgen.fonts.registry import UNSUPPORTED, unsupported_characters

    problems = []
    for loc, text in content_strings(activity):
        found = unsupported_characters(text, pictures=True) if UNSUPPORTED.search(text) else {}
        if found:
            shown = ", ".join(f"{char!r} (U+{ord(char):04X})" for char in found)
            problems.append(_located(source, loc, f"{shown}: {next(iter(found.values()))}"))
    return problems


def _located(source: SourceMap, loc: Location, message: str) -> Problem:
    return source.problem(loc, f"{dotted(loc)}: {message}")


def _reference_problems(activity: Activity, source: SourceMap) -> list[Problem]:
    """Cards and decks named in the host key, totals and worked examples must exist."""
    problems = []
    key = activity.host_key
    deck_ids = {deck.id for deck in activity.decks}
    for w, walk in enumerate(key.walkthroughs):
        for s, step in enumerate(walk.steps):
            for c, card_id in enumerate(step.cards):
                if activity.card(card_id) is None:
                    problems.append(_located(source, ("host_key", "walkthroughs", w, "steps", s, "cards", c),
                                             no_card(activity, card_id)))
    board_ids = [board.id for board in activity.boards]
    for t, table in enumerate(key.card_tables):
        for b, board_id in enumerate(table.places):
            if board_id not in board_ids:
                problems.append(_located(source, ("host_key", "card_tables", t, "places", b),
                                         f"no mat {board_id!r}; mats: {', '.join(board_ids) or 'none'}"))
        if table.deck and table.deck not in deck_ids:
            problems.append(_located(source, ("host_key", "card_tables", t, "deck"),
                                     f"no deck {table.deck!r}; decks: {', '.join(sorted(deck_ids))}"))
        for c, card_id in enumerate(table.cards):
            if activity.card(card_id) is None:
                problems.append(_located(source, ("host_key", "card_tables", t, "cards", c),
                                         no_card(activity, card_id)))
    return problems


def _scored_sets(activity: Activity, source: SourceMap) -> tuple[list[tuple[SetExample, SetResult]], list[Problem]]:
    """Each host-key set scored by the activity's rule, and the problems of those that are not sets."""
    scored: list[tuple[SetExample, SetResult]] = []
    problems: list[Problem] = []
    for n, example in enumerate(activity.host_key.sets):
        cards: list[CardKind] = []
        for c, card_id in enumerate(example.cards):
            card = activity.card(card_id)
            if card is None:
                problems.append(_located(source, ("host_key", "sets", n, "cards", c), no_card(activity, card_id)))
            else:
                cards.append(card)
        if len(cards) != len(example.cards):
            continue
        result = score_set(activity, cards)
        if isinstance(result, str):  # why the cards are not a set
            problems.append(_located(source, ("host_key", "sets", n), result))
        elif example.points is not None and result.points != example.points:
            problems.append(_located(source, ("host_key", "sets", n, "points"),
                                     f"the scoring rule gives {result.points} point(s), the content says {example.points}"))
        else:
            scored.append((example, result))
    return scored, problems


def _totals_problems(activity: Activity, source: SourceMap) -> list[Problem]:
    totals = activity.totals
    if totals is None:
        return []
    problems = []
    counted = sum(deck.total for deck in activity.decks if not deck.optional)
    if totals.cards is not None and counted != totals.cards:
        problems.append(_located(source, ("totals", "cards"),
                                 f"the content declares {totals.cards} cards but the decks hold {counted}"))
    decks = {deck.id: deck for deck in activity.decks}
    for deck_id, expected in totals.decks.items():
        if deck_id not in decks:
            problems.append(_located(source, ("totals", "decks", deck_id), f"no deck {deck_id!r}"))
        elif decks[deck_id].total != expected:
            index = list(decks).index(deck_id)
            problems.append(_located(source, ("decks", index),
                                     f"deck {deck_id!r} holds {decks[deck_id].total} cards but totals.decks.{deck_id} "
                                     f"declares {expected}"))
    return problems

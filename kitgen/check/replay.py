"""Walkthroughs replayed: a state of named counts per holder, changed step by step, checked as it goes.

A walkthrough with a `start` (or with steps that change something) is a small simulation: each holder
(a player, a hand, a pile) holds counts by name (a junk kind, a card id, "cards", "coins"). Every step
gains, pays, builds and moves, in that order; a payment or a move that would leave a count below zero,
or a named card taken from a holder that does not have it, is a problem located at the step. Amounts
given as card ids are read from the card data, so a printed example can never disagree with its cards.
The functions here are pure: the model in, results and problems out.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kitgen.core.errors import Problem
from kitgen.load.model import Activity, CardKind, GameRules, Places, Step, Walkthrough
from kitgen.load.source import dotted, Location, SourceMap

Counts = dict[str, int]
State = dict[str, Counts]  # holder → name → count, both in the order first met


def data_value(card: CardKind, field: str) -> object:
    """A value of the card's data by name; `rank.order` reaches into a generated deck's mapping."""
    value: object = card.data
    for part in field.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


@dataclass(frozen=True)
class StepState:
    """The state after one step, for printing: holders in order, each with its counts in order."""

    step: Step
    holders: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]


@dataclass
class Replay:
    """A walkthrough's replay: the state after every step that could be replayed, the sums its `end`
    declares (start, then every change, then the result) and the problems found."""

    walkthrough: Walkthrough
    start: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = ()
    steps: list[StepState] = field(default_factory=list)
    sums: list[tuple[str, str, list[int], int]] = field(default_factory=list)  # holder, name, terms, result
    problems: list[tuple[Location, str]] = field(default_factory=list)  # location relative to the walkthrough
    cards: frozenset[str] = frozenset()  # the card ids among the counts' names
    mat: Mat | None = None  # the game's mat, for a walkthrough that places cards

    def label(self, name: str, count: int) -> str:
        """`2 metal`, `1 Worker`, `0 Workers`: the walkthrough's plural when the count is not 1; a card of
        a deck held once and counted without a plural is its id alone (`7♠`, not `1 7♠`)."""
        if count == 1 and self.single(name):
            return name
        return f"{count} {self.walkthrough.plurals.get(name, name) if count != 1 else name}"

    def single(self, name: str) -> bool:
        """A card named one by one (`7♠`, `C2`), not a kind counted with a plural (`Worker: Workers`)."""
        return name in self.cards and name not in self.walkthrough.plurals

    def line(self, holders: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]) -> str:
        """`Mia: 2 metal, 0 glass, 1 plastic · pile: 3 cards`, the holders the walkthrough shows."""
        parts = []
        for holder, counts in holders:
            shown = [(name, n) for name, n in counts if n or not self.single(name)]  # no "0 C1": the card is gone
            parts.append(f"{holder}: " + ", ".join(self.label(name, n) for name, n in shown) if shown
                         else f"{holder}: –")
        return " · ".join(parts)

    def sum_text(self, holder: str, name: str, terms: list[int], result: int) -> str:
        """`Ana's hand: 7 + 1 − 3 + 3 − 1 = 7 cards`."""
        written = str(terms[0]) + "".join(f" + {t}" if t > 0 else f" − {-t}" for t in terms[1:])
        return f"{holder}: {written} = {self.label(name, result)}"


def no_card(activity: Activity, card_id: str) -> str:
    """`no card 'Pengiun' in any deck, did you mean 'penguin'?`: a card id the content names that no deck has."""
    close = activity.close_card(card_id)
    return f"no card {card_id!r} in any deck" + (f", did you mean {close!r}?" if close else "")


def _card_amounts(activity: Activity, card_id: str, fields: dict[str, str]) -> Counts | str:
    """The counts a card's data gives through a field → count mapping, or why it gives none."""

    card: CardKind | None = activity.card(card_id)
    if card is None:
        return no_card(activity, card_id)
    amounts: Counts = {}
    for data_field, count_name in fields.items():
        value = data_value(card, data_field)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            amounts[count_name] = amounts.get(count_name, 0) + value
    if not amounts:
        named = ", ".join(fields) or "none declared"
        return f"card {card_id!r} has no number in its data for these fields ({named})"
    return amounts


def _amounts(activity: Activity, given: dict[str, int] | list[str], fields: dict[str, str], what: str,
             where: Location) -> tuple[list[tuple[Counts, str | None]], list[tuple[Location, str]]]:
    """A step's amounts as (counts, card id or None) parts; card ids read through `fields`."""
    if isinstance(given, dict):
        return [(dict(given), None)], []
    parts: list[tuple[Counts, str | None]] = []
    problems: list[tuple[Location, str]] = []
    for index, card_id in enumerate(given):
        if not fields:
            problems.append((where + (index,), f"{card_id!r}: a card id here needs the walkthrough's {what} "
                                               f"(card data field → count), expected counts such as {{name: 1}}"))
            continue
        amounts = _card_amounts(activity, card_id, fields)
        if isinstance(amounts, str):  # why the card gives none
            problems.append((where + (index,), amounts))
        else:
            parts.append((amounts, card_id))
    return parts, problems


def named(holder: str, name: str) -> bool:
    """A holder called `name`, or whose name ends in that word (`Ana's hand` is a `hand`)."""
    return holder == name or (holder.split() or [""])[-1] == name


@dataclass
class Mat:
    """The places of the game's mat during a replay: which lie face down still, the rest are holders of state."""

    rules: Places
    labels: list[str]
    covered: set[str]

    def holder(self, label: str) -> str:
        return f"{self.rules.holder} {label}"

    def label_of(self, holder: str) -> str | None:
        return next((label for label in self.labels if self.holder(label) == holder), None)

    def fits(self, activity: Activity, card_id: str) -> str:
        card = activity.card(card_id)
        value = data_value(card, self.rules.fits) if card is not None else None
        return "" if value is None else str(value)

    def wild(self, activity: Activity, card_id: str) -> bool:
        return self.fits(activity, card_id) in self.rules.wild

    def where_else(self, activity: Activity, card_id: str) -> str | None:
        """A face-down place the card fits, when it has one: then it may go nowhere else."""
        if self.wild(activity, card_id):
            return next((self.holder(label) for label in self.labels if label in self.covered), None)
        label = self.fits(activity, card_id)
        return self.holder(label) if label in self.covered else None


def _mat(activity: Activity, walk: Walkthrough, state: State) -> tuple[Mat | None, list[tuple[Location, str]]]:
    """The game's mat for a walkthrough that places cards (or starts with places face up), its face-up places
    put into the state; or the problems that prevent it."""
    if not walk.face_up and not any(step.place for step in walk.steps):
        return None, []
    rules = activity.game.places
    where: Location = ("face_up",) if walk.face_up else ("steps", next(
        s for s, step in enumerate(walk.steps) if step.place), "place")
    if rules is None:
        return None, [(where, "placing cards on a mat needs the game's places (game.places: mat, fits)")]
    board = next((b for b in activity.boards if b.id == rules.mat), None)
    if board is None:
        return None, [(where, f"game.places names no mat of the kit: {rules.mat!r}")]
    mat = Mat(rules, list(board.positions.labels), set(board.positions.labels))
    problems: list[tuple[Location, str]] = []
    for label, card_id in walk.face_up.items():
        if label not in mat.labels:
            problems.append((("face_up", label), f"no place {label!r} on the mat; places: {', '.join(mat.labels)}"))
        elif activity.card(card_id) is None:
            problems.append((("face_up", label), no_card(activity, card_id)))
        elif mat.fits(activity, card_id) != label and not mat.wild(activity, card_id):
            problems.append((("face_up", label), f"{card_id} does not fit {mat.holder(label)}"))
        else:
            mat.covered.discard(label)
            state[mat.holder(label)] = {card_id: 1}
    return mat, problems


def _place(activity: Activity, mat: Mat, state: State, who: str, step: Step) -> str | None:
    """Put `step.place` from `who`'s hand face up on its place; the card found there comes into the hand.
    Returns why the move cannot happen, if it cannot."""
    card_id = step.place
    assert card_id is not None
    if state.get(who, {}).get(card_id, 0) < 1:
        return f"{card_id} is not with {who}, so it cannot be placed"
    label = step.at
    if label is None or label not in mat.labels:
        return f"{card_id} needs `at`, one of the places {', '.join(mat.labels)}" if label is None else             f"no place {label!r} on the mat; places: {', '.join(mat.labels)}"
    fits, wild, place = mat.fits(activity, card_id), mat.wild(activity, card_id), mat.holder(label)
    if label in mat.covered:
        if fits != label and not wild:
            return (f"{card_id} fits no place on the mat, so it is discarded" if fits not in mat.labels
                    else f"{card_id} goes only on {mat.holder(fits)}, not on {place}")
        if step.finds is None:
            return f"{place} was face down: say which card was lying there (finds)"
        if activity.card(step.finds) is None:
            return no_card(activity, step.finds)
        mat.covered.discard(label)
        found = step.finds
    else:
        there = next(iter(state.get(place, {})), "")
        if wild:
            return f"{card_id} is wild and goes only on a place still face down; {place} already shows {there} face up"
        if not mat.wild(activity, there) or fits != label:
            return f"{place} already shows {there} face up, so {card_id} cannot go there"
        if step.finds is not None and step.finds != there:
            return f"{place} shows {there} face up, not {step.finds}"
        found = there
    counts = state[who]
    counts[card_id] -= 1
    state[place] = {card_id: 1}
    counts[found] = counts.get(found, 0) + 1
    return None


def limit_of(rules: GameRules, holder: str) -> int | None:
    """The most a holder may hold under the game's rules: by its name, or by the last word of its name."""
    if holder in rules.at_most:
        return rules.at_most[holder]
    last = holder.split()[-1] if holder.split() else holder
    return rules.at_most.get(last)


def _over_limit(rules: GameRules, state: State, result: Replay) -> str | None:
    for holder, counts in state.items():
        most = limit_of(rules, holder)
        held = sum(counts.values())
        if most is not None and held > most:
            shown = ", ".join(result.label(name, n) for name, n in counts.items() if n)
            return f"{holder} holds {held} ({shown}), the game allows at most {most}"
    return None


def replay(activity: Activity, walk: Walkthrough) -> Replay:
    """Replay one walkthrough. Stops at the first step that cannot happen (later states would be
    guesses); every problem is located relative to the walkthrough (`("steps", 2)`, `("end", …)`).
    The game's rules (`game.at_most`) hold at the start and after every step."""
    names = {n for counts in walk.start.values() for n in counts} | {
        n for step in walk.steps for amounts in (step.gain, step.pay, step.move) for n in amounts} | {
        n for step in walk.steps for n in step.build}
    names |= {n for step in walk.steps for n in (step.place, step.finds) if n} | set(walk.face_up.values())
    result = Replay(walk, cards=frozenset(n for n in names if activity.card(n) is not None))
    state: State = {holder: dict(counts) for holder, counts in walk.start.items()}
    mat, found = _mat(activity, walk, state)
    if found:
        result.problems += found
        return result
    result.mat = mat
    over = _over_limit(activity.game, state, result)
    if over:
        result.problems.append((("start",), over))
        return result
    history: dict[tuple[str, str], list[int]] = {(h, n): [c] for h, counts in state.items() for n, c in counts.items()}
    result.start = _frozen(state, walk, mat) if walk.start or walk.face_up else ()  # (nothing yet: no line)
    who = next(iter(walk.start), None)
    last_turn: dict[tuple[int, str], int] = {}  # (rule, receiver) → the turn of the last limited move

    def change(holder: str, name: str, delta: int) -> None:
        counts = state.setdefault(holder, {})
        history.setdefault((holder, name), [counts.get(name, 0)]).append(delta)
        counts[name] = counts.get(name, 0) + delta

    for s, step in enumerate(walk.steps):
        if not step.changes and step.who is None:
            result.steps.append(StepState(step, _frozen(state, walk, mat)))
            continue
        who = step.who or who
        if who is None:
            result.problems.append((("steps", s), "a step that changes counts needs `who` (or a start state "
                                                  "whose first holder it acts on)"))
            return result
        failed: list[tuple[Location, str]] = []
        gains, found = _amounts(activity, step.gain, walk.values, "values", ("steps", s, "gain"))
        failed += found
        pays, found = _amounts(activity, step.pay, walk.costs, "costs", ("steps", s, "pay"))
        failed += found
        builds, found = _amounts(activity, step.build, walk.costs, "costs", ("steps", s, "build"))
        failed += found
        moves: list[tuple[Counts, str | None]]
        if isinstance(step.move, list):
            moves = [({card_id: 1}, card_id) for card_id in step.move]
        else:
            moves = [(dict(step.move), None)] if step.move else []
        if moves and not step.to:
            failed.append((("steps", s, "move"), "a move needs `to`, the holder that receives it"))
        if failed:
            result.problems += failed
            return result
        for amounts, _card in gains:
            for name, n in amounts.items():
                change(who, name, n)
        for amounts, card_id in [*pays, *builds]:
            for name, n in amounts.items():
                have = state.get(who, {}).get(name, 0)
                if have < n:
                    result.problems.append((("steps", s), f"{who} pays {result.label(name, n)} but holds {have}"))
                    return result
                change(who, name, -n)
        for card_id in step.build:
            change(who, card_id, 1)
        if moves:
            limited = _once_in(activity, who, step, last_turn)
            if limited:
                result.problems.append((("steps", s, "turn" if step.turn else "move"), limited))
                return result
        for amounts, card_id in moves:
            assert step.to is not None  # a move without `to` failed above
            elsewhere = mat.where_else(activity, card_id) if mat and card_id and mat.label_of(step.to) is None \
                else None
            if elsewhere:
                result.problems.append((("steps", s, "move"), f"{card_id} fits {elsewhere}, still face down, so it "
                                                              f"goes there, not to {step.to}"))
                return result
            for name, n in amounts.items():
                have = state.get(who, {}).get(name, 0)
                if have < n:
                    if card_id is not None:
                        message = f"{card_id} is not with {who}, so it cannot move to {step.to}"
                    else:
                        message = f"{who} moves {result.label(name, n)} to {step.to} but holds {have}"
                    result.problems.append((("steps", s), message))
                    return result
                change(who, name, -n)
                change(step.to, name, n)
        if step.place:
            if mat is None:  # (a walkthrough that places cards has a mat, or failed above)
                return result
            refused = _place(activity, mat, state, who, step)
            if refused:
                result.problems.append((("steps", s, "at" if step.at else "place"), refused))
                return result
        over = _over_limit(activity.game, state, result)
        if over:
            result.problems.append((("steps", s), over))
            return result
        result.steps.append(StepState(step, _frozen(state, walk, mat)))
    for holder, counts in walk.end.items():
        for name, expected in counts.items():
            got = state.get(holder, {}).get(name, 0)
            terms = history.get((holder, name), [0])
            result.sums.append((holder, name, terms, got))
            if got != expected:
                result.problems.append((("end", holder, name), f"the steps leave {holder} with "
                                        f"{result.label(name, got)}, the walkthrough's end says {expected}"))
    return result


def _once_in(activity: Activity, who: str, step: Step, last: dict[tuple[int, str], int]) -> str | None:
    """Why a move breaks a once-in-some-turns rule of the game, if it does; else its turn is noted."""
    to = step.to or ""
    for r, rule in enumerate(activity.game.once_in):
        if who == to or not named(who, rule.source) or not named(to, rule.to):
            continue
        if step.turn is None:
            return (f"a move from {who} to {to} is allowed once in {rule.turns} turns: give the step's `turn` "
                    f"(the player's own turn number) so that it can be checked")
        before = last.get((r, to))
        if before is not None and step.turn - before < rule.turns:
            return (f"{to} takes from {who} on turn {step.turn}, but did on turn {before}: once in {rule.turns} "
                    f"turns, so turn {before + rule.turns} at the earliest")
        last[(r, to)] = step.turn
    return None


def _frozen(state: State, walk: Walkthrough, mat: Mat | None = None
            ) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
    """The holders to print and their counts: the walkthrough's `show`, or every holder in the order met, and
    then the mat's face-up places, in the mat's order."""
    holders = walk.show or list(state)
    if mat is not None:
        places = [mat.holder(label) for label in mat.labels if mat.holder(label) in state]
        holders = [h for h in holders if h not in places] + places
    return tuple((h, tuple(state.get(h, {}).items())) for h in holders)


def replays(activity: Activity) -> list[Replay | None]:
    """Every walkthrough's replay, None for those that only tell (no state, no changes)."""
    return [replay(activity, walk) if walk.replayed else None for walk in activity.host_key.walkthroughs]


def example_replays(activity: Activity) -> list[Replay | None]:
    """Every worked example of the rules replayed, None for the paragraphs (and examples that only tell)."""
    return [replay(activity, item) if isinstance(item, Walkthrough) and item.replayed else None
            for item in activity.rules.example]


def replay_problems(replayed: list[Replay | None], source: SourceMap,
                    where: Location = ("host_key", "walkthroughs")) -> list[Problem]:
    """Located problems of every replayed walkthrough: `file:line:col: host_key.walkthroughs[0].steps[2]: …`
    (`where` the list they come from: the host key's walkthroughs, or `("rules", "example")`)."""
    problems = []
    for w, result in enumerate(replayed):
        if result is None:
            continue
        for relative, message in result.problems:
            loc = where + (w,) + relative
            problems.append(source.problem(loc, f"{dotted(loc)}: {message}"))
    return problems

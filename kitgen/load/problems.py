"""Translate pydantic's validation errors into located, plain-language problems."""
from __future__ import annotations

import re
import typing
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from kitgen.core.errors import Hints, Problem
from kitgen.load.source import Location, SourceMap
from kitgen.load.fields import FONT_NAME_PATTERN
from kitgen.load.source import dotted


def _model_at(root: type[BaseModel], loc: Location) -> type[BaseModel] | None:
    """The model class that holds the keys at `loc`, following fields and list items."""
    current: Any = root
    for part in loc:
        current = _unwrap(current)
        if isinstance(part, int):
            args = typing.get_args(current)
            current = args[0] if args else None
        elif isinstance(current, type) and issubclass(current, BaseModel) and part in current.model_fields:
            current = current.model_fields[part].annotation
        else:
            return None
    current = _unwrap(current)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unwrap(annotation: Any) -> Any:
    """Strip Optional/Annotated wrappers down to the model or list type."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
            options = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(options) != 1:
                return annotation
            annotation = options[0]
        else:
            return annotation


def _got(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "...'"


_EXPECTED = {
    "string_type": "expected text",
    "int_type": "expected a whole number",
    "int_parsing": "expected a whole number",
    "float_type": "expected a number",
    "float_parsing": "expected a number",
    "bool_type": "expected true or false",
    "bool_parsing": "expected true or false",
    "list_type": "expected a list",
    "dict_type": "expected a mapping of keys and values",
    "model_type": "expected a mapping of keys and values",
    "model_attributes_type": "expected a mapping of keys and values",
    "string_too_short": "expected non-empty text",
    "string_too_long": "text too long, expected at most {max_length} characters",
    "greater_than": "expected a number greater than {gt}",
    "greater_than_equal": "expected a number of at least {ge}",
    "less_than": "expected a number less than {lt}",
    "less_than_equal": "expected a number of at most {le}",
    "int_from_float": "expected a whole number",
    "finite_number": "expected a finite number",
    "multiple_of": "expected a multiple of {multiple_of}",
    "none_required": "expected nothing (leave it out)",
    "set_type": "expected a list",
    "tuple_type": "expected a list",
    "string_sub_type": "expected text",
    "string_unicode": "expected text",
    "bytes_type": "expected text",
    "enum": "expected {expected}",
}
# A union (`text or a walkthrough`, `a mapping of counts or a list of names`) names the member it tried in the
# error's place: `example[0].constrained-str`, `gain.dict[constrained-str,function-plain[_positive_int()]].coins`.
# Those parts are pydantic's, not the author's: they are left out, and the members' messages merged.
_MEMBER = re.compile(r"[\[\](),]|^(constrained-)?(str|int|float|bool|bytes|list|dict|set|tuple|union|none|any|"
                     r"function-\w+|tagged-union|lax-or-strict|json-or-python|nullable|default|chain|literal|"
                     r"is-instance|url|decimal|date|datetime)$")
_PYDANTIC_PREFIXES = ("value error, ", "assertion failed, ")


class _Reading:
    """What the messages of one validation share: a budget of 'did you mean' searches and the keys each model
    allows, looked up once per place (100,000 unknown keys in one card are one lookup, not 100,000)."""

    def __init__(self, root: type[BaseModel], prefix: Location = (), source: SourceMap | None = None) -> None:
        self.root = root
        self.source = source or SourceMap("")
        self.prefix = prefix  # where the value validated as `root` is in the activity
        self.hints = Hints()
        self.allowed: dict[Location, list[str]] = {}

    def keys_at(self, loc: Location) -> list[str]:
        if loc not in self.allowed:
            model = _model_at(self.root, loc[len(self.prefix):])
            self.allowed[loc] = sorted(model.model_fields) if model else []
        return self.allowed[loc]


def member_label(part: Any) -> bool:
    return isinstance(part, str) and (bool(_MEMBER.search(part)) or (part[:1].isupper() and part.isidentifier()))


def _authors_place(loc: Location, source: SourceMap) -> tuple[Location, tuple[Location, ...]]:
    """`loc` without the union members pydantic names in it (a part is kept when the content has a value there),
    and the places (in that shorter `loc`) where a union chose among its members."""
    kept: list[Any] = []
    unions: list[Location] = []
    for part in loc:
        if member_label(part) and tuple(kept) + (part,) not in source.values:
            unions.append(tuple(kept))
            continue
        kept.append(part)
    return tuple(kept), tuple(unions)


def plain_message(message: str) -> str:
    """A message pydantic wrote, in our words: `Input should be X` → `expected X`, no `Value error, `."""
    for prefix in _PYDANTIC_PREFIXES:
        if message.lower().startswith(prefix):
            message = message[len(prefix):]
    if message == "Field required":
        return "missing"
    if message == "Extra inputs are not permitted":
        return "unknown key"
    return _SHOULD.sub("expected ", message, count=1)


_SHOULD = re.compile(r"^(Input|String|List|Dictionary|Value|Tuple|Set|Number|Object|Data) should (be |have )?")


def first_error(error: ValidationError, root: type[BaseModel]) -> str:
    """The first problem of a value validated as `root` (a card made by a template), in our words."""
    return _messages(error, root, SourceMap(""), ())[0][1]


_LANGUAGE_CODE = "a two-letter language code such as 'en' or 'ro'"


def _message(error: ErrorDetails, reading: _Reading, loc: Location) -> tuple[Location, str, bool]:
    """(location, message, points at the key rather than the value), at `loc`: the error's place as the author
    wrote it."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    where = dotted(loc)
    if kind == "extra_forbidden":
        allowed = reading.keys_at(loc[:-1])
        close = reading.hints.close(str(loc[-1]), allowed)
        hint = f", did you mean {close!r}?" if close else (f", expected one of: {', '.join(allowed)}" if allowed else "")
        return loc, f"{where}: unknown key {loc[-1]!r}{hint}", True
    if kind == "duplicate" and "index" in ctx and "first" in ctx:  # a deck's card id met twice: at the second
        first = loc + ("cards", ctx["first"])
        loc = loc + ("cards", ctx["index"], "id")
        message = plain_message(error["msg"])
        if first in reading.source.cells:  # read from a spreadsheet: the first is named by its row
            row = reading.source.values[first][1]
            message = message.replace(f"the id of cards[{ctx['first']}]", f"the id in row {row}")
        return loc, f"{dotted(loc)}: {message}", False
    if kind == "missing":
        return loc[:-1], f"{dotted(loc)}: missing, expected a value for {loc[-1]!r}", False
    if kind == "string_type" and loc and loc[-1] == "language":  # `language: 7`, `language: [en]`
        return loc, f"{where}: expected {_LANGUAGE_CODE}, got {_got(error['input'])}", False
    if kind == "string_pattern_mismatch":
        expected = (_LANGUAGE_CODE if loc and loc[-1] == "language"
                    else "a web address starting with https:// or http://"
                    if str(ctx.get("pattern", "")).startswith("^https?://")
                    else "standard, legible, or the name of a font file in the library's fonts/ folder "
                         "(without its folder)" if ctx.get("pattern") == FONT_NAME_PATTERN
                    else "an id of lower-case letters, digits and '-'")
        return loc, f"{where}: expected {expected}, got {_got(error['input'])}", False
    if kind == "too_short":
        return loc, f"{where}: expected at least {ctx.get('min_length', 1)} item(s), got none", False
    if kind == "too_long":
        return loc, f"{where}: expected at most {ctx.get('max_length')} items", False
    if kind == "literal_error":
        return loc, f"{where}: expected {ctx.get('expected')}, got {_got(error['input'])}", False
    if kind in _EXPECTED:
        try:
            expected = _EXPECTED[kind].format(**ctx)
        except (KeyError, IndexError, ValueError):
            expected = _EXPECTED[kind].split(" {")[0]
        return loc, f"{where}: {expected}, got {_got(error['input'])}", False
    message = plain_message(error["msg"])
    if kind not in _OURS and message.startswith("expected ") and ", got " not in message:
        message += f", got {_got(error['input'])}"
    return loc, f"{where}: {message}", False


_OURS = ("count", "card_size", "length", "range", "players", "picture", "generate", "deck", "duplicate",
         "column", "table", "places", "bleed", "reserved")  # our validators' messages, already in our words
_EXPECTATION = re.compile(r"expected (?P<what>.+?), got (?P<got>.+)")


Message = tuple[Location, str, bool]


def _merged(messages: list[tuple[Message, tuple[Location, ...]]]) -> list[Message]:
    """The messages of unions' members, merged. At each union, members that failed deeper inside the value (the
    author meant one of them) win over members that failed at the union's own place; then messages at one place
    that say `expected X, got Y` become one `expected X, Z or W, got Y`."""
    dropped: set[int] = set()
    for union in {union for _, unions in messages for union in unions}:
        members = [i for i, (_, unions) in enumerate(messages) if union in unions]
        if any(len(messages[i][0][0]) > len(union) for i in members):
            dropped.update(i for i in members if messages[i][0][0] == union)
    by_place: dict[Location, list[Message]] = {}
    for i, (message, _) in enumerate(messages):
        if i not in dropped:
            by_place.setdefault(message[0], []).append(message)
    merged = []
    for loc, same in by_place.items():
        found = [_EXPECTATION.fullmatch(text.split(": ", 1)[-1]) for _, text, _ in same] if len(same) > 1 else []
        if found and all(found):
            wanted = list(dict.fromkeys(m["what"] for m in found if m))
            what = wanted[0] if len(wanted) == 1 else ", ".join(wanted[:-1]) + " or " + wanted[-1]
            got = found[0]["got"] if found[0] else ""
            merged.append((loc, f"{dotted(loc)}: expected {what}, got {got}", same[0][2]))
        else:
            merged += same
    return merged


def _messages(error: ValidationError, root: type[BaseModel], source: SourceMap, prefix: Location,
              unread: frozenset[Location] = frozenset()) -> list[Message]:
    reading = _Reading(root, prefix, source)
    plain: list[Message] = []
    members: list[tuple[Message, tuple[Location, ...]]] = []
    for item in error.errors(include_url=False):
        loc, unions = _authors_place(prefix + tuple(item["loc"]), source)
        if any(loc[:len(cards)] == cards or (loc == cards[:-1] and item["type"] == "deck") for cards in unread):
            continue  # a card list whose sheet could not be read: its problem is said, not the empty list's
        message = _message(item, reading, loc)
        if unions:
            members.append((message, unions))
        else:
            plain.append(message)
    return plain + _merged(members)


def validation_problems(error: ValidationError, root: type[BaseModel], source: SourceMap,
                        prefix: Location = (), unread: frozenset[Location] = frozenset()) -> list[Problem]:
    """One located Problem per pydantic error in our words, at the place the author wrote, de-duplicated; the
    members of a union merged into one message. `prefix`: where the value validated as `root` is (the activity
    itself when empty); nothing is said of the card lists in `unread` (a sheet that could not be read)."""
    problems: dict[str, Problem] = {}
    for loc, text, at_key in _messages(error, root, source, prefix, unread):
        problem = source.problem(loc, text, key=at_key)
        problems.setdefault(str(problem), problem)
    return list(problems.values())

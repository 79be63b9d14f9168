"""Translate pydantic's validation errors into located, plain-language problems."""
from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from kitgen.core.errors import Hints, Problem
from kitgen.load.source import Location, SourceMap
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
    "less_than_equal": "expected a number of at most {le}",
}


class _Reading:
    """What the messages of one validation share: a budget of 'did you mean' searches and the keys each model
    allows, looked up once per place (100,000 unknown keys in one card are one lookup, not 100,000)."""

    def __init__(self, root: type[BaseModel]) -> None:
        self.root = root
        self.hints = Hints()
        self.allowed: dict[Location, list[str]] = {}

    def keys_at(self, loc: Location) -> list[str]:
        if loc not in self.allowed:
            model = _model_at(self.root, loc)
            self.allowed[loc] = sorted(model.model_fields) if model else []
        return self.allowed[loc]


def _message(error: ErrorDetails, reading: _Reading) -> tuple[Location, str, bool]:
    """(location, message, points at the key rather than the value)."""
    loc = tuple(error["loc"])
    kind = error["type"]
    ctx = error.get("ctx") or {}
    where = dotted(loc)
    if kind == "extra_forbidden":
        allowed = reading.keys_at(loc[:-1])
        close = reading.hints.close(str(loc[-1]), allowed)
        hint = f", did you mean {close!r}?" if close else (f", expected one of: {', '.join(allowed)}" if allowed else "")
        return loc, f"{where}: unknown key {loc[-1]!r}{hint}", True
    if kind == "duplicate" and "index" in ctx and "first" in ctx:  # a deck's card id met twice: at the second
        loc = loc + ("cards", ctx["index"], "id")
        return loc, f"{dotted(loc)}: {error['msg']}", False
    if kind == "missing":
        return loc[:-1], f"{dotted(loc)}: missing, expected a value for {loc[-1]!r}", False
    if kind == "string_pattern_mismatch":
        expected = ("a two-letter language code such as 'en' or 'ro'" if loc and loc[-1] == "language"
                    else "an id of lower-case letters, digits and '-'")
        return loc, f"{where}: expected {expected}, got {_got(error['input'])}", False
    if kind == "too_short":
        return loc, f"{where}: expected at least {ctx.get('min_length', 1)} item(s), got none", False
    if kind == "too_long":
        return loc, f"{where}: expected at most {ctx.get('max_length')} items", False
    if kind == "literal_error":
        return loc, f"{where}: expected {ctx.get('expected')}, got {_got(error['input'])}", False
    if kind in _EXPECTED:
        return loc, f"{where}: {_EXPECTED[kind].format(**ctx)}, got {_got(error['input'])}", False
    message = error["msg"]
    if message.lower().startswith("value error, "):
        message = message[len("value error, "):]
    return loc, f"{where}: {message}", False


def validation_problems(error: ValidationError, root: type[BaseModel], source: SourceMap) -> list[Problem]:
    """One located Problem per pydantic error, de-duplicated."""
    problems: dict[str, Problem] = {}
    reading = _Reading(root)
    for item in error.errors(include_url=False):
        loc, message, at_key = _message(item, reading)
        problem = source.problem(loc, message, key=at_key)
        problems.setdefault(str(problem), problem)
    return list(problems.values())

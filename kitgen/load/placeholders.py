"""`{{ field }}` placeholders in content strings, filled from card data inside Jinja's sandbox."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable, Mapping

import jinja2

from kitgen.core.errors import Hints
from kitgen.jinja.budget import BoundedSandbox, Limits

# One card text may loop 100,000 times, make values of 100,000 characters and take 1 s; every placeholder of
# one activity together (every card of every deck, in `check` and again in a build) 500,000 steps (a
# 10,000-card generated deck with a placeholder in every field uses about a third of that). The
# whole activity has no time limit: its steps bound the work, and a slow or busy machine must not turn a
# valid library into an error.
LIMITS = Limits("placeholder", steps=100_000, chars=2_000_000, value=100_000, seconds=1.0,
                total_steps=500_000, total_chars=40_000_000, total_seconds=float("inf"))

_sandbox = BoundedSandbox(LIMITS, undefined=jinja2.StrictUndefined, autoescape=False)


def new_activity() -> None:
    """Start the budget of a newly read activity (its placeholders share one)."""
    _sandbox.ledger.reset()


@lru_cache(maxsize=4096)
def _compiled(text: str) -> jinja2.Template:
    return _sandbox.from_string(text)


_SIMPLE = re.compile(r"\{\{\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\}\}")


def _lookup(data: Mapping[str, Any], dotted: str) -> Any:
    value: Any = data
    for part in dotted.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise jinja2.UndefinedError(f"{dotted!r} is undefined")
        value = value[part]
    return value


def expand(text: str, data: Mapping[str, Any]) -> str:
    """`'Price {{ price }}'` with `{'price': 3}` → `'Price 3'`; content cannot reach Python internals.

    Plain `{{ name }}` / `{{ a.b }}` placeholders are filled by key lookup; anything else (filters,
    expressions) is rendered by Jinja's sandbox, under a budget (`kitgen.jinja.budget`): work beyond it raises
    BudgetExceeded.
    """
    if "{" not in text:
        return text
    rest = _SIMPLE.sub("", text)
    if "{{" not in rest and "{%" not in rest and "{#" not in rest:
        return _SIMPLE.sub(lambda match: str(_lookup(data, match[1])), text)
    return _sandbox.run(_compiled(text), dict(data))


_UNDEFINED = re.compile(r"'([A-Za-z_]\w*)' is undefined")


def unfilled(error: Exception, names: Iterable[str], hints: Hints) -> str:
    """Why a placeholder could not be filled, with `did you mean 'habitat'?` when it names a key the data does
    not have and one of `names` (the data's keys) is close to it."""
    text = str(error)
    found = _UNDEFINED.fullmatch(text)
    close = hints.close(found[1], sorted(str(name) for name in names)) if found else None
    return f"{text}, did you mean {close!r}?" if close else text


def on_cards(why: str, count: int) -> str:
    """`'habitta' is undefined` → `'habitta' is undefined on 20 cards`: a template every row of a sheet shares."""
    cards = f"{count:,} card{'s' if count != 1 else ''}"
    if " is undefined" in why:
        return why.replace(" is undefined", f" is undefined on {cards}", 1)
    return f"{why} (on {cards})"

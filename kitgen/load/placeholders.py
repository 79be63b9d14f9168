"""`{{ field }}` placeholders in content strings, filled from card data inside Jinja's sandbox."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Mapping

import jinja2

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

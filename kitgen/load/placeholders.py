"""`{{ field }}` placeholders in content strings, filled from card data inside Jinja's sandbox."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Mapping

import jinja2
from jinja2.sandbox import SandboxedEnvironment

_sandbox = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)


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
    expressions) is rendered by Jinja's sandbox.
    """
    if "{" not in text:
        return text
    rest = _SIMPLE.sub("", text)
    if "{{" not in rest and "{%" not in rest and "{#" not in rest:
        return _SIMPLE.sub(lambda match: str(_lookup(data, match[1])), text)
    return _compiled(text).render(**data)

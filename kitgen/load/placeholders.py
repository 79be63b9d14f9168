"""`{{ field }}` placeholders in content strings, filled from card data inside Jinja's sandbox."""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

import jinja2
from jinja2.sandbox import SandboxedEnvironment

_sandbox = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)


@lru_cache(maxsize=4096)
def _compiled(text: str) -> jinja2.Template:
    return _sandbox.from_string(text)


def expand(text: str, data: Mapping[str, Any]) -> str:
    """`'Price {{ price }}'` with `{'price': 3}` → `'Price 3'`; content cannot reach Python internals."""
    if "{" not in text:
        return text
    return _compiled(text).render(**data)

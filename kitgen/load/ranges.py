"""A whole-number range of the content (players, minutes): written `2`, `'2-4'` or `{min: 2, max: 4}`."""
from __future__ import annotations

import re
from typing import Any

from pydantic import model_validator
from pydantic_core import PydanticCustomError

from kitgen.load.fields import Count, MAX_PLAYERS
from kitgen.load.strict import Strict


class Range(Strict):
    """A whole-number range: written `2`, `'2-4'` or `{min: 2, max: 4}`."""

    min: Count
    max: Count

    @model_validator(mode="before")
    @classmethod
    def _from_shorthand(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return {"min": value, "max": value}
        if isinstance(value, str):
            match = re.fullmatch(r"\s*(\d+)\s*(?:[-–]\s*(\d+))?\s*", value)
            if not match:
                raise PydanticCustomError("range", "expected a number such as 20 or a range such as '20-25', "
                                          "got {got}", {"got": repr(value)})
            return {"min": int(match[1]), "max": int(match[2] or match[1])}
        if not isinstance(value, dict):  # true, 2.5, a list: say what a range may be written as
            got = (str(value).lower() if isinstance(value, bool) or value is None else
                   "a list" if isinstance(value, list) else repr(value))
            raise PydanticCustomError("range", "expected a number such as 20 or a range such as '20-25', "
                                      "got {got}", {"got": got})
        return value

    @model_validator(mode="after")
    def _ordered(self) -> "Range":
        if self.min > self.max:
            raise PydanticCustomError("range", "expected min ≤ max, got min {min} and max {max}",
                                      {"min": self.min, "max": self.max})
        return self

    def __str__(self) -> str:
        return str(self.min) if self.min == self.max else f"{self.min}–{self.max}"


class Players(Range):
    """How many play one kit."""

    @model_validator(mode="after")
    def _at_most(self) -> "Players":
        if self.max > MAX_PLAYERS:
            raise PydanticCustomError("players", "expected at most {limit} players per kit, got {n}",
                                      {"limit": MAX_PLAYERS, "n": f"{self.max:,}"})
        return self


class Minutes(Range):
    """How long one round takes, in minutes."""


RANGE_SCHEMA = {"anyOf": [
    {"type": "integer", "minimum": 1},
    {"type": "string", "pattern": r"^\s*\d+\s*(?:[-–]\s*\d+)?\s*$"},
    {"type": "object", "properties": {"min": {"type": "integer", "minimum": 1}, "max": {"type": "integer", "minimum": 1}},
     "required": ["min", "max"], "additionalProperties": False},
], "description": "a number such as 2, a range such as '2-4', or {min: 2, max: 4}"}

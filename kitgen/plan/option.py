"""One build option, declared once: its flag, `kitgen.toml` key, type, default, range and help.

`BuildOptions` declares each of its options as a dataclass field whose metadata is made by `option(...)`; the
Click flags, the settings file's keys and template, the manifest's record, serve's query and the variant folder
name are all read from that one declaration (`kitgen.plan.options.OPTIONS`).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from kitgen.core.choices import Choice
from kitgen.core.errors import UsageError

OPTION = "kitgen.option"  # the key of an option's declaration in its dataclass field's metadata


@dataclass(frozen=True)
class Option:
    """How one option is typed, read from settings, checked, recorded and named."""

    name: str  # the BuildOptions field: also the Click parameter's and the manifest record's name
    flag: str  # "--bleed"; a yes/no option with no default is "--fold/--no-fold"
    help: str
    kind: Any = str  # str, int, float, bool, Path, tuple (an X,Y offset in mm) or a Choice enum
    default: Any = None
    low: float | None = None  # the range of a number, both ends allowed
    high: float | None = None
    words: tuple[str, ...] = ()  # the fixed choices of a str option (paper)
    metavar: str | None = None
    label: str = ""  # how messages name it (default: the flag's words)
    example: str = ""  # a value for the commented settings file
    setting: str | None = ""  # the kitgen.toml key ("" : the flag's words with underscores; None: no key)
    named: bool = True  # part of the variant folder's name when not the default
    recorded: bool = True  # in the manifest's record of what the kit was built with (and its freshness check)
    variant: Callable[[Any], str] | None = None  # the folder-name part of a value (None: "<name>-<value>")
    valid: Callable[[Any], object] | None = None  # a further check of the converted value (ValueError: refused)

    @property
    def what(self) -> str:
        """The option as messages name it: `bleed`, `class size`."""
        return self.label or self.flag.split("/")[0].removeprefix("--").replace("-", " ")

    @property
    def key(self) -> str | None:
        """Its key in kitgen.toml, or None when the settings file cannot set it."""
        if self.setting is None:
            return None
        return self.setting or self.flag.split("/")[0].removeprefix("--").replace("-", "_")

    @property
    def choices(self) -> tuple[str, ...]:
        return self.kind.words() if _is_choice(self.kind) else self.words

    def unit(self) -> str:
        return " mm" if self.name.endswith("_mm") else ""

    def checked(self, value: Any, named: str | None = None) -> Any:
        """`value` (typed, from a settings file or a query) converted to this option's kind and checked against
        its range and choices; a UsageError naming the option (as `named`, else as messages name it) otherwise.
        None stays None."""
        if value is None:
            return None
        name = named or self.what
        converted = self._converted(value, name)
        self._within_range(converted, name)
        if self.valid is not None:
            try:
                self.valid(converted)
            except ValueError as error:
                raise UsageError(f"{name}: {error}") from None
        return converted

    def _converted(self, value: Any, name: str) -> Any:
        kind = self.kind
        if _is_choice(kind) or self.words:
            text = str(value).strip().lower() if isinstance(value, str) else None
            if text not in self.choices:
                raise UsageError(f"{name}: expected one of {', '.join(self.choices)}, got {value!r}")
            return kind(text) if _is_choice(kind) else text
        if kind is bool:
            if not isinstance(value, bool):
                raise UsageError(f"{name}: expected true or false, got {value!r}")
            return value
        if kind is int:
            if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str)
                                                                          and value.strip().isdigit())):
                raise UsageError(f"{name}: expected a whole number{self._range_words()}, got {value!r}")
            return int(value)
        if kind is float:
            number = _number(value)
            if number is None:
                raise UsageError(f"{name}: expected a number{self._range_words()}{self.unit()}, got {value!r}")
            return number
        if kind is tuple:  # an X,Y offset: "1.5,-0.8" typed, or [1.5, -0.8] in kitgen.toml
            if isinstance(value, str):
                return parse_offset(value)
            pair = tuple(_number(v) for v in value) if isinstance(value, (list, tuple)) else ()
            if len(pair) != 2 or None in pair:
                raise UsageError(f"{name}: expected X,Y in mm such as {self.example}, got {value!r}")
            return pair
        if not isinstance(value, (str, Path)) or not str(value).strip():
            raise UsageError(f"{name}: expected a text such as {self.example or 'a name'}, got {value!r}")
        return Path(value) if kind is Path else str(value)

    def _within_range(self, value: Any, name: str) -> None:
        numbers = value if isinstance(value, tuple) else (value,)
        for number in numbers:
            if not isinstance(number, (int, float)) or isinstance(number, bool):
                continue
            if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
                raise UsageError(f"{name}: expected a value{self._range_words()}{self.unit()}, got {number:g}")

    def _range_words(self) -> str:
        if self.low is None or self.high is None:
            return ""
        if isinstance(self.low, int) and self.kind is int:
            return f" from {self.low} to {self.high}"
        return f" between {self.low:g} and {self.high:g}"

    def folder_part(self, value: Any) -> str:
        """This option's part of a variant folder's name (`bleed3mm`, `class28`)."""
        if self.variant is not None:
            return self.variant(value)
        return f"{self.name.removesuffix('_mm').replace('_', '-')}-{plain(value)}"


def option(flag: str, help: str, **declared: Any) -> dict[str, dict[str, Any]]:
    """The metadata of a dataclass field that is an option (the field gives its name, type and default)."""
    return {OPTION: {"flag": flag, "help": help, **declared}}


def plain(value: object) -> str:
    """A value as a folder name writes it: `3`, `yes`, `1.5,-0.8`."""
    if isinstance(value, (list, tuple)):
        return ",".join(plain(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return "yes" if value is True else "no" if value is False else str(value)


def parse_offset(text: str) -> tuple[float, float]:
    """`'1.5,-0.8'` (millimetres) → (1.5, -0.8)."""
    match = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*(?:mm)?\s*", text)
    if not match:
        raise UsageError(f"expected a back offset in mm such as '1.5,-0.8', got {text!r}")
    return float(match[1]), float(match[2])


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _is_choice(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, Choice)


def _either(words: tuple[str, ...]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"

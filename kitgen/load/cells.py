"""A spreadsheet's cells as card values (text, data, counts), its column letters, and a name made an id."""
from __future__ import annotations

import re
import unicodedata
from typing import Any


def column_number(letters: str) -> int:
    """'A' → 1, 'AB' → 28."""
    number = 0
    for letter in letters.upper():
        number = number * 26 + ord(letter) - 64
    return number


def slug(text: str) -> str:
    """A name as an id: lower case, accents dropped, every run of other characters one '-', at most 63
    characters ('Polar bear' → 'polar-bear', 'Éléphant d'Asie' → 'elephant-d-asie'); '' when nothing is left."""
    plain = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(char for char in plain if not unicodedata.combining(char))
    made = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")
    return made[:63].rstrip("-")


def column_letters(number: int) -> str:
    """1 → 'A', 28 → 'AB'."""
    letters = ""
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def cell_text(value: Any) -> Any:
    """A cell as the text of a card field (numbers as they read); `count` keeps whole numbers."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return value


_INT = re.compile(r"[-+]?(0|[1-9]\d*)")
_FLOAT = re.compile(r"[-+]?\d+\.\d+")


def cell_datum(value: Any) -> Any:
    """A cell as a `data` value: numbers and true/false as in YAML, anything else as text."""
    if isinstance(value, str):
        if _INT.fullmatch(value) and len(value) < 19:
            return int(value)
        if _FLOAT.fullmatch(value):
            return float(value)
        if value.lower() in ("true", "false"):
            return value.lower() == "true"
    return value


def cell_count(value: Any) -> Any:
    return int(value) if isinstance(value, str) and _INT.fullmatch(value) and len(value) < 19 else value


def card_value(name: str, value: Any) -> Any:
    """A cell as the value of the card field `name`, as the cards are read from it."""
    return cell_count(value) if name == "count" else cell_text(value)

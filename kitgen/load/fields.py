"""The content model's field types: counts, names, texts, ids, lengths and card sizes, each with its limits
and the JSON Schema editors check as you type."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, PlainValidator, StringConstraints, WithJsonSchema
from pydantic_core import PydanticCustomError

from kitgen.core.units import parse_card_size, parse_length

MAX_COUNT = 10_000
MAX_PLAYERS = 40  # players of one kit: each gets their own sheets
MAX_PLACES = 100  # places of one mat (columns × rows)
MAX_MAT_SIDE = parse_length("2000mm")  # a mat's width and height, before it is tiled over sheets
MAX_HAND = 100  # cards in one worked hand

ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,62}$"
RESERVED_NAMES = frozenset({"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)), *(f"lpt{n}" for n in range(10))})


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_COUNT:
        if isinstance(value, int) and not isinstance(value, bool) and value > MAX_COUNT:
            raise PydanticCustomError("count", "expected a positive integer of at most {limit}, got {got}",
                                      {"limit": f"{MAX_COUNT:,}", "got": value})
        raise PydanticCustomError("count", "expected a positive integer, got {got}", {"got": repr(value)})
    return value


Count = Annotated[int, PlainValidator(_positive_int),
                  WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_COUNT})]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=5000)]
Url = Annotated[str, StringConstraints(strip_whitespace=True, pattern=r"^https?://[^\s<>\"]+$", max_length=500)]
Id = Annotated[str, StringConstraints(pattern=ID_PATTERN)]
FONT_NAME_PATTERN = r"^[^\s/\\.][^/\\]{0,63}$"  # a file stem of the library's fonts/ folder: no folder, no dot first
FontName = Annotated[str, StringConstraints(strip_whitespace=True, pattern=FONT_NAME_PATTERN),
                     WithJsonSchema({"anyOf": [{"enum": ["standard", "legible"]},
                                               {"type": "string", "pattern": FONT_NAME_PATTERN}]})]


def as_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


Paragraphs = Annotated[list[Text], BeforeValidator(as_list),
                      WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                                      "description": "a paragraph, or a list of paragraphs"})]


def _card_size(value: Any) -> str:
    try:
        parse_card_size(value)
    except ValueError as error:
        raise PydanticCustomError("card_size", str(error)) from None
    return str(value)


CardSizeSpec = Annotated[str, PlainValidator(_card_size),
                         WithJsonSchema({"type": "string", "examples": ["poker", "bridge", "mini", "tarot", "63x88mm"]})]


def _length(value: Any) -> float:
    try:
        return parse_length(value)
    except ValueError as error:
        raise PydanticCustomError("length", str(error)) from None


Length = Annotated[float, PlainValidator(_length),
                   WithJsonSchema({"type": "string", "pattern": r"^\d+(\.\d+)?\s*(mm|cm|in|pt)$",
                                   "examples": ["5mm", "0.25in"]})]
"""A length written with its unit ('70mm', '2.5in'); held in points."""

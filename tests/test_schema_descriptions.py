"""Every property of the JSON Schema has a description, which editors show on hover: the fields of every model
($defs and the top level) and the properties of the short forms written inside them (anyOf, items, if/then/else)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from kitgen.app.schema import activity_schema, schema_text
from kitgen.load.descriptions import describe

REPO = Path(__file__).resolve().parents[1]


def properties(schema: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    """(path, schema) of every property anywhere in `schema`."""
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from properties(item, f"{where}[{index}]")
    elif isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                for name, inner in value.items():
                    yield f"{where}.{name}", inner
                    yield from properties(inner, f"{where}.{name}")
            else:
                yield from properties(value, f"{where}/{key}")


def undescribed(schema: dict[str, Any]) -> list[str]:
    return [path for path, inner in properties(schema)
            if not (isinstance(inner, dict) and str(inner.get("description", "")).strip())]


def test_every_property_of_the_schema_has_a_description():
    schema = activity_schema()
    found = list(properties(schema))
    assert len(found) > 170  # the walk reaches $defs, the top level and the short forms
    paths = {path for path, _ in found}
    assert {".id", "/$defs/CardKind.qr", "/$defs/RecordSheet.columns/items/anyOf[1].width",
            ".players/anyOf[2].min", "/$defs/Deck.cards/else/anyOf[1].sheet"} <= paths
    missing = undescribed(schema)
    assert not missing, f"{len(missing)} properties have no description: {missing}"


def test_the_walk_finds_a_property_without_a_description():
    schema = {"properties": {"a": {"description": "A."},
                             "b": {"description": "B.", "anyOf": [{"properties": {"c": {}}}]}},
              "$defs": {"X": {"properties": {"d": {"description": " "}}}}}
    assert undescribed(schema) == [".b/anyOf[0].c", "/$defs/X.d"]


def test_a_description_of_a_field_the_model_lacks_is_an_error(monkeypatch):
    from kitgen.load import descriptions
    from kitgen.load.model import Activity

    describe(Activity.model_json_schema())
    monkeypatch.setitem(descriptions.FIELDS, "Back", {**descriptions.FIELDS["Back"], "colour": "No such field."})
    with pytest.raises(ValueError, match=r"Back\.colour"):
        describe(Activity.model_json_schema())


def test_descriptions_are_short_sentences():
    for path, inner in properties(activity_schema()):
        text = str(inner.get("description", ""))
        assert len(text) <= 240, f"{path}: {len(text)} characters"
        assert "<" not in text and " object at 0x" not in text


def test_the_schema_in_the_repository_is_the_generated_one():
    kept = (REPO / "schema" / "activity.schema.json").read_text(encoding="utf-8")
    assert json.loads(kept) == json.loads(schema_text()), "run: python -m kitgen schema -o schema/activity.schema.json"

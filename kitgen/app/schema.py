"""The JSON Schema of the content format, generated from the pydantic model."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kitgen.load.descriptions import describe
from kitgen.load.model import Activity
from kitgen.core.atomic import write_atomic

SCHEMA_ID = "https://kitgen.invalid/activity.schema.json"


def activity_schema() -> dict[str, Any]:
    """The schema editors use to complete and check activity files (the YAML language server)."""
    schema = describe(Activity.model_json_schema())  # every field's description, shown on hover
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = SCHEMA_ID
    schema["title"] = "kitgen activity"
    return schema


def schema_text() -> str:
    return json.dumps(activity_schema(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def write_schema(path: Path) -> None:
    write_atomic(Path(path), schema_text().encode())

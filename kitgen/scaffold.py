"""`kitgen new`: a new activity from a commented example that builds at once."""
from __future__ import annotations

import re
from pathlib import Path

from kitgen.errors import UsageError
from kitgen.load.model import ID_PATTERN
from kitgen.write import write_atomic

EXAMPLE = Path(__file__).resolve().parent / "examples" / "activity.yaml"


def scaffold(content: Path, activity_id: str) -> Path:
    """Write `<content>/<id>.yaml`; refuse bad ids and never overwrite."""
    if not re.fullmatch(ID_PATTERN, activity_id):  # (re.match's `$` accepts a final newline)
        raise UsageError(f"{activity_id!r} is not a valid id: use lower-case letters, digits and '-'")
    content.mkdir(parents=True, exist_ok=True)
    target = content / f"{activity_id}.yaml"
    if target.exists() or (content / activity_id).exists():
        raise UsageError(f"{target} already exists")
    title = activity_id.replace("-", " ").capitalize()
    text = EXAMPLE.read_text(encoding="utf-8").replace("new-activity", activity_id).replace("New activity", title)
    write_atomic(target, text.encode("utf-8"))
    return target

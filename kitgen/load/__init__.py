"""Load stage: YAML files → validated `Activity` models with source positions."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from kitgen.errors import ContentError, Problem, display_path
from kitgen.load.model import Activity
from kitgen.load.problems import validation_problems
from kitgen.load.yaml_source import SourceMap, read_yaml

__all__ = ["Activity", "LoadedActivity", "load_activity"]


@dataclass(frozen=True)
class LoadedActivity:
    """A validated activity with the file it came from and where each value sits in it."""

    activity: Activity
    path: Path
    source: SourceMap

    @property
    def folder(self) -> Path:
        """The folder whose files (templates, images) this activity may use."""
        return self.path.parent


def load_activity(path: Path) -> LoadedActivity:
    """Read and validate one activity file; every problem is reported at once as a ContentError."""
    data, source = read_yaml(path)
    if not isinstance(data, dict):
        raise ContentError([Problem(display_path(path), 1, 1,
                                    "expected a mapping of keys (id, title, rules, decks, ...) at the top level")])
    try:
        activity = Activity.model_validate(data)
    except ValidationError as error:
        raise ContentError(validation_problems(error, Activity, source)) from None
    return LoadedActivity(activity, path, source)

"""Load stage: YAML files → validated `Activity` models with source positions.

The names below are imported on first use, so that light callers (the up-to-date check of an
incremental build) can read YAML without paying for the validation model.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names as a type checker sees them; at run time __getattr__ below imports them
    from kitgen.load.editions import edition_file, edition_languages
    from kitgen.load.loader import LoadedActivity, load_activity, merge
    from kitgen.load.model import Activity

__all__ = ["Activity", "LoadedActivity", "edition_file", "edition_languages", "load_activity", "merge"]


def __getattr__(name: str) -> Any:
    if name == "Activity":
        from kitgen.load.model import Activity

        return Activity
    if name in __all__:
        from kitgen.load import loader

        return getattr(loader, name)
    raise AttributeError(name)

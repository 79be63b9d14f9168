"""Load stage: YAML files → validated `Activity` models with source positions.

The names below are imported on first use, so that light callers (the up-to-date check of an
incremental build) can read YAML without paying for the validation model.
"""
from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names as a type checker sees them; at run time __getattr__ below imports them
    from kitgen.load.editions import edition_file, edition_languages
    from kitgen.load.loader import LoadedActivity, load_activity, merge
    from kitgen.load.model import Activity

__all__ = ["Activity", "LoadedActivity", "edition_file", "edition_languages", "load_activity", "merge"]


PLUGIN_LOADER = "pydantic.plugin._loader"  # pydantic 2 asks it for `get_plugins` alone (tests/test_import_floor.py)


def skip_pydantic_plugins() -> None:
    """Validate content without looking for third-party pydantic plugins: their discovery imports importlib.metadata
    and the email package with it (about 33 ms of a cold build) to find none that kitgen runs. A start-up seam:
    the command line calls it before anything imports the content model."""
    if PLUGIN_LOADER not in sys.modules:
        loader = types.ModuleType(PLUGIN_LOADER, "kitgen's stand-in: no pydantic plugins")
        loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
        sys.modules[PLUGIN_LOADER] = loader


def __getattr__(name: str) -> Any:
    if name == "Activity":
        from kitgen.load.model import Activity

        return Activity
    if name in __all__:
        from kitgen.load import loader

        return getattr(loader, name)
    raise AttributeError(name)

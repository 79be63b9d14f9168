"""Read an activity (and its language edition) and validate it, collecting every problem with its position."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kitgen.core.errors import ContentError, display_path, Problem, UsageError
from kitgen.core.notes import Note
from kitgen.load.model import Activity
from kitgen.load.source import dotted
from kitgen.load.problems import validation_problems
from kitgen.load.editions import edition_file, edition_languages, language_of
from kitgen.load.spreadsheets import expand_tables, has_tables
from kitgen.load.yaml_source import read_yaml
from kitgen.locale import available_languages, library_locale
from kitgen.load.source import Location, SourceMap

@dataclass(frozen=True)
class LoadedActivity:
    """A validated activity with the file it came from and where each value sits in it."""

    activity: Activity
    path: Path
    source: SourceMap
    overlay: Path | None = None  # the edition file merged over `path`, if any
    tables: tuple[Path, ...] = ()  # the spreadsheets its cards (or labels) were read from
    problems: tuple[Problem, ...] = ()  # found reading its spreadsheets, still to be reported (load_activity's gather)
    notes: tuple[Note, ...] = ()  # what the quality report should say of its spreadsheets

    @property
    def files(self) -> list[Path]:
        """Every content file this edition was read from: YAML, then spreadsheets."""
        return [self.path] + ([self.overlay] if self.overlay else []) + list(self.tables)

    @property
    def folder(self) -> Path:
        """The folder whose files (templates, images) this activity may use."""
        return self.path.parent


def merge(base: Any, overlay: Any, problems: list[tuple[Location, str]] | None = None, loc: Location = ()) -> Any:
    """Deep merge: mappings key by key, lists item by item, anything else replaced by the overlay.

    A list of mappings whose length differs from the base's is reported in `problems`: an edition
    translates the items, it does not add or drop them.
    """
    if isinstance(base, dict) and isinstance(overlay, dict):
        return {**base, **{k: merge(base[k], v, problems, loc + (k,)) if k in base else v
                           for k, v in overlay.items()}}
    if isinstance(base, list) and isinstance(overlay, list):
        if len(base) == len(overlay):
            return [merge(b, o, problems, loc + (i,)) for i, (b, o) in enumerate(zip(base, overlay))]
        if problems is not None and any(isinstance(item, dict) for item in base):
            problems.append((loc, f"the edition lists {len(overlay)} items where the base file has {len(base)}; "
                                  "expected the same items, translated, in the same order"))
    return overlay


def _mapping(data: Any, path: Path) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ContentError([Problem(display_path(path), 1, 1,
                                    "expected a mapping of keys (id, title, rules, decks, ...) at the top level")])
    return data


def _library_catalogs(path: Path) -> tuple[Path, ...]:
    """The library's `locale/` beside its `content/`, for an activity file in content/ or in a folder of it."""
    return tuple(folder for base in (path.parent, path.parent.parent) for folder in library_locale(base)
                 if folder.is_dir())


def load_activity(path: Path, language: str | None = None, *, gather: bool = False) -> LoadedActivity:
    """Read and validate one activity (in one language edition); every problem is reported at once. With `gather`,
    the problems of its spreadsheets that leave it valid (a column without a heading) are kept in `problems`, for
    the content checks to report with their own, instead of raised."""
    from kitgen.load.placeholders import new_activity

    new_activity()  # its placeholders (generated cards, checks, the build) share one budget
    data, source = read_yaml(path)
    data = _mapping(data, path)
    overlay_path = None
    if language is not None and language != language_of(data):  # (the file's own `language: 7` is validated below)
        overlay_path = edition_file(path, language)
        if not overlay_path.is_file():
            known = ", ".join([language_of(data), *edition_languages(path)])
            raise UsageError(f"no {language!r} edition of {path.stem if path.stem != 'activity' else path.parent.name}"
                             f"; editions: {known}")
        overlay, overlay_source = read_yaml(overlay_path)
        mismatched: list[tuple[Location, str]] = []
        data = merge(data, _mapping(overlay, overlay_path), mismatched)
        if mismatched:
            raise ContentError([overlay_source.problem(loc, f"{dotted(loc)}: {message}")
                                for loc, message in mismatched])
        data["language"] = language
        source = source.overlaid(overlay_source)
    tables: list[Path] = []
    problems: list[Problem] = []
    unread: frozenset[Location] = frozenset()
    notes: tuple[Note, ...] = ()
    if has_tables(data):
        expanded = expand_tables(data, source, path.parent, language_of(data),
                                 available_languages(_library_catalogs(path)))
        data, source, tables, problems, unread = (expanded.data, expanded.source, expanded.files, expanded.problems,
                                                  expanded.unread)
        notes = expanded.notes
    try:
        activity = Activity.model_validate(data, context={"language": language_of(data),
                                                          "catalogs": _library_catalogs(path)})
    except ValidationError as error:  # with the sheets' problems: every one at once
        raise ContentError(problems + validation_problems(error, Activity, source, unread=unread)) from None
    if problems and not gather:
        raise ContentError(problems)
    return LoadedActivity(activity, path, source, overlay_path, tuple(tables), tuple(problems), notes)

"""An error as `kitgen serve`'s page lists it: each line with its place and the source line it names."""
from __future__ import annotations

import re
from pathlib import Path
from typing import TypedDict

from kitgen.core.errors import ContentError, KitgenError
from kitgen.core.errors import SHOWN_PROBLEMS as SHOWN_PROBLEMS  # the page lists as many as a command prints


class _Message(TypedDict):
    message: str


class ShownProblem(_Message, total=False):
    """One line of an error as the page shows it: its message, and where it is when it names a place."""

    file: str
    line: int
    column: int
    text: str  # the source line


_LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)$")


def located(error: BaseException) -> list[ShownProblem]:
    """The first SHOWN_PROBLEMS lines of an error, each with `file`, `line`, `column` and the source line's
    `text` when it names a place (each file named is read once), then one line saying how many more there are."""
    if isinstance(error, ContentError):
        lines = [str(problem) for problem in error.problems]
    elif isinstance(error, KitgenError):
        lines = str(error).splitlines() or [type(error).__name__]
    else:
        lines = [f"internal error: {type(error).__name__}: {error}"]
    sources: dict[str, list[str]] = {}
    shown = [_located_line(text, sources) for text in lines[:SHOWN_PROBLEMS]]
    more = len(lines) - SHOWN_PROBLEMS
    if more > 0:
        shown.append({"message": f"and {more} more problem{'s' if more != 1 else ''}"})
    return shown


def _located_line(text: str, sources: dict[str, list[str]]) -> ShownProblem:
    """One line of an error; the lines of the files read so far are kept in `sources`, by name."""
    match = _LOCATED.match(text)
    if not match:
        return {"message": text}
    file, line = match["file"], int(match["line"])
    if file not in sources:
        sources[file] = _source_lines(file)
    source = sources[file]
    return {"file": file, "line": line, "column": int(match["column"]), "message": match["message"],
            "text": source[line - 1] if 0 < line <= len(source) else ""}


def _source_lines(file: str) -> list[str]:
    """A source file's lines ([] when it cannot be read as UTF-8)."""
    try:
        return Path(file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []

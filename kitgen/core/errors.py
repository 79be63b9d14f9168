"""Errors a user sees. Each carries enough to print `file:line:column: message` without a traceback."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_LOCATED = re.compile(r"(?P<file>[^\n]+?):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)", re.S)


@dataclass(frozen=True)
class Problem:
    """One located problem in a content file."""

    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message}"

    @classmethod
    def parse(cls, text: str) -> Problem | None:
        """The problem a `file:line:column: message` text states, or None when it names no place."""
        match = _LOCATED.fullmatch(text)
        if match is None:
            return None
        return cls(match["file"], int(match["line"]), int(match["column"]), match["message"])


class KitgenError(Exception):
    """Base of every error kitgen reports to the user; `exit_code` follows the CLI's convention."""

    exit_code = 1


class ContentError(KitgenError):
    """The content is invalid: one or more located problems (exit status 2)."""

    exit_code = 2

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems, key=lambda p: (p.file, p.line, p.column))
        super().__init__("\n".join(str(p) for p in self.problems))


class UsageError(KitgenError):
    """A bad option or an unknown activity (exit status 2)."""

    exit_code = 2


class PlanError(UsageError):
    """What was asked cannot be laid out on the paper (a card larger than the page); `loc` is the content
    field that asked for it, when it came from the content."""

    def __init__(self, message: str, loc: tuple[str | int, ...] | None = None):
        super().__init__(message)
        self.loc = loc


class BuildError(KitgenError):
    """The content is valid but the kit cannot be made as asked (exit status 1)."""

    exit_code = 1


class UnprintableContent(BuildError):
    """Content that validates but cannot be printed: text too long for its box, a glyph no font has (exit 2)."""

    exit_code = 2


def display_path(path: Path) -> str:
    """A path as the user would type it: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def describe_os_error(error: OSError) -> str:
    """A file-system failure (a folder that cannot be created, a file that cannot be written or read) as a
    user should see it: the path and the system's reason, e.g. `out/kit.pdf: Permission denied`."""
    reason = error.strerror or str(error)
    return f"{display_path(Path(error.filename))}: {reason}" if error.filename else reason

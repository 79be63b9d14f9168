"""Errors a user sees. Each carries enough to print `file:line:column: message` without a traceback."""
from __future__ import annotations

import difflib
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


MAX_HINTS = 50  # "did you mean" suggestions looked for in one list of problems


class Hints:
    """'Did you mean' for misspelt names, looked for up to MAX_HINTS times (each search compares the name with
    every choice): a file of 100,000 unknown keys costs 100,000 problems, not 100,000 searches (the problems
    past the first ones are not shown anyway). One Hints for each list of problems being made."""

    def __init__(self, budget: int = MAX_HINTS) -> None:
        self.budget = budget

    def spend(self) -> bool:
        """True, and one search fewer left; False when none is left."""
        if self.budget <= 0:
            return False
        self.budget -= 1
        return True

    def close(self, name: str, choices: list[str]) -> str | None:
        if not self.spend():
            return None
        found = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
        return found[0] if found else None


class KitgenError(Exception):
    """Base of every error kitgen reports to the user; `exit_code` follows the CLI's convention."""

    exit_code = 1


SHOWN_PROBLEMS = 100  # the problems an error prints; one more line says how many more there are


class ContentError(KitgenError):
    """The content is invalid: one or more located problems (exit status 2). Its text is the first
    SHOWN_PROBLEMS of them, in file order, then `… and N more problems`: a file with 100,000 mistakes prints a
    page, not 100,000 lines (`problems` keeps every one)."""

    exit_code = 2

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems, key=lambda p: (p.file, p.line, p.column))
        lines = [str(p) for p in self.problems[:SHOWN_PROBLEMS]]
        more = len(self.problems) - len(lines)
        if more:
            lines.append(f"… and {more:,} more problem{'s' if more != 1 else ''}")
        super().__init__("\n".join(lines))


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

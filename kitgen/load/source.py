"""Where content came from: every value's file, line and column, and problems named by that place (or by a
spreadsheet cell)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kitgen.core.errors import Problem

_RENDERED = re.compile(r"(?P<path>[A-Za-z_]\w*(?:\[\d+\]|\.[A-Za-z_]\w*)*)(?P<what> \([^)]*\))?"
                       r"(?:, (?P<key>[a-z_]+))?: (?P<rest>.*)", re.S)
_PART = re.compile(r"\[\d+\]|\.?[A-Za-z_]\w*")
_PATH_PREFIX = re.compile(r"^[A-Za-z_]\w*(?:\[\d+\]|\.[A-Za-z_]\w*)*: ")


@dataclass(frozen=True)
class CellProblem(Problem):
    """A problem in a spreadsheet cell (or row), named as a spreadsheet user would: file, sheet, cell, column."""

    label: str = ""

    def __str__(self) -> str:
        return f"{self.label}: {self.message}"


Location = tuple[Any, ...]  # ('decks', 1, 'cards', 0, 'count')
Position = tuple[str, int, int]  # file, line, column (1-based)


@dataclass
class SourceMap:
    """Where each value (by location path) and each mapping key starts in the file (1-based)."""

    file: str
    values: dict[Location, Position] = field(default_factory=dict)
    keys: dict[Location, Position] = field(default_factory=dict)
    cells: dict[Location, str] = field(default_factory=dict)  # values read from a spreadsheet: how to name the cell
    # a card field that a spreadsheet's `card:` template gave every row → where the template writes it
    templates: dict[Location, Location] = field(default_factory=dict)

    def position(self, loc: Location, *, key: bool = False) -> Position:
        """The position of `loc`, or of its nearest ancestor that has one."""
        table = self.keys if key and loc in self.keys else self.values
        while loc not in table and loc:
            loc = loc[:-1]
            table = self.values
        return table.get(loc, (self.file, 1, 1))

    def problem(self, loc: Location, message: str, *, key: bool = False) -> Problem:
        loc = tuple(loc)
        if self.cells:  # a value from a spreadsheet is named by its cell: `animals.csv:14:3 (column 'habitat')`
            probe = loc
            while probe and probe not in self.values:
                probe = probe[:-1]
            if probe in self.cells:
                return CellProblem(*self.values[probe], strip_location(message), label=self.cells[probe])
        return Problem(*self.position(loc, key=key), message)

    def at_cell(self, problem: Problem) -> Problem:
        """A problem of a later stage about a value read from a spreadsheet (`animals.xlsx:4:1: decks[0].cards[2]
        (card 'camel'), text: ...`), named by its cell as the load stage names it (`animals.xlsx, sheet Animals, G4
        (column 'text'): card 'camel': ...`); any other problem as it is."""
        found = _RENDERED.fullmatch(problem.message) if self.cells and not isinstance(problem, CellProblem) else None
        if found is None:
            return problem
        loc = tuple(int(part[1:-1]) if part.startswith("[") else part.lstrip(".")
                    for part in _PART.findall(found["path"]))
        for probe in ((loc + (found["key"],)) if found["key"] else loc, loc):
            if probe in self.cells and self.values.get(probe, ("",))[0] == problem.file:
                what = found["what"].strip()[1:-1] + ": " if found["what"] else ""
                return CellProblem(*self.values[probe], what + found["rest"], label=self.cells[probe])
        return problem

    def overlaid(self, other: "SourceMap") -> "SourceMap":
        """Positions of `other` (an edition overlay) where it has them, else ours."""
        return SourceMap(self.file, {**self.values, **other.values}, {**self.keys, **other.keys},
                         {**self.cells, **other.cells}, {**self.templates, **other.templates})



def dotted(loc: Location) -> str:
    """('decks', 1, 'cards', 0, 'count') → 'decks[1].cards[0].count'."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def strip_location(message: str) -> str:
    """'decks[0].cards[3].count: expected ...' → 'expected ...' (the cell already says where)."""
    return _PATH_PREFIX.sub("", message, count=1)



"""Quality notes as values: what render found that prints but reads or uses the paper poorly.

Render makes them (`kitgen.render.quality`), the manifest keeps them (`to_json` / `from_json`), and every
command's report counts them by their kind (`kitgen.app.report`): nothing reads a note's wording to know
what it is about.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class NoteKind(str, Enum):
    """What a note is about; its value is the word the manifest keeps."""

    SHRUNK = "shrunk"  # a card text set below its body size to fit
    GREYSCALE = "greyscale"  # a coloured text that a grayscale printer makes hard to read
    UNTRANSLATED = "untranslated"  # fixed strings printed in English in another edition
    SMALL_BODY = "small-body"  # a page of a player file whose body text prints below `BODY_MINIMUM`
    SHEET_UNUSED = "sheet-unused"  # a card sheet or mat part that uses under a quarter of the paper
    PAGE_EMPTY = "page-empty"  # a page more than two-thirds empty
    FACE_BOTTOM_EMPTY = "face-bottom-empty"  # a card face with nothing in its bottom third
    TYPED_NUMBER = "typed-number"  # a number typed into a player's text that repeats a card's data
    UNTRANSLATED_CELL = "untranslated-cell"  # a spreadsheet's FIELD_LL column with empty cells, printed untranslated
    ENCODING = "encoding"  # a spreadsheet saved as plain "CSV" (Windows' Western European), not UTF-8
    FONT_LICENCE = "font-licence"  # a font of the library's fonts/ folder with no licence file beside it
    OTHER = "other"

    def __str__(self) -> str:
        return self.value

    def counted(self, count: int) -> str:
        """`3 texts shrunk below their body size`: how the report's summary line counts notes of this kind."""
        one, many = _COUNTED[self]
        return f"{count:,} {one if count == 1 else many}"


_COUNTED: dict[NoteKind, tuple[str, str]] = {
    NoteKind.SHRUNK: ("text shrunk below its body size", "texts shrunk below their body size"),
    NoteKind.GREYSCALE: ("colour weak in grayscale", "colours weak in grayscale"),
    NoteKind.UNTRANSLATED: ("edition with untranslated strings", "editions with untranslated strings"),
    NoteKind.SMALL_BODY: ("page with body text below 10 pt", "pages with body text below 10 pt"),
    NoteKind.SHEET_UNUSED: ("sheet under a quarter used", "sheets under a quarter used"),
    NoteKind.PAGE_EMPTY: ("page more than two-thirds empty", "pages more than two-thirds empty"),
    NoteKind.FACE_BOTTOM_EMPTY: ("card face with an empty bottom third", "card faces with an empty bottom third"),
    NoteKind.TYPED_NUMBER: ("number typed where a card's data should be printed",
                            "numbers typed where a card's data should be printed"),
    NoteKind.UNTRANSLATED_CELL: ("spreadsheet column with untranslated cells",
                                 "spreadsheet columns with untranslated cells"),
    NoteKind.ENCODING: ("spreadsheet not saved as UTF-8", "spreadsheets not saved as UTF-8"),
    NoteKind.FONT_LICENCE: ("font without a licence file", "fonts without a licence file"),
    NoteKind.OTHER: ("other", "other"),
}


@dataclass(frozen=True)
class Note:
    """One quality note: its kind, where it is (the content it comes from, the output file and page when known),
    what it says, and the figures it was measured from (points, fractions)."""

    kind: NoteKind
    what: str  # the sentence, without its place: "text shrunk to 8 pt (body size 10 pt)"
    where: str = ""  # the content it comes from: `file:line:column: decks[0].cards[1] (card 'C2')`
    file: str = ""  # the output file's name
    page: int = 0  # 1-based; 0 when the note is about no one page
    figures: tuple[tuple[str, float], ...] = field(default=())

    def __str__(self) -> str:
        """The line the report prints: its place, then what it says."""
        place = self.where or (f"{self.file}, page {self.page}" if self.page else self.file)
        return f"{place}: {self.what}" if place else self.what

    def figure(self, name: str) -> float:
        return dict(self.figures)[name]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "what": self.what, "where": self.where, "file": self.file,
                "page": self.page, "figures": dict(self.figures)}

    @classmethod
    def from_json(cls, data: object) -> Note:
        """A note as a manifest keeps it (a manifest of an older kitgen kept the printed line alone)."""
        if not isinstance(data, dict):
            return cls(NoteKind.OTHER, str(data))
        try:
            kind = NoteKind(data.get("kind"))
        except ValueError:
            kind = NoteKind.OTHER
        figures = data.get("figures") or {}
        return cls(kind, str(data.get("what", "")), str(data.get("where", "")), str(data.get("file", "")),
                   int(data.get("page", 0) or 0),
                   tuple((str(k), float(v)) for k, v in figures.items()) if isinstance(figures, dict) else ())

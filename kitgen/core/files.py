"""A kit's files as the stages pass them on: what each file is for, and what one build made."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kitgen.core.notes import Note

if TYPE_CHECKING:
    from kitgen.core.display import Document


def kit_folder_name(activity_id: str, language: str, several_editions: bool) -> str:
    """`growing-discard`, or `trash-ro` when the activity has more than one language edition."""
    return f"{activity_id}-{language}" if several_editions else activity_id



class Role(str, Enum):
    """What an output file is for; its value is the word used in manifests and file names."""

    CARDS = "cards"
    OPTIONAL_CARDS = "optional-cards"
    SLIPS = "slips"
    MAT = "mat"
    SHEETS = "sheets"
    HOST_KEY = "host-key"
    PRINT_GUIDE = "print-guide"

    def __str__(self) -> str:
        return self.value

    @property
    def card_stock(self) -> bool:
        """Printed two-sided on card stock (the rest on plain paper)."""
        return self in (Role.CARDS, Role.OPTIONAL_CARDS)

    @property
    def for_players(self) -> bool:
        return self is not Role.HOST_KEY


@dataclass(frozen=True)
class OutputFile:
    """One file of a kit: rendered (its display list and PDF in memory), written, or read back from a manifest."""

    path: Path  # the file's name alone until the build places it in the kit's folder
    role: Role
    pages: int
    sheets: int = 0  # sheets of paper or card stock; 0 means one per page
    document: Document | None = field(default=None, repr=False, compare=False)  # what render drew
    data: bytes = field(default=b"", repr=False, compare=False)  # the PDF
    # a print shop's backs file: for each of its pages, the numbers of the front pages that back goes behind
    backs: tuple[tuple[int, ...], ...] = field(default=(), compare=False)
    decks: tuple[str, ...] = field(default=(), compare=False)  # and the name of each back's deck

    def __post_init__(self) -> None:
        object.__setattr__(self, "role", Role(self.role))
        if not self.sheets:
            object.__setattr__(self, "sheets", self.pages)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def for_players(self) -> bool:
        return self.role.for_players


@dataclass
class BuildResult:
    activity_id: str
    language: str
    folder: Path
    files: list[OutputFile] = field(default_factory=list)
    skipped: bool = False  # up to date, nothing written
    quality: list[Note] = field(default_factory=list)  # what prints but reads or uses the paper poorly
    summary: dict[str, Any] = field(default_factory=dict)  # JSON, as the manifest holds it: title, purpose, category, players, minutes, language
    pictures: list[Path] = field(default_factory=list)  # PNGs of the card designs, when asked for

    @property
    def pages(self) -> int:
        return sum(f.pages for f in self.files)

    def sheets(self, card_stock: bool) -> int:
        """Sheets of paper (card files print two-sided on card stock)."""
        return sum(f.sheets for f in self.files if f.role.card_stock == card_stock)



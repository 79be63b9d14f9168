"""The library as a table (`kitgen list`) and what `kitgen check -v` says it checked."""
from __future__ import annotations

from pathlib import Path

from kitgen.core.errors import ContentError, UsageError
from kitgen.load import load_activity
from kitgen.load.editions import editions
from kitgen.load.library import Library, refuse_outside

HEADINGS = ("id", "title", "players", "minutes", "editions")


def cell(text: str, width: int = 48) -> str:
    """One table cell on one line, at most `width` characters (a long title is cut with '…')."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 1] + "…"


def library_rows(library: Library, activity_ids: tuple[str, ...] | list[str] = (),
                 with_files: bool = False) -> list[tuple[str, ...]]:
    """The table's rows, headings first: id, title, players, minutes, editions (and the file, never cut). An
    activity that cannot be read still gets its row, saying so."""
    rows: list[tuple[str, ...]] = [HEADINGS + (("file",) if with_files else ())]
    for activity_id, path in library.activity_files().items():
        if activity_ids and activity_id not in activity_ids:
            continue
        try:
            refuse_outside(library, path)
            activity = load_activity(path).activity
            row: tuple[str, ...] = (activity_id, activity.title, str(activity.players), str(activity.minutes),
                                    ", ".join(editions(path)))
        except ContentError:
            row = (activity_id, "(invalid: kitgen check shows why)", "", "", "")
        except UsageError:
            row = (activity_id, "(refused: kitgen check shows why)", "", "", "")
        row = tuple(cell(text) for text in row)
        rows.append(row + ((str(path),) if with_files else ()))
    return rows


def table(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows as aligned lines of text."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(text.ljust(width) for text, width in zip(row, widths)).rstrip() for row in rows]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def checked_summary(path: Path, languages: list[str] | None) -> str:
    """What `check -v` says was checked: the file, its editions and its cards."""
    languages = languages or list(editions(path))
    activity = load_activity(path).activity
    cards = sum(card.count for deck in activity.decks for card in deck.cards)
    return (f"{path}; edition{'s' if len(languages) != 1 else ''} {', '.join(languages)}; "
            f"{_plural(cards, 'card')} in {_plural(len(activity.decks), 'deck')}")

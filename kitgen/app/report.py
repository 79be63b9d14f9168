"""What a command reports: each activity's outcome, the summary table, and the quality report of built kits."""
from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Protocol, Sequence

from kitgen.core.atomic import write_atomic
from kitgen.core.errors import describe_os_error
from kitgen.core.files import BuildResult
from kitgen.core.notes import Note, NoteKind


@dataclass
class ActivityReport:
    """The outcome for one activity: its editions' results, or the error that stopped it."""

    activity_id: str
    results: list[BuildResult] = field(default_factory=list)
    error: str | None = None
    exit_code: int = 0
    thumbnails: dict[str, bytes] = field(default_factory=dict)  # kit folder name → JPEG of its first card sheet
    failed_editions: dict[str, str] = field(default_factory=dict)  # language → why that edition failed (others built)

    @property
    def status(self) -> str:
        if self.error:
            return "partly built" if self.results and any(not r.skipped for r in self.results) else "failed"
        return "up to date" if all(r.skipped for r in self.results) else "built"



def summary_table(reports: list[ActivityReport]) -> str:
    """A plain-text table: activity, files, pages, sheets of paper and of card stock, status."""
    rows = [("activity", "files", "pages", "paper", "card stock", "status")]
    for report in reports:
        for result in report.results:
            rows.append((Path(result.folder).name, str(len(result.files)), str(result.pages),
                         str(result.sheets(False)), str(result.sheets(True)),
                         "up to date" if result.skipped else "built"))
        if report.error:  # the activity, or each edition that failed
            for language in report.failed_editions or {"": ""}:
                shown = f"{report.activity_id} ({language})" if language else report.activity_id
                rows.append((shown, "-", "-", "-", "-", "failed"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    statuses = [row[-1] for row in rows[1:]]  # the summary counts the table's rows: one per kit (edition)
    lines.append(f"{statuses.count('built')} built, {statuses.count('up to date')} up to date, "
                 f"{statuses.count('failed')} failed")
    return "\n".join(lines)


REPORT_FILE = "quality.txt"  # every note of a kit, one a line, in the kit's folder
SHOWN = 10  # at most this many notes are listed on the terminal too (none with --quiet)
NO_NOTES = ("quality report: no text shrunk below its body size, no missing glyphs, no colour too light for "
            "grayscale, no small body text, no sheet or page mostly empty")


class _Kit(Protocol):  # what the report reads of a kit's result
    @property
    def folder(self) -> Path | str: ...
    @property
    def quality(self) -> list[Note]: ...


def write_report(folder: Path | str, notes: Sequence[Note]) -> Path | None:
    """Write the kit's notes to `quality.txt` in its folder and return its path; with no notes, remove a file
    left by an earlier build and return None. The file is not rewritten when it already holds the notes."""
    path = Path(folder) / REPORT_FILE
    if not notes:
        path.unlink(missing_ok=True)
        return None
    data = "".join(f"{note}\n" for note in notes).encode()
    try:
        if path.read_bytes() == data:
            return path
    except OSError:
        pass
    write_atomic(path, data)
    return path


def _kinds(notes: Sequence[Note]) -> str:
    """`3 texts shrunk below their body size, 1 colour weak in grayscale`: the notes counted by kind."""
    counts = Counter(note.kind for note in notes)
    return ", ".join(kind.counted(counts[kind]) for kind in NoteKind if counts[kind])


@dataclass
class QualityReport:
    """The quality notes of built kits, with where each kit's full list is written."""

    kits: list[tuple[str, list[Note], Path | None]]  # kit folder name, its notes, its list's file
    unwritten: list[str] = field(default_factory=list)  # why a kit's list could not be written
    must_show: int = 0  # the notes of a kit whose list could not be written are all shown

    @classmethod
    def of(cls, results: Iterable[_Kit]) -> QualityReport:
        """The report of `results`, each kit's list written to its folder (`write_report`)."""
        made = cls([])
        for result in results:
            try:
                path = write_report(result.folder, result.quality)
            except OSError as error:
                made.unwritten.append(f"quality report: could not write {Path(result.folder) / REPORT_FILE}: "
                                      f"{describe_os_error(error)}")
                path, made.must_show = None, max(made.must_show, len(result.quality))
            made.kits.append((Path(result.folder).name, list(result.quality), path))
        return made

    @property
    def notes(self) -> list[Note]:
        return [note for _, notes, _ in self.kits for note in notes]

    def count(self, kind: NoteKind) -> int:
        return sum(note.kind is kind for note in self.notes)

    def lines(self, show: int = SHOWN) -> list[str]:
        """As terminal lines: a summary line with the count and where the full list is, and the notes themselves
        only when there are at most `show` (all of them when a list could not be written)."""
        lines, show = list(self.unwritten), max(show, self.must_show)
        everything = [f"{name}: {note}" for name, notes, _ in self.kits for note in notes]
        if not everything:
            return lines + [NO_NOTES]
        written = [(name, len(notes), path) for name, notes, path in self.kits if path is not None]
        count = f"{len(everything):,} note{'s' if len(everything) != 1 else ''}"
        if len(written) == 1:
            lines.append(f"quality report: {count} ({_kinds(self.notes)}), full list in {written[0][2]}")
        else:
            lines.append(f"quality report: {count} in {len(written)} kits ({_kinds(self.notes)}), "
                         f"each kit's full list in its folder's {REPORT_FILE}")
            if show:
                lines += [f"  {name}: {n:,} note{'s' if n != 1 else ''} in {path}" for name, n, path in written[:show]]
                if len(written) > show:
                    lines.append(f"  … and {len(written) - show} more kits")
        if len(everything) <= show:
            lines += [f"  - {line}" for line in everything]
        return lines


def report(results: Iterable[_Kit], show: int = SHOWN) -> list[str]:
    """The quality report of built kits as terminal lines (`QualityReport.lines`); writes each kit's list."""
    return QualityReport.of(results).lines(show)


def _pages(count: int) -> str:
    return f"{count} page{'s' if count != 1 else ''}"


def written(result: BuildResult, level: int = 0, png_dpi: int | None = None) -> list[str]:
    """What a build of one kit says: up to date, or every file written (none with `level` < 0; every card picture
    with `level` > 0)."""
    if result.skipped:
        return [f"{result.folder}: up to date (use --force to rebuild)"]
    if level < 0:
        return []
    lines = [f"wrote {file.path}  ({_pages(file.pages)})" for file in result.files]
    if result.pictures:
        lines.append(f"wrote {len(result.pictures)} card pictures in {result.pictures[0].parent}/  ({png_dpi} dpi)")
        if level > 0:
            lines += [f"wrote {picture}" for picture in result.pictures]
    return lines


def library_exit_code(reports: list[ActivityReport], index_written: bool) -> int:
    """`build --all`'s exit status: 2 when some activities' content is invalid, 1 when some kits failed otherwise
    (the others were built) or the index could not be written, else 0."""
    if not index_written:
        return 1
    return max([report.exit_code or 1 for report in reports if report.error], default=0)


def shown_notes(level: int) -> int:
    """How many quality notes the terminal lists: none with --quiet, `SHOWN` by default, all with --verbose."""
    return 0 if level < 0 else SHOWN if level == 0 else sys.maxsize

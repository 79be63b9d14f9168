"""Quality notes gathered while rendering: shrunk text and colours that read poorly in grayscale."""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

_notes: ContextVar[list[str] | None] = ContextVar("quality_notes", default=None)
MIN_CONTRAST = 4.5  # WCAG's ratio for body text


@contextmanager
def collecting() -> Iterator[list[str]]:
    """Collect notes made while the block runs (each note once, in order)."""
    notes: list[str] = []
    token = _notes.set(notes)
    try:
        yield notes
    finally:
        _notes.reset(token)


def note(message: str) -> None:
    notes = _notes.get()
    if notes is not None and message not in notes:
        notes.append(message)


def grey_level(rgb: tuple[float, float, float]) -> float:
    """Relative luminance of an sRGB colour: what a grayscale printer makes of it (0 black … 1 white)."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_on_white(rgb: tuple[float, float, float]) -> float:
    return 1.05 / (grey_level(rgb) + 0.05)


def unprintable_problems(files, locate: Callable[[str], str | None] = lambda char: None) -> list[str]:
    """Every character of any text of any file that no bundled font can draw, or that kitgen cannot print
    truthfully (right-to-left script, beyond U+FFFF), with where it comes from: `locate(char)` names the content
    field that holds it when render did not record an origin."""
    from kitgen.render.fonts import UNSUPPORTED, missing_glyphs, unsupported_characters

    found: dict[tuple[str, str], str] = {}
    for file in files:
        if file.document is None:
            continue
        texts = list(file.document.distinct_texts())
        joined = "".join(text.text for text in texts)
        if not missing_glyphs(joined) and not UNSUPPORTED.search(joined):
            continue  # the usual case: one look at all of the file's text
        for text in texts:
            missing = missing_glyphs(text.text)
            for char in missing:
                where = text.origin or locate(char) or file.name
                found.setdefault((where, char), f"{where}: the bundled font cannot draw {char!r} (U+{ord(char):04X}) "
                                                f"in {text.text[:60]!r}")
            for char, why in unsupported_characters(text.text).items():
                if char not in missing:
                    where = text.origin or locate(char) or file.name
                    found.setdefault((where, char), f"{where}: {char!r} (U+{ord(char):04X}) in {text.text[:60]!r}: "
                                                    f"{why}")
    return list(found.values())


REPORT_FILE = "quality.txt"  # every note of a kit, one a line, in the kit's folder
SHOWN = 10  # at most this many notes are listed on the terminal too (none with --quiet)


def write_report(folder, notes: list[str]):
    """Write the kit's notes to `quality.txt` in its folder and return its path; with no notes, remove a file
    left by an earlier build and return None. The file is not rewritten when it already holds the notes."""
    from pathlib import Path

    from kitgen.write import write_atomic

    path = Path(folder) / REPORT_FILE
    if not notes:
        path.unlink(missing_ok=True)
        return None
    data = "".join(f"{line}\n" for line in notes).encode()
    try:
        if path.read_bytes() == data:
            return path
    except OSError:
        pass
    write_atomic(path, data)
    return path


def _kinds(notes: list[str]) -> str:
    shrunk = sum(" shrunk to " in n for n in notes)
    grey = sum(" hard to read in grayscale" in n for n in notes)
    parts = [f"{shrunk:,} text{'s' if shrunk != 1 else ''} shrunk below {'their' if shrunk != 1 else 'its'} body size"
             if shrunk else "", f"{grey:,} colour{'s' if grey != 1 else ''} weak in grayscale" if grey else "",
             f"{len(notes) - shrunk - grey:,} other" if len(notes) > shrunk + grey else ""]
    return ", ".join(p for p in parts if p)


def report(results, show: int = SHOWN) -> list[str]:
    """The quality report of built kits (each with `.folder` and `.quality`) as terminal lines: a summary line
    with the count and where the full list is, and the notes themselves only when there are at most `show`.
    Writes each kit's list to its folder (`write_report`)."""
    from pathlib import Path

    from kitgen.errors import describe_os_error

    lines: list[str] = []
    written: list[tuple[str, int, Path]] = []
    everything: list[str] = []
    for result in results:
        name = Path(result.folder).name
        try:
            path = write_report(result.folder, list(result.quality))
        except OSError as error:
            lines.append(f"quality report: could not write {Path(result.folder) / REPORT_FILE}: "
                         f"{describe_os_error(error)}")
            path, show = None, max(show, len(result.quality))
        if path is not None:
            written.append((name, len(result.quality), path))
        everything += [f"{name}: {n}" for n in result.quality]
    if not everything:
        return lines + ["quality report: no text shrunk below its body size, no missing glyphs, "
                        "no colour too light for grayscale"]
    count = f"{len(everything):,} note{'s' if len(everything) != 1 else ''}"
    if len(written) == 1:
        lines.append(f"quality report: {count} ({_kinds(everything)}), full list in {written[0][2]}")
    else:
        lines.append(f"quality report: {count} in {len(written)} kits ({_kinds(everything)}), "
                     f"each kit's full list in its folder's {REPORT_FILE}")
        if show:
            lines += [f"  {name}: {n:,} note{'s' if n != 1 else ''} in {path}" for name, n, path in written[:show]]
            if len(written) > show:
                lines.append(f"  … and {len(written) - show} more kits")
    if len(everything) <= show:
        lines += [f"  - {line}" for line in everything]
    return lines

"""Quality notes gathered while rendering (shrunk text, colours that read poorly in grayscale), and the problems
`check` gathers instead of stopping at the first: a card or file that cannot be printed is recorded and left out,
and the render goes on to the next."""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

if TYPE_CHECKING:
    from kitgen.core.files import OutputFile

from kitgen.core.errors import ContentError, Problem, UnprintableContent

_notes: ContextVar[list[str] | None] = ContextVar("quality_notes", default=None)
_problems: ContextVar[list[Problem] | None] = ContextVar("render_problems", default=None)
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


@contextmanager
def gathering(active: bool = True) -> Iterator[list[Problem]]:
    """While the block runs (when `active`), the render-stage problems `gathered` accepts are kept in the list
    it yields instead of stopping the render."""
    problems: list[Problem] = []
    token = _problems.set(problems if active else None)
    try:
        yield problems
    finally:
        _problems.reset(token)


def gathered(error: ContentError | UnprintableContent) -> bool:
    """Keep `error`'s problems when problems are being gathered and each names its place (True: the caller goes
    on without the card or file); False: the caller raises it."""
    problems = _problems.get()
    if problems is None:
        return False
    if isinstance(error, ContentError):
        problems += error.problems
        return True
    found = [Problem.parse(line) for line in str(error).split("\n")]
    if not found or None in found:
        return False
    problems += [p for p in found if p is not None]
    return True


def grey_level(rgb: tuple[float, float, float]) -> float:
    """Relative luminance of an sRGB colour: what a grayscale printer makes of it (0 black … 1 white)."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_on_white(rgb: tuple[float, float, float]) -> float:
    return 1.05 / (grey_level(rgb) + 0.05)


def unprintable_problems(files: Iterable[OutputFile],
                         locate: Callable[[str], str | None] = lambda char: None) -> list[str]:
    """Every character of any text of any file that no bundled font can draw, or that kitgen cannot print
    truthfully (right-to-left script, beyond U+FFFF), with where it comes from: `locate(char)` names the content
    field that holds it when render did not record an origin."""
    from kitgen.fonts.registry import missing_glyphs, UNSUPPORTED, unsupported_characters

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

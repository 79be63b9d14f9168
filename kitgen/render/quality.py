"""Quality notes gathered while rendering (shrunk text, colours that read poorly in grayscale), and the problems
`check` gathers instead of stopping at the first: a card or file that cannot be printed is recorded and left out,
and the render goes on to the next."""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Callable, Iterable, Iterator

from reportlab.pdfbase.pdfmetrics import stringWidth

from kitgen.core.display import (Box, Circle, Document, Form, Group, IDENTITY, Image, Item, Line, Matrix, Page, Path,
                                 Text, Use, walk)
from kitgen.core.errors import ContentError, Problem, UnprintableContent
from kitgen.core.files import OutputFile, Role
from kitgen.core.notes import Note, NoteKind
from kitgen.core.units import mm
from kitgen.fonts.registry import FONT_NAMES, missing_glyphs, UNSUPPORTED, unsupported_characters
from kitgen.plan.imposition import PAGE_MARGIN

_notes: ContextVar[list[Note] | None] = ContextVar("quality_notes", default=None)
_problems: ContextVar[list[Problem] | None] = ContextVar("render_problems", default=None)
MIN_CONTRAST = 4.5  # WCAG's ratio for body text


@contextmanager
def collecting() -> Iterator[list[Note]]:
    """Collect notes made while the block runs (each note once, in order)."""
    notes: list[Note] = []
    token = _notes.set(notes)
    try:
        yield notes
    finally:
        _notes.reset(token)


def note(made: Note) -> None:
    notes = _notes.get()
    if notes is not None and made not in notes:
        notes.append(made)


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


# --------------------------------------------------------------------------- notes measured on the display list

BODY_MINIMUM = 10.0  # points: the smallest body text a player file should print at
SHEET_USE_MINIMUM = 0.25  # a card sheet or a mat part using less of its paper than this is noted
PAGE_EMPTY_MAXIMUM = 2 / 3  # a page emptier than this is noted
PLAYER_DOCUMENTS = (Role.SHEETS,)  # the documents children read: rules, aids, record sheets
MARGIN_BAND = mm(19)  # a document page's bottom margin: its footer sits there (render/documents.py: MARGIN + 4 mm)
Bounds = tuple[float, float, float, float]  # x0, y0, x1, y1


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def _scale(m: Matrix) -> float:
    return float(abs(m[0] * m[3] - m[1] * m[2]) ** 0.5)


def _bounds(points: Iterable[tuple[float, float]]) -> Bounds | None:
    xs, ys = zip(*points) if points else ((), ())
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def _item_bounds(item: Item, m: Matrix) -> Bounds | None:
    """What `item` covers, in the coordinates `m` maps to (texts from their baseline: a descent below, a cap
    height above; a group's own items are walked by `_placed`)."""
    corners: list[tuple[float, float]]
    if isinstance(item, Text):
        width = stringWidth(item.text, item.font, item.size) if item.font in FONT_NAMES else len(item.text) * item.size / 2
        corners = [(item.x, item.y - 0.22 * item.size), (item.x + width, item.y + 0.75 * item.size)]
    elif isinstance(item, Line):
        corners = [(item.x0, item.y0), (item.x1, item.y1)]
    elif isinstance(item, (Box, Image)):
        corners = [(item.x, item.y), (item.x + item.width, item.y + item.height)]
    elif isinstance(item, Circle):
        corners = [(item.x - item.radius, item.y - item.radius), (item.x + item.radius, item.y + item.radius)]
    elif isinstance(item, Path):
        corners = [(s[i], s[i + 1]) for s in item.segments for i in range(1, len(s) - 1, 2)]  # type: ignore[misc]
    else:
        return None
    a, b, c, d, e, f = m
    if b == 0 and c == 0 and corners:  # no turn (a card face, a page): each corner's x and y map alone, to the same numbers
        xs = [a * x + e for x, _ in corners]
        ys = [d * y + f for _, y in corners]
        return (min(xs), min(ys), max(xs), max(ys))
    return _bounds([_apply(m, x, y) for x, y in corners] + [_apply(m, corners[0][0], corners[-1][1]),
                                                              _apply(m, corners[-1][0], corners[0][1])])


def _placed(items: Iterable[Item], m: Matrix = IDENTITY, forms: dict[str, Form] | None = None,
            ) -> Iterator[tuple[Item, Matrix]]:
    """Every drawn item with the transform it is drawn with; a `Use` is followed into its form when `forms` is
    given, else yielded itself."""
    for item in items:
        if isinstance(item, Group):
            yield from _placed(item.items, _times(m, item.transform), forms)
        elif isinstance(item, Use) and forms is not None:
            yield from _placed(forms[item.form].items, _times(m, item.transform), forms)
        else:
            yield item, m


def _times(m: Matrix, n: Matrix) -> Matrix:
    """`n` applied first, then `m`."""
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2, a * e2 + c * f2 + e,
            b * e2 + d * f2 + f)


def _body_size(page: Page) -> tuple[float, int]:
    """The size most of a page's characters print at (its body text), and how many characters it has."""
    characters: dict[float, int] = {}
    for item, m in _placed(page.items):
        if isinstance(item, Text) and item.text.strip() and _apply(m, item.x, item.y)[1] > MARGIN_BAND:  # no footer
            size = round(item.size * _scale(m), 1)
            characters[size] = characters.get(size, 0) + len(item.text.strip())
    if not characters:
        return 0.0, 0
    return max(characters, key=lambda size: (characters[size], size)), sum(characters.values())


def _document_notes(file: OutputFile, document: Document) -> list[Note]:
    """A document page (rules, aid, record sheet, guide) whose body text prints small, or that is mostly empty."""
    notes: list[Note] = []
    for number, page in enumerate(document.pages, 1):
        body, characters = _body_size(page)
        if file.role not in PLAYER_DOCUMENTS:
            continue
        if characters >= 80 and body < BODY_MINIMUM:
            notes.append(Note(NoteKind.SMALL_BODY, f"body text prints at {body:g} pt (at least {BODY_MINIMUM:g} pt "
                                                   "for players)", file=file.name, page=number,
                              figures=(("size", body), ("minimum", BODY_MINIMUM))))
        drawn = [b for item, m in _placed(page.items) if (b := _item_bounds(item, m)) is not None]
        content = [b for b in drawn if b[1] > MARGIN_BAND]  # the footer aside
        if not content:
            continue
        usable = page.height - 2 * MARGIN_BAND
        empty = (min(b[1] for b in content) - MARGIN_BAND) / usable
        if empty > PAGE_EMPTY_MAXIMUM:
            notes.append(Note(NoteKind.PAGE_EMPTY, f"{empty:.0%} of the page is empty below its last line",
                              file=file.name, page=number, figures=(("empty", round(empty, 3)),)))
    return notes


def _sheet_notes(file: OutputFile, document: Document) -> list[Note]:
    """A card sheet or a mat part that uses under a quarter of its paper."""
    notes: list[Note] = []
    last = (0, -1.0)  # the page and share of the last note: a sheet's backs are not noted again
    for number, page in enumerate(document.pages, 1):
        used = 0.0
        for item in page.items:
            if isinstance(item, Use):  # a card placed
                x0, y0, x1, y1 = document.forms[item.form].bbox
                used += (x1 - x0) * (y1 - y0) * _scale(item.transform) ** 2
            elif isinstance(item, Group) and item.clip is not None:  # a part of a mat
                used += item.clip.width * item.clip.height
        if not used:
            continue
        share = used / ((page.width - 2 * PAGE_MARGIN) * (page.height - 2 * PAGE_MARGIN))
        if share < SHEET_USE_MINIMUM and (number - 1, share) != last:
            last = (number, share)
            what = "the cards on this sheet cover" if file.role.card_stock or file.role is Role.SLIPS else \
                "this part of the mat uses"
            notes.append(Note(NoteKind.SHEET_UNUSED, f"{what} {share:.0%} of it (under a quarter)",
                              file=file.name, page=number, figures=(("used", round(share, 3)),)))
    return notes


def _face_notes(file: OutputFile, document: Document) -> list[Note]:
    """A card face with nothing drawn in its bottom third (its frame and full-card backgrounds aside)."""
    notes: list[Note] = []
    first_page: dict[str, int] = {}
    for number, page in enumerate(document.pages, 1):
        for item in walk(page.items):
            if isinstance(item, Use):
                first_page.setdefault(item.form, number)
    for name, form in document.forms.items():
        if not name.startswith("face") or not form.items:
            continue
        x0, y0, x1, y1 = form.bbox
        width, height = x1 - x0, y1 - y0
        lowest = None
        for item, m in _placed(form.items, forms=document.forms):
            b = _item_bounds(item, m)
            if b is None or (b[2] - b[0]) * (b[3] - b[1]) > 0.8 * width * height:
                continue  # the frame, a background
            if isinstance(item, Text) and item.origin.endswith(", footer"):
                continue  # the deck's name along the bottom edge
            if b[2] - b[0] > 0.6 * width and b[3] - b[1] < 2:
                continue  # a rule across the card
            lowest = b[1] if lowest is None else min(lowest, b[1])
        if lowest is None:
            continue
        empty = (lowest - y0) / height
        if empty > 1 / 3:
            notes.append(Note(NoteKind.FACE_BOTTOM_EMPTY, f"the bottom {empty:.0%} of the card face is empty",
                              form.label, file.name, first_page.get(name, 0), (("empty", round(empty, 3)),)))
    return notes


def layout_notes(files: Iterable[OutputFile]) -> list[Note]:
    """What the display lists show of each file: small body text, mostly empty pages, sheets barely used, card
    faces with an empty bottom third."""
    notes: list[Note] = []
    for file in files:
        document = file.document
        if document is None:
            continue
        if file.role.card_stock or file.role in (Role.SLIPS, Role.MAT):
            notes += _sheet_notes(file, document)
            if file.role.card_stock:
                notes += _face_notes(file, document)
        else:
            notes += _document_notes(file, document)
    return notes


def located(notes: Iterable[Note], files: Iterable[OutputFile]) -> list[Note]:
    """The notes with the file and first page of the card design they name (a note made while a design was
    drawn knows the design, not yet where it is printed)."""
    where: dict[str, tuple[str, int]] = {}
    for file in files:
        if file.document is None:
            continue
        for number, page in enumerate(file.document.pages, 1):
            for item in walk(page.items):
                if isinstance(item, Use) and file.document.forms[item.form].label:
                    where.setdefault(file.document.forms[item.form].label, (file.name, number))
    return [replace(n, file=where[n.where][0], page=where[n.where][1]) if not n.file and n.where in where else n
            for n in notes]

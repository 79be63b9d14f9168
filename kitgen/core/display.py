"""The display list: what is printed on each page, as plain data that knows nothing of ReportLab.

Render draws a kit into `Document`s; a backend (`kitgen.export.pdf`, `kitgen.export.png`) turns them
into files, and whatever asks "what is printed?" (the host-key leak check, the quality report, tests)
reads them. Lengths are points, with the origin at the lower left of the page (or of a form), as in PDF.
A colour is `(grey,)` or `(red, green, blue)`, each 0..1.
"""
from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Union

Color = tuple[float, ...]
BLACK: Color = (0.0,)
WHITE: Color = (1.0,)
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def translate(x: float, y: float) -> Matrix:
    return (1.0, 0.0, 0.0, 1.0, x, y)


def rotate_half_turn(x: float, y: float) -> Matrix:
    """Turn by 180° about the origin, then move the origin to (x, y)."""
    return (-1.0, 0.0, 0.0, -1.0, x, y)


@dataclass(frozen=True)
class Stroke:
    """How a line or an outline is drawn."""

    width: float = 1.0
    color: Color = BLACK
    dash: tuple[float, ...] = ()  # on, off lengths; () is solid
    cap: int = 0  # line ends: 0 butt (at the end point), 1 round, 2 square (half the width past it)


@dataclass(frozen=True)
class Text:
    """One run of text in one font, the left end of its baseline at (x, y).

    `font` is one of kitgen's font names (`kitgen.fonts.registry.REGULAR`, `BOLD`); `origin` says where the
    text came from (`file:line:column: decks[0].cards[2].text`) when render knows it, for error messages.
    """

    x: float
    y: float
    text: str
    font: str
    size: float
    color: Color = BLACK
    origin: str = ""


@dataclass(frozen=True)
class Line:
    x0: float
    y0: float
    x1: float
    y1: float
    stroke: Stroke = Stroke()


@dataclass(frozen=True)
class Box:
    """A rectangle (corners rounded by `radius`), outlined, filled, or both; `alpha` is the fill's opacity."""

    x: float
    y: float
    width: float
    height: float
    stroke: Stroke | None = Stroke()
    fill: Color | None = None
    radius: float = 0.0
    alpha: float = 1.0


@dataclass(frozen=True)
class Circle:
    x: float
    y: float
    radius: float
    stroke: Stroke | None = Stroke()
    fill: Color | None = None


@dataclass(frozen=True)
class Image:
    """A raster picture (PNG or JPEG bytes) stretched over the box; the same bytes are embedded once."""

    x: float
    y: float
    width: float
    height: float
    data: bytes = field(repr=False)
    name: str = ""  # for messages


@dataclass(frozen=True)
class Gradient:
    """A blend of colours filling a path: `linear` along the line (x0, y0) → (x1, y1) of `coords`, or `radial`
    from the focus (fx, fy) of `coords` out to the circle (cx, cy, r) after it; `stops` are (offset 0..1,
    colour), in order. `coords` are in the gradient's own space, which `matrix` maps onto the coordinates of the
    path it fills. Past its ends the blend keeps its end colours."""

    kind: str  # "linear" or "radial"
    coords: tuple[float, ...]  # linear (x0, y0, x1, y1); radial (fx, fy, cx, cy, r)
    stops: tuple[tuple[float, Color], ...]
    matrix: Matrix = IDENTITY


# ("m", x, y), ("l", x, y), ("c", x1, y1, x2, y2, x3, y3) or ("h",): move, line, curve, close
Segment = Union[tuple[str, float, float], tuple[str, float, float, float, float, float, float], tuple[str]]


@dataclass(frozen=True)
class Path:
    """A vector outline of move/line/curve/close segments, stroked, filled (`even_odd`: the even-odd rule
    instead of non-zero winding), or both; `join` is the line join (0 mitre, 1 round, 2 bevel). SVG pictures
    are drawn as paths, so they stay sharp at any size. With a `gradient` the fill is that blend, and `fill` is
    its average colour (for whatever cannot draw a blend); `fill_alpha` and `stroke_alpha` are opacities."""

    segments: tuple[Segment, ...]
    stroke: Stroke | None = None
    fill: Color | None = None
    even_odd: bool = False
    join: int = 0
    name: str = ""  # the picture it belongs to, for messages
    gradient: Gradient | None = None
    fill_alpha: float = 1.0
    stroke_alpha: float = 1.0


@dataclass(frozen=True)
class Clip:
    """A clipping rectangle for the group it is part of; with `segments`, the outline they draw instead (the
    rectangle then holds it: its bounds), its inside by the even-odd rule when `even_odd`."""

    x: float
    y: float
    width: float
    height: float
    segments: tuple[Segment, ...] = ()
    even_odd: bool = False


@dataclass(frozen=True)
class Group:
    """Items drawn with a transform (applied to them, not to what follows), optionally clipped; the clip is in
    the coordinates the group is drawn in (applied before the transform): a window on the page."""

    items: tuple["Item", ...]
    transform: Matrix = IDENTITY
    clip: Clip | None = None
    shared: bool = False  # the same items come back often (a picture on many cards): a backend may draw them once


@dataclass(frozen=True)
class Use:
    """A named form (see `Document.forms`) drawn with `transform`: a card design printed many times."""

    form: str
    transform: Matrix = IDENTITY


Item = Union[Text, Line, Box, Circle, Image, Path, Group, Use]


@dataclass(frozen=True)
class Form:
    """A design drawn once and placed many times; `bbox` is (x0, y0, x1, y1) in its own coordinates."""

    name: str
    bbox: tuple[float, float, float, float]
    items: tuple[Item, ...]
    label: str = ""  # what it is, for messages: `file:line:column: decks[0].cards[1] (card 'C2')`
    stem: str = ""  # a name for a file of its own (a PNG of one card): `supply-C2-face`
    digest: bytes = b""  # of everything the drawing is made from (equal digests draw alike); b"" when unknown


DECK_MARKED = "+deck"
"""Suffix of a face form's twin that also carries its deck's marker (the back's symbol and title), kept beside
the face for outputs that print no backs (Cricut's Print Then Cut pictures); no page of the card file uses it."""


@dataclass
class Page:
    width: float
    height: float
    items: list[Item] = field(default_factory=list)
    boxes: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)  # e.g. trim, bleed


@dataclass
class Document:
    """One output file's pages, with its forms and how a printer should treat it."""

    title: str
    pages: list[Page] = field(default_factory=list)
    forms: dict[str, Form] = field(default_factory=dict)
    duplex: str | None = None  # "long" or "short" asks the printer to print two-sided; None leaves it
    author: str = "kitgen"
    pdfx: bool = False  # PDF/X-4 for a print shop: an output intent, every colour in its CMYK inks

    def distinct_texts(self) -> Iterator[Text]:
        """Every text run once: each page's own, then each form's (however often the form is placed)."""
        for page in self.pages:
            yield from (item for item in walk(page.items) if isinstance(item, Text))
        for form in self.forms.values():
            yield from (item for item in walk(form.items) if isinstance(item, Text))


def walk(items: Iterable[Item], forms: dict[str, Form] | None = None) -> Iterator[Item]:
    """Every item, depth first, groups opened; a `Use` is followed into its form when `forms` is given."""
    for item in items:
        yield item
        if isinstance(item, Group):
            yield from walk(item.items, forms)
        elif isinstance(item, Use) and forms is not None:
            yield from walk(forms[item.form].items, forms)


def page_fingerprints(document: Document, salt: str = "") -> list[str]:
    """A fingerprint of each page's drawing (its items and the forms it places): equal drawings, equal names."""
    prints = []
    for page in document.pages:
        used = sorted({item.form for item in walk(page.items, document.forms) if isinstance(item, Use)})
        drawing = pickle.dumps((page.width, page.height, page.items, [document.forms[name] for name in used]))
        prints.append(hashlib.sha1(drawing + salt.encode()).hexdigest()[:20])
    return prints

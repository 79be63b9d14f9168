"""A ReportLab canvas that records display-list items (`kitgen.core.display`) instead of writing PDF.

Render lays out its text documents with ReportLab's platypus and captures what it draws here; the module
sits with the backends because, like the PDF writer, it depends on ReportLab's internals.

Platypus (paragraphs, tables, page templates) lays out and draws onto `RecordingCanvas` exactly as it would
onto a PDF canvas; every drawing call becomes a `Text`, `Line`, `Box` or `Circle`, and `showPage()` closes a
`Page`. The graphics state (transformation, colours, line width, cap, join, dash, opacity) is tracked here.
Items drawn under a pure translation are stored in page coordinates; items drawn under a scale or rotation
(a `KeepInFrame` that shrinks its content) go into a `Group` whose transform carries it, with the items in
the group's own coordinates, so a text's `size` times the group's scale is its printed size.

Nothing may vanish silently: ReportLab's page buffer (where a PDF canvas writes its operators) is replaced by
a guard that raises `UnrecordedDrawing`, naming the canvas method, when anything the recorder does not
translate (an image, a path, a clip, a form, transparent text ...) tries to write to it.

ReportLab internals used here, all kept in this module: the canvas's `_code` page buffer (guarded) and
`_cropMarks` (set by platypus; checked, never drawn); the text object's `_code`, `_canvas`, `_fontname`,
`_fontsize`, `_leading` (ReportLab's own record of the text state, which platypus reads and writes
directly) and its `_textOut` and `_setFont` methods (how platypus writes a line of text and changes font).
"""
from __future__ import annotations

import inspect
import io
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import IO, TYPE_CHECKING, Any, Literal, SupportsIndex, Union

from reportlab.lib.colors import CMYKColor, toColor
from reportlab.lib.colors import Color as ReportLabColor
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.pdfgen.textobject import PDFTextObject

from kitgen.core.display import (BLACK, Box, Circle, Color, Group, IDENTITY, Image, Item, Line, Matrix, Page, Stroke,
                                 Text)
from kitgen.fonts.registry import FONT_NAMES, register_fonts

if TYPE_CHECKING:
    from typing_extensions import Self

    from reportlab.platypus import Flowable
    from reportlab.pdfgen.textobject import _Color as _ColorArg  # what ReportLab's colour setters take (stubs)

Paint = Union["_ColorArg", Color]  # a colour as a setter was given it, or as the display list has it
Direction = Literal["LTR", "RTL"] | None

FONTS = FONT_NAMES  # what a backend can draw a `Text` with
_EPSILON = 1e-9
_WORDS = re.compile(r"[^ ]* *")  # a word and the spaces after it; PDF's word spacing widens each space


class UnrecordedDrawing(RuntimeError):
    """Something drew on a recording canvas that the recorder cannot turn into display-list items."""


# --------------------------------------------------------------------------- guards and small helpers


class _Operators(list[str]):
    """Stands in for ReportLab's buffer of PDF operators (`_code`) on a recording canvas or text object.

    The recorder translates each drawing call itself; ReportLab's own methods are only called, with the
    guard open, for the state they keep (font, colours, transformation) and what they would write is
    dropped. Anything written while the guard is closed is drawing the recorder does not know: it raises,
    naming the method that tried.
    """

    def __init__(self, owner: object) -> None:
        super().__init__()
        self.owner = owner
        self.open = 0

    def _refuse(self) -> None:
        if not self.open:
            raise UnrecordedDrawing(f"{type(self.owner).__name__}.{_drawing_method(self.owner)}(): "
                                    "the recording canvas cannot turn this into display-list items")

    def append(self, _operator: str) -> None:
        self._refuse()

    def extend(self, operators: Iterable[str]) -> None:
        self._refuse()

    def insert(self, _index: SupportsIndex, _operator: str) -> None:
        self._refuse()

    def __setitem__(self, index: SupportsIndex | slice, value: Any) -> None:
        self._refuse()

    # (typeshed's list.__iadd__ carries the same ignore: `+=` keeps the list's type where `+` widens it)
    def __iadd__(self, operators: Iterable[str]) -> Self:  # type: ignore[override, misc]
        self._refuse()
        return self


def _drawing_method(owner: object) -> str:
    """The outermost method of `owner` on the call stack: the call that tried to draw."""
    name = "?"
    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_locals.get("self") is owner:
            name = frame.f_code.co_name
        frame = frame.f_back
    return name


@contextmanager
def _state_only(owner: RecordingCanvas | RecordingTextObject) -> Iterator[None]:
    """Call a ReportLab method of `owner` for the state it keeps; drop the operators it writes."""
    guard = owner._code  # ReportLab's operator buffer (see _Operators)
    if not isinstance(guard, _Operators):
        yield
        return
    guard.open += 1
    try:
        yield
    finally:
        guard.open -= 1


def _color(paint: Paint) -> Color:
    """A display-list colour from what ReportLab's colour setters accept (CMYK has no display-list form)."""
    given = toColor(paint) if isinstance(paint, str) else paint
    if isinstance(given, CMYKColor):
        raise UnrecordedDrawing(f"CMYK colour {given!r}: the display list has grey and RGB only")
    parts = (given.red, given.green, given.blue) if isinstance(given, ReportLabColor) else given
    value = tuple(float(v) for v in parts)
    if len(value) == 4:
        raise UnrecordedDrawing(f"CMYK colour {value!r}: the display list has grey and RGB only")
    if len(value) == 3 and value[0] == value[1] == value[2]:
        return (value[0],)
    if len(value) not in (1, 3):
        raise UnrecordedDrawing(f"colour {value!r}")
    return value


def _alpha(value: Paint, alpha: float | None) -> float | None:
    """The opacity a colour setter sets, or None when it leaves it."""
    if alpha is not None:
        return float(alpha)
    alpha = getattr(value, "alpha", None)
    return None if alpha is None else float(alpha)


def _multiply(m: Matrix, n: Matrix) -> Matrix:
    """`n` applied first, then `m` (as PDF's `cm` adjoins `n` to the current matrix `m`)."""
    a0, b0, c0, d0, e0, f0 = m
    a, b, c, d, e, f = n
    return (a0 * a + c0 * b, b0 * a + d0 * b, a0 * c + c0 * d, b0 * c + d0 * d, a0 * e + c0 * f + e0,
            b0 * e + d0 * f + f0)


def _same(p: tuple[float, ...], q: tuple[float, ...]) -> bool:
    return all(abs(u - v) <= _EPSILON for u, v in zip(p, q))


def _moved(item: Item, dx: float, dy: float) -> Item:
    if abs(dx) <= _EPSILON and abs(dy) <= _EPSILON:
        return item
    if isinstance(item, Line):
        return replace(item, x0=item.x0 + dx, y0=item.y0 + dy, x1=item.x1 + dx, y1=item.y1 + dy)
    if isinstance(item, (Text, Box, Circle, Image)):
        return replace(item, x=item.x + dx, y=item.y + dy)
    raise UnrecordedDrawing(f"a {type(item).__name__} on a recording canvas")


class _OpenGroup:
    """Consecutive items drawn with one scale or rotation: a `Group` once the page is closed."""

    def __init__(self, matrix: Matrix) -> None:
        self.matrix = matrix
        a, b, c, d, _, _ = matrix
        self.det = a * d - b * c
        self.items: list[Item] = []

    def local(self, matrix: Matrix) -> tuple[float, float]:
        """Where the origin of `matrix` (same linear part as the group's) is in the group's coordinates."""
        a, b, c, d, e0, f0 = self.matrix
        dx, dy = matrix[4] - e0, matrix[5] - f0
        return (d * dx - c * dy) / self.det, (a * dy - b * dx) / self.det

    def close(self) -> Group:
        return Group(tuple(self.items), transform=self.matrix)


# --------------------------------------------------------------------------- the text object


@dataclass
class _Run:
    """A run of text shown in one font, size and fill, at its baseline; `end` is the x where it stops."""

    x: float
    y: float
    text: str
    font: str
    size: float
    fill: Color | None  # None: the canvas's fill when the text object is drawn
    end: float


class RecordingTextObject(PDFTextObject):
    """A text object (`canvas.beginText()`) that records each run it shows, at its baseline.

    It follows PDF's text semantics: a line start moved by `Td` (moveCursor, setXPos), a current point
    advanced by each string shown (its width, plus word spacing at each space), `T*` (textLine, and
    `_textOut(text, 1)`, which platypus uses for every line) going down by the leading to the next line.
    Positions are in the user space in which `canvas.drawText()` is called.
    """

    # ReportLab's record of the text state (set by its own methods; private names its type stubs leave out)
    _code: list[str]
    _canvas: RecordingCanvas
    _fontname: str
    _fontsize: float
    _leading: float

    def __init__(self, canvas: RecordingCanvas, x: float = 0, y: float = 0, direction: Direction = None) -> None:
        self.runs: list[_Run] = []
        self.fill: Color | None = None  # set inside the text object: it outlives it, as in PDF
        self.char_space = self.word_space = self.rise = 0.0
        self.horizontal_scale = 100.0
        self.render_mode = 0
        self.line = self.point = (float(x), float(y))
        super().__init__(canvas, x, y, direction)
        self._code = _Operators(self)  # ReportLab's operator buffer for this text object

    # positions
    def setTextOrigin(self, x: float, y: float) -> None:
        if not self._canvas.bottomup:
            raise UnrecordedDrawing("a top-down canvas: the recorder draws bottom-up only")
        with _state_only(self):
            super().setTextOrigin(x, y)
        self.line = self.point = (float(x), float(y))

    def setTextTransform(self, a: float, b: float, c: float, d: float, e: float, f: float) -> None:
        if (a, b, c, d) != (1, 0, 0, 1):
            raise UnrecordedDrawing("RecordingTextObject.setTextTransform() with a scale, rotation or skew")
        self.setTextOrigin(e, f)

    def moveCursor(self, dx: float, dy: float) -> None:
        with _state_only(self):
            super().moveCursor(dx, dy)
        self.line = self.point = (self.line[0] + dx, self.line[1] - dy)  # PDF's Td; ReportLab's dy points down

    # text state
    def _setFont(self, psfontname: str, size: float) -> None:
        with _state_only(self):
            super()._setFont(psfontname, size)  # type: ignore[misc]  # ReportLab's private method, not in its stubs

    def setFont(self, psfontname: str, size: float, leading: float | None = None) -> None:
        with _state_only(self):
            super().setFont(psfontname, size, leading)

    def setLeading(self, leading: float) -> None:
        with _state_only(self):
            super().setLeading(leading)

    def setCharSpace(self, charSpace: float) -> None:
        with _state_only(self):
            super().setCharSpace(charSpace)
        self.char_space = float(charSpace)

    def setWordSpace(self, wordSpace: float) -> None:
        with _state_only(self):
            super().setWordSpace(wordSpace)
        self.word_space = float(wordSpace)

    def setHorizScale(self, horizScale: float) -> None:
        with _state_only(self):
            super().setHorizScale(horizScale)
        self.horizontal_scale = 100.0 + horizScale

    def setTextRenderMode(self, mode: Literal[0, 1, 2, 3, 4, 5, 6, 7]) -> None:
        with _state_only(self):
            super().setTextRenderMode(mode)
        self.render_mode = mode

    def setRise(self, rise: float) -> None:
        with _state_only(self):
            super().setRise(rise)
        self.rise = float(rise)

    # colours (a colour set in a text object is the fill of the graphics state: it lasts after drawText)
    def setFillColor(self, aColor: _ColorArg, alpha: float | None = None) -> None:
        self._opaque(_alpha(aColor, alpha))
        with _state_only(self):
            super().setFillColor(aColor, alpha)
        self.fill = _color(aColor)

    def setFillGray(self, gray: float, alpha: float | None = None) -> None:
        self._opaque(alpha)
        with _state_only(self):
            super().setFillGray(gray, alpha)
        self.fill = (float(gray),)

    # text is filled, never stroked (render mode 0)
    def setStrokeColor(self, aColor: _ColorArg, alpha: float | None = None) -> None:
        with _state_only(self):
            super().setStrokeColor(aColor, alpha)

    def setStrokeGray(self, gray: float, alpha: float | None = None) -> None:
        with _state_only(self):
            super().setStrokeGray(gray, alpha)

    def _opaque(self, alpha: float | None) -> None:
        if alpha is not None and alpha != 1:
            raise UnrecordedDrawing(f"text with opacity {alpha}: a display-list Text is opaque")

    # showing text
    def _textOut(self, text: str | bytes, TStar: int = 0) -> None:  # how platypus writes text
        self._show(text)
        if TStar:
            self._next_line()

    def textOut(self, text: str) -> None:
        self._show(text)
        with _state_only(self):
            super().textOut(text)  # ReportLab's own cursor bookkeeping

    def textLine(self, text: str = "") -> None:
        self._show(text)
        self._next_line()
        with _state_only(self):
            super().textLine(text)  # ReportLab's own cursor bookkeeping

    def _next_line(self) -> None:  # PDF's T*: down by the leading, to the start of the line
        self.line = self.point = (self.line[0], self.line[1] - self._leading)

    def _show(self, text: str | bytes) -> None:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        if not text:
            return
        if self.render_mode != 0 or self.char_space or self.horizontal_scale != 100:
            raise UnrecordedDrawing("text with a render mode, character spacing or horizontal scale")
        font, size = self._fontname, self._fontsize
        if font not in FONTS:
            raise UnrecordedDrawing(f"text in font {font!r} ({text[:40]!r}): kitgen draws with {sorted(FONTS)}")
        x, y = self.point
        if self.word_space:  # each word (with the space after it) where PDF's word spacing puts it
            for word in filter(None, _WORDS.findall(text)):
                x += self._run(x, y, word, font, size) + self.word_space * word.count(" ")
        else:
            x += self._run(x, y, text, font, size)
        self.point = (x, y)

    def _run(self, x: float, y: float, text: str, font: str, size: float) -> float:
        width = stringWidth(text, font, size)
        y += self.rise
        last = self.runs[-1] if self.runs else None
        if last and last.y == y and last.font == font and last.size == size and last.fill == self.fill \
                and abs(last.end - x) <= 1e-6:
            last.text += text  # the same run, continued (platypus writes a line in pieces)
            last.end = x + width
        else:
            self.runs.append(_Run(x, y, text, font, size, self.fill, x + width))
        return width


# --------------------------------------------------------------------------- the canvas


class RecordingCanvas(Canvas):
    """A canvas that records `kitgen.core.display` pages: `canvas.pages` after `showPage()`.

    Usable wherever platypus wants a canvas: `SimpleDocTemplate.build(story, canvasmaker=RecordingCanvas)`.
    `save()` writes nothing.
    """

    STATE_ATTRIBUTES = Canvas.STATE_ATTRIBUTES + [  # saved and restored with ReportLab's own (saveState)
        "matrix", "fill", "stroke", "fill_alpha", "stroke_alpha", "line_width", "line_cap", "line_join", "dash"]

    _code: list[str]  # ReportLab's buffer of the page's operators (a private name its type stubs leave out)

    def __init__(self, filename: str | IO[bytes] | None = None, pagesize: tuple[float, float] | None = None,
                 *args: Any, **kwargs: Any) -> None:
        register_fonts()
        self.pages: list[Page] = []
        self.items: list[Item | _OpenGroup] = []  # the current page
        self.boxes: dict[str, tuple[float, float, float, float]] = {}
        self.rotation: float = 0
        super().__init__(filename if filename is not None else io.BytesIO(), pagesize, *args, **kwargs)
        from reportlab import rl_config

        self.size: tuple[float, ...] = tuple(float(v) for v in (pagesize or rl_config.defaultPageSize))
        for name in ("crop", "art", "trim", "bleed"):
            if kwargs.get(f"{name}Box"):
                self.setCropBox(kwargs[f"{name}Box"], name)
        self._code = _Operators(self)  # ReportLab's operator buffer for the page, guarded

    def init_graphics_state(self) -> None:
        super().init_graphics_state()
        self.matrix: Matrix = IDENTITY
        self.fill: Paint = BLACK
        self.stroke: Paint = BLACK
        self.fill_alpha = self.stroke_alpha = 1.0
        self.line_width = 1.0
        self.line_cap: int = 0
        self.line_join: int = 0
        self.dash: tuple[tuple[float, ...], float] = ((), 0)

    # ---- page
    def setPageSize(self, size: tuple[float, float]) -> None:
        with _state_only(self):
            super().setPageSize(size)
        self.size = tuple(float(v) for v in size)

    def setCropBox(self, size: tuple[float, ...], name: str = "crop") -> None:
        super().setCropBox(size, name)
        name = name.lower().removesuffix("box")
        box = tuple(float(v) for v in size)
        if len(box) == 2:  # a width and a height
            box = (0.0, 0.0) + box
        if len(box) != 4:
            raise UnrecordedDrawing(f"a {name} box of {len(box)} numbers, expected 2 or 4")
        self.boxes[name] = (box[0], box[1], box[2], box[3])

    def setPageRotation(self, rot: float) -> None:
        super().setPageRotation(rot)
        self.rotation = rot

    def showPage(self) -> None:
        guard = self._code
        if not isinstance(guard, _Operators) or len(guard):
            raise UnrecordedDrawing("the page's operators were replaced or written around the recorder "
                                    "(a form, or a method that writes to ReportLab's buffer directly)")
        if self.rotation:
            raise UnrecordedDrawing(f"page rotation {self.rotation}: a display-list Page has none")
        if getattr(self, "_cropMarks", None):  # platypus sets this attribute; ReportLab would draw marks
            raise UnrecordedDrawing("ReportLab crop marks: draw them as display-list items instead")
        items = [entry.close() if isinstance(entry, _OpenGroup) else entry for entry in self.items]
        self.pages.append(Page(self.size[0], self.size[1], items, dict(self.boxes)))
        self.items = []
        with _state_only(self):
            super().showPage()  # ReportLab's bookkeeping: page number, page callback, fresh graphics state
        self._code = _Operators(self)  # ReportLab starts a new buffer for each page

    def save(self) -> None:
        if self.items:
            self.showPage()

    def getpdfdata(self) -> bytes:
        raise UnrecordedDrawing("a recording canvas makes display lists, not PDF: see kitgen.export.pdf")

    # ---- graphics state
    def saveState(self) -> None:
        with _state_only(self):
            super().saveState()

    def restoreState(self) -> None:
        with _state_only(self):
            super().restoreState()

    # translate, scale, rotate, skew come here
    def transform(self, a: float, b: float, c: float, d: float, e: float, f: float) -> None:
        with _state_only(self):
            super().transform(a, b, c, d, e, f)
        self.matrix = _multiply(self.matrix, (a, b, c, d, e, f))

    def setFont(self, psfontname: str, size: float, leading: float | None = None) -> None:
        with _state_only(self):
            super().setFont(psfontname, size, leading)

    def setLineWidth(self, width: float) -> None:
        with _state_only(self):
            super().setLineWidth(width)
        self.line_width = float(width)

    def setLineCap(self, mode: int) -> None:
        with _state_only(self):
            super().setLineCap(mode)
        self.line_cap = mode

    def setLineJoin(self, mode: int) -> None:
        with _state_only(self):
            super().setLineJoin(mode)
        self.line_join = mode

    def setMiterLimit(self, limit: float) -> None:
        with _state_only(self):
            super().setMiterLimit(limit)

    def setDash(self, array: list[float] | tuple[float, ...] | float = [],  # noqa: B006 (ReportLab's signature)
                phase: float = 0) -> None:
        with _state_only(self):
            super().setDash(array, phase)
        if isinstance(array, (int, float)):
            array, phase = (array, phase), 0
        self.dash = (tuple(float(v) for v in array), float(phase))

    # setFillColorRGB and setFillColorCMYK come here
    def setFillColor(self, aColor: _ColorArg, alpha: float | None = None) -> None:
        with _state_only(self):
            super().setFillColor(aColor, alpha)
        self.fill = aColor

    def setStrokeColor(self, aColor: _ColorArg, alpha: float | None = None) -> None:
        with _state_only(self):
            super().setStrokeColor(aColor, alpha)
        self.stroke = aColor

    def setFillGray(self, gray: float, alpha: float | None = None) -> None:
        with _state_only(self):
            super().setFillGray(gray, alpha)
        self.fill = (float(gray),)

    def setStrokeGray(self, gray: float, alpha: float | None = None) -> None:
        with _state_only(self):
            super().setStrokeGray(gray, alpha)  # ReportLab sets the fill's opacity here, not the stroke's
        self.stroke = (float(gray),)

    def setFillAlpha(self, a: float) -> None:
        with _state_only(self):
            super().setFillAlpha(a)
        self.fill_alpha = float(a)

    def setStrokeAlpha(self, a: float) -> None:
        with _state_only(self):
            super().setStrokeAlpha(a)
        self.stroke_alpha = float(a)

    # ---- what is drawn
    def beginText(self, x: float = 0, y: float = 0, direction: Direction = None) -> RecordingTextObject:
        return RecordingTextObject(self, x, y, direction=direction)

    def drawText(self, aTextObject: PDFTextObject) -> None:
        if not isinstance(aTextObject, RecordingTextObject):
            raise UnrecordedDrawing("drawText() of a text object the recording canvas did not make")
        if aTextObject.runs and self.fill_alpha != 1:
            raise UnrecordedDrawing(f"text with opacity {self.fill_alpha}: a display-list Text is opaque")
        canvas_fill = _color(self.fill)
        for run in aTextObject.runs:
            fill = run.fill if run.fill is not None else canvas_fill
            self._emit(Text(run.x, run.y, run.text, run.font, run.size, fill))
        if aTextObject.fill is not None:  # PDF keeps the text object's fill in the graphics state
            self.fill = aTextObject.fill

    def line(self, x1: float, y1: float, x2: float, y2: float) -> None:
        stroke = self._stroke()
        self._emit(Line(float(x1), float(y1), float(x2), float(y2), stroke))

    def lines(self, linelist: Iterable[tuple[float, float, float, float]]) -> None:
        for x1, y1, x2, y2 in linelist:
            self.line(x1, y1, x2, y2)

    def rect(self, x: float, y: float, width: float, height: float, stroke: float = 1, fill: float = 0) -> None:
        self._box(x, y, width, height, stroke, fill, radius=0.0)

    def roundRect(self, x: float, y: float, width: float, height: float, radius: float, stroke: float = 1,
                  fill: float = 0) -> None:
        self._box(x, y, width, height, stroke, fill, radius=float(radius))

    def circle(self, x_cen: float, y_cen: float, r: float, stroke: float = 1, fill: float = 0) -> None:
        if not (stroke or fill):
            return
        self._emit(Circle(float(x_cen), float(y_cen), float(r), self._stroke() if stroke else None,
                          self._fill() if fill else None))

    def ellipse(self, x1: float, y1: float, x2: float, y2: float, stroke: float = 1, fill: float = 0) -> None:
        if abs(abs(x2 - x1) - abs(y2 - y1)) > _EPSILON:
            raise UnrecordedDrawing("RecordingCanvas.ellipse() that is not a circle")
        self.circle((x1 + x2) / 2, (y1 + y2) / 2, abs(x2 - x1) / 2, stroke, fill)

    # ---- helpers
    def _stroke(self) -> Stroke:
        if self.stroke_alpha != 1:
            raise UnrecordedDrawing(f"a stroke with opacity {self.stroke_alpha}: display-list strokes are opaque")
        array, phase = self.dash
        if phase:
            raise UnrecordedDrawing(f"a dash with phase {phase}: a display-list Stroke has none")
        return Stroke(self.line_width, _color(self.stroke), array, cap=self.line_cap)

    def _fill(self) -> Color:
        if self.fill_alpha != 1:
            raise UnrecordedDrawing(f"a fill with opacity {self.fill_alpha}: only a Box's fill may be transparent")
        return _color(self.fill)

    def _box(self, x: float, y: float, width: float, height: float, stroke: float, fill: float, radius: float) -> None:
        if not (stroke or fill):
            return  # a path that is neither stroked nor filled draws nothing
        outline = self._stroke() if stroke else None
        if outline is not None and self.line_join and not radius:
            raise UnrecordedDrawing("an outlined rectangle with round or bevelled corners")
        x, y, width, height = float(x), float(y), float(width), float(height)
        if not (outline and outline.dash):  # the same rectangle, its corner at the lower left
            x, width = (x + width, -width) if width < 0 else (x, width)
            y, height = (y + height, -height) if height < 0 else (y, height)
        if fill:
            colour = _color(self.fill)
            self._emit(Box(x, y, width, height, outline, colour, radius, self.fill_alpha))
        else:
            self._emit(Box(x, y, width, height, outline, None, radius))

    def _emit(self, item: Item) -> None:
        """Add an item drawn in the current user space to the page."""
        matrix = self.matrix
        if _same(matrix[:4], IDENTITY[:4]):
            self.items.append(_moved(item, matrix[4], matrix[5]))
            return
        last = self.items[-1] if self.items else None
        if not (isinstance(last, _OpenGroup) and _same(last.matrix[:4], matrix[:4])):
            last = _OpenGroup(matrix)
            self.items.append(last)
        last.items.append(_moved(item, *last.local(matrix)))


# --------------------------------------------------------------------------- for the card code


def record_paragraph(paragraph: Flowable, x: float, y: float) -> list[Item]:
    """The items an already wrapped platypus `Paragraph` (or any wrapped flowable) draws with its lower
    left corner at (x, y): `paragraph.wrap(width, height)` first, as for `drawOn`."""
    canvas = RecordingCanvas(None, pagesize=(0, 0))
    paragraph.drawOn(canvas, x, y)
    items = [entry.close() if isinstance(entry, _OpenGroup) else entry for entry in canvas.items]
    return items


__all__ = ["FONTS", "RecordingCanvas", "RecordingTextObject", "UnrecordedDrawing", "record_paragraph"]

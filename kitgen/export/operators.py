"""PDF content-stream operators written as text: numbers, colours, strokes, paths, and the box round plain shapes.

Nothing here reaches into ReportLab: `fp_str` is its public number formatter, `path_code` its public path
object. The PDF backend (`kitgen.export.pdf`) puts these operators in its pages and forms.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable

from reportlab.lib.rl_accel import fp_str as reportlab_fp_str

from kitgen.core.display import Box, Circle, Color, Image, Item, Line, Path, Segment, Stroke, walk
from kitgen.core.errors import BuildError
from kitgen.export import pdfx


def fp_str(*numbers: float) -> str:
    """Numbers as a content stream writes them; the last guard against a number no PDF reader can read: NaN
    or an infinity (ReportLab writes `nan`, `inf`) or one too large for it is a BuildError, never a corrupt
    file. (Content is refused before, located: pictures in `kitgen.pictures`, options in `kitgen.plan`.)"""
    try:
        text = reportlab_fp_str(*numbers)
    except ValueError:  # "number too large"
        text = "n"
    if "n" in text:  # `nan` and `inf`: a finite number is written with digits, '.' and '-' only
        raise BuildError(f"a drawing holds a number no PDF can hold ({', '.join(map(repr, numbers))}), expected "
                         "finite numbers of sensible size")
    return text


@lru_cache(maxsize=1024)
def color_operator(color: Color, stroke: bool, cmyk: bool = False) -> str:
    """A colour operator; a neutral (three equal components: black, a grey) in black ink alone (DeviceGray),
    never RGB, which a conversion to CMYK would separate into all four inks. With `cmyk` (PDF/X) every colour in
    the output intent's inks, a neutral as K alone."""
    if cmyk:
        return f"{fp_str(*pdfx.cmyk(color))} {'K' if stroke else 'k'}"
    if len(color) == 1 or len(set(color)) == 1:
        return f"{fp_str(color[0])} {'G' if stroke else 'g'}"
    return f"{fp_str(*color)} {'RG' if stroke else 'rg'}"


@lru_cache(maxsize=4096)
def path_code(kind: str, *args: float) -> str:
    """A rectangle, rounded rectangle or circle as PDF path operators (ReportLab's own curves)."""
    from reportlab.pdfgen.pathobject import PDFPathObject

    path = PDFPathObject()
    getattr(path, kind)(*args)
    return path.getCode()


def path_operators(segments: Iterable[Segment]) -> str:
    operators = {"m": "m", "l": "l", "c": "c", "h": "h"}
    parts = []
    for segment in segments:
        kind = segment[0]
        if kind not in operators:
            raise BuildError(f"path segment {kind!r}: expected m, l, c or h")
        parts.append(f"{fp_str(*segment[1:])} {kind}" if len(segment) > 1 else "h")
    return " ".join(parts)


def plain_bounds(items: Iterable[Item]) -> tuple[float, float, float, float] | None:
    """A box holding every point of the items (control points included), widened by the widest stroke; None
    when the items are not all plain shapes."""
    xs: list[float] = []
    ys: list[float] = []
    pen = 0.0
    for item in walk(items):
        if isinstance(item, Path):
            for segment in item.segments:
                xs += segment[1::2]
                ys += segment[2::2]
        elif isinstance(item, (Box, Image)):
            xs += [item.x, item.x + item.width]
            ys += [item.y, item.y + item.height]
        elif isinstance(item, Circle):
            xs += [item.x - item.radius, item.x + item.radius]
            ys += [item.y - item.radius, item.y + item.radius]
        elif isinstance(item, Line):
            xs += [item.x0, item.x1]
            ys += [item.y0, item.y1]
        else:  # text, a nested group or form: no box is sure to hold them, so the group is not shared
            return None
        stroke = getattr(item, "stroke", None)
        pen = max(pen, stroke.width if stroke else 0.0)
    if not xs:
        return (0.0, 0.0, 1.0, 1.0)
    return (min(xs) - pen, min(ys) - pen, max(xs) + pen, max(ys) + pen)


@lru_cache(maxsize=256)
def stroke_operators(stroke: Stroke, cmyk: bool = False) -> tuple[tuple[str, object, str], ...]:
    """(state key, value, operator) for each part of a stroke's style."""
    return (("stroke", stroke.color, color_operator(stroke.color, True, cmyk)), ("width", stroke.width, f"{fp_str(stroke.width)} w"),
            ("dash", stroke.dash, f"[{fp_str(*stroke.dash) if stroke.dash else ''}] 0 d"),
            ("cap", stroke.cap, f"{stroke.cap} J"))

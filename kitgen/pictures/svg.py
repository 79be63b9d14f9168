"""SVG pictures as display-list paths: a file parsed once, strictly (no entities, no network, no external
pictures), and walked into `Path` items in the drawing's own units."""
from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast, TYPE_CHECKING

from kitgen.core.display import Clip, Color, Gradient, Group, IDENTITY, Item, Matrix, Path, Segment, Stroke, Text
from kitgen.fonts.registry import BOLD, REGULAR
from kitgen.pictures.svg_style import Extras, GradientSpec, Styled, styled, TextRun

if TYPE_CHECKING:
    from reportlab.graphics.shapes import Drawing, Shape
    from reportlab.lib.colors import Color as ReportLabColor


MAX_ELEMENTS = 5_000  # elements a picture may draw, counting each <use> as the elements it repeats (an icon
# holds tens to hundreds; drawing one costs about half a millisecond)
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"


class SvgTooLarge(ValueError):
    """An SVG whose drawing would take unbounded work: too many elements, or a <use> that repeats itself."""


def svg_drawing(data: bytes) -> Drawing:
    """A ReportLab drawing of SVG `data`, parsed strictly (a broken file raises instead of half-drawing)."""
    return _drawing(data)


def expanded_elements(root: Any, limit: int = MAX_ELEMENTS) -> int:
    """How many elements drawing `root` walks: each element once, and each `<use href="#id">` once more for
    every element it repeats (a chain of uses that double each other grows as 2^n: counted, not walked). The
    count stops growing past `limit` (it is then `limit + 1`); a use that repeats itself raises SvgTooLarge.
    Each element is counted once, whatever refers to it: work linear in the file."""
    elements = [element for element in root.iter() if isinstance(element.tag, str)]
    if len(elements) > limit:
        return limit + 1
    by_id = {element.get("id"): element for element in elements if element.get("id")}
    memo: dict[Any, int] = {}
    started: set[Any] = set()

    def parts(element: Any) -> list[Any]:
        inside = [child for child in element if isinstance(child.tag, str)]
        if etree_localname(element) == "use":
            target = (element.get(XLINK_HREF) or element.get("href") or "").strip()
            if target.startswith("#") and target[1:] in by_id:
                inside.append(by_id[target[1:]])
        return inside

    stack = [root]
    while stack:
        element = stack[-1]
        if element in memo:
            stack.pop()
            continue
        inside = parts(element)
        if element not in started:
            started.add(element)
            for part in inside:
                if part in started and part not in memo:
                    raise SvgTooLarge(f"a <use> repeats an element that holds it (id {part.get('id')!r}), "
                                      "expected uses that end")
                if part not in memo:
                    stack.append(part)
            continue
        memo[element] = min(limit + 1, 1 + sum(memo[part] for part in inside))
        stack.pop()
    return memo[root]


def etree_localname(element: Any) -> str:
    tag = element.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


class _ElementCounter:
    """An XML parser target that counts a file's elements and stops past the limit, building no tree (lxml's
    tree takes about a kilobyte an element: 200,000 rectangles of a 10 MB file were 250 MB before a count)."""

    def __init__(self, limit: int) -> None:
        self.count, self.limit = 0, limit

    def start(self, tag: Any, attrib: Any) -> None:
        self.count += 1
        if self.count > self.limit:
            raise SvgTooLarge(f"it holds more than {self.limit:,} elements (each <use> counted as the elements "
                              f"it repeats), expected at most {self.limit:,}")

    def close(self) -> int:
        return self.count


@dataclass(frozen=True)
class Parsed:
    """A file's drawing, with what its elements ask for that the drawing does not keep (`kitgen.pictures.svg_style`)."""

    drawing: Drawing
    styled: Styled


def _drawing(data: bytes) -> Drawing:
    return _parsed(data).drawing


@lru_cache(maxsize=512)
def _parsed(data: bytes) -> Parsed:
    import logging

    from lxml import etree
    from svglib.svglib import SvgRenderer

    logging.getLogger("svglib").setLevel(logging.CRITICAL)  # what it leaves out is found by svg_style, and said
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, remove_comments=True,
                             remove_pis=True)
    counting = etree.XMLParser(target=cast(Any, _ElementCounter(MAX_ELEMENTS)), resolve_entities=False,
                               no_network=True, huge_tree=False)
    etree.fromstring(data, parser=counting)  # the elements counted before any tree is built
    root = etree.fromstring(data, parser=parser)
    if not isinstance(root.tag, str) or etree.QName(root).localname != "svg":
        raise ValueError("the file's root element is not <svg>")
    count = expanded_elements(root)  # counted before any is drawn
    if count > MAX_ELEMENTS:
        raise SvgTooLarge(f"it holds more than {MAX_ELEMENTS:,} elements (each <use> counted as the elements it "
                          f"repeats), expected at most {MAX_ELEMENTS:,}")
    checked = styled(root)  # (each shape given an id its drawing carries back to the walk)
    for element in list(root.iter()):  # pictures inside the picture could name any file: left out (and refused)
        if isinstance(element.tag, str) and etree.QName(element).localname in ("image", "script", "foreignObject"):
            parent = element.getparent()
            if parent is not None:  # (the root is <svg>, so every element taken out has a parent)
                parent.remove(element)
    drawing = SvgRenderer("", external_reference_root=None).render(root)
    if drawing is None:
        raise ValueError("nothing could be drawn from it")
    return Parsed(drawing, checked)


def _compose(a: Matrix, b: Sequence[float]) -> Matrix:
    """The affine matrix applying `b` first, then `a` (PDF order: x' = a·b·x)."""
    a0, a1, a2, a3, a4, a5 = a
    b0, b1, b2, b3, b4, b5 = b
    return (a0 * b0 + a2 * b1, a1 * b0 + a3 * b1, a0 * b2 + a2 * b3, a1 * b2 + a3 * b3,
            a0 * b4 + a2 * b5 + a4, a1 * b4 + a3 * b5 + a5)


def _color(color: ReportLabColor | None) -> Color | None:
    if color is None:
        return None
    r, g, b = (round(float(c), 4) for c in (color.red, color.green, color.blue))
    return (r,) if r == g == b else (r, g, b)


KAPPA = 0.5522847498  # control-point distance of a quarter circle drawn as one cubic curve


def _ellipse(cx: float, cy: float, rx: float, ry: float) -> list[Segment]:
    k = KAPPA
    return [("m", cx + rx, cy),
            ("c", cx + rx, cy + k * ry, cx + k * rx, cy + ry, cx, cy + ry),
            ("c", cx - k * rx, cy + ry, cx - rx, cy + k * ry, cx - rx, cy),
            ("c", cx - rx, cy - k * ry, cx - k * rx, cy - ry, cx, cy - ry),
            ("c", cx + k * rx, cy - ry, cx + rx, cy - k * ry, cx + rx, cy), ("h",)]


def _segment(kind: str, coords: Sequence[float]) -> Segment:
    """A segment of `kind` with its 0, 2 or 6 coordinates."""
    if len(coords) == 2:
        return (kind, coords[0], coords[1])
    if len(coords) == 6:
        return (kind, coords[0], coords[1], coords[2], coords[3], coords[4], coords[5])
    if not coords:
        return (kind,)
    raise ValueError(f"a path segment with {len(coords)} coordinates, expected 0, 2 or 6")


def _segments(shape: Shape) -> list[Segment] | None:
    """A shape's outline as move/line/curve/close segments in its own coordinates."""
    from reportlab.graphics import shapes

    if isinstance(shape, shapes.Path):
        # ReportLab's path operator codes: private names, left out of its type stubs
        moveto, lineto, curveto, closepath = (shapes._MOVETO, shapes._LINETO,  # type: ignore[attr-defined]
                                              shapes._CURVETO, shapes._CLOSEPATH)  # type: ignore[attr-defined]
        points, i = shape.points, 0
        out: list[Segment] = []
        for op in shape.operators:
            if op == moveto:
                out.append(("m", points[i], points[i + 1])); i += 2
            elif op == lineto:
                out.append(("l", points[i], points[i + 1])); i += 2
            elif op == curveto:
                out.append(_segment("c", points[i:i + 6])); i += 6
            elif op == closepath:
                out.append(("h",))
        return out
    if isinstance(shape, shapes.Rect):
        x, y, w, h = shape.x, shape.y, shape.width, shape.height
        rx, ry = min(float(shape.rx or 0), abs(w) / 2), min(float(shape.ry or 0), abs(h) / 2)
        if rx > 0 and ry > 0:  # rounded corners: each a quarter ellipse
            k = KAPPA
            return [("m", x + rx, y), ("l", x + w - rx, y),
                    ("c", x + w - rx + k * rx, y, x + w, y + ry - k * ry, x + w, y + ry), ("l", x + w, y + h - ry),
                    ("c", x + w, y + h - ry + k * ry, x + w - rx + k * rx, y + h, x + w - rx, y + h),
                    ("l", x + rx, y + h), ("c", x + rx - k * rx, y + h, x, y + h - ry + k * ry, x, y + h - ry),
                    ("l", x, y + ry), ("c", x, y + ry - k * ry, x + rx - k * rx, y, x + rx, y), ("h",)]
        return [("m", x, y), ("l", x + w, y), ("l", x + w, y + h), ("l", x, y + h), ("h",)]
    if isinstance(shape, shapes.Circle):
        return _ellipse(shape.cx, shape.cy, shape.r, shape.r)
    if isinstance(shape, shapes.Ellipse):
        return _ellipse(shape.cx, shape.cy, shape.rx, shape.ry)
    if isinstance(shape, (shapes.Polygon, shapes.PolyLine)):
        p = shape.points
        line: list[Segment] = [("m", p[0], p[1])]
        line += [("l", p[i], p[i + 1]) for i in range(2, len(p) - 1, 2)]
        return line + [("h",)] if isinstance(shape, shapes.Polygon) else line
    if isinstance(shape, shapes.Line):
        return [("m", shape.x1, shape.y1), ("l", shape.x2, shape.y2)]
    return None


def _transformed(segments: list[Segment], m: Matrix) -> tuple[Segment, ...]:
    a, b, c, d, e, f = m
    out = []
    for segment in segments:
        coords = segment[1:]
        moved: list[float] = []
        for j in range(0, len(coords), 2):
            x, y = coords[j], coords[j + 1]
            moved += [round(a * x + c * y + e, 3), round(b * x + d * y + f, 3)]
        out.append(_segment(segment[0], moved))
    return tuple(out)


def _bounds(segments: Sequence[Segment]) -> tuple[float, float, float, float]:
    xs = [n for segment in segments for n in segment[1::2]]
    ys = [n for segment in segments for n in segment[2::2]]
    return (min(xs), min(ys), max(xs), max(ys)) if xs else (0.0, 0.0, 0.0, 0.0)


def _rgb(color: Color) -> Color:
    return color * 3 if len(color) == 1 else color


def _average(stops: Sequence[tuple[float, Color]]) -> Color:
    """The mean colour of a blend over its length (the end colours carried on past the first and last stop)."""
    points = [(0.0, stops[0][1]), *stops, (1.0, stops[-1][1])]
    total = [0.0, 0.0, 0.0]
    for (a, first), (b, second) in zip(points, points[1:]):
        for channel, (one, two) in enumerate(zip(_rgb(first), _rgb(second))):
            total[channel] += (b - a) * (one + two) / 2
    r, g, b = (round(t, 4) for t in total)
    return (r,) if r == g == b else (r, g, b)


def _gradient(spec: GradientSpec, segments: list[Segment], matrix: Matrix) -> tuple[Gradient | None, Color | None]:
    """The blend `spec` on a shape of `segments` (its own coordinates) drawn with `matrix`, and its average colour
    (None, None: nothing is filled, as SVG says of a gradient without stops or on a shape without area)."""
    from reportlab.graphics.shapes import Group as ReportLabGroup
    from svglib.svglib import Svg2RlgAttributeConverter, Svg2RlgShapeConverter

    converter = Svg2RlgAttributeConverter()
    stops = [(offset, _color(converter.convertColor(color)) or (0.0,)) for offset, color in spec.stops]
    if not stops:
        return None, None
    colors = {color for _, color in stops}
    if any(len(color) == 3 for color in colors):
        stops = [(round(offset, 4), _rgb(color)) for offset, color in stops]
    own: Matrix = IDENTITY
    if spec.units == "objectBoundingBox":
        x0, y0, x1, y1 = _bounds(segments)
        if x1 - x0 <= 0 or y1 - y0 <= 0:
            return None, None
        own = (x1 - x0, 0.0, 0.0, y1 - y0, x0, y0)
    if spec.transform:
        group = ReportLabGroup()
        Svg2RlgShapeConverter("", converter).applyTransformOnGroup(spec.transform, group)
        own = _compose(own, tuple(group.transform))
    coords = spec.coords
    if spec.kind == "radial":
        fx, fy, cx, cy, r = coords
        reach = math.hypot(fx - cx, fy - cy)
        if reach > 0.99 * r > 0:  # a focus outside its circle is moved onto it (as SVG 1.1 says)
            fx, fy = cx + (fx - cx) * 0.99 * r / reach, cy + (fy - cy) * 0.99 * r / reach
        coords = (fx, fy, cx, cy, r)
    flat = (coords[0] == coords[2] and coords[1] == coords[3]) if spec.kind == "linear" else coords[4] <= 0
    if len(colors) == 1 or flat:  # one colour, or a blend of no length: the last stop's colour all over
        return None, stops[-1][1]
    full = tuple(round(n, 6) for n in _compose(matrix, own))
    return Gradient(spec.kind, tuple(round(n, 6) for n in coords), tuple(stops), cast(Matrix, full)), \
        _average(stops)


def _alpha(*values: float) -> float:
    """Opacities multiplied; above 0.995 drawn opaque (no print tells them apart)."""
    return round(min(1.0, max(0.0, math.prod(values))), 2)


def _text(runs: Sequence[TextRun], matrix: Matrix, items: list[Item]) -> None:
    """An SVG text's pieces (`svg_style.text_runs`) in kitgen's body font, in a group that carries the picture's
    transform (`matrix` is that of the text's own group, whose y runs up: a piece at y is drawn at -y)."""
    from svglib.svglib import Svg2RlgAttributeConverter

    converter = Svg2RlgAttributeConverter()
    texts: list[Item] = []
    for run in runs:
        color = _color(converter.convertColor(run.fill)) if run.fill != "none" else None
        if color is not None:
            texts.append(Text(round(run.x, 3), round(-run.y, 3), run.text, BOLD if run.bold else REGULAR,
                              round(run.size, 3), color))
    if texts:
        items.append(Group(tuple(texts), cast(Matrix, tuple(round(n, 6) for n in matrix))))


def _walk(node: Shape, matrix: Matrix, items: list[Item], name: str, line_only: bool, styled_: Styled,
          extras: Extras | None = None) -> None:
    from reportlab.graphics import shapes

    extras = styled_.extras.get(getattr(node, "svgid", None) or "", extras)
    if isinstance(node, shapes.Group):
        inner = _compose(matrix, tuple(node.transform)) if getattr(node, "transform", None) else matrix
        if extras is not None and extras.runs is not None and any(isinstance(c, shapes.String) for c in node.contents):
            _text(extras.runs, inner, items)  # the text's own group: its pieces placed by svg_style, not svglib
            return
        drawn: list[Item] = []
        clips = []
        for child in node.contents:
            if getattr(child, "isClipPath", 0):
                clips.append(child)
            else:
                _walk(child, inner, drawn, name, line_only, styled_, extras)
        edge = _segments(clips[0]) if clips and drawn else None
        if edge:  # clipped by a <clipPath>: the drawing inside its outline
            window = _transformed(edge, inner)
            x0, y0, x1, y1 = _bounds(window)
            even_odd = getattr(clips[0], "fillMode", 0) == shapes.FILL_EVEN_ODD  # type: ignore[attr-defined]
            items.append(Group(tuple(drawn), clip=Clip(x0, y0, x1 - x0, y1 - y0, window, even_odd)))
        elif not clips:
            items += drawn
        return
    if isinstance(node, shapes.String):
        return  # (a text is drawn from its own group, above)
    segments = _segments(node)
    if not segments:
        return  # (svglib's own gradient painting: the walk draws the gradient from `extras`)
    opacity = extras.opacity if extras else 1.0
    fill_color = getattr(node, "fillColor", None)
    fill = None if isinstance(node, (shapes.PolyLine, shapes.Line)) else _color(fill_color)
    fill_alpha = _alpha(opacity, getattr(fill_color, "alpha", 1.0) if fill_color is not None else 1.0)
    gradient = None
    if fill is None and extras is not None and extras.gradient is not None and not line_only \
            and not isinstance(node, (shapes.PolyLine, shapes.Line)):
        gradient, fill = _gradient(extras.gradient, segments, matrix)
        fill_alpha = _alpha(opacity, extras.gradient.alpha, float(getattr(node, "fillOpacity", 1.0) or 0.0))
    stroke_color = _color(getattr(node, "strokeColor", None))
    stroke_opacity = getattr(node, "strokeOpacity", None)
    stroke_alpha = _alpha(opacity, float(getattr(getattr(node, "strokeColor", None), "alpha", 1.0)
                                         if stroke_opacity is None else stroke_opacity))
    width = getattr(node, "strokeWidth", 1) or 0
    scale = math.sqrt(abs(matrix[0] * matrix[3] - matrix[1] * matrix[2]))
    dashes = getattr(node, "strokeDashArray", None) or ()
    dash = tuple(round(float(n) * scale, 3) for n in dashes) if isinstance(dashes, (list, tuple)) and \
        all(isinstance(n, (int, float)) for n in dashes) and sum(dashes) > 0 else ()
    stroke = Stroke(round(width * scale, 3), stroke_color, dash, int(getattr(node, "strokeLineCap", 0) or 0)) \
        if stroke_color is not None and width > 0 and stroke_alpha > 0 else None
    if line_only:  # black and white: the outlines stay, the colour fills go
        if stroke is None:
            return
        fill = None
    if fill_alpha <= 0:
        fill, gradient = None, None
    if stroke is None and fill is None:
        return
    outline = _transformed(segments, matrix)
    # ReportLab's fill rules come from pdfgen.canvas, names its type stubs leave out
    even_odd = getattr(node, "fillMode", shapes.FILL_NON_ZERO) == shapes.FILL_EVEN_ODD  # type: ignore[attr-defined]
    join = int(getattr(node, "strokeLineJoin", 0) or 0)
    if extras is not None and extras.stroke_first and stroke is not None and fill is not None:  # paint-order
        items.append(Path(outline, stroke, None, join=join, name=name, stroke_alpha=stroke_alpha))
        stroke = None
    items.append(Path(outline, stroke, fill, even_odd=even_odd, join=join, name=name, gradient=gradient,
                      fill_alpha=fill_alpha if fill is not None else 1.0,
                      stroke_alpha=stroke_alpha if stroke is not None else 1.0))


@lru_cache(maxsize=256)
def svg_items(data: bytes, name: str, line_only: bool = False) -> tuple[tuple[Item, ...], float, float]:
    """The drawing as items in its own units (origin lower left), with its width and height: paths, text (in a
    group that carries its transform) and clipped groups."""
    parsed = _parsed(data)
    items: list[Item] = []
    _walk(parsed.drawing, IDENTITY, items, name, line_only, parsed.styled)
    return tuple(items), float(parsed.drawing.width), float(parsed.drawing.height)


MAX_REACH = 1_000  # how far, in drawing sizes, a shape may reach from the drawing's origin


def _numbers(items: Sequence[Item]) -> Iterator[float]:
    """Every coordinate, width and transform number of the items, groups opened."""
    for item in items:
        if isinstance(item, Path):
            yield from (n for segment in item.segments for n in segment[1:])
            yield from [item.stroke.width] if item.stroke else []
            if item.gradient is not None:
                yield from item.gradient.coords + item.gradient.matrix
        elif isinstance(item, Group):
            yield from item.transform
            if item.clip is not None:
                yield from (n for segment in item.clip.segments for n in segment[1:])
            yield from _numbers(item.items)
        elif isinstance(item, Text):
            yield from (item.x, item.y, item.size)


def svg_refused(data: bytes, reference: str) -> str | None:
    """The first feature of the file kitgen does not draw, as `reference:line: what, what was expected`; None
    when it draws all of them."""
    problems = _parsed(data).styled.problems
    return problems[0].located(reference) if problems else None


def svg_problem(data: bytes) -> str | None:
    """What makes a parsed SVG unprintable, or None: a size or a coordinate that is not a finite number (NaN or infinite, from a size, a `transform` or a point: it
    would reach the PDF as `nan`), a shape absurdly far from the drawing, or nothing drawn at all."""
    drawing = _drawing(data)
    width, height = float(drawing.width), float(drawing.height)
    if not (math.isfinite(width) and math.isfinite(height)):
        return f"its size is {width:g} × {height:g}, expected finite numbers (a width, height or viewBox)"
    items, _width, _height = svg_items(data, "")
    reach = MAX_REACH * max(width, height)
    for number in _numbers(items):
        if not math.isfinite(number):
            return ("a shape's coordinate or line width is not a finite number (from a transform, a size or a "
                    "point), expected numbers")
        if abs(number) > reach:
            return (f"a shape reaches {abs(number):g} units from the origin of a drawing {width:g} × "
                    f"{height:g}, expected at most {MAX_REACH} times its size")
    if not items:
        return "nothing in it can be printed; expected shapes, paths, gradients or text that are not hidden"
    return None

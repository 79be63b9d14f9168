"""What each element of an SVG asks for, read before it is drawn: its properties (presentation attributes, the
file's style sheet, its `style` attribute), what kitgen refuses to leave out, and what the drawing walk needs
that the SVG reader does not keep (opacity, paint order, gradients).

Nothing that would change the drawing is skipped in silence: a feature kitgen does not draw (a filter, a mask,
a pattern, a picture inside the picture, a style rule it cannot apply, ...) is a problem naming the element
and its line. Metadata (title, desc, metadata, an editor's own elements and attributes) is left out quietly:
it prints nothing.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from kitgen.fonts.registry import BOLD, missing_glyphs, REGULAR, string_width, unsupported_characters

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
EXPECTED = "expected shapes, paths, gradients and text"
MAX_RULES = 2_000  # style rules a picture's sheets may hold (each is matched against every element)

CONTAINERS = {"svg", "g", "defs", "a", "symbol", "switch"}
SHAPES = {"path", "rect", "circle", "ellipse", "line", "polyline", "polygon"}
LEAVES = SHAPES | {"text"}
DRAWN = CONTAINERS | LEAVES | {"tspan", "use", "style", "clipPath", "linearGradient", "radialGradient", "stop"}
QUIET = {"title", "desc", "metadata", "script", "view", "cursor", "color-profile", "animate", "animateColor",
         "animateMotion", "animateTransform", "set", "mpath"}  # print nothing: left out with what they hold
DEFINITIONS = {"filter", "mask", "pattern", "marker"}  # draw only where used: refused there
GRADIENTS = {"linearGradient", "radialGradient"}
WHAT = {"filter": "a <filter> (a blur, a shadow, ...)", "mask": "a <mask>", "pattern": "a <pattern> fill",
        "marker": "a <marker> (an arrow head, ...)", "image": "an <image> (a picture inside the picture)",
        "foreignObject": "a <foreignObject> (a web page inside the picture)", "textPath": "text along a path "
        "(<textPath>)"}
_URL = re.compile(r"url\(\s*['\"]?#([^'\")\s]+)['\"]?\s*\)")


class SvgRefused(ValueError):
    """A feature of an SVG that kitgen does not draw, with the line of the element that uses it."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message

    def located(self, name: str) -> str:
        return f"{name}:{self.line}: {self.message}" if self.line else f"{name}: {self.message}"


@dataclass(frozen=True)
class GradientSpec:
    """A gradient as an element uses it, its attributes followed through `href` (each from the first gradient
    of the chain that gives it, the stops from the first that has any)."""

    kind: str  # "linear" or "radial"
    units: str  # "objectBoundingBox" or "userSpaceOnUse"
    coords: tuple[float, ...]  # linear (x1, y1, x2, y2); radial (fx, fy, cx, cy, r)
    transform: str
    stops: tuple[tuple[float, str], ...]  # offset, stop-color as written
    alpha: float  # the stops' opacity (one for all)
    line: int | None


@dataclass(frozen=True)
class TextRun:
    """A piece of an SVG text in one style, the left end of its baseline at (x, y) in the user space (y down)."""

    x: float
    y: float
    text: str
    bold: bool
    size: float
    fill: str  # as written (a colour name, #hex, rgb(...))


@dataclass
class Extras:
    """What the walk needs for one shape or text element, beyond what the SVG reader keeps."""

    line: int | None
    opacity: float = 1.0  # `opacity` of the element and of every group around it
    stroke_first: bool = False  # paint-order: the outline under the fill
    gradient: GradientSpec | None = None
    runs: tuple[TextRun, ...] | None = None  # a text element's pieces, placed (None for a shape)


@dataclass
class Styled:
    """A parsed file's elements with their properties, ready to check and draw."""

    root: Any
    props: dict[Any, dict[str, str]] = field(default_factory=dict)
    by_id: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Extras] = field(default_factory=dict)  # by the id of the element (one is given if it has none)
    problems: list[SvgRefused] = field(default_factory=list)  # in the order of the file
    clips: set[Any] = field(default_factory=set)  # the clipPaths checked
    box: tuple[float, float] = (0.0, 0.0)  # the viewBox's width and height, for percentages


def localname(element: Any) -> str:
    tag = element.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _is_svg(element: Any) -> bool:
    tag = element.tag
    return isinstance(tag, str) and (not tag.startswith("{") or tag.startswith(f"{{{SVG_NS}}}"))


def _clean(value: str) -> str:
    return value.replace("!important", "").strip()


def _declarations(text: str) -> dict[str, str]:
    """`name: value; ...` as a dictionary (the last of a name wins), names in lower case."""
    out = {}
    for part in text.split(";"):
        name, colon, value = part.partition(":")
        if colon and name.strip():
            out[name.strip().lower()] = _clean(value)
    return out


def _style_sheet(root: Any) -> tuple[Any, list[tuple[Any, str]]]:
    """A matcher of the file's `<style>` rules (None without any), and each rule it cannot apply."""
    import cssselect2
    import tinycss2

    matcher, problems, count = None, [], 0
    for element in root.iter():
        if not (_is_svg(element) and localname(element) == "style"):
            continue
        kind = (element.get("type") or "text/css").strip().lower()
        if kind != "text/css":
            problems.append((element, f"<style type={kind!r}> is not read by kitgen; expected a CSS style sheet"))
            continue
        rules = tinycss2.parse_stylesheet("".join(element.itertext()), skip_comments=True, skip_whitespace=True)
        count += len(rules)
        if count > MAX_RULES:
            problems.append((element, f"<style> holds more than {MAX_RULES:,} rules; expected at most {MAX_RULES:,}"))
            break
        for rule in rules:
            if rule.type == "at-rule":
                problems.append((element, f"<style> holds an @{rule.lower_at_keyword} rule, which kitgen does not "
                                          "apply; expected plain rules (a tag, a .class, an #id)"))
                continue
            if rule.type != "qualified-rule":
                problems.append((element, "<style> holds CSS kitgen cannot read; expected rules such as "
                                          "`.leaf { fill: green }`"))
                continue
            selector = tinycss2.serialize(rule.prelude).strip()
            try:
                compiled = cssselect2.compile_selector_list(rule.prelude)
            except cssselect2.SelectorError:
                compiled = []
            if not compiled or any(one.pseudo_element for one in compiled):
                problems.append((element, f"<style> has the selector {selector!r}, which kitgen cannot apply; "
                                          "expected a tag, a .class, an #id or a combination of them"))
                continue
            matcher = matcher or cssselect2.Matcher()
            payload = _declarations(tinycss2.serialize(rule.content))
            for one in compiled:
                matcher.add_selector(one, payload)
    return matcher, problems


def styled(root: Any) -> Styled:
    """Every element's properties (attributes, then matching style rules, then its `style`), checked: each
    feature kitgen would not draw is in `problems` (and what holds it is left out of the check)."""
    import cssselect2

    matcher, sheet_problems = _style_sheet(root)
    result = Styled(root)
    result.problems += [SvgRefused(element.sourceline, message) for element, message in sheet_problems]
    matched: dict[Any, list[tuple[Any, int, dict[str, str]]]] = {}
    if matcher is not None:
        for wrapper in cssselect2.ElementWrapper.from_xml_root(root).iter_subtree():
            found = matcher.match(wrapper)
            if found:
                matched[wrapper.etree_element] = [(spec, order, payload) for spec, order, _, payload in found]
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        props = {name: _clean(value) for name, value in element.attrib.items() if not name.startswith("{")}
        for _, _, payload in sorted(matched.get(element, ()), key=lambda one: (one[0], one[1])):
            props.update(payload)
        props.update(_declarations(element.get("style") or ""))
        result.props[element] = props
        if element.get("id"):
            result.by_id.setdefault(element.get("id"), element)
    view = (root.get("viewBox") or "").replace(",", " ").split()
    try:
        result.box = (float(view[2]), float(view[3])) if len(view) == 4 else \
            (float(re.sub("[a-z%]+$", "", root.get("width", "0"))), float(re.sub("[a-z%]+$", "", root.get("height", "0"))))
    except ValueError:
        result.box = (0.0, 0.0)
    _check(result, root, 1.0, in_text=False, in_clip=False)
    return result


def _inherited(styled_: Styled, element: Any, name: str) -> str:
    while element is not None:
        value = styled_.props.get(element, {}).get(name, "")
        if value and value != "inherit":
            return value
        element = element.getparent()
    return ""


def _number(value: str, default: float = 1.0) -> float:
    try:
        number = float(value.strip().rstrip("%")) / (100 if value.strip().endswith("%") else 1)
    except ValueError:
        return default
    return number if math.isfinite(number) else default


def _refuse(element: Any, message: str) -> SvgRefused:
    return SvgRefused(element.sourceline, f"<{localname(element)}> {message}")


def _check(s: Styled, element: Any, opacity: float, in_text: bool, in_clip: bool) -> None:
    """Check one element and what it holds; record the extras of each shape and text."""
    try:
        _check_one(s, element, opacity, in_text, in_clip)
    except SvgRefused as problem:
        s.problems.append(problem)


def _check_one(s: Styled, element: Any, opacity: float, in_text: bool, in_clip: bool) -> None:
    name = localname(element)
    props = s.props.get(element, {})
    if props.get("display") == "none":
        return  # not drawn, nor anything inside it
    if name in QUIET:
        return
    if name in DEFINITIONS:
        return  # drawn only where a shape uses it, and refused there
    if name not in DRAWN or (in_text and name not in ("tspan", "a")) or (name == "tspan" and not in_text):
        what = WHAT.get(name, f"<{name}>")
        raise SvgRefused(element.sourceline, f"{what} is not drawn by kitgen; {EXPECTED}")
    _check_properties(s, element, props, in_text)
    own = _number(props.get("opacity", "1"))
    opacity *= min(1.0, max(0.0, own))
    if own < 1 and (name == "use" or any(localname(inner) == "use" for inner in element.iter())):
        raise _refuse(element, "is see-through (opacity) and repeats a drawing (<use>), which kitgen does not draw; "
                               "expected the opacity on the shapes themselves")
    if name in ("text", "tspan"):
        alpha = opacity * _number(_inherited(s, element, "fill-opacity") or "1") * _color_alpha(
            _inherited(s, element, "fill"))
        if alpha < 1:
            raise _refuse(element, "is see-through text (opacity or fill-opacity), which kitgen does not draw; "
                                   "expected text that is not see-through")
        stroke = _inherited(s, element, "stroke")
        if stroke and stroke != "none":
            raise _refuse(element, "has an outline (stroke), which kitgen does not draw on text; expected text "
                                   "filled with a colour")
        if name == "text":
            _check_characters(element)
        fill = _inherited(s, element, "fill")
        if fill.startswith("url("):
            raise _refuse(element, "is filled with a gradient or pattern, which kitgen does not draw on text; "
                                   "expected a colour")
    if in_clip and name not in SHAPES | {"use", "clipPath"}:
        raise _refuse(element, f"inside a <clipPath> is not drawn by kitgen; expected shapes and paths")
    if name == "clipPath":
        if (props.get("clipPathUnits") or "userSpaceOnUse") != "userSpaceOnUse" or props.get("transform"):
            raise _refuse(element, "with clipPathUnits or a transform is not applied by kitgen; expected a "
                                   "clipPath in the user space of what it clips")
        return  # checked where it is used
    if name == "use":
        target = (element.get(XLINK_HREF) or element.get("href") or "").strip()
        if target and not target.startswith("#"):
            raise _refuse(element, f"names another file ({target!r}), which kitgen does not read; expected "
                                   "#id of an element of the same file")
    if name in GRADIENTS or name == "stop":
        return  # checked where a shape uses it
    if name in LEAVES:
        _leaf(s, element, opacity)
    for child in element:
        if name == "switch" and isinstance(child.tag, str) and child.get("requiredExtensions"):
            continue  # never drawn: the alternative for a program with that extension (Illustrator's own data)
        if isinstance(child.tag, str) and _is_svg(child):
            _check(s, child, opacity, in_text or name == "text", in_clip or name == "clipPath")


def _color_alpha(value: str) -> float:
    """The opacity a colour value carries itself (`rgba(...)`, `#rrggbbaa`), 1 for any other."""
    if not value or value.startswith("url(") or value in ("none", "currentColor"):
        return 1.0
    from svglib.svglib import Svg2RlgAttributeConverter

    color = Svg2RlgAttributeConverter().convertColor(value)
    return float(getattr(color, "alpha", 1.0) or 0.0) if color is not None else 1.0


def _check_characters(element: Any) -> None:
    words = "".join(element.itertext())
    odd = {char: "no bundled font has it" for char in missing_glyphs(words)} | unsupported_characters(words)
    if odd:
        char, why = next(iter(sorted(odd.items())))
        raise _refuse(element, f"holds {char!r} (U+{ord(char):04X}): {why}; expected text kitgen's fonts can print")


def _check_properties(s: Styled, element: Any, props: dict[str, str], in_text: bool) -> None:
    for key in ("filter", "mask", "marker", "marker-start", "marker-mid", "marker-end"):
        value = props.get(key, "")
        if value and value != "none":
            feature = "marker" if key.startswith("marker") else key
            raise _refuse(element, f"uses {WHAT[feature]} ({key}: {value}), which kitgen does not draw; {EXPECTED} "
                                   f"without it")
    clip = props.get("clip-path", "")
    if clip and clip != "none":
        found = _URL.fullmatch(clip)
        target = s.by_id.get(found.group(1)) if found else None
        if target is None or localname(target) != "clipPath":
            raise _refuse(element, f"is clipped by {clip!r}, which is not a <clipPath> of this file; expected "
                                   "url(#id) of a <clipPath>")
        if target not in s.clips:  # each clipPath checked once (one clipped by itself is not followed round)
            s.clips.add(target)
            _check(s, target, 1.0, in_text=False, in_clip=False)
            for inner in target.iter():
                if isinstance(inner.tag, str) and localname(inner) in SHAPES | {"use"}:
                    _check(s, inner, 1.0, in_text=False, in_clip=True)
    for key, default in (("mix-blend-mode", "normal"), ("vector-effect", "none"), ("stroke-dashoffset", "0"),
                         ("transform-origin", ""), ("transform-box", "")):
        value = props.get(key, default) or default
        if value != default and not (key == "stroke-dashoffset" and _number(value, 1.0) == 0):
            raise _refuse(element, f"has {key}: {value}, which kitgen does not draw; expected it left out")
    for key in ("fill", "stroke"):
        value = props.get(key, "")
        if not value.startswith("url("):
            continue
        found = _URL.match(value)
        target = s.by_id.get(found.group(1)) if found else None
        if target is None:
            raise _refuse(element, f"has {key}: {value}, naming nothing in this file; expected a colour or "
                                   "url(#id) of a gradient")
        kind = localname(target)
        if kind not in GRADIENTS:
            what = WHAT.get(kind, f"a <{kind}>")
            raise _refuse(element, f"is painted with {what} ({key}: {value}), which kitgen does not draw; {EXPECTED}")
        if key == "stroke":
            raise _refuse(element, f"has a gradient outline ({key}: {value}), which kitgen does not draw; expected "
                                   "an outline of one colour")
    if in_text or localname(element) == "text":
        for key, fine in (("letter-spacing", ("normal", "0")), ("word-spacing", ("normal", "0")),
                          ("text-decoration", ("none",)), ("writing-mode", ("lr", "lr-tb", "horizontal-tb")),
                          ("dominant-baseline", ("auto", "alphabetic", "baseline")),
                          ("alignment-baseline", ("auto", "alphabetic", "baseline")),
                          ("textLength", ()), ("lengthAdjust", ()), ("rotate", ("0",))):
            value = props.get(key, "")
            zero = key.endswith("spacing") and re.fullmatch(r"[-+]?0*\.?0*(px|pt|em|mm)?", value) is not None
            if value and value not in fine and not zero:
                raise _refuse(element, f"has {key}={value!r}, which kitgen does not draw on text; expected it "
                                       "left out")


def _leaf(s: Styled, element: Any, opacity: float) -> None:
    ident = element.get("id")
    if not ident or s.by_id.get(ident) is not element:  # none, or another element's too
        ident = f"kitgen-{len(s.extras) + 1}"
        while ident in s.by_id:
            ident += "-"
        element.set("id", ident)  # the drawing's shape carries it back to the walk
        s.by_id[ident] = element
    order = (_inherited(s, element, "paint-order") or "normal").split()
    extras = Extras(element.sourceline, opacity, bool(order) and order[0] in ("stroke", "markers")
                    and order.index("stroke") < (order.index("fill") if "fill" in order else 9))
    fill = _inherited(s, element, "fill")
    if fill.startswith("url("):
        found = _URL.match(fill)
        assert found is not None  # (checked where the fill was given)
        extras.gradient = gradient_spec(s, s.by_id[found.group(1)])
    if localname(element) == "text":
        extras.runs = text_runs(s, element)
    s.extras[ident] = extras


UNITS = {"": 1.0, "px": 1.0, "pt": 96 / 72, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}


def _length(element: Any, name: str, value: str, em: float, whole: float) -> float:
    """A length in user units: a number with a unit, `em` of the font size, `%` of `whole`."""
    found = re.fullmatch(r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([a-z]*|%)", value.strip())
    if not found or (found.group(2) not in UNITS and found.group(2) not in ("em", "%")):
        raise _refuse(element, f"has {name}={value!r}, which kitgen cannot place; expected one number (a length)")
    number, unit = float(found.group(1)), found.group(2)
    return number * (em if unit == "em" else whole / 100 if unit == "%" else UNITS[unit])


def text_runs(s: Styled, text: Any) -> tuple[TextRun, ...]:
    """The pieces of `<text>` and its `<tspan>`s in kitgen's body font, each text chunk (a run of pieces from a
    given x) moved by its text-anchor: middle centres the whole chunk on its x, end ends it there. White space
    is collapsed as SVG does by default."""
    chunks: list[tuple[str, list[TextRun]]] = []
    pen = [0.0, 0.0]

    def size_of(element: Any) -> float:
        chain = [e for e in [element, *element.iterancestors()] if s.props.get(e, {}).get("font-size")]
        size = 16.0
        for owner in reversed(chain):
            size = _length(owner, "font-size", s.props[owner]["font-size"], size, size)
        return size

    def place(element: Any, size: float) -> None:
        props = s.props.get(element, {})
        for key, index, whole in (("x", 0, s.box[0]), ("y", 1, s.box[1])):
            if props.get(key):
                if len(props[key].replace(",", " ").split()) > 1:
                    raise _refuse(element, f"has {key}={props[key]!r}, a place for each character, which kitgen "
                                           "does not draw; expected one number")
                pen[index] = _length(element, key, props[key], size, whole)
                if index == 0 or not chunks:
                    chunks.append((_inherited(s, element, "text-anchor") or "start", []))
        for key, index, whole in (("dx", 0, s.box[0]), ("dy", 1, s.box[1])):
            if props.get(key):
                pen[index] += _length(element, key, props[key].replace(",", " ").split()[0], size, whole)
        shift = props.get("baseline-shift", "baseline")
        if shift not in ("baseline", "0"):
            raise _refuse(element, f"has baseline-shift={shift!r}, which kitgen does not draw; expected it left out")

    def add(words: str | None, element: Any, size: float) -> None:
        if not words:
            return
        words = re.sub(r"\s+", " ", words)
        before = [piece.text for _, chunk in chunks for piece in chunk]
        if not before or before[-1].endswith(" "):  # the first space, and one after a space, are dropped
            words = words.lstrip()
        if not words:
            return
        if not chunks:
            chunks.append((_inherited(s, text, "text-anchor") or "start", []))
        weight = _inherited(s, element, "font-weight") or "normal"
        bold = weight in ("bold", "bolder") or (weight.isdigit() and int(weight) >= 600)
        fill = _inherited(s, element, "fill") or "black"
        if fill == "currentColor":
            fill = _inherited(s, element, "color") or "black"
        chunks[-1][1].append(TextRun(pen[0], pen[1], words, bold, size, fill))
        pen[0] += string_width(words, BOLD if bold else REGULAR, size)

    def walk(element: Any) -> None:
        size = size_of(element)
        place(element, size)
        add(element.text, element, size)
        for child in element:
            if isinstance(child.tag, str) and localname(child) in ("tspan", "a") and \
                    s.props.get(child, {}).get("display") != "none":
                walk(child)
            add(child.tail, element, size)

    walk(text)
    last = next((chunk for _, chunk in reversed(chunks) if chunk), None)
    if last:  # the text's last space is dropped, as SVG's default white-space handling does
        end = last[-1]
        last[-1] = TextRun(end.x, end.y, end.text.rstrip(), end.bold, end.size, end.fill)
    runs: list[TextRun] = []
    for anchor, chunk in chunks:
        if not chunk:
            continue
        width = chunk[-1].x + string_width(chunk[-1].text, BOLD if chunk[-1].bold else REGULAR, chunk[-1].size) \
            - chunk[0].x
        move = {"middle": width / 2, "end": width}.get(anchor, 0.0)
        runs += [TextRun(p.x - move, p.y, p.text, p.bold, p.size, p.fill) for p in chunk if p.text]
    return tuple(runs)


def _chain(s: Styled, element: Any) -> Iterator[Any]:
    """The gradient and those its `href` leads to, each once."""
    met: set[int] = set()
    while element is not None and id(element) not in met and localname(element) in GRADIENTS:
        met.add(id(element))
        yield element
        target = (element.get(XLINK_HREF) or element.get("href") or "").strip()
        element = s.by_id.get(target[1:]) if target.startswith("#") else None


def gradient_spec(s: Styled, gradient: Any) -> GradientSpec:
    """The gradient `gradient` as drawn (SvgRefused for what kitgen does not draw of it)."""
    chain = list(_chain(s, gradient))

    def attr(name: str, default: str) -> str:
        return next((g.get(name).strip() for g in chain if g.get(name) is not None), default)

    kind = "linear" if localname(gradient) == "linearGradient" else "radial"
    spread = attr("spreadMethod", "pad")
    if spread != "pad":
        raise _refuse(gradient, f"has spreadMethod={spread!r}, which kitgen does not draw; expected pad (the end "
                                "colours carried on)")
    units = attr("gradientUnits", "objectBoundingBox")
    if units not in ("objectBoundingBox", "userSpaceOnUse"):
        raise _refuse(gradient, f"has gradientUnits={units!r}; expected objectBoundingBox or userSpaceOnUse")
    width, height = s.box if units == "userSpaceOnUse" else (1.0, 1.0)
    diagonal = math.sqrt((width * width + height * height) / 2)

    def length(name: str, default: str, scale: float) -> float:
        value = attr(name, default)
        number = re.sub(r"(px|pt)$", "", value)
        try:
            return float(number[:-1]) / 100 * scale if number.endswith("%") else float(number)
        except ValueError:
            raise _refuse(gradient, f"has {name}={value!r}; expected a number or a percentage") from None

    coords: tuple[float, ...]
    if kind == "linear":
        coords = (length("x1", "0%", width), length("y1", "0%", height), length("x2", "100%", width),
                  length("y2", "0%", height))
    else:
        cx, cy, r = length("cx", "50%", width), length("cy", "50%", height), length("r", "50%", diagonal)
        fx, fy = length("fx", attr("cx", "50%"), width), length("fy", attr("cy", "50%"), height)
        if length("fr", "0", diagonal) != 0:
            raise _refuse(gradient, "has a focal radius (fr), which kitgen does not draw; expected fr left out")
        coords = (fx, fy, cx, cy, r)
    if not all(math.isfinite(n) for n in coords):
        raise _refuse(gradient, "has a coordinate that is not a finite number; expected numbers")
    owner = next((g for g in chain if any(localname(c) == "stop" for c in g)), None)
    stops: list[tuple[float, str]] = []
    alphas = set()
    for stop in (c for c in (owner if owner is not None else ()) if localname(c) == "stop"):
        props = s.props.get(stop, {})
        offset = min(1.0, max(0.0, _number(props.get("offset", "0"), 0.0)))
        stops.append((max([offset] + [o for o, _ in stops]), props.get("stop-color") or "black"))
        alphas.add(round(min(1.0, max(0.0, _number(props.get("stop-opacity", "1")))), 3))
    if len(alphas) > 1:
        raise _refuse(owner, "has stops of different opacity (stop-opacity), a fade kitgen does not draw; expected "
                             "one stop-opacity for all its stops")
    return GradientSpec(kind, units, coords, attr("gradientTransform", ""), tuple(stops),
                        alphas.pop() if alphas else 1.0, gradient.sourceline)

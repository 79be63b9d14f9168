"""Card sheets as display lists: each face page followed by its mirrored back page, each card design a form."""
from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache, partial
from types import MappingProxyType
from typing import Callable, Hashable, Iterator, Mapping, Sequence, TypeVar

from kitgen.core.display import (BLACK, Box, Circle, Clip, DECK_MARKED, Document, Form, Group, Item, Line, Page,
                                 rotate_half_turn, Stroke, Text, translate, Use, WHITE)
from kitgen.core.errors import BuildError, UnprintableContent
from kitgen.core.notes import Note, NoteKind
from kitgen.plan import back_marks, backs_rotated, CardSheet, crop_marks, cut_guides, Grid, Rect, trim_box
from kitgen.plan.imposition import back_band, registration_rects, ruler_starts
from kitgen.pictures.files import Picture
from kitgen.render.design_cache import design_key, DesignCache
from kitgen.core.style import Style
from kitgen.render.fit import DoesNotFit, label_items, Slot
from kitgen.fonts.registry import register_fonts, REGULAR, regular, string_width
from kitgen.render.markup import inline_markup, parse_xml, plain_text
from kitgen.render.pictures import fitted_with_emoji, label_with_emoji, placed
from kitgen.render.quality import contrast_on_white, gathered, MIN_CONTRAST, note
from kitgen.core.units import INCH, mm, PaperSize

SAFE_INSET = mm(3)  # text stays this far inside the cut line
FRAME_INSET = mm(2)
GREY = (0.35, 0.35, 0.35)
PATTERN_GREY = 0.72


def registration_marks(page: PaperSize) -> list[Item]:
    """The marks, printed in black ink alone."""
    return [Box(r.x, r.y, r.width, r.height, None, BLACK) for rects in registration_rects(page).values()
            for r in rects]


@dataclass(frozen=True)
class Design:
    """A drawn card side: a label for error messages, its template output, and how to draw it."""

    label: str
    tree: ET.Element | None  # the template's output as parsed, or None: parsed from `source` when first drawn
    kind: str  # "face", "back" or "slip"
    pattern: str = "plain"
    stem: str = ""  # deck and card ids, for a file of its own (`supply-C2-face`)
    picture: Picture | None = None  # the card's (or back's) picture, already found and checked
    fit: str = "contain"  # the picture whole in its box, or `cover`: filling it, cut at the edges
    source: str = ""  # the template's output, when known (a quicker key for the cache)
    template: str = ""  # the template that wrote `source`, for an error in it

    @cached_property
    def xml(self) -> ET.Element:
        """The template's output as an element tree (a design taken from the cache is never parsed)."""
        return self.tree if self.tree is not None else parse_xml(self.source, self.template)


@lru_cache(maxsize=32)
def face_slots(width: float, height: float, scale: float = 1.0) -> Mapping[str, Slot]:
    """Where each part of a card face goes, as fractions of the safe area (one read-only table per size)."""
    safe = Rect(0, 0, width, height).inset(SAFE_INSET)

    def band(top: float, bottom: float, left: float = 0.0, right: float = 1.0) -> Rect:
        return Rect(safe.x + left * safe.width, safe.top - bottom * safe.height,
                    (right - left) * safe.width, (bottom - top) * safe.height)

    return MappingProxyType({
        "corner": Slot(band(0.0, 0.13, 0.0, 0.24), 16 * scale, bold=True, align="left"),
        "title": Slot(band(0.0, 0.13, 0.24, 0.76), 14 * scale, bold=True),
        "mark": Slot(band(0.0, 0.13, 0.76, 1.0), 14 * scale, bold=True, align="right"),
        "symbol": Slot(band(0.15, 0.50), 60, bold=True),
        "caption": Slot(band(0.50, 0.60), 12 * scale, bold=True),
        "text": Slot(band(0.61, 0.86), 10 * scale),
        "footer": Slot(band(0.86, 0.95), 11 * scale, bold=True),
        "kit": Slot(band(0.95, 1.0, 0.5, 1.0), 7, align="right", color=GREY),
    })


# The body of a face (below the header, above the kit label), part by part in each layout, with the share of
# the height each part takes when present; a part that is absent gives its share to the others, so the face is
# always filled from the header to the foot instead of leaving its lower third empty.
LAYOUT_BODY: Mapping[str, tuple[tuple[str, float], ...]] = MappingProxyType({
    "text": (("symbol", 0.35), ("caption", 0.10), ("text", 0.25), ("footer", 0.09)),
    "picture": (("picture", 0.52), ("caption", 0.09), ("text", 0.18), ("footer", 0.08)),
    "big-value": (("big", 0.40), ("caption", 0.10), ("text", 0.21), ("footer", 0.09)),
    "word-picture": (("word", 0.16), ("picture", 0.44), ("caption", 0.08), ("text", 0.15), ("footer", 0.07)),
    "pair": (("picture", 0.46), ("word", 0.22), ("caption", 0.08), ("text", 0.14), ("footer", 0.07)),
})
BODY_SIZES = {"symbol": 60, "big": 96, "word": 30, "caption": 12, "text": 10, "footer": 11}
BODY_PARTS = ("word", "symbol", "big", "picture", "qr", "caption", "text", "footer")
GAP = 0.01  # of the safe height, between two parts of the body


@lru_cache(maxsize=256)
def face_layout(width: float, height: float, scale: float, layout: str, parts: frozenset[str]) -> Mapping[str, Slot]:
    """Where each present part of a face goes in `layout` (one read-only table per size, layout and parts).

    The header (corner, title, mark) keeps its band when any of them is printed; the body parts share the
    rest of the height in proportion to their shares; the corner index is one line, never wrapped."""
    safe = Rect(0, 0, width, height).inset(SAFE_INSET)

    def band(top: float, bottom: float, left: float = 0.0, right: float = 1.0) -> Rect:
        return Rect(safe.x + left * safe.width, safe.top - bottom * safe.height,
                    (right - left) * safe.width, (bottom - top) * safe.height)

    slots: dict[str, Slot] = {}
    header = bool(parts & {"corner", "title", "mark"})
    if header:
        slots["corner"] = Slot(band(0.0, 0.13, 0.0, 0.24), 16 * scale, bold=True, align="left", min_size=5)
        slots["title"] = Slot(band(0.0, 0.13, 0.24, 0.76), 14 * scale, bold=True)
        slots["mark"] = Slot(band(0.0, 0.13, 0.76, 1.0), 14 * scale, bold=True, align="right")
    slots["kit"] = Slot(band(0.95, 1.0, 0.5, 1.0), 7, align="right", color=GREY)
    top, bottom = (0.15 if header else 0.0), (0.95 if "kit" in parts else 0.985)
    body = [(part, share) for part, share in LAYOUT_BODY[layout] if part in parts]
    if layout == "text" and "picture" in parts:  # a picture takes the symbol's place (the symbol stays in the mark)
        body = [("picture", 0.35)] + [(p, s) for p, s in body if p != "symbol"]
    placed_parts = {part for part, _ in body} | ({"symbol"} if layout == "text" and "picture" in parts else set())
    body += [(part, 0.35 if part in ("symbol", "big", "picture", "qr") else 0.12)  # a part a template adds to a layout
             for part in BODY_PARTS if part in parts and part not in placed_parts]
    total = sum(share for _, share in body) or 1.0
    room = bottom - top - GAP * max(len(body) - 1, 0)
    y = top
    for part, share in body:
        size = room * share / total
        if part not in ("picture", "qr"):
            bold = part != "text"
            slots[part] = Slot(band(y, y + size), BODY_SIZES[part] * (scale if part in ("caption", "text", "footer")
                                                                      else 1.0), bold=bold)
        else:
            slots[part] = Slot(band(y, y + size), 0)
        y += size + GAP
    return MappingProxyType(slots)


@lru_cache(maxsize=32)
def back_slots(width: float, height: float) -> tuple[Rect, Mapping[str, Slot]]:
    """The white panel in the middle of a back and the text slots inside it (one read-only table per size)."""
    panel = Rect(width * 0.16, height * 0.30, width * 0.68, height * 0.40)
    inner = panel.inset(mm(2))
    h = inner.height
    return panel, MappingProxyType({
        "symbol": Slot(Rect(inner.x, inner.y + h * 0.50, inner.width, h * 0.50), 40, bold=True),
        "picture": Slot(Rect(inner.x, inner.y + h * 0.50, inner.width, h * 0.50), 0),
        "title": Slot(Rect(inner.x, inner.y + h * 0.30, inner.width, h * 0.20), 14, bold=True),
        "subtitle": Slot(Rect(inner.x, inner.y + h * 0.15, inner.width, h * 0.15), 9),
        "kit": Slot(Rect(inner.x, inner.y, inner.width, h * 0.15), 10, bold=True),
    })


@lru_cache(maxsize=32)
def wrapped_back_slots(width: float, height: float) -> Mapping[str, Slot]:
    """The back's slots when its subtitle does not fit on one line (a small card): the title gives the subtitle
    room for two lines, the symbol and the title move up and may shrink."""
    _, slots = back_slots(width, height)
    inner = back_slots(width, height)[0].inset(mm(2))
    h = inner.height
    return MappingProxyType({
        **slots,
        "symbol": Slot(Rect(inner.x, inner.y + h * 0.62, inner.width, h * 0.38), 40, bold=True),
        "picture": Slot(Rect(inner.x, inner.y + h * 0.62, inner.width, h * 0.38), 0),
        "title": Slot(Rect(inner.x, inner.y + h * 0.45, inner.width, h * 0.17), 14, bold=True),
        "subtitle": Slot(Rect(inner.x, inner.y + h * 0.15, inner.width, h * 0.30), 9),
    })


COLORED_PARTS = {"corner", "title", "mark", "symbol"}
NAMED_COLORS = {"black": (0, 0, 0), "red": (0.78, 0.05, 0.05), "blue": (0.05, 0.2, 0.7), "green": (0.05, 0.45, 0.15)}


def rgb(color: str) -> tuple[float, float, float]:
    """A colour name or #rrggbb → RGB in 0..1 (unknown names print black)."""
    if color.startswith("#") and len(color) == 7:
        try:
            red, green, blue = (int(color[i:i + 2], 16) / 255 for i in (1, 3, 5))
            return (red, green, blue)
        except ValueError:
            return (0, 0, 0)
    return NAMED_COLORS.get(color.lower(), (0, 0, 0))


# the content key each part of the card templates prints, for messages that name what the author wrote
CONTENT_KEYS = {"corner": "value", "title": "name", "mark": "symbol", "symbol": "symbol", "big": "value",
                "word": "name", "subtitle": "subtitle", "caption": "caption", "text": "text", "footer": "footer"}


def _slot_items(design: Design, slots: Mapping[str, Slot], light: bool = False,
                fallback: Mapping[str, Slot] | None = None) -> list[Item]:
    """The printed parts of a card; when a part does not fit and a fallback layout is given, the whole card in
    that layout instead."""
    items: list[Item] = []
    for element in design.xml:
        slot = slots.get(element.tag)
        if slot is None:
            raise BuildError(f"card template: unknown part <{element.tag}>, expected one of {', '.join(slots)}")
        if element.tag == "picture":
            if design.picture is not None:
                items += placed(design.picture, slot.box, design.fit, light)
            continue
        if element.tag == "qr":  # black modules on the white face, as large as the place allows
            from kitgen.render.qr import qr_items

            items += qr_items(plain_text(element).strip(), slot.box, design.label)
            continue
        key = CONTENT_KEYS.get(element.tag, element.tag)
        markup = inline_markup(element)
        if element.tag == "corner":  # the index is one line: its spaces never break
            markup = markup.replace(" ", "\u00a0")
        color = element.get("color") or design.xml.get("color") if element.tag in COLORED_PARTS else None
        if color:
            slot = replace(slot, color=rgb(color))
        try:  # emoji print as pictures; a character neither a font nor the set has is reported later
            drawn, size = fitted_with_emoji(markup, slot, origin=f"{design.label}, {key}", line_only=light)
        except DoesNotFit:
            if fallback is not None and fallback.get(element.tag, slot) != slot:
                return _slot_items(design, fallback, light)
            raise UnprintableContent(f"{design.label}, {key}: the text does not fit on the card even at "
                                     f"{slot.min_size:g} pt; shorten it or choose a larger card") from None
        items += drawn
        if element.tag == "text" and size < slot.max_size:
            note(Note(NoteKind.SHRUNK, f"{key} shrunk to {size:g} pt (body size {slot.max_size:g} pt)", design.label,
                      figures=(("size", size), ("body", slot.max_size))))
        if contrast_on_white(slot.color) < MIN_CONTRAST and size < 14:
            contrast = contrast_on_white(slot.color)
            note(Note(NoteKind.GREYSCALE, f"{key} in colour {color} is hard to read in grayscale "
                      f"(contrast {contrast:.1f}:1, want {MIN_CONTRAST}:1)", design.label,
                      figures=(("contrast", contrast), ("want", MIN_CONTRAST))))
    return items


@lru_cache(maxsize=8)
def _face_frame(width: float, height: float, text_scale: float, rule: bool = True) -> tuple[Item, ...]:
    """The frame and the rule under the header (when there is one): the same on every face of a size."""
    frame = Rect(0, 0, width, height).inset(FRAME_INSET)
    rule_y = face_slots(width, height, text_scale)["title"].box.y - mm(0.6)
    outline = Box(frame.x, frame.y, frame.width, frame.height, Stroke(0.6, GREY), radius=mm(2.5))
    if not rule:
        return (outline,)
    return (outline, Line(frame.x + mm(1.5), rule_y, frame.right - mm(1.5), rule_y, Stroke(0.4, GREY)))


def _face_slots(design: Design, width: float, height: float, scale: float) -> Mapping[str, Slot]:
    """The slots of this face's layout for the parts its template printed."""
    layout = design.xml.get("layout", "text")
    if layout not in LAYOUT_BODY:
        raise BuildError(f"{design.label}: card template: unknown layout {layout!r}, expected one of "
                         f"{', '.join(LAYOUT_BODY)}")
    return face_layout(width, height, scale, layout, frozenset(element.tag for element in design.xml))


def _face(design: Design, width: float, height: float, style: Style, bleed: float) -> list[Item]:
    slots = _face_slots(design, width, height, style.text_scale)
    return [*_face_frame(width, height, style.text_scale, "title" in slots),
            *_slot_items(design, slots, style.light)]


@lru_cache(maxsize=32)
def _pattern(pattern: str, width: float, height: float) -> tuple[Item, ...]:
    """A back's pattern over (0, 0)–(width, height), drawn in a light grey."""
    line = Stroke(1.2, (PATTERN_GREY,))
    step = mm(4)
    items: list[Item] = []
    if pattern == "stripes":
        offset = -height
        while offset < width:
            items.append(Line(offset, 0, offset + height, height, line))
            offset += step
    elif pattern == "dots":
        for ix in range(int(width / step) + 2):
            for iy in range(int(height / step) + 2):
                shift = step / 2 if iy % 2 else 0
                items.append(Circle(ix * step + shift, iy * step, mm(0.8), None, (PATTERN_GREY,)))
    elif pattern == "grid":
        items += [Line(ix * step, 0, ix * step, height, line) for ix in range(int(width / step) + 2)]
        items += [Line(0, iy * step, width, iy * step, line) for iy in range(int(height / step) + 2)]
    elif pattern == "diamonds":
        offset = -height
        while offset < width + height:
            items.append(Line(offset, 0, offset + height, height, line))
            items.append(Line(offset + height, 0, offset, height, line))
            offset += step * 1.5
    return tuple(items)


def _back(design: Design, width: float, height: float, style: Style, bleed: float = 0.0) -> list[Item]:
    """The pattern fills the whole art box (the card plus its bleed); a panel carries the words."""
    panel, slots = back_slots(width, height)
    outline = Stroke(0.8, (0.2,))
    if style.light:  # outlines only: a double frame instead of a filled pattern
        frame = Rect(0, 0, width, height).inset(FRAME_INSET)
        items: list[Item] = [Box(frame.x, frame.y, frame.width, frame.height, outline, radius=mm(2.5)),
                             Box(panel.x, panel.y, panel.width, panel.height, outline, radius=mm(2))]
    else:
        art = (width + 2 * bleed, height + 2 * bleed)
        items = [Group(_pattern(design.pattern, *art), translate(-bleed, -bleed), Clip(-bleed, -bleed, *art)),
                 Box(panel.x, panel.y, panel.width, panel.height, outline, WHITE, radius=mm(2))]
    return items + _slot_items(design, slots, style.light, wrapped_back_slots(width, height))


def _slip(design: Design, width: float, height: float, style: Style, bleed: float) -> list[Item]:
    """A small form; with a fold line, the outside half is hatched so writing on the inside stays hidden."""
    frame = Rect(0, 0, width, height).inset(mm(1.5))
    # large print: every word a player reads on the slip at 12 pt or more
    heading_size, line_size, fold_size = (16, 12, 12) if style.large_print else (11, 9, 6)
    least = 12 if style.large_print else None
    items: list[Item] = [Box(frame.x, frame.y, frame.width, frame.height, Stroke(0.5, (0.3,)))]
    safe = Rect(0, 0, width, height).inset(SAFE_INSET)
    fold = design.xml.get("fold") == "yes"
    inside = Rect(safe.x, safe.y, safe.width, safe.height / 2 - mm(2)) if fold else safe
    texts = [inline_markup(e) for e in design.xml.findall("outside")]
    title = design.xml.find("title")
    heading = "<br/>".join(([f"<b>{inline_markup(title)}</b>"] if title is not None else []) + texts)
    if not fold and heading:  # an open form: title and text on top, the write-in lines below
        head = Rect(safe.x, safe.top - safe.height * 0.3, safe.width, safe.height * 0.3)
        items += _fit_or_fail(design, "title", heading, _slot(head, heading_size, least))
        inside = Rect(safe.x, safe.y, safe.width, safe.height * 0.68)
    if fold:
        # large print: the box starts above the fold label's 12 pt and reaches nearer the safe line
        clear, pad = (mm(5.2), mm(1)) if style.large_print else (mm(3), mm(3))
        outside = Rect(safe.x + mm(2), height / 2 + clear, safe.width - mm(4), safe.top - height / 2 - clear - pad)
        if not style.light:  # hatching hides what is written inside when the slip is folded
            items.append(Group(_pattern("stripes", width, height),
                               clip=Clip(frame.x, height / 2, frame.width, frame.top - height / 2)))
            items.append(Box(outside.x, outside.y, outside.width, outside.height, None, WHITE))
        items += _fit_or_fail(design, "outside", heading, _slot(outside, heading_size, least))
        items.append(Line(frame.x, height / 2, frame.right, height / 2, Stroke(0.5, BLACK, (3, 2))))
        fold_label = design.xml.find("foldlabel")
        if fold_label is not None:
            words = plain_text(fold_label)
            items.append(Text(width - SAFE_INSET - string_width(words, regular(), fold_size), height / 2 + mm(0.8),
                              words, regular(), fold_size, BLACK, design.label))
    lines = design.xml.findall("line")
    row = inside.height / max(len(lines), 1)
    for index, line in enumerate(lines):
        top = inside.top - index * row
        box = Rect(inside.x, top - row, inside.width, row)
        label_box = Rect(box.x, box.y + mm(1), box.width, min(box.height - mm(1), mm(5)))
        items += _fit_or_fail(design, "line", inline_markup(line), _slot(label_box, line_size, least, "left"))
        items.append(Line(box.x, box.y + mm(0.8), box.right, box.y + mm(0.8), Stroke(0.4, BLACK)))
    return items


def _slot(box: Rect, size: float, least: float | None, align: str = "center") -> Slot:
    """A slip's text slot: at `size`, shrunk to fit no smaller than `least` (large print) or the usual minimum."""
    return Slot(box, size, align=align) if least is None else Slot(box, size, align=align, min_size=least)


def _fit_or_fail(design: Design, part: str, markup: str, slot: Slot) -> list[Item]:
    try:
        return fitted_with_emoji(markup, slot, origin=design.label)[0]
    except DoesNotFit:
        raise UnprintableContent(f"{design.label}, {part}: the text does not fit even at {slot.min_size:g} pt") from None


@lru_cache(maxsize=8)
def _ruler(x0: float, y: float, letter: bool, font: str = REGULAR) -> tuple[Item, ...]:
    """The ruler's strokes and its words (the same on every sheet of a file)."""
    pen = Stroke(0.5, BLACK)
    segments = [(x0, y, x0 + (4 * INCH if letter else mm(100)), y)]
    for tick in range(0, 101, 5):
        segments.append((x0 + mm(tick), y, x0 + mm(tick), y + (mm(2.5) if tick % 10 == 0 else mm(1.2))))
    if letter:
        for eighth in range(0, 33, 2):
            x = x0 + eighth * INCH / 8
            segments.append((x, y, x, y - (mm(2.5) if eighth % 8 == 0 else mm(1.2))))
    items: list[Item] = [Line(a, b, c, d, pen) for a, b, c, d in segments]
    items.append(Text(x0 + mm(101), y + mm(1), "100 mm", font, 6))
    if letter:
        items.append(Text(x0 + 4 * INCH + mm(1), y - mm(2.5), "4 in", font, 6))
    return tuple(items)


def _calibration(band: Rect, label: str, ruler_note: str, letter: bool) -> list[Item]:
    """A 100 mm ruler (and a 4 in one on Letter) with the words to check it, then the sheet label."""
    x0 = band.x + mm(2)
    y = band.y + (mm(4.5) if letter else mm(3))
    text_box = Rect(x0 + 4 * INCH + mm(12), band.y, band.right - (x0 + 4 * INCH + mm(12)), band.height)
    upper = Rect(text_box.x, text_box.y + text_box.height / 2, text_box.width, text_box.height / 2)
    lower = Rect(text_box.x, text_box.y, text_box.width, text_box.height / 2)
    return [*_ruler(x0, y, letter, regular()),
            *label_items(ruler_note, Slot(upper, 7, bold=True, align="left", min_size=5)),
            *label_with_emoji(label, Slot(lower, 7, align="left", min_size=5))]


def _inch_ruler() -> tuple[Item, ...]:
    """A 4 in ruler along x from the origin, ticks every eighth upwards, its words after its end."""
    pen = Stroke(0.5, BLACK)
    items: list[Item] = [Line(0, 0, 4 * INCH, 0, pen)]
    items += [Line(e * INCH / 8, 0, e * INCH / 8, mm(2.5) if e % 8 == 0 else mm(1.2), pen) for e in range(0, 33, 2)]
    return (*items, Text(4 * INCH + mm(1), mm(1), "4 in", regular(), 6))


def _side_calibration(grid: Grid, label: str, ruler_note: str, letter: bool) -> list[Item]:
    """Side layout: the 100 mm ruler and the words to check it down the left strip, from the top; the sheet label
    down the right strip from the top and, on Letter, the 4 in ruler at its foot, so the two rulers' ticks are
    never level (each drawn along its strip, turned a quarter clockwise, read from the top, as text extractors
    read it). `ruler_starts` keeps every tick clear of the horizontal cuts."""
    left, right = grid.band, grid.side
    assert right is not None
    inset = mm(0.2)
    left_zero, right_zero = ruler_starts(grid)
    note_start, note_end = mm(116), left.height - mm(2) - (left.top - left_zero)
    up = Group((*_ruler(0, 0, False, regular()),
                *label_items(ruler_note, Slot(Rect(note_start, 0, note_end - note_start, left.width - inset), 7,
                                              bold=True, align="left", min_size=5))),
               (0.0, -1.0, 1.0, 0.0, left.x + inset, left_zero))
    label_end = (right.top - mm(2)) - (right_zero + mm(3)) if letter else right.height - mm(4)
    items: list[Item] = [Group(tuple(label_with_emoji(label, Slot(Rect(0, 0, label_end, right.width - inset), 7,
                                                                  align="left", min_size=5))),
                               (0.0, -1.0, 1.0, 0.0, right.x + inset, right.top - mm(2)))]
    if letter:
        items.append(Group(_inch_ruler(), (0.0, -1.0, 1.0, 0.0, right.x + inset, right_zero)))
    return [up, *items]


def _fold_line(grid: Grid, label: str) -> list[Item]:
    """The dashed fold line across the page, and its label above it over the middle of a card column, where no
    crop mark runs (the marks continue the cut lines, between the columns and beside the grid)."""
    fold = grid.fold_y
    assert fold is not None  # drawn for a gutter fold only
    column = grid.cell(grid.columns // 2)
    x = column.x + (column.width - string_width(label, regular(), 7)) / 2
    return [Line(grid.margin, fold, grid.page.width - grid.margin, fold, Stroke(0.4, BLACK, (4, 3))),
            Text(x, fold + mm(1), label, regular(), 7)]


# what ink-light prints instead of a filled symbol: its outline
# (● → ◎, not ○: a deck may hold both)
OUTLINED = str.maketrans("●▲◆■★♠♥♦♣▼◀▶⬤", "◎△◇□☆♤♡♢♧▽◁▷◎")


def outlined(design: Design) -> Design:
    """The design with every filled symbol character replaced by its outline (ink-light)."""
    xml = copy.deepcopy(design.xml)
    for element in xml.iter():
        if element.text:
            element.text = element.text.translate(OUTLINED)
        if element.tail:
            element.tail = element.tail.translate(OUTLINED)
    return replace(design, tree=xml, source="")


def _deck_words(back: Design) -> str:
    """A back's symbol and title, as one line ("● Player 1")."""
    parts = [" ".join("".join(element.itertext()).split()) for tag in ("symbol", "title")
             for element in back.xml.findall(tag)]
    return " ".join(part for part in parts if part)


def _deck_marker(words: str, width: float, height: float) -> list[Item]:
    """The deck's back symbol and title at the foot of a face, left of the kit label (printed without backs)."""
    safe = Rect(0, 0, width, height).inset(SAFE_INSET)
    return label_with_emoji(words, Slot(Rect(safe.x, safe.y, safe.width / 2, safe.height * 0.05), 7, bold=True,
                                        align="left", min_size=5))


def _neutral_border(width: float, height: float) -> Item:
    """A white border inside a back's cut line: a shifted back page then shows white at a card's edge, never a
    sliver of the neighbouring card's back."""
    return Box(0, 0, width, height, Stroke(2 * NEUTRAL_BORDER, WHITE))


DRAW = {"face": _face, "back": _back, "slip": _slip}
CROP_MARK = Stroke(0.25, BLACK)
CUT_LINE = Stroke(0.25, (0.45,))
NEUTRAL_BORDER = mm(1.5)  # without bleed, where neighbouring backs differ: white this far inside every back's edge


@dataclass(frozen=True)
class SheetText:
    """The words printed on every card sheet, already translated."""

    title: str
    sheet_label: Callable[[int, int, str], str]
    ruler_note: str
    fold_label: str = "fold"


_Card = TypeVar("_Card")  # what a sheet holds (a card reference, a slip's index)
_FaceKey = TypeVar("_FaceKey", bound=Hashable)
_BackKey = TypeVar("_BackKey", bound=Hashable)


def render_card_sheets(
    sheets: Sequence[CardSheet[_Card]],
    grid: Grid,
    faces: Mapping[_FaceKey, Design],
    backs: Mapping[_BackKey, Design] | None,
    back_of: Callable[[_Card], _BackKey],
    face_key: Callable[[_Card], _FaceKey],
    *,
    text: SheetText,
    letter: bool,
    style: Style = Style(),
) -> Document:
    """The card sheets as pages: face pages each followed by its back page (duplex), faces with their backs
    below a fold line (gutter fold), or faces alone (no backs). Each card design is one form."""
    register_fonts()
    sheet_options = grid.sheet
    with_backs = backs is not None and (sheet_options.fold or sheet_options.duplex != "none")
    document = Document(text.title, duplex=sheet_options.duplex if with_backs and not sheet_options.fold else None)
    width, height, bleed = grid.card.width, grid.card.height, sheet_options.bleed
    designs = DesignCache(repr((text.title, width, height, bleed, style)))
    names: dict[tuple[str, Hashable], str] = {}
    bordered = with_backs and not bleed and not style.light and _neighbours_differ(sheets, grid, back_of)
    # backs not printed: what tells the decks apart (each back's symbol and title) goes on the faces
    decks_differ = backs is not None and len({back_of(item) for sheet in sheets for _, item in sheet.faces}) > 1
    unprinted_backs = decks_differ and not with_backs
    # Print Then Cut prints the faces alone: each face also gets a twin with its deck's marker for those pictures
    marked_twins = decks_differ and with_backs and style.cricut

    def draw(kind: str, key: Hashable, design: Design) -> list[Item]:
        drawn = DRAW[design.kind](outlined(design) if style.light else design, width, height, style, bleed)
        if kind == "back" and bordered:
            drawn.append(_neutral_border(width, height))
        if kind == "face" and unprinted_backs and key in marker_of:
            drawn += _deck_marker(marker_of[key], width, height)
        return drawn

    digests: dict[tuple[str, Hashable], bytes] = {}

    def digest_of(kind: str, key: Hashable, design: Design) -> bytes:
        if (kind, key) not in digests:
            digests[(kind, key)] = design_key(design, kind, width, height, bleed, style, kind == "back" and bordered,
                                              marker_of.get(key) if kind == "face" else None)
        return digests[(kind, key)]

    def place(rect: Rect, kind: str, key: Hashable, design: Design, rotated: bool) -> Use:
        if (kind, key) not in names:
            name = names[(kind, key)] = f"{kind}{len(names)}"
            digest = digest_of(kind, key, design)
            try:
                drawn = designs.drawn(digest, design.label, lambda: draw(kind, key, design))
            except UnprintableContent as error:  # `check` gathers it and draws the rest; never kept
                if not gathered(error):
                    raise
                drawn = ()
            document.forms[name] = Form(name, (-bleed, -bleed, width + bleed, height + bleed), drawn,
                                        design.label, design.stem, digest)
            if kind == "face" and marked_twins and key in marker_of:
                twin = design_key(design, kind, width, height, bleed, style, False, marker_of[key])
                marked = (*drawn, *_deck_marker(marker_of[key], width, height))  # the face as drawn, and the marker
                document.forms[name + DECK_MARKED] = Form(name + DECK_MARKED, document.forms[name].bbox, marked,
                                                          design.label, "", twin)  # no file of its own
        where = rotate_half_turn(rect.right, rect.top) if rotated else translate(rect.x, rect.y)
        return Use(names[(kind, key)], where)

    # the same on every sheet of the file: computed once
    mark_lines = {side: [Line(mark.x0, mark.y0, mark.x1, mark.y1, CROP_MARK) for mark in marks]
                  for side, marks in (("faces", crop_marks(grid)), ("backs", back_marks(grid)))}
    guide_lines = [Line(g.x0, g.y0, g.x1, g.y1, CUT_LINE) for g in cut_guides(grid)]

    def page(side: str, sheet: CardSheet[_Card], items: list[Item], outlines: list[Rect], band: Rect,
             trim: Rect, named: str = "") -> Page:
        """`outlines`: the cards whose cut lines are drawn (faces only: a line on a back would show on the card)."""
        art = trim.inset(-bleed)
        boxes = {"trim": (trim.x, trim.y, trim.right, trim.top), "bleed": (art.x, art.y, art.right, art.top)}
        if sheet_options.print_shop:  # the page is the card and its bleed: the shop trims it at the trim box
            return Page(grid.page.width, grid.page.height, items, {**boxes, "art": boxes["trim"]})
        if style.cut_lines in ("marks", "both"):
            items += mark_lines[side]
        if style.cut_lines in ("lines", "both") or sheet_options.cutter:  # the cutter's outlines are printed too
            items += [Box(r.x, r.y, r.width, r.height, CUT_LINE, radius=sheet_options.corner) for r in outlines]
        if sheet_options.cutter and side == "faces":
            items += registration_marks(grid.page)
        if side == "faces":  # no room for the marks of the vertical cuts: a hairline on each, cut away with it
            items += guide_lines
        label = text.sheet_label(sheet.number, len(sheets), named or side)  # a fold sheet: "faces and backs"
        if grid.side is not None:
            items += _side_calibration(grid, label, text.ruler_note, letter)
        else:
            items += _calibration(band, label, text.ruler_note, letter)
        return Page(grid.page.width, grid.page.height, items, boxes)

    back_designs: Mapping[_BackKey, Design] = backs if backs is not None else {}
    marker_of: dict[Hashable, str] = {}
    if unprinted_backs or marked_twins:
        for sheet in sheets:
            for _, item in sheet.faces:
                marker_of[face_key(item)] = _deck_words(back_designs[back_of(item)])
    rotated = backs_rotated(sheet_options)

    def sides(sheet: CardSheet[_Card]) -> Iterator[tuple[str, Hashable, Design]]:
        """The designs a sheet places, in the order `place` meets them."""
        yield from (("face", face_key(item), faces[face_key(item)]) for _, item in sheet.faces)
        if with_backs:
            yield from (("back", back_of(item), back_designs[back_of(item)]) for _, item in sheet.backs)

    # a big deck: a second process draws the later half of the designs while this one draws the first
    first = {(kind, key): design for sheet in sheets for kind, key, design in sides(sheet)}
    designs.share([(digest_of(kind, key, design), partial(draw, kind, key, design))
                   for (kind, key), design in first.items()])
    try:
        for sheet in sheets:
            face_trim = _used_trim(sheet, grid) if sheet.faces else trim_box(grid)  # a partial sheet: its own cards
            items: list[Item] = [place(rect, "face", face_key(item), faces[face_key(item)], False)
                                 for rect, item in sheet.faces]
            if with_backs and sheet_options.fold:
                items += [place(rect, "back", back_of(item), back_designs[back_of(item)], True)
                          for rect, item in sheet.backs]
                items += _fold_line(grid, text.fold_label)
                document.pages.append(page("faces", sheet, items, [r for r, _ in sheet.faces], grid.band, face_trim,
                                           "fold"))
                continue
            document.pages.append(page("faces", sheet, items, [r for r, _ in sheet.faces], grid.band, face_trim))
            if with_backs:
                items = [place(rect, "back", back_of(item), back_designs[back_of(item)], rotated)
                         for rect, item in sheet.backs]
                trim = Rect(*_mirror_rect(face_trim, grid))
                dx, dy = style.back_offset
                back_page = page("backs", sheet, items, [], back_band(grid),
                                 Rect(trim.x + dx, trim.y + dy, trim.width, trim.height))
                if style.back_offset != (0.0, 0.0):  # the printer's measured shift, on back pages only
                    back_page.items = [Group(tuple(back_page.items), translate(*style.back_offset))]
                document.pages.append(back_page)
    finally:
        designs.close()
    designs.save()
    return document


def _used_trim(sheet: CardSheet[_Card], grid: Grid) -> Rect:
    """The rectangle round the cards a sheet holds (with a gutter fold, their backs below the fold too): the trim
    box of a partial sheet spans its cards, not the empty places."""
    rects = [rect for rect, _ in sheet.faces] + ([rect for rect, _ in sheet.backs] if grid.sheet.fold else [])
    x0, y0 = min(r.x for r in rects), min(r.y for r in rects)
    return Rect(x0, y0, max(r.right for r in rects) - x0, max(r.top for r in rects) - y0)


def _mirror_rect(rect: Rect, grid: Grid) -> tuple[float, float, float, float]:
    """Where a face-page rectangle falls on the back page (as the backs are mirrored)."""
    if grid.sheet.duplex == "short":
        return rect.x, grid.page.height - rect.top, rect.width, rect.height
    return grid.page.width - rect.right, rect.y, rect.width, rect.height


def _neighbours_differ(sheets: Sequence[CardSheet[_Card]], grid: Grid,
                       back_of: Callable[[_Card], Hashable]) -> bool:
    """Whether two cards side by side (or one above the other) anywhere in the file have different backs."""
    for sheet in sheets:
        at = {(round(rect.x, 3), round(rect.y, 3)): back_of(item) for rect, item in sheet.faces}
        step_x, step_y = round(grid.card.width + grid.gap, 3), round(grid.card.height + grid.gap, 3)
        for (x, y), key in at.items():
            for neighbour in ((round(x + step_x, 3), y), (x, round(y + step_y, 3))):
                if neighbour in at and at[neighbour] != key:
                    return True
    return False

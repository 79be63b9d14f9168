"""Pictures as display-list items: SVG drawings as vector paths, PNG and JPEG as images, and emoji from the
OpenMoji set (which ships as a Python package, with its licence) wherever content text holds one.

An SVG file is parsed once (strictly: no entities, no network, no external pictures), walked into `Path`
items in the drawing's own units, and placed by a scaling `Group`; a raster picture becomes one `Image`,
whose bytes the PDF backend embeds once however many cards show it.
"""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from kitgen.core.display import Clip, Group, Image, Item
from kitgen.pictures.files import Picture
from kitgen.pictures.emoji import emoji_picture, emoji_runs
from kitgen.pictures.svg import svg_items
from kitgen.plan import Rect

if TYPE_CHECKING:
    from kitgen.render.fit import Slot

PLACEHOLDER = "\u2003"  # an em space stands in for an emoji while text is fitted: one em wide, never a break
EMOJI_SCALE = 1.25  # an OpenMoji drawing has a margin around the figure: drawn a little larger than the em


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


def inline_emoji(items: list[Item], pictures: dict[int, Picture], line_only: bool = False) -> list[Item]:
    """After fitting: each placeholder in a text run (standing for `pictures[n]`, in order) gets its picture,
    one em square on the run's baseline."""
    from kitgen.core.display import Text
    from kitgen.fonts.registry import string_width

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
    from kitgen.fonts.registry import drawn_as_pictures

    missing = drawn_as_pictures(markup)
    if not missing:
        return markup, {}
    runs = emoji_runs(markup, set(missing))
    pictures = {number: emoji_picture(key) for number, (_, _, key) in enumerate(runs)}
    for start, end, _ in reversed(runs):
        markup = markup[:start] + PLACEHOLDER + markup[end:]
    return markup, pictures


def fitted_with_emoji(markup: str, slot: Slot, *, origin: str = "",
                      line_only: bool = False) -> tuple[list[Item], float]:
    """`fit.fitted_items`, with every emoji printed as its picture, the size of the text around it."""
    from kitgen.render.fit import fitted_items

    markup, pictures = with_placeholders(markup)
    drawn, size = fitted_items(markup, slot, origin=origin)
    return inline_emoji(drawn, pictures, line_only), size


def label_with_emoji(text: str, slot: Slot, line_only: bool = False) -> list[Item]:
    """`fit.label_items` (kitgen's own label, cut short when too long), with emoji printed as pictures."""
    from kitgen.render.fit import label_items

    text, pictures = with_placeholders(text)
    return inline_emoji(label_items(text, slot), pictures, line_only)


def digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:12]

"""Mats larger than the paper, as display lists: as overlapping, labelled parts with alignment marks."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Sequence

from kitgen.core.display import (BLACK, Box, Circle, Clip, Document, Form, Group, Item, Line, Page, Stroke, Use)
from kitgen.plan.imposition import PAGE_MARGIN, Rect
from kitgen.plan.tiling import alignment_marks, BoardLayout, Tile
from kitgen.core.errors import UnprintableContent
from kitgen.render.fit import DoesNotFit, Slot
from kitgen.pictures.files import Picture
from kitgen.render.pictures import fitted_with_emoji, label_with_emoji, placed
from kitgen.render.qr import qr_items
from kitgen.fonts.registry import register_fonts
from kitgen.render.markup import inline_markup
from kitgen.render.quality import gathered
from kitgen.core.units import mm, PaperSize

MARK_RADIUS = mm(2.5)
SEAM_CLEARANCE = mm(3)  # between a sentence and the glue strip it must not cross
LARGE_BAND = mm(13)  # large print: the part label's band under a part, two lines of 12 pt


@dataclass(frozen=True)
class BoardPrint:
    """One board to print: its template output, geometry, parts and the label of each part."""

    xml: ET.Element
    layout: BoardLayout
    tiles: list[Tile]
    labels: list[str]  # one per tile
    hint: str
    where: str = "board"  # file:line:column of the board, for error messages
    pictures: dict[str, Picture] = field(default_factory=dict)  # by the key the template's `picture` names
    light: bool = False  # pictures as outlines (`--ink light`)
    scale: float = 1.0  # `fit: page`: the whole mat drawn this much smaller on one page


LARGE_LABEL = 12  # a mat's part labels and, under its first part, its note, in large print (pt)


def _board(board: BoardPrint, note_inside: bool = True) -> list[Item]:
    try:
        return _board_parts(board, note_inside)
    except DoesNotFit as error:
        unprintable = UnprintableContent(f"{board.where}: the text {str(error)[:60]!r} does not fit on the mat even "
                                         "at the smallest size; shorten it")
        if not gathered(unprintable):  # (`check` gathers it and goes on to the next mat)
            raise unprintable from None
        return []


def _board_parts(board: BoardPrint, note_inside: bool = True) -> list[Item]:
    layout = board.layout
    inset, radius = (mm(1), mm(3)) if layout.compact else (mm(3), mm(4))
    items: list[Item] = [Box(inset, inset, layout.size.width - 2 * inset, layout.size.height - 2 * inset,
                             Stroke(1, BLACK), radius=radius)]
    title = board.xml.find("title")
    band = layout.title_box
    if layout.compact and any(board.labels):  # the right part of the band is the owner's (drawn on each page)
        band = Rect(band.x, band.y, band.width - owner_box(layout).width - mm(3), band.height)
    figure = board.xml.find("figure")
    if figure is not None:  # the picture at the left end of the title band, the QR code at its right end
        side = band.height - mm(4)
        picture = board.pictures.get(figure.get("key", ""))
        if picture is not None:
            items += _picture(picture, Rect(band.x + mm(2), band.y + mm(2), side, side), board.light)
            band = Rect(band.x + side + mm(6), band.y, band.width - side - mm(6), band.height)
        url = (figure.get("qr") or "").strip()
        if url:
            code = Rect(band.right - side - mm(2), band.y + mm(2), side, side)
            items += qr_items(url, code, board.where)
            band = Rect(band.x, band.y, band.width - side - mm(6), band.height)
    if title is not None:
        items += fitted_with_emoji(inline_markup(title), Slot(clear_of_seams(band, board.tiles), 18, bold=True),
                              origin=board.where)[0]
    labels = board.xml.findall("position")
    place = Stroke(0.8, (0.25,), (4, 3))
    for index, rect in enumerate(layout.positions):
        items.append(Box(rect.x, rect.y, rect.width, rect.height, place, radius=mm(3)))
        label = labels[index] if index < len(labels) else None
        if label is None:
            continue
        words = bool((label.text or "").strip() or len(label))
        picture = board.pictures.get(label.get("picture", ""))
        url = (label.get("qr") or "").strip()
        shown = picture is not None or bool(url)
        if shown:  # the picture and the QR code (side by side) in the upper part of the place, the label under
            pad = mm(3)
            top = Rect(rect.x + pad, rect.y + rect.height * (0.4 if words else 0) + pad,
                       rect.width - 2 * pad, rect.height * (0.6 if words else 1) - 2 * pad)
            if picture is not None and url:
                half = (top.width - pad) / 2
                items += _picture(picture, Rect(top.x, top.y, half, top.height), board.light)
                top = Rect(top.right - half, top.y, half, top.height)
            elif picture is not None:
                items += _picture(picture, top, board.light)
            if url:
                items += qr_items(url, top, f"{board.where}, place {index + 1}")
        if words:
            box = Rect(rect.x, rect.y + rect.height * (0.08 if shown else 0.3), rect.width,
                       rect.height * (0.3 if shown else 0.4))
            items += fitted_with_emoji(inline_markup(label), Slot(box, 60, bold=True, color=(0.55, 0.55, 0.55)),
                                  origin=f"{board.where}, place {index + 1}")[0]
    note = board.xml.find("note")
    if note is not None and note_inside:
        band = Rect(layout.title_box.x, mm(1.5), layout.title_box.width, mm(4)) if layout.compact else Rect(
            mm(8), mm(3.5), layout.size.width - mm(16), mm(4.5))
        band = clear_of_seams(band, board.tiles)
        items += fitted_with_emoji(inline_markup(note), Slot(band, 9, min_size=6), origin=board.where)[0]
    pen = Stroke(0.4, BLACK)
    for x, y in alignment_marks(layout.size, board.tiles):
        items += [Circle(x, y, MARK_RADIUS, pen), Line(x - 2 * MARK_RADIUS, y, x + 2 * MARK_RADIUS, y, pen),
                  Line(x, y - 2 * MARK_RADIUS, x, y + 2 * MARK_RADIUS, pen)]
    return items


def owner_box(layout: BoardLayout) -> Rect:
    """A narrow mat's owner label (player, kit): the right third of its title band, in board coordinates."""
    band = layout.title_box
    width = band.width / 3
    return Rect(band.right - width, band.y + mm(1), width, band.height - mm(2))


def _picture(picture: Picture, box: Rect, light: bool) -> list[Item]:
    """A mat's picture, whole and centred in `box`, in a group of its own."""
    return [Group(tuple(placed(picture, box, "contain", light)))]


def clear_of_seams(box: Rect, tiles: list[Tile]) -> Rect:
    """The part of `box` left of the first glue strip it would cross: a sentence is never cut by a seam."""
    for seam in sorted({t.window.x for t in tiles if t.column > 0}):  # a strip starts where a later part does
        if box.x < seam < box.right:
            return Rect(box.x, box.y, seam - SEAM_CLEARANCE - box.x, box.height)
    return box


def _note_below(board: BoardPrint, page: PaperSize) -> list[Item] | None:
    """Large print: the mat's note at 12 pt or more in the free page under its first part, below that part's
    label; None when it does not fit there (the note then stays inside the mat, at the size that fits)."""
    note = board.xml.find("note")
    if note is None or not board.tiles or board.layout.compact:  # a narrow mat fills its sheet
        return None
    ox, oy = board.tiles[0].origin
    top = oy - LARGE_BAND - mm(1)  # right under the part's label
    height = min(top - PAGE_MARGIN, mm(20))  # three lines of 14 pt at most
    band = Rect(ox, top - height, page.width - 2 * ox, height)
    if band.height < 2 * LARGE_LABEL:
        return None
    try:
        return fitted_with_emoji(inline_markup(note), Slot(band, 14, align="left", min_size=LARGE_LABEL),
                                 origin=board.where)[0]
    except DoesNotFit:
        return None


def render_boards(boards: Sequence[BoardPrint], page: PaperSize, *, title: str,
                  large_print: bool = False) -> Document:
    """Every part of every board, one page each; each board is one form, clipped to the part it shows. In large
    print the part labels are 12 pt and the mat's note moves under the first part at 12 pt or more, where the page
    has room (inside the mat it has a 4.5 mm band)."""
    register_fonts()
    document = Document(title)
    names: dict[int, str] = {}
    notes: dict[int, list[Item] | None] = {}
    trim = Stroke(0.5, BLACK, (3, 2))
    for board in boards:
        key = id(board.xml)
        if key not in names:
            name = names[key] = f"board{len(names)}"
            notes[key] = _note_below(board, page) if large_print else None
            document.forms[name] = Form(name, (0, 0, board.layout.size.width, board.layout.size.height),
                                        tuple(_board(board, notes[key] is None)), board.where)
        for tile_, label in zip(board.tiles, board.labels):
            ox, oy = tile_.origin
            window = tile_.window
            s = board.scale
            items: list[Item] = [Group((Use(names[key]),), (s, 0.0, 0.0, s, ox - s * window.x, oy - s * window.y),
                                       Clip(ox, oy, s * window.width, s * window.height))]
            # the dashed line lies inside the part, its outer edge on the trim: the margin cut away is blank
            half = trim.width / 2
            if tile_.column > 0:  # trim this edge, then lay the part over its left neighbour
                items.append(Line(ox + half, oy, ox + half, oy + window.height, trim))
            if tile_.row > 0:
                top = oy + window.height - half
                items.append(Line(ox, top, ox + window.width, top, trim))
            words = f"{label} · {board.hint}" if board.hint else label
            if board.layout.compact:  # the owner at the right end of the title band
                if words:
                    box, s = owner_box(board.layout), board.scale
                    size = LARGE_LABEL if large_print else 10
                    items += label_with_emoji(words, Slot(Rect(ox + s * box.x, oy + s * box.y, s * box.width,
                                                               s * box.height), size,
                                                          align="right", min_size=size if large_print else 5))
            elif large_print:
                room = max(mm(8), min(LARGE_BAND, oy - mm(4)))  # a full-height part leaves only its 8 mm band
                band = Rect(ox, oy - room, page.width - 2 * ox, room - mm(1))
                items += label_with_emoji(words, Slot(band, LARGE_LABEL, align="left", min_size=LARGE_LABEL))
                if tile_.number == 1 and notes[key]:
                    items += notes[key] or []
            else:
                band = Rect(ox, oy - mm(8), page.width - 2 * ox, mm(7))
                items += label_with_emoji(words, Slot(band, 8, align="left", min_size=5))
            document.pages.append(Page(page.width, page.height, items))
    return document

"""Draw mats larger than the paper as overlapping, labelled parts with alignment marks."""
from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Sequence

from kitgen.plan.imposition import Rect
from kitgen.plan.tiling import BoardLayout, Tile, alignment_marks
from kitgen.errors import UnprintableContent
from kitgen.render.fit import DoesNotFit, Slot, draw_fitted, draw_label
from kitgen.render.fonts import REGULAR, register_fonts
from kitgen.render.markup import inline_markup
from kitgen.units import PaperSize, mm

MARK_RADIUS = mm(2.5)


@dataclass(frozen=True)
class BoardPrint:
    """One board to print: its template output, geometry, parts and the label of each part."""

    xml: ET.Element
    layout: BoardLayout
    tiles: list[Tile]
    labels: list[str]  # one per tile
    hint: str
    where: str = "board"  # file:line:column of the board, for error messages


def _draw_board(canvas, board: BoardPrint) -> None:
    try:
        _draw_board_parts(canvas, board)
    except DoesNotFit as error:
        raise UnprintableContent(f"{board.where}: the text {str(error)[:60]!r} does not fit on the mat even at "
                                 "the smallest size; shorten it") from None


def _draw_board_parts(canvas, board: BoardPrint) -> None:
    layout = board.layout
    canvas.setStrokeGray(0)
    canvas.setLineWidth(1)
    canvas.roundRect(mm(3), mm(3), layout.size.width - mm(6), layout.size.height - mm(6), mm(4))
    title = board.xml.find("title")
    if title is not None:
        draw_fitted(canvas, inline_markup(title), Slot(layout.title_box, 18, bold=True))
    labels = board.xml.findall("position")
    canvas.setDash(4, 3)
    canvas.setLineWidth(0.8)
    for index, rect in enumerate(layout.positions):
        canvas.setStrokeGray(0.25)
        canvas.roundRect(rect.x, rect.y, rect.width, rect.height, mm(3))
        if index < len(labels):
            box = Rect(rect.x, rect.y + rect.height * 0.3, rect.width, rect.height * 0.4)
            draw_fitted(canvas, inline_markup(labels[index]), Slot(box, 60, bold=True, color=(0.55, 0.55, 0.55)))
    canvas.setDash()
    note = board.xml.find("note")
    if note is not None:
        draw_fitted(canvas, inline_markup(note), Slot(Rect(mm(8), mm(3.5), layout.size.width - mm(16), mm(4.5)),
                                                      9, min_size=6))
    canvas.setStrokeGray(0)
    canvas.setLineWidth(0.4)
    for x, y in alignment_marks(layout.size, board.tiles):
        canvas.circle(x, y, MARK_RADIUS)
        canvas.line(x - 2 * MARK_RADIUS, y, x + 2 * MARK_RADIUS, y)
        canvas.line(x, y - 2 * MARK_RADIUS, x, y + 2 * MARK_RADIUS)


def render_boards(boards: Sequence[BoardPrint], page: PaperSize, *, title: str) -> tuple[bytes, int]:
    """Every part of every board, one page each."""
    from reportlab.pdfgen.canvas import Canvas

    register_fonts()
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=tuple(page), invariant=1, pageCompression=1, initialFontName=REGULAR)
    canvas.setTitle(title)
    canvas.setAuthor("kitgen")
    canvas.setCreator("kitgen")
    canvas.setViewerPreference("PrintScaling", "None")
    pages = 0
    forms: dict[int, str] = {}
    for board in boards:
        key = id(board.xml)
        if key not in forms:
            forms[key] = f"board{len(forms)}"
            canvas.beginForm(forms[key], 0, 0, board.layout.size.width, board.layout.size.height)
            _draw_board(canvas, board)
            canvas.endForm()
        for tile_, label in zip(board.tiles, board.labels):
            ox, oy = tile_.origin
            canvas.saveState()
            clip = canvas.beginPath()
            clip.rect(ox, oy, tile_.window.width, tile_.window.height)
            canvas.clipPath(clip, stroke=0, fill=0)
            canvas.translate(ox - tile_.window.x, oy - tile_.window.y)
            canvas.doForm(forms[key])
            canvas.restoreState()
            canvas.setDash(3, 2)
            canvas.setLineWidth(0.5)
            if tile_.column > 0:  # trim this edge, then lay the part over its left neighbour
                canvas.line(ox, oy, ox, oy + tile_.window.height)
            if tile_.row > 0:
                canvas.line(ox, oy + tile_.window.height, ox + tile_.window.width, oy + tile_.window.height)
            canvas.setDash()
            band = Rect(ox, oy - mm(8), page.width - 2 * ox, mm(7))
            draw_label(canvas, f"{label} · {board.hint}" if board.hint else label, Slot(band, 8, align="left", min_size=5))
            canvas.showPage()
            pages += 1
    canvas.save()
    return buffer.getvalue(), pages

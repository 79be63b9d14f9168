"""Draw card sheets: each face page followed by its mirrored back page, cards as PDF form XObjects."""
from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Callable, Hashable, Mapping, Sequence

from kitgen.errors import BuildError, UnprintableContent
from kitgen.plan import CardSheet, Grid, Rect, back_marks, backs_rotated, crop_marks
from kitgen.plan.imposition import PAGE_MARGIN, back_band
from kitgen.render.style import Style
from kitgen.render.fit import DoesNotFit, Slot, draw_fitted, draw_label, text_operators
from kitgen.render.fonts import REGULAR, missing_glyphs, register_fonts
from kitgen.render.markup import inline_markup, plain_text
from kitgen.render.quality import MIN_CONTRAST, contrast_on_white, note
from kitgen.units import INCH, mm

SAFE_INSET = mm(3)  # text stays this far inside the cut line
FRAME_INSET = mm(2)
GREY = (0.35, 0.35, 0.35)
PATTERN_GREY = 0.72


@dataclass(frozen=True)
class Design:
    """A drawn card side: a label for error messages, its template output, and how to draw it."""

    label: str
    xml: ET.Element
    kind: str  # "face", "back" or "slip"
    pattern: str = "plain"

    def texts(self) -> list[str]:
        """Every text this design prints, part by part (for the host-key leak check)."""
        return [plain_text(part) for part in self.xml]


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


@lru_cache(maxsize=32)
def back_slots(width: float, height: float) -> tuple[Rect, Mapping[str, Slot]]:
    """The white panel in the middle of a back and the text slots inside it (one read-only table per size)."""
    panel = Rect(width * 0.16, height * 0.30, width * 0.68, height * 0.40)
    inner = panel.inset(mm(2))
    h = inner.height
    return panel, MappingProxyType({
        "symbol": Slot(Rect(inner.x, inner.y + h * 0.50, inner.width, h * 0.50), 40, bold=True),
        "title": Slot(Rect(inner.x, inner.y + h * 0.30, inner.width, h * 0.20), 14, bold=True),
        "subtitle": Slot(Rect(inner.x, inner.y + h * 0.15, inner.width, h * 0.15), 9),
        "kit": Slot(Rect(inner.x, inner.y, inner.width, h * 0.15), 10, bold=True),
    })


COLORED_PARTS = {"corner", "title", "mark", "symbol"}
NAMED_COLORS = {"black": (0, 0, 0), "red": (0.78, 0.05, 0.05), "blue": (0.05, 0.2, 0.7), "green": (0.05, 0.45, 0.15)}


def rgb(color: str) -> tuple[float, float, float]:
    """A colour name or #rrggbb → RGB in 0..1 (unknown names print black)."""
    if color.startswith("#") and len(color) == 7:
        try:
            return tuple(int(color[i:i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]
        except ValueError:
            return (0, 0, 0)
    return NAMED_COLORS.get(color.lower(), (0, 0, 0))


def _draw_slots(canvas, design: Design, slots: Mapping[str, Slot]) -> None:
    for element in design.xml:
        slot = slots.get(element.tag)
        if slot is None:
            raise BuildError(f"card template: unknown part <{element.tag}>, expected one of {', '.join(slots)}")
        text = "".join(element.itertext())
        missing = missing_glyphs(text)
        if missing:
            shown = " ".join(f"{ch!r} (U+{ord(ch):04X})" for ch in missing)
            raise UnprintableContent(f"{design.label}, {element.tag}: the bundled font cannot draw {shown}")
        color = element.get("color") or design.xml.get("color") if element.tag in COLORED_PARTS else None
        if color:
            slot = replace(slot, color=rgb(color))
        try:
            size = draw_fitted(canvas, inline_markup(element), slot)
        except DoesNotFit:
            raise UnprintableContent(f"{design.label}, {element.tag}: the text does not fit on the card even at "
                             f"{slot.min_size:g} pt; shorten it or choose a larger card") from None
        if element.tag == "text" and size < slot.max_size:
            note(f"{design.label}: {element.tag} shrunk to {size:g} pt (body size {slot.max_size:g} pt)")
        if contrast_on_white(slot.color) < MIN_CONTRAST and size < 14:
            note(f"{design.label}: {element.tag} in colour {color} is hard to read in grayscale "
                 f"(contrast {contrast_on_white(slot.color):.1f}:1, want {MIN_CONTRAST}:1)")


@lru_cache(maxsize=8)
def _face_frame(width: float, height: float, text_scale: float) -> str:
    """The frame and the rule under the title, as PDF operators: the same on every face of a size."""
    from reportlab.pdfgen.canvas import Canvas

    scratch = Canvas(io.BytesIO())
    start = len(scratch._code)
    scratch.setStrokeColorRGB(*GREY)
    scratch.setLineWidth(0.6)
    frame = Rect(0, 0, width, height).inset(FRAME_INSET)
    scratch.roundRect(frame.x, frame.y, frame.width, frame.height, mm(2.5), stroke=1, fill=0)
    rule_y = face_slots(width, height, text_scale)["title"].box.y - mm(0.6)
    scratch.setLineWidth(0.4)
    scratch.line(frame.x + mm(1.5), rule_y, frame.right - mm(1.5), rule_y)
    return "\n".join(scratch._code[start:])


def _draw_face(canvas, design: Design, width: float, height: float, style: Style) -> None:
    canvas.addLiteral(_face_frame(width, height, style.text_scale))
    _draw_slots(canvas, design, face_slots(width, height, style.text_scale))


def _draw_pattern(canvas, pattern: str, width: float, height: float) -> None:
    canvas.setStrokeGray(PATTERN_GREY)
    canvas.setFillGray(PATTERN_GREY)
    canvas.setLineWidth(1.2)
    step = mm(4)
    if pattern == "stripes":
        offset = -height
        while offset < width:
            canvas.line(offset, 0, offset + height, height)
            offset += step
    elif pattern == "dots":
        for ix in range(int(width / step) + 2):
            for iy in range(int(height / step) + 2):
                shift = step / 2 if iy % 2 else 0
                canvas.circle(ix * step + shift, iy * step, mm(0.8), stroke=0, fill=1)
    elif pattern == "grid":
        for ix in range(int(width / step) + 2):
            canvas.line(ix * step, 0, ix * step, height)
        for iy in range(int(height / step) + 2):
            canvas.line(0, iy * step, width, iy * step)
    elif pattern == "diamonds":
        offset = -height
        while offset < width + height:
            canvas.line(offset, 0, offset + height, height)
            canvas.line(offset + height, 0, offset, height)
            offset += step * 1.5


def _draw_back(canvas, design: Design, width: float, height: float, style: Style, bleed: float = 0.0) -> None:
    """The pattern fills the whole art box (the card plus its bleed); a panel carries the words."""
    panel, slots = back_slots(width, height)
    canvas.setStrokeGray(0.2)
    canvas.setLineWidth(0.8)
    if style.light:  # outlines only: a double frame instead of a filled pattern
        frame = Rect(0, 0, width, height).inset(FRAME_INSET)
        canvas.roundRect(frame.x, frame.y, frame.width, frame.height, mm(2.5))
        canvas.roundRect(panel.x, panel.y, panel.width, panel.height, mm(2))
    else:
        canvas.saveState()
        path = canvas.beginPath()
        path.rect(-bleed, -bleed, width + 2 * bleed, height + 2 * bleed)
        canvas.clipPath(path, stroke=0, fill=0)
        canvas.translate(-bleed, -bleed)
        _draw_pattern(canvas, design.pattern, width + 2 * bleed, height + 2 * bleed)
        canvas.restoreState()
        canvas.setFillGray(1)
        canvas.setStrokeGray(0.2)
        canvas.roundRect(panel.x, panel.y, panel.width, panel.height, mm(2), stroke=1, fill=1)
    _draw_slots(canvas, design, slots)


def _draw_slip(canvas, design: Design, width: float, height: float, style: Style) -> None:
    """A small form; with a fold line, the outside half is hatched so writing on the inside stays hidden."""
    canvas.setStrokeGray(0.3)
    canvas.setLineWidth(0.5)
    frame = Rect(0, 0, width, height).inset(mm(1.5))
    canvas.rect(frame.x, frame.y, frame.width, frame.height)
    safe = Rect(0, 0, width, height).inset(SAFE_INSET)
    fold = design.xml.get("fold") == "yes"
    inside = Rect(safe.x, safe.y, safe.width, safe.height / 2 - mm(2)) if fold else safe
    texts = [inline_markup(e) for e in design.xml.findall("outside")]
    title = design.xml.find("title")
    heading = "<br/>".join(([f"<b>{inline_markup(title)}</b>"] if title is not None else []) + texts)
    if not fold and heading:  # an open form: title and text on top, the write-in lines below
        head = Rect(safe.x, safe.top - safe.height * 0.3, safe.width, safe.height * 0.3)
        _fit_or_fail(canvas, design, "title", heading, Slot(head, 11))
        inside = Rect(safe.x, safe.y, safe.width, safe.height * 0.68)
    if fold:
        outside = Rect(safe.x + mm(2), height / 2 + mm(3), safe.width - mm(4), safe.top - height / 2 - mm(6))
        if not style.light:  # hatching hides what is written inside when the slip is folded
            canvas.saveState()
            clip = canvas.beginPath()
            clip.rect(frame.x, height / 2, frame.width, frame.top - height / 2)
            canvas.clipPath(clip, stroke=0, fill=0)
            _draw_pattern(canvas, "stripes", width, height)
            canvas.restoreState()
            canvas.setFillGray(1)
            canvas.rect(outside.x, outside.y, outside.width, outside.height, stroke=0, fill=1)
        _fit_or_fail(canvas, design, "outside", heading, Slot(outside, 11))
        canvas.setDash(3, 2)
        canvas.setStrokeGray(0)
        canvas.line(frame.x, height / 2, frame.right, height / 2)
        canvas.setDash()
        fold_label = design.xml.find("foldlabel")
        if fold_label is not None:
            canvas.setFont(REGULAR, 6)
            canvas.setFillGray(0)
            canvas.drawRightString(frame.right - mm(1), height / 2 + mm(0.8), plain_text(fold_label))
    lines = design.xml.findall("line")
    row = inside.height / max(len(lines), 1)
    for index, line in enumerate(lines):
        top = inside.top - index * row
        box = Rect(inside.x, top - row, inside.width, row)
        label_box = Rect(box.x, box.y + mm(1), box.width, min(box.height - mm(1), mm(5)))
        _fit_or_fail(canvas, design, "line", inline_markup(line), Slot(label_box, 9, align="left"))
        canvas.setStrokeGray(0)
        canvas.setLineWidth(0.4)
        canvas.line(box.x, box.y + mm(0.8), box.right, box.y + mm(0.8))


def _fit_or_fail(canvas, design: Design, part: str, markup: str, slot: Slot) -> None:
    try:
        draw_fitted(canvas, markup, slot)
    except DoesNotFit:
        raise UnprintableContent(f"{design.label}, {part}: the text does not fit even at {slot.min_size:g} pt") from None


@lru_cache(maxsize=8)
def _ruler_strokes(x0: float, y: float, letter: bool) -> str:
    """The ruler's lines as PDF operators, one stroked segment each (the same on every sheet of a file)."""
    segments = [(x0, y, x0 + (4 * INCH if letter else mm(100)), y)]
    for tick in range(0, 101, 5):
        segments.append((x0 + mm(tick), y, x0 + mm(tick), y + (mm(2.5) if tick % 10 == 0 else mm(1.2))))
    if letter:
        for eighth in range(0, 33, 2):
            x = x0 + eighth * INCH / 8
            segments.append((x, y, x, y - (mm(2.5) if eighth % 8 == 0 else mm(1.2))))
    lines = " ".join(f"{a:.6g} {b:.6g} m {c:.6g} {d:.6g} l S" for a, b, c, d in segments)
    return f"q 0 G 0.5 w {lines} Q"


def _draw_calibration(canvas, band: Rect, label: str, ruler_note: str, letter: bool) -> None:
    """A 100 mm ruler (and a 4 in one on Letter) with the words to check it, then the sheet label."""
    x0 = band.x + mm(2)
    y = band.y + (mm(4.5) if letter else mm(3))
    canvas.addLiteral(_ruler_strokes(x0, y, letter))
    words = [(x0 + mm(101), y + mm(1), "100 mm")]
    if letter:
        words.append((x0 + 4 * INCH + mm(1), y - mm(2.5), "4 in"))
    shown = " ".join(text_operators(canvas, REGULAR, 6, x, baseline, word) for x, baseline, word in words)
    canvas.addLiteral(f"q 0 g {shown} Q")
    text_box = Rect(x0 + 4 * INCH + mm(12), band.y, band.right - (x0 + 4 * INCH + mm(12)), band.height)
    upper = Rect(text_box.x, text_box.y + text_box.height / 2, text_box.width, text_box.height / 2)
    lower = Rect(text_box.x, text_box.y, text_box.width, text_box.height / 2)
    draw_label(canvas, ruler_note, Slot(upper, 7, bold=True, align="left", min_size=5))
    draw_label(canvas, label, Slot(lower, 7, align="left", min_size=5))


def _draw_cut_lines(canvas, rects: list[Rect]) -> None:
    """Thin lines exactly on every card's cut line."""
    canvas.setStrokeGray(0.45)
    canvas.setLineWidth(0.25)
    for rect in rects:
        canvas.rect(rect.x, rect.y, rect.width, rect.height, stroke=1, fill=0)


def _draw_fold_line(canvas, grid: Grid, label: str) -> None:
    fold = grid.fold_y
    canvas.setStrokeGray(0)
    canvas.setLineWidth(0.4)
    canvas.setDash(4, 3)
    canvas.line(PAGE_MARGIN, fold, grid.page.width - PAGE_MARGIN, fold)
    canvas.setDash()
    canvas.setFont(REGULAR, 7)
    canvas.setFillGray(0)
    canvas.drawString(PAGE_MARGIN, fold + mm(1), label)


def _shared_form_resources(canvas):
    """One resource dictionary (the document's fonts) that every card form refers to, instead of a copy each:
    a sheet file holds thousands of forms."""
    from reportlab.pdfbase.pdfdoc import PDFResourceDictionary

    resources = PDFResourceDictionary()
    resources.basicFonts()
    return canvas._doc.Reference(resources)


DRAW = {"face": _draw_face, "back": _draw_back, "slip": _draw_slip}


@dataclass(frozen=True)
class SheetText:
    """The words printed on every card sheet, already translated."""

    title: str
    sheet_label: Callable[[int, int, str], str]
    ruler_note: str
    fold_label: str = "fold"


def render_card_sheets(
    sheets: Sequence[CardSheet[Hashable]],
    grid: Grid,
    faces: dict[Hashable, Design],
    backs: dict[Hashable, Design] | None,
    back_of: Callable[[Hashable], Hashable],
    face_key: Callable[[Hashable], Hashable],
    *,
    text: SheetText,
    letter: bool,
    style: Style = Style(),
) -> tuple[bytes, int]:
    """The cards PDF and its page count: face pages each followed by its back page (duplex), faces with
    their backs below a fold line (gutter fold), or faces alone (no backs)."""
    from reportlab.pdfgen.canvas import Canvas

    from kitgen.render.card_form import end_card_form

    register_fonts()
    sheet_options = grid.sheet
    with_backs = backs is not None and (sheet_options.fold or sheet_options.duplex != "none")
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=tuple(grid.page), invariant=1, pageCompression=1, initialFontName=REGULAR)
    canvas.setTitle(text.title)
    canvas.setAuthor("kitgen")
    canvas.setCreator("kitgen")
    canvas.setViewerPreference("PrintScaling", "None")
    if with_backs and not sheet_options.fold:
        canvas.setViewerPreference("Duplex", "DuplexFlipShortEdge" if sheet_options.duplex == "short"
                                   else "DuplexFlipLongEdge")
    width, height, bleed = grid.card.width, grid.card.height, sheet_options.bleed
    forms: dict[tuple[str, Hashable], str] = {}
    resources = _shared_form_resources(canvas)

    def place(rect: Rect, kind: str, key: Hashable, design: Design, rotated: bool) -> None:
        if (kind, key) not in forms:
            forms[(kind, key)] = f"{kind}{len(forms)}"
            canvas.beginForm(forms[(kind, key)], -bleed, -bleed, width + bleed, height + bleed)
            if design.kind == "back":
                _draw_back(canvas, design, width, height, style, bleed)
            else:
                DRAW[design.kind](canvas, design, width, height, style)
            end_card_form(canvas, resources)
        canvas.saveState()
        if rotated:
            canvas.translate(rect.right, rect.top)
            canvas.rotate(180)
        else:
            canvas.translate(rect.x, rect.y)
        canvas.doForm(forms[(kind, key)])
        canvas.restoreState()

    def finish(side: str, sheet: CardSheet, marks: list, outlines: list[Rect], band: Rect) -> None:
        if style.cut_lines in ("marks", "both"):
            canvas.setStrokeGray(0)
            canvas.setLineWidth(0.25)
            for mark in marks:
                canvas.line(mark.x0, mark.y0, mark.x1, mark.y1)
        if style.cut_lines in ("lines", "both"):
            _draw_cut_lines(canvas, outlines)
        _draw_calibration(canvas, band, text.sheet_label(sheet.number, len(sheets), side), text.ruler_note, letter)
        canvas.showPage()

    rotated = backs_rotated(sheet_options)
    pages = 0
    for sheet in sheets:
        for rect, item in sheet.faces:
            place(rect, "face", face_key(item), faces[face_key(item)], False)
        if with_backs and sheet_options.fold:
            for rect, item in sheet.backs:
                place(rect, "back", back_of(item), backs[back_of(item)], True)  # type: ignore[index]
            _draw_fold_line(canvas, grid, text.fold_label)
            finish("faces", sheet, crop_marks(grid), [r for r, _ in sheet.faces] + [r for r, _ in sheet.backs],
                   grid.band)
            pages += 1
            continue
        finish("faces", sheet, crop_marks(grid), [r for r, _ in sheet.faces], grid.band)
        pages += 1
        if with_backs:
            canvas.translate(*style.back_offset)  # the printer's measured shift, on back pages only
            for rect, item in sheet.backs:
                place(rect, "back", back_of(item), backs[back_of(item)], rotated)  # type: ignore[index]
            finish("backs", sheet, back_marks(grid), [r for r, _ in sheet.backs], back_band(grid))
            pages += 1
    canvas.save()
    return buffer.getvalue(), pages

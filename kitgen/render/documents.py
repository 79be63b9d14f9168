"""Draw text documents (rules, record sheets, host key, print guide) from template XML with platypus."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable

from kitgen.core.display import Document, Group
from kitgen.core.errors import BuildError
from kitgen.fonts.registry import drawn_as_pictures, missing_glyphs, register_fonts
from kitgen.fonts.registry import bold, regular
from kitgen.render.markup import escape, inline_markup, plain_text
from kitgen.pictures.files import Picture
from kitgen.render.pictures import EMOJI_SCALE, placed
from kitgen.pictures.emoji import emoji_picture, emoji_runs
from kitgen.render.platypus import (Flowable, KeepInFrame, PageBreak, Paragraph, SimpleDocTemplate, ShrunkToFit, Spacer, stacked_height, Table,
                                    TableStyle)
from kitgen.render.recorder import RecordingCanvas
from kitgen.core.units import mm, PaperSize, parse_length
from kitgen.plan import Rect
from kitgen.render.qr import qr_items
from kitgen.render.quality import BODY_MINIMUM

if TYPE_CHECKING:
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfgen.canvas import Canvas
    from reportlab.platypus.doctemplate import BaseDocTemplate

TableCommand = tuple[Any, ...]  # a table style command: ("GRID", (0, 0), (-1, -1), 0.6, (0, 0, 0))
MARGIN = mm(15)
BODY_SIZE = 10.5
FRAME_PADDING = 6  # points: the padding of platypus's page frame, on each side
COMPACT_LEADING = 1.2  # the line spacing of a page kept whole that would otherwise shrink below the body minimum
CELL_PADDING = 6  # points: ReportLab's default left and right cell padding
LARGE_PRINT_SCALE = 1.4  # body 14.7 pt, headings and rows to match


@dataclass(frozen=True)
class RenderedDocument:
    document: Document  # the pages as display lists; kitgen.export.pdf.write_pdf makes the file
    pages: int
    text: list[str]  # every paragraph printed, for leak checks


def _styles(scale: float, leading: float = 1.3) -> dict[str, ParagraphStyle]:
    """Paragraph styles; `scale` enlarges everything for large print (body 10.5 pt → 14.7 pt); `leading` is the
    body's line spacing (a page kept whole sets its lines closer before it shrinks below the body minimum)."""
    from reportlab.lib.enums import TA_CENTER
    from reportlab.lib.styles import ParagraphStyle

    register_fonts()
    size = BODY_SIZE * scale
    body = ParagraphStyle("body", fontName=regular(), fontSize=size, leading=size * leading, spaceAfter=4,
                          bulletFontName=regular(), bulletFontSize=size)

    def style(name: str, points: float, **extra: Any) -> ParagraphStyle:
        return ParagraphStyle(name, parent=body, fontSize=points * scale, leading=points * scale * 1.25, **extra)

    return {
        "h1": style("h1", 18, fontName=bold(), spaceAfter=6),
        "h2": style("h2", 12.5, fontName=bold(), spaceBefore=8, spaceAfter=3),
        "p": body,
        "small": style("small", 8.5 if scale == 1 else 10.5),
        "li": ParagraphStyle("li", parent=body, leftIndent=12 * scale, bulletIndent=2, spaceAfter=2),
        "banner": style("banner", 11, fontName=bold(), alignment=TA_CENTER),
        "th": style("th", 10, fontName=bold(), spaceAfter=0),
        "td": style("td", 10, spaceAfter=0),
    }


class _Builder:
    """Turns the document vocabulary (h1, h2, p, small, li, banner, nameline, table, spacer,
    pagebreak, onepage, copies, figure) into flowables, recording every printed text."""

    def __init__(self, width: float, height: float, label: str, large_print: bool = False,
                 smallest_scale: float = 0.0, figures: Figures | None = None, light: bool = False) -> None:
        self.height = height
        self.figures = figures or Figures()
        self.light = light
        self.smallest_scale = smallest_scale  # a <onepage> shrinks no further; what needs more runs over
        self.scale = LARGE_PRINT_SCALE if large_print else 1.0
        self.styles = _styles(self.scale)
        self.width = width
        self.label = label
        self.text: list[str] = []

    def paragraph(self, element: ET.Element, style: str) -> Paragraph:
        """A Paragraph of the element; its emoji print as pictures. A character no font has is printed as it is
        and reported, with every other one of the kit, from what the display list holds (render/quality.py)."""
        self.text.append(plain_text(element))
        bullet = "•" if style == "li" else None
        return emoji_paragraph(inline_markup(element), self.styles[style], bulletText=bullet)

    def flowables(self, elements: Iterable[ET.Element]) -> list[Flowable]:
        result: list[Flowable] = []
        for element in elements:
            tag = element.tag
            if tag in ("h1", "h2", "p", "small", "li", "banner"):
                result.append(self.paragraph(element, tag))
            elif tag == "spacer":
                result.append(Spacer(1, parse_length(element.get("height", "4mm"))))
            elif tag == "pagebreak":
                result.append(PageBreak())
            elif tag == "nameline":
                result.append(self.nameline(element))
            elif tag == "table":
                result.append(self.table(element))
            elif tag == "box":
                result.append(self.box(element))
            elif tag == "qr":
                result.append(self.qr(element))
            elif tag == "figure":
                result.extend(self.figure(element))
            elif tag == "copies":
                result.extend(self.copies(element))
            elif tag == "onepage":
                first = len(self.text)
                inner = self.flowables(element)
                # one page for the table, shrunk to fit (down to `smallest_scale`: what would need more runs over
                # to the next page instead); large print keeps its size and may run over
                if self.scale == 1 and self.smallest_scale and not self.fits(inner, self.smallest_scale):
                    inner = self.compact(element, first) or inner
                if self.scale > 1 or self.smallest_scale and not self.fits(inner, self.smallest_scale):
                    result.extend(inner)
                else:
                    result.append(ShrunkToFit(self.width, self.height, inner) if self.smallest_scale else
                                  KeepInFrame(self.width, self.height, inner, mode="shrink"))
            else:
                raise BuildError(f"{self.label}: template markup <{tag}> is not part of the document vocabulary")
        return result

    def copies(self, element: ET.Element) -> list[Flowable]:
        """The `<copy>` children of a `<copies>` (which starts at the top of a page), each kept whole: as many
        to a page as fit one under the other at their full size, a cut line (labelled with the element's `cut`)
        between two on the same page; a copy that fits no page with another starts a page of its own (and one
        taller than a page runs on over the next as it always has)."""
        room = self.height - 2 * FRAME_PADDING  # the frame's own padding, top and bottom
        cut = element.get("cut", "")
        if cut:
            self.text.append(cut)
        result: list[Flowable] = []
        page: list[Flowable] = []  # the flowables on the page being filled
        for copy in element:
            if copy.tag != "copy":
                raise BuildError(f"{self.label}: <copies> holds <copy> elements only, got <{copy.tag}>")
            group = self.flowables(copy)
            label = emoji_paragraph(f"\u2702 {escape(cut)}", self.styles["small"]) if cut else None
            line = CutLine(self.width, label)
            if page and stacked_height([*page, line, *group], self.width) <= room:
                result += [line, *group]
                page += [line, *group]
                continue
            if result:
                result.append(PageBreak())
            result += group
            page = list(group)
        return result

    def compact(self, element: ET.Element, first: int) -> list[Flowable] | None:
        """The element's flowables with lines set closer (1.2 times the size instead of 1.3), when they then fit
        the page at `smallest_scale`; else None. (Laid out twice, each paragraph is recorded once: the texts
        from `first` on are those of the first layout.)"""
        styles, text = self.styles, len(self.text)
        self.styles = _styles(self.scale, leading=COMPACT_LEADING)
        try:
            inner = self.flowables(element)
        finally:
            self.styles = styles
        if self.fits(inner, self.smallest_scale):
            del self.text[first:text]
            return inner
        del self.text[text:]
        return None

    def fits(self, flowables: list[Flowable], scale: float) -> bool:
        """Whether `flowables` fit one page when shrunk to `scale` (as `KeepInFrame` shrinks: laid out on a page
        larger by 1 / `scale`)."""
        return stacked_height(flowables, self.width / scale) <= self.height / scale

    def nameline(self, element: ET.Element) -> Table:
        labels = [plain_text(item) for item in element]
        self.text.extend(labels)
        cells = [[self.paragraph(item, "p") for item in element]]
        table = Table(cells, colWidths=[self.width / max(len(labels), 1)] * len(labels), rowHeights=[mm(12) * self.scale])
        table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "BOTTOM"), ("FONTNAME", (0, 0), (-1, -1), regular()),
                                   ("LINEBELOW", (0, 0), (-1, -1), 0.6, (0, 0, 0)),
                                   ("RIGHTPADDING", (0, 0), (-1, -1), 10)]))
        return table

    def qr(self, element: ET.Element) -> Table:
        """A QR code (`size`, default 30 mm) with its title and address beside it."""
        url = (element.text or "").strip()
        title = element.get("title", "")
        self.text += [title, url]
        side = parse_length(element.get("size", "30mm"))
        code = QRCode(url, side, f"{self.label}, qr")
        words = emoji_paragraph(f"<b>{escape(title)}</b><br/>{escape(url)}", self.styles["p"])
        table = Table([[code, words]], colWidths=[side + mm(4), self.width - side - mm(4)])
        table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
        return table

    def figure(self, element: ET.Element) -> list[Flowable]:
        """The picture of the content owner `key` (a record sheet, the rules) and a QR code of `qr` with its
        address beside it, side by side and `size` high (default 25 mm); nothing when it has neither."""
        key, url = element.get("key", ""), (element.get("qr") or "").strip()
        picture = self.figures.pictures.get(key)
        if picture is None and not url:
            return []
        side = parse_length(element.get("size", "25mm")) * self.scale
        where = self.figures.places.get(key, self.label)
        cells: list[Flowable] = []
        widths: list[float] = []
        if picture is not None:
            width = min(side * picture.aspect, self.width / 2)
            cells.append(PictureBox(picture, width, min(side, width / picture.aspect), self.light))
            widths.append(width + mm(6))
        if url:
            self.text.append(url)
            cells += [QRCode(url, side, where), emoji_paragraph(escape(url), self.styles["p"])]
            widths += [side + mm(4), self.width - sum(widths) - side - mm(4)]
        table = Table([cells], colWidths=widths)
        table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
        return [Spacer(1, mm(2)), table, Spacer(1, mm(2))]

    def box(self, element: ET.Element) -> Table:
        table = Table([[self.flowables(element)]], colWidths=[self.width])
        table.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 1.2, (0, 0, 0)), ("FONTNAME", (0, 0), (-1, -1), regular()),
                                   ("LEFTPADDING", (0, 0), (-1, -1), 8), ("RIGHTPADDING", (0, 0), (-1, -1), 8),
                                   ("TOPPADDING", (0, 0), (-1, -1), 6), ("BOTTOMPADDING", (0, 0), (-1, -1), 6)]))
        return table

    def cell(self, element: ET.Element, width: float) -> tuple[str | Paragraph, float | None]:
        """A table cell and its font size: short plain text is drawn as a string (fast); a single long word
        (a file name) as a string made smaller to fit; anything else as a Paragraph that wraps."""
        from reportlab.pdfbase.pdfmetrics import stringWidth

        if len(element) == 0 and element.tag == "td":
            text = (element.text or "").strip()
            size = self.styles["td"].fontSize
            natural = stringWidth(text, regular(), size)
            room = width - 2 * CELL_PADDING
            shrink_ok = " " not in text and natural * 0.75 <= room and self.scale == 1  # large print never shrinks
            if (natural <= room or shrink_ok) and not missing_glyphs(text):  # emoji: a Paragraph draws them
                if text:
                    self.text.append(text)
                return text, None if natural <= room else size * room / natural
        return self.paragraph(element, "th" if element.tag == "th" else "td"), None

    def table(self, element: ET.Element) -> Flowable:
        """A grid table; with `minrow`, the rows shrink (down to it) so that the table fits the page."""
        rows = element.findall("tr")
        weights = [float(w) for w in element.get("widths", "").split()] or [1.0] * len(rows[0])
        widths = [self.width * w / sum(weights) for w in weights]
        sized = [[self.cell(cell, widths[i]) for i, cell in enumerate(row)] for row in rows]
        cells = [[value for value, _ in row] for row in sized]
        smaller: list[TableCommand] = [("FONTSIZE", (c, r), (c, r), size) for r, row in enumerate(sized)
                                        for c, (_, size) in enumerate(row) if size]
        header_rows = sum(1 for row in rows if len(row) and row[0].tag == "th")
        given_height, minimum = element.get("rowheight"), element.get("minrow")
        row_height = parse_length(given_height) * self.scale if given_height else None
        size = self.styles["td"].fontSize

        def make(height: float | None) -> Table:
            heights: list[float | None] = [None] * header_rows
            heights += [height or row_height] * (len(rows) - header_rows)
            table = Table(cells, colWidths=widths, rowHeights=heights, repeatRows=header_rows)
            style: list[TableCommand] = [
                     ("GRID", (0, 0), (-1, -1), 0.6, (0, 0, 0)), ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
                     ("FONTNAME", (0, 0), (-1, -1), regular()), ("FONTSIZE", (0, 0), (-1, -1), size),
                     ("LEADING", (0, 0), (-1, -1), size * 1.2)]
            if header_rows:
                style += [("LINEBELOW", (0, header_rows - 1), (-1, header_rows - 1), 1.6, (0, 0, 0))]
            table.setStyle(TableStyle(style + smaller))
            return table

        if minimum and row_height:
            return FitRowsTable(make, parse_length(minimum) * self.scale, row_height, len(rows) - header_rows)
        return make(None)


EMOJI = "kitgen-emoji"  # the callback name a Paragraph's emoji carry from the markup to the canvas


class EmojiMark:
    """Stands for one emoji picture in a Paragraph: platypus lays it out as an inline image one em wide and
    hands it to the canvas's drawImage, where `EmojiCanvas` draws the picture as vector paths."""

    def __init__(self, key: str) -> None:
        self.key = key

    def getSize(self) -> tuple[int, int]:  # what platypus may ask of an image
        return (72, 72)


def emoji_markup(markup: str) -> str:
    """`markup` with each emoji the picture set draws (a character no font has) as a callback tag and a
    placeholder; a character neither has stays as it is."""
    missing = drawn_as_pictures(markup)
    if not missing:
        return markup
    for start, end, key in reversed(emoji_runs(markup, set(missing))):
        markup = f'{markup[:start]}<onDraw name="{EMOJI}" label="{key}"/>{markup[end:]}'
    return markup


def emoji_paragraph(markup: str, style: ParagraphStyle, **keywords: Any) -> Paragraph:
    """A Paragraph of `markup` whose emoji are inline pictures one em wide, on the baseline as on cards."""
    paragraph = Paragraph(emoji_markup(markup), style, **keywords)
    for frag in paragraph.frags:
        mark = getattr(frag, "cbDefn", None)
        if mark is not None and mark.kind == "onDraw" and mark.name == EMOJI:
            size = frag.fontSize
            mark.kind, mark.image, mark.width, mark.height = "img", EmojiMark(mark.label), size, size
            mark.valign = -0.2 * size - (EMOJI_SCALE - 1) * size / 2  # as `inline_emoji` places them on cards
    return paragraph


class EmojiCanvas(RecordingCanvas):
    """The recording canvas, drawing the emoji of Paragraphs (EmojiMark) as pictures; `light`: outlines only."""

    light = False

    def drawImage(self, image: Any, x: float, y: float, width: float | None = None, height: float | None = None,
                  *args: Any, **keywords: Any) -> tuple[Any, Any]:
        if not isinstance(image, EmojiMark):
            return super().drawImage(image, x, y, width, height, *args, **keywords)
        assert width is not None  # platypus gives an inline image its size
        side = width * EMOJI_SCALE

        cell = Rect(x + (width - side) / 2, y, side, side)
        self.items.append(Group(tuple(placed(emoji_picture(image.key), cell, "contain", self.light)),
                                transform=self.matrix))
        return side, side  # the size drawn (platypus does not read it)


class QRCode(Flowable):
    """A QR code `side` points square, drawn as black boxes; refused if it would print below the minimum module
    (also when a page that shrinks to fit would make it smaller)."""

    def __init__(self, url: str, side: float, where: str) -> None:
        super().__init__()

        self.url, self.side, self.where = url, side, where
        self.boxes = qr_items(url, Rect(0, 0, side, side), where)  # checks the size it is given

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return self.side, self.side

    def draw(self) -> None:
        import math


        if not isinstance(self.canv, RecordingCanvas):
            raise BuildError(f"{self.where}: a QR code is drawn on a recording canvas only")
        a, b, c, d = self.canv.matrix[:4]  # a page shrunk to fit prints the code smaller: checked as printed
        scale = math.sqrt(abs(a * d - b * c))
        if scale < 1 - 1e-9:
            qr_items(self.url, Rect(0, 0, self.side * scale, self.side * scale), self.where)
        self.canv.saveState()
        self.canv.setFillGray(0)
        for box in self.boxes:
            self.canv.rect(box.x, box.y, box.width, box.height, stroke=0, fill=1)
        self.canv.restoreState()


class CutLine(Flowable):
    """A dashed line across the page to cut two copies apart, its label (✂ cut here) in a gap at the middle."""

    HEIGHT = mm(9)

    def __init__(self, width: float, label: Paragraph | None) -> None:
        super().__init__()
        self.line_width, self.label = width, label

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return self.line_width, self.HEIGHT

    def draw(self) -> None:
        middle, gap, label_height = self.HEIGHT / 2, 0.0, 0.0
        if self.label is not None:
            _, label_height = self.label.wrap(self.line_width, self.HEIGHT)
            gap = max(self.label.getActualLineWidths0()) + mm(4)
        self.canv.saveState()
        self.canv.setStrokeGray(0)
        self.canv.setLineWidth(0.6)
        self.canv.setDash([4, 3])
        side = (self.line_width - gap) / 2  # the dashes left and right of the label
        self.canv.line(0, middle, side, middle)
        if gap:
            self.canv.line(self.line_width - side, middle, self.line_width, middle)
        self.canv.restoreState()
        if self.label is not None:
            self.label.drawOn(self.canv, side + mm(2), middle - label_height / 2 + 1)


@dataclass(frozen=True)
class Figures:
    """What a document's `<figure key=...>` elements print: each owner's picture, and where the owner is in the
    content (`file:line:column: rules`), for a QR code too small to read."""

    pictures: dict[str, Picture] = field(default_factory=dict)
    places: dict[str, str] = field(default_factory=dict)


class PictureBox(Flowable):
    """A picture `width` × `height` points, drawn whole and centred as on cards (SVG as paths, PNG as an image)."""

    def __init__(self, picture: Picture, width: float, height: float, light: bool) -> None:
        super().__init__()
        self.picture, self.box_width, self.box_height, self.light = picture, width, height, light

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return self.box_width, self.box_height

    def draw(self) -> None:
        if not isinstance(self.canv, RecordingCanvas):
            raise BuildError(f"{self.picture.name}: a picture is drawn on a recording canvas only")
        drawn = placed(self.picture, Rect(0, 0, self.box_width, self.box_height), "contain", self.light)
        self.canv.items.append(Group(tuple(drawn), transform=self.canv.matrix))


class FitRowsTable(Flowable):
    """A table whose data rows take the height that fits the space left on the page, within limits."""

    def __init__(self, make: Callable[[float | None], Flowable], minimum: float, row_height: float,
                 data_rows: int) -> None:
        super().__init__()
        self.make, self.minimum, self.row_height, self.data_rows = make, minimum, row_height, data_rows
        self.full = self.table = make(None)

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        """Data rows have the height they were given (a fixed row height), so the rest is the header's."""
        _, height = self.full.wrap(available_width, available_height)
        if height > available_height and self.data_rows:
            fixed = height - self.row_height * self.data_rows
            row = max(self.minimum, (available_height - fixed - 1) / self.data_rows)
            self.table = self.make(min(row, self.row_height))
        else:
            self.table = self.full
        return self.table.wrap(available_width, available_height)

    def split(self, available_width: float, available_height: float) -> list[Flowable]:
        self.wrap(available_width, available_height)
        return self.table.split(available_width, available_height)

    def draw(self) -> None:
        self.table.drawOn(self.canv, 0, 0)


def render_document(root: ET.Element, paper: PaperSize, *, title: str, footer: Callable[[int], str],
                    large_print: bool = False, credits: str = "", light: bool = False,
                    for_players: bool = False, figures: Figures | None = None) -> RenderedDocument:
    """The pages of a `<doc>` element, laid out by platypus and recorded as display lists;
    `footer(page_number)` labels each page; `light`: emoji as black outlines. In a document `for_players`, a
    `<onepage>` shrinks to fit its page only down to a body size of `BODY_MINIMUM` and runs over beyond it."""
    if root.tag != "doc":
        raise BuildError(f"{title}: a document template must produce <doc>, got <{root.tag}>")
    # no file name: the recording canvas writes no file (ReportLab's stubs ask for one)
    document = SimpleDocTemplate(None, pagesize=tuple(paper),  # type: ignore[arg-type]
                                 leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN, bottomMargin=MARGIN + mm(4),
                                 title=title, author="kitgen", creator="kitgen", initialFontName=regular())
    builder = _Builder(document.width, document.height, title, large_print,
                       BODY_MINIMUM / BODY_SIZE if for_players else 0.0, figures, light)
    story = builder.flowables(root)

    def centred(canvas: Canvas, text: str, baseline: float, size: float) -> None:
        if not missing_glyphs(text):
            canvas.setFont(regular(), size)
            canvas.drawCentredString(paper.width / 2, baseline, text)
            return
        from reportlab.lib.colors import Color
        from reportlab.lib.enums import TA_CENTER
        from reportlab.lib.styles import ParagraphStyle

        style = ParagraphStyle("foot", fontName=regular(), fontSize=size, leading=size * 1.2, alignment=TA_CENTER,
                               textColor=Color(0.3, 0.3, 0.3))
        line = emoji_paragraph(escape(text), style)
        _, height = line.wrap(paper.width - 2 * MARGIN, size * 4)
        line.drawOn(canvas, MARGIN, baseline - (height - size))

    def decorate(canvas: Canvas, doc: BaseDocTemplate) -> None:
        canvas.saveState()
        canvas.setFillGray(0.3)
        # the page label and the credits: at 12 and 10 pt in large print (the body's 14 pt does not fit the margin)
        size, small = (12, 10) if large_print else (8, 7)
        centred(canvas, footer(doc.page), MARGIN - mm(2), size)
        if credits:  # a second line, smaller, under the page label
            centred(canvas, credits, MARGIN - mm(2) - 1.25 * size, small)
        canvas.restoreState()

    document.build(story, onFirstPage=decorate, onLaterPages=decorate, canvasmaker=_emoji_canvas(light))
    assert isinstance(document.canv, EmojiCanvas)
    pages = document.canv.pages
    return RenderedDocument(Document(title, pages), len(pages), builder.text)


def _emoji_canvas(outlines: bool) -> type[EmojiCanvas]:
    """A canvas class for one document, drawing emoji as outlines or not (named `Canvas` in its messages)."""
    class Canvas(EmojiCanvas):
        light = outlines

    return Canvas

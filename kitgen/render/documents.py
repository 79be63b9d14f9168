"""Draw text documents (rules, record sheets, host key, print guide) from template XML with platypus."""
from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Callable, Iterable

from kitgen.errors import BuildError, UnprintableContent
from kitgen.render.fonts import BOLD, REGULAR, missing_glyphs, register_fonts
from kitgen.render.markup import inline_markup, plain_text
from kitgen.units import PaperSize, mm, parse_length

MARGIN = mm(15)
BODY_SIZE = 10.5


@dataclass(frozen=True)
class RenderedDocument:
    data: bytes
    pages: int
    text: list[str]  # every paragraph printed, for leak checks


def _styles() -> dict[str, object]:
    from reportlab.lib.enums import TA_CENTER
    from reportlab.lib.styles import ParagraphStyle

    register_fonts()
    body = ParagraphStyle("body", fontName=REGULAR, fontSize=BODY_SIZE, leading=BODY_SIZE * 1.3, spaceAfter=4)
    return {
        "h1": ParagraphStyle("h1", parent=body, fontName=BOLD, fontSize=18, leading=22, spaceAfter=6),
        "h2": ParagraphStyle("h2", parent=body, fontName=BOLD, fontSize=12.5, leading=16, spaceBefore=8,
                             spaceAfter=3),
        "p": body,
        "small": ParagraphStyle("small", parent=body, fontSize=8.5, leading=11),
        "li": ParagraphStyle("li", parent=body, leftIndent=12, bulletIndent=2, spaceAfter=2),
        "banner": ParagraphStyle("banner", parent=body, fontName=BOLD, fontSize=11, leading=14,
                                 alignment=TA_CENTER),
        "th": ParagraphStyle("th", parent=body, fontName=BOLD, fontSize=10, leading=12, spaceAfter=0),
        "td": ParagraphStyle("td", parent=body, fontSize=10, leading=12, spaceAfter=0),
    }


class _Builder:
    """Turns the document vocabulary (h1, h2, p, small, li, banner, nameline, table, spacer,
    pagebreak, onepage) into flowables, recording every printed text."""

    def __init__(self, width: float, label: str):
        self.styles = _styles()
        self.width = width
        self.label = label
        self.text: list[str] = []

    def paragraph(self, element: ET.Element, style: str):
        from reportlab.platypus import Paragraph

        text = plain_text(element)
        missing = missing_glyphs(text)
        if missing:
            shown = " ".join(f"{ch!r} (U+{ord(ch):04X})" for ch in missing)
            raise UnprintableContent(f"{self.label}: the bundled font cannot draw {shown} in {text[:60]!r}")
        self.text.append(text)
        bullet = "•" if style == "li" else None
        return Paragraph(inline_markup(element), self.styles[style], bulletText=bullet)

    def flowables(self, elements: Iterable[ET.Element]) -> list:
        from reportlab.platypus import KeepInFrame, PageBreak, Spacer

        result: list = []
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
            elif tag == "onepage":
                result.append(KeepInFrame(self.width, 10_000, self.flowables(element), mode="shrink"))
            else:
                raise BuildError(f"{self.label}: template markup <{tag}> is not part of the document vocabulary")
        return result

    def nameline(self, element: ET.Element):
        from reportlab.platypus import Table, TableStyle

        labels = [plain_text(item) for item in element]
        self.text.extend(labels)
        cells = [[self.paragraph(item, "p") for item in element]]
        table = Table(cells, colWidths=[self.width / max(len(labels), 1)] * len(labels), rowHeights=[mm(12)])
        table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
                                   ("LINEBELOW", (0, 0), (-1, -1), 0.6, (0, 0, 0)),
                                   ("RIGHTPADDING", (0, 0), (-1, -1), 10)]))
        return table

    def box(self, element: ET.Element):
        from reportlab.platypus import Table, TableStyle

        table = Table([[self.flowables(element)]], colWidths=[self.width])
        table.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 1.2, (0, 0, 0)),
                                   ("LEFTPADDING", (0, 0), (-1, -1), 8), ("RIGHTPADDING", (0, 0), (-1, -1), 8),
                                   ("TOPPADDING", (0, 0), (-1, -1), 6), ("BOTTOMPADDING", (0, 0), (-1, -1), 6)]))
        return table

    def table(self, element: ET.Element):
        from reportlab.platypus import Table, TableStyle

        rows = element.findall("tr")
        weights = [float(w) for w in element.get("widths", "").split()] or [1.0] * len(rows[0])
        widths = [self.width * w / sum(weights) for w in weights]
        row_height = parse_length(element.get("rowheight")) if element.get("rowheight") else None
        cells = [[self.paragraph(cell, "th" if cell.tag == "th" else "td") for cell in row] for row in rows]
        header_rows = sum(1 for row in rows if row and row[0].tag == "th")
        heights = [None] * header_rows + [row_height] * (len(rows) - header_rows)
        table = Table(cells, colWidths=widths, rowHeights=heights, repeatRows=header_rows)
        style = [("GRID", (0, 0), (-1, -1), 0.6, (0, 0, 0)), ("VALIGN", (0, 0), (-1, -1), "MIDDLE")]
        if header_rows:
            style += [("LINEBELOW", (0, header_rows - 1), (-1, header_rows - 1), 1.6, (0, 0, 0))]
        table.setStyle(TableStyle(style))
        return table


def render_document(root: ET.Element, paper: PaperSize, *, title: str,
                    footer: Callable[[int], str]) -> RenderedDocument:
    """A PDF from a `<doc>` element; `footer(page_number)` labels each page."""
    from reportlab.platypus import SimpleDocTemplate

    if root.tag != "doc":
        raise BuildError(f"{title}: a document template must produce <doc>, got <{root.tag}>")
    buffer = io.BytesIO()
    document = SimpleDocTemplate(buffer, pagesize=tuple(paper), leftMargin=MARGIN, rightMargin=MARGIN,
                                 topMargin=MARGIN, bottomMargin=MARGIN + mm(4), title=title,
                                 author="kitgen", creator="kitgen", invariant=1)
    builder = _Builder(document.width, title)
    story = builder.flowables(root)

    def decorate(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont(REGULAR, 8)
        canvas.setFillGray(0.3)
        canvas.drawCentredString(paper.width / 2, MARGIN - mm(2), footer(doc.page))
        canvas.restoreState()

    document.build(story, onFirstPage=decorate, onLaterPages=decorate)
    return RenderedDocument(buffer.getvalue(), document.page, builder.text)

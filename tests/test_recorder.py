"""The recording canvas: what platypus draws on it must come out as the items ReportLab would have printed.

Each test draws the same flowables twice, once on a plain ReportLab canvas (a PDF measured with pdfplumber)
and once on the recording canvas, and compares positions, fonts and sizes.
"""
from __future__ import annotations

import io

import pdfplumber
import pytest
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfgen.canvas import Canvas

from kitgen.core.display import Group, Line, Text
from kitgen.fonts.registry import BOLD, register_fonts, REGULAR
from kitgen.render.platypus import KeepInFrame, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle
from kitgen.render.recorder import record_paragraph, RecordingCanvas, UnrecordedDrawing

PAGE = (400.0, 600.0)
TOLERANCE = 0.01  # points


def _style(**extra) -> ParagraphStyle:
    register_fonts()
    return ParagraphStyle("body", fontName=REGULAR, fontSize=10.5, leading=13.65, bulletFontName=REGULAR,
                          bulletFontSize=10.5, **extra)


def _compose(a, b):
    """`b` applied first, then `a`."""
    return (a[0] * b[0] + a[2] * b[1], a[1] * b[0] + a[3] * b[1], a[0] * b[2] + a[2] * b[3],
            a[1] * b[2] + a[3] * b[3], a[0] * b[4] + a[2] * b[5] + a[4], a[1] * b[4] + a[3] * b[5] + a[5])


def placed(items, matrix=(1, 0, 0, 1, 0, 0)):
    """Every item with the transform it is printed with (groups opened)."""
    for item in items:
        if isinstance(item, Group):
            yield from placed(item.items, _compose(matrix, item.transform))
        else:
            yield item, matrix


def printed_texts(items) -> list[tuple[str, float, float, str, float]]:
    """(text, x, y, font, size) of every run as printed: positions on the page, size times the scale."""
    result = []
    for item, (a, b, c, d, e, f) in placed(items):
        if isinstance(item, Text):
            result.append((item.text, a * item.x + c * item.y + e, b * item.x + d * item.y + f, item.font,
                           item.size * (a * d - b * c) ** 0.5))
    return result


def plain_pdf(draw) -> pdfplumber.PDF:
    """`draw(canvas)` on an ordinary ReportLab canvas, opened with pdfplumber."""
    register_fonts()
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=PAGE, initialFontName=REGULAR)
    draw(canvas)
    canvas.showPage()
    canvas.save()
    return pdfplumber.open(io.BytesIO(buffer.getvalue()))


def recorded(draw) -> list:
    canvas = RecordingCanvas(None, pagesize=PAGE, initialFontName=REGULAR)
    draw(canvas)
    canvas.showPage()
    assert len(canvas.pages) == 1 and canvas.pages[0].width == PAGE[0] and canvas.pages[0].height == PAGE[1]
    return canvas.pages[0].items


def assert_runs_where_reportlab_prints_them(items, pdf: pdfplumber.PDF, page: int = 0) -> None:
    """Each run's characters, in order, are the PDF's; its first one starts at the run's baseline origin,
    in the run's font and size."""
    chars = [c for c in pdf.pages[page].chars]
    runs = printed_texts(items)
    assert "".join(run[0] for run in runs).replace(" ", "") == "".join(c["text"] for c in chars).replace(" ", "")
    position = 0
    for text, x, y, font, size in runs:
        while chars[position]["text"] == " " and not text.startswith(" "):
            position += 1
        first = chars[position]
        assert first["text"] == text[0], (text, first["text"])
        assert first["matrix"][4] == pytest.approx(x, abs=TOLERANCE), text
        assert first["matrix"][5] == pytest.approx(y, abs=TOLERANCE), text
        assert first["size"] == pytest.approx(size, abs=TOLERANCE), text
        assert first["fontname"].split("+")[-1] == {REGULAR: "DejaVuSans", BOLD: "DejaVuSans-Bold"}[font], text
        position += len(text)


def test_a_paragraph_of_bold_and_plain_runs_is_printed_where_reportlab_prints_it():
    paragraph = Paragraph("A bullet point with <b>bold words that wrap</b> and plain words after them, long "
                          "enough<br/>to need a third line, then a <b>last bold</b> word.",
                          _style(leftIndent=12, bulletIndent=2), bulletText="•")
    paragraph.wrap(180, 500)

    items = recorded(lambda canvas: paragraph.drawOn(canvas, 50, 400))
    with plain_pdf(lambda canvas: paragraph.drawOn(canvas, 50, 400)) as pdf:
        assert_runs_where_reportlab_prints_them(items, pdf)

    runs = [item for item in items if isinstance(item, Text)]
    assert runs[0].text == "•" and runs[0].x == pytest.approx(52)
    bold = [run.text for run in runs if run.font == BOLD]
    assert " ".join(bold).split() == ["bold", "words", "that", "wrap", "last", "bold"]
    baselines = sorted({run.y for run in runs}, reverse=True)
    lines = len(paragraph.blPara.lines)
    assert len(baselines) == lines >= 4  # the bullet is on the first line's baseline
    assert [a - b for a, b in zip(baselines, baselines[1:])] == pytest.approx([13.65] * (lines - 1))
    # a run per font on a line, not one per word
    assert len(runs) <= 1 + lines + 2 * 2


def test_justified_lines_put_each_word_where_word_spacing_puts_it():
    from reportlab.lib.enums import TA_JUSTIFY

    paragraph = Paragraph("Justified text stretches the spaces of every line but the last one, so that each line "
                          "ends at the <b>right margin</b> of its frame, exactly.", _style(alignment=TA_JUSTIFY))
    paragraph.wrap(170, 500)
    items = recorded(lambda canvas: paragraph.drawOn(canvas, 30, 300))
    with plain_pdf(lambda canvas: paragraph.drawOn(canvas, 30, 300)) as pdf:
        assert_runs_where_reportlab_prints_them(items, pdf)
        chars = pdf.pages[0].chars
    assert "".join(item.text for item in items) == "".join(c["text"] for c in chars)  # spaces kept
    first_line = [item for item in items if item.y == items[0].y]
    last = first_line[-1]
    assert last.x + canvas_width(last.text.rstrip(), 10.5) == pytest.approx(30 + 170, abs=0.01)


def test_record_paragraph_places_a_wrapped_paragraph_at_x_y():
    paragraph = Paragraph("Plain then <b>bold</b>", _style())
    paragraph.wrap(200, 100)
    first, second = record_paragraph(paragraph, 10, 20), record_paragraph(paragraph, 110, 220)
    assert [(t.text, t.font) for t in first] == [("Plain then ", REGULAR), ("bold", BOLD)]
    assert [v for t in second for v in (t.x - 100, t.y - 200)] == pytest.approx([v for t in first for v in (t.x, t.y)])
    assert first[0].x == pytest.approx(10)
    assert first[0].y == pytest.approx(20 + paragraph.height - 10.5)  # ReportLab: the first baseline a font size down


def test_a_centred_coloured_footer_string_keeps_its_colour_and_centre():
    def draw(canvas):
        canvas.saveState()
        canvas.setFont(REGULAR, 8)
        canvas.setFillGray(0.3)
        canvas.drawCentredString(200, 40, "Title · page 1")
        canvas.restoreState()
        canvas.setFillColorRGB(0.2, 0.4, 0.6)
        canvas.setFont(BOLD, 12)
        canvas.drawString(10, 500, "blue")

    items = recorded(draw)
    with plain_pdf(draw) as pdf:
        assert_runs_where_reportlab_prints_them(items, pdf)
    footer, blue = items
    assert footer.color == (0.3,) and footer.size == 8
    assert footer.x == pytest.approx(200 - canvas_width("Title · page 1", 8) / 2)
    assert blue.color == pytest.approx((0.2, 0.4, 0.6)) and blue.font == BOLD


def canvas_width(text: str, size: float) -> float:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return stringWidth(text, REGULAR, size)


def test_a_table_gives_its_grid_lines_and_cell_texts():
    register_fonts()
    table = Table([["Turn", "Coins"], ["1", ""], ["2", Paragraph("wrapped <b>cell</b>", _style())]],
                  colWidths=[60, 90], rowHeights=[20, 24, 30])
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.6, (0, 0, 0)), ("FONTNAME", (0, 0), (-1, -1), REGULAR),
                               ("LINEBELOW", (0, 0), (-1, 0), 1.6, (0, 0, 0)), ("VALIGN", (0, 0), (-1, -1), "MIDDLE")]))
    table.wrap(300, 300)

    items = recorded(lambda canvas: table.drawOn(canvas, 40, 300))
    with plain_pdf(lambda canvas: table.drawOn(canvas, 40, 300)) as pdf:
        assert_runs_where_reportlab_prints_them(items, pdf)
        expected = sorted((round(line["x0"], 2), round(line["x1"], 2), round(line["top"], 2), round(line["bottom"], 2),
                           round(line["linewidth"], 2)) for line in pdf.pages[0].lines)
    lines = [item for item in items if isinstance(item, Line)]
    got = []
    for line in lines:
        # ReportLab's tables draw round caps; a Stroke without a `cap` stands for them with a line half a width longer
        half = 0 if hasattr(line.stroke, "cap") else line.stroke.width / 2
        x0, x1 = sorted((line.x0, line.x1))
        y0, y1 = sorted((line.y0, line.y1))
        if y0 == y1:
            x0, x1 = x0 + half, x1 - half
        else:
            y0, y1 = y0 + half, y1 - half
        got.append((round(x0, 2), round(x1, 2), round(PAGE[1] - y1, 2), round(PAGE[1] - y0, 2),
                    round(line.stroke.width, 2)))
    assert sorted(got) == expected
    assert {line.stroke.width for line in lines} == {0.6, 1.6}
    verticals = sorted({line.x0 for line in lines if line.x0 == line.x1})
    assert verticals == pytest.approx([40, 100, 190])


def test_a_shrunk_keep_in_frame_prints_smaller_text_in_a_scaled_group():
    style = _style()
    story = [Paragraph(f"Line {n} of a page that is too long for its frame", style) for n in range(40)]
    frame = KeepInFrame(300, 300, story, mode="shrink")
    frame.wrapOn(Canvas(io.BytesIO()), 300, 300)
    assert frame._scale > 1  # ReportLab shrinks it by 1/_scale

    items = recorded(lambda canvas: frame.drawOn(canvas, 50, 100))
    with plain_pdf(lambda canvas: frame.drawOn(canvas, 50, 100)) as pdf:
        assert_runs_where_reportlab_prints_them(items, pdf)
    assert len(items) == 1 and isinstance(items[0], Group)  # one group for the whole shrunk frame
    group = items[0]
    assert group.transform[0] == pytest.approx(1 / frame._scale) and group.transform[3] == group.transform[0]
    sizes = {round(size, 4) for *_, size in printed_texts(items)}
    assert sizes == {round(10.5 / frame._scale, 4)}
    assert all(text.size == 10.5 for text in group.items)  # in the group's own coordinates


def test_a_document_template_records_every_page_with_its_footer():
    register_fonts()

    def story():
        return [Paragraph(f"Paragraph {n}", _style()) for n in range(3)] + [Spacer(1, 400)] + \
               [Paragraph("On the second page", _style(alignment=TA_CENTER))]

    def footer(canvas, doc):
        canvas.setFont(REGULAR, 8)
        canvas.drawCentredString(200, 20, f"page {doc.page}")

    template = SimpleDocTemplate(None, pagesize=PAGE, initialFontName=REGULAR)
    template.build(story(), onFirstPage=footer, onLaterPages=footer, canvasmaker=RecordingCanvas)
    pages = template.canv.pages
    assert len(pages) == 2

    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, pagesize=PAGE, initialFontName=REGULAR).build(
        story(), onFirstPage=footer, onLaterPages=footer)
    with pdfplumber.open(io.BytesIO(buffer.getvalue())) as pdf:
        for number, page in enumerate(pages):
            assert_runs_where_reportlab_prints_them(page.items, pdf, number)
    assert pages[1].items[0].text == "page 2"


def test_drawing_the_recorder_does_not_know_raises_and_names_the_method():
    def bezier(canvas):
        canvas.bezier(0, 0, 10, 10, 20, 10, 30, 0)

    def path(canvas):
        p = canvas.beginPath()
        p.moveTo(0, 0)
        p.lineTo(10, 10)
        canvas.drawPath(p)

    def clip(canvas):
        p = canvas.beginPath()
        p.rect(0, 0, 10, 10)
        canvas.clipPath(p, stroke=0)

    def transparent_text(canvas):
        canvas.setFillAlpha(0.5)
        canvas.drawString(10, 10, "faint")

    for draw, name in ((bezier, "bezier"), (path, "drawPath"), (clip, "clipPath"), (transparent_text, "opacity")):
        with pytest.raises(UnrecordedDrawing, match=name):
            recorded(draw)


def test_operators_written_around_the_guard_are_caught_at_show_page():
    canvas = RecordingCanvas(None, pagesize=PAGE)
    canvas._code = []  # as a form would (ReportLab swaps its buffer)
    canvas._code.append("0 0 m 10 10 l S")
    with pytest.raises(UnrecordedDrawing, match="replaced"):
        canvas.showPage()


def test_state_is_saved_and_restored_with_the_graphics_state():
    def draw(canvas):
        canvas.setStrokeColorRGB(1, 0, 0)
        canvas.setLineWidth(2)
        canvas.saveState()
        canvas.setDash([3, 2])
        canvas.setLineWidth(0.5)
        canvas.translate(100, 50)
        canvas.line(0, 0, 10, 0)
        canvas.restoreState()
        canvas.line(0, 0, 10, 0)
        canvas.roundRect(5, 5, 20, 10, 3, stroke=0, fill=1)
        canvas.circle(50, 50, 4)

    first, second, box, circle = recorded(draw)
    assert (first.x0, first.y0, first.stroke.width, first.stroke.dash) == (100, 50, 0.5, (3.0, 2.0))
    assert (second.x0, second.y0, second.stroke.width, second.stroke.dash) == (0, 0, 2, ())
    assert first.stroke.color == second.stroke.color == (1.0, 0.0, 0.0)
    assert (box.radius, box.stroke, box.fill) == (3, None, (0.0,))
    assert (circle.radius, circle.fill, circle.stroke.width) == (4, None, 2)

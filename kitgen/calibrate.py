"""The duplex alignment test page: print it two-sided, hold it to the light, read the printer's shift."""
from __future__ import annotations

import io

from kitgen.render.fonts import BOLD, REGULAR, register_fonts
from kitgen.units import PaperSize, mm

SCALE_MM = 12  # the scales read from -12 mm to +12 mm, in 1 mm steps


def calibration_pdf(page: PaperSize, duplex: str = "long") -> bytes:
    """Page 1: a cross at the centre of the sheet. Page 2 (the back): scales centred on the same point.

    Seen through the paper from the back, the front's cross shows the shift of the back side; the values
    read on the back's scales are the `--back-offset X,Y` that cancels it.
    """
    from reportlab.pdfgen.canvas import Canvas

    register_fonts()
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=tuple(page), invariant=1, initialFontName=REGULAR)
    canvas.setTitle("kitgen duplex alignment test")
    canvas.setViewerPreference("PrintScaling", "None")
    canvas.setViewerPreference("Duplex", "DuplexFlipShortEdge" if duplex == "short" else "DuplexFlipLongEdge")
    cx, cy = page.width / 2, page.height / 2

    canvas.setLineWidth(0.6)
    canvas.line(cx - mm(15), cy, cx + mm(15), cy)
    canvas.line(cx, cy - mm(15), cx, cy + mm(15))
    canvas.circle(cx, cy, mm(1))
    _text(canvas, page, [
        "Duplex alignment test · page 1 (front)",
        f"Print both pages two-sided at 100% / Actual size, flip on the {duplex} edge.",
        "Then turn the sheet over and hold page 2 against a window.",
    ])
    canvas.showPage()

    canvas.setLineWidth(0.3)
    canvas.line(cx - mm(SCALE_MM), cy, cx + mm(SCALE_MM), cy)
    canvas.line(cx, cy - mm(SCALE_MM), cx, cy + mm(SCALE_MM))
    canvas.setFont(REGULAR, 6)
    for tick in range(-SCALE_MM, SCALE_MM + 1):
        length = mm(2.5) if tick % 5 == 0 else mm(1.2)
        canvas.line(cx + mm(tick), cy, cx + mm(tick), cy - length)  # x scale, ticks below
        canvas.line(cx, cy + mm(tick), cx + length, cy + mm(tick))  # y scale, ticks to the right
        if tick and tick % 5 == 0:  # x labels above the x scale, y labels left of the y scale
            canvas.drawCentredString(cx + mm(tick), cy + mm(1.5), f"{tick:+d}")
            canvas.drawRightString(cx - mm(1.5), cy + mm(tick) - 2, f"{tick:+d}")
    _text(canvas, page, [
        "Duplex alignment test · page 2 (back)",
        "Against the light, find the centre of the front's cross on these scales (mm, right and up are +).",
        "Save what you read: kitgen printer add ROOM --back-offset X,Y   then build with --printer ROOM.",
        "A cross exactly on 0,0 means your printer needs no correction.",
    ])
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def _text(canvas, page: PaperSize, lines: list[str]) -> None:
    y = page.height - mm(20)
    for index, line in enumerate(lines):
        canvas.setFont(BOLD if index == 0 else REGULAR, 13 if index == 0 else 10)
        canvas.drawString(mm(15), y, line)
        y -= mm(7 if index == 0 else 5)

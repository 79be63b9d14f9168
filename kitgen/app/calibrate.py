"""The duplex alignment test page: print it two-sided, hold it to the light, read the printer's shift."""
from __future__ import annotations

from kitgen.core.display import Circle, Document, Item, Line, Page, Stroke, Text
from kitgen.fonts.registry import BOLD, REGULAR, string_width
from kitgen.core.units import mm, PaperSize

SCALE_MM = 12  # the scales read from -12 mm to +12 mm, in 1 mm steps


def calibration_pdf(page: PaperSize, duplex: str = "long") -> bytes:
    """Page 1: a cross at the centre of the sheet. Page 2 (the back): scales centred on the same point.

    Seen through the paper from the back, the front's cross shows the shift of the back side; the values
    read on the back's scales are the `--back-offset X,Y` that cancels it.
    """
    from kitgen.export.pdf import write_pdf

    cx, cy = page.width / 2, page.height / 2
    pen = Stroke(0.6)
    front = [Line(cx - mm(15), cy, cx + mm(15), cy, pen), Line(cx, cy - mm(15), cx, cy + mm(15), pen),
             Circle(cx, cy, mm(1), pen), *_text(page, [
                 "Duplex alignment test · page 1 (front)",
                 f"Print both pages two-sided at 100% / Actual size, flip on the {duplex} edge.",
                 "Then turn the sheet over and hold page 2 against a window.",
             ])]
    fine = Stroke(0.3)
    back: list[Item] = [Line(cx - mm(SCALE_MM), cy, cx + mm(SCALE_MM), cy, fine),
                        Line(cx, cy - mm(SCALE_MM), cx, cy + mm(SCALE_MM), fine)]
    for tick in range(-SCALE_MM, SCALE_MM + 1):
        length = mm(2.5) if tick % 5 == 0 else mm(1.2)
        back.append(Line(cx + mm(tick), cy, cx + mm(tick), cy - length, fine))  # x scale, ticks below
        back.append(Line(cx, cy + mm(tick), cx + length, cy + mm(tick), fine))  # y scale, ticks to the right
        if tick and tick % 5 == 0:  # x labels above the x scale, y labels left of the y scale
            label = f"{tick:+d}"
            width = string_width(label, REGULAR, 6)
            back.append(Text(cx + mm(tick) - width / 2, cy + mm(1.5), label, REGULAR, 6))
            back.append(Text(cx - mm(1.5) - width, cy + mm(tick) - 2, label, REGULAR, 6))
    back += _text(page, [
        "Duplex alignment test · page 2 (back)",
        "Against the light, find the centre of the front's cross on these scales (mm, right and up are +).",
        "Save what you read: kitgen printer add ROOM --back-offset X,Y"
        + (" --duplex short" if duplex == "short" else "") + "   then build with --printer ROOM.",
        "A cross exactly on 0,0 means your printer needs no correction.",
    ])
    document = Document("kitgen duplex alignment test", [Page(page.width, page.height, front),
                                                          Page(page.width, page.height, back)], duplex=duplex)
    return write_pdf(document)


def _text(page: PaperSize, lines: list[str]) -> list[Item]:
    items: list[Item] = []
    y = page.height - mm(20)
    for index, line in enumerate(lines):
        items.append(Text(mm(15), y, line, BOLD if index == 0 else REGULAR, 13 if index == 0 else 10))
        y -= mm(7 if index == 0 else 5)
    return items

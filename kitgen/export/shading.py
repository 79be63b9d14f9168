"""A gradient of the display list (`kitgen.core.display.Gradient`) as a PDF shading: axial for a linear blend,
radial for a radial one, its colours joined by a stitching function, extended past both ends.

Only ReportLab's public PDF objects are used; the PDF backend (`kitgen.export.pdf`) names the shading in the
page's or form's resources and paints it inside the path it fills.
"""
from __future__ import annotations

from typing import Any

from kitgen.core.display import Color, Gradient
from kitgen.export import pdfx
from kitgen.export.operators import fp_str


def _space(colors: list[Color], cmyk: bool) -> tuple[str, list[tuple[float, ...]]]:
    if cmyk:
        return "DeviceCMYK", [tuple(pdfx.cmyk(color)) for color in colors]
    if all(len(color) == 1 or len(set(color)) == 1 for color in colors):
        return "DeviceGray", [(color[0],) for color in colors]
    return "DeviceRGB", [color * 3 if len(color) == 1 else color for color in colors]


def shading(gradient: Gradient, cmyk: bool = False) -> Any:
    """The PDF shading object drawing `gradient` in its own coordinates (PDF/X: in the output intent's inks)."""
    from reportlab.pdfbase.pdfdoc import (PDFArrayCompact, PDFAxialShading, PDFExponentialFunction,
                                          PDFRadialShading, PDFStitchingFunction)

    fp_str(*gradient.coords, *gradient.matrix)  # (a number no PDF can hold is refused before it is written)
    offsets = [offset for offset, _ in gradient.stops]
    space, colors = _space([color for _, color in gradient.stops], cmyk)
    if offsets[0] > 0:
        offsets, colors = [0.0, *offsets], [colors[0], *colors]
    if offsets[-1] < 1:
        offsets, colors = [*offsets, 1.0], [*colors, colors[-1]]
    for i in range(1, len(offsets)):  # a hard edge (two stops at one offset) as a blend of no visible width
        offsets[i] = min(1.0, max(offsets[i], offsets[i - 1] + 1e-4))
    pieces = [PDFExponentialFunction(C0=list(a), C1=list(b), N=1) for a, b in zip(colors, colors[1:])]
    function = pieces[0] if len(pieces) == 1 else PDFStitchingFunction(
        pieces, [round(n, 5) for n in offsets[1:-1]], [0, 1] * len(pieces), Domain=PDFArrayCompact((0, 1)))
    extend = "[true true]"
    if gradient.kind == "linear":
        x0, y0, x1, y1 = gradient.coords
        return PDFAxialShading(x0, y0, x1, y1, Function=function, ColorSpace=space, Extend=extend)
    fx, fy, cx, cy, r = gradient.coords
    return PDFRadialShading(fx, fy, 0, cx, cy, r, Function=function, ColorSpace=space, Extend=extend)

"""Print-then-cut: cut files of the card outlines laid out exactly as the printed sheet (same page size, same
coordinates), as SVG (Silhouette Studio Designer Edition, any cutter software) and DXF (Studio Basic Edition).

They hold the card outlines alone: the registration marks are printed on the sheet, and Studio adds its own
"Type 1" marks at its default settings (length 20 mm, thickness 0.5 mm, inset 10 mm: a filled square top left,
an L top right and bottom left) to the document, where they fall on the printed ones; the print guide says so.
A mark in a cut file would be a shape the blade cuts.
"""
from __future__ import annotations

import math
from pathlib import Path

from kitgen.core.files import OutputFile
from kitgen.export.exporter import CARD_FILES, Exporter, title_text
from kitgen.plan.imposition import Grid, Rect, impose
from kitgen.plan.options import BuildOptions, ResolvedOptions
from kitgen.core.units import to_mm


def cut_outlines(grid: Grid) -> list[Rect]:
    """Every card of a full sheet, as the cutter should cut it (the printed cut lines)."""
    return [grid.cell(index) for index in range(grid.per_sheet)]


def cut_svg(grid: Grid, corner: float = 0.0, title: str = "") -> str:
    """An SVG the size of the sheet with the card outlines alone (group `cut`, red hairlines, no fill, corners
    rounded by `corner` points), in points with the origin at the top left."""
    page = grid.page
    height = page.height

    def rect(r: Rect, attributes: str) -> str:
        return (f'<rect x="{r.x:.4f}" y="{height - r.top:.4f}" width="{r.width:.4f}" height="{r.height:.4f}" '
                f'{attributes}/>')

    rounded = f'rx="{corner:.4f}" ry="{corner:.4f}" ' if corner else ""
    cuts = "\n".join(rect(r, f'{rounded}fill="none" stroke="#ff0000" stroke-width="0.25"') for r in cut_outlines(grid))
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{to_mm(page.width):.4f}mm" '
            f'height="{to_mm(height):.4f}mm" viewBox="0 0 {page.width:.4f} {height:.4f}">\n'
            f'<title>{title_text(title)}</title>\n'
            f'<g id="cut">\n{cuts}\n</g>\n</svg>\n')


def _outline(r: Rect, corner: float) -> list[tuple[float, float, float]]:
    """A card's outline as (x, y, bulge) vertices in mm, counter-clockwise from the lower left; a rounded corner
    is a quarter arc (bulge tan(90°/4))."""
    x0, y0, x1, y1, c = to_mm(r.x), to_mm(r.y), to_mm(r.right), to_mm(r.top), to_mm(corner)
    if not c:
        return [(x0, y0, 0.0), (x1, y0, 0.0), (x1, y1, 0.0), (x0, y1, 0.0)]
    arc = math.tan(math.pi / 8)
    return [(x0 + c, y0, 0.0), (x1 - c, y0, arc), (x1, y0 + c, 0.0), (x1, y1 - c, arc),
            (x1 - c, y1, 0.0), (x0 + c, y1, arc), (x0, y1 - c, 0.0), (x0, y0 + c, arc)]


def cut_dxf(grid: Grid, corner: float = 0.0) -> str:
    """A DXF (AutoCAD R12, which Studio Basic opens) of the card outlines alone: one closed polyline each, in mm,
    with the origin at the sheet's lower left and y up, so the outlines fall where they are printed."""
    lines = ["0", "SECTION", "2", "HEADER", "9", "$ACADVER", "1", "AC1009", "9", "$INSUNITS", "70", "4",
             "9", "$MEASUREMENT", "70", "1", "9", "$EXTMIN", "10", "0.0", "20", "0.0",
             "9", "$EXTMAX", "10", f"{to_mm(grid.page.width):.4f}", "20", f"{to_mm(grid.page.height):.4f}",
             "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES"]
    for r in cut_outlines(grid):
        lines += ["0", "POLYLINE", "8", "CUT", "66", "1", "70", "1"]
        for x, y, bulge in _outline(r, corner):
            lines += ["0", "VERTEX", "8", "CUT", "10", f"{x:.4f}", "20", f"{y:.4f}"]
            if bulge:
                lines += ["42", f"{bulge:.6f}"]
        lines += ["0", "SEQEND", "8", "CUT"]
    lines += ["0", "ENDSEC", "0", "EOF"]
    return "\r\n".join(lines) + "\r\n"


def cut_files(files: list[OutputFile], resolved: ResolvedOptions, options: BuildOptions) -> dict[str, bytes]:
    """`<cards file>-cut.svg` and `-cut.dxf`: the card outlines of a full sheet, on the sheet's own coordinates."""
    grid = impose(resolved.paper, resolved.card, resolved.sheet)
    made = {}
    for file in files:
        if file.role in CARD_FILES:
            stem = Path(file.name).stem
            made[f"{stem}-cut.svg"] = cut_svg(grid, resolved.sheet.corner, stem).encode()
            made[f"{stem}-cut.dxf"] = cut_dxf(grid, resolved.sheet.corner).encode("ascii")
    return made


EXPORTER = Exporter("silhouette", lambda options: options.cutter == "silhouette", cut_files)

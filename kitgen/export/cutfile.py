"""Print-then-cut: an SVG cut file of the card outlines laid out exactly as the printed sheet (same page size,
same coordinates), for Silhouette Studio or any cutter software that imports SVG.

The marks are Silhouette Studio's "Type 1" marks at its default settings (length 20 mm, thickness 0.5 mm,
inset 10 mm): a filled square in the top-left corner, an L in the top-right and in the bottom-left corners.
Studio's registration-mark panel must show the same settings; the print guide says so.
"""
from __future__ import annotations

from pathlib import Path

from kitgen.core.files import OutputFile
from kitgen.export.exporter import CARD_FILES, Exporter, title_text
from kitgen.plan.imposition import Grid, Rect, impose, registration_rects
from kitgen.plan.options import BuildOptions, ResolvedOptions
from kitgen.core.units import to_mm


def cut_outlines(grid: Grid) -> list[Rect]:
    """Every card of a full sheet, as the cutter should cut it (the printed cut lines)."""
    return [grid.cell(index) for index in range(grid.per_sheet)]


def cut_svg(grid: Grid, corner: float = 0.0, title: str = "") -> str:
    """An SVG the size of the sheet: the registration marks (group `registration`) and the card outlines (group
    `cut`, red hairlines, corners rounded by `corner` points), in points with the origin at the top left."""
    page = grid.page
    height = page.height

    def rect(r: Rect, attributes: str) -> str:
        return (f'<rect x="{r.x:.4f}" y="{height - r.top:.4f}" width="{r.width:.4f}" height="{r.height:.4f}" '
                f'{attributes}/>')

    marks = "\n".join(rect(r, 'fill="#000000"') for rects in registration_rects(page).values() for r in rects)
    rounded = f'rx="{corner:.4f}" ry="{corner:.4f}" ' if corner else ""
    cuts = "\n".join(rect(r, f'{rounded}fill="none" stroke="#ff0000" stroke-width="0.25"') for r in cut_outlines(grid))
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{to_mm(page.width):.4f}mm" '
            f'height="{to_mm(height):.4f}mm" viewBox="0 0 {page.width:.4f} {height:.4f}">\n'
            f'<title>{title_text(title)}</title>\n'
            f'<g id="registration">\n{marks}\n</g>\n<g id="cut">\n{cuts}\n</g>\n</svg>\n')


def cut_files(files: list[OutputFile], resolved: ResolvedOptions, options: BuildOptions) -> dict[str, bytes]:
    """`<cards file>-cut.svg`: the card outlines of a full sheet, on the sheet's own coordinates."""
    grid = impose(resolved.paper, resolved.card, resolved.sheet)
    return {f"{Path(file.name).stem}-cut.svg": cut_svg(grid, resolved.sheet.corner, Path(file.name).stem).encode()
            for file in files if file.role in CARD_FILES}


EXPORTER = Exporter("silhouette", lambda options: options.cutter == "silhouette", cut_files)

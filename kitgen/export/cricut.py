"""Print-then-cut for Cricut: the card faces laid out on pictures no larger than Design Space accepts for Print
Then Cut, one PNG per picture at 300 dpi, and beside each an SVG of the card outlines in the same size and
coordinates (the cut layer).

Design Space prints the picture itself, with its own registration box around it, so the PNG carries no marks.
Its background is transparent outside the cards; inside each card (and its bleed) it is opaque, the card's
art on white.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from dataclasses import dataclass

from PIL import Image as PILImage, ImageChops, ImageDraw
from PIL.Image import Image

from kitgen.core.display import Box, DECK_MARKED, Document, Item, Page, translate, Use, WHITE
from kitgen.core.files import OutputFile
from kitgen.export.exporter import CARD_FILES, Exporter, title_text
from kitgen.export.pdf import write_pdf
from kitgen.export.raster import encoded, page_images
from kitgen.plan.imposition import Rect
from kitgen.plan.options import BuildOptions, ResolvedOptions
from kitgen.core.units import INCH, mm

# The largest image Design Space takes for Print Then Cut on Letter or A4 paper: 6.75 × 9.25 in (17.1 × 23.5 cm).
# Source: the limit Cricut's Help Center (help.cricut.com) gives for Print Then Cut images, as stated in the task
# for issue 19; it could not be checked against a stored copy of that page when this was written. Some newer
# machines take a larger area on some papers; this one is accepted by all, so it is the limit used here.
AREA_IN = (6.75, 9.25)
DPI = 300
GAP = mm(3.0)  # at least this between two cards' cut lines: each card is cut on its own, no shared edge


@dataclass(frozen=True)
class CricutLayout:
    """Where the cards go on one picture: `cells` are the cut rectangles (points, origin lower left)."""

    width: float
    height: float
    cells: tuple[Rect, ...]
    bleed: float

    @property
    def pixels(self) -> tuple[int, int]:
        return round(self.width / INCH * DPI), round(self.height / INCH * DPI)


def layout(card_width: float, card_height: float, bleed: float) -> CricutLayout:
    """As many cards as fit in the print-then-cut area, upright, centred, `GAP` (or twice the bleed) apart."""
    width, height = AREA_IN[0] * INCH, AREA_IN[1] * INCH
    gap = max(GAP, 2 * bleed)

    def count(length: float, card: float) -> int:
        return max(0, int((length - 2 * bleed + gap + 1e-6) // (card + gap)))

    columns, rows = count(width, card_width), count(height, card_height)
    if not columns or not rows:
        raise ValueError(f"a card of {card_width / INCH:.2f} × {card_height / INCH:.2f} in does not fit the "
                         f"{AREA_IN[0]} × {AREA_IN[1]} in print-then-cut area")
    x0 = (width - (columns * card_width + (columns - 1) * gap)) / 2
    top = height - (height - (rows * card_height + (rows - 1) * gap)) / 2
    pixel = INCH / DPI  # each card starts on a whole pixel: its edges are sharp in the picture, not blended

    def snap(value: float) -> float:
        return round(value / pixel) * pixel

    cells = tuple(Rect(snap(x0 + c * (card_width + gap)), snap(top - card_height - r * (card_height + gap)),
                       card_width, card_height) for r in range(rows) for c in range(columns))
    return CricutLayout(width, height, cells, bleed)


def face_uses(document: Document) -> list[Use]:
    """Every card face placed on the card file's pages, in print order (each card of the deck once)."""
    return [item for page in document.pages for item in page.items
            if isinstance(item, Use) and item.form.startswith("face")]


def sheets(document: Document, card_width: float, card_height: float, bleed: float
           ) -> Iterator[tuple[CricutLayout, list[tuple[Rect, str]]]]:
    """(layout, [(cut rectangle, face form)]) for each picture: the faces of `document` in order."""
    grid = layout(card_width, card_height, bleed)
    # the faces with their deck's marker where the decks' backs differ: Print Then Cut prints no backs
    faces = [use.form + DECK_MARKED if use.form + DECK_MARKED in document.forms else use.form
             for use in face_uses(document)]
    per = len(grid.cells)
    for start in range(0, len(faces), per):
        yield grid, list(zip(grid.cells, faces[start:start + per]))


def cut_svg(grid: CricutLayout, cells: list[Rect], corner: float = 0.0, title: str = "") -> str:
    """The outlines of `cells` (red hairlines, corners rounded by `corner`), the picture's size in inches, in
    points with the origin at the top left: laid over the PNG, each outline falls on its card's edge."""
    rounded = f'rx="{corner:.4f}" ry="{corner:.4f}" ' if corner else ""
    cuts = "\n".join(f'<rect x="{r.x:.4f}" y="{grid.height - r.top:.4f}" width="{r.width:.4f}" '
                     f'height="{r.height:.4f}" {rounded}fill="none" stroke="#ff0000" stroke-width="0.25"/>'
                     for r in cells)
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{grid.width / INCH:.4f}in" '
            f'height="{grid.height / INCH:.4f}in" viewBox="0 0 {grid.width:.4f} {grid.height:.4f}">\n'
            f'<title>{title_text(title)}</title>\n<g id="cut">\n{cuts}\n</g>\n</svg>\n')


def cricut_files(document: Document, card_width: float, card_height: float, bleed: float, corner: float,
                 stem: str) -> dict[str, bytes]:
    """`{file name: data}`: `<stem>-cricut-01.png` and `<stem>-cricut-01.svg`, … one pair per picture."""
    placed = list(sheets(document, card_width, card_height, bleed))
    if not placed:
        return {}
    pages = []
    for grid, cards in placed:
        items: list[Item] = []
        for rect, form in cards:  # white under the art: the card is opaque to its bleed edge
            items.append(Box(rect.x - bleed, rect.y - bleed, rect.width + 2 * bleed, rect.height + 2 * bleed,
                             None, WHITE))
            items.append(Use(form, translate(rect.x, rect.y)))
        pages.append(Page(grid.width, grid.height, items))
    pdf = write_pdf(Document(document.title, pages, dict(document.forms)), keep=False)
    files: dict[str, bytes] = {}
    pictures = page_images(pdf, DPI / INCH, transparent=True)
    for index, ((grid, cards), image) in enumerate(zip(placed, pictures), 1):
        if image.size != grid.pixels:  # PDFium rounds the page size; the picture must be exactly the area
            image = image.crop((0, 0, *grid.pixels))
        image = _clear_outside(image, grid, [rect for rect, _ in cards])
        name = f"{stem}-cricut-{index:02d}"
        files[f"{name}.png"] = encoded(image, "PNG", dpi=(DPI, DPI))
        files[f"{name}.svg"] = cut_svg(grid, [rect for rect, _ in cards], corner, name).encode("utf-8")
    return files


def card_pixels(grid: CricutLayout, rect: Rect) -> tuple[int, int, int, int]:
    """The pixels a card and its bleed cover on the picture: (left, top, right, bottom), right and bottom
    exclusive, rows counted from the top."""
    scale = DPI / INCH
    return (round((rect.x - grid.bleed) * scale), round((grid.height - rect.top - grid.bleed) * scale),
            round((rect.right + grid.bleed) * scale), round((grid.height - rect.y + grid.bleed) * scale))


def _clear_outside(image: Image, grid: CricutLayout, cells: list[Rect]) -> Image:
    """The picture transparent outside its cards: PDFium fills a rectangle out to the next whole pixel, so an
    edge a rounding error past a pixel boundary painted one column more (751 px for a 750 px card), off the
    cut file's outline."""
    mask = PILImage.new("L", image.size, 0)
    draw = ImageDraw.Draw(mask)
    for rect in cells:
        left, top, right, bottom = card_pixels(grid, rect)
        draw.rectangle((left, top, right - 1, bottom - 1), fill=255)
    rgba = image.convert("RGBA")
    rgba.putalpha(ImageChops.multiply(rgba.getchannel("A"), mask))
    return rgba


def kit_cricut_files(files: list[OutputFile], resolved: ResolvedOptions, options: BuildOptions) -> dict[str, bytes]:
    """`<cards file>-cricut-NN.png` and `.svg`: the faces of each card file on Print Then Cut pictures, with
    their outlines."""
    made: dict[str, bytes] = {}
    for file in files:
        if file.document is not None and file.role in CARD_FILES:
            made.update(cricut_files(file.document, resolved.card.width, resolved.card.height, resolved.sheet.bleed,
                                     resolved.sheet.corner, Path(file.name).stem))
    return dict(sorted(made.items()))


EXPORTER = Exporter("cricut", lambda options: options.cutter == "cricut", kit_cricut_files)

"""The PNG backend: a picture of every card design (each face, each back, each slip) at a chosen resolution,
for slides, whiteboards and print shops that ask for images.

Each design's form from the display list is placed alone on a page of its own size (the card and its bleed)
and written by the PDF backend, and PDFium rasterises those pages: the pictures are the printed cards pixel
for pixel, drawn by the same code, instead of a second drawing engine that would have to be kept in step
with the first (fonts, subsets, curves, clipping).
"""
from __future__ import annotations

import re

from kitgen.core.display import Document, Page, translate, Use
from kitgen.core.files import OutputFile, Role
from kitgen.export.pdf import write_pdf
from kitgen.export.exporter import Exporter
from kitgen.export.raster import encoded, page_images
from kitgen.plan.options import BuildOptions, ResolvedOptions

MIN_DPI, MAX_DPI = 36, 1200
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_stem(stem: str) -> str:
    """A file name part made only of letters, digits, '.', '_' and '-' (content ids can hold anything)."""
    return _UNSAFE.sub("_", stem).strip("._") or "card"


def card_pictures(document: Document, dpi: int) -> dict[str, bytes]:
    """`{file name: PNG bytes}` for every form of `document` that names a file of its own."""
    forms = [form for form in document.forms.values() if form.stem]
    if not forms:
        return {}
    pages = [Page(x1 - x0, y1 - y0, [Use(form.name, translate(-x0, -y0))])
             for form in forms for x0, y0, x1, y1 in [form.bbox]]
    pdf = write_pdf(Document(document.title, pages, dict(document.forms)), keep=False)
    pictures: dict[str, bytes] = {}
    for form, image in zip(forms, page_images(pdf, dpi / 72)):
        name = f"{safe_stem(form.stem)}.png"
        while name in pictures:  # two ids that differ only in unsafe characters
            name = f"{name[:-4]}_.png"
        pictures[name] = encoded(image, "PNG", dpi=(dpi, dpi))
    return pictures


def kit_pictures(files: list[OutputFile], resolved: ResolvedOptions, options: BuildOptions) -> dict[str, bytes]:
    """`png/<design>.png`: a picture of every card design (faces, backs, slips) of the kit's card files."""
    pictures: dict[str, bytes] = {}
    for file in files:
        if file.document is not None and file.role in (Role.CARDS, Role.OPTIONAL_CARDS, Role.SLIPS):
            pictures.update(card_pictures(file.document, options.png_dpi or 300))
    return {f"{PNG_FOLDER}/{name}": data for name, data in sorted(pictures.items())}


PNG_FOLDER = "png"
EXPORTER = Exporter("png", lambda options: bool(options.png_dpi), kit_pictures)

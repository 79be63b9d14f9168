"""The one rasteriser: PDF pages as pictures, drawn by PDFium (no external program). Every PNG, preview,
thumbnail and served page picture kitgen makes comes through here."""
from __future__ import annotations

import io
from pathlib import Path
from typing import Any, TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    import pypdfium2
    from PIL.Image import Image


def _pdfium() -> Any:
    """PDFium, imported when a page is first drawn as pixels: a build that asks for no picture never loads it
    (one of the start-up seams in docs/architecture.md)."""
    import pypdfium2

    return pypdfium2


def _render(page: pypdfium2.PdfPage, scale: float | None, width_px: int | None, transparent: bool) -> Image:
    factor = width_px / page.get_width() if width_px else scale
    fill = {"fill_color": (255, 255, 255, 0)} if transparent else {}
    image: Image = page.render(scale=factor, **fill).to_pil()  # (pypdfium2 has no type annotations)
    return image


def page_images(pdf: bytes | Path, scale: float, *, transparent: bool = False) -> Iterator[Image]:
    """Each page of `pdf` (its bytes or its file) as a picture at `scale` pixels per point; on a transparent
    background where nothing is drawn, when asked."""
    document = _pdfium().PdfDocument(str(pdf) if isinstance(pdf, Path) else pdf)
    try:
        for index in range(len(document)):
            yield _render(document[index], scale, None, transparent)
    finally:
        document.close()


def page_image(pdf: bytes | Path, index: int = 0, scale: float | None = None, *,
               width_px: int | None = None) -> Image:
    """One page of `pdf` as a picture at `scale` pixels per point, or `width_px` pixels wide."""
    document = _pdfium().PdfDocument(str(pdf) if isinstance(pdf, Path) else pdf)
    try:
        return _render(document[index], scale, width_px, False)
    finally:
        document.close()


def encoded(image: Image, kind: str = "PNG", **options: object) -> bytes:
    """The picture as file bytes (`PNG`, `JPEG`, with the encoder's options, e.g. `dpi=(300, 300)`). A PNG is
    tagged sRGB (its `sRGB` chunk, with the gAMA and cHRM values the PNG specification gives for it): PDFium
    draws in sRGB, and an untagged picture leaves a print shop or a photo program to guess."""
    buffer = io.BytesIO()
    if kind == "PNG" and "pnginfo" not in options:
        from PIL.PngImagePlugin import PngInfo

        info = PngInfo()
        info.add(b"sRGB", b"\x00")  # rendering intent: perceptual
        info.add(b"gAMA", (45455).to_bytes(4, "big"))
        info.add(b"cHRM", b"".join(v.to_bytes(4, "big") for v in (31270, 32900, 64000, 33000, 30000, 60000,
                                                                    15000, 6000)))
        options = {**options, "pnginfo": info}
    image.save(buffer, kind, **options)
    return buffer.getvalue()

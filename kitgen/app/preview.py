"""PNG thumbnails of every page, next to the PDFs, so a teacher can look before printing."""
from __future__ import annotations

from pathlib import Path

from kitgen.app.build import BuildResult


def write_previews(result: BuildResult, dpi: int = 50) -> list[Path]:
    """One PNG per page in `<kit folder>/preview/`, rendered with PDFium (no external program)."""
    import pypdfium2 as pdfium

    folder = result.folder / "preview"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for file in result.files:
        document = pdfium.PdfDocument(str(file.path))
        try:
            for index in range(len(document)):
                target = folder / f"{file.path.stem}-{index + 1:02d}.png"
                document[index].render(scale=dpi / 72).to_pil().save(target)
                written.append(target)
        finally:
            document.close()
    for old in folder.glob("*.png"):  # pages an earlier, longer build of this kit had
        if old not in written and old.is_file() and not old.is_symlink():
            old.unlink()
    return written


def first_page_jpeg(pdf: Path, width_px: int = 240) -> bytes:
    """The first page of a PDF as JPEG bytes, `width_px` wide (a PDF embeds JPEG as it is, without decoding and
    compressing it again as it does PNG: the library index of 200 kits is written in a fraction of the time)."""
    import io

    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(pdf))
    try:
        page = document[0]
        image = page.render(scale=width_px / page.get_width()).to_pil()
    finally:
        document.close()
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="JPEG", quality=85)
    return buffer.getvalue()

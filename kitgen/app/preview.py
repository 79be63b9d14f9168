"""PNG thumbnails of every page, next to the PDFs, so a teacher can look before printing."""
from __future__ import annotations

from pathlib import Path

from kitgen.core.files import BuildResult
from kitgen.export.raster import encoded, page_image, page_images


def write_previews(result: BuildResult, dpi: int = 50) -> list[Path]:
    """One PNG per page in `<kit folder>/preview/`, rendered with PDFium (no external program)."""
    folder = result.folder / "preview"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for file in result.files:
        for index, image in enumerate(page_images(file.path, dpi / 72)):
            target = folder / f"{file.path.stem}-{index + 1:02d}.png"
            image.save(target)
            written.append(target)
    for old in folder.glob("*.png"):  # pages an earlier, longer build of this kit had
        if old not in written and old.is_file() and not old.is_symlink():
            old.unlink()
    return written


def first_page_jpeg(pdf: Path, width_px: int = 240) -> bytes:
    """The first page of a PDF as JPEG bytes, `width_px` wide (a PDF embeds JPEG as it is, without decoding and
    compressing it again as it does PNG: the library index of 200 kits is written in a fraction of the time)."""
    image = page_image(pdf, width_px=width_px)
    return encoded(image.convert("RGB"), "JPEG", quality=85)

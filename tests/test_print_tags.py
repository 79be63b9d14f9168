"""Smaller print items: PNGs tagged sRGB at their exact size, and font subsets tagged per file (not every first
subset AAAAAA+), read from the files written."""
from __future__ import annotations

import re
from pathlib import Path

from PIL import Image

from kitgen.app.build import build, BuildOptions
from kitgen.load.library import Library

from conftest import CONTENT, library_kit, options_kit


def png_chunks(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = [], 8
    while at < len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        chunks.append(data[at + 4:at + 8])
        at += 12 + length
    return chunks


def test_card_pictures_are_tagged_srgb_and_exactly_the_card_at_their_dpi():
    result = options_kit("growing-discard", cutter="cricut", png_dpi=300)  # the Cricut build others share
    pictures = sorted((result.folder / "png").glob("*.png"))
    assert pictures
    for path in pictures:
        chunks = png_chunks(path)
        assert b"sRGB" in chunks and chunks.index(b"sRGB") < chunks.index(b"IDAT"), path.name
        with Image.open(path) as image:
            assert image.size == (750, 1050), path.name  # 63.5 × 88.9 mm at 300 dpi, to the pixel
            assert tuple(round(v) for v in image.info["dpi"]) == (300, 300)


def test_font_subsets_are_tagged_per_file(tmp_path):
    result = library_kit("growing-discard")
    tags = {}
    for file in result.files:
        names = set(re.findall(rb"/BaseFont /([A-Z]{6})\+", (result.folder / file.name).read_bytes()))
        assert names and b"AAAAAA" not in names, file.name
        tags[file.name] = names
    every = [tag for names in tags.values() for tag in names]
    assert len(set(every)) == len(every), "two files share a subset tag"
    again = build("growing-discard", BuildOptions(out_dir=tmp_path / "again"), Library.open(CONTENT))  # a build of its own
    assert (again.folder / "growing-discard-cards.pdf").read_bytes() == (
        result.folder / "growing-discard-cards.pdf").read_bytes(), "the same file again, byte for byte"


def test_large_print_footers_and_credits_are_large_too():
    import pdfplumber

    result = options_kit("growing-discard", large_print=True)
    for file in result.files:
        if file.role in ("cards", "optional-cards"):
            continue
        with pdfplumber.open(result.folder / file.name) as document:
            for page in document.pages:
                foot = [c for c in page.chars if c["bottom"] > page.height - 15 * 72 / 25.4]
                assert foot, f"{file.name}: no footer"
                assert min(c["size"] for c in foot) >= 10 - 0.01, (file.name, min(c["size"] for c in foot))
                assert min(page.height - c["bottom"] for c in foot) >= 5 * 72 / 25.4 - 0.5  # inside the 5 mm

"""`--png DPI`: a picture of every card design, named by deck and card, the size of the card at that
resolution, and the same drawing as the card on the printed sheet."""
from __future__ import annotations

from pathlib import Path

import pypdf
import pypdfium2
import pytest
from pypdf.generic import ContentStream
from PIL import Image, ImageChops, ImageStat

from kitgen.app.build import build, BuildOptions
from kitgen.load.library import Library
from kitgen.load import load_activity

from conftest import library_kit

REPO = Path(__file__).resolve().parents[1]
DPI = 150


@pytest.fixture(scope="module")
def png_kit(tmp_path_factory):
    out = tmp_path_factory.mktemp("png")
    return build("growing-discard", BuildOptions(out_dir=out, png_dpi=DPI), Library.open(REPO / "content"))


def test_every_card_face_and_every_deck_back_has_a_picture_named_by_deck_and_card(png_kit):
    activity = load_activity(REPO / "content" / "growing-discard.yaml").activity
    expected = {f"{deck.id}-{card.id}.png" for deck in activity.decks for card in deck.cards}
    expected |= {f"{deck.id}-back.png" for deck in activity.decks}
    assert {path.name for path in png_kit.pictures} == expected
    assert all(path.parent == png_kit.folder / "png" for path in png_kit.pictures)


def test_a_picture_is_the_card_at_the_asked_resolution(png_kit):
    for path in png_kit.pictures:
        with Image.open(path) as image:
            assert image.size == (round(63.5 / 25.4 * DPI), round(88.9 / 25.4 * DPI)), path.name
            assert round(image.info["dpi"][0]) == DPI


def first_placement(path: Path) -> tuple[float, float]:
    """Where the first card form is placed on the first page (its `cm` translation), in points."""
    reader = pypdf.PdfReader(path)
    page = reader.pages[0]
    matrix = None
    for operands, operator in ContentStream(page.get_contents(), reader).operations:
        if operator == b"cm":
            matrix = [float(v) for v in operands]
        elif operator == b"Do":
            return matrix[4], matrix[5]
    raise AssertionError("no card placed")


def test_a_picture_shows_what_the_sheet_prints_for_that_card(png_kit):
    """The first card of the first sheet, cut from the sheet rendered at the same resolution, against its PNG."""
    cards = next(f for f in png_kit.files if f.role == "cards")
    x, y = first_placement(cards.path)
    page = pypdfium2.PdfDocument(str(cards.path))[0]
    sheet = page.render(scale=DPI / 72).to_pil().convert("L")
    picture = Image.open(png_kit.folder / "png" / "player-1-start-C1.png").convert("L")
    left, top = x * DPI / 72, (page.get_height() - y - 88.9 / 25.4 * 72) * DPI / 72
    differences = []
    for dx in (-1, 0, 1):  # the sheet's card may start up to a pixel away from a whole pixel
        for dy in (-1, 0, 1):
            corner = (round(left) + dx, round(top) + dy)
            region = sheet.crop((*corner, corner[0] + picture.width, corner[1] + picture.height))
            differences.append(ImageStat.Stat(ImageChops.difference(region, picture)).mean[0])
    assert min(differences) < 3.0, differences  # the same drawing, within anti-aliasing at the edges
    blank = ImageStat.Stat(ImageChops.difference(Image.new("L", picture.size, 255), picture)).mean[0]
    assert blank > 5, "the picture is nearly empty"


def test_an_unchanged_build_without_png_leaves_no_pictures():
    result = library_kit("growing-discard")
    assert result.pictures == [] and not (result.folder / "png").exists()

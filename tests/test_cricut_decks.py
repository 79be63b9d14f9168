"""Cricut's Print Then Cut prints the faces alone: where the decks' backs differ, each face on the Cricut
pictures carries its deck's marker (the back's symbol and title), so the decks can be sorted after cutting;
the card PDF, whose backs print behind the faces, keeps its faces as they were. Read from the files written."""
from __future__ import annotations

import re

import pypdf
from PIL import Image

from kitgen.export.cricut import face_uses, layout as cricut_layout
from kitgen.core.units import mm

from conftest import library_kit, options_kit


def test_cricut_pictures_of_two_decks_alike_but_for_their_backs_differ_and_the_card_pdf_is_unchanged():
    cricut = options_kit("growing-discard", cutter="cricut", png_dpi=300)  # the Cricut build test_printing shares
    plain = library_kit("growing-discard")
    pictures = sorted(p for p in cricut.pictures if "-cricut-" in p.name and p.suffix == ".png")
    card_file = next(f for f in cricut.files if f.path.name.endswith("-cards.pdf"))
    grid = cricut_layout(mm(63.5), mm(88.9), 0.0)  # poker cards, the default, no bleed
    forms = [use.form for use in face_uses(card_file.document)]
    per = len(grid.cells)
    decks = [tuple(re.search(r"decks\[(\d+)\]", card_file.document.forms[form].label).group(1)
                   for form in forms[start:start + per]) for start in range(0, len(forms), per)]
    assert len(decks) == len(pictures) and len(set(decks)) >= 3, decks
    seen: dict[bytes, tuple[str, ...]] = {}
    for png, its_decks in zip(pictures, decks):  # Player 1's and Player 2's coins have the same faces
        with Image.open(png) as image:
            pixels = image.tobytes()
        assert seen.setdefault(pixels, its_decks) == its_decks, f"{png.name} shows cards of decks {its_decks} " \
            f"pixel for pixel like a picture of decks {seen[pixels]}: the decks cannot be told apart"

    def faces_text(result) -> list[str]:
        cards = next(f.path for f in result.files if f.path.name.endswith("-cards.pdf"))
        return [page.extract_text() for page in pypdf.PdfReader(cards).pages[::2]]

    assert faces_text(cricut) == faces_text(plain), "the card PDF's faces gained the Cricut pictures' markers"
    assert not any("Player 2" in text for text in faces_text(cricut)), "its backs say the deck, not its faces"

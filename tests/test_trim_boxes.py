"""The TrimBox of every card page is the rectangle round the cards it holds: a partial last sheet's spans its own
cards, not the empty places (faces and backs, A4 and a gutter fold). Measured from the forms placed on each page."""
from __future__ import annotations

import pypdf
import pytest

from kitgen.app.build import build, BuildOptions
from kitgen.load.library import Library

from conftest import CONTENT, form_placements, pt_to_mm

CARD = (63.5, 88.9)


@pytest.mark.parametrize("fold", [False, True])
def test_the_trim_box_spans_the_cards_of_each_page(tmp_path, fold):
    result = build("growing-discard", BuildOptions(out_dir=tmp_path, fold=fold), Library.open(CONTENT))
    reader = pypdf.PdfReader(result.folder / "growing-discard-cards.pdf")
    counts = []
    for number, page in enumerate(reader.pages, start=1):
        cards = [p.box for p in form_placements(reader, page)
                 if abs(pt_to_mm(p.box.x1 - p.box.x0) - CARD[0]) < 0.05
                 and abs(pt_to_mm(p.box.y1 - p.box.y0) - CARD[1]) < 0.05]
        counts.append(len(cards))
        around = (min(b.x0 for b in cards), min(b.y0 for b in cards), max(b.x1 for b in cards),
                  max(b.y1 for b in cards))
        trim = [float(v) for v in page.trimbox]
        assert trim == pytest.approx(list(around), abs=0.01), f"page {number}: TrimBox {trim} round {around}"
    assert min(counts) < max(counts), "the last sheet is a partial one"

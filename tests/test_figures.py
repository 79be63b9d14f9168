"""QR codes and pictures beside the text of the rules page, record sheets and mats, and a picture in a mat's
place: the codes read back as their addresses (the page rendered, each module sampled, as in test_qr), the
pictures are drawn where they belong (the page rendered with PDFium, the picture's colour found inside the
place's dashed box, measured with pdfplumber).

Every field is named as on cards: `qr`, `picture` (an emoji-set name), `image` (a file); a place's picture is
`positions.pictures`, a name or a file."""
from __future__ import annotations

from pathlib import Path

import pdfplumber
import pypdfium2
import pytest
from PIL import Image

from kitgen.app.build import build, BuildOptions
from kitgen.core.errors import ContentError
from kitgen.load.library import Library

from test_qr import expected, read_codes

RULES_URL = "https://example.org/rules-video"
SHEET_URL = "https://example.org/score"
MAT_URL = "https://example.org/mat"
PLACE_URL = "https://example.org/desert"
SCALE = 100 / 72  # pixels a point, rendering at 100 dpi
ACTIVITY = """\
id: pictured
title: Pictured
purpose: A tiny activity with pictures beside its text.
category: Test
players: 2
minutes: 10
rules:
  prepare: Shuffle the cards.
  play: Take turns.
  qr: '{rules_url}'
  picture: hedgehog
decks:
  - id: main
    name: Main
    back: {{title: Main}}
    cards:
      - {{id: a, count: 2}}
record_sheets:
  - id: score
    title: Score card
    columns: [Turn, Points]
    rows: 3
    qr: '{sheet_url}'
    image: red.png
boards:
  - id: mat
    title: Our mat
    per_player: false
    qr: '{mat_url}'
    picture: fox
    positions:
      columns: 2
      rows: 1
      width: 70mm
      height: 96mm
      labels: [Forest, Desert]
      pictures: [red.png, '']
      qr: ['', '{place_url}']
"""


def kit(tmp_path: Path, **changes: str) -> dict[str, Path]:
    content = tmp_path / "content"
    content.mkdir()
    Image.new("RGB", (40, 30), (255, 0, 0)).save(content / "red.png")
    text = ACTIVITY.format(rules_url=RULES_URL, sheet_url=SHEET_URL, mat_url=MAT_URL, place_url=PLACE_URL)
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    (content / "pictured.yaml").write_text(text, encoding="utf-8")
    result = build("pictured", BuildOptions(out_dir=tmp_path / "out", paper="a4"), Library.open(content))
    return {f.path.name.removeprefix("pictured-"): f.path for f in result.files}


def red_pixels(pdf: Path, page: int) -> list[tuple[float, float]]:
    """The pure red pixels of a page, as (x, top) in points."""
    image = pypdfium2.PdfDocument(str(pdf))[page].render(scale=SCALE).to_pil().convert("RGB")
    width, height = image.size
    data = image.load()
    return [(x / SCALE, y / SCALE) for y in range(0, height, 2) for x in range(0, width, 2)
            if (lambda p: p[0] > 200 and p[1] < 60 and p[2] < 60)(data[x, y])]


def coloured_pixels(pdf: Path, page: int, box: tuple[float, float, float, float]) -> int:
    """How many pixels inside `box` (x0, top, x1, bottom in points) are neither white nor grey."""
    image = pypdfium2.PdfDocument(str(pdf))[page].render(scale=SCALE).to_pil().convert("RGB")
    data = image.load()
    x0, top, x1, bottom = (round(v * SCALE) for v in box)
    return sum(1 for y in range(top, bottom) for x in range(x0, x1)
               if max(data[x, y]) - min(data[x, y]) > 40)


def test_a_qr_code_on_the_rules_page_reads_back_as_its_address(tmp_path: Path):
    files = kit(tmp_path)
    codes = read_codes(files["sheets.pdf"], 0)
    assert [matrix for matrix, _ in codes] == [expected(RULES_URL)]
    with pdfplumber.open(files["sheets.pdf"]) as pdf:
        page = pdf.pages[0]
        assert RULES_URL in page.extract_text()
        play = next(w for w in page.extract_words() if w["text"] == "Take")
        # the rules' picture (the hedgehog) is drawn in colour under the rules, left of the code
        below = (page.width * 0.05, play["bottom"], page.width * 0.5, page.height * 0.9)
    assert coloured_pixels(files["sheets.pdf"], 0, below) > 100


def test_a_record_sheet_prints_its_qr_code_and_picture_on_every_copy(tmp_path: Path):
    files = kit(tmp_path)
    with pdfplumber.open(files["sheets.pdf"]) as pdf:
        pages = [i for i, page in enumerate(pdf.pages) if "Score card · Player" in page.extract_text()]
        titles = sum(pdf.pages[i].extract_text().count("Score card · Player") for i in pages)
    assert titles == 2
    codes = [matrix for i in pages for matrix, _ in read_codes(files["sheets.pdf"], i)]
    assert codes == [expected(SHEET_URL)] * 2
    assert sum(1 for i in pages for _ in [0] if red_pixels(files["sheets.pdf"], i)) == len(pages)


def test_a_picture_in_a_mat_place_is_drawn_inside_the_place(tmp_path: Path):
    files = kit(tmp_path)
    mat = files["mat.pdf"]
    with pdfplumber.open(mat) as pdf:
        page = pdf.pages[0]
        places = sorted((r for r in page.rects + page.curves if r.get("dash") and r["dash"][0]
                         and 60 < r["width"] / 72 * 25.4 < 80), key=lambda r: r["x0"])
        assert len(places) == 2, [(r["x0"], r["width"]) for r in page.rects + page.curves]
        words = page.extract_words()
        modules = [r for r in page.rects if r["fill"] and not r["stroke"] and r["width"] < 30]
    forest, desert = places
    red = red_pixels(mat, 0)
    assert red, "the place's picture is drawn"
    # every red pixel inside the first place, above its label; none in the second place
    assert all(forest["x0"] <= x <= forest["x1"] and forest["top"] <= y <= forest["bottom"] for x, y in red)
    label = next(w for w in words if w["text"] == "Forest")
    assert max(y for _, y in red) < label["top"], "the picture sits above the label"
    assert any(w["text"] == "Desert" for w in words)
    # the mat's QR code at the right end of its title band and the second place's code read back, that one
    # wholly inside its place, above the label
    codes = [matrix for matrix, _ in read_codes(mat, 0)]
    assert sorted(map(str, codes)) == sorted(map(str, [expected(MAT_URL), expected(PLACE_URL)]))
    inside = [r for r in modules if desert["x0"] <= r["x0"] and r["x1"] <= desert["x1"]
              and desert["top"] <= r["top"] and r["bottom"] <= desert["bottom"]]
    place_label = next(w for w in words if w["text"] == "Desert")
    assert len(inside) > 20 and max(r["bottom"] for r in inside) < place_label["top"]
    # the fox at the left end of the title band is drawn
    title = next(w for w in words if w["text"] == "Our")
    band = (forest["x0"], title["top"] - 30, title["x0"] - 2, forest["top"] - 2)
    assert coloured_pixels(mat, 0, band) > 100


def test_a_picture_that_cannot_be_found_is_a_located_error(tmp_path: Path):
    with pytest.raises(ContentError) as caught:
        kit(tmp_path, **{"pictures: [red.png, '']": "pictures: [red.png, hedgehgo]"})
    text = str(caught.value)
    assert "pictured.yaml:" in text and "boards[0].positions.pictures[1]" in text and "hedgehog" in text, text

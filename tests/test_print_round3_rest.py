"""Print, round three, the low items: fold sheets named for what they hold in every catalog, a printer profile
that knows the flip it was measured with, Cricut pictures whose cards are exactly the cut file's outlines,
mats whose trim line starts at the trim, slip text clear of the cut, large print on every player page.
Read from the files written."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pdfplumber
import pypdf
import pypdf.generic
import pytest
from click.testing import CliRunner
from PIL import Image

from kitgen.app.build import build, BuildOptions
from kitgen.cli import main
from kitgen.core.display import Use
from kitgen.core.units import INCH, mm
from kitgen.export.cricut import DPI
from kitgen.load.library import Library
from kitgen.locale import translations

from conftest import CONTENT, kitgen_env, library_kit, options_kit, page_texts

FOLD_LABEL = "faces and backs, fold on the line"
SHIPPED = ("de", "es", "fr", "it", "ro")


# --- fold sheets -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("language", SHIPPED)
def test_every_shipped_catalog_names_a_fold_sheet_as_faces_and_backs(language: str) -> None:
    catalog = translations(language)
    said = catalog.gettext(FOLD_LABEL)
    assert said != FOLD_LABEL, f"{language}: the fold sheet's label is not translated"
    assert said != catalog.gettext("faces"), f"{language}: a fold sheet is still labelled as faces alone"


def test_fold_sheets_are_labelled_faces_and_backs_in_english_and_romanian() -> None:
    english = options_kit("growing-discard", fold=True)  # the fold build test_printing shares
    cards = next(f.path for f in english.files if f.path.name.endswith("-cards.pdf"))
    labels = [line for text in page_texts(cards) for line in text.splitlines() if " · sheet " in line]
    assert labels and all(FOLD_LABEL in line for line in labels), labels
    romanian = options_kit("trash", "ro", fold=True)
    deck = next(f.path for f in romanian.files if "pachet" in f.path.name)
    said = translations("ro").gettext(FOLD_LABEL)
    texts = page_texts(deck)
    assert texts and all(said in re.sub(r"\s+", " ", text) for text in texts), texts[0]


# --- printer profiles --------------------------------------------------------------------------------------------

def _cli(args: list[str], env: dict[str, str]):
    return CliRunner().invoke(main, args, env=env, catch_exceptions=False)


def test_a_printer_profile_keeps_the_flip_it_was_measured_with_and_a_build_with_the_other_flip_is_refused(
        tmp_path: Path) -> None:
    config = tmp_path / "printers.json"
    env = {**kitgen_env(tmp_path), "KITGEN_CONFIG": str(config)}
    assert _cli(["printer", "add", "room12", "--back-offset", "1.5,-0.8", "--duplex", "short"], env).exit_code == 0
    assert _cli(["printer", "add", "room7", "--back-offset", "0.5,0.5"], env).exit_code == 0
    saved = json.loads(config.read_text())
    assert saved["room12"]["duplex"] == "short" and saved["room7"]["duplex"] == "long", saved
    listed = _cli(["printer", "list"], env).output
    assert "room12: back offset +1.5 mm, -0.8 mm, measured flipping on the short edge" in listed, listed

    out = tmp_path / "out"
    refused = _cli(["build", "growing-discard", "--content", str(CONTENT), "--printer", "room12",
                    "--out", str(out)], env)  # the default flip is long
    assert refused.exit_code == 2, refused.output
    assert "measured flipping on the short edge" in refused.output and "--duplex short" in refused.output
    assert not out.exists() or not any(out.rglob("*.pdf")), "a refused build wrote files"
    refused = _cli(["build", "growing-discard", "--content", str(CONTENT), "--printer", "room7", "--duplex",
                    "short", "--out", str(out)], env)
    assert refused.exit_code == 2 and "measured flipping on the long edge" in refused.output, refused.output

    # an old profile, saved without its flip, was measured with the default one: it still reads and builds
    config.write_text(json.dumps({"old": {"back_offset_mm": [1.0, 2.0]}}))
    assert "old: back offset +1 mm, +2 mm, measured flipping on the long edge" in _cli(["printer", "list"],
                                                                                       env).output
    refused = _cli(["build", "growing-discard", "--content", str(CONTENT), "--printer", "old", "--duplex",
                    "short", "--out", str(out)], env)
    assert refused.exit_code == 2, refused.output
    config.write_text(json.dumps({"bad": {"back_offset_mm": [1.0, 2.0], "duplex": "sideways"}}))
    broken = _cli(["printer", "list"], env)
    assert broken.exit_code == 2 and "duplex" in broken.output, broken.output


# --- Cricut pictures ---------------------------------------------------------------------------------------------

def test_cricut_cards_are_exactly_the_cut_files_outlines_and_centred() -> None:
    result = options_kit("growing-discard", cutter="cricut", png_dpi=300)  # the Cricut build test_printing shares
    pictures = sorted(p for p in result.pictures if "-cricut-" in p.name and p.suffix == ".png")
    assert pictures
    scale = DPI / INCH
    for png in pictures:
        svg = png.with_suffix(".svg").read_text()
        width_in, height_in = (float(v) for v in re.search(r'width="([\d.]+)in" height="([\d.]+)in"', svg).groups())
        view_height = float(re.search(r'viewBox="0 0 [\d.]+ ([\d.]+)"', svg)[1])
        rects = [tuple(float(v) for v in m) for m in
                 re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg)]
        with Image.open(png) as image:
            assert image.size == (round(width_in * DPI), round(height_in * DPI)), (png.name, image.size)
            alpha = image.getchannel("A")
        assert view_height * scale == pytest.approx(image.size[1])
        for x, y, w, h in rects:  # each card's opaque pixels are its outline's, no column or row more
            left, top, right, bottom = (round(v * scale) for v in (x, y, x + w, y + h))
            assert right - left == round(mm(63.5) * scale) == 750
            inside = alpha.crop((left, top, right, bottom))
            assert inside.getextrema() == (255, 255), (png.name, "a card is not opaque to its outline")
            for edge in ((left - 1, top, left, bottom), (right, top, right + 1, bottom),
                         (left, top - 1, right, top), (left, bottom, right, bottom + 1)):
                assert alpha.crop(edge).getextrema() == (0, 0), (png.name, edge, "opaque outside the outline")
        bbox = alpha.getbbox()
        assert bbox is not None
        margins = (bbox[0], image.size[0] - bbox[2], bbox[1], image.size[1] - bbox[3])
        assert abs(margins[0] - margins[1]) <= 0 and abs(margins[2] - margins[3]) <= 0, (png.name, margins)


# --- mat trim line -----------------------------------------------------------------------------------------------

def _clips(page) -> list[tuple[float, float, float, float]]:
    """The rectangles a page's own content stream clips to (the part of the mat it shows), x0, y0, x1, y1."""
    ops = pypdf.generic.ContentStream(page.get_contents(), page.pdf).operations
    last, clips, shift = None, [], (0.0, 0.0)
    for operands, operator in ops:
        if operator == b"cm":
            shift = (shift[0] + float(operands[4]), shift[1] + float(operands[5]))
        elif operator == b"re":
            x, y, w, h = (float(v) for v in operands)
            last = (x + shift[0], y + shift[1], x + w + shift[0], y + h + shift[1])
        elif operator in (b"W", b"W*"):
            clips.append(last)
        elif operator == b"Q":
            shift = (0.0, 0.0)
    return clips


def test_the_mat_trim_line_starts_exactly_at_the_trim_and_leaves_the_cut_away_margin_blank() -> None:
    result = library_kit("trash", language="en")
    mat = next(f.path for f in result.files if f.path.name.endswith("-mat.pdf"))
    reader = pypdf.PdfReader(mat)
    seen = 0
    with pdfplumber.open(mat) as document:
        for page, raw in zip(document.pages, reader.pages):
            (x0, y0, x1, y1), = _clips(raw)
            for line in page.lines:
                if not (line.get("dash") or ([], 0))[0]:
                    continue
                half = line["linewidth"] / 2
                if line["x0"] == line["x1"]:  # a vertical trim: the part's left edge, the line's ink right of it
                    assert abs(line["x0"] - half - x0) < mm(0.001), (page.page_number, line["x0"], x0, half)
                else:  # a horizontal trim: the part's top edge, the ink below it
                    top = page.height - line["top"]
                    assert abs(top + half - y1) < mm(0.001), (page.page_number, top, y1, half)
                seen += 1
    assert seen >= 2, "no trim line on the later parts"


# --- slips -------------------------------------------------------------------------------------------------------

def test_slip_text_stays_3_mm_inside_every_edge_of_its_slip() -> None:
    result = library_kit("needle-in-a-card-stack")
    slips = next(f for f in result.files if f.role == "slips")
    assert slips.document is not None
    with pdfplumber.open(slips.path) as pdf:
        checked = 0
        for shown, page in zip(slips.document.pages, pdf.pages):
            cells = []
            for item in shown.items:
                if isinstance(item, Use) and item.form in slips.document.forms:
                    bx0, by0, bx1, by1 = slips.document.forms[item.form].bbox
                    e, f = item.transform[4], item.transform[5]
                    cells.append((bx0 + e, by0 + f, bx1 + e, by1 + f))
            assert cells
            for char in page.chars:
                if not char["text"].strip():
                    continue
                left, right = char["x0"], char["x1"]
                bottom, top = page.height - char["bottom"], page.height - char["top"]
                for x0, y0, x1, y1 in cells:
                    if x0 <= (left + right) / 2 <= x1 and y0 <= (bottom + top) / 2 <= y1:
                        room = min(left - x0, x1 - right, bottom - y0, y1 - top)
                        assert room >= mm(3) - mm(0.01), (char["text"], round(room / mm(1), 2))
                        checked += 1
        assert checked > 100


# --- large print -------------------------------------------------------------------------------------------------

def test_large_print_mats_and_slips_print_every_word_at_12_pt_or_more(tmp_path: Path) -> None:
    """What players read on a mat (its title, places, note and part labels) and on a slip, at 12 pt or more.
    (A card sheet's margin, its label and ruler words, is for the adult who cuts it away, and stays small.)"""
    library = Library.open(CONTENT)
    options = BuildOptions(out_dir=tmp_path, large_print=True)
    for activity, language in (("trash", "en"), ("animal-habitats", None)):
        result = build(activity, options, library, language=language)
        for mat in (f.path for f in result.files if "-mat" in f.path.name):
            with pdfplumber.open(mat) as pdf:
                small = {(round(c["size"], 1), c["text"]) for page in pdf.pages for c in page.chars
                         if c["text"].strip() and c["size"] < 12 - 0.01}
                words = " ".join(page.extract_text() or "" for page in pdf.pages)
            assert not small, (mat.name, sorted(small)[:10])
            assert "Trim" in words or "part" not in words
    result = build("needle-in-a-card-stack", options, library)
    slips = next(f for f in result.files if f.role == "slips")
    assert slips.document is not None
    with pdfplumber.open(slips.path) as pdf:
        for shown, page in zip(slips.document.pages, pdf.pages):
            cells = [(slips.document.forms[u.form].bbox, u.transform) for u in shown.items
                     if isinstance(u, Use) and u.form in slips.document.forms]
            inside = [c for c in page.chars if c["text"].strip() and any(
                b[0] + t[4] <= c["x0"] <= b[2] + t[4] and b[1] + t[5] <= page.height - c["bottom"] <= b[3] + t[5]
                for b, t in cells)]
            assert len(inside) > 100
            small = sorted({(round(c["size"], 1), c["text"]) for c in inside if c["size"] < 12 - 0.01})
            assert not small, small[:10]

"""The school's own fonts: a family in the library's `fonts/` folder, named by its files' stem, prints every text
of the kit, embedded under its own name; its licence is named in the print guide (or a quality note says none
was found); a name not there, a file that is no font and a CFF-based OpenType font are located errors.

Read back from the PDFs written: fonts with pypdf, the guide's words with pdfplumber."""
from __future__ import annotations

import shutil
from pathlib import Path

import pdfplumber
import pytest
from click.testing import CliRunner

from kitgen.app.build import build, BuildOptions
from kitgen.cli import main
from kitgen.core.errors import ContentError
from kitgen.core.notes import NoteKind
from kitgen.load.library import Library

from test_fonts import embedded_fonts

FONTS = Path(__file__).resolve().parent.parent / "kitgen" / "fonts"
ACTIVITY = """\
id: words
title: Words
purpose: A tiny activity.
category: Test
players: 2
minutes: 10
font: {font}
rules:
  prepare: Shuffle the cards.
  play: Take turns. **Bold words** too.
decks:
  - id: main
    name: Main
    back: {{title: Main, symbol: "★"}}
    cards:
      - {{id: A, count: 2, name: Ace}}
"""


def library(tmp_path: Path, font: str = "Handy", licence: bool = True) -> Library:
    """A library whose fonts/ folder holds Atkinson Hyperlegible under the name Handy (regular and bold)."""
    content = tmp_path / "content"
    (content / "fonts").mkdir(parents=True)
    shutil.copyfile(FONTS / "AtkinsonHyperlegible-Regular.ttf", content / "fonts" / "Handy-Regular.ttf")
    shutil.copyfile(FONTS / "AtkinsonHyperlegible-Bold.ttf", content / "fonts" / "Handy-Bold.ttf")
    if licence:
        shutil.copyfile(FONTS / "LICENSE-AtkinsonHyperlegible.txt", content / "fonts" / "OFL.txt")
    (content / "words.yaml").write_text(ACTIVITY.format(font=font), encoding="utf-8")
    return Library.open(content)


def test_a_library_font_prints_every_text_embedded_under_its_name(tmp_path: Path):
    result = build("words", BuildOptions(out_dir=tmp_path / "out"), library(tmp_path))
    files = {f.path.name.removeprefix("words-"): f.path for f in result.files}
    for name in ("cards.pdf", "sheets.pdf", "host-key.pdf", "print-guide.pdf"):
        fonts = embedded_fonts(files[name])
        assert fonts.get("Handy") is True, (name, fonts)
        # no text in the bundled families; DejaVu Sans only for what the font lacks (the back's ★)
        assert not {"AtkinsonHyperlegible-Regular", "AtkinsonHyperlegible-Bold"} & set(fonts), (name, fonts)
    assert embedded_fonts(files["sheets.pdf"]).get("Handy-Bold") is True  # the rules' bold words and headings
    with pdfplumber.open(files["sheets.pdf"]) as pdf:
        words = pdf.pages[0].extract_words(extra_attrs=["fontname"])
    ace = [w for w in words if w["text"] == "Shuffle"]
    assert ace and all(w["fontname"].endswith("+Handy") for w in ace), ace
    with pdfplumber.open(files["print-guide.pdf"]) as pdf:
        guide = " ".join(page.extract_text() for page in pdf.pages)
    assert "own font Handy" in guide and "fonts/OFL.txt" in " ".join(guide.split())
    assert not [note for note in result.quality if note.kind is NoteKind.FONT_LICENCE]


def test_a_library_font_without_a_licence_file_gets_a_quality_note(tmp_path: Path):
    result = build("words", BuildOptions(out_dir=tmp_path / "out"), library(tmp_path, licence=False))
    (note,) = [note for note in result.quality if note.kind is NoteKind.FONT_LICENCE]
    assert note.where.startswith("words.yaml:7:7: font") or ":7:7: font" in note.where, note.where
    assert "Handy" in note.what and "licence" in note.what


def test_the_option_font_picks_a_bundled_family_over_the_library_font(tmp_path: Path):
    result = build("words", BuildOptions(out_dir=tmp_path / "out", font="standard"), library(tmp_path))
    (sheets,) = [f.path for f in result.files if f.path.name.endswith("-sheets.pdf")]
    assert "Handy" not in embedded_fonts(sheets) and "DejaVuSans" in embedded_fonts(sheets)


@pytest.mark.parametrize("name, broken, expected", [
    ("Handi", None, "font: no font 'Handi' in {fonts}/; did you mean 'Handy'?"),
    ("Notes", b"just some words\n", "font: {fonts}/Notes.ttf is not a TrueType or OpenType font file"),
    ("Curly", b"OTTO", "font: {fonts}/Curly.otf is an OpenType font with PostScript (CFF) outlines, which kitgen "
                       "cannot embed in a PDF; expected a TrueType version"),
])
def test_a_font_that_cannot_be_used_is_a_located_error(tmp_path: Path, monkeypatch, name, broken, expected):
    lib = library(tmp_path, font=name)
    if broken is not None:
        path = lib.content / "fonts" / (f"{name}.otf" if broken == b"OTTO" else f"{name}.ttf")
        # a CFF font: a real font's bytes under the OpenType-with-PostScript-outlines signature
        path.write_bytes(broken + (FONTS / "DejaVuSans.ttf").read_bytes()[4:] if broken == b"OTTO" else broken)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ContentError) as caught:
        build("words", BuildOptions(out_dir=tmp_path / "out"), lib)
    text = str(caught.value)
    assert text.startswith("content/words.yaml:7:7: "), text
    assert expected.format(fonts="content/fonts") in text, text
    outcome = CliRunner().invoke(main, ["check", "words", "--content", "content"])
    assert outcome.exit_code == 2, outcome.output
    assert expected.format(fonts="content/fonts") in outcome.output and "Traceback" not in outcome.output

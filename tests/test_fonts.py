"""Every kind of text: emoji print as pictures in rules, sheets, host key and print guide (not as boxes), every
character no font has is reported at once with where it is, and the legible font family (Atkinson Hyperlegible)
is used by every text of every file when asked for, with DejaVu Sans only for the characters it lacks.

Everything is read back from the PDFs written (fonts with pypdf, characters and paths with pdfplumber)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pdfplumber
import pypdf
import pytest
from click.testing import CliRunner

from kitgen.app.build import build, BuildOptions
from kitgen.cli import main
from kitgen.core.errors import UnprintableContent
from kitgen.load.library import Library

ROOT = Path(__file__).resolve().parent.parent
FONTS = ROOT / "kitgen" / "fonts"


def activity(rules_play: str = "Take turns.", extra: str = "", card: str = "{id: A, count: 2, name: Ace}") -> str:
    return textwrap.dedent("""\
        id: words
        title: Words
        purpose: A tiny activity.
        category: Test
        players: 2
        minutes: 10
        {extra}
        rules:
          prepare: Shuffle the cards.
          play: "{play}"
        decks:
          - id: main
            name: Main
            back: {{title: Main, symbol: "★"}}
            cards:
              - {card}
        """).format(play=rules_play, extra=extra, card=card)


def write(tmp_path: Path, text: str) -> Library:
    content = tmp_path / "content"
    content.mkdir(exist_ok=True)
    (content / "words.yaml").write_text(text, encoding="utf-8")
    return Library.open(content)


def built(tmp_path: Path, text: str, **options) -> dict[str, Path]:
    result = build("words", BuildOptions(out_dir=tmp_path / "out", **options), write(tmp_path, text))
    return {f.path.name.removeprefix("words-"): f.path for f in result.files}


def embedded_fonts(pdf: Path) -> dict[str, bool]:
    """Base font name (subset tag removed) → whether its font file is embedded, for every font of the pages and
    of the forms they draw."""
    found: dict[str, bool] = {}

    def collect(resources) -> None:
        resources = resources.get_object() if resources is not None else {}
        for font in resources.get("/Font", {}).values():
            font = font.get_object()
            descendants = font.get("/DescendantFonts")
            descriptor = (descendants[0].get_object() if descendants else font).get("/FontDescriptor")
            descriptor = descriptor.get_object() if descriptor is not None else {}
            found[str(font["/BaseFont"]).split("+")[-1]] = "/FontFile2" in descriptor
        for xobject in resources.get("/XObject", {}).values():
            collect(xobject.get_object().get("/Resources"))

    for page in pypdf.PdfReader(pdf).pages:
        collect(page.get("/Resources"))
    return found


def font_names(pdf: Path) -> set[str]:
    """The base name (subset tag removed) of every font the file's pages and forms use."""
    return set(embedded_fonts(pdf))


def test_emoji_in_a_rule_prints_as_a_vector_picture_the_size_of_the_text(tmp_path: Path):
    files = built(tmp_path, activity("Take turns with the 🦊 pieces."))
    with pdfplumber.open(files["sheets.pdf"]) as pdf:
        page = pdf.pages[0]
        text = page.extract_text()
        line = next(w for w in page.extract_words() if w["text"] == "pieces.")
        drawn = [c for c in page.curves + page.rects if abs((c["top"] + c["bottom"]) / 2 - (line["top"] + line["bottom"]) / 2) < 8]
    assert "Take turns with the" in text and "🦊" not in text, "the emoji is a picture, not a character (a box)"
    assert "\ufffd" not in text
    assert len(drawn) > 10, "the fox is drawn as vector paths on the line of the rule"
    left = min(c["x0"] for c in drawn)
    right = max(c["x1"] for c in drawn)
    top, bottom = min(c["top"] for c in drawn), max(c["bottom"] for c in drawn)
    size = line["bottom"] - line["top"]  # the height of the text line's glyph boxes, about the font size
    assert right < line["x0"] and left > line["x0"] - 3 * size, "the picture sits in the line, before 'pieces.'"
    assert 0.7 * size < bottom - top < 1.6 * size, f"picture {bottom - top:.1f} pt high for text {size:.1f} pt"
    reader = pypdf.PdfReader(files["sheets.pdf"])
    assert not any(obj.get_object().get("/Subtype") == "/Image"
                   for page in reader.pages for obj in page.get("/Resources", {}).get("/XObject", {}).values())
    guide = "".join(page.extract_text() for page in pypdf.PdfReader(files["print-guide.pdf"]).pages)
    assert "OpenMoji" in guide, "the print guide credits the emoji set the rules print"


def test_every_unprintable_character_of_the_documents_is_reported_at_once_with_its_place(tmp_path: Path):
    text = activity("Take 漢 turns.", extra="host_key:\n  intro: [Watch ㄱ and 🦊 carefully.]") \
        .replace("prepare: Shuffle the cards.", "prepare: Shuffle 한 the cards.")
    with pytest.raises(UnprintableContent) as caught:
        built(tmp_path, text)
    message = str(caught.value)
    lines = message.splitlines()
    for char, where in (("漢", "rules.play"), ("ㄱ", "host_key.intro"), ("한", "rules.prepare")):
        line = next((line for line in lines if f"{char!r}" in line), "")
        assert where in line and "words.yaml:" in line, f"{char} located: {message}"
    assert "🦊" not in message, "an emoji the picture set draws is not a problem"
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.pdf")), "nothing written"


def _atkinson_codes() -> set[int]:
    from reportlab.pdfbase.ttfonts import TTFont

    regular = TTFont("probe-regular", str(FONTS / "AtkinsonHyperlegible-Regular.ttf")).face.charToGlyph
    bold = TTFont("probe-bold", str(FONTS / "AtkinsonHyperlegible-Bold.ttf")).face.charToGlyph
    return set(regular) & set(bold)


def test_font_legible_embeds_atkinson_in_every_file_and_dejavu_only_where_it_lacks_a_glyph(tmp_path: Path):
    write(tmp_path, activity("Take turns with the ★ and 🦊 cards → then pass.",
                             card='{id: A, count: 2, name: Ace, symbol: "♠", text: "Say zażółć ★ now"}'))
    result = CliRunner().invoke(main, ["build", "words", "--font", "legible", "--content", str(tmp_path / "content"),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    pdfs = sorted((tmp_path / "out").rglob("*.pdf"))
    assert len(pdfs) >= 4
    atkinson = _atkinson_codes()
    for pdf in pdfs:
        names = font_names(pdf)
        assert {"AtkinsonHyperlegible-Regular", "AtkinsonHyperlegible-Bold"} & names, (pdf.name, names)
        with pdfplumber.open(pdf) as doc:
            chars = [c for page in doc.pages for c in page.chars]
        assert chars
        wrong = {c["text"] for c in chars if "DejaVu" in c["fontname"] and c["text"].strip()
                 and all(ord(ch) in atkinson for ch in c["text"])}
        assert not wrong, f"{pdf.name}: DejaVu used for {wrong}, which Atkinson Hyperlegible has"
        fallback = {c["text"] for c in chars if "DejaVu" in c["fontname"]}
        assert not fallback - {"★", "♠", "→", "\u2003", " "}, (pdf.name, fallback)
    cards = next(p for p in pdfs if p.name.endswith("cards.pdf"))
    assert any(n.startswith("DejaVuSans") for n in font_names(cards)), "★ and ♠ fall back to DejaVu Sans"
    with pdfplumber.open(cards) as doc:
        text = doc.pages[0].extract_text()
    assert "zażółć" in text


def test_font_legible_in_the_activity_and_standard_by_default(tmp_path: Path):
    files = built(tmp_path, activity(extra="font: legible"))
    assert all("AtkinsonHyperlegible-Regular" in font_names(path) for path in files.values())
    plain = built(tmp_path / "plain", activity()) if (tmp_path / "plain").mkdir() is None else {}
    assert all(not any("Atkinson" in n for n in font_names(path)) for path in plain.values())
    overridden = built(tmp_path / "plain", activity(extra="font: legible"), font="standard")
    assert all(not any("Atkinson" in n for n in font_names(path)) for path in overridden.values())

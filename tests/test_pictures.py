"""Pictures on cards: PNG/JPEG embedded once, SVG drawn as vector paths, emoji printed as pictures and credited,
pictures inside the safe area, and every bad picture refused with a located error and nothing written.

Everything is measured in the PDFs kitgen wrote (image XObjects counted with pypdf, paths and text read with
pdfplumber), never taken from kitgen's own idea of where it drew them."""
from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pdfplumber
import pypdf
import pytest
from PIL import Image as PILImage

from kitgen.app.build import build, BuildOptions
from kitgen.core.errors import ContentError
from kitgen.load.library import Library

MM = 72 / 25.4
SVG_BLUE = (0.2, 0.4, 0.6)
WIDE_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 100" width="300" height="100">'
            '<rect x="0" y="0" width="300" height="100" fill="#336699"/>'
            '<circle cx="150" cy="50" r="40" fill="none" stroke="#000" stroke-width="4"/></svg>')
TALL_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 50 200">'
            '<path d="M0 0 L50 0 L50 200 L0 200 Z" fill="#336699"/></svg>')


def activity(cards: str, back: str = "{title: Main}") -> str:
    return textwrap.dedent("""\
        id: pics
        title: Pictures
        purpose: A tiny activity with pictures.
        category: Test
        players: 2
        minutes: 10
        rules:
          prepare: Shuffle the cards.
          play: Take turns.
        decks:
          - id: main
            name: Main
            back: {back}
            cards:
        """).format(back=back) + textwrap.indent(textwrap.dedent(cards), " " * 6)


def png(path: Path, size=(40, 30), color=(200, 30, 30)) -> None:
    PILImage.new("RGB", size, color).save(path, "PNG")


def jpeg(path: Path) -> None:
    PILImage.new("RGB", (30, 40), (30, 160, 30)).save(path, "JPEG")


def library(tmp_path: Path, text: str) -> Library:
    content = tmp_path / "content"
    content.mkdir(exist_ok=True)
    (content / "pics.yaml").write_text(text, encoding="utf-8")
    return Library.open(content)


def built(tmp_path: Path, text: str, **options):
    result = build("pics", BuildOptions(out_dir=tmp_path / "out", **options), library(tmp_path, text))
    return {path.name.split("pics-")[-1]: path for path in (f.path for f in result.files)}


def image_xobjects(pdf: Path) -> list[str]:
    """The filter of every image XObject in the file (each is one embedded copy of a picture)."""
    reader = pypdf.PdfReader(pdf)
    found = []
    for number in range(1, int(reader.trailer["/Size"])):
        try:
            obj = reader.get_object(number)
        except Exception:
            continue
        if isinstance(obj, pypdf.generic.DictionaryObject) and obj.get("/Subtype") == "/Image":
            found.append(str(obj.get("/Filter")))
    return found


def test_raster_pictures_are_embedded_once_however_many_cards_show_them(tmp_path: Path):
    content = tmp_path / "content"
    content.mkdir()
    png(content / "red.png")
    jpeg(content / "green.jpg")
    files = built(tmp_path, activity("""\
        - {id: a, count: 3, image: red.png}
        - {id: b, count: 2, image: red.png, name: Bee}
        - {id: c, count: 4, image: green.jpg}
        - {id: d, count: 1, image: red.png, layout: picture}
        """))
    images = image_xobjects(files["cards.pdf"])
    assert len(images) == 2, f"10 cards of two pictures should embed 2 images, found {len(images)}"
    assert any("DCTDecode" in f for f in images) and any("Flate" in f for f in images), images  # the JPEG as it is
    with pdfplumber.open(files["cards.pdf"]) as pdf:
        shown = [image for page in pdf.pages for image in page.images]
    assert len(shown) == 10, f"every card shows its picture: {len(shown)} placements"


def test_svg_is_drawn_as_vector_paths_inside_the_safe_area(tmp_path: Path):
    content = tmp_path / "content"
    content.mkdir()
    (content / "wide.svg").write_text(WIDE_SVG)
    (content / "tall.svg").write_text(TALL_SVG)
    files = built(tmp_path, activity("""\
        - {id: w, count: 1, image: wide.svg, layout: picture}
        - {id: t, count: 1, image: tall.svg, text: A tall picture above some words.}
        """), duplex="none")
    assert image_xobjects(files["cards.pdf"]) == [], "an SVG must not become an image"
    with pdfplumber.open(files["cards.pdf"]) as pdf:
        page = pdf.pages[0]
        frames = sorted((c for c in page.curves if c["stroke"] and not c["fill"] and c["width"] > 40 * MM),
                        key=lambda c: c["x0"])
        blue = [o for o in page.rects + page.curves
                if o.get("fill") and tuple(round(v, 2) for v in (o.get("non_stroking_color") or ())) == SVG_BLUE]
    assert len(frames) == 2 and len(blue) == 2, (len(frames), len(blue))
    for frame, drawn in zip(frames, sorted(blue, key=lambda o: o["x0"])):
        # the frame is the card inset by 2 mm; the safe area is the card inset by 3 mm
        safe = (frame["x0"] + 1 * MM, frame["top"] + 1 * MM, frame["x1"] - 1 * MM, frame["bottom"] - 1 * MM)
        assert safe[0] - 0.05 <= drawn["x0"] and drawn["x1"] <= safe[2] + 0.05, (drawn["x0"], drawn["x1"], safe)
        assert safe[1] - 0.05 <= drawn["top"] and drawn["bottom"] <= safe[3] + 0.05, (drawn["top"], drawn["bottom"])
        width, height = drawn["x1"] - drawn["x0"], drawn["bottom"] - drawn["top"]
        assert max(width, height) > 25 * MM, "a picture fills its box: at least 25 mm on its long side"
    wide, tall = sorted(blue, key=lambda o: o["x0"])
    assert abs((wide["x1"] - wide["x0"]) / (wide["bottom"] - wide["top"]) - 3) < 0.02, "kept its 3:1 shape"
    assert abs((tall["bottom"] - tall["top"]) / (tall["x1"] - tall["x0"]) - 4) < 0.02, "kept its 1:4 shape"


def test_emoji_in_card_text_print_as_pictures_and_are_credited(tmp_path: Path):
    files = built(tmp_path, activity("""\
        - {id: A, count: 2, text: "A 🦄 here", symbol: "🐿"}
        - {id: B, count: 1, picture: hedgehog, name: "Hedgehog"}
        """, back='{title: Main, picture: "🌍"}'))
    with pdfplumber.open(files["cards.pdf"]) as pdf:
        words = pdf.pages[0].extract_text()
        emoji_strokes = [c for c in pdf.pages[0].curves if c["stroke"] and c["width"] < 30 * MM]
    assert "🦄" not in words and "🐿" not in words and "A" in words and "here" in words
    assert image_xobjects(files["cards.pdf"]) == [], "emoji are vector drawings, not images"
    assert len(emoji_strokes) > 20, "the emoji's outlines are drawn"
    guide = "".join(page.extract_text() for page in pypdf.PdfReader(files["print-guide.pdf"]).pages)
    assert "OpenMoji" in guide and "CC BY-SA 4.0" in guide
    (tmp_path / "plain").mkdir()
    plain_files = built(tmp_path / "plain", activity("- {id: A, count: 1, name: Plain, symbol: \"★\"}\n"))
    plain = "".join(page.extract_text() for page in pypdf.PdfReader(plain_files["print-guide.pdf"]).pages)
    assert "OpenMoji" not in plain, "a kit without emoji credits no emoji set"


def test_unknown_picture_name_suggests_close_ones(tmp_path: Path):
    with pytest.raises(ContentError) as caught:
        built(tmp_path, activity("- {id: A, count: 1, picture: hedgehgo}\n"))
    assert str(caught.value).endswith("decks[0].cards[0].picture: no picture named 'hedgehgo' in the OpenMoji set; "
                                      "did you mean 'hedgehog'? (`kitgen pictures hedgehgo` lists the pictures "
                                      "whose name has that word)")
    assert "pics.yaml:15:36: " in str(caught.value), "located at the value the author wrote"


def test_every_bad_picture_is_refused_at_once_located_and_nothing_is_written(tmp_path: Path, monkeypatch):
    import kitgen.pictures.files as images

    root = tmp_path / "content"
    root.mkdir()
    outside = tmp_path / "secret.png"
    png(outside)
    (root / "link.png").symlink_to(outside)
    (root / "garbage.png").write_bytes(b"not a picture at all")
    whole = io.BytesIO()
    PILImage.new("RGB", (200, 200), (1, 2, 3)).save(whole, "PNG")
    (root / "truncated.png").write_bytes(whole.getvalue()[:120])
    (root / "broken.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'><path d='M0 0")
    (root / "notsvg.svg").write_text("<html><body>hello</body></html>")
    png(root / "huge.png", size=(400, 300))
    png(root / "locked.png")
    monkeypatch.setattr(images, "MAX_PIXELS", 100_000)
    real_read = Path.read_bytes

    def read_bytes(self):
        if self.name == "locked.png":
            raise PermissionError(13, "Permission denied", str(self))
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    cards = """\
        - {id: a, count: 1, image: ../secret.png}
        - {id: b, count: 1, image: link.png}
        - {id: c, count: 1, image: missing.png}
        - {id: d, count: 1, image: locked.png}
        - {id: e, count: 1, image: garbage.png}
        - {id: f, count: 1, image: truncated.png}
        - {id: g, count: 1, image: broken.svg}
        - {id: h, count: 1, image: huge.png}
        - {id: i, count: 1, image: /etc/passwd.png}
        - {id: j, count: 1, image: notsvg.svg}
        - {id: l, count: 1, image: notes.txt}
        """
    with pytest.raises(ContentError) as caught:
        built(tmp_path, activity(cards, back="{title: Main, image: missing-back.svg}"))
    error = caught.value
    assert error.exit_code == 2
    lines = str(error).splitlines()
    expected = {
        "decks[0].back.image": "no picture 'missing-back.svg'",
        "decks[0].cards[0].image": "leads outside the library",
        "decks[0].cards[1].image": "leads outside the library",
        "decks[0].cards[2].image": "no picture 'missing.png'",
        "decks[0].cards[3].image": "cannot be read: Permission denied",
        "decks[0].cards[4].image": "'garbage.png' is not a picture: it is text; expected a PNG, JPEG",
        "decks[0].cards[5].image": "is not a readable PNG picture",
        "decks[0].cards[6].image": "broken.svg:1:54: is not a readable SVG picture: its XML is broken",
        "decks[0].cards[7].image": "is 400 × 300 pixels, expected at most",
        "decks[0].cards[8].image": "is an absolute path",
        "decks[0].cards[9].image": "'notsvg.svg' is not a picture: it is a web page (HTML)",
        "decks[0].cards[10].image": "expected a .png, .jpg, .jpeg, .svg, .gif",
    }
    assert len(lines) == len(expected), "\n".join(lines)
    for key, words in expected.items():
        line = next((line for line in lines if f": {key}: " in line), None)
        assert line is not None, f"no problem reported for {key}:\n" + "\n".join(lines)
        assert words in line, line
        file, line_number, column = line.split(":")[:3]
        assert file.endswith("pics.yaml") and int(line_number) > 10 and int(column) > 1, line
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*")), "nothing may be written"


def test_too_many_bytes_is_refused(tmp_path: Path, monkeypatch):
    import kitgen.pictures.files as images

    root = tmp_path / "content"
    root.mkdir()
    png(root / "big.png", size=(64, 64))
    monkeypatch.setattr(images, "MAX_BYTES", 50)
    with pytest.raises(ContentError) as caught:
        built(tmp_path, activity("- {id: a, count: 1, image: big.png}\n"))
    assert "decks[0].cards[0].image: 'big.png' is" in str(caught.value) and "MB, expected at most" in str(caught.value)


def test_library_images_folder_is_found(tmp_path: Path):
    images = tmp_path / "content" / "images"
    images.mkdir(parents=True)
    (images / "shared.svg").write_text(TALL_SVG)
    files = built(tmp_path, activity("- {id: a, count: 1, image: shared.svg}\n"))
    with pdfplumber.open(files["cards.pdf"]) as pdf:
        blue = [o for o in pdf.pages[0].rects + pdf.pages[0].curves
                if tuple(round(v, 2) for v in (o.get("non_stroking_color") or ())) == SVG_BLUE]
    assert blue, "the library's images/ folder is searched after the activity's folder"


def test_face_uses_its_whole_height(tmp_path: Path):
    """A card of a title and one symbol: the symbol is centred in the body, not left in the top half."""
    files = built(tmp_path, activity("- {id: A, count: 1, symbol: \"★\"}\n"), duplex="none")
    with pdfplumber.open(files["cards.pdf"]) as pdf:
        chars = [c for c in pdf.pages[0].chars if c["text"] == "★"]
        frame = next(c for c in pdf.pages[0].curves if c["stroke"] and c["width"] > 40 * MM)
    big = max(chars, key=lambda c: c["size"])
    middle = (big["top"] + big["bottom"]) / 2
    body_top, body_bottom = frame["top"] + 0.15 * (frame["bottom"] - frame["top"]), frame["bottom"]
    assert abs(middle - (body_top + body_bottom) / 2) < 0.08 * (frame["bottom"] - frame["top"]), \
        (middle, body_top, body_bottom)

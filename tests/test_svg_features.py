"""Nothing of a picture is dropped in silence: every SVG feature is drawn (gradients, opacity, clip paths, text) or
refused with the file and line of the element that uses it, and a picture file is read by what its bytes are.

Each drawing is measured in the PDF kitgen wrote: the page rendered by PDFium and its pixels read inside a frame
the SVG draws round each shape (a stroke of its own colour, found with pdfplumber), or the words read back."""
from __future__ import annotations

import io
import textwrap
from pathlib import Path

import forked
import pdfplumber
import pytest
from PIL import Image as PILImage

from conftest import kitgen_env, small_activity
from kitgen.app.build import build, BuildOptions
from kitgen.core.errors import ContentError
from kitgen.export.raster import page_image
from kitgen.load.library import Library

SCALE = 3  # pixels a point
GREEN_FRAME, MAGENTA_FRAME = (0.0, 1.0, 0.0), (1.0, 0.0, 1.0)
SVG = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 200 200">\n'

GRADIENTS = SVG + """\
<defs>
  <linearGradient id="lin"><stop offset="0" stop-color="#ff0000"/><stop offset="1" stop-color="#0000ff"/></linearGradient>
  <radialGradient id="rad"><stop offset="0" stop-color="#ffff00"/><stop offset="1" stop-color="#000080"/></radialGradient>
</defs>
<rect x="10" y="10" width="180" height="80" fill="url(#lin)"/>
<rect x="10" y="10" width="180" height="80" fill="none" stroke="#00ff00" stroke-width="1"/>
<circle cx="100" cy="145" r="50" fill="url(#rad)"/>
<rect x="50" y="95" width="100" height="100" fill="none" stroke="#ff00ff" stroke-width="1"/>
</svg>
"""


def built(tmp_path: Path, pictures: dict[str, bytes | str], cards: str) -> dict[str, Path]:
    content = tmp_path / "content"
    content.mkdir(exist_ok=True)
    for name, data in pictures.items():
        (content / name).write_bytes(data.encode() if isinstance(data, str) else data)
    text = small_activity("pics", "Pictures", "A tiny activity with pictures.") + textwrap.indent(cards, " " * 6)
    (content / "pics.yaml").write_text(text, encoding="utf-8")
    result = build("pics", BuildOptions(out_dir=tmp_path / "out", duplex="none"), Library.open(content))
    return {path.name.split("pics-")[-1]: path for path in (f.path for f in result.files)}


def framed(pdf: Path, color: tuple[float, ...]) -> tuple[float, float, float, float]:
    """The (x0, top, x1, bottom) of the first page's stroke of `color` (pdfplumber's points, from the top)."""
    with pdfplumber.open(pdf) as document:
        page = document.pages[0]
        found = [shape for shape in page.rects + page.curves if shape.get("stroke") and
                 isinstance(shape.get("stroking_color"), (tuple, list)) and
                 tuple(round(v, 2) for v in shape["stroking_color"]) == color]
    assert found, f"no frame of colour {color} on the page"
    shape = found[0]
    return shape["x0"], shape["top"], shape["x1"], shape["bottom"]


def pixel(image: PILImage.Image, box: tuple[float, float, float, float], fx: float, fy: float) -> tuple[int, ...]:
    """The colour at (fx, fy) of `box` (fractions of its width and height from its top left)."""
    x0, top, x1, bottom = box
    return image.getpixel((round((x0 + fx * (x1 - x0)) * SCALE), round((top + fy * (bottom - top)) * SCALE)))[:3]


def test_linear_and_radial_gradients_are_drawn_as_blends(tmp_path: Path):
    # before: the gradient fills were left out and the shapes printed white
    files = built(tmp_path, {"blend.svg": GRADIENTS}, "- {id: g, count: 1, image: blend.svg, layout: picture}\n")
    image = page_image(files["cards.pdf"], 0, SCALE)
    rect = framed(files["cards.pdf"], GREEN_FRAME)
    left, middle, right = (pixel(image, rect, fx, 0.5) for fx in (0.05, 0.5, 0.95))
    assert left[0] > 200 and left[2] < 60, f"reddish at the left: {left}"
    assert right[2] > 200 and right[0] < 60, f"bluish at the right: {right}"
    assert 60 < middle[0] < 200 and 60 < middle[2] < 200 and middle[1] < 60, f"between the two: {middle}"
    circle = framed(files["cards.pdf"], MAGENTA_FRAME)
    centre, edge = pixel(image, circle, 0.5, 0.5), pixel(image, circle, 0.5, 0.95)
    assert centre[0] > 200 and centre[1] > 200 and centre[2] < 80, f"yellow at the centre: {centre}"
    assert edge[2] > 90 and edge[0] < 60 and edge[1] < 60, f"dark blue at the rim: {edge}"
    outside = pixel(image, circle, 0.03, 0.03)
    assert min(outside) > 235, f"the circle's square corner stays white: {outside}"


def test_gradient_href_user_space_and_transform(tmp_path: Path):
    # stops inherited through href; userSpaceOnUse coordinates; gradientTransform turning a left→right blend
    svg = SVG + """\
<linearGradient id="stops"><stop offset="0" stop-color="#ff0000"/><stop offset="1" stop-color="#0000ff"/></linearGradient>
<linearGradient id="down" xlink:href="#stops" gradientUnits="userSpaceOnUse" x1="0" y1="10" x2="0" y2="90"/>
<linearGradient id="turned" href="#stops" gradientTransform="rotate(90 0.5 0.5)"/>
<rect x="10" y="10" width="85" height="80" fill="url(#down)"/>
<rect x="10" y="10" width="85" height="80" fill="none" stroke="#00ff00"/>
<rect x="105" y="10" width="85" height="80" fill="url(#turned)"/>
<rect x="105" y="10" width="85" height="80" fill="none" stroke="#ff00ff"/>
</svg>
"""
    files = built(tmp_path, {"turn.svg": svg}, "- {id: g, count: 1, image: turn.svg, layout: picture}\n")
    image = page_image(files["cards.pdf"], 0, SCALE)
    for color in (GREEN_FRAME, MAGENTA_FRAME):
        box = framed(files["cards.pdf"], color)
        top, bottom, side = pixel(image, box, 0.5, 0.06), pixel(image, box, 0.5, 0.94), pixel(image, box, 0.06, 0.5)
        assert top[0] > 200 and top[2] < 60, f"red at the top: {top}"
        assert bottom[2] > 200 and bottom[0] < 60, f"blue at the bottom: {bottom}"
        assert 60 < side[0] < 200, f"the blend runs down, not across: {side}"


def test_opacity_and_clip_path_are_drawn(tmp_path: Path):
    svg = SVG + """\
<clipPath id="round"><circle cx="150" cy="50" r="40"/></clipPath>
<g opacity="0.5"><rect x="10" y="10" width="80" height="80" fill="#ff0000"/></g>
<rect x="10" y="10" width="80" height="80" fill="none" stroke="#00ff00"/>
<rect x="110" y="10" width="80" height="80" fill="#0000ff" clip-path="url(#round)"/>
<rect x="110" y="10" width="80" height="80" fill="none" stroke="#ff00ff"/>
</svg>
"""
    files = built(tmp_path, {"see.svg": svg}, "- {id: g, count: 1, image: see.svg, layout: picture}\n")
    image = page_image(files["cards.pdf"], 0, SCALE)
    pink = pixel(image, framed(files["cards.pdf"], GREEN_FRAME), 0.5, 0.5)
    assert pink[0] > 240 and 100 < pink[1] < 160 and 100 < pink[2] < 160, f"half-see-through red is pink: {pink}"
    clipped = framed(files["cards.pdf"], MAGENTA_FRAME)
    centre, corner = pixel(image, clipped, 0.5, 0.5), pixel(image, clipped, 0.06, 0.06)
    assert centre[2] > 200 and centre[0] < 60, f"blue inside the clip: {centre}"
    assert min(corner) > 235, f"white outside the clip: {corner}"


def test_each_see_through_shape_is_drawn_see_through():
    # before: ReportLab left out the second graphics state of an equal opacity, though a Q had undone the first
    from kitgen.core.display import Box, Document, Page, Path as PathItem
    from kitgen.export.pdf import write_pdf

    def square(x: float, y: float) -> tuple:
        return (("m", x, y), ("l", x + 40, y), ("l", x + 40, y + 40), ("l", x, y + 40), ("h",))

    items = [Box(10, 10, 40, 40, None, (1.0, 0.0, 0.0), alpha=0.5), Box(60, 10, 40, 40, None, (1.0, 0.0, 0.0), alpha=0.5),
             PathItem(square(10, 100), fill=(0.0, 0.0, 1.0), fill_alpha=0.5),
             PathItem(square(60, 100), fill=(0.0, 0.0, 1.0), fill_alpha=0.5)]
    pdf = write_pdf(Document("see-through", [Page(200, 200, items)]), keep=False)
    image = page_image(pdf, 0, 1)
    for x, y in ((30, 170), (80, 170)):  # (pixels from the top left: the boxes' middles)
        assert 100 < image.getpixel((x, y))[1] < 160, (x, y, image.getpixel((x, y)))  # pink, not red
    for x, y in ((30, 80), (80, 80)):  # the paths' middles
        assert 100 < image.getpixel((x, y))[0] < 160, (x, y, image.getpixel((x, y)))  # light blue, not blue


def test_rounded_corners_are_drawn(tmp_path: Path):
    # before: a <rect> with rx/ry printed with square corners
    svg = SVG + """\
<rect x="10" y="10" width="180" height="180" rx="60" fill="#0000ff"/>
<rect x="10" y="10" width="180" height="180" fill="none" stroke="#00ff00"/>
</svg>
"""
    files = built(tmp_path, {"round.svg": svg}, "- {id: g, count: 1, image: round.svg, layout: picture}\n")
    image = page_image(files["cards.pdf"], 0, SCALE)
    box = framed(files["cards.pdf"], GREEN_FRAME)
    corner, edge, centre = pixel(image, box, 0.04, 0.04), pixel(image, box, 0.5, 0.02), pixel(image, box, 0.5, 0.5)
    assert min(corner) > 235, f"the corner is cut round: {corner}"
    assert edge[2] > 200 and edge[0] < 60 and centre[2] > 200, (edge, centre)


def test_svg_text_is_printed_in_the_body_font(tmp_path: Path):
    # before: <text> was left out of the picture
    svg = SVG + """\
<rect x="0" y="0" width="200" height="200" fill="none" stroke="#00ff00"/>
<text x="100" y="110" font-size="30" text-anchor="middle" fill="#000000">Jelly<tspan fill="#cc0000">fish</tspan></text>
</svg>
"""
    files = built(tmp_path, {"words.svg": svg}, "- {id: g, count: 1, image: words.svg, layout: picture}\n")
    with pdfplumber.open(files["cards.pdf"]) as document:
        page = document.pages[0]
        words = page.extract_words()
        found = [word for word in words if word["text"] == "Jellyfish"]
        assert found, [word["text"] for word in words]
        fonts = {char["fontname"].split("+")[-1] for char in page.chars
                 if found[0]["x0"] - 0.1 <= char["x0"] and char["x1"] <= found[0]["x1"] + 0.1
                 and abs(char["top"] - found[0]["top"]) < 1}
    assert fonts == {"DejaVuSans"}, fonts
    x0, _, x1, _ = framed(files["cards.pdf"], GREEN_FRAME)
    centre = (found[0]["x0"] + found[0]["x1"]) / 2
    assert abs(centre - (x0 + x1) / 2) < 0.03 * (x1 - x0), "text-anchor middle: centred on x"
    image = page_image(files["cards.pdf"], 0, SCALE)
    reds = [image.getpixel((x, y)) for x in range(round(found[0]["x0"] * SCALE), round(found[0]["x1"] * SCALE))
            for y in range(round(found[0]["top"] * SCALE), round(found[0]["bottom"] * SCALE))]
    assert any(p[0] > 150 and p[1] < 80 for p in reds) and any(max(p[:3]) < 80 for p in reds), "black and red"


REFUSED = {
    "filter": ('<filter id="blur"><feGaussianBlur stdDeviation="3"/></filter>\n'
               '<circle cx="100" cy="100" r="50" fill="#ff0000" filter="url(#blur)"/>', 2, "<filter>"),
    "mask": ('<mask id="m"><rect width="100" height="100" fill="#fff"/></mask>\n'
             '<rect width="200" height="200" fill="#f00" style="mask: url(#m)"/>', 2, "<mask>"),
    "pattern": ('<pattern id="p" width="10" height="10"><rect width="5" height="5"/></pattern>\n'
                '<rect width="200" height="200" fill="url(#p)"/>', 2, "<pattern>"),
    "image": ('<rect width="10" height="10"/>\n<image href="fox.png" width="100" height="100"/>', 2, "<image>"),
    "foreignObject": ('<rect width="10" height="10"/>\n<foreignObject width="9" height="9"/>', 2, "<foreignObject>"),
    "textPath": ('<path id="a" d="M0 0 L100 0"/>\n<text><textPath href="#a">Hi</textPath></text>', 2, "<textPath>"),
    "style": ('<style>@media print { rect { fill: red } }</style>\n<rect width="10" height="10"/>', 1, "@media"),
    "selector": ('<style>rect::before { fill: red }</style>\n<rect width="10" height="10"/>', 1, "rect::before"),
    "stroke": ('<linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient>\n'
               '<rect width="90" height="90" fill="none" stroke="url(#g)"/>', 2, "gradient outline"),
    "fade": ('<rect width="90" height="90" fill="url(#g)"/>\n<linearGradient id="g"><stop offset="0" stop-color="red"/>'
             '<stop offset="1" stop-color="red" stop-opacity="0"/></linearGradient>', 2, "stop-opacity"),
    "spacing": ('<rect width="10" height="10"/>\n<text x="9" y="9" letter-spacing="4">Hi</text>', 2, "letter-spacing"),
}


@pytest.mark.parametrize("feature", sorted(REFUSED))
def test_a_feature_kitgen_does_not_draw_is_refused_at_its_line(tmp_path: Path, feature: str):
    body, line, named = REFUSED[feature]
    with pytest.raises(ContentError) as caught:
        built(tmp_path, {"odd.svg": SVG + body + "\n</svg>\n"}, "- {id: g, count: 1, image: odd.svg}\n")
    message = str(caught.value)
    assert caught.value.exit_code == 2
    assert f": decks[0].cards[0].image: odd.svg:{line + 1}: " in message and named in message, message
    assert "expected" in message.split(f"odd.svg:{line + 1}: ")[1], message


def test_filter_svg_stops_the_build_with_exit_2_and_the_located_message(tmp_path: Path):
    content = tmp_path / "content"
    (content / "pictures").mkdir(parents=True)
    (content / "pictures" / "jelly.svg").write_text(SVG + REFUSED["filter"][0] + "\n</svg>\n")
    (content / "jelly.yaml").write_text(small_activity("jelly", "Jelly", "A tiny activity with a blurred jellyfish.")
                                        + "      - {id: a, count: 1, image: pictures/jelly.svg}\n", encoding="utf-8")
    run = forked.run(["build", "jelly", "--content", "content"], cwd=tmp_path, env=kitgen_env(tmp_path), timeout=300)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert ("decks[0].cards[0].image: pictures/jelly.svg:3: <circle> uses a <filter> (a blur, a shadow, ...) "
            "(filter: url(#blur)), which kitgen does not draw; expected") in run.stderr, run.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.pdf")), "nothing is written"


def test_metadata_editor_namespaces_and_editor_alternatives_are_left_out_quietly(tmp_path: Path):
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" '
           'xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" viewBox="0 0 10 10">'
           '<title>A square</title><desc>red</desc><metadata><x/></metadata><sodipodi:namedview/>'
           '<rect inkscape:label="layer" width="10" height="10" fill="#f00"/></svg>')
    inkscape = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/'
                'sodipodi-0.dtd" viewBox="0 0 100 100"><text xml:space="preserve" style="font-size:12px;line-height:'
                '1.25;letter-spacing:0px;word-spacing:0px;writing-mode:lr-tb;stroke-width:0.26" x="5" y="50">'
                '<tspan sodipodi:role="line" style="stroke-width:0.26;paint-order:markers stroke fill" x="5" y="50">'
                'Inkscape</tspan></text></svg>')
    illustrator = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:i="http://ns.adobe.com/AdobeIllustrator/10.0/" '
                   'viewBox="0 0 10 10" enable-background="new 0 0 10 10" xml:space="preserve"><style>.st0{fill:'
                   '#FF0000;}</style><switch><foreignObject requiredExtensions="http://ns.adobe.com/AdobeIllustrator/'
                   '10.0/" width="1" height="1"><i:pgfRef/></foreignObject><g><rect class="st0" width="10" '
                   'height="10"/></g></switch></svg>')
    files = built(tmp_path, {"meta.svg": svg, "ink.svg": inkscape, "ai.svg": illustrator},
                  "- {id: g, count: 1, image: meta.svg}\n- {id: h, count: 1, image: ink.svg}\n"
                  "- {id: i, count: 1, image: ai.svg}\n")
    with pdfplumber.open(files["cards.pdf"]) as document:
        words = document.pages[0].extract_text()
        reds = [shape for page in document.pages for shape in page.rects + page.curves
                if shape.get("fill") and shape.get("non_stroking_color") == (1, 0, 0)]
    assert "Inkscape" in words and len(reds) == 2, (words, len(reds))


def _picture(kind: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", (30, 40), (30, 160, 30)).save(buffer, kind, **options)
    return buffer.getvalue()


def test_a_picture_is_read_by_its_bytes_not_its_name(tmp_path: Path):
    # before: a JPEG saved as .png was refused ("is not a PNG picture (a JPEG file)")
    files = built(tmp_path, {"photo.png": _picture("JPEG"), "anim.gif": _picture("GIF"),
                             "drawn.png": GRADIENTS},
                  "- {id: a, count: 1, image: photo.png}\n- {id: b, count: 1, image: anim.gif}\n"
                  "- {id: c, count: 1, image: drawn.png}\n")
    with pdfplumber.open(files["cards.pdf"]) as document:
        images = [image for page in document.pages for image in page.images]
        filters = {str(image["stream"].get("Filter")) for image in images}
    assert len(images) == 2, "the JPEG and the GIF are pictures; the SVG named .png is drawn as paths"
    assert any("DCTDecode" in f for f in filters) and any("FlateDecode" in f for f in filters), filters


def test_a_broken_picture_says_what_is_wrong_without_python_insides(tmp_path: Path):
    whole = _picture("PNG")
    pictures: dict[str, bytes | str] = {
        "text.png": "not a picture at all", "cut.png": whole[:60], "cut.jpg": _picture("JPEG")[:10],
        "broken.svg": "<svg xmlns='http://www.w3.org/2000/svg'>\n<path d='M0 0", "page.svg": "<html>hi</html>",
        "plain.svg": "<svg xmlns='http://www.w3.org/2000/svg'><g></svg>", "empty.png": b"",
        "doc.jpg": b"%PDF-1.7\n...", "nothing.svg": SVG + "</svg>"}
    cards = "".join(f"- {{id: c{i}, count: 1, image: {name}}}\n" for i, name in enumerate(pictures))
    with pytest.raises(ContentError) as caught:
        built(tmp_path, pictures, cards)
    lines = str(caught.value).splitlines()
    assert len(lines) == len(pictures), lines
    for line in lines:
        assert "0x" not in line and "<string>" not in line and "object at" not in line, line
        assert any(name in line for name in pictures) and "expected" in line, line
    said = "\n".join(lines)
    assert "broken.svg:2:" in said and "'text.png' is not a picture: it is text" in said
    assert "'page.svg' is not a picture: it is a web page (HTML)" in said and "'doc.jpg' is not a picture: it is a PDF" in said

"""The PDF backend: display lists → valid PDF, forms with pictures and transparency included, and the
ReportLab internals it relies on guarded by a tested version range."""
from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path

import pypdf
import pytest

from conftest import require_tool
from PIL import Image as PILImage

from kitgen.export import pdf as backend
from kitgen.export.pdf import require_tested_reportlab, write_pdf
from kitgen.core.display import BLACK, Box, Document, Form, Image, Line, Page, Stroke, Text, translate, Use
from kitgen.core.errors import BuildError
from kitgen.fonts.registry import REGULAR
from kitgen.core.units import mm

REPO = Path(__file__).resolve().parents[1]
A4 = (595.2756, 841.8898)
RED = (220, 30, 30)


def png_bytes(color=RED, size=(20, 20)) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", size, color).save(buffer, "PNG")
    return buffer.getvalue()


def card_with_picture_and_transparency() -> Document:
    """Two placements of one card form holding a picture and a half-transparent black box."""
    picture = Image(mm(5), mm(40), mm(20), mm(20), png_bytes(), "red.png")
    shade = Box(mm(30), mm(40), mm(20), mm(20), None, BLACK, alpha=0.5)
    form = Form("card", (0, 0, mm(63.5), mm(88.9)),
                (Box(0, 0, mm(63.5), mm(88.9), Stroke(0.5)), picture, shade,
                 Text(mm(5), mm(10), "Fox & <b>hen</b>", REGULAR, 10)))
    page = Page(*A4, [Use("card", translate(mm(10), mm(100))), Use("card", translate(mm(80), mm(100))),
                      Line(mm(10), mm(95), mm(143.5), mm(95), Stroke(0.25))])
    return Document("picture test", [page], {"card": form})


@pytest.fixture(scope="module")
def picture_pdf(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("backend") / "picture.pdf"
    path.write_bytes(write_pdf(card_with_picture_and_transparency()))
    return path


PACKAGES = {"pdftoppm": "poppler-utils", "qpdf": "qpdf", "mutool": "mupdf-tools"}  # the Debian package of each tool


def needs(tool: str) -> str:
    """The tool's path; missing, a failure under CI=true, else a skip, naming its Debian package."""
    return require_tool(tool, package=PACKAGES[tool])


def test_a_form_with_a_picture_and_transparency_is_a_valid_pdf(picture_pdf):
    check = subprocess.run([needs("qpdf"), "--check", str(picture_pdf)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "No syntax or stream encoding errors" in check.stdout


def test_the_forms_resources_name_its_picture_and_its_transparency(picture_pdf):
    reader = pypdf.PdfReader(picture_pdf)
    page = reader.pages[0]
    forms = [x.get_object() for x in page["/Resources"]["/XObject"].values()]
    card = next(f for f in forms if f["/Subtype"] == "/Form")
    resources = card["/Resources"]
    content = card.get_data().decode("latin-1")
    for name in re.findall(r"/(\S+) Do", content):
        assert f"/{name}" in resources["/XObject"], (name, resources)
    for name in re.findall(r"/(\S+) gs", content):
        assert f"/{name}" in resources["/ExtGState"], (name, resources)
    assert re.findall(r"/(\S+) gs", content), "the transparent box sets no graphics state"


def test_a_picture_used_by_many_cards_is_embedded_once(picture_pdf):
    data = picture_pdf.read_bytes()
    assert len(re.findall(rb"/Subtype\s*/Image", data)) == 1


def pixel(png: Path, x_mm: float, y_mm_from_top: float, dpi: int = 72) -> tuple[int, int, int]:
    image = PILImage.open(png).convert("RGB")
    return image.getpixel((round(x_mm / 25.4 * dpi), round(y_mm_from_top / 25.4 * dpi)))


def expected_colours_in(png: Path) -> None:
    page_height = 297.0
    picture = pixel(png, 10 + 15, page_height - (100 + 50))  # centre of the picture on the first card
    shade = pixel(png, 10 + 40, page_height - (100 + 50))  # centre of the half-transparent box
    assert all(abs(a - b) <= 12 for a, b in zip(picture, RED)), picture
    assert all(100 <= c <= 155 for c in shade), shade  # black at 50 % over white


def test_three_renderers_draw_the_picture_and_the_transparent_fill(picture_pdf, tmp_path):
    subprocess.run([needs("pdftoppm"), "-r", "72", "-png", "-singlefile", str(picture_pdf), str(tmp_path / "poppler")],
                   check=True)
    expected_colours_in(tmp_path / "poppler.png")
    subprocess.run([needs("mutool"), "draw", "-q", "-r", "72", "-o", str(tmp_path / "mupdf.png"), str(picture_pdf), "1"],
                   check=True, capture_output=True)
    expected_colours_in(tmp_path / "mupdf.png")
    import pypdfium2

    document = pypdfium2.PdfDocument(str(picture_pdf))
    document[0].render(scale=1).to_pil().save(tmp_path / "pdfium.png")
    expected_colours_in(tmp_path / "pdfium.png")


def test_text_in_a_form_prints_literally():
    text = pypdf.PdfReader(io.BytesIO(write_pdf(card_with_picture_and_transparency()))).pages[0].extract_text()
    assert "Fox & <b>hen</b>" in text


def test_the_installed_reportlab_is_in_the_tested_range_and_has_what_the_backend_uses():
    require_tested_reportlab()
    pyproject = (REPO / "pyproject.toml").read_text()
    low, high = backend.TESTED_REPORTLAB
    assert f'"reportlab>={low[0]}.{low[1]},<{high[0]}.{high[1]}"' in pyproject


def test_a_reportlab_outside_the_tested_range_is_refused_before_anything_is_drawn():
    with pytest.raises(BuildError, match="tested with"):
        require_tested_reportlab("99.0")
    with pytest.raises(BuildError, match="tested with"):
        require_tested_reportlab("3.6.13")


def test_a_reportlab_without_an_internal_the_backend_uses_is_refused(monkeypatch):
    monkeypatch.setattr(backend, "CANVAS_INTERNALS", backend.CANVAS_INTERNALS + ("_gone_in_a_new_release",))
    require_tested_reportlab.cache_clear()
    try:
        with pytest.raises(BuildError, match="_gone_in_a_new_release"):
            require_tested_reportlab()
    finally:
        require_tested_reportlab.cache_clear()


def reportlab_private_names() -> set[str]:
    """Every `_name` ReportLab's own code defines or reaches on an object (`self._code`, `def _setXObjects`)."""
    import reportlab

    names: set[str] = set()
    for path in Path(reportlab.__file__).parent.rglob("*.py"):
        source = path.read_text(encoding="utf-8", errors="replace")
        names.update(re.findall(r"\.(_[A-Za-z]\w*)", source))
        names.update(re.findall(r"def (_[A-Za-z]\w*)", source))
    return {name for name in names if not name.startswith("__")}


REPORTLAB_OWNERS = {"export/pdf.py", "render/recorder.py", "fonts/truetype.py", "render/platypus.py"}


def test_only_the_backend_touches_reportlab_internals():
    """No module but the few that own ReportLab (the PDF exporter, the recording canvas, the font loader, the
    platypus wrapper that measures what KeepInFrame measures) imports a private ReportLab name or reaches one on an object (a canvas, a document, a font, a table); kitgen's own private
    helpers are not ReportLab's."""
    private = reportlab_private_names()
    assert {"_code", "_doc", "_formData", "_rowHeights"} <= private  # the guard knows what it looks for
    offenders = []
    for path in (REPO / "kitgen").rglob("*.py"):
        if path.relative_to(REPO / "kitgen").as_posix() in REPORTLAB_OWNERS:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            for match in re.finditer(r"(\w+)\.(_[a-z]\w*)", code):
                if match[1] not in ("self", "cls", "os", "sys") and match[2] in private:
                    offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
            if re.match(r"\s*from reportlab[\w.]* import .*\b_[a-z]\w*", code):  # a private name imported
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_each_page_sets_its_own_line_style():
    """A page starts from PDF's default graphics state: a dash set on page 1 is set again on page 2."""
    dashed = Line(0, 0, 100, 0, Stroke(0.5, BLACK, (3, 2)))
    document = Document("dashes", [Page(*A4, [dashed]), Page(*A4, [dashed])])
    reader = pypdf.PdfReader(io.BytesIO(write_pdf(document)))
    for page in reader.pages:
        assert b"[3 2] 0 d" in page.get_contents().get_data()


def test_a_shared_picture_is_one_form_however_many_cards_draw_it(tmp_path):
    """A vector picture on many cards (a Group marked shared) is written once and placed by reference; every
    card still shows it."""
    from kitgen.core.display import Group, Path as VectorPath

    star = (VectorPath((("m", 0, 0), ("l", 10, 0), ("l", 5, 10), ("h",)), None, BLACK),)  # the same tuple
    forms = {f"card{i}": Form(f"card{i}", (0, 0, mm(20), mm(20)),
                             (Group(star, (mm(1.5), 0, 0, mm(1.5), mm(2.5), mm(2.5)), shared=True),
                              Text(1, 1, f"card {i}", REGULAR, 6)))
             for i in range(3)}
    page = Page(*A4, [Use(f"card{i}", translate(mm(10 + 30 * i), mm(200))) for i in range(3)])
    path = tmp_path / "shared.pdf"
    path.write_bytes(write_pdf(Document("shared", [page], forms)))
    data = path.read_bytes()
    assert len(re.findall(rb"/Subtype\s*/Form", data)) == 3 + 1, "three cards and one picture"
    check = subprocess.run([needs("qpdf"), "--check", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout
    subprocess.run([needs("pdftoppm"), "-r", "72", "-png", "-singlefile", str(path), str(tmp_path / "p")], check=True)
    for i in range(3):  # the middle of each card's triangle is black
        assert pixel(tmp_path / "p.png", 10 + 30 * i + 2.5 + 7.5, 297.0 - (200 + 2.5 + 5)) == (0, 0, 0)

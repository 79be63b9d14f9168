"""QR codes on cards and in the print guide: drawn as vector boxes, read back as a scanner would (the page rendered
with PDFium, each module's centre sampled) and compared with segno's modules for the address; every module at
least the minimum printed size; a code that cannot be printed large enough in its place is refused, located."""
from __future__ import annotations

from pathlib import Path

import pdfplumber
import pypdf
import pypdfium2
import pytest
import segno

from kitgen.core.errors import UnprintableContent

from test_fonts import activity, built

MM = 72 / 25.4
MIN_MODULE_MM = 0.5
CARD_URL = "https://example.org/animals/fox"
GUIDE_URL = "https://example.org/kitgen/rules-video"


def expected(url: str) -> list[list[bool]]:
    return [[bool(v) for v in row] for row in segno.make(url, error="m", micro=False).matrix]


def read_codes(pdf: Path, page_index: int = 0, scale: float = 300 / 72) -> list[tuple[list[list[bool]], float]]:
    """Each QR code on the page: its modules as printed (sampled from the rendered page) and its module size in
    mm (from the black boxes' geometry). Codes are found as clusters of black filled boxes."""
    with pdfplumber.open(pdf) as doc:
        page = doc.pages[page_index]
        boxes = [r for r in page.rects if r["fill"] and not r["stroke"] and r["width"] < 30 * MM
                 and r["non_stroking_color"] in ((0,), [0], (0.0,), [0.0], 0, 0.0)]
    clusters: list[list[dict]] = []
    for box in sorted(boxes, key=lambda b: (b["top"], b["x0"])):
        for cluster in clusters:
            if any(abs(box["x0"] - o["x0"]) < 40 * MM and abs(box["top"] - o["top"]) < 40 * MM
                   and box["top"] - o["bottom"] < 3 * MM for o in cluster[-60:]):
                cluster.append(box)
                break
        else:
            clusters.append([box])
    rendered = pypdfium2.PdfDocument(str(pdf))[page_index].render(scale=scale, grayscale=True).to_pil()
    codes = []
    for cluster in clusters:
        if len(cluster) < 20:
            continue
        module = min(b["height"] for b in cluster)
        left, top = min(b["x0"] for b in cluster), min(b["top"] for b in cluster)
        right, bottom = max(b["x1"] for b in cluster), max(b["bottom"] for b in cluster)
        n = round((right - left) / module)
        assert abs((bottom - top) / module - n) < 0.05, "a square code of whole modules"
        matrix = [[rendered.getpixel((int((left + (c + 0.5) * module) * scale),
                                      int((top + (r + 0.5) * module) * scale))) < 128 for c in range(n)]
                  for r in range(n)]
        codes.append((matrix, module / MM))
    return codes


def test_a_card_qr_code_reads_back_as_its_address_with_modules_at_least_the_minimum(tmp_path: Path):
    files = built(tmp_path, activity(card=f"{{id: A, count: 1, name: Fox, qr: '{CARD_URL}', text: Scan me}}"))
    codes = read_codes(files["cards.pdf"])
    assert len(codes) == 1
    matrix, module_mm = codes[0]
    assert matrix == expected(CARD_URL), "the printed modules are the address's code"
    assert module_mm >= MIN_MODULE_MM - 1e-6, f"module {module_mm:.2f} mm"
    reader = pypdf.PdfReader(files["cards.pdf"])
    assert not any(obj.get_object().get("/Subtype") == "/Image" for page in reader.pages
                   for obj in page.get("/Resources", {}).get("/XObject", {}).values()), "vector boxes, no image"


def test_the_print_guide_prints_the_activity_links_as_qr_codes(tmp_path: Path):
    files = built(tmp_path, activity(extra=f"links:\n  - {{title: How to play (video), url: '{GUIDE_URL}'}}"))
    codes = read_codes(files["print-guide.pdf"])
    assert [matrix for matrix, _ in codes] == [expected(GUIDE_URL)]
    assert codes[0][1] >= MIN_MODULE_MM - 1e-6
    text = pypdf.PdfReader(files["print-guide.pdf"]).pages[0].extract_text()
    assert "How to play (video)" in text and GUIDE_URL in text


def test_a_code_too_dense_for_its_place_is_refused_located_and_nothing_is_written(tmp_path: Path):
    url = "https://example.org/" + "a-long-path/" * 30
    text = activity(card=f"{{id: A, count: 1, name: Fox, qr: '{url}', caption: A, text: Read the long text "
                         "under the code, footer: F}").replace("minutes: 10", "minutes: 10\ncard_size: mini")
    with pytest.raises(UnprintableContent) as caught:
        built(tmp_path, text)
    message = str(caught.value)
    assert "words.yaml:" in message and "card 'A'" in message and "qr:" in message and "0.5 mm" in message
    assert not any((tmp_path / "out").rglob("*.pdf")) if (tmp_path / "out").exists() else True

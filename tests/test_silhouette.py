"""--cutter silhouette: the cut files (SVG and DXF) hold the card outlines alone, on the sheet's coordinates; the
printed registration marks are Silhouette Studio's Type 1 marks where Studio puts them; nothing else is printed
in the three marked corners (a 300 dpi picture of the page shows it); clearance only there, so A4 and Letter hold
six poker cards; and the print guide's numbers are the ones measured here. Read from the files alone."""
from __future__ import annotations

import math
import subprocess
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import ezdxf
import pdfplumber
import pytest
from PIL import Image

from kitgen.app.build import build, BuildOptions
from kitgen.load.library import Library

from conftest import CONTENT, plain_text, pt_to_mm, require_tool

SVG = "{http://www.w3.org/2000/svg}"
DPI = 300


@pytest.fixture(scope="module")
def sheets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("silhouette")
    library = Library.open(CONTENT)
    folders = {}
    for paper in ("a4", "letter"):
        result = build("growing-discard", BuildOptions(out_dir=out / paper, paper=paper, cutter="silhouette",
                                                       corner_mm=3.0), library)
        folders[paper] = result.folder
    return folders


def svg_outlines(path: Path) -> tuple[list[tuple[float, float, float, float, float]], float, float]:
    """The SVG's outlines as (x0, top, x1, bottom, corner radius) in mm from the top left, and the sheet's size."""
    root = ET.parse(path).getroot()
    width_mm, height_mm = (float(root.get(k).removesuffix("mm")) for k in ("width", "height"))
    view = [float(v) for v in root.get("viewBox").split()]
    unit = width_mm / view[2]
    shapes = [e for e in root.iter() if e.tag.removeprefix(SVG) not in ("svg", "g", "title")]
    assert all(e.tag == f"{SVG}rect" for e in shapes), "only card outlines, no other shape"
    assert all(e.get("fill") == "none" and e.get("stroke") for e in shapes), "no filled shape for the blade"
    outlines = [(float(e.get("x")) * unit, float(e.get("y")) * unit, (float(e.get("x")) + float(e.get("width"))) * unit,
                 (float(e.get("y")) + float(e.get("height"))) * unit, float(e.get("rx", 0)) * unit) for e in shapes]
    return outlines, width_mm, height_mm


Printed = tuple[tuple[tuple[float, ...], ...], tuple[tuple[float, ...], ...], float, float]


@lru_cache(maxsize=None)
def _printed(path: str, mtime_ns: int, page_number: int) -> Printed:
    with pdfplumber.open(path) as document:
        page = document.pages[page_number]
        black = tuple(tuple(pt_to_mm(v) for v in (r["x0"], r["top"], r["x1"], r["bottom"])) for r in page.rects
                      if r["fill"] and r["non_stroking_color"] in ((0,), [0], (0.0,), 0, [0.0]))
        outlines = tuple(tuple(pt_to_mm(v) for v in (c["x0"], c["top"], c["x1"], c["bottom"]))
                         for c in page.curves + page.rects if c["stroke"] and c["linewidth"] <= 0.3
                         and c["x1"] - c["x0"] > 100)
        return black, outlines, pt_to_mm(page.width), pt_to_mm(page.height)


def printed(pdf: Path, page_number: int = 0) -> Printed:
    """(filled black rectangles, thin stroked card outlines) on a page, in mm from the top left (x0, top, x1,
    bottom), and the page's size in mm (each page parsed once per file version)."""
    return _printed(str(pdf), pdf.stat().st_mtime_ns, page_number)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_cut_files_hold_the_card_outlines_alone_where_they_are_printed(sheets, paper):
    folder = sheets[paper]
    outlines, width, height = svg_outlines(folder / "growing-discard-cards-cut.svg")
    _, printed_outlines, page_width, page_height = printed(folder / "growing-discard-cards.pdf")
    assert (width, height) == (pytest.approx(page_width, abs=0.01), pytest.approx(page_height, abs=0.01))
    # six poker cards on A4 and on Letter (the clearance kept only in the marked corners; it was four)
    assert len(outlines) == len(printed_outlines) == 6
    for x0, top, x1, bottom, radius in outlines:
        assert radius == pytest.approx(3.0, abs=0.01)
        assert (x1 - x0, bottom - top) == (pytest.approx(63.5, abs=0.01), pytest.approx(88.9, abs=0.01))
        assert any(all(abs(a - b) <= 0.1 for a, b in zip((x0, top, x1, bottom), p)) for p in printed_outlines), \
            f"no printed cut line under the SVG outline at {x0:.2f}, {top:.2f} mm"
    # the DXF (read by ezdxf): the same outlines, closed, in mm with y up from the sheet's lower left
    document = ezdxf.readfile(folder / "growing-discard-cards-cut.dxf")
    lines = list(document.modelspace())
    assert {e.dxftype() for e in lines} == {"POLYLINE"} and len(lines) == 6
    boxes = []
    for polyline in lines:
        assert polyline.is_closed
        points = list(ezdxf.path.make_path(polyline).flattening(0.01))
        xs, ys = [p.x for p in points], [p.y for p in points]
        boxes.append((min(xs), height - max(ys), max(xs), height - min(ys)))
        # a rounded corner: the outline passes 3 mm·(1 - 1/√2) inside the box's corner
        corner = min(math.dist((min(xs), min(ys)), (p.x, p.y)) for p in points)
        assert corner == pytest.approx(3.0 * (math.sqrt(2) - 1), abs=0.05)
    for box in boxes:
        assert any(all(abs(a - b) <= 0.01 for a, b in zip(box, o[:4])) for o in outlines)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_registration_marks_are_studio_type_1_at_its_defaults_on_face_pages_only(sheets, paper):
    folder = sheets[paper]
    black, _, width, height = printed(folder / "growing-discard-cards.pdf")
    outlines, _, _ = svg_outlines(folder / "growing-discard-cards-cut.svg")
    marks = [r for r in black if not any(o[0] <= r[0] and r[2] <= o[2] and o[1] <= r[1] and r[3] <= o[3]
                                         for o in outlines)]

    def at(x0: float, top: float, x1: float, bottom: float) -> bool:
        return any(all(abs(a - b) <= 0.01 for a, b in zip((x0, top, x1, bottom), r)) for r in marks)
    assert len(marks) == 5
    assert at(10, 10, 15, 15), "the 5 mm square, its corner 10 mm from the top and left edges"
    assert at(width - 30, 10, width - 10, 10.5) and at(width - 10.5, 10, width - 10, 30), "the top-right L"
    assert at(10, height - 10.5, 30, height - 10) and at(10, height - 30, 10.5, height - 10), "the bottom-left L"
    back_black, _, _, _ = printed(folder / "growing-discard-cards.pdf", 1)
    assert not any(abs(r[2] - r[0] - 5) < 0.01 and abs(r[3] - r[1] - 5) < 0.01 for r in back_black)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_nothing_but_the_mark_is_printed_in_a_marked_corner_at_300_dpi(sheets, paper, tmp_path):
    pdf = sheets[paper] / "growing-discard-cards.pdf"
    black, _, width, height = printed(pdf)
    subprocess.run([require_tool("pdftoppm", package="poppler-utils"), "-r", str(DPI), "-png", "-f", "1", "-l",
                    "1", "-gray", str(pdf), str(tmp_path / "face")], check=True)
    picture = Image.open(next(tmp_path.glob("face*.png"))).convert("L")
    px = DPI / 25.4
    zone = 31.5  # inset 10 + length 20 + clearance 1.5 mm
    corners = {"top left": (0, 0), "top right": (width - zone, 0), "bottom left": (0, height - zone)}
    for name, (zx, zy) in corners.items():
        marks = [r for r in black if r[0] >= zx - 0.01 and r[2] <= zx + zone + 0.01 and r[1] >= zy - 0.01
                 and r[3] <= zy + zone + 0.01]
        assert marks, f"the {name} mark"
        stray = []
        for x in range(round(zx * px), round((zx + zone) * px)):
            for y in range(round(zy * px), min(round((zy + zone) * px), picture.height)):
                if x >= picture.width or picture.getpixel((x, y)) > 250:
                    continue
                mm_x, mm_y = (x + 0.5) / px, (y + 0.5) / px
                if not any(r[0] - 0.2 <= mm_x <= r[2] + 0.2 and r[1] - 0.2 <= mm_y <= r[3] + 0.2 for r in marks):
                    stray.append((round(mm_x, 1), round(mm_y, 1)))
        assert not stray, f"printed in the {name} corner's zone besides its mark: {stray[:5]} (mm from top left)"


def test_the_print_guide_gives_the_numbers_measured_from_the_sheet(sheets):
    folder = sheets["a4"]
    text = " ".join(plain_text(folder / "growing-discard-print-guide.pdf").split())
    black, _, width, height = printed(folder / "growing-discard-cards.pdf")
    outlines, _, _ = svg_outlines(folder / "growing-discard-cards-cut.svg")
    marks = [r for r in black if not any(o[0] <= r[0] and r[2] <= o[2] and o[1] <= r[1] and r[3] <= o[3]
                                         for o in outlines)]
    bars = [r for r in marks if abs((r[2] - r[0]) - (r[3] - r[1])) > 1]
    length = max(max(r[2] - r[0], r[3] - r[1]) for r in bars)
    thickness = min(min(r[2] - r[0], r[3] - r[1]) for r in bars)
    inset = min(r[0] for r in marks)

    def gap(a, b) -> float:
        dx = max(b[0] - a[2], a[0] - b[2], 0.0)
        dy = max(b[1] - a[3], a[1] - b[3], 0.0)
        return math.hypot(dx, dy)
    nearest = min(gap(m, o) for m in marks for o in outlines)
    said = (f"registration marks Type 1 with length {length:g} mm, thickness {thickness:g} mm and inset "
            f"{inset:g} mm")
    assert said.replace("20.0", "20") in text or f"length {round(length, 2):g} mm, thickness {round(thickness, 2):g} " \
        f"mm and inset {round(inset, 2):g} mm" in text, text
    assert f"the nearest card is {nearest:.1f} mm from a mark" in text
    assert "-cut.dxf" in text and "31.5 mm square" in text

"""--print-shop writes PDF/X-4 files a print-on-demand service takes as they are, checked from the files alone.

No PDF/X validator is available from the package registries kitgen uses (veraPDF checks PDF/A and is not a
Python or Debian package), so the checklist of ISO 15930-7 that matters for these files is tested here, one
requirement at a time: the output intent with its CMYK destination profile, GTS_PDFXVersion and Trapped in the
document information and the XMP, the dates agreeing, a version no newer than PDF 1.6, no encryption and an ID,
every font embedded, TrimBox ⊆ BleedBox ⊆ MediaBox on every page, no RGB colour anywhere (operators, colour
spaces, pictures) and no transparency group. Ghostscript (Debian package ghostscript) then separates the pages
into the four inks, and every neutral must print in black alone.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pypdf
import pytest
from PIL import Image

from kitgen.app.build import build, BuildOptions
from kitgen.load.library import Library

from kitgen.load import load_activity

from conftest import CONTENT, library_kit, pt_to_mm, require_tool

POKER = (63.5, 88.9)
EXACT = 0.01  # mm


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """growing-discard (three decks, three backs) for a print shop, with the 3 mm and the 1/8 in presets."""
    out = tmp_path_factory.mktemp("shop")
    library = Library.open(CONTENT)
    built = {}
    for name, options in (("3mm", BuildOptions(out_dir=out / "3mm", print_shop=True)),
                          ("eighth", BuildOptions(out_dir=out / "eighth", shop_bleed="eighth-inch"))):
        result = build("growing-discard", options, library)
        for file in result.files:
            built[f"{name}:{file.name.removeprefix('growing-discard-')}"] = result.folder / file.name
    return built


def streams(reader: pypdf.PdfReader) -> list[tuple[pypdf.generic.DictionaryObject, bytes]]:
    """Every page's content and every form XObject's, once, with the dictionary that holds it."""
    found: list[tuple[pypdf.generic.DictionaryObject, bytes]] = []
    seen: set[int] = set()

    def forms(resources) -> None:
        xobjects = resources.get_object().get("/XObject") if resources else None
        for ref in (xobjects.get_object().values() if xobjects else []):
            key = ref.idnum if hasattr(ref, "idnum") else id(ref)
            form = ref.get_object()
            if key in seen:
                continue
            seen.add(key)
            if form.get("/Subtype") == "/Form":
                found.append((form, form.get_data()))
                forms(form.get("/Resources"))
            else:
                found.append((form, b""))

    for page in reader.pages:
        found.append((page, page.get_contents().get_data()))
        forms(page.get("/Resources"))
    return found


def checklist(path: Path) -> list[str]:
    """What keeps the file from being PDF/X-4, one line each; empty for a conforming file."""
    data = path.read_bytes()
    reader = pypdf.PdfReader(path)
    problems = []
    version = re.match(rb"%PDF-(\d\.\d)", data)
    if not version or float(version.group(1)) > 1.6:
        problems.append(f"header {data[:8]!r}: PDF/X-4 is PDF 1.6 at most")
    if reader.is_encrypted:
        problems.append("encrypted")
    if "/ID" not in reader.trailer:
        problems.append("no file ID in the trailer")
    root = reader.trailer["/Root"]
    intents = root.get("/OutputIntents")
    gts = [i.get_object() for i in intents or [] if i.get_object().get("/S") == "/GTS_PDFX"]
    if len(gts) != 1:
        problems.append(f"expected one GTS_PDFX output intent, found {len(gts)}")
    else:
        intent = gts[0]
        if not intent.get("/OutputConditionIdentifier"):
            problems.append("output intent without OutputConditionIdentifier")
        profile = intent.get("/DestOutputProfile")
        if profile is None:
            problems.append("output intent without DestOutputProfile")
        else:
            icc = profile.get_object().get_data()
            if (icc[36:40] != b"acsp" or icc[16:20] != b"CMYK" or icc[12:16] != b"prtr"
                    or profile.get_object().get("/N") != 4 or int.from_bytes(icc[:4], "big") != len(icc)):
                problems.append("DestOutputProfile is not a whole CMYK output (prtr) ICC profile with N 4")
    info = reader.trailer["/Info"].get_object()
    if info.get("/GTS_PDFXVersion") != "PDF/X-4":
        problems.append(f"GTS_PDFXVersion {info.get('/GTS_PDFXVersion')!r}")
    if info.get("/Trapped") not in ("/True", "/False"):
        problems.append(f"Trapped {info.get('/Trapped')!r}: True or False")
    if not info.get("/Title") or not info.get("/CreationDate") or not info.get("/ModDate"):
        problems.append("Title, CreationDate and ModDate are required")
    metadata = root.get("/Metadata")
    xmp = metadata.get_object().get_data().decode() if metadata is not None else ""
    for needed in ("<pdfxid:GTS_PDFXVersion>PDF/X-4<", "<pdf:Trapped>False<", "<xmpMM:DocumentID>",
                   "<xmpMM:VersionID>", "<xmpMM:RenditionClass>", "<dc:title>", "<xmp:CreateDate>"):
        if needed not in xmp:
            problems.append(f"XMP metadata lacks {needed.strip('<>')}")
    stamp = re.search(r"<xmp:CreateDate>(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)", xmp)
    if stamp is None or not str(info.get("/CreationDate", "")).startswith("D:" + "".join(stamp.groups())):
        problems.append("the XMP and document information dates differ")
    producer = re.search(r"<pdf:Producer>(.*?)</pdf:Producer>", xmp)
    if producer is None or producer.group(1) != info.get("/Producer"):
        problems.append("the XMP and document information producers differ")
    for number, page in enumerate(reader.pages, start=1):
        media = [float(v) for v in page.mediabox]
        if "/TrimBox" not in page and "/ArtBox" not in page:
            problems.append(f"page {number}: no TrimBox")
            continue
        trim, bleed = [float(v) for v in page.trimbox], [float(v) for v in page.bleedbox]
        for inner, outer, what in ((trim, bleed, "TrimBox ⊆ BleedBox"), (bleed, media, "BleedBox ⊆ MediaBox")):
            if not (inner[0] >= outer[0] - 1e-6 and inner[1] >= outer[1] - 1e-6 and inner[2] <= outer[2] + 1e-6
                    and inner[3] <= outer[3] + 1e-6):
                problems.append(f"page {number}: not {what}")
        if "/Group" in page:
            problems.append(f"page {number}: a transparency group")
    for holder, content in streams(reader):
        if holder.get("/Subtype") == "/Image":
            if holder.get("/ColorSpace") not in ("/DeviceCMYK", "/DeviceGray"):
                problems.append(f"a picture in {holder.get('/ColorSpace')}")
            if "/SMask" in holder:
                problems.append("a picture with a soft mask")
            continue
        if "/Group" in holder:
            problems.append("a form with a transparency group")
        for operands, operator in _operations(content):
            if operator in (b"rg", b"RG"):
                problems.append(f"RGB colour operator {operator.decode()}")
            if operator in (b"cs", b"CS") and operands and operands[0] not in (b"/DeviceCMYK", b"/DeviceGray"):
                problems.append(f"colour space {operands[0]!r}")
        resources = holder.get("/Resources")
        states = resources.get_object().get("/ExtGState") if resources else None
        for state in (states.get_object().values() if states else []):
            blend = state.get_object().get("/BM")
            if blend not in (None, "/Normal", "/Compatible"):
                problems.append(f"blend mode {blend}")
    for page in reader.pages:
        for font in (page["/Resources"].get("/Font") or {}).values():
            font = font.get_object()
            descendants = font.get("/DescendantFonts")
            descriptor = (descendants[0].get_object() if descendants else font).get("/FontDescriptor")
            if descriptor is None or not any(k in descriptor.get_object() for k in
                                             ("/FontFile", "/FontFile2", "/FontFile3")):
                problems.append(f"font {font.get('/BaseFont')} not embedded")
    return problems


def _operations(content: bytes) -> list[tuple[list[bytes], bytes]]:
    """(operands, operator) of a content stream, for the colour operators (tokens are enough for them)."""
    content = re.sub(rb"\((?:\\.|[^\\)])*\)", b"()", content)  # the text of strings is no operator
    tokens = re.findall(rb"/[^\s/\[\]()<>]+|\(|\)|\[|\]|[^\s/\[\]()<>]+", content)
    operations, operands = [], []
    for token in tokens:
        if re.fullmatch(rb"[A-Za-z'\"*]+", token) and token not in (b"true", b"false", b"null"):
            operations.append((operands, token))
            operands = []
        else:
            operands.append(token)
    return operations


def test_print_shop_files_pass_the_pdfx4_checklist(shop):
    files = [path for key, path in shop.items() if key.endswith(("cards-fronts.pdf", "cards-backs.pdf"))]
    assert len(files) == 4
    for path in files:
        assert checklist(path) == [], path.name
        qpdf = subprocess.run([require_tool("qpdf", package="qpdf"), "--check", str(path)], capture_output=True,
                              text=True)
        assert qpdf.returncode == 0 and "No syntax or stream encoding errors" in qpdf.stdout, qpdf.stdout


def test_the_checklist_finds_what_a_plain_card_file_lacks():
    """The checklist can fail: the same kit without --print-shop has none of it."""
    plain = library_kit("growing-discard")
    problems = checklist(plain.folder / "growing-discard-cards.pdf")
    assert any("output intent" in p for p in problems) and any("GTS_PDFXVersion" in p for p in problems)
    assert any("TrimBox" in p or "Trapped" in p for p in problems) or len(problems) >= 3


@pytest.mark.parametrize("preset, bleed", [("3mm", 3.0), ("eighth", 25.4 / 8)])
def test_pages_are_the_card_and_its_bleed_fronts_apart_from_backs(shop, preset, bleed):
    fronts = pypdf.PdfReader(shop[f"{preset}:cards-fronts.pdf"])
    backs = pypdf.PdfReader(shop[f"{preset}:cards-backs.pdf"])
    assert len(fronts.pages) == 40  # every card once
    assert len(backs.pages) == 3  # Player 1's, Player 2's and the supply's back, each once
    for page in [*fronts.pages, *backs.pages]:
        width, height = (pt_to_mm(float(v)) for v in page.mediabox[2:])
        assert width == pytest.approx(POKER[0] + 2 * bleed, abs=EXACT)
        assert height == pytest.approx(POKER[1] + 2 * bleed, abs=EXACT)
        x0, y0, x1, y1 = (pt_to_mm(float(v)) for v in page.trimbox)
        assert (x0, y0) == (pytest.approx(bleed, abs=EXACT), pytest.approx(bleed, abs=EXACT))
        assert (x1 - x0, y1 - y0) == (pytest.approx(POKER[0], abs=EXACT), pytest.approx(POKER[1], abs=EXACT))
        assert [float(v) for v in page.bleedbox] == pytest.approx([float(v) for v in page.mediabox])
    if preset == "eighth":  # what US services ask for poker cards: 69.85 × 95.25 mm
        width, height = (pt_to_mm(float(v)) for v in fronts.pages[0].mediabox[2:])
        assert (round(width, 2), round(height, 2)) == (69.85, 95.25)
    # the backs file's pages are three different backs: their texts differ
    texts = [page.extract_text() for page in backs.pages]
    assert len(set(texts)) == 3


def _numbers(text: str) -> list[str]:
    return re.findall(r"\d+(?:\.\d+)?", text)


@pytest.mark.parametrize("preset", ["3mm", "eighth"])
def test_the_print_guide_describes_these_files_with_numbers_measured_from_them(shop, preset):
    guide = " ".join(pypdf.PdfReader(shop[f"{preset}:print-guide.pdf"]).pages[0].extract_text().split())
    for kind in ("fronts", "backs"):
        reader = pypdf.PdfReader(shop[f"{preset}:cards-{kind}.pdf"])
        page = reader.pages[0]
        width, height = (pt_to_mm(float(v)) for v in page.mediabox[2:])
        x0, y0, x1, y1 = (pt_to_mm(float(v)) for v in page.trimbox)

        def shown(value: float) -> str:
            return f"{value:.3f}".rstrip("0").rstrip(".")
        said = (f"growing-discard-cards-{kind}.pdf: {len(reader.pages)} pages, each {shown(width)} × "
                f"{shown(height)} mm: a card of {shown(x1 - x0)} × {shown(y1 - y0)} mm (the page's trim box) with "
                f"{shown(x0)} mm of bleed")
        assert said in guide, (said, guide)
    assert "PDF/X-4" in guide and "FOGRA39" in guide
    assert "100 mm" not in guide and "ruler at the bottom" not in guide and "crop marks in the margin" not in guide
    # each back's count and fronts, as the backs file and the fronts file hold them
    fronts = pypdf.PdfReader(shop[f"{preset}:cards-fronts.pdf"])
    backs = pypdf.PdfReader(shop[f"{preset}:cards-backs.pdf"])
    activity = load_activity(CONTENT / "growing-discard.yaml").activity
    at = 1
    for number, (page, deck) in enumerate(zip(backs.pages, activity.decks), start=1):
        assert deck.back.title in " ".join(page.extract_text().split())  # the back page is that deck's back
        count, deck = deck.total, deck.name
        said = f"page {number}, {deck}, behind {count} cards (fronts {at}–{at + count - 1})"
        assert said in guide, (said, guide)
        at += count
    assert at - 1 == len(fronts.pages)


def test_neutrals_print_in_black_ink_alone_after_ghostscript_separates_the_inks(shop, tmp_path):
    gs = require_tool("gs", package="ghostscript")
    path = shop["3mm:cards-fronts.pdf"]
    subprocess.run([gs, "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=tiffsep", "-r150", "-dFirstPage=1",
                    "-dLastPage=1", f"-sOutputFile={tmp_path}/p.tif", str(path)], check=True, capture_output=True)
    inks = {name: Image.open(tmp_path / f"p({name}).tif").convert("L") for name in
            ("Cyan", "Magenta", "Yellow", "Black")}  # 255: no ink
    width, height = inks["Black"].size
    per_mm = 150 / 25.4
    # the card frame (a grey line 2 mm inside the cut, 3 mm of bleed round the card) down the left side, and
    # the rule under the title: every pixel with ink there has black ink alone
    frame_x = round((3 + 2) * per_mm)
    column = [(x, y) for x in range(frame_x - 3, frame_x + 4) for y in range(height // 3, 2 * height // 3)]
    inked = [(x, y) for x, y in column if inks["Black"].getpixel((x, y)) < 200]
    assert len(inked) > 50, "the frame is found in the black separation"
    for name in ("Cyan", "Magenta", "Yellow"):
        assert all(inks[name].getpixel(p) == 255 for p in inked), f"{name} ink in the grey frame"
    # and the text (black) of the whole page: wherever black is at its darkest, no other ink
    darkest = [(x, y) for x in range(0, width, 2) for y in range(0, height, 2) if inks["Black"].getpixel((x, y)) < 30]
    assert darkest and all(all(inks[n].getpixel(p) == 255 for n in ("Cyan", "Magenta", "Yellow")) for p in darkest)


def test_a_picture_in_a_print_shop_file_is_cmyk_over_white(tmp_path):
    """A card's PNG (RGB with transparency) becomes a CMYK picture over white: no RGB, no soft mask."""
    import io

    from kitgen.core.display import Document, Image as Picture, Page
    from kitgen.export.pdf import write_pdf

    png = io.BytesIO()
    Image.new("RGBA", (20, 10), (200, 30, 30, 128)).save(png, "PNG")
    page = Page(100, 100, [Picture(10, 10, 50, 25, png.getvalue())], {"trim": (5, 5, 95, 95),
                                                                        "bleed": (0, 0, 100, 100)})
    path = tmp_path / "picture.pdf"
    path.write_bytes(write_pdf(Document("a picture", [page], pdfx=True), keep=False))
    assert checklist(path) == []
    [picture] = [x.get_object() for x in pypdf.PdfReader(path).pages[0]["/Resources"]["/XObject"].values()]
    assert picture["/ColorSpace"] == "/DeviceCMYK"
    subprocess.run([require_tool("pdftoppm", package="poppler-utils"), "-r", "72", "-png", str(path),
                    str(tmp_path / "p")], check=True)
    red, green, blue = Image.open(next(tmp_path.glob("p*.png"))).convert("RGB").getpixel((30, 70))
    assert red > 200 and 90 < green < 140 and 90 < blue < 150  # half-transparent red over white: a light red


def test_every_print_shop_file_of_other_kits_passes_the_checklist(tmp_path):
    """Four decks of 200 cards with their own backs, and an optional deck beside slips a teacher prints."""
    library = Library.open(CONTENT)
    checked = 0
    for activity in ("junkyard-robots", "needle-in-a-card-stack"):
        result = build(activity, BuildOptions(out_dir=tmp_path, print_shop=True), library)
        for file in result.files:
            if file.name.endswith(("-fronts.pdf", "-backs.pdf")):
                assert checklist(result.folder / file.name) == [], file.name
                checked += 1
        guide = " ".join(pypdf.PdfReader(result.folder / next(
            f.name for f in result.files if f.role == "print-guide")).pages[0].extract_text().split())
        for file in result.files:  # the slips are not the shop's: the guide says plain paper for them
            if file.role == "slips":
                assert f"{file.name} Plain paper" in guide
    assert checked == 4
    backs = pypdf.PdfReader(tmp_path / "junkyard-robots" / "junkyard-robots-cards-backs.pdf")
    assert len(backs.pages) == 4  # one back for each of the four piles


def test_the_library_index_asks_for_actual_size_like_every_other_file(tmp_path):
    import shutil

    import forked
    from conftest import kitgen_env

    shutil.copytree(CONTENT, tmp_path / "content")
    run = forked.run(["build", "--all"], cwd=tmp_path,
                     env=kitgen_env(tmp_path), timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    index = pypdf.PdfReader(tmp_path / "output" / "index.pdf")
    assert index.trailer["/Root"]["/ViewerPreferences"]["/PrintScaling"] == "/None"
    assert float(index.pdf_header.removeprefix("%PDF-")) >= 1.6

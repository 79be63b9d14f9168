"""Open the PDFs kitgen wrote for growing-discard (A4 and Letter) and measure them.

Expected values come from the paper/card standards (A4, Letter, poker = 63.5 × 88.9 mm) and from the
YAML; positions come from the PDFs themselves: card cells are the form XObjects placed on each page
(parsed from the content stream with pypdf), texts and lines come from pdfplumber.
"""
from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from pathlib import Path

import pytest

from conftest import (ACTIVITY, CONTENT, MM_PER_PT, Box, PageFacts, file_of, page_facts, pdf_files,
                      pdf_reader, pdf_text, pt_to_mm)
from kitgen.app.build import build, BuildOptions
from kitgen.check.content import check_activity
from kitgen.load.library import Library

POKER_MM = (63.5, 88.9)
PAGE_PT = {"a4": (595.276, 841.890), "letter": (612.0, 792.0)}
TOL_MM = 0.1
TOL_PT = TOL_MM / MM_PER_PT
HAIRLINE = 0.3  # crop marks are the only strokes this thin (card art and the ruler are heavier)
SUBSET = re.compile(r"^/?[A-Z]{6}\+")
ROLES = ("cards", "sheets", "host-key", "print-guide")


def normalise(text: str) -> str:
    return " ".join(text.split())


# --------------------------------------------------------------------------- reading the card pages


def card_titles(loaded) -> dict[str, set[str]]:
    """Card title printed on a face → the back titles of the decks that hold such a card."""
    titles: dict[str, set[str]] = {}
    for deck in loaded.activity.decks:
        for card in deck.cards:
            titles.setdefault(card.title, set()).add(deck.back.title)
    return titles


def back_titles(loaded) -> set[str]:
    return {deck.back.title for deck in loaded.activity.decks}


def contains_phrase(text: str, phrase: str) -> bool:
    return f" {phrase} " in f" {text} "


def sides(page: PageFacts, loaded) -> list[tuple[Box, str, str]]:
    """(cell, 'face' or 'back', title) for every card placed on the page, identified by its own text."""
    result = []
    for placement in page.placements:
        text = page.text_in(placement.box)
        faces = [t for t in card_titles(loaded) if contains_phrase(text, t)]
        backs = [t for t in back_titles(loaded) if contains_phrase(text, t)]
        assert len(faces) + len(backs) == 1, (
            f"page {page.index + 1}: card at {placement.box} reads {text!r}; "
            f"cannot tell which card face or back it is (faces {faces}, backs {backs})")
        result.append((placement.box, "face", faces[0]) if faces else (placement.box, "back", backs[0]))
    return result


def page_side(page: PageFacts, loaded) -> str:
    found = {side for _, side, _ in sides(page, loaded)}
    assert len(found) == 1, f"page {page.index + 1} mixes faces and backs: {found}"
    return found.pop()


def crop_marks(page: PageFacts) -> list[dict]:
    """Short hairlines (on Letter the vertical cuts are hairlines the cards' height long instead: not marks)."""
    return [line for line in page.lines if line["linewidth"] <= HAIRLINE
            and max(abs(line["x1"] - line["x0"]), abs(line["y1"] - line["y0"])) < 5 / 25.4 * 72]


def distinct(values: list[float], tolerance: float) -> list[float]:
    out: list[float] = []
    for value in sorted(values):
        if not out or value - out[-1] > tolerance:
            out.append(value)
    return out


def mark_box_distance(mark: dict, box: Box) -> float:
    """Gap between the painted stroke of an axis-aligned mark and a card rectangle, in points."""
    half = mark["linewidth"] / 2
    x0, x1 = sorted((mark["x0"], mark["x1"]))
    y0, y1 = sorted((mark["y0"], mark["y1"]))
    x0, x1, y0, y1 = x0 - half, x1 + half, y0 - half, y1 + half
    dx = max(box.x0 - x1, x0 - box.x1, 0.0)
    dy = max(box.y0 - y1, y0 - box.y1, 0.0)
    return math.hypot(dx, dy)


def total_cards(loaded) -> int:
    return sum(card.count for deck in loaded.activity.decks for card in deck.cards)


@pytest.fixture(scope="module")
def card_pages_of():
    def pages(kit) -> tuple[PageFacts, ...]:
        return page_facts(file_of(kit, "cards"))
    return pages


# --------------------------------------------------------------------------- page boxes


def test_every_page_is_exactly_the_paper_size(kit, paper):
    want_w, want_h = PAGE_PT[paper]
    for path in pdf_files(kit):
        reader = pdf_reader(path)
        assert len(reader.pages) > 0
        for number, page in enumerate(reader.pages, 1):
            where = f"{path.name} page {number}"
            box = page.mediabox
            assert float(box.left) == pytest.approx(0, abs=0.01), where
            assert float(box.bottom) == pytest.approx(0, abs=0.01), where
            assert float(box.width) == pytest.approx(want_w, abs=0.01), where
            assert float(box.height) == pytest.approx(want_h, abs=0.01), where
            crop = page.cropbox
            assert [float(v) for v in crop] == pytest.approx([float(v) for v in box], abs=0.01), where
            assert int(page.get("/Rotate", 0)) % 360 == 0, where


def test_reported_page_counts_match_the_files(kit):
    assert {f.role for f in kit.files} >= set(ROLES)
    for output in kit.files:
        assert len(pdf_reader(output.path).pages) == output.pages, output.path.name


# --------------------------------------------------------------------------- cards: faces, backs, counts


def test_cards_file_alternates_face_and_back_pages(kit, loaded, card_pages_of):
    pages = card_pages_of(kit)
    kinds = [page_side(page, loaded) for page in pages]
    assert kinds == ["face", "back"] * (len(pages) // 2), kinds
    per_sheet = len(pages[0].placements)
    sheets = math.ceil(total_cards(loaded) / per_sheet)
    assert len(pages) == 2 * sheets
    for face, back in zip(pages[0::2], pages[1::2]):
        assert len(back.placements) == len(face.placements)
    # all sheets but the last are full
    assert all(len(p.placements) == per_sheet for p in pages[:-2])


def test_sheet_fits_the_expected_grid(kit, paper, card_pages_of):
    # 3 × 3 poker cards on A4 and on Letter (see test_geometry for the arithmetic)
    first = card_pages_of(kit)[0]
    columns = distinct([p.box.x0 for p in first.placements], TOL_PT)
    rows = distinct([p.box.y0 for p in first.placements], TOL_PT)
    assert (len(columns), len(rows)) == {"a4": (3, 3), "letter": (3, 3)}[paper]


def test_forty_card_faces_in_the_counts_the_yaml_asks_for(kit, loaded, card_pages_of):
    expected: Counter[str] = Counter()
    for deck in loaded.activity.decks:
        for card in deck.cards:
            expected[card.title] += card.count
    printed: Counter[str] = Counter()
    for page in card_pages_of(kit):
        for _, side, title in sides(page, loaded):
            if side == "face":
                printed[title] += 1
    assert printed == expected
    assert sum(printed.values()) == total_cards(loaded) == 40


def test_title_words_on_face_pages_count_forty_cards(kit, loaded, card_pages_of):
    """A second, placement-free count: the card titles as words in the extracted text of face pages."""
    titles = set(card_titles(loaded))
    assert all(" " not in t for t in titles)
    count = 0
    for page in card_pages_of(kit):
        if page_side(page, loaded) == "face":
            count += sum(1 for w in page.words if w["text"] in titles)
    assert count == total_cards(loaded)


def test_every_deck_back_is_printed_once_per_card(kit, loaded, card_pages_of):
    expected = Counter({deck.back.title: deck.total for deck in loaded.activity.decks})
    printed = Counter(title for page in card_pages_of(kit)
                      for _, side, title in sides(page, loaded) if side == "back")
    assert printed == expected


def test_every_card_is_poker_size(kit, loaded, card_pages_of):
    assert loaded.activity.card_size == "poker"
    widths, heights = set(), set()
    for page in card_pages_of(kit):
        assert page.placements
        for placement in page.placements:
            width, height = pt_to_mm(placement.box.width), pt_to_mm(placement.box.height)
            widths.add(round(width, 3))
            heights.add(round(height, 3))
            assert width == pytest.approx(POKER_MM[0], abs=TOL_MM)
            assert height == pytest.approx(POKER_MM[1], abs=TOL_MM)
    print(f"measured card sizes (mm): widths {sorted(widths)}, heights {sorted(heights)}")


def test_card_grid_is_centred_and_inside_five_mm(kit, card_pages_of):
    for page in card_pages_of(kit):
        boxes = [p.box for p in page.placements]
        for box in boxes:
            assert pt_to_mm(box.x0) >= 5 - TOL_MM and pt_to_mm(box.y0) >= 5 - TOL_MM
            assert pt_to_mm(page.width - box.x1) >= 5 - TOL_MM
            assert pt_to_mm(page.height - box.y1) >= 5 - TOL_MM
    first = card_pages_of(kit)[0]
    left = min(p.box.x0 for p in first.placements)
    right = first.width - max(p.box.x1 for p in first.placements)
    assert pt_to_mm(left) == pytest.approx(pt_to_mm(right), abs=TOL_MM)


def test_backs_sit_exactly_behind_their_faces(kit, loaded, card_pages_of):
    """Flip each sheet about its long edge: every back lands on its face, and belongs to its deck."""
    pages = card_pages_of(kit)
    titles = card_titles(loaded)
    for face_page, back_page in zip(pages[0::2], pages[1::2]):
        backs = sides(back_page, loaded)
        for face_box, _, face_title in sides(face_page, loaded):
            behind = face_box.mirrored(face_page.width)
            matches = [(box, title) for box, _, title in backs
                       if all(abs(a - b) <= TOL_PT for a, b in
                              zip((box.x0, box.y0, box.x1, box.y1), (behind.x0, behind.y0, behind.x1, behind.y1)))]
            assert len(matches) == 1, f"no back behind the {face_title} face at {face_box} (page {face_page.index + 1})"
            assert matches[0][1] in titles[face_title], (
                f"{face_title} face has the {matches[0][1]!r} back, expected one of {titles[face_title]}")


def test_last_partly_filled_sheet_has_backs_in_mirrored_columns(kit, loaded, card_pages_of):
    pages = card_pages_of(kit)
    full = pages[0]
    per_sheet = len(full.placements)
    column_lefts = distinct([p.box.x0 for p in full.placements], TOL_PT)
    row_tops = distinct([-p.box.y1 for p in full.placements], TOL_PT)  # top row first
    columns = len(column_lefts)

    def cell_of(x: float, y: float) -> tuple[int, int]:
        column = [i for i, left in enumerate(column_lefts)
                  if left <= x <= left + (full.placements[0].box.width)]
        row = [i for i, top in enumerate(row_tops) if -top - full.placements[0].box.height <= y <= -top]
        assert len(column) == 1 and len(row) == 1, f"({x:.1f}, {y:.1f}) is in no single card cell"
        return column[0], row[0]

    last_face, last_back = pages[-2], pages[-1]
    remainder = total_cards(loaded) - (len(pages) // 2 - 1) * per_sheet
    assert 0 < remainder < per_sheet, "the last sheet should be partly filled for this test to mean anything"
    assert len(last_face.placements) == remainder

    last_deck = loaded.activity.decks[-1]
    face_words = {card.title for card in last_deck.cards}
    back_word = last_deck.back.title
    assert " " not in back_word
    faces = sorted(cell_of((w["x0"] + w["x1"]) / 2, (w["y0"] + w["y1"]) / 2)
                   for w in last_face.words if w["text"] in face_words)
    backs = sorted(cell_of((w["x0"] + w["x1"]) / 2, (w["y0"] + w["y1"]) / 2)
                   for w in last_back.words if w["text"] == back_word)
    assert len(faces) == len(backs) == remainder
    mirrored = sorted((columns - 1 - c, r) for c, r in faces)
    assert backs == mirrored
    assert backs != faces  # a partly filled row makes the mirroring visible
    print(f"last sheet: faces in (column, row) {faces}, {back_word!r} backs in {backs}")


# --------------------------------------------------------------------------- crop marks


def test_crop_marks_are_whole_card_sizes_apart(kit, card_pages_of):
    pages = card_pages_of(kit)
    first = pages[0]
    card_xs = distinct([v for p in first.placements for v in (p.box.x0, p.box.x1)], TOL_PT)
    card_ys = distinct([v for p in first.placements for v in (p.box.y0, p.box.y1)], TOL_PT)
    for page in pages:
        marks = crop_marks(page)
        vertical = [m for m in marks if abs(m["x0"] - m["x1"]) < 0.01]
        horizontal = [m for m in marks if abs(m["y0"] - m["y1"]) < 0.01]
        assert len(vertical) + len(horizontal) == len(marks), "a crop mark is neither vertical nor horizontal"
        for positions, along, cuts in (([m["x0"] for m in vertical], POKER_MM[0], card_xs),
                                       ([m["y0"] for m in horizontal], POKER_MM[1], card_ys)):
            if not positions and cuts is card_xs and kit.files[0].path.name and page.width == 612:
                continue  # Letter: no room above and below, the vertical cuts are hairlines (test_printing)
            lines = distinct(positions, TOL_PT)
            assert len(lines) >= 2
            for a, b in itertools.combinations(lines, 2):
                apart = pt_to_mm(b - a)
                k = round(apart / along)
                assert k >= 1 and apart == pytest.approx(k * along, abs=TOL_MM), (
                    f"page {page.index + 1}: marks {apart:.3f} mm apart, not a multiple of {along} mm")
            steps = [pt_to_mm(b - a) for a, b in zip(lines, lines[1:])]
            assert steps == pytest.approx([along] * len(steps), abs=TOL_MM)
            # the marks continue the cut lines of the full grid, on every page (also partly filled ones)
            assert lines == pytest.approx(cuts, abs=TOL_PT)
            # a mark at both ends of every cut line
            assert len(positions) == 2 * len(lines)


def test_crop_marks_never_touch_a_card_and_keep_off_the_page_edges(kit, card_pages_of):
    pages = card_pages_of(kit)
    full_grid = [p.box for p in pages[0].placements]
    closest = math.inf
    for page in pages:
        marks = crop_marks(page)
        assert marks, f"page {page.index + 1} has no crop marks"
        for mark in marks:
            for box in full_grid + [p.box for p in page.placements]:
                gap = mark_box_distance(mark, box)
                closest = min(closest, gap)
                assert gap > 0, f"page {page.index + 1}: crop mark {mark['pts']} touches the card at {box}"
            for x in (mark["x0"], mark["x1"]):
                assert pt_to_mm(min(x, page.width - x)) >= 5 - TOL_MM
            for y in (mark["y0"], mark["y1"]):
                assert pt_to_mm(min(y, page.height - y)) >= 5 - TOL_MM
    print(f"closest crop mark to a card: {pt_to_mm(closest):.3f} mm")


# --------------------------------------------------------------------------- calibration


def test_calibration_ruler_on_every_card_page(kit, paper, card_pages_of):
    for page in card_pages_of(kit):
        assert "100 mm" in " ".join(page.text.split()), f"page {page.index + 1} has no '100 mm' label"
        if paper == "letter":  # the side layout: the 100 mm ruler up the left margin, the 4 in one down the right
            leftmost, rightmost = min(p.box.x0 for p in page.placements), max(p.box.x1 for p in page.placements)
            heavy = [ln for ln in page.lines if ln["linewidth"] > HAIRLINE and abs(ln["y0"] - ln["y1"]) < 0.01]
            up = [ln["y0"] for ln in heavy if ln["x1"] < leftmost]
            down = [ln["y0"] for ln in heavy if ln["x0"] > rightmost]
            assert pt_to_mm(max(up) - min(up)) == pytest.approx(100, abs=TOL_MM)
            assert (max(down) - min(down)) / 72 == pytest.approx(4, abs=TOL_MM / 25.4)
            assert "4 in" in " ".join(page.text.split())
            continue
        lowest_card = min(p.box.y0 for p in page.placements)
        ruler = [ln for ln in page.lines if ln["linewidth"] > HAIRLINE and max(ln["y0"], ln["y1"]) < lowest_card]
        baseline = max((ln for ln in ruler if abs(ln["y0"] - ln["y1"]) < 0.01), key=lambda ln: ln["x1"] - ln["x0"])
        y = baseline["y0"]
        ticks = [ln for ln in ruler if abs(ln["x0"] - ln["x1"]) < 0.01]
        up = [ln["x0"] for ln in ticks if abs(min(ln["y0"], ln["y1"]) - y) < 0.01 and max(ln["y0"], ln["y1"]) > y]
        assert pt_to_mm(max(up) - min(up)) == pytest.approx(100, abs=TOL_MM)
        if paper == "letter":
            assert "4 in" in page.text
            down = [ln["x0"] for ln in ticks if abs(max(ln["y0"], ln["y1"]) - y) < 0.01 and min(ln["y0"], ln["y1"]) < y]
            assert (max(down) - min(down)) / 72 == pytest.approx(4, abs=TOL_MM / 25.4)


# --------------------------------------------------------------------------- PDF metadata and fonts


def test_cards_pdf_asks_for_actual_size_and_long_edge_duplex(kit):
    root = pdf_reader(file_of(kit, "cards")).trailer["/Root"].get_object()
    prefs = root["/ViewerPreferences"].get_object()
    assert prefs.get("/PrintScaling") == "/None"
    assert prefs.get("/Duplex") == "/DuplexFlipLongEdge"


def _fonts(resources, seen: set[int]):
    """Every font dictionary reachable from a resource dictionary, including inside form XObjects."""
    if resources is None:
        return
    resources = resources.get_object()
    for font in (resources.get("/Font") or {}).values():
        yield font.get_object()
    for xobject in (resources.get("/XObject") or {}).values():
        ref = getattr(xobject, "idnum", None)
        xobject = xobject.get_object()
        if xobject.get("/Subtype") == "/Form" and ref not in seen:
            seen.add(ref)
            yield from _fonts(xobject.get("/Resources"), seen)


def font_problems(path: Path) -> list[str]:
    problems = []
    seen: set[int] = set()
    for page in pdf_reader(path).pages:
        for font in _fonts(page.get("/Resources"), seen):
            name = str(font.get("/BaseFont"))
            descriptor = font.get("/FontDescriptor")
            if descriptor is None and "/DescendantFonts" in font:
                descriptor = font["/DescendantFonts"][0].get_object().get("/FontDescriptor")
            descriptor = descriptor.get_object() if descriptor is not None else {}
            if not SUBSET.match(name):
                problems.append(f"{name}: not a subset (no ABCDEF+ prefix)")
            if "/FontFile2" not in descriptor:
                problems.append(f"{name}: not embedded (no /FontFile2)")
    return sorted(set(problems))


@pytest.mark.parametrize("role", ROLES)
def test_every_font_resource_is_an_embedded_subset(kit, role):
    assert font_problems(file_of(kit, role)) == []


@pytest.mark.parametrize("role", ROLES)
def test_every_drawn_glyph_uses_an_embedded_subset_font(kit, role):
    path = file_of(kit, role)
    embedded = {str(f.get("/BaseFont")).lstrip("/") for page in pdf_reader(path).pages
                for f in _fonts(page.get("/Resources"), set())
                if "/FontFile2" in (f.get("/FontDescriptor") or {})}
    used = Counter(char["fontname"] for page in page_facts(path) for char in page.chars)
    assert used, f"{path.name} draws no text"
    bad = {name: n for name, n in used.items() if not SUBSET.match(name) or name not in embedded}
    assert bad == {}, f"{path.name}: glyphs in fonts that are not embedded subsets: {bad}"
    assert "(cid:" not in pdf_text(path), "some glyphs cannot be extracted as text"


def test_text_is_extractable(kit, loaded):
    title = normalise(loaded.activity.title)
    assert title == "Growing discard deck"
    for path in pdf_files(kit):
        assert title in pdf_text(path), path.name
    # text drawn inside the card form XObjects, read card by card (a page's text runs across cards)
    on_cards = [normalise(page.text_in(p.box)) for page in page_facts(file_of(kit, "cards"))
                for p in page.placements]
    expected: Counter[str] = Counter()
    for deck in loaded.activity.decks:
        for card in deck.cards:
            if card.text and "{{" not in card.text:
                expected[normalise(card.text)] += card.count
    assert len(expected) >= 3
    for text, count in expected.items():
        copies = sum(text in on_card for on_card in on_cards)
        assert copies == count, f"{text!r} extracted from {copies} cards, expected {count}"


# --------------------------------------------------------------------------- host key


def host_texts(loaded) -> list[str]:
    """The host key's sentences as printed (placeholders filled from the card data)."""
    key = check_activity(loaded).shown.host_key
    texts = list(key.intro)
    for section in key.sections:
        texts += [section.title, *section.paragraphs, *section.items]
    texts += [example.note for example in key.examples if example.note]
    return [normalise(t) for t in texts]


def test_host_key_text_only_in_the_host_key(kit, loaded):
    secrets = host_texts(loaded)
    assert len(secrets) >= 9
    key_text = pdf_text(file_of(kit, "host-key"))
    others = [p for p in pdf_files(kit) if p != file_of(kit, "host-key")]
    assert len(others) >= 3
    for secret in secrets:
        assert secret in key_text, f"host key misses {secret!r}"
        for path in others:
            assert secret not in pdf_text(path), f"{path.name} prints host-key text {secret!r}"
    for output in kit.files:
        assert output.for_players == (output.role != "host-key")


# --------------------------------------------------------------------------- record sheets


def test_one_record_sheet_per_player(kit, loaded):
    activity = loaded.activity
    (sheet,) = activity.record_sheets
    players = activity.players.max
    headings = [column.heading for column in sheet.columns]
    # six turns, then a Total row whose last column holds the final star count
    assert len(headings) == 5 and headings[-1] == "Stars bought" and sheet.total_row
    assert players == 2 and sheet.rows == 6
    pages = page_facts(file_of(kit, "sheets"), tables=True)
    found = []
    for page in pages:
        for table in page.tables:
            if [normalise(c or "") for c in table[0]] == headings:
                found.append((page, table))
    assert len(found) == players
    for player, (page, table) in enumerate(found, 1):
        assert f"{sheet.title} · Player {player}" in normalise(page.text)
        body = table[1:]
        assert [normalise(row[0] or "") for row in body] == [str(n) for n in range(1, sheet.rows + 1)] + ["Total"]
        assert all(normalise(cell or "") == "" for row in body for cell in row[1:])
        assert all(len(row) == len(headings) for row in table)
        # the numbers run top to bottom down the first column
        numbers = [w for w in page.words if re.fullmatch(r"[1-9]", w["text"])
                   and w["x0"] < min(x["x0"] for x in page.words if x["text"] == headings[1].split()[0])]
        tops = [w["top"] for w in sorted(numbers, key=lambda w: int(w["text"]))]
        assert tops == sorted(tops) and len(tops) == sheet.rows


# --------------------------------------------------------------------------- determinism


def test_building_twice_gives_byte_identical_files(a4_kit, tmp_path):
    again = build(ACTIVITY, BuildOptions(paper="a4", out_dir=tmp_path), Library.open(CONTENT))
    first = {p.name: p.read_bytes() for p in sorted(a4_kit.folder.iterdir()) if p.is_file()}
    second = {p.name: p.read_bytes() for p in sorted(again.folder.iterdir()) if p.is_file()}
    assert set(first) == set(second)
    assert len(first) >= 5  # four PDFs and the manifest
    for name in first:
        assert first[name] == second[name], f"{name} differs between two builds"

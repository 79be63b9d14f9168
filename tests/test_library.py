"""The four kits of the real content/ library, built once and measured from the PDFs kitgen wrote.

Expected values come from the YAML (read with PyYAML or through the loaded model), from the gettext
catalogs and from the poker-card standard; what is measured comes from the PDFs:

* card sides: every form XObject a card page paints (its placement parsed from the content stream with
  pypdf) and the text of that form (pypdf's text extraction of the form alone), so each printed card
  is read by itself;
* mats and slips: strokes, curves and words from pdfplumber, the clip window from the page stream;
* documents: pypdf's / pdfplumber's text of every page.
"""
from __future__ import annotations

import re
import shutil
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from pathlib import Path

import jinja2
import pdfplumber
import pypdf
import pytest
from babel.messages.pofile import read_po
from click.testing import CliRunner
from pypdf.generic import ContentStream, DecodedStreamObject, NameObject

from conftest import (library_kit, CONTENT, MM_PER_PT, REPO, Box, form_placements, page_facts, plain_text, pt_to_mm,
                      yaml_data)
from kitgen.check.content import check_activity
from kitgen.app.build import BuildResult
from kitgen.cli import main
from kitgen.load.library import Library
from kitgen.load import load_activity, LoadedActivity
from kitgen.plan.tiling import OVERLAP

TOL_MM = 0.1
TOL_PT = TOL_MM / MM_PER_PT
POKER_MM = (63.5, 88.9)
A4_PT = (595.276, 841.890)
LOCALE = REPO / "kitgen" / "locale"

# edition key (the output folder name) → (activity id, language of the edition)
EDITIONS = {
    "growing-discard": ("growing-discard", "en"),
    "trash-ro": ("trash", "ro"),
    "trash-en": ("trash", "en"),
    "needle-in-a-card-stack": ("needle-in-a-card-stack", "en"),
    "junkyard-robots": ("junkyard-robots", "en"),
}
ACTIVITY_IDS = ("growing-discard", "trash", "needle-in-a-card-stack", "junkyard-robots")


def normalise(text: str) -> str:
    return " ".join(text.split())


# --------------------------------------------------------------------------- builds and sources


@pytest.fixture(scope="session")
def library_kits() -> dict[str, BuildResult]:
    """Every edition of every activity in content/ (the builds the whole test run shares), by output folder."""
    kits = {key: library_kit(activity_id, "a4", language) for key, (activity_id, language) in EDITIONS.items()}
    assert {result.folder.name for result in kits.values()} == set(EDITIONS)
    return kits


@pytest.fixture(scope="session", params=list(EDITIONS))
def edition(request: pytest.FixtureRequest) -> str:
    return request.param


def source_file(activity_id: str) -> Path:
    return Library.open(CONTENT).find(activity_id)


@lru_cache(maxsize=None)
def raw_yaml(activity_id: str) -> dict:
    """The activity file as plain data (PyYAML), independent of kitgen's loader."""
    data: dict = yaml_data(source_file(activity_id).read_text(encoding="utf-8"))
    return data


@lru_cache(maxsize=None)
def model_of(key: str) -> LoadedActivity:
    activity_id, language = EDITIONS[key]
    return load_activity(source_file(activity_id), language)


@lru_cache(maxsize=None)
def catalog(language: str):
    """gettext(msgid) → the edition's string, read straight from the .po file with Babel."""
    if language == "en":
        return lambda msgid: msgid
    with (LOCALE / language / "LC_MESSAGES" / "kitgen.po").open("rb") as handle:
        messages = read_po(handle, locale=language)

    def gettext(msgid: str) -> str:
        message = messages.get(msgid)
        assert message is not None and message.string, f"{msgid!r} has no {language} translation"
        return message.string
    return gettext


def files_of(result: BuildResult, role: str) -> list[Path]:
    return [f.path for f in result.files if f.role == role]


def one_file(result: BuildResult, role: str) -> Path:
    paths = files_of(result, role)
    assert len(paths) == 1, f"{result.folder.name}: expected one {role!r} file, got {paths}"
    return paths[0]


# --------------------------------------------------------------------------- reading PDFs


@lru_cache(maxsize=None)
def page_texts(path: Path) -> tuple[str, ...]:
    """pypdf's text of each page (form XObjects included)."""
    return tuple(page.extract_text() or "" for page in pypdf.PdfReader(path).pages)


def _form_text(page: pypdf.PageObject, name: str) -> str:
    """The text of one form XObject alone: a blank page that paints just that form, read by pypdf."""
    blank = pypdf.PageObject.create_blank_page(width=page.mediabox.width, height=page.mediabox.height)
    blank[NameObject("/Resources")] = page["/Resources"]
    stream = DecodedStreamObject()
    stream.set_data(f"q {name} Do Q".encode())
    blank[NameObject("/Contents")] = stream
    return normalise(blank.extract_text() or "")


@dataclass(frozen=True)
class Side:
    """One card side painted on a page: where it landed and the words of what it paints."""

    page: int
    box: Box
    text: str


@dataclass(frozen=True)
class CardPages:
    width: float
    height: float
    pages: tuple[tuple[Side, ...], ...]


@lru_cache(maxsize=None)
def card_pages(path: Path) -> CardPages:
    """Every form XObject placed on every page of a card file, with the form's own text."""
    reader = pypdf.PdfReader(path)
    texts: dict[object, str] = {}
    pages = []
    for index, page in enumerate(reader.pages):
        xobjects = page["/Resources"]["/XObject"]
        sides = []
        for placement in form_placements(reader, page):
            ref = xobjects.raw_get(placement.name)
            key = getattr(ref, "idnum", placement.name)
            if key not in texts:
                texts[key] = _form_text(page, placement.name)
            sides.append(Side(index, placement.box, texts[key]))
        pages.append(tuple(sides))
    first = reader.pages[0].mediabox
    return CardPages(float(first.width), float(first.height), tuple(pages))


@lru_cache(maxsize=None)
def own_page_texts(path: Path) -> tuple[str, ...]:
    """The text each page draws itself, outside the card forms (sheet label, ruler note): the page's
    content stream without its `Do` operators, read by pypdf."""
    reader = pypdf.PdfReader(path)
    texts = []
    for page in reader.pages:
        stream = ContentStream(page.get_contents(), reader)
        stream.operations = [(operands, op) for operands, op in stream.operations if op != b"Do"]
        blank = pypdf.PageObject.create_blank_page(width=page.mediabox.width, height=page.mediabox.height)
        blank[NameObject("/Resources")] = page["/Resources"]
        own = DecodedStreamObject()
        own.set_data(stream.get_data())
        blank[NameObject("/Contents")] = own
        texts.append(blank.extract_text() or "")
    return tuple(texts)


def card_file_text(path: Path) -> str:
    """All text of a card file: every distinct card side's text (without the repetition), then what each
    page prints outside the cards."""
    sides = sorted({side.text for sides in card_pages(path).pages for side in sides})
    return "\n".join([*sides, *own_page_texts(path)])


def player_text(result: BuildResult) -> dict[str, str]:
    """File name → all text of every player-facing file (everything but the host key)."""
    texts = {}
    for f in result.files:
        if f.role == "host-key":
            continue
        texts[f.path.name] = (card_file_text(f.path) if f.role.endswith("cards")
                              else "\n".join(page_texts(f.path)))
    return texts


# --------------------------------------------------------------------------- identifying card sides


def _expand(value: str | None, data: dict) -> str | None:
    if value is None:
        return None
    return jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(value).render(**data)


def face_words(card) -> Counter:
    """The words a face of this card kind should carry: corner value, title (name, else id), the symbol
    twice (corner mark and centre; once beside a picture), caption, text and footer, with placeholders filled from its data."""
    pictured = bool(card.picture or card.image)  # a picture takes the centre symbol's place
    parts = [_expand(card.value, card.data), _expand(card.name, card.data) or card.id,
             _expand(card.symbol, card.data), None if pictured else _expand(card.symbol, card.data),
             _expand(card.caption, card.data), _expand(card.text, card.data), _expand(card.footer, card.data)]
    return Counter(word for part in parts if part for word in part.split())


def back_words(deck) -> Counter:
    back = deck.back
    return Counter(word for part in (back.symbol, back.title, back.subtitle) if part for word in part.split())


@dataclass
class DeckReading:
    """What a card file holds, read card by card: faces by (deck id, card id), backs by deck id."""

    faces: Counter
    backs: Counter
    face_pages: int
    face_texts: dict  # (deck id, card id) → the text read from that face


def read_deck_file(path: Path, activity) -> DeckReading:
    """Identify every side on every page; each face is attributed to the deck whose back lies behind it
    (the mirrored cell on the next page, long-edge duplex)."""
    faces_by_words: dict[frozenset, list[tuple[str, str]]] = {}
    for deck in activity.decks:
        for card in deck.cards:
            faces_by_words.setdefault(frozenset(face_words(card).items()), []).append((deck.id, card.id))
    backs_by_words: dict[frozenset, list[str]] = {}
    for deck in activity.decks:
        backs_by_words.setdefault(frozenset(back_words(deck).items()), []).append(deck.id)
    reading = DeckReading(Counter(), Counter(), 0, {})
    doc = card_pages(path)
    assert len(doc.pages) % 2 == 0, f"{path.name}: {len(doc.pages)} pages, expected face/back pairs"
    for index in range(0, len(doc.pages), 2):
        face_page, back_page = doc.pages[index], doc.pages[index + 1]
        assert face_page, f"{path.name} page {index + 1}: no card placed"
        assert len(back_page) == len(face_page), (
            f"{path.name}: page {index + 1} has {len(face_page)} faces, page {index + 2} {len(back_page)} backs")
        reading.face_pages += 1
        back_deck: list[tuple[Box, str]] = []
        for side in back_page:
            decks = backs_by_words.get(frozenset(Counter(side.text.split()).items()))
            assert decks and len(decks) == 1, f"{path.name} page {index + 2}: {side.text!r} is no single deck's back"
            back_deck.append((side.box, decks[0]))
            reading.backs[decks[0]] += 1
        for side in face_page:
            assert 0 <= side.box.x0 and side.box.x1 <= doc.width and 0 <= side.box.y0 and side.box.y1 <= doc.height
            candidates = faces_by_words.get(frozenset(Counter(side.text.split()).items()))
            assert candidates, f"{path.name} page {index + 1}: face {side.text!r} matches no card of the YAML"
            mirrored = side.box.mirrored(doc.width)
            behind = [deck for box, deck in back_deck
                      if all(abs(a - b) <= TOL_PT for a, b in zip((box.x0, box.y0, box.x1, box.y1),
                                                                  (mirrored.x0, mirrored.y0, mirrored.x1, mirrored.y1)))]
            assert len(behind) == 1, f"{path.name} page {index + 1}: no back behind the face at {side.box}"
            matches = [key for key in candidates if key[0] == behind[0]]
            assert len(matches) == 1, (f"{path.name} page {index + 1}: face {side.text!r} has the back of "
                                       f"{behind[0]!r}, but belongs to {candidates}")
            reading.faces[matches[0]] += 1
            reading.face_texts[matches[0]] = side.text
    return reading


# =========================================================================== 1. builds, files, pages


EXPECTED_EDITIONS = set(EDITIONS)


def test_every_kit_and_edition_builds(library_kits):
    assert set(library_kits) == EXPECTED_EDITIONS
    for key, result in library_kits.items():
        assert not result.skipped
        assert result.language == EDITIONS[key][1]
        assert result.files, key


def expected_roles(data: dict) -> Counter:
    """The files the YAML asks for: cards for the non-optional decks, one file per optional deck, slip
    and mat, then sheets, host key and print guide."""
    decks = data.get("decks", [])
    roles = Counter({"sheets": 1, "host-key": 1, "print-guide": 1})
    if any(not deck.get("optional") for deck in decks):
        roles["cards"] += 1
    roles["optional-cards"] += sum(bool(deck.get("optional")) for deck in decks)
    roles["slips"] += len(data.get("slips", []))
    roles["mat"] += len(data.get("boards", []))
    return +roles


def test_files_and_page_counts_are_what_the_build_result_says(library_kits, edition):
    result = library_kits[edition]
    activity_id = EDITIONS[edition][0]
    assert Counter(f.role for f in result.files) == expected_roles(raw_yaml(activity_id))
    on_disk = sorted(p.name for p in result.folder.iterdir() if p.suffix == ".pdf")
    assert on_disk == sorted(f.path.name for f in result.files), "files on disk differ from the BuildResult"
    for f in result.files:
        reader = pypdf.PdfReader(f.path)
        assert len(reader.pages) == f.pages, f"{f.path.name}: {len(reader.pages)} pages, result says {f.pages}"
        for page in reader.pages:
            width, height = float(page.mediabox.width), float(page.mediabox.height)
            assert abs(width - A4_PT[0]) <= TOL_PT and abs(height - A4_PT[1]) <= TOL_PT, f.path.name
        if f.role.endswith("cards"):  # long-edge duplex: a face page and its back page per sheet
            assert f.pages == 2 * f.sheets
        else:
            assert f.pages == f.sheets
        assert f.for_players == (f.role != "host-key")
    assert result.pages == sum(len(pypdf.PdfReader(f.path).pages) for f in result.files)


# =========================================================================== 2. card counts


def ranks_and_suits(activity_id: str, deck_id: str) -> set[str]:
    """rank × suit as the YAML's `generate.product` lists them (rank letters, suit symbols)."""
    deck = next(d for d in raw_yaml(activity_id)["decks"] if d["id"] == deck_id)
    ranks = [r["rank"] for r in deck["generate"]["product"]["rank"]]
    suits = [s["symbol"] for s in deck["generate"]["product"]["suit"]]
    assert len(ranks) == 13 and len(suits) == 4
    return {f"{rank}{suit}" for rank, suit in product(ranks, suits)}


@pytest.mark.parametrize("key, deck_id", [("trash-ro", "deck-52"), ("trash-en", "deck-52"),
                                          ("needle-in-a-card-stack", "standard-deck")])
def test_optional_52_card_deck_prints_every_rank_and_suit_once(library_kits, key, deck_id):
    result = library_kits[key]
    reading = read_deck_file(one_file(result, "optional-cards"), model_of(key).activity)
    expected = ranks_and_suits(EDITIONS[key][0], deck_id)
    assert sum(reading.faces.values()) == 52
    assert reading.backs == Counter({deck_id: 52})
    assert {card for (_, card) in reading.faces} == expected, "the faces are not the 52 ranks × suits"
    assert all(n == 1 for n in reading.faces.values()), [k for k, n in reading.faces.items() if n > 1]
    for (_, card_id), text in reading.face_texts.items():
        rank, suit = card_id[:-1], card_id[-1]
        words = text.split()
        assert rank in words and words.count(suit) >= 2, f"face {card_id}: {text!r}"
        if key.startswith("needle"):  # no `name:` in the template, so the id itself is the title
            assert card_id in words, f"face {card_id}: {text!r}"


def test_junkyard_robots_prints_200_faces_and_the_backs_by_pile(library_kits):
    data = raw_yaml("junkyard-robots")
    reading = read_deck_file(one_file(library_kits["junkyard-robots"], "cards"),
                             model_of("junkyard-robots").activity)
    assert sum(reading.faces.values()) == 200 == data["totals"]["cards"]
    expected_faces = Counter({(deck["id"], card["id"]): card["count"] for deck in data["decks"]
                              for card in deck["cards"]})
    assert reading.faces == expected_faces
    assert reading.faces[("junk", "Metal")] == 30
    # back words per pile: count the backs by their printed title, read from the YAML
    titles = {deck["id"]: deck["back"]["title"] for deck in data["decks"]}
    backs_by_title = Counter({titles[deck]: n for deck, n in reading.backs.items()})
    assert backs_by_title == Counter({"JUNK": 90, "ROBOT": 60, "FACILITY": 40, "EVENT": 10})
    assert backs_by_title == Counter({titles[d]: n for d, n in data["totals"]["decks"].items()})


def test_faces_per_kind_match_the_yaml_in_every_card_file(library_kits, edition):
    activity = model_of(edition).activity
    result = library_kits[edition]
    for role, decks in (("cards", [d for d in activity.decks if not d.optional]),
                        ("optional-cards", [d for d in activity.decks if d.optional])):
        paths = files_of(result, role)
        if not decks:
            assert not paths
            continue
        reading = Counter()
        backs = Counter()
        for path in paths:
            deck_reading = read_deck_file(path, activity)
            reading += deck_reading.faces
            backs += deck_reading.backs
        assert reading == Counter({(d.id, c.id): c.count for d in decks for c in d.cards})
        assert backs == Counter({d.id: d.total for d in decks})


# =========================================================================== 3. Romanian edition


def msgid_patterns() -> list[tuple[str, re.Pattern]]:
    """Every English msgid (and plural) of kitgen.pot longer than 3 characters, as a regex: placeholders
    such as %(name)s match any short text, spaces any whitespace. Msgids whose Romanian translation is
    the same word (e.g. "Total") are left out: finding them proves nothing."""
    with (LOCALE / "kitgen.pot").open("rb") as handle:
        template = read_po(handle)
    with (LOCALE / "ro" / "LC_MESSAGES" / "kitgen.po").open("rb") as handle:
        romanian = read_po(handle, locale="ro")
    patterns = []
    for message in template:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        translated = romanian.get(message.id, context=message.context)
        strings = translated.string if translated is not None else ()
        strings = strings if isinstance(strings, tuple) else (strings,)
        for msgid in ids:
            if len(msgid) <= 3 or msgid in strings:
                continue
            regex = ""
            for piece in re.split(r"(%\(\w+\)[sdif]|%%)", msgid):
                if piece == "%%":
                    regex += "%"
                elif re.fullmatch(r"%\(\w+\)[sdif]", piece):
                    regex += ".{1,80}?"
                else:
                    regex += r"\s+".join(re.escape(word) for word in piece.split(" "))
            if msgid[0].isalnum():
                regex = r"(?<!\w)" + regex
            if msgid[-1].isalnum():
                regex += r"(?!\w)"
            patterns.append((msgid, re.compile(regex)))
    return patterns


def english_template_strings(result: BuildResult) -> dict[str, list[str]]:
    """File name → the English msgids found in its text."""
    patterns = msgid_patterns()
    found = {}
    for name, text in player_text(result).items():
        found[name] = [msgid for msgid, pattern in patterns if pattern.search(normalise(text))]
    host = one_file(result, "host-key")
    text = normalise("\n".join(page_texts(host)))
    found[host.name] = [msgid for msgid, pattern in patterns if pattern.search(text)]
    return found


def edition_texts(result: BuildResult) -> dict[str, str]:
    texts = player_text(result)
    host = one_file(result, "host-key")
    texts[host.name] = "\n".join(page_texts(host))
    return texts


def test_romanian_edition_prints_comma_below_letters_and_no_cedillas(library_kits):
    texts = edition_texts(library_kits["trash-ro"])
    assert len(texts) == len(library_kits["trash-ro"].files)
    for name, text in texts.items():
        for letter in "șțăî":
            assert letter in text, f"{name}: no {letter!r} in the extracted text"
        for cedilla in "şţŞŢ":
            assert cedilla not in text, f"{name}: cedilla letter {cedilla!r} (U+{ord(cedilla):04X})"
    # â: every file but the optional deck, whose card texts in the YAML have none
    assert "â" in "".join(texts.values())
    for name, text in texts.items():
        if "pachet" not in name:
            assert "â" in text, name


@pytest.mark.parametrize("role", ["optional-cards", "mat", "sheets", "host-key", "print-guide"])
def test_romanian_edition_prints_no_english_template_string(library_kits, role):
    result = library_kits["trash-ro"]
    path = one_file(result, role)
    text = normalise(card_file_text(path) if role.endswith("cards") else "\n".join(page_texts(path)))
    found = [msgid for msgid, pattern in msgid_patterns() if pattern.search(text)]
    assert not found, f"English kitgen strings in {path.name}: {found}"


def test_every_string_kitgen_prints_is_in_the_catalogs():
    """Every gettext msgid of templates/ and kitgen/ (extracted as babel.cfg says) is in kitgen.pot and
    has a Romanian translation."""
    from babel.messages.extract import extract_from_file

    with (LOCALE / "kitgen.pot").open("rb") as handle:
        template = read_po(handle)
    with (LOCALE / "ro" / "LC_MESSAGES" / "kitgen.po").open("rb") as handle:
        romanian = read_po(handle, locale="ro")
    found = [(path, line, context, message) for path in sorted((REPO / "templates").glob("**/*.j2"))
             for line, message, _comments, context in extract_from_file(
                 "jinja2.ext:babel_extract", str(path), options={"extensions": "jinja2.ext.i18n"})]
    found += [(path, line, context, message) for path in sorted((REPO / "kitgen").glob("**/*.py"))
              for line, message, _comments, context in extract_from_file("python", str(path))]
    assert len(found) > 50
    missing = []
    for path, line, context, message in found:
        msgid = message if isinstance(message, str) else message[0]
        pot, po = template.get(msgid, context=context), romanian.get(msgid, context=context)
        if pot is None or po is None or not po.string or (isinstance(po.string, tuple) and not all(po.string)):
            missing.append(f"{path.relative_to(REPO)}:{line}: {msgid[:70]!r}")
    assert not missing, "\n".join(missing)


def test_the_english_string_check_finds_them_in_the_english_edition(library_kits):
    found = english_template_strings(library_kits["trash-en"])
    every = {msgid for hits in found.values() for msgid in hits}
    for msgid in ("Prepare", "Host key", "part %(n)d of %(total)d", "Player %(n)d", "Name",
                  "Check with a ruler: this bar is 100 mm long at 100% / Actual size."):
        assert msgid in every, f"{msgid!r} not found in trash-en: the check could never fail"
    assert all(found.values()), {name: hits for name, hits in found.items() if not hits}


# =========================================================================== 4. mats


@dataclass
class MatPart:
    page: int
    text: str
    clip: Box  # the visible window of this part, page coordinates
    marks: list[tuple[float, float]]  # visible ⊕ centres, page coordinates
    boxes: list[Box]  # dashed position boxes (as drawn, before clipping), page coordinates
    trim_lines: list[Box]  # dashed straight lines (the edge to trim)


def _clip_rect(reader: pypdf.PdfReader, page: pypdf.PageObject) -> Box:
    """The rectangle the page's own content stream clips to before painting the mat form."""
    ctm = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    last_rect = None
    clips = []
    for operands, operator in ContentStream(page.get_contents(), reader).operations:
        if operator == b"cm":
            a, b, c, d, e, f = (float(v) for v in operands)
            assert (a, b, c, d) == (1, 0, 0, 1), "expected translations only"
            ctm = [1.0, 0.0, 0.0, 1.0, ctm[4] + e, ctm[5] + f]
        elif operator == b"re":
            x, y, w, h = (float(v) for v in operands)
            last_rect = Box(x + ctm[4], y + ctm[5], x + w + ctm[4], y + h + ctm[5])
        elif operator in (b"W", b"W*"):
            clips.append(last_rect)
        elif operator == b"Q":
            ctm = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    assert len(clips) == 1, f"expected one clip on a mat page, got {clips}"
    return clips[0]


@lru_cache(maxsize=None)
def mat_parts(path: Path) -> tuple[MatPart, ...]:
    reader = pypdf.PdfReader(path)
    parts = []
    with pdfplumber.open(path) as pdf:
        for index, page in enumerate(pdf.pages):
            height = float(page.height)

            def box(obj) -> Box:
                return Box(float(obj["x0"]), height - float(obj["bottom"]), float(obj["x1"]), height - float(obj["top"]))

            clip = _clip_rect(reader, reader.pages[index])
            lines = [box(line) for line in page.lines if not (line.get("dash") or ([], 0))[0]]
            horizontal = [b for b in lines if b.height < 0.01]
            vertical = [b for b in lines if b.width < 0.01]
            circles = [box(c) for c in page.curves if abs(c["x1"] - c["x0"] - (c["bottom"] - c["top"])) < 0.01]
            marks = []
            for h in horizontal:
                centre = ((h.x0 + h.x1) / 2, h.y0)
                crossing = [v for v in vertical if abs(v.x0 - centre[0]) < 0.01
                            and abs((v.y0 + v.y1) / 2 - centre[1]) < 0.01 and abs(v.height - h.width) < 0.01]
                ring = [c for c in circles if abs((c.x0 + c.x1) / 2 - centre[0]) < 0.01
                        and abs((c.y0 + c.y1) / 2 - centre[1]) < 0.01 and abs(c.width - h.width / 2) < 0.01]
                if crossing and ring and clip.contains_point(*centre):
                    marks.append(centre)
            boxes = [box(c) for c in page.curves if (c.get("dash") or ([], 0))[0]]
            trims = [box(line) for line in page.lines if (line.get("dash") or ([], 0))[0]]
            parts.append(MatPart(index, normalise(page.extract_text() or ""), clip, sorted(marks), boxes, trims))
    return tuple(parts)


def close(a: float, b: float, tol: float = TOL_PT) -> bool:
    return abs(a - b) <= tol


@pytest.mark.parametrize("key", ["trash-ro", "trash-en"])
def test_the_mat_title_and_note_print_whole_on_one_part_clear_of_the_glue_strip(library_kits, key):
    """A sentence cut by the seam would be glued over: the title and the note print on the first part, left of
    the strip it shares with the second, and not at all on the second."""
    board = model_of(key).activity.boards[0]
    path = one_file(library_kits[key], "mat")
    parts = mat_parts(path)
    with pdfplumber.open(path) as pdf:
        def inside(index: int) -> str:
            page, clip = pdf.pages[index], parts[index].clip
            height = float(page.height)
            chars = [c for c in page.chars if clip.x0 <= c["x0"] and c["x1"] <= clip.x1
                     and clip.y0 <= height - c["bottom"] and height - c["top"] <= clip.y1]
            return chars

        first, second = inside(0), inside(1)
        strip = parts[0].clip.x1 - OVERLAP
        words = normalise("".join(c["text"] for c in first if c["size"] < 30))
        for sentence in (board.title, board.note):
            assert normalise(sentence).replace(" ", "") in words.replace(" ", ""), sentence
            title_chars = [c for c in first if c["size"] < 30 and c["text"].strip()]
            assert all(c["x1"] <= strip for c in title_chars), max(c["x1"] for c in title_chars) - strip
        assert not [c for c in second if c["size"] < 30 and c["text"].strip()], "text of the title or note on part 2"


@pytest.mark.parametrize("key", ["trash-ro", "trash-en"])
def test_mat_parts_overlap_and_their_marks_coincide(library_kits, key):
    activity = model_of(key).activity
    players = activity.players.max
    parts = mat_parts(one_file(library_kits[key], "mat"))
    assert len(parts) == 2 * players, "one mat per player, each in 2 parts"
    overlap = OVERLAP
    for player in range(players):
        first, second = parts[2 * player], parts[2 * player + 1]
        assert len(first.marks) == len(second.marks) == 3, (first.marks, second.marks)
        # tile step = window width − overlap; part 2 shifted by it lands its marks on part 1's
        step = first.clip.width - overlap
        shifted = sorted((x - second.clip.x0 + first.clip.x0 + step, y - second.clip.y1 + first.clip.y1)
                         for x, y in second.marks)
        for (x1, y1), (x2, y2) in zip(first.marks, shifted):
            assert close(x1, x2) and close(y1, y2), (
                f"part 1 mark ({pt_to_mm(x1):.2f}, {pt_to_mm(y1):.2f}) mm, part 2 shifted "
                f"({pt_to_mm(x2):.2f}, {pt_to_mm(y2):.2f}) mm")
        # the same displacement, measured: overlap = window width − how far part 2 must move
        moves = {round(x1 - (x2 - second.clip.x0 + first.clip.x0), 3) for (x1, _), (x2, _) in zip(first.marks, second.marks)}
        assert max(moves) - min(moves) <= TOL_PT
        measured_overlap = first.clip.width - moves.pop()
        assert close(measured_overlap, overlap), pt_to_mm(measured_overlap)
        # the marks sit in the middle of the shared strip, on both parts
        for x, _ in first.marks:
            assert close(first.clip.x1 - x, overlap / 2), pt_to_mm(first.clip.x1 - x)
        for x, _ in second.marks:
            assert close(x - second.clip.x0, overlap / 2), pt_to_mm(x - second.clip.x0)
        # part 2 shows the dashed trim line along its left edge, the full height of the part
        assert any(close(t.x0, second.clip.x0) and t.width < 0.01 and close(t.height, second.clip.height)
                   for t in second.trim_lines), second.trim_lines
        assert not first.trim_lines, "the first part has nothing to trim"


@pytest.mark.parametrize("key", ["trash-ro", "trash-en"])
def test_assembled_mat_has_the_yaml_position_boxes_that_fit_a_poker_card(library_kits, key):
    spec = raw_yaml("trash")["boards"][0]["positions"]
    width_mm, height_mm, gap_mm = (float(spec[k].removesuffix("mm")) for k in ("width", "height", "gap"))
    parts = mat_parts(one_file(library_kits[key], "mat"))
    for player in range(model_of(key).activity.players.max):
        first, second = parts[2 * player], parts[2 * player + 1]
        shift = first.marks[0][0] - second.marks[0][0]  # part 2 → part 1 page coordinates, from the marks
        windows = [first.clip, Box(second.clip.x0 + shift, second.clip.y0, second.clip.x1 + shift, second.clip.y1)]
        board: list[Box] = []
        for part, dx in ((first, 0.0), (second, shift)):
            for b in part.boxes:
                moved = Box(b.x0 + dx, b.y0, b.x1 + dx, b.y1)
                if not any(all(close(p, q) for p, q in zip((moved.x0, moved.y0, moved.x1, moved.y1),
                                                           (o.x0, o.y0, o.x1, o.y1))) for o in board):
                    board.append(moved)
        assert len(board) == spec["columns"] * spec["rows"], [(pt_to_mm(b.x0), pt_to_mm(b.y0)) for b in board]
        for b in board:
            assert abs(pt_to_mm(b.width) - width_mm) <= TOL_MM and abs(pt_to_mm(b.height) - height_mm) <= TOL_MM, (
                f"position box {pt_to_mm(b.width):.2f} × {pt_to_mm(b.height):.2f} mm")
            assert pt_to_mm(b.width) >= POKER_MM[0] and pt_to_mm(b.height) >= POKER_MM[1]
            # assembled, the parts show the whole box: the visible windows cover it edge to edge
            spans = sorted((max(b.x0, w.x0), min(b.x1, w.x1)) for w in windows
                           if w.x0 < b.x1 and b.x0 < w.x1 and w.y0 <= b.y0 + TOL_PT and b.y1 <= w.y1 + TOL_PT)
            assert spans and spans[0][0] <= b.x0 + TOL_PT and spans[-1][1] >= b.x1 - TOL_PT
            assert all(a[1] >= b_[0] - TOL_PT for a, b_ in zip(spans, spans[1:])), "a gap between the parts"
        rows = sorted({round(b.y0, 1) for b in board})
        assert len(rows) == spec["rows"]
        for row in rows:
            xs = sorted((b for b in board if round(b.y0, 1) == row), key=lambda b: b.x0)
            assert len(xs) == spec["columns"]
            for left, right in zip(xs, xs[1:]):
                assert abs(pt_to_mm(right.x0 - left.x1) - gap_mm) <= TOL_MM


@pytest.mark.parametrize("key", ["trash-ro", "trash-en"])
def test_mat_parts_are_labelled_part_n_of_2_for_each_player(library_kits, key):
    gettext = catalog(EDITIONS[key][1])
    parts = mat_parts(one_file(library_kits[key], "mat"))
    title = model_of(key).activity.boards[0].title
    for index, part in enumerate(parts):
        player, number = index // 2 + 1, index % 2 + 1
        label = (f"{title} · {gettext('Player %(n)d') % {'n': player}} · "
                 f"{gettext('part %(n)d of %(total)d') % {'n': number, 'total': 2}}")
        assert label in part.text, f"page {index + 1}: {label!r} not in {part.text[-200:]!r}"
    if key == "trash-ro":
        assert "partea 1 din 2" in parts[0].text and "partea 2 din 2" in parts[1].text
    else:
        assert "part 1 of 2" in parts[0].text and "part 2 of 2" in parts[1].text


# =========================================================================== 5. slips


def test_needle_slips_have_cut_marks_yaml_size_and_a_fold_at_the_middle(library_kits):
    slip = raw_yaml("needle-in-a-card-stack")["slips"][0]
    width_mm, height_mm = (float(v) for v in re.fullmatch(r"(\d+)x(\d+)mm", slip["size"]).groups())
    players = model_of("needle-in-a-card-stack").activity.players.max
    copies = slip["copies"] * players
    path = one_file(library_kits["needle-in-a-card-stack"], "slips")
    facts = page_facts(path)
    reader = pypdf.PdfReader(path)
    placed = [form_placements(reader, page) for page in reader.pages]
    assert sum(len(p) for p in placed) == copies == 8
    for page in facts:
        slips = placed[page.index]
        if not slips:
            continue
        marks = [line for line in page.lines if line["linewidth"] <= 0.3]
        vertical = [m for m in marks if abs(m["x0"] - m["x1"]) < 0.01]
        horizontal = [m for m in marks if abs(m["top"] - m["bottom"]) < 0.01]
        assert vertical and horizontal, "no cut marks"
        xs = sorted({round(float(m["x0"]), 2) for m in vertical})
        ys = sorted({round(page.height - float(m["top"]), 2) for m in horizontal})
        for x in xs:  # every cut line is marked above and below the slips
            assert len([m for m in vertical if close(m["x0"], x)]) == 2
        for y in ys:  # and left and right of them
            assert len([m for m in horizontal if close(page.height - m["top"], y)]) == 2
        assert all(abs(pt_to_mm(b - a) - width_mm) <= TOL_MM for a, b in zip(xs, xs[1:])), [pt_to_mm(x) for x in xs]
        assert all(abs(pt_to_mm(b - a) - height_mm) <= TOL_MM for a, b in zip(ys, ys[1:])), [pt_to_mm(y) for y in ys]
        cells = [Box(x0, y0, x1, y1) for x0, x1 in zip(xs, xs[1:]) for y0, y1 in zip(ys, ys[1:])]
        folds = [line for line in page.lines if (line.get("dash") or ([], 0))[0]
                 and abs(line["top"] - line["bottom"]) < 0.01]
        assert len(folds) == len(slips)
        for placement in slips:
            box = placement.box
            cell = [c for c in cells if all(close(a, b) for a, b in zip((c.x0, c.y0, c.x1, c.y1),
                                                                        (box.x0, box.y0, box.x1, box.y1)))]
            assert cell, f"slip at {box} is not a cell between the cut marks"
            assert abs(pt_to_mm(box.width) - width_mm) <= TOL_MM and abs(pt_to_mm(box.height) - height_mm) <= TOL_MM
            inside = [f for f in folds if box.x0 <= f["x0"] and f["x1"] <= box.x1
                      and box.y0 <= page.height - f["top"] <= box.y1]
            assert len(inside) == 1, f"slip at {box}: {len(inside)} fold lines"
            fold_y = page.height - inside[0]["top"]
            assert abs(pt_to_mm(fold_y - (box.y0 + box.y1) / 2)) <= TOL_MM, (
                f"fold {pt_to_mm(fold_y - box.y0):.2f} mm above the slip's bottom, height {height_mm} mm")
            assert close((inside[0]["x0"] + inside[0]["x1"]) / 2, (box.x0 + box.x1) / 2)
        assert page.text.count(slip["title"]) == len(slips)
        assert page.text.count("fold here") == len(slips)


# =========================================================================== 6. per-player sheets


def test_each_record_sheet_and_player_aid_is_printed_once_per_player(library_kits, edition):
    activity = model_of(edition).activity
    gettext = catalog(EDITIONS[edition][1])
    facts = page_facts(one_file(library_kits[edition], "sheets"))
    texts = [normalise(page.text) for page in facts]
    players = activity.players.max
    copies = [(aid.title, aid.per_player, False) for aid in activity.player_aids] + [
        (sheet.title, sheet.per_player, True) for sheet in activity.record_sheets]
    assert copies, "every kit has a player aid or a record sheet"
    # the rules (a page, or two where they run over at body size), the player aids two to a page, then each
    # record sheet once per player
    rules_pages = next(n for n, text in enumerate(texts) if any(normalise(title) in text for title, _, _ in copies))
    assert rules_pages in (1, 2), rules_pages
    assert len(facts) == rules_pages + sum((-(-players // 2) if per_player else 1) if not record else (players if per_player else 1)
                                 for _, per_player, record in copies)
    name_word, date_word = gettext("Name") + ":", gettext("Date") + ":"
    for title, per_player, record in copies:
        assert per_player
        for player in range(1, players + 1):
            heading = f"{title} · {gettext('Player %(n)d') % {'n': player}}"
            pages = [i for i, text in enumerate(texts) if re.search(re.escape(heading) + r"(?!\d)", text)]
            assert len(pages) == 1, f"{edition}: {heading!r} on pages {[p + 1 for p in pages]}"
            page = facts[pages[0]]
            if not record:
                continue
            names = [w for w in page.words if w["text"] == name_word]
            dates = [w for w in page.words if w["text"] == date_word]
            assert len(names) == 1 and len(dates) == 1, f"{heading}: no name line ({name_word!r}, {date_word!r})"
            word = names[0]
            rule = [line for line in page.lines if abs(line["top"] - line["bottom"]) < 0.01
                    and line["x0"] <= word["x0"] + 1 and line["x1"] - word["x1"] >= 30 / MM_PER_PT
                    and 0 <= line["top"] - word["bottom"] <= 10 / MM_PER_PT]
            assert rule, f"{heading}: no line to write the name on under {name_word!r}"


def test_player_aids_print_at_the_body_size(library_kits, edition):
    """An aid's page is kept on one page and shrunk to fit: the library's aids are short enough not to be
    (Junkyard Robots' five phases printed at 8.7 pt before its text was cut down)."""
    activity = model_of(edition).activity
    facts = page_facts(one_file(library_kits[edition], "sheets"))
    titles = [aid.title for aid in activity.player_aids]
    pages = [page for page in facts if any(title in page.text for title in titles)]
    assert bool(pages) == bool(titles)
    for page in pages:
        sizes = Counter(round(char["size"], 1) for char in page.chars if char["text"].strip())
        assert sizes.most_common(1)[0][0] == 10.5, f"{edition} page {page.index + 1}: {sizes.most_common(3)}"


# =========================================================================== 7. content checks


def copy_activity(activity_id: str, tmp_path: Path) -> Path:
    """A content folder holding a copy of one activity; returns the copied YAML file."""
    content = tmp_path / "content"
    source = source_file(activity_id)
    if source.name == "activity.yaml":
        shutil.copytree(source.parent, content / activity_id)
        return content / activity_id / "activity.yaml"
    content.mkdir()
    shutil.copy(source, content / source.name)
    return content / source.name


def edit(path: Path, old: str, new: str) -> int:
    """Replace the first `old` in the file; returns the 1-based line where the new text starts."""
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    at = text.index(old)
    path.write_text(text[:at] + new + text[at + len(old):], encoding="utf-8")
    return text[:at].count("\n") + 1


def run(*args: str):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


BROKEN = {
    "deck-count": ("junkyard-robots", "        count: 30\n", "        count: 29\n", "  - id: junk\n",
                   r"decks\[0\]: deck 'junk' holds 89 cards but totals\.decks\.junk declares 90"),
    "set-points": ("needle-in-a-card-stack", "      points: 1\n      note: Three ranks",
                   "      points: 2\n      note: Three ranks", "      points: 2\n",
                   r"host_key\.sets\[0\]\.points: the scoring rule gives 1 point\(s\), the content says 2"),
    "price": ("growing-discard", "data: {coins: 2, stars: 0, price: 3}", "data: {coins: 2, stars: 0, price: 5}",
              "      buys: C2\n", r"host_key\.examples\[0\]\.buys: the hand makes 3 coins but C2 costs 5"),
    "renamed-card": ("junkyard-robots", "      - id: Worker\n", "      - id: Builder\n", "        - cards: [Worker]\n",
                     r"host_key\.walkthroughs\[0\]\.steps\[0\]\.cards\[0\]: no card 'Worker' in any deck"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_content_check_and_build_reject_a_broken_copy(case, tmp_path):
    activity_id, old, new, located_line, message = BROKEN[case]
    path = copy_activity(activity_id, tmp_path)
    content, out = str(path.parents[1] if path.name == "activity.yaml" else path.parent), tmp_path / "out"
    assert run("check", activity_id, "--content", content)[0] == 0, "the untouched copy must pass"
    edit(path, old, new)
    expected_line = path.read_text(encoding="utf-8").split("\n").index(located_line.rstrip("\n")) + 1
    for args in (("check", activity_id, "--content", content),
                 ("build", activity_id, "--content", content, "--out", str(out))):
        code, stdout, stderr = run(*args)
        assert code == 2, (args[0], code, stdout, stderr)
        located = re.search(rf"^(?P<file>\S*{re.escape(path.name)}):(?P<line>\d+):(?P<col>\d+): {message}",
                            stderr, re.MULTILINE)
        assert located, f"{args[0]}: {stderr!r}"
        assert Path(located["file"]).resolve() == path.resolve()
        assert int(located["line"]) == expected_line, (located["line"], expected_line, stderr)
        assert "Traceback" not in stderr + stdout
    assert not out.exists() or not any(out.rglob("*.pdf")), "a failed build wrote PDFs"


# =========================================================================== 8. host-only content


def test_host_key_sentence_in_the_rules_fails_the_build(tmp_path):
    path = copy_activity("growing-discard", tmp_path)
    secret = "A bought card must go onto the discard pile, never straight into the hand."
    assert secret in model_of("growing-discard").activity.host_key.sections[1].items
    edit(path, "    - Fill in one row of your record sheet for every turn.\n",
         f"    - Fill in one row of your record sheet for every turn.\n    - {secret}\n")
    out = tmp_path / "out"
    code, stdout, stderr = run("build", "growing-discard", "--content", str(path.parent), "--out", str(out))
    assert code == 2, (code, stdout, stderr)
    assert re.search(r"growing-discard\.yaml:\d+:\d+: host_key\.sections\[1\]\.items\[\d+\]: host-key text would be "
                     r"printed in the players' file growing-discard-sheets\.pdf", stderr), stderr
    assert secret[:40] in stderr
    assert not out.exists() or not any(out.rglob("*.pdf"))


def host_sentences(activity) -> list[str]:
    """Sentences of host-key material: intro, hand-example notes, walkthrough steps, set notes and every
    section's paragraphs and items (split at sentence ends, 20 characters or more)."""
    key = activity.host_key
    texts = list(key.intro)
    texts += [e.note for e in key.examples if e.note] + [s.note for s in key.sets if s.note]
    texts += [step.text for walk in key.walkthroughs for step in walk.steps]
    texts += [t for section in key.sections for t in (*section.paragraphs, *section.items)]
    sentences = [s.strip() for text in texts for s in re.split(r"(?<=[.!?])\s+", normalise(text))]
    return [s for s in sentences if len(s) >= 20]


def printed_as_sentence(sentence: str, text: str) -> bool:
    """`sentence` appears in `text` as a sentence of its own: at the start of the text or of a line, or
    after a sentence end, whatever the spacing and line breaks ("… așa că Ana îl aruncă …" does not
    print the sentence "Ana îl aruncă …")."""
    words = r"\s+".join(re.escape(word) for word in sentence.split())
    return re.search(rf"(?:\A[\s•]*|\n[\s•]*|[.!?:;]\s+){words}", text) is not None


def test_no_host_key_sentence_is_printed_in_a_player_file(library_kits, edition):
    result = library_kits[edition]
    sentences = host_sentences(check_activity(model_of(edition)).shown)  # as printed: placeholders filled
    assert sentences
    footer = re.compile(r"(?m)^.* · (?:page|pagina) \d+\n?")  # a sentence may run on past a page's footer
    host_text = "\n".join(footer.sub("", text) for text in page_texts(one_file(result, "host-key")))
    missing = [s for s in sentences if not printed_as_sentence(s, host_text)]
    assert not missing, f"host-key sentences not found in the host key itself: {missing}"
    leaks = {name: [s for s in sentences if printed_as_sentence(s, text)]
             for name, text in player_text(result).items()}
    assert not any(leaks.values()), {name: found for name, found in leaks.items() if found}


# =========================================================================== 9. generated decks


def test_needle_deck_is_generated_not_written_out():
    text = source_file("needle-in-a-card-stack").read_text(encoding="utf-8")
    deck = next(d for d in raw_yaml("needle-in-a-card-stack")["decks"] if d["id"] == "standard-deck")
    assert "generate" in deck and "cards" not in deck
    assert re.search(r"^\s+generate:", text, re.MULTILINE)
    assert text.count("{{ rank.rank }}{{ suit.symbol }}") == 1
    model = next(d for d in model_of("needle-in-a-card-stack").activity.decks if d.id == "standard-deck")
    assert len(model.cards) == 52 and model.total == 52
    assert len({card.id for card in model.cards}) == 52
    assert all(card.count == 1 for card in model.cards)
    assert {card.id for card in model.cards} == ranks_and_suits("needle-in-a-card-stack", "standard-deck")


def test_the_designers_credit_is_at_the_foot_of_every_page_of_needles_documents(library_kits):
    """Needle credits its designer and the instruction template on every page of its rules, guide and key,
    below the page label (the lowest line of text on the page)."""
    credit = model_of("needle-in-a-card-stack").activity.credits
    assert credit and "Aiden Kimmer" in credit
    result = library_kits["needle-in-a-card-stack"]
    for role in ("sheets", "print-guide", "host-key"):
        with pdfplumber.open(one_file(result, role)) as pdf:
            for page in pdf.pages:
                lines = page.extract_text_lines()
                assert normalise(lines[-1]["text"]) == credit, (role, page.page_number, lines[-1]["text"])
                assert lines[-1]["top"] > float(page.height) - 72 * 25 / 25.4, "the credit is not at the foot"
    others = [key for key in library_kits if key != "needle-in-a-card-stack"]
    for key in others:
        assert "Aiden Kimmer" not in plain_text(one_file(library_kits[key], "sheets"))


def test_a_print_guide_counts_a_deck_of_many_kinds_instead_of_listing_every_card(tmp_path):
    """A deck of 100 different cards is '100 different cards' in the guide, not a paragraph of 100 names."""
    from benchmarks.bench import synthetic_activity
    from kitgen.app.build import build, BuildOptions
    from kitgen.load.library import Library

    content = tmp_path / "content"
    content.mkdir()
    synthetic_activity(content, "many", 100)
    names = re.findall(r'name: "([^"]+)"', (content / "many.yaml").read_text(encoding="utf-8"))
    result = build("many", BuildOptions(out_dir=tmp_path / "out"), Library.open(content))
    guide = " ".join(page_texts(one_file(result, "print-guide")))
    assert "100 different cards" in guide
    assert sum(name in guide for name in set(names)) <= 2, "the guide lists the cards one by one"


def test_a_mat_on_one_sheet_is_not_labelled_part_1_of_1():
    """Animal habitats' mats fit one sheet each: no 'part 1 of 1'; Trash's mat, over two sheets, keeps its parts."""
    for activity_id, language, parted in (("animal-habitats", "en", False), ("trash", "en", True), ("trash", "ro", True)):
        for file in library_kit(activity_id, "a4", language).files:
            if file.role == "mat":
                text = " ".join(page.extract_text() for page in pypdf.PdfReader(file.path).pages)
                assert ("1 of 1" in text) is False and (" of 2" in text or "din 2" in text) is parted, file.name

"""Hardening, round four (issue 27): SVG pictures counted before they are drawn, spreadsheet headings read in
linear work, long problem lists capped, and more hostile files refused with a located error.

Each test writes a small library into a temporary folder and runs kitgen on it in a process of its own (forked,
its memory capped), then reads what it printed and what it left in the output folder. Work is bounded by
counting (elements, calls, visits), never by timing.
"""
from __future__ import annotations

from pathlib import Path

import forked
import pytest
from conftest import CONTENT, kitgen_env, small_activity
from lxml import etree

from kitgen.pictures.svg import expanded_elements, MAX_ELEMENTS

MEMORY = 1_500_000_000  # bytes of address space a refused case's process may map
HANG_GUARD = 120  # seconds: a run still going then is stopped and fails (a hang guard, not a duration asserted)
SVG_NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'

ACTIVITY = small_activity("pics", "Pictures", "A tiny activity with pictures.")


def kitgen(folder: Path, *args: str) -> forked.Completed:
    return forked.run(list(args), cwd=folder, env=kitgen_env(folder), timeout=HANG_GUARD, memory=MEMORY)


def refused(run: forked.Completed) -> list[str]:
    """The error lines of a run that ended with exit 2, no traceback and no internal error."""
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr[-3000:]
    assert run.returncode == 2, (run.returncode, run.stdout[-2000:], run.stderr[-3000:])
    return run.stderr.splitlines()


def outputs(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- SVG pictures, counted first


def chain_svg(depth: int) -> str:
    """The `<use>` form of the billion laughs: each group draws the one before it twice (2^depth rectangles)."""
    groups = "".join(f'<g id="a{i}"><use xlink:href="#a{i - 1}"/><use href="#a{i - 1}"/></g>'
                     for i in range(1, depth + 1))
    return (f'<svg {SVG_NS} viewBox="0 0 100 100"><defs><g id="a0"><rect width="5" height="5"/></g>{groups}'
            f'</defs><use xlink:href="#a{depth}"/></svg>')


def rects_svg(count: int) -> str:
    return (f'<svg {SVG_NS} viewBox="0 0 100 100">' + '<rect x="1" y="1" width="5" height="5" fill="#c00"/>' * count
            + "</svg>")


def test_use_expansion_is_counted_without_walking_it():
    """Each element is counted once and each <use> as what it repeats: a chain of 60 doublings (2^60 elements
    drawn) is counted in as many steps as the file has elements, and the count stops at the limit."""
    # rect 1, a0 2, a use of a0 3, a1 7, a2 17, a3 37; defs 1+2+7+17+37; the last use 38; the root 1+64+38
    assert expanded_elements(etree.fromstring(chain_svg(3))) == 103
    assert expanded_elements(etree.fromstring(chain_svg(60))) == MAX_ELEMENTS + 1
    assert expanded_elements(etree.fromstring(rects_svg(MAX_ELEMENTS - 1))) == MAX_ELEMENTS
    assert expanded_elements(etree.fromstring(rects_svg(MAX_ELEMENTS))) == MAX_ELEMENTS + 1


@pytest.mark.parametrize("case, picture, expected", [
    ("use-chain", chain_svg(40), f"it holds more than {MAX_ELEMENTS:,} elements (each <use> counted as the "
                                 f"elements it repeats), expected at most {MAX_ELEMENTS:,}"),
    ("many-rects", rects_svg(200_000), f"it holds more than {MAX_ELEMENTS:,} elements"),
    ("use-loop", f'<svg {SVG_NS} viewBox="0 0 10 10"><g id="loop"><rect width="5" height="5"/>'
                 '<use href="#loop"/></g></svg>', "a <use> repeats an element that holds it (id 'loop'), "
                                                  "expected uses that end"),
])
def test_an_svg_too_large_to_draw_is_refused_before_it_is_drawn(tmp_path: Path, case: str, picture: str,
                                                                 expected: str):
    """An SVG whose drawing is unbounded work is refused, located at the card that names it, exit 2; the kit
    built before from the same library is left as it was."""
    content = tmp_path / "content"
    content.mkdir()
    (content / "ok.svg").write_text(rects_svg(3))
    (content / "pics.yaml").write_text(ACTIVITY + "      - {id: a, count: 1, image: ok.svg}\n")
    assert kitgen(tmp_path, "build", "pics", "--content", "content", "--out", "out").returncode == 0
    before = outputs(tmp_path / "out")
    (content / "bad.svg").write_text(picture)
    (content / "pics.yaml").write_text(ACTIVITY + "      - {id: a, count: 1, image: bad.svg}\n")
    lines = refused(kitgen(tmp_path, "build", "pics", "--content", "content", "--out", "out"))
    assert lines[0].startswith("content/pics.yaml:15:34: decks[0].cards[0].image: 'bad.svg' cannot be printed: "
                               + expected), lines
    assert outputs(tmp_path / "out") == before


# --------------------------------------------------------------------------- spreadsheet headings in linear work


WIDE = small_activity("wide", "Wide sheet", "A tiny activity whose cards come from a wide spreadsheet.",
                      "{file: wide.csv, data: [legs, wings]}")


class CountingList(list):  # type: ignore[type-arg]
    """A list that counts the elements every search and walk of it visits."""

    visits = 0

    def __contains__(self, item: object) -> bool:
        CountingList.visits += len(self)
        return list.__contains__(self, item)

    def __iter__(self):  # type: ignore[no-untyped-def]
        CountingList.visits += len(self)
        return list.__iter__(self)

    def index(self, *args):  # type: ignore[no-untyped-def]
        CountingList.visits += len(self)
        return list.index(self, *args)


def wide_library(tmp_path: Path, columns: int, empty_every: int = 0, prefix: str = "") -> Path:
    headings = ["id", "name"] + ["" if empty_every and i % empty_every == 0 else f"{prefix}col{i}"
                                 for i in range(columns)]
    content = tmp_path / "content"
    content.mkdir()
    (content / "wide.yaml").write_text(WIDE)
    (content / "wide.csv").write_text(",".join(headings) + "\n" + ",".join(["a", "A"] + ["x"] * columns) + "\n")
    return content / "wide.yaml"


@pytest.mark.parametrize("columns", [2_000, 20_000])
def test_a_heading_row_of_many_unknown_columns_is_read_in_linear_work(tmp_path: Path, monkeypatch, columns: int):
    """20,000 unknown (and some empty) headings: every one is a located problem, and the work counted (elements
    of the heading row visited, names compared for a "did you mean") grows with the columns, not their square."""
    import difflib

    from kitgen.core.errors import ContentError
    from kitgen.load import load_activity
    from kitgen.load import spreadsheets

    reading = spreadsheets.read_table

    def counted_table(*args, **kwargs):  # type: ignore[no-untyped-def]
        table = reading(*args, **kwargs)
        table.headers = CountingList(table.headers)
        return table

    compared = [0]
    matching = difflib.get_close_matches

    def counted_matches(word, possibilities, *args, **kwargs):  # type: ignore[no-untyped-def]
        compared[0] += len(possibilities)
        return matching(word, possibilities, *args, **kwargs)

    monkeypatch.setattr(spreadsheets, "read_table", counted_table)
    monkeypatch.setattr(difflib, "get_close_matches", counted_matches)
    CountingList.visits = 0
    with pytest.raises(ContentError) as caught:
        load_activity(wide_library(tmp_path, columns, empty_every=1000))
    problems = caught.value.problems
    assert sum("unknown column" in p.message for p in problems) == columns - columns // 1000
    assert sum("a column without a heading" in p.message for p in problems) == columns // 1000
    assert sum("no column 'legs'" in p.message for p in problems) == 1
    assert CountingList.visits <= 10 * (columns + 2), CountingList.visits
    assert compared[0] <= 100 * (columns + 2), compared[0]


def test_a_missing_column_message_lists_the_first_columns_only(tmp_path: Path):
    """`no column 'legs'; its columns: ...` names the first 20 columns and says how many more there are (500
    data columns, each headed `data.<name>`: valid, so the two missing ones are the only problems)."""
    run = kitgen(wide_library(tmp_path, 500, prefix="data.").parent.parent, "check", "wide", "--content", "content")
    lines = refused(run)
    assert len(lines) == 2, lines
    assert lines[0].endswith("no column 'legs' in content/wide.csv; its columns: id, name, "
                             + ", ".join(f"data.col{i}" for i in range(18)) + " and 482 more"), lines


# --------------------------------------------------------------------------- long problem lists, capped


def test_an_error_prints_its_first_problems_and_counts_the_rest():
    from kitgen.core.errors import ContentError, Problem, SHOWN_PROBLEMS

    error = ContentError([Problem("a.yaml", line, 1, f"problem {line}") for line in range(100_000, 0, -1)])
    lines = str(error).splitlines()
    assert len(error.problems) == 100_000  # every one kept, and counted
    assert lines[:2] == ["a.yaml:1:1: problem 1", "a.yaml:2:1: problem 2"]  # in file order
    assert len(lines) == SHOWN_PROBLEMS + 1 and lines[-1] == f"… and {100_000 - SHOWN_PROBLEMS:,} more problems"
    assert str(ContentError([Problem("a.yaml", 1, 1, "x")] * (SHOWN_PROBLEMS + 1))).endswith("… and 1 more problem")
    assert "more" not in str(ContentError([Problem("a.yaml", 1, 1, "x")] * SHOWN_PROBLEMS))


def test_a_file_of_100000_problems_prints_a_page(tmp_path: Path):
    """100,000 unknown headings (and two declared columns missing): the first 100 problems, in file order, then
    how many more; the output stays a page, and the missing columns are counted among the rest."""
    from kitgen.core.errors import SHOWN_PROBLEMS

    wide_library(tmp_path, 100_000)
    run = kitgen(tmp_path, "check", "wide", "--content", "content")
    lines = refused(run)
    problems = 100_000 + 2  # each unknown heading, and `legs` and `wings` declared under data
    assert len(lines) == SHOWN_PROBLEMS + 1, lines[-3:]
    assert lines[-1] == f"… and {problems - SHOWN_PROBLEMS:,} more problems"
    assert lines[0].startswith("content/wide.csv:1:3 (column 'col0'): unknown column 'col0'")
    assert lines[SHOWN_PROBLEMS - 1].startswith("content/wide.csv:1:102 (column 'col99'): unknown column")
    assert len(run.stderr) < SHOWN_PROBLEMS * 400


def test_did_you_mean_is_looked_for_a_bounded_number_of_times(tmp_path: Path, monkeypatch):
    """2,000 unknown keys in a card and 300 unknown picture names: each is a located problem, and the searches
    for a close name (each compares it with every key, or thousands of picture names) stop at MAX_HINTS a list."""
    import difflib

    from kitgen.core.errors import ContentError, MAX_HINTS
    from kitgen.load import load_activity
    from kitgen.render.kit import card_pictures

    searches = [0]
    matching = difflib.get_close_matches

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        searches[0] += 1
        return matching(*args, **kwargs)

    monkeypatch.setattr(difflib, "get_close_matches", counted)
    content = tmp_path / "content"
    content.mkdir()
    keys = ", ".join(f"colour{i}: red" for i in range(2_000))
    (content / "pics.yaml").write_text(ACTIVITY + f"      - {{id: a, count: 1, {keys}}}\n")
    with pytest.raises(ContentError) as caught:
        load_activity(content / "pics.yaml")
    assert sum("unknown key 'colour" in p.message for p in caught.value.problems) == 2_000
    assert "did you mean 'color'?" in caught.value.problems[1].message
    assert searches[0] <= MAX_HINTS

    searches[0] = 0
    cards = "".join(f"      - {{id: c{i}, count: 1, picture: zebrafoxling{i}}}\n" for i in range(300))
    (content / "pics.yaml").write_text(ACTIVITY + cards)
    _found, problems = card_pictures(load_activity(content / "pics.yaml"))
    assert len(problems) == 300 and all("no picture named 'zebrafoxling" in p.message for p in problems)
    assert searches[0] <= MAX_HINTS


# --------------------------------------------------------------------------- workbooks and pictures: declarations, sizes


SHEET = """\
id: sheet
title: Sheet
purpose: A tiny activity whose cards come from a spreadsheet.
category: Test
players: 2
minutes: 10
rules:
  prepare: Shuffle the cards.
  play: Take turns.
decks:
  - id: main
    name: Main
    back: {title: Main}
    cards: {file: cards.%s}
"""
LAUGHS = ('<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
          '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>')


def with_declaration(path: Path, part: str) -> None:
    """The workbook at `path` with an entity declaration put before the root element of its `part`."""
    import zipfile

    with zipfile.ZipFile(path) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    text = parts[part].decode()
    head = text.index("?>") + 2 if text.startswith("<?xml") else 0
    parts[part] = (text[:head] + LAUGHS + text[head:]).replace("<t>cat</t>", "<t>&lol3;</t>").encode()
    path.unlink()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


@pytest.mark.parametrize("suffix, part", [("xlsx", "xl/worksheets/sheet1.xml"), ("xlsx", "xl/workbook.xml"),
                                          ("ods", "content.xml")])
def test_a_workbook_with_a_doctype_is_refused_before_it_is_read(tmp_path: Path, suffix: str, part: str):
    from sheetfiles import write_ods, write_xlsx

    content = tmp_path / "content"
    content.mkdir()
    (content / "sheet.yaml").write_text(SHEET % suffix)
    rows = [["id", "name"], ["cat", "Cat"]]
    (write_xlsx if suffix == "xlsx" else write_ods)(content / f"cards.{suffix}", {"Sheet1": rows})
    assert kitgen(tmp_path, "check", "sheet", "--content", "content").returncode == 0
    with_declaration(content / f"cards.{suffix}", part)
    lines = refused(kitgen(tmp_path, "check", "sheet", "--content", "content"))
    assert lines == [f"content/cards.{suffix}: its part {part} holds a <!DOCTYPE> declaration, expected a workbook "
                     "as spreadsheet programs save it (without DOCTYPE or entity declarations)"]


def png_header_only(path: Path, width: int, height: int, color_type: int = 6) -> None:
    """A PNG that declares `width` × `height` pixels (RGBA by default) and holds one row: a few hundred bytes
    that ask a decoder for width × height × 4 bytes."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\0" + b"\0" * width * 4
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(row, 9)) + chunk(b"IEND", b""))


def test_a_png_too_large_once_decoded_is_refused_from_its_header(tmp_path: Path):
    """A PNG of 5,000 × 6,000 RGBA pixels (under the pixel limit, 120 MB decoded) is refused from its header,
    before a pixel is decoded: exit 2, located at its card, the process small."""
    from kitgen.pictures.files import MAX_DECODED_BYTES, MAX_PIXELS

    assert 5_000 * 6_000 < MAX_PIXELS < 5_000 * 6_000 * 4
    content = tmp_path / "content"
    content.mkdir()
    png_header_only(content / "big.png", 5_000, 6_000)
    (content / "pics.yaml").write_text(ACTIVITY + "      - {id: a, count: 1, image: big.png}\n")
    run = kitgen(tmp_path, "check", "pics", "--content", "content")
    assert refused(run) == ["content/pics.yaml:15:34: decks[0].cards[0].image: 'big.png' is 5000 × 6000 pixels of "
                            f"RGBA, 120 MB decoded, expected at most {MAX_DECODED_BYTES // 1_000_000} MB (fewer "
                            "pixels, or without transparency)"]
    assert run.peak < 300 * 1024 ** 2, run.peak


# --------------------------------------------------------------------------- pydantic's words never reach the user


WRONG_VALUES = """\
id: wrong
title: [1, 2]
purpose: {a: 1}
category: 3.5
players: true
minutes: 2.5
font: big
rules:
  prepare: 12
  play: [{x: 1}]
  example:
    - title: W
      start: {ana: {coins: -1, gold: 1.5, wood: "x"}}
      steps:
        - text: hi
          gain: {coins: 0, gold: -2, wood: [1]}
          pay: 5
          build: {a: 1}
          move: 3.5
    - 17
    - null
decks:
  - id: main
    name: Main
    back: {title: Main, symbol: [1]}
    layout: huge
    cards:
      - {id: a, count: 1.5, data: {x: [1, 2], y: {z: [1]}, w: null, Gold: [1]}, show_title: maybe, qr: "no url"}
      - {id: b, count: "x", name: null, layout: 3, fit: wide, colour: red}
      - {id: c, count: -1, text: {a: 1}, name: ""}
      - {id: d, count: 100000000000, caption: "%s"}
      - [1, 2]
      - 5
  - id: made
    name: Made
    back: {title: Made}
    generate:
      product: {n: [1, 2]}
      card: {id: "c{{ n }}", count: 1, data: {x: [1]}}
""" % ("x" * 300)
PYDANTIC_WORDS = ("Input should", "should be", "should have", "type=", "pydantic", "constrained-", "function-",
                  "lax-or-strict", "json-or-python", "dict[", "list[", "union[", "Value error", "Assertion failed",
                  "validation error", "Field required", "Extra inputs", "input_value", "Walkthrough.", ".str",
                  ".int", ".float", ".bool", "got None", "got True")


def test_every_kind_of_wrong_value_is_described_in_our_words_at_its_place(tmp_path: Path):
    """Wrong types, sizes, patterns, unions (text or a walkthrough, counts or names, a data value) and a
    template-made card: every problem in our words, at the value the author wrote (never the top of a union)."""
    content = tmp_path / "content"
    content.mkdir()
    (content / "wrong.yaml").write_text(WRONG_VALUES)
    lines = refused(kitgen(tmp_path, "check", "wrong", "--content", "content"))
    for line in lines:
        assert not any(word in line for word in PYDANTIC_WORDS), line
    text = "\n".join(lines)
    for expected in [
        "content/wrong.yaml:13:28: rules.example[0].start.ana.coins: expected a number of at least 0, got -1",
        "content/wrong.yaml:16:25: rules.example[0].steps[0].gain.coins: expected a positive integer, got 0",
        "content/wrong.yaml:17:16: rules.example[0].steps[0].pay: expected a mapping of keys and values or a "
        "list, got 5",
        "content/wrong.yaml:20:7: rules.example[1]: expected text or a mapping of keys and values, got 17",
        "content/wrong.yaml:21:7: rules.example[2]: expected text or a mapping of keys and values, got nothing",
        "content/wrong.yaml:28:39: decks[0].cards[0].data.x: expected true or false, a whole number, a number, "
        "text or a mapping of keys and values, got a list",
        "content/wrong.yaml:28:54: decks[0].cards[0].data.y.z: expected true or false, a whole number, a number "
        "or text, got a list",
        "decks[0].cards[0].data.Gold: expected true or false",
        "decks[0].cards[0].qr: expected a web address starting with https:// or http://, got 'no url'",
        "content/wrong.yaml:5:10: players: expected a number such as 20 or a range such as '20-25', got true",
        "content/wrong.yaml:6:10: minutes: expected a number such as 20 or a range such as '20-25', got 2.5",
        "decks[0].cards[1].colour: unknown key 'colour', did you mean 'color'?",
        "decks[0].cards[2].name: expected non-empty text, got ''",
        "decks[0].cards[3].caption: text too long, expected at most 200 characters",
        "decks[1]: card template gives an invalid card: data.x: expected true or false, a whole number, a number, "
        "text or a mapping of keys and values, got a list",
    ]:
        assert expected in text, expected
    assert not any("rules.example[0]: expected text" in line for line in lines)  # the walkthrough was meant
    assert not any("steps[0].gain: expected a list" in line for line in lines)  # the counts were meant


def test_a_placeholder_that_fills_in_a_wrong_value_is_located(tmp_path: Path):
    """Text that placeholders fill in is held to the schema: empty once filled is a located problem in our
    words, not an internal error quoting pydantic."""
    content = tmp_path / "content"
    content.mkdir()
    (content / "pics.yaml").write_text(
        ACTIVITY.replace("prepare: Shuffle the cards.", 'prepare: "{{ cards.a.blank }}"')
        + '      - {id: a, count: 1, data: {blank: "   "}}\n')
    lines = refused(kitgen(tmp_path, "check", "pics", "--content", "content"))
    assert lines == ["content/pics.yaml:8:12: rules.prepare[0]: expected non-empty text, got '' (once its "
                     "placeholders are filled)"]


# --------------------------------------------------------------------------- CSV files that are not UTF-8


def sheet_csv(tmp_path: Path, data: bytes, reference: str = "cards.csv") -> Path:
    content = tmp_path / "content"
    content.mkdir()
    (content / "sheet.yaml").write_text((SHEET % "csv").replace("{file: cards.csv}", f"{{{reference}}}"
                                                                if reference != "cards.csv" else "{file: cards.csv}"))
    (content / "cards.csv").write_bytes(data)
    return tmp_path


JAPANESE = "id,name\ncat,Cat\nneko,ねこ (猫)\n"


def test_an_undeclared_shift_jis_file_is_refused_at_its_first_japanese_byte(tmp_path: Path):
    """A Japanese spreadsheet saved as Shift-JIS, its encoding not declared: not printed as mojibake, but refused
    at the line and column of the first byte that is not UTF-8, naming UTF-8 and how to save it."""
    sheet_csv(tmp_path, JAPANESE.encode("shift_jis"))
    assert refused(kitgen(tmp_path, "check", "sheet", "--content", "content")) == [
        'content/cards.csv:3:6: expected UTF-8 text, and this looks like Shift-JIS (Japanese) from here: save it '
        'as "CSV UTF-8" in the spreadsheet program, or add encoding: shift_jis to the file\'s reference']


def test_a_declared_shift_jis_file_is_read(tmp_path: Path):
    from kitgen.load import load_activity

    sheet_csv(tmp_path, JAPANESE.encode("shift_jis"), reference="file: cards.csv, encoding: shift_jis")
    loaded = load_activity(tmp_path / "content" / "sheet.yaml")
    assert [card.name for card in loaded.activity.decks[0].cards] == ["Cat", "ねこ (猫)"]


def test_a_file_in_no_encoding_we_can_tell_is_refused_at_its_first_bad_byte(tmp_path: Path):
    """Bytes neither UTF-8 nor Windows' Western European (0x81 is undefined there): refused, located, where they
    were once read as Latin-1 without a word."""
    sheet_csv(tmp_path, b"id,name\ncat,Cat\ncaf,Caf\x81\n")
    assert refused(kitgen(tmp_path, "check", "sheet", "--content", "content")) == [
        "content/cards.csv:3:8: expected UTF-8 text (or Windows' Western European, cp1252), and byte 0x81 here is "
        "neither: save it as \"CSV UTF-8\" in the spreadsheet program, or add the encoding it has (encoding: ...) "
        "to the file's reference"]


def test_a_western_european_file_is_still_read(tmp_path: Path):
    from kitgen.load import load_activity

    sheet_csv(tmp_path, "id;name\ncafe;Café crème\n".encode("cp1252"))
    loaded = load_activity(tmp_path / "content" / "sheet.yaml")
    assert [card.name for card in loaded.activity.decks[0].cards] == ["Café crème"]


# --------------------------------------------------------------------------- cache entries sealed


class Planted:
    """Unpickled, it leaves a file named `path`: what a tampered cache entry could do."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Path.touch, (self.path,))


def test_a_sealed_entry_is_read_only_with_its_seal(tmp_path: Path, monkeypatch):
    import hashlib

    from kitgen.core import cache

    monkeypatch.setenv("KITGEN_CACHE", str(tmp_path / "cache"))
    entry = cache.cache_file("fonts", "x.pickle")
    assert entry is not None
    cache.keep_sealed(entry, b"payload")
    assert cache.recall_sealed(entry) == b"payload"
    data = entry.read_bytes()
    entry.write_bytes(data[:-1] + b"P")  # one byte changed
    assert cache.recall_sealed(entry) is None
    entry.write_bytes(data[:-3])  # cut short
    assert cache.recall_sealed(entry) is None
    forged = b"evil"  # sealed by someone without the key: a digest anyone can compute
    entry.write_bytes(cache.SEALED_MAGIC + hashlib.blake2b(forged, digest_size=cache.SEAL_BYTES).digest() + forged)
    assert cache.recall_sealed(entry) is None
    entry.write_bytes(b"an entry of an earlier version, not sealed")
    assert cache.recall_sealed(entry) is None
    key = tmp_path / "cache" / f"seal-{cache.__version__}" / "key"
    assert key.stat().st_mode & 0o077 == 0, "the key is the user's alone"


def test_a_tampered_font_cache_is_never_unpickled_and_is_rebuilt(tmp_path: Path):
    """Every font-metrics and compiled-template entry replaced by a pickle that leaves a file when loaded (bare,
    or behind a seal made without the key): the build is as without a cache, nothing is unpickled, and the
    entries it needs are rebuilt."""
    import pickle
    import shutil

    from kitgen.core.cache import SEAL_BYTES, SEALED_MAGIC

    content = tmp_path / "content"
    content.mkdir()
    shutil.copyfile(CONTENT / "growing-discard.yaml", content / "growing-discard.yaml")
    env = kitgen_env(tmp_path, KITGEN_CACHE=str(tmp_path / "cache"))

    def build(out: str, cache: str = str(tmp_path / "cache")) -> dict[str, bytes]:
        run = forked.run(["build", "growing-discard", "--content", "content", "--out", out], cwd=tmp_path,
                         env={**env, "KITGEN_CACHE": cache}, timeout=HANG_GUARD)
        assert run.returncode == 0, run.stderr[-3000:]
        return {name: data for name, data in outputs(tmp_path / out).items() if name.endswith(".pdf")}

    build("out1")
    planted = [p for p in (tmp_path / "cache").rglob("*") if p.suffix in (".pickle", ".bytecode")]
    assert {p.suffix for p in planted} == {".pickle", ".bytecode"}
    written = {}
    for number, path in enumerate(planted):  # a bare pickle, and one behind a seal made without the key
        payload = pickle.dumps(Planted(tmp_path / f"unpickled-{number}"))
        written[path] = payload if number % 2 == 0 else SEALED_MAGIC + bytes(SEAL_BYTES) + payload
        path.write_bytes(written[path])
    activity = content / "growing-discard.yaml"  # edited: the kit is drawn anew, with the fonts and templates
    activity.write_text(activity.read_text(encoding="utf-8").replace("\ntitle: ", "\ntitle: New ", 1), encoding="utf-8")
    assert build("out2") == build("out3", cache="off")
    assert not list(tmp_path.glob("unpickled-*")), "a tampered cache entry was unpickled"
    rebuilt = {p for p in planted if p.read_bytes() != written[p]}
    assert {p for p in planted if p.suffix == ".pickle"} <= rebuilt  # every font the new drawing measured with
    assert any(p.suffix == ".bytecode" for p in rebuilt)  # (a template this build did not need is left as it was)

"""Properties (hypothesis): whatever a content file holds, kitgen answers with a kit or a KitgenError.

1. Arbitrary YAML documents (nested mappings, lists and scalars, dumped with yaml.safe_dump), arbitrary text and
   growing-discard with one value replaced by arbitrary data: `load_activity` (and the content checks after it)
   raise nothing but ContentError / UsageError, or return a valid activity.
2. Arbitrary text in every string field of growing-discard (title, purpose, a rule paragraph, a card text, a
   host-key item): the build succeeds or raises a KitgenError; when it succeeds, a short text the bundled font
   can draw is printed in the PDFs (read back with PDFium; test_hardening.py reads them with pdfplumber).

Runs are derandomized (the same examples every run) and keep no example database, so the suite is repeatable
and writes nothing into the repository. A property that allows refusal would pass if kitgen refused everything,
so each one also has inputs it must accept: text the font prints as it is always builds and is found in the
PDFs, and the anchors at the end load or build what is valid. Bugs found this way are tested in
test_hardening.py and test_scripts.py (characters beyond U+FFFF and right-to-left text are refused).
"""
from __future__ import annotations

import itertools
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import event as _event
from hypothesis.control import currently_in_test_context
from hypothesis import strategies as st

from kitgen.app.build import build, BuildOptions
from kitgen.check.content import check_activity
from kitgen.core.errors import ContentError, KitgenError, UsageError
from kitgen.load.library import Library
from kitgen.load import load_activity, LoadedActivity
from kitgen.load.model import Activity
from kitgen.fonts.registry import missing_glyphs

from conftest import yaml_data

REPO = Path(__file__).resolve().parents[1]
GROWING = REPO / "content" / "growing-discard.yaml"
ACTIVITY = "growing-discard"

BOUNDED = settings(max_examples=60, deadline=None, database=None, derandomize=True,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

_counter = itertools.count()


def event(label: str) -> None:
    """Count an outcome in hypothesis's statistics (the anchor tests call the same bodies outside hypothesis)."""
    if currently_in_test_context():
        _event(label)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for every generated file of this module (hypothesis cannot use function-scoped tmp_path)."""
    return tmp_path_factory.mktemp("properties")


def fresh_file(folder: Path, data: bytes) -> Path:
    """A new file for every example (never rewrite a path: the loader caches by path, mtime and size)."""
    path = folder / f"doc-{next(_counter)}.yaml"
    path.write_bytes(data)
    return path


def growing() -> dict:
    data: dict = yaml_data(GROWING.read_text(encoding="utf-8"))
    return data


# --------------------------------------------------------------------------- 1. loading anything

FIELD_NAMES = sorted({name for model in (Activity,) for name in model.model_fields} | {
    "prepare", "play", "example", "cards", "count", "id", "name", "back", "text", "data", "generate", "product",
    "card", "optional", "min", "max", "examples", "hand", "sum", "unit", "buys", "sections", "items", "decks",
    "pattern", "symbol", "caption", "footer", "color", "<<"})

keys = st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=8), st.integers(-3, 3),
                 st.sampled_from([None, True, 1.5]))
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                    st.text(max_size=30), st.sampled_from(["poker", "63x88mm", "20-25", "2", "{{ x }}", "-1",
                                                           "stripes", "", " "]))
documents = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=5)), max_leaves=30)


def dump(document: Any) -> bytes:
    return yaml.safe_dump(document, allow_unicode=True, sort_keys=False).encode("utf-8")


def load_and_check(path: Path) -> LoadedActivity | None:
    """Load (and check) one file; only kitgen's own errors may come out."""
    try:
        loaded = load_activity(path)
        check_activity(loaded)
    except (ContentError, UsageError) as error:
        assert str(error).strip(), "an error with no message"
        event(f"refused: {type(error).__name__}")
        if isinstance(error, ContentError):
            assert error.problems and all(p.line >= 1 and p.column >= 1 for p in error.problems)
        return None
    assert isinstance(loaded.activity, Activity)
    event("valid activity")
    return loaded


@BOUNDED
@given(document=documents)
def test_any_yaml_document_loads_or_is_a_content_error(scratch: Path, document: Any):
    load_and_check(fresh_file(scratch, dump(document)))


@BOUNDED
@given(text=st.text(max_size=300))
def test_any_text_loads_or_is_a_content_error(scratch: Path, text: str):
    load_and_check(fresh_file(scratch, text.encode("utf-8", "surrogatepass")))


@BOUNDED
@given(raw=st.binary(max_size=300))
def test_any_bytes_load_or_are_a_content_error(scratch: Path, raw: bytes):
    load_and_check(fresh_file(scratch, raw))


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, prefix + (index,))
    return found


GROWING_PATHS = _paths(growing())[1:]


@BOUNDED
@given(where=st.sampled_from(GROWING_PATHS), value=documents, delete=st.booleans())
def test_growing_discard_with_one_value_replaced(scratch: Path, where: tuple, value: Any, delete: bool):
    """Near-valid content reaches the schema and the content checks: replace (or delete) one value."""
    data = growing()
    parent = data
    for part in where[:-1]:
        parent = parent[part]
    if delete:
        del parent[where[-1]]
    else:
        parent[where[-1]] = value
    load_and_check(fresh_file(scratch, dump(data)))


# --------------------------------------------------------------------------- 2. text in every field

MARKUP = "<>&\"'/{}=;#*|%!"
# At most 40 characters, to keep the builds quick (test_hardening.py builds a 60-letter title).
field_text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.sampled_from(MARKUP + "ab <b>i</i>&amp;"), max_size=25),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=15),
    st.text(alphabet=st.characters(categories=("L", "N", "P", "S", "Zs"), max_codepoint=0x2FFF), min_size=1,
            max_size=20),
)


def put_everywhere(data: dict, text: str) -> None:
    data["title"] = text
    data["purpose"] = text
    data["rules"]["play"][0] = text
    data["decks"][0]["cards"][0]["text"] = text
    # a different string in the host key, so that the leak check has no reason to stop the build
    data["host_key"]["sections"][0]["items"][0] = f"For the adult: {text}"


def printable_as_is(text: str) -> bool:
    """Short text the bundled font draws and the PDF text layer gives back unchanged: Basic Multilingual Plane,
    no controls, format or combining characters, no right-to-left scripts, no placeholder braces."""
    return (0 < len(text) <= 20 and text == text.strip() and not missing_glyphs(text) and "{" not in text
            and all(ord(ch) <= 0xFFFF and (ch == " " or not ch.isspace())
                    and unicodedata.category(ch)[0] not in "CM"
                    and unicodedata.bidirectional(ch) not in ("R", "AL", "AN", "RLE", "RLO", "RLI")
                    for ch in text))


def squeeze(text: str) -> str:
    return "".join(text.split())


def page_text(path: Path, page: int = 0, left_column: bool = False) -> str:
    """Text of one page, read with PDFium (a second, independent extractor, and fast enough for 60 builds);
    `left_column` keeps only the first column of cards (cards of one row print side by side, so their lines
    would interleave in the page text)."""
    document = pdfium.PdfDocument(str(path))
    try:
        sheet = document[page]
        text = sheet.get_textpage()
        width, height = sheet.get_size()
        if not left_column:
            return text.get_text_range()
        left = min(text.get_charbox(i)[0] for i in range(text.count_chars()))
        return text.get_text_bounded(0, 0, min(left + 170, width), height)
    finally:
        document.close()


@settings(BOUNDED, max_examples=8)
@given(text=field_text)
def test_any_text_in_every_field_builds_or_is_a_kitgen_error(text: str):
    """Eight texts in the unit suite (each is a whole build); the long run below tries 60."""
    any_text_in_every_field(text)


@pytest.mark.slow  # a long property run: 60 builds
@BOUNDED
@given(text=field_text)
def test_any_text_in_every_field_long_run(text: str):
    any_text_in_every_field(text)


def any_text_in_every_field(text: str) -> None:
    """Every field of growing-discard set to `text`: it builds and is printed, or is refused as a kitgen error."""
    data = growing()
    put_everywhere(data, text)
    with tempfile.TemporaryDirectory(prefix="kitgen-prop-") as tmp:
        content = Path(tmp) / "content"
        content.mkdir()
        (content / f"{ACTIVITY}.yaml").write_bytes(dump(data))
        try:
            result = build(ACTIVITY, BuildOptions(out_dir=Path(tmp) / "out"), Library.open(content))
        except KitgenError as error:
            assert str(error).strip()
            assert not printable_as_is(text), f"printable text {text!r} was refused: {error}"
            event(f"refused: {type(error).__name__}")
            return
        files = {f.role: f.path for f in result.files}
        assert all(path.is_file() for path in files.values())
        if not printable_as_is(text):
            event("built")
            return
        event("built and found in the PDFs")
        wanted = squeeze(text)
        sheets = squeeze(page_text(files["sheets"]))
        assert sheets.count(wanted) >= 3, "title, purpose and the rule are all printed on the rules page"
        assert squeeze(f"For the adult: {text}") in squeeze(page_text(files["host-key"]))
        assert wanted in squeeze(page_text(files["cards"], 0, left_column=True))


# --------------------------------------------------------------------------- anchors: what must be accepted


def test_the_loading_property_accepts_a_valid_activity(scratch: Path):
    """The helper the loading properties share returns the activity for valid content (a helper that refused
    everything would let every loading property pass)."""
    loaded = load_and_check(fresh_file(scratch, dump(growing())))
    assert loaded is not None and loaded.activity.id == ACTIVITY


@pytest.mark.parametrize("where", [("title",), ("rules", "play", 0), ("decks", 0, "cards", 0, "text")])
def test_replacing_a_value_by_an_equal_one_stays_valid(scratch: Path, where: tuple):
    data = growing()
    parent = data
    for part in where[:-1]:
        parent = parent[part]
    parent[where[-1]] = str(parent[where[-1]])
    assert load_and_check(fresh_file(scratch, dump(data))) is not None


@pytest.mark.parametrize("text", ["Hello", "Ça va, Zoë?", "a < b & c", "Ünïcödé ×÷"])
def test_printable_text_in_every_field_builds_and_prints(text: str):
    assert printable_as_is(text)
    test_any_text_in_every_field_builds_or_is_a_kitgen_error.hypothesis.inner_test(text=text)

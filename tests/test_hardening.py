"""Hardening: broken content is reported clearly, content cannot inject markup or reach outside its folders,
and a failed or interrupted build never loses or corrupts the kit that was there before.

Every test works on copies in a temporary folder: the corpus in tests/broken (one small broken activity per
file, its expected first error line in a `# expect:` comment) and content/growing-discard.yaml, changed in code.
Tests that show a kitgen bug are marked `xfail(strict=True)` with the bug in the reason.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pypdf
import pytest
import yaml
from conftest import TooMuchWork, folder_activity, growing_data, page_texts, write_activity
from click.testing import CliRunner, Result

import kitgen.core.atomic
import kitgen.write.kitdir
from kitgen.load import yaml_source
from kitgen.app.build import build, BuildOptions
from kitgen.cli import main
from kitgen.core.errors import ContentError, KitgenError
from kitgen.load.library import Library
from kitgen.load import load_activity

REPO = Path(__file__).resolve().parents[1]
BROKEN = Path(__file__).resolve().parent / "broken"
ACTIVITY = "growing-discard"
CASES = sorted(BROKEN.glob("*.yaml"))


# --------------------------------------------------------------------------- helpers


def run_cli(*args: str) -> Result:
    """`kitgen ARGS` in-process; stderr is kept apart from stdout (click ≥ 8.2)."""
    return CliRunner().invoke(main, list(args))


def assert_clean_exit(result: Result, code: int) -> None:
    """The exit status is `code`, the CLI exited on purpose (no escaped exception) and shows no traceback."""
    escaped = result.exception if not isinstance(result.exception, SystemExit) else None
    assert escaped is None, f"an exception escaped the CLI: {escaped!r}"
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    assert result.exit_code == code, f"exit {result.exit_code}, expected {code}\n{result.output}"




def growing_variant(content: Path, change: Callable[[dict], Any] | None = None) -> Path:
    """A copy of growing-discard in `content`, changed by `change(data)`."""
    data = growing_data()
    if change:
        change(data)
    return write_activity(content, data)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def pdf_text(path: Path, pages: slice = slice(None)) -> str:
    """Extracted text (PDFium), whitespace collapsed to single spaces."""
    return " ".join(" ".join(text.split()) for text in page_texts(path)[pages])


def first_problem(case: Path) -> list[str]:
    """The `# expect:` line (and any `# also:` lines after it) at the top of a corpus file."""
    lines = case.read_bytes().split(b"\n")
    assert lines[0].startswith(b"# expect: "), f"{case.name} must start with '# expect: <first error line>'"
    expected = [lines[0][len(b"# expect: "):].decode("utf-8")]
    for line in lines[1:]:
        if not line.startswith(b"# also: "):
            break
        expected.append(line[len(b"# also: "):].decode("utf-8"))
    return expected


# --------------------------------------------------------------------------- 1. the broken corpus

CORPUS_BUGS: dict[str, str] = {}  # corpus files whose expected line shows a known kitgen bug


def _case(path: Path):
    reason = CORPUS_BUGS.get(path.stem)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(path, id=path.stem, marks=marks)


def test_corpus_is_large_enough():
    assert len(CASES) >= 15
    assert not set(CORPUS_BUGS) - {c.stem for c in CASES}, "CORPUS_BUGS names a file that is not in the corpus"


@pytest.mark.parametrize("case", [_case(p) for p in CASES])
def test_broken_activity_is_reported(case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """`kitgen build <id>` on one broken file: exit 2, no traceback, the expected located first line
    (and, where the file lists them, every further line), and nothing written or executed."""
    content = tmp_path / "content"
    content.mkdir()
    shutil.copyfile(case, content / case.name)
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", case.stem, "--content", "content", "--out", "out")

    shown = os.path.join("content", case.name)
    expected = [f"{shown}:{line}" for line in first_problem(case)]
    assert_clean_exit(result, 2)
    lines = result.stderr.splitlines()
    assert lines, "no error message"
    assert lines[0] == expected[0]
    if len(expected) > 1:  # several problems in one file are all reported at once, one line each
        assert lines == expected
    made = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert made == [shown], f"a rejected file must write (or run) nothing, found {made}"


def test_debug_shows_the_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Only `--debug` lets the error out of the CLI (so Python prints its traceback)."""
    content = tmp_path / "content"
    content.mkdir()
    shutil.copyfile(BROKEN / "wrong-type.yaml", content / "wrong-type.yaml")
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", "wrong-type", "--content", "content", "--out", "out", "--debug")
    assert isinstance(result.exception, ContentError)
    assert "count: expected a positive integer, got 'six'" in str(result.exception)


def test_several_problems_are_reported_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Four unrelated mistakes in one file: four lines, one per problem, in file order."""
    def spoil(data: dict) -> None:
        data["players"] = "two"
        data["minutes"] = "soon"
        data["decks"][0]["cards"][0]["count"] = -1
        data["decks"][2]["cards"][1]["colour"] = "red"

    growing_variant(tmp_path / "content", spoil)
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", ACTIVITY, "--content", "content", "--out", "out")
    assert_clean_exit(result, 2)
    lines = result.stderr.splitlines()
    shown = os.path.join("content", f"{ACTIVITY}.yaml")
    assert len(lines) == 4 and all(line.startswith(shown + ":") for line in lines), lines
    assert ["players:" in lines[0], "minutes:" in lines[1], "decks[0].cards[0].count:" in lines[2],
            "decks[2].cards[1].colour: unknown key 'colour', did you mean 'color'?" in lines[3]] == [True] * 4
    positions = [tuple(int(n) for n in line[len(shown) + 1:].split(":")[:2]) for line in lines]
    assert positions == sorted(positions)


@pytest.mark.parametrize("raw", [b"", b"\n  \n\t\n", b"\xef\xbb\xbf", b"\xef\xbb\xbf\n\n"],
                         ids=["zero-bytes", "blank-lines", "bom-only", "bom-and-blank"])
def test_empty_file(raw: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "empty.yaml").write_bytes(raw)
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", "empty", "--content", "content", "--out", "out")
    assert_clean_exit(result, 2)
    assert result.stderr.splitlines() == [
        f"{os.path.join('content', 'empty.yaml')}:1:1: the file is empty, expected an activity"]


def count_conversions(monkeypatch: pytest.MonkeyPatch, stop_after: int = 1_000_000) -> list[None]:
    """A list that grows by one for every YAML value kitgen converts; past `stop_after` the work is stopped."""
    converted: list[None] = []
    convert = yaml_source._Converter.convert

    def counted(self, node, loc):
        converted.append(None)
        if len(converted) > stop_after:
            raise TooMuchWork(f"more than {stop_after:,} YAML values converted")
        return convert(self, node, loc)

    monkeypatch.setattr(yaml_source._Converter, "convert", counted)
    return converted


def test_alias_bomb_fails_fast(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A billion-laughs file (10⁹ values from 100 aliases) and a merge-key variant stop at the 200,000-value cap
    with one clear error, instead of expanding: the values converted are counted."""
    merge_bomb = "a: &a {x0: 1, x1: 1, x2: 1, x3: 1, x4: 1, x5: 1, x6: 1, x7: 1, x8: 1, x9: 1}\n" + "".join(
        f"{c}: &{c} [" + ", ".join([f"*{p}"] * 10) + "]\n" for p, c in zip("abcdefgh", "bcdefghi"))
    merge_bomb += "z:\n  <<: [" + ", ".join(["*i"] * 10) + "]\n"
    for name, text in (("laughs", (BROKEN / "alias-bomb.yaml").read_text()), ("merge", merge_bomb)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        converted = count_conversions(monkeypatch)
        with pytest.raises(ContentError) as caught:
            load_activity(path)
        assert len(converted) <= 200_001  # values made: the expansion stopped at the cap (MAX_NODES)
        assert len(caught.value.problems) == 1
        assert "expands to more than" in str(caught.value) and "too many aliases" in str(caught.value)


def test_deeply_nested_yaml_is_a_content_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "deep.yaml").write_text("id: deep\ntitle: " + "[" * 600 + "]" * 600 + "\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", "deep", "--content", "content", "--out", "out")
    assert_clean_exit(result, 2)
    assert result.stderr.startswith(os.path.join("content", "deep.yaml") + ":")


def card_text_activity(text: str, tmp_path: Path, field: str = "text") -> Path:
    def change(data: dict) -> None:
        data["decks"][0]["cards"][0][field] = text
    return growing_variant(tmp_path / "content", change)


@pytest.mark.parametrize("text, what", [(" ".join(["word"] * 400), "the text does not fit on the card even at 7 pt"),
                                        ("A hieroglyph \U00013000 here", "'𓀀' (U+13000)")],
                         ids=["too-long", "no-font-no-picture"])
def test_unprintable_card_text_names_card_field_and_problem(text: str, what: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch):
    """Exit 2, no traceback; the message locates the card in the file, names card id, field and the problem."""
    card_text_activity(text, tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", ACTIVITY, "--content", "content", "--out", "out")
    assert_clean_exit(result, 2)
    message = result.stderr.strip()
    assert f"{os.path.join('content', ACTIVITY + '.yaml')}:" in message
    assert "decks[0].cards[0]" in message and "card 'C1'" in message and ", text:" in message
    assert what in message
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.pdf"))


def test_unicode_the_font_has_builds(tmp_path: Path):
    """DejaVu Sans has U+1F600 (unlike U+1F984): the kit builds, and a BMP character beside it extracts as is."""
    card_text_activity("Smile \U0001F600 now ☺", tmp_path)
    result = build(ACTIVITY, BuildOptions(out_dir=tmp_path / "out"), Library.open(tmp_path / "content"))
    cards = next(f.path for f in result.files if f.role == "cards")
    assert "now ☺" in pdf_text(cards, slice(0, 1))


def font_subsets(path: Path) -> set[str]:
    """The /BaseFont names of every font a PDF's pages and forms use (an embedded subset is `ABCDEF+Name`)."""
    names: set[str] = set()
    for page in pypdf.PdfReader(path).pages:
        resources = page["/Resources"].get_object()
        dictionaries = [resources] + [x.get_object()["/Resources"].get_object()
                                      for x in (resources.get("/XObject") or {}).values()]
        for dictionary in dictionaries:
            for font in (dictionary.get("/Font") or {}).values():
                names.add(str(font.get_object()["/BaseFont"]))
    return names


def test_cards_with_more_characters_than_one_font_subset_keep_every_word(tmp_path: Path):
    """Over 256 distinct characters (Latin, Greek, Cyrillic) make ReportLab split the font into several subsets;
    every word still prints and extracts as written, on every card that carries it."""
    codes = [*range(0xC0, 0x17F), *range(0x180, 0x1B0), *range(0x391, 0x3A9), *range(0x3B1, 0x3C9), *range(0x410, 0x450)]
    alphabet = [chr(c) for c in codes if chr(c).isalpha()]
    assert len(alphabet) > 300
    words = ["".join(alphabet[i:i + 9]) for i in range(0, len(alphabet), 9)]

    def change(data: dict) -> None:
        kinds = [card for deck in data["decks"] for card in deck["cards"]]
        for k, card in enumerate(kinds):  # every character once, spread over every card kind of every deck
            card["text"] = " ".join(words[k::len(kinds)])
            card.pop("caption", None)
    growing_variant(tmp_path / "content", change)
    result = build(ACTIVITY, BuildOptions(out_dir=tmp_path / "out"), Library.open(tmp_path / "content"))
    cards = next(f.path for f in result.files if f.role == "cards")
    regular = {name for name in font_subsets(cards) if "Bold" not in name}
    assert len(regular) >= 2, f"expected the regular face in several subsets, got {regular}"
    printed = pdf_text(cards).split()
    missing = [word for word in words if word not in printed]
    assert not missing, f"words lost or garbled: {missing[:5]}"


@pytest.mark.xfail(strict=True, reason="an emoji prints as a picture, and the PDF's text layer has no character "
                                       "for it: copy, search and screen readers skip it (other characters beyond "
                                       "U+FFFF, whose ToUnicode entry ReportLab writes wrong, are refused: "
                                       "tests/test_scripts.py)")
def test_character_beyond_the_bmp_extracts_correctly(tmp_path: Path):
    card_text_activity("Smile \U0001F600 now", tmp_path)
    result = build(ACTIVITY, BuildOptions(out_dir=tmp_path / "out"), Library.open(tmp_path / "content"))
    cards = next(f.path for f in result.files if f.role == "cards")
    assert "Smile \U0001F600 now" in pdf_text(cards, slice(0, 1))


@pytest.mark.parametrize("text", [pytest.param("{{ coins / 0 }}", id="zero-division"),
                                  pytest.param("{{ coins() }}", id="call-a-number"),
                                  pytest.param("{% for i in range(10**9) %}x{% endfor %}", id="huge-range")])
def test_failing_placeholder_is_a_located_content_error(text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    card_text_activity(text, tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", ACTIVITY, "--content", "content", "--out", "out")
    assert_clean_exit(result, 2)
    assert result.stderr.startswith(os.path.join("content", ACTIVITY + ".yaml") + ":")
    assert "decks[0].cards[0].text:" in result.stderr.splitlines()[0]


def test_control_character_in_content_is_located(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def change(data: dict) -> None:
        data["title"] = "Growing\x01discard"
    growing_variant(tmp_path / "content", change)
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", ACTIVITY, "--content", "content", "--out", "out")
    assert_clean_exit(result, 2)
    assert result.stderr.startswith(os.path.join("content", ACTIVITY + ".yaml") + ":")
    assert "title" in result.stderr


@pytest.mark.parametrize("where", ["title", "board-note"])
def test_long_unbreakable_text_is_reported_or_printed(where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def change(data: dict) -> None:
        if where == "title":
            data["title"] = "W" * 60
        else:
            data["boards"] = [{"id": "mat", "title": "Mat", "note": " ".join(["word"] * 200),
                               "positions": {"columns": 2, "rows": 1, "width": "70mm", "height": "95mm"}}]
    growing_variant(tmp_path / "content", change)
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", ACTIVITY, "--content", "content", "--out", "out")
    if where == "title":  # the sheet label breaks a 60-letter word and prints it whole
        assert_clean_exit(result, 0)
        sheets = tmp_path / "out" / ACTIVITY / f"{ACTIVITY}-sheets.pdf"
        assert "W" * 60 in "".join(pdf_text(sheets, slice(0, 1)).split())
    else:  # 200 words cannot fit a 70 × 95 mm place: said where, not shrunk out of sight
        assert_clean_exit(result, 2)
        first = result.stderr.splitlines()[0]
        assert first.startswith(os.path.join("content", f"{ACTIVITY}.yaml") + ":")
        assert "boards[0] (mat 'mat'): the text 'word word" in first and "does not fit on the mat" in first
        assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- 2. escaping

PAYLOADS = ['<img src="/etc/passwd"/>', "<font size=200>", "&amp;", "a < b & c"]


@pytest.fixture(scope="module")
def open_log():
    """Every path opened in this process while the returned list is 'recording' (an audit hook sees every
    open: builtins.open, io.open, os.open, Path.read_bytes, ReportLab's image readers)."""
    state: dict[str, list[str] | None] = {"paths": None}

    def hook(event: str, args: tuple) -> None:
        if event == "open" and state["paths"] is not None and not isinstance(args[0], int):
            state["paths"].append(os.fsdecode(args[0]))

    sys.addaudithook(hook)  # cannot be removed; it records nothing outside the `recording` blocks
    return state


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markup_in_content_prints_literally(payload: str, tmp_path: Path, open_log, monkeypatch):
    """Markup in a title, purpose, rule, card text and host-key item is printed character for character,
    and no file outside the kit's own inputs and output is opened (ReportLab would open <img src>)."""
    def change(data: dict) -> None:
        data["title"] = f"Title {payload}"
        data["purpose"] = f"Purpose {payload}"
        data["rules"]["play"][0] = f"Rule {payload}"
        data["decks"][0]["cards"][0]["text"] = payload
        data["host_key"]["sections"][0]["items"][0] = f"For the adult: {payload}"

    # a build first, unrecorded: what the first build of a process imports and caches is not what is tested
    build(ACTIVITY, BuildOptions(out_dir=tmp_path / "warm"), Library.open(REPO / "content"))
    growing_variant(tmp_path / "content", change)
    reads: list[str] = []
    monkeypatch.setitem(open_log, "paths", reads)
    result = build(ACTIVITY, BuildOptions(out_dir=tmp_path / "out"), Library.open(tmp_path / "content"))
    monkeypatch.setitem(open_log, "paths", None)

    files = {f.role: f.path for f in result.files}
    sheets, host_key = pdf_text(files["sheets"]), pdf_text(files["host-key"])
    for expected in (f"Title {payload}", f"Purpose {payload}", f"Rule {payload}"):
        assert expected in sheets
    assert f"For the adult: {payload}" in host_key
    assert payload in pdf_text(files["cards"], slice(0, 1)).replace(f"Title {payload}", "")
    assert f"Title {payload}" in pdf_text(files["print-guide"])

    assert "/etc/passwd" not in reads
    from kitgen.core.cache import cache_dir

    # kitgen's own cache (the drawings of this build's cards are kept there) is not outside
    allowed = [tmp_path, REPO / "kitgen", REPO / "templates", Path(sys.prefix), Path(sys.base_prefix), Path.home(),
               cache_dir()]
    outside = [p for p in reads if not p.endswith((".py", ".pyc", ".so"))
               and not any(Path(p).resolve().is_relative_to(a.resolve()) for a in allowed)]
    assert not outside, f"files opened outside the kit's inputs and output: {outside}"
    assert not [p for p in reads if Path(p).is_relative_to(Path.home()) and "reportlab" not in p]


def test_placeholder_cannot_reach_python_internals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """`{{ ''.__class__.__mro__ }}` in a card text is stopped by the sandbox and reported as a content problem."""
    card_text_activity("{{ ''.__class__.__mro__ }}", tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", ACTIVITY, "--content", "content", "--out", "out")
    assert_clean_exit(result, 2)
    line = result.stderr.splitlines()[0]
    assert line.startswith(os.path.join("content", ACTIVITY + ".yaml") + ":")
    assert "decks[0].cards[0].text: access to attribute '__class__' of 'str' object is unsafe" in line


# --------------------------------------------------------------------------- 3. nothing lost


def build_kit(content: Path, out: Path):
    return build(ACTIVITY, BuildOptions(out_dir=out), Library.open(content))


def retitle(data: dict) -> None:
    data["title"] = "Growing discard deck, second edition"


def test_failed_render_keeps_the_previous_kit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The second build fails after its card file has been rendered: the first kit stays byte for byte."""
    from kitgen.render.kit import KitRenderer

    growing_variant(tmp_path / "content")
    folder = build_kit(tmp_path / "content", tmp_path / "out").folder
    before = snapshot(folder)
    growing_variant(tmp_path / "content", retitle)

    real = KitRenderer.document
    rendered: list[str] = []

    def document(self, template, *args, **kwargs):
        if rendered:
            raise RuntimeError("renderer crashed mid-way")
        rendered.append(template)
        return real(self, template, *args, **kwargs)

    monkeypatch.setattr(KitRenderer, "document", document)
    with pytest.raises(RuntimeError, match="mid-way"):
        build_kit(tmp_path / "content", tmp_path / "out")
    assert rendered, "the failure did not happen mid-way"
    assert snapshot(folder) == before
    assert not leftovers(tmp_path)


def fail_after_first_write(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Writing an output file fails ("disk full") once the first one is on disk."""
    written: list[str] = []
    real = kitgen.core.atomic.stage

    def stage(path: Path, data: bytes) -> Path:
        if written:
            raise OSError(28, "No space left on device")
        written.append(path.name)
        return real(path, data)

    monkeypatch.setattr(kitgen.write.kitdir, "stage", stage)
    return written


def test_failed_write_leaves_only_whole_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Writing fails after the first file: every file is a complete old or new version, no `.tmp` remains."""
    growing_variant(tmp_path / "content")
    folder = build_kit(tmp_path / "content", tmp_path / "out").folder
    before = snapshot(folder)
    growing_variant(tmp_path / "content", retitle)
    new = build_kit(tmp_path / "content", tmp_path / "fresh").folder
    after_ok = snapshot(new)

    written = fail_after_first_write(monkeypatch)
    with pytest.raises(OSError):
        build_kit(tmp_path / "content", tmp_path / "out")
    assert written
    now = snapshot(folder)
    assert set(now) == set(before)
    assert all(now[name] in (before[name], after_ok[name]) for name in now)
    assert not leftovers(tmp_path)


def test_failed_write_keeps_the_previous_kit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    growing_variant(tmp_path / "content")
    folder = build_kit(tmp_path / "content", tmp_path / "out").folder
    before = snapshot(folder)
    growing_variant(tmp_path / "content", retitle)
    fail_after_first_write(monkeypatch)
    with pytest.raises(OSError):
        build_kit(tmp_path / "content", tmp_path / "out")
    assert snapshot(folder) == before


class _InterruptedOs:
    """`os` for kitgen.write.kitdir whose second opened file gets half its bytes, then Ctrl-C."""

    def __init__(self) -> None:
        self.opened = 0

    def __getattr__(self, name: str):
        return getattr(os, name)

    def fdopen(self, fd: int, mode: str):
        stream = os.fdopen(fd, mode)
        self.opened += 1
        return stream if self.opened == 1 else _HalfThenInterrupt(stream)


class _HalfThenInterrupt:
    def __init__(self, stream) -> None:
        self.stream = stream

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        self.stream.close()
        return False

    def write(self, data: bytes) -> int:
        self.stream.write(data[: len(data) // 2])
        self.stream.flush()
        raise KeyboardInterrupt

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def test_keyboard_interrupt_while_writing_leaves_no_truncated_pdf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Ctrl-C half-way through writing a PDF: exit 130 with a message, no traceback, no `.tmp` file, and every
    PDF in the folder is complete (opens, has the page count the manifest records) and is an old or new one."""
    growing_variant(tmp_path / "content")
    monkeypatch.chdir(tmp_path)
    assert_clean_exit(run_cli("build", ACTIVITY, "--content", "content", "--out", "out"), 0)
    folder = tmp_path / "out" / ACTIVITY
    before = snapshot(folder)
    manifest = json.loads(before["manifest.json"])
    growing_variant(tmp_path / "content", retitle)
    assert_clean_exit(run_cli("build", ACTIVITY, "--content", "content", "--out", "fresh"), 0)
    after_ok = snapshot(tmp_path / "fresh" / ACTIVITY)

    fake = _InterruptedOs()
    monkeypatch.setattr(kitgen.core.atomic, "os", fake)  # stage() writes every file
    result = run_cli("build", ACTIVITY, "--content", "content", "--out", "out", "--force")
    assert fake.opened == 2, "the interrupt did not happen while writing the second file"
    assert_clean_exit(result, 130)
    assert "interrupted" in result.stderr
    assert not leftovers(tmp_path)
    now = snapshot(folder)
    assert set(now) == set(before)
    for name, data in now.items():
        assert data in (before[name], after_ok[name]), f"{name} is neither the old nor the new file"
        if name.endswith(".pdf"):
            assert len(pypdf.PdfReader(folder / name).pages) == manifest["files"][name]["pages"]


def test_two_builds_at_once_into_the_same_folder(tmp_path: Path):
    """Two `python -m kitgen build ... --force` processes into one output folder: both succeed, and afterwards
    every PDF opens and has the expected page count, the manifest matches the files, no `.tmp` remains."""
    growing_variant(tmp_path / "content")
    expected = {f.path.name: f.pages for f in build_kit(tmp_path / "content", tmp_path / "reference").files}
    command = [sys.executable, "-m", "kitgen", "build", ACTIVITY, "--content", "content", "--out", "same",
               "--force", "--quiet"]
    processes = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
    outcomes = [(p.wait(timeout=120), p.stderr.read()) for p in processes]
    for process in processes:
        process.stdout.close()
        process.stderr.close()
    assert [code for code, _ in outcomes] == [0, 0], outcomes
    assert not any("Traceback" in err for _, err in outcomes)

    folder = tmp_path / "same" / ACTIVITY
    assert sorted(p.name for p in folder.glob("*.pdf")) == sorted(expected)
    for name, pages in expected.items():
        assert len(pypdf.PdfReader(folder / name).pages) == pages
    manifest = json.loads((folder / "manifest.json").read_text())
    for name, entry in manifest["files"].items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == entry["sha256"]
    assert not leftovers(tmp_path)


def test_stale_outputs_go_and_user_files_stay(tmp_path: Path):
    """A file the previous manifest lists but this build no longer makes is removed; files the user put in the
    output folder, and a manifest entry pointing outside it, are left alone."""
    def supply_optional(data: dict) -> None:
        data["decks"][2]["optional"] = True

    growing_variant(tmp_path / "content", supply_optional)
    first = build_kit(tmp_path / "content", tmp_path / "out")
    folder = first.folder
    stale = next(f.path for f in first.files if f.role == "optional-cards")
    assert stale.is_file(), "the optional deck should have had a file of its own"

    mine = {folder / "my-notes.txt": b"keep me", folder / "my-copy.pdf": b"%PDF-1.4 mine",
            tmp_path / "out" / "victim.txt": b"outside the kit folder"}
    for path, data in mine.items():
        path.write_bytes(data)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"]["../victim.txt"] = {"sha256": "", "bytes": 0, "pages": 0, "role": "cards", "for_players": True}
    (folder / "manifest.json").write_text(json.dumps(manifest))

    growing_variant(tmp_path / "content")  # the supply deck is part of the main card file again
    result = build_kit(tmp_path / "content", tmp_path / "out")
    assert not stale.exists()
    assert all(path.read_bytes() == data for path, data in mine.items())
    assert sorted(p.name for p in folder.glob("*.pdf")) == sorted(
        [f.path.name for f in result.files] + ["my-copy.pdf"])


def test_a_corrupt_manifest_does_not_fail_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    growing_variant(tmp_path / "content")
    folder = build_kit(tmp_path / "content", tmp_path / "out").folder
    (folder / "photos").mkdir()
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"].update({"..": {}, "photos": {}})
    (folder / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", ACTIVITY, "--content", "content", "--out", "out", "--force")
    assert_clean_exit(result, 0)
    assert (folder / "photos").is_dir()


def test_two_files_with_the_same_id_do_not_overwrite_each_other(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    growing_variant(tmp_path / "content")
    data = growing_data()
    data["title"] = "My variant"
    write_activity(tmp_path / "content", data, "my-variant")
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", ACTIVITY, "my-variant", "--content", "content", "--out", "out")
    assert_clean_exit(result, 2)  # the first builds; the second is refused, at its id, before it writes anything
    located = result.stderr.splitlines()[0]
    assert located.startswith(os.path.join("content", "my-variant.yaml") + ":")
    assert located.endswith(": id: 'growing-discard' does not match the file name, expected 'my-variant'")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [ACTIVITY]
    assert "My variant" not in pdf_text(tmp_path / "out" / ACTIVITY / f"{ACTIVITY}-sheets.pdf", slice(0, 1))


def test_outputs_get_the_usual_permissions(tmp_path: Path):
    growing_variant(tmp_path / "content")
    old = os.umask(0o022)
    try:
        folder = build_kit(tmp_path / "content", tmp_path / "out").folder
    finally:
        os.umask(old)
    modes = {p.name: oct(p.stat().st_mode & 0o777) for p in folder.iterdir()}
    assert set(modes.values()) == {oct(0o644)}, modes


def test_a_replaced_file_is_read_again(tmp_path: Path):
    path = growing_variant(tmp_path / "content", lambda data: data.update(title="Title A"))
    stamp = path.stat().st_mtime_ns
    assert load_activity(path).activity.title == "Title A"
    growing_variant(tmp_path / "content", lambda data: data.update(title="Title B"))
    os.utime(path, ns=(stamp, stamp))
    assert load_activity(path).activity.title == "Title B"


@pytest.mark.parametrize("what", [["growing-discard"], ["--all"]])
def test_an_output_folder_that_cannot_be_made_is_an_error_not_a_crash(what: list[str], tmp_path: Path):
    """The file system refusing (here: a file where a folder should go) is the user's to fix, said plainly."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file")
    result = run_cli("build", *what, "--content", str(REPO / "content"), "--out", str(blocker / "out"))
    assert_clean_exit(result, 1)
    assert "internal error" not in result.stderr
    assert any(line.startswith(f"error: {blocker / 'out'}") and line.endswith(": Not a directory")
               for line in result.stderr.splitlines()), result.stderr
    assert blocker.read_text() == "a file"


# --------------------------------------------------------------------------- 4. nothing gets in



SECRET = "TOP-SECRET-OUTSIDE"


def test_template_symlink_leading_outside_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    folder = folder_activity(tmp_path)
    outside = tmp_path / "elsewhere" / "card.xml.j2"
    outside.parent.mkdir()
    outside.write_text(f"<card><title>{SECRET}</title></card>\n")
    (folder / "templates" / "card-face.xml.j2").symlink_to(outside)
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", folder.name, "--content", "content", "--out", "out")
    assert_clean_exit(result, 1)
    assert result.stderr.startswith("error: template 'card-face.xml.j2' resolves to ")
    assert "outside the template folders; refused" in result.stderr
    assert not (tmp_path / "out").exists()


def test_template_symlink_target_is_never_opened(tmp_path: Path, open_log, monkeypatch: pytest.MonkeyPatch):
    folder = folder_activity(tmp_path)
    outside = tmp_path / "elsewhere" / "card.xml.j2"
    outside.parent.mkdir()
    outside.write_text(f"<card><title>{SECRET}</title></card>\n")
    (folder / "templates" / "card-face.xml.j2").symlink_to(outside)
    reads: list[str] = []
    monkeypatch.setitem(open_log, "paths", reads)
    with pytest.raises(KitgenError):
        build(folder.name, BuildOptions(out_dir=tmp_path / "out"), Library.open(tmp_path / "content"))
    monkeypatch.setitem(open_log, "paths", None)
    assert str(outside) not in [str(Path(p).resolve()) for p in reads]


def test_templates_folder_symlinked_outside_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    folder = folder_activity(tmp_path)
    (folder / "templates").rmdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "card-face.xml.j2").write_text(f"<card><title>{SECRET}</title></card>\n")
    (folder / "templates").symlink_to(elsewhere, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", folder.name, "--content", "content", "--out", "out")
    assert_clean_exit(result, 2)
    assert result.stderr.strip() == f"error: {Path('content', folder.name, 'templates')} leads outside its " \
                                    "activity folder; refused"
    assert not (tmp_path / "out").exists()


SSTI = ["{{ ''.__class__.__mro__ }}",
        "{{ cycler.__init__.__globals__.os.popen('touch PWNED').read() }}",
        "{{ self._TemplateReference__context }}"]


@pytest.mark.parametrize("expression", SSTI, ids=["mro", "globals-popen", "template-context"])
def test_template_override_is_sandboxed(expression: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A card template in the activity folder that reaches for Python internals fails (exit 1, no traceback,
    the sandbox's message), runs nothing and writes nothing."""
    folder = folder_activity(tmp_path)
    (folder / "templates" / "card-face.xml.j2").write_text(f"<card><title>{expression}</title></card>\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", folder.name, "--content", "content", "--out", "out")
    assert_clean_exit(result, 1)
    assert result.stderr.startswith(f"error: {os.path.join('content', folder.name, 'templates', 'card-face.xml.j2')}:1: "
                                    "template refused by the sandbox: access to attribute ")
    assert result.stderr.rstrip().endswith("is unsafe.")
    assert not (tmp_path / "PWNED").exists()
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.pdf"))


def test_sandbox_violation_names_the_template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    folder = folder_activity(tmp_path)
    (folder / "templates" / "card-face.xml.j2").write_text("<card><title>{{ ''.__class__.__mro__ }}</title></card>\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", folder.name, "--content", "content", "--out", "out")
    assert_clean_exit(result, 1)
    assert "internal error" not in result.stderr
    assert "card-face.xml.j2" in result.stderr and "unsafe" in result.stderr


TAGS = {
    "scalar": ('title: !!python/name:os.system ""', None),
    "sequence": ('title: !!python/object/apply:os.system ["touch PWNED"]', None),
    "mapping": ("host_key: !!python/object/new:os.system {}", None),
}


@pytest.mark.parametrize("tag", [pytest.param(k, id=k, marks=[pytest.mark.xfail(strict=True, reason=v[1])] if v[1]
                                              else []) for k, v in TAGS.items()])
def test_python_yaml_tags_are_refused(tag: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A `!!python/...` tag anywhere is refused by name (and never constructed)."""
    line = TAGS[tag][0]
    data = growing_data()
    del data[line.split(":")[0]]
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False) + line + "\n"
    path = tmp_path / f"{ACTIVITY}.yaml"
    path.write_text(text)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ContentError) as caught:
        load_activity(path)
    assert "the tag 'tag:yaml.org,2002:python/" in str(caught.value) and "is not allowed" in str(caught.value)
    assert not (tmp_path / "PWNED").exists()


# --------------------------------------------------------------------------- 5. located errors, not internal ones


@pytest.mark.parametrize("language", ["../x", "e/n", "EN", "english", "x\n"])
def test_a_language_that_is_no_language_code_is_a_usage_error(language: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch):
    growing_variant(tmp_path / "content")
    monkeypatch.chdir(tmp_path)
    for force in ([], ["--force"]):
        result = run_cli("build", ACTIVITY, "--lang", language, "--content", "content", "--out", "out", *force)
        assert_clean_exit(result, 2)
        assert result.stderr == f"error: --lang takes a two-letter language code such as en or ro, got " \
                                f"{language!r}\n"
    assert not (tmp_path / "out").exists()


def test_a_language_the_activity_has_no_edition_in_is_never_up_to_date(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch):
    growing_variant(tmp_path / "content")
    monkeypatch.chdir(tmp_path)
    assert_clean_exit(run_cli("build", ACTIVITY, "--content", "content", "--out", "out"), 0)
    for force in ([], ["--force"]):
        result = run_cli("build", ACTIVITY, "--lang", "xx", "--content", "content", "--out", "out", *force)
        assert_clean_exit(result, 2)
        assert result.stderr == f"error: no 'xx' edition of {ACTIVITY}; editions: en\n"
        assert "up to date" not in result.output


@pytest.mark.parametrize("text", ["[1, 2]", '{"files": [1], "inputs": {"files": {"x": 3}}}', '"manifest"',
                                  '{"files": {"a.pdf": 3}, "inputs": []}'],
                         ids=["list", "files-list", "string", "entry-int"])
def test_a_manifest_of_the_wrong_shape_is_rebuilt_over(text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    growing_variant(tmp_path / "content")
    monkeypatch.chdir(tmp_path)
    assert_clean_exit(run_cli("build", ACTIVITY, "--content", "content", "--out", "out"), 0)
    (tmp_path / "out" / ACTIVITY / "manifest.json").write_text(text)
    result = run_cli("build", ACTIVITY, "--content", "content", "--out", "out")
    assert_clean_exit(result, 0)
    assert "up to date" not in result.output
    manifest = json.loads((tmp_path / "out" / ACTIVITY / "manifest.json").read_text())
    assert sorted(manifest["files"]) == sorted(p.name for p in (tmp_path / "out" / ACTIVITY).glob("*.pdf"))
    assert "up to date" in run_cli("build", ACTIVITY, "--content", "content", "--out", "out").output


def no_space_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file kitgen writes finds the disk full."""
    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(kitgen.write.kitdir.os, "fsync", full)


def test_a_full_disk_names_the_file_kitgen_was_writing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    growing_variant(tmp_path / "content")
    monkeypatch.chdir(tmp_path)
    no_space_left(monkeypatch)
    result = run_cli("build", ACTIVITY, "--content", "content", "--out", "out")
    assert_clean_exit(result, 1)
    assert result.stderr == f"error: {os.path.join('out', ACTIVITY, ACTIVITY + '-cards.pdf')}: " \
                            "No space left on device\n"
    assert not leftovers(tmp_path)


def test_a_refused_file_is_named_not_its_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    growing_variant(tmp_path / "content")
    monkeypatch.chdir(tmp_path)

    def refuse(dir: str, prefix: str, suffix: str):
        raise PermissionError(13, "Permission denied", os.path.join(dir, prefix + "abcd1234" + suffix))

    monkeypatch.setattr(kitgen.write.kitdir.tempfile, "mkstemp", refuse)
    result = run_cli("build", ACTIVITY, "--content", "content", "--out", "out")
    assert_clean_exit(result, 1)
    assert result.stderr == f"error: {os.path.join('out', ACTIVITY, ACTIVITY + '-cards.pdf')}: Permission denied\n"


def test_a_full_disk_during_build_all_still_prints_the_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    growing_variant(tmp_path / "content")
    monkeypatch.chdir(tmp_path)
    no_space_left(monkeypatch)
    result = run_cli("build", "--all", "--jobs", "1", "--content", "content", "--out", "out")
    assert_clean_exit(result, 1)
    assert "internal error" not in result.stderr and ".tmp" not in result.stderr
    assert f"{os.path.join('out', ACTIVITY, ACTIVITY + '-cards.pdf')}: No space left on device" \
        in result.stderr.splitlines()
    assert f"error: {os.path.join('out', 'index.pdf')}: No space left on device" in result.stderr.splitlines()
    assert "0 built, 0 up to date, 1 failed" in result.output.splitlines()
    assert not leftovers(tmp_path)


@pytest.mark.parametrize("how", ["file", "overlay", "folder"])
def test_a_content_file_leading_outside_the_library_is_refused_unread(how: str, tmp_path: Path, open_log,
                                                                      monkeypatch: pytest.MonkeyPatch):
    elsewhere = tmp_path / "elsewhere"
    data = growing_data()
    content = tmp_path / "content"
    content.mkdir()
    if how == "file":
        outside = write_activity(elsewhere, data)
        (content / f"{ACTIVITY}.yaml").symlink_to(outside)
        shown = os.path.join("content", f"{ACTIVITY}.yaml")
    elif how == "overlay":
        write_activity(content, data)
        outside = elsewhere / "overlay.yaml"
        elsewhere.mkdir()
        outside.write_text(f"title: {SECRET}\n")
        (content / f"{ACTIVITY}.ro.yaml").symlink_to(outside)
        shown = os.path.join("content", f"{ACTIVITY}.ro.yaml")
    else:
        outside = write_activity(elsewhere / ACTIVITY, data, "activity")
        (content / ACTIVITY).symlink_to(outside.parent, target_is_directory=True)
        shown = os.path.join("content", ACTIVITY, "activity.yaml")
    monkeypatch.chdir(tmp_path)
    reads: list[str] = []
    monkeypatch.setitem(open_log, "paths", reads)
    results = [run_cli("build", ACTIVITY, "--content", "content", "--out", "out"),
               run_cli("check", ACTIVITY, "--content", "content"),
               run_cli("build", "--all", "--jobs", "1", "--content", "content", "--out", "out")]
    monkeypatch.setitem(open_log, "paths", None)
    for result in results:
        assert f"{shown} leads outside the library, to {outside.resolve()}; refused" in result.stderr, result.stderr
        assert result.exit_code in (1, 2) and "internal error" not in result.stderr
    assert results[0].exit_code == 2 and results[1].exit_code == 2
    assert str(outside.resolve()) not in [str(Path(p).resolve()) for p in reads]
    assert not (tmp_path / "out" / ACTIVITY).exists()


@pytest.mark.parametrize("name", ["x\n", "x\ny", "../x", "x/y", "X", ""])
def test_new_refuses_a_name_that_is_no_id(name: str, tmp_path: Path):
    result = run_cli("new", name, "--content", str(tmp_path / "content"))
    assert_clean_exit(result, 2)
    assert f"{name!r} is not a valid id" in result.stderr
    assert not (tmp_path / "content").exists() or not list((tmp_path / "content").iterdir())


def test_an_activity_and_another_ones_edition_never_share_a_kit_folder(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch):
    """`trash-en` (an activity) and the English edition of `trash` would both write out/trash-en/: both are
    refused, located at their `id:`, and `build --all` builds the others and prints its summary."""
    content = tmp_path / "content"
    shutil.copytree(REPO / "content" / "trash", content / "trash")
    data = growing_data()
    data["id"] = "trash-en"
    write_activity(content, data, "trash-en")
    growing_variant(content)
    monkeypatch.chdir(tmp_path)
    for activity_id, shown in (("trash-en", os.path.join("content", "trash-en.yaml")),
                               ("trash", os.path.join("content", "trash", "activity.yaml"))):
        result = run_cli("build", activity_id, "--content", "content", "--out", "out")
        assert_clean_exit(result, 2)
        first = result.stderr.splitlines()[0]
        assert first.startswith(f"{shown}:") and "trash-en/" in first and "rename one of them" in first, first
    assert not (tmp_path / "out").exists()
    result = run_cli("build", "--all", "--jobs", "1", "--content", "content", "--out", "out")
    assert_clean_exit(result, 2)  # invalid content, as the single builds above
    assert "1 built, 0 up to date, 2 failed" in result.output.splitlines()
    assert (tmp_path / "out" / "index.html").is_file()
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.is_dir()) == [ACTIVITY]


# --------------------------------------------------------------------------- 6. checks that must hold both ways


@pytest.mark.parametrize("declared, field", [(-1, "cards"), (+1, "cards"), (-1, "supply"), (+1, "supply")],
                         ids=["cards-fewer", "cards-more", "deck-fewer", "deck-more"])
def test_totals_that_differ_either_way_are_located_errors(declared: int, field: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch):
    """A declared total below the decks' count is as wrong as one above it."""
    data = growing_data()
    counts = {deck["id"]: sum(card["count"] for card in deck["cards"]) for deck in data["decks"]}
    held = sum(counts.values()) if field == "cards" else counts["supply"]
    data["totals"] = {"cards": sum(counts.values())} if field == "cards" else {"decks": {"supply": counts["supply"]}}
    growing_variant(tmp_path / "content", lambda d: d.update(totals=data["totals"]))
    monkeypatch.chdir(tmp_path)
    assert_clean_exit(run_cli("check", ACTIVITY, "--content", "content"), 0)
    if field == "cards":
        data["totals"]["cards"] = held + declared
        message = f"totals.cards: the content declares {held + declared} cards but the decks hold {held}"
    else:
        data["totals"]["decks"]["supply"] = held + declared
        message = f"deck 'supply' holds {held} cards but totals.decks.supply "
    growing_variant(tmp_path / "content", lambda d: d.update(totals=data["totals"]))
    result = run_cli("check", ACTIVITY, "--content", "content")
    assert_clean_exit(result, 2)
    assert result.stderr.startswith(os.path.join("content", f"{ACTIVITY}.yaml") + ":") and message in result.stderr

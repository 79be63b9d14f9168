"""Build the whole library, incrementally, and plan for a class: the commands as a teacher runs them.

The library (content/ and the templates/ beside it) is copied into a temporary folder, so edits made
here to content files and templates never touch the repository. `kitgen build --all` runs in a real
process (it builds in parallel); the other commands run through click's CliRunner. What the tests
expect comes from the YAML files (ids, titles, editions, counts) and from the PDFs kitgen wrote (page
counts, texts, card placements); kitgen's own summary and guide are checked against those.
"""
from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pypdf
import pypdfium2 as pdfium
import forked
import pytest
import yaml
from click.testing import CliRunner
from pypdf.generic import ContentStream

from conftest import ACTIVITY, CONTENT, REPO, kitgen_env, shared, shared_folder_path, yaml_data
from kitgen.cli import main
from kitgen.app.build import kits_for_class  # (defined in kitgen.plan.options; once in kitgen.plan.kit)

TEMPLATES = REPO / "templates"
SUMMARY_COUNTS = re.compile(r"^(\d+) built, (\d+) up to date, (\d+) failed$")
LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<message>.+)$")
EDITED_PURPOSE = ("Spend coins on new cards", "Spend your coins on brand new cards")
SLIP_TEMPLATE = "slip.xml.j2"
SLIP_USER = "needle-in-a-card-stack"  # the only activity with slips, so the only user of slip.xml.j2


# --------------------------------------------------------------------------- what the library holds


def read_yaml(path: Path):
    return yaml_data(path.read_text(encoding="utf-8"))


def activity_ids(content: Path) -> list[str]:
    """Ids as the library defines them: `<id>.yaml` files and `<id>/activity.yaml` folders."""
    ids = [p.stem for p in content.glob("*.yaml") if "." not in p.stem]
    ids += [p.name for p in content.iterdir() if p.is_dir() and (p / "activity.yaml").is_file()]
    return sorted(ids)


def editions(content: Path) -> dict[str, dict]:
    """Edition folder → {id, language, title}, read from the YAML: one per language of each activity
    (a folder's `activity.<lang>.yaml` overlays add languages); `<id>-<lang>` when there are several."""
    found: dict[str, dict] = {}
    for activity_id in activity_ids(content):
        single = content / f"{activity_id}.yaml"
        main_file = single if single.is_file() else content / activity_id / "activity.yaml"
        data = read_yaml(main_file)
        languages = {data.get("language", "en"): data["title"]}
        if main_file.name == "activity.yaml":
            for overlay in main_file.parent.glob("activity.*.yaml"):
                languages[overlay.name.split(".")[1]] = read_yaml(overlay).get("title", data["title"])
        for language, title in languages.items():
            folder = f"{activity_id}-{language}" if len(languages) > 1 else activity_id
            found[folder] = {"id": activity_id, "language": language, "title": title}
    return found


def test_the_library_holds_the_editions_these_tests_expect():
    assert set(editions(CONTENT)) == {"animal-habitats", "growing-discard", "junkyard-robots",
                                      "needle-in-a-card-stack", "times-table-pairs", "trash-en", "trash-ro"}
    with_slips = [i for i in activity_ids(CONTENT) if "slips" in read_yaml(
        CONTENT / f"{i}.yaml" if (CONTENT / f"{i}.yaml").is_file() else CONTENT / i / "activity.yaml")]
    assert with_slips == [SLIP_USER]


# --------------------------------------------------------------------------- reading the output


def pdf_pages(path: Path) -> int:
    return len(pypdf.PdfReader(path).pages)


def is_two_sided(path: Path) -> bool:
    """Card files ask the viewer for duplex printing; every other file prints one-sided."""
    prefs = pypdf.PdfReader(path).trailer["/Root"].get("/ViewerPreferences")
    return prefs is not None and "/Duplex" in prefs.get_object()


def page_texts(path: Path) -> list[str]:
    """Each page's text, whitespace collapsed; PDFium reads it (fast, for files of many pages)."""
    document = pdfium.PdfDocument(str(path))
    try:
        return [" ".join(page.get_textpage().get_text_range().split()) for page in document]
    finally:
        document.close()


def plain_text(path: Path) -> str:
    """All text, whitespace collapsed (PDFium keeps a one-page guide's spaces, narrower than pdfplumber's 3 pt)."""
    return " ".join(page_texts(path))


def card_texts(path: Path) -> list[list[str]]:
    """Per page, the text inside each card (form XObject) placed on it; PDFium reads the text (fast)."""
    reader = pypdf.PdfReader(path)
    document = pdfium.PdfDocument(str(path))
    pages = []
    try:
        for index, page in enumerate(reader.pages):
            xobjects = page["/Resources"].get_object()["/XObject"].get_object()
            ctm, stack, boxes = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), [], []
            for operands, operator in ContentStream(page.get_contents(), reader).operations:
                if operator == b"q":
                    stack.append(ctm)
                elif operator == b"Q":
                    ctm = stack.pop()
                elif operator == b"cm":
                    a, b, c, d, e, f = (float(v) for v in operands)
                    A, B, C, D, E, F = ctm
                    ctm = (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E,
                           e * B + f * D + F)
                elif operator == b"Do":
                    form = xobjects[str(operands[0])].get_object()
                    x0, y0, x1, y1 = (float(v) for v in form["/BBox"])
                    a, b, c, d, e, f = ctm
                    xs = [a * x + c * y + e for x in (x0, x1) for y in (y0, y1)]
                    ys = [b * x + d * y + f for x in (x0, x1) for y in (y0, y1)]
                    boxes.append((min(xs), min(ys), max(xs), max(ys)))
            textpage = document[index].get_textpage()
            pages.append([" ".join(textpage.get_text_bounded(*box).split()) for box in boxes])
    finally:
        document.close()
    return pages


def snapshot(out: Path) -> dict[str, tuple[int, str]]:
    """Every kit PDF (not the index) → (modification time in ns, SHA-256)."""
    return {p.relative_to(out).as_posix(): (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(out.glob("*/*.pdf"))}


@dataclass
class Summary:
    rows: dict[str, dict[str, str]]  # first cell → header → cell
    built: int
    fresh: int
    failed: int


def parse_summary(stdout: str) -> Summary | None:
    """The table `build --all` prints: a header row, one row per edition, then 'N built, M up to date, K failed'."""
    lines = [line.rstrip() for line in stdout.splitlines()]
    heads = [i for i, line in enumerate(lines) if line.split()[:2] == ["activity", "files"]]
    if len(heads) != 1:
        return None
    header = re.split(r"\s{2,}", lines[heads[0]].strip())
    rows: dict[str, dict[str, str]] = {}
    for line in lines[heads[0] + 1:]:
        counts = SUMMARY_COUNTS.match(line.strip())
        if counts:
            return Summary(rows, *(int(g) for g in counts.groups()))
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = dict(zip(header, cells))
    return None


def run_kitgen(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`python -m kitgen ...` in a real process, with no content folder or printer profile from the environment."""
    return forked.run(list(args), cwd=cwd, env=kitgen_env(cwd), timeout=600)


def copy_library(root: Path) -> Path:
    shutil.copytree(CONTENT, root / "content")
    shutil.copytree(TEMPLATES, root / "templates")
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= 1, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# --------------------------------------------------------------------------- build --all, then again, then after edits


@dataclass
class Run:
    process: subprocess.CompletedProcess
    pdfs: dict[str, tuple[int, str]]
    summary: Summary | None

    def why(self) -> str:
        return f"exit {self.process.returncode}\nstdout:\n{self.process.stdout}\nstderr:\n{self.process.stderr}"


@pytest.fixture(scope="module")
def library() -> Path:
    """A copy of the library, made once per test run (the test processes share it and the runs below)."""
    def made() -> Path:
        root = shared_folder_path() / "batch"
        root.mkdir()
        return copy_library(root)

    return shared("batch-library", made)


@pytest.fixture(scope="module")
def runs(library: Path) -> dict[str, Run]:
    """Five batch builds of the same library into the same folder, one after the other, once per test run:
    first, again unchanged, after editing one content file, after editing one template, with --force."""
    return shared("batch-runs", lambda: five_runs(library))


def five_runs(library: Path) -> dict[str, Run]:
    out = library / "out"

    def run(*extra: str) -> Run:
        process = run_kitgen("build", "--all", "--content", "content", "--out", "out", *extra, cwd=library)
        return Run(process, snapshot(out), parse_summary(process.stdout))

    done = {"first": run(), "again": run()}
    edit(library / "content" / f"{ACTIVITY}.yaml", *EDITED_PURPOSE)
    done["content"] = run()
    edit(library / "templates" / SLIP_TEMPLATE, "<title>{{ slip.title }}</title>", "<title>{{ slip.title | upper }}</title>")
    done["template"] = run()
    done["force"] = run("--force")
    return done


def folder_of(relative: str) -> str:
    return relative.split("/")[0]


def test_build_all_builds_every_edition_and_exits_0(runs, library):
    first = runs["first"]
    assert first.process.returncode == 0, first.why()
    assert "Traceback" not in first.process.stderr + first.process.stdout
    expected = editions(library / "content")
    out = library / "out"
    assert {p.name for p in out.iterdir() if p.is_dir()} == set(expected)
    for folder in expected:
        pdfs = sorted((out / folder).glob("*.pdf"))
        assert len(pdfs) >= 4, f"{folder}: {pdfs}"  # cards or mat, sheets, host key, print guide at least
        for pdf in pdfs:
            assert pdf_pages(pdf) >= 1, pdf


def test_summary_has_one_row_per_edition_that_matches_the_files(runs, library):
    first = runs["first"]
    summary = first.summary
    assert summary is not None, first.why()
    expected = editions(library / "content")
    assert set(summary.rows) == set(expected), first.process.stdout
    assert (summary.built, summary.fresh, summary.failed) == (len(expected), 0, 0)  # the rows, counted
    for folder, row in summary.rows.items():
        pdfs = sorted((library / "out" / folder).glob("*.pdf"))
        pages = {pdf: pdf_pages(pdf) for pdf in pdfs}
        card_stock = sum(n // 2 for pdf, n in pages.items() if is_two_sided(pdf))
        paper = sum(n for pdf, n in pages.items() if not is_two_sided(pdf))
        measured = {"files": str(len(pdfs)), "pages": str(sum(pages.values())), "paper": str(paper),
                    "card stock": str(card_stock), "status": "built"}
        assert row == {"activity": folder, **measured}, f"{folder}: table says {row}, the files say {measured}"


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "a":
            self.hrefs += [value for name, value in attrs if name == "href" and value]


def test_index_html_links_every_kit_file_and_names_every_title(runs, library):
    assert runs["first"].process.returncode == 0, runs["first"].why()
    out = library / "out"
    page = (out / "index.html").read_text(encoding="utf-8")
    parser = _Links()
    parser.feed(page)
    linked = {(out / href).resolve() for href in parser.hrefs}
    assert all(target.is_file() for target in linked), sorted(map(str, linked))
    assert linked == {p.resolve() for p in out.glob("*/*.pdf")}
    shown = html.unescape(page)
    for edition in editions(library / "content").values():
        assert edition["title"] in shown, edition


def test_index_pdf_opens_and_names_every_title(runs, library):
    index = library / "out" / "index.pdf"
    assert pdf_pages(index) >= 1
    text = plain_text(index)
    for edition in editions(library / "content").values():
        assert edition["title"] in text, edition
    for folder in editions(library / "content"):
        for pdf in (library / "out" / folder).glob("*.pdf"):
            assert pdf.name in text, f"index.pdf does not list {pdf.name}"


def test_an_activity_whose_content_breaks_keeps_its_last_good_kit_in_the_index_with_a_warning(tmp_path: Path):
    from kitgen.app.index import STALE

    root = copy_library(tmp_path)
    out = root / "out"
    assert run_kitgen("build", "--all", "--content", "content", "--out", "out", cwd=root).returncode == 0
    kit_files = sorted(p.name for p in (out / ACTIVITY).glob("*.pdf"))
    source = root / "content" / f"{ACTIVITY}.yaml"
    good = source.read_text(encoding="utf-8")
    edit(source, "count: 6", "count: six")
    broken = run_kitgen("build", "--all", "--content", "content", "--out", "out", cwd=root)
    assert broken.returncode == 2, broken.stdout + broken.stderr
    page = html.unescape((out / "index.html").read_text(encoding="utf-8"))
    assert page.count(STALE) == 1, "only the broken activity carries the warning"
    section = page.split("<h2>")[[i for i, part in enumerate(page.split("<h2>")) if STALE in part][0]]
    assert section.startswith("Growing discard deck")
    assert all(f"{ACTIVITY}/{name}" in section for name in kit_files), section
    text = " ".join(plain_text(out / "index.pdf").split())
    assert " ".join(STALE.split()) in text and all(name in text for name in kit_files)
    source.write_text(good, encoding="utf-8")
    fixed = run_kitgen("build", "--all", "--content", "content", "--out", "out", cwd=root)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert STALE not in html.unescape((out / "index.html").read_text(encoding="utf-8"))


def test_index_pdf_shows_a_jpeg_thumbnail_per_kit_and_is_the_same_when_built_again(tmp_path: Path):
    root = copy_library(tmp_path)
    built = []
    for _ in range(2):
        process = run_kitgen("build", "--all", "--force", "--content", "content", "--out", "out", cwd=root)
        assert process.returncode == 0, process.stderr
        built.append((root / "out" / "index.pdf").read_bytes())
    assert built[0] == built[1], "index.pdf differs between two builds of the same library"
    pictures = []
    for page in pypdf.PdfReader(root / "out" / "index.pdf").pages:
        for xobject in page["/Resources"].get_object().get("/XObject", {}).values():
            xobject = xobject.get_object()
            if xobject.get("/Subtype") == "/Image":
                pictures.append((xobject.get("/Filter"), int(xobject["/Width"])))
    assert len(pictures) == len(editions(root / "content"))
    assert all(filters == ["/DCTDecode"] and width == 220 for filters, width in pictures), pictures


def test_second_run_builds_nothing(runs, library):
    again = runs["again"]
    assert again.process.returncode == 0, again.why()
    assert again.summary is not None, again.why()
    assert {row["status"] for row in again.summary.rows.values()} == {"up to date"}
    assert set(again.summary.rows) == set(editions(library / "content"))
    assert (again.summary.built, again.summary.fresh, again.summary.failed) == (
        0, len(editions(library / "content")), 0)
    assert again.pdfs == runs["first"].pdfs, "a PDF was rewritten although nothing changed"


def _changed(before: Run, after: Run) -> set[str]:
    assert set(before.pdfs) == set(after.pdfs)
    return {folder_of(name) for name in after.pdfs if after.pdfs[name][0] != before.pdfs[name][0]}


def assert_rebuilt_only(before: Run, after: Run, activity: str) -> None:
    """The run succeeded, built exactly `activity` and rewrote only its PDFs."""
    assert after.process.returncode == 0, after.why()
    assert after.summary is not None, after.why()
    assert {name for name, row in after.summary.rows.items() if row["status"] == "built"} == {activity}
    assert (after.summary.built, after.summary.failed) == (1, 0)
    assert _changed(before, after) == {activity}


def test_changing_one_content_file_rebuilds_that_activity_only(runs, library):
    assert_rebuilt_only(runs["again"], runs["content"], ACTIVITY)
    guide = next((library / "out" / ACTIVITY).glob("*print-guide*.pdf"))
    assert EDITED_PURPOSE[1] in plain_text(guide), "the rebuilt kit does not show the edited text"


def test_changing_a_template_rebuilds_exactly_the_kit_that_uses_it(runs, library):
    assert_rebuilt_only(runs["content"], runs["template"], SLIP_USER)
    slips = next((library / "out" / SLIP_USER).glob("*slips*.pdf"))
    assert "MY NEEDLE" in plain_text(slips), "the rebuilt slips do not use the edited library template"


def test_force_rebuilds_everything(runs, library):
    before, after = runs["template"], runs["force"]
    assert after.process.returncode == 0, after.why()
    assert after.summary is not None, after.why()
    assert {row["status"] for row in after.summary.rows.values()} == {"built"}
    assert (after.summary.built, after.summary.fresh, after.summary.failed) == (
        len(editions(library / "content")), 0, 0)
    assert _changed(before, after) == set(editions(library / "content"))
    assert {name: h for name, (_, h) in after.pdfs.items()} == {name: h for name, (_, h) in before.pdfs.items()}, (
        "rebuilding unchanged inputs must give the same bytes")


# --------------------------------------------------------------------------- one broken activity among good ones


BROKEN = "junkyard-robots"


@pytest.fixture(scope="module")
def broken_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, int, int, subprocess.CompletedProcess]:
    root = copy_library(tmp_path_factory.mktemp("broken-batch"))
    path = root / "content" / f"{BROKEN}.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if re.match(r"^\s+count: \d+\s*$", line))
    column = lines[number].index("count: ") + len("count: ") + 1
    lines[number] = re.sub(r"count: \d+", "count: six", lines[number])
    path.write_text("".join(lines), encoding="utf-8")
    process = run_kitgen("build", "--all", "--content", "content", "--out", "out", cwd=root)
    return root, path, number + 1, column, process


def test_a_broken_activity_does_not_stop_the_others(broken_run):
    root, path, line, column, process = broken_run
    assert process.returncode == 2, process.stderr
    assert "Traceback" not in process.stderr + process.stdout
    good = {folder for folder, e in editions(root / "content").items() if e["id"] != BROKEN}
    for folder in good:
        pdfs = list((root / "out" / folder).glob("*.pdf"))
        assert len(pdfs) >= 4 and all(pdf_pages(p) >= 1 for p in pdfs), folder
    assert not list((root / "out").glob(f"{BROKEN}*/*.pdf"))
    located = [LOCATED.match(text.strip()) for text in process.stderr.splitlines()]
    located = [m for m in located if m and "count" in m["message"]]
    assert len(located) == 1, process.stderr
    where = located[0]
    assert (root / where["file"]).resolve() == path.resolve()
    assert (int(where["line"]), int(where["col"])) == (line, column), where.group(0)
    assert "six" in where["message"]
    summary = parse_summary(process.stdout)
    assert summary is not None, process.stdout
    assert summary.rows[BROKEN]["status"] == "failed"
    assert {summary.rows[f]["status"] for f in good} == {"built"}
    assert (summary.built, summary.fresh, summary.failed) == (len(editions(root / "content")) - 1, 0, 1)


def test_a_file_that_is_not_even_yaml_does_not_stop_the_others(tmp_path: Path):
    """A YAML syntax error is found before the kits are shared out among the workers; it must fail its own
    activity only, located, like any other content error."""
    root = copy_library(tmp_path)
    path = root / "content" / f"{BROKEN}.yaml"
    text = path.read_text(encoding="utf-8")
    title = re.search(r"^title: .*$", text, re.M)
    assert title
    kits = len(editions(root / "content"))
    path.write_text(text[:title.start()] + "title: [never closed\n" + text[title.end() + 1:], encoding="utf-8")
    process = run_kitgen("build", "--all", "--content", "content", "--out", "out", cwd=root)
    assert process.returncode == 2, process.stderr
    assert "Traceback" not in process.stderr + process.stdout
    located = [m for m in map(LOCATED.match, process.stderr.splitlines()) if m and "YAML syntax" in m["message"]]
    assert len(located) == 1 and (root / located[0]["file"]).resolve() == path.resolve(), process.stderr
    summary = parse_summary(process.stdout)
    assert summary is not None, process.stdout
    assert summary.rows[BROKEN]["status"] == "failed"
    assert (summary.built, summary.failed) == (kits - 1, 1)


# --------------------------------------------------------------------------- a class


@pytest.mark.parametrize("students, per_kit, kits", [(28, 2, 14), (28, 4, 7), (29, 2, 15), (29, 4, 8),
                                                     (1, 2, 1), (30, 4, 8), (60, 2, 30)])
def test_kits_for_class_rounds_up_to_whole_kits(students, per_kit, kits):
    assert kits_for_class(students, per_kit) == kits


CLASS = 29


@pytest.fixture(scope="module")
def class_kit() -> dict[str, Path]:
    return shared("batch-class-kit", lambda: built_class_kit(shared_folder_path() / "class"))


def built_class_kit(out: Path) -> dict[str, Path]:
    result = CliRunner().invoke(main, ["build", ACTIVITY, "--class-size", str(CLASS), "--content", str(CONTENT),
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    files = {}
    for pdf in (out / "variants" / f"class{CLASS}" / ACTIVITY).glob("*.pdf"):  # a class build has its own folder
        role = pdf.stem[len(ACTIVITY) + 1:]
        files[role] = pdf
    assert {"cards", "sheets", "host-key", "print-guide"} <= set(files), files
    return files


@pytest.fixture(scope="module")
def activity() -> dict:
    return read_yaml(CONTENT / f"{ACTIVITY}.yaml")


def kit_numbers(texts: list[str]) -> Counter:
    found: Counter = Counter()
    for text in texts:
        numbers = re.findall(r"\bKit (\d+)\b", text)
        assert len(numbers) == 1, f"a card reads {text!r}"
        found[int(numbers[0])] += 1
    return found


def test_class_size_29_prints_15_numbered_kits_of_cards(class_kit, activity):
    players = activity["players"]
    kits = kits_for_class(CLASS, players if isinstance(players, int) else players["max"])
    assert kits == 15
    per_kit = sum(card["count"] for deck in activity["decks"] for card in deck["cards"])
    pages = card_texts(class_kit["cards"])
    assert len(pages) % 2 == 0
    faces = [text for page in pages[0::2] for text in page]
    backs = [text for page in pages[1::2] for text in page]
    assert len(faces) == len(backs) == per_kit * kits
    back_words = {deck["back"]["subtitle"] for deck in activity["decks"]}
    assert all(any(w in text for w in back_words) for text in backs)
    assert kit_numbers(backs) == {n: per_kit for n in range(1, kits + 1)}
    assert kit_numbers(faces) == {n: per_kit for n in range(1, kits + 1)}


def test_class_size_29_prints_a_record_sheet_for_every_player_of_every_kit(class_kit, activity):
    """Kit by kit: the kit's own rules page, then a record sheet for each of its players."""
    sheet_title = activity["record_sheets"][0]["title"]
    texts = page_texts(class_kit["sheets"])
    seats = {(player, kit) for kit in range(1, 16) for player in (1, 2)}
    assert len(texts) == 15 + len(seats), "one rules page per kit, then one record sheet per player"
    found = set()
    for kit in range(1, 16):
        rules, *records = texts[3 * (kit - 1):3 * kit]
        assert re.search(re.escape(activity["title"]) + rf" · Kit {kit}\b", rules), rules[:120]
        for text in records:
            match = re.search(re.escape(sheet_title) + r" · Player (\d+) · Kit (\d+)\b", text)
            assert match and int(match[2]) == kit, text[:120]
            found.add((int(match[1]), int(match[2])))
    assert found == seats


def test_class_print_guide_states_the_totals(class_kit):
    text = plain_text(class_kit["print-guide"])
    assert "15 kits for 30 players" in text
    assert "each kit has its own rules sheet" in text
    totals = re.search(r"(\d+) sheets of card stock, (\d+) sheets of plain paper \(one-sided(, including this guide)?\)"
                       r"( and this guide)?; (\d+) cards to cut, about (\d+) min", text)
    assert totals, text
    card_pages = pdf_pages(class_kit["cards"])
    plain = pdf_pages(class_kit["sheets"]) + pdf_pages(class_kit["host-key"])
    if totals[3]:
        plain += pdf_pages(class_kit["print-guide"])
    cards = sum(len(page) for page in card_texts(class_kit["cards"])[0::2])
    assert (int(totals[1]), int(totals[2]), int(totals[5])) == (card_pages // 2, plain, cards)
    # cutting time: a whole number of minutes, for 67 sheets of straight cuts (a few seconds a cut)
    cuts = (card_pages // 2) * 8  # 3 columns and 3 rows of poker cards on A4: 4 + 4 cuts a sheet
    assert cuts * 5 / 60 <= int(totals[6]) <= cuts * 20 / 60, totals.group(0)


# --------------------------------------------------------------------------- list, check, new, schema, preview, help


def test_list_shows_every_activity_and_the_trash_editions():
    result = CliRunner().invoke(main, ["list", "--content", str(CONTENT)])
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line for line in result.output.splitlines()[1:] if line.strip()}
    assert set(rows) == set(activity_ids(CONTENT))
    assert rows["trash"].rstrip().endswith("en, ro"), rows["trash"]
    for activity_id in activity_ids(CONTENT):
        assert "invalid" not in rows[activity_id]


def test_check_all_passes_on_the_library_and_fails_with_2_on_a_broken_file(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["check", "--all", "--content", str(CONTENT)])
    assert result.exit_code == 0, result.output
    for activity_id in activity_ids(CONTENT):
        assert f"{activity_id}: ok" in result.output
    content = copy_library(tmp_path) / "content"
    edit(content / f"{ACTIVITY}.yaml", "count: 6", "count: six")
    broken = runner.invoke(main, ["check", "--all", "--content", str(content)])
    assert broken.exit_code == 2, broken.output
    assert "Traceback" not in broken.output
    assert f"{ACTIVITY}: ok" not in broken.output
    assert re.search(re.escape(f"{ACTIVITY}.yaml") + r":\d+:\d+: .*six", broken.output), broken.output


def test_new_writes_an_activity_that_builds_at_once(tmp_path):
    runner = CliRunner()
    content = tmp_path / "content"
    content.mkdir()
    result = runner.invoke(main, ["new", "my-game", "--content", str(content)])
    assert result.exit_code == 0, result.output
    written = content / "my-game.yaml"
    assert written.is_file()
    assert read_yaml(written)["id"] == "my-game"
    again = runner.invoke(main, ["new", "my-game", "--content", str(content)])
    assert again.exit_code == 2 and written.is_file(), "a second `new` must refuse to overwrite"
    out = tmp_path / "out"
    built = runner.invoke(main, ["build", "my-game", "--content", str(content), "--out", str(out)])
    assert built.exit_code == 0, built.output
    pdfs = list((out / "my-game").glob("*.pdf"))
    assert len(pdfs) >= 4 and all(pdf_pages(p) >= 1 for p in pdfs)


def test_new_without_a_library_starts_one_here_and_never_writes_into_kitgens_own(tmp_path, monkeypatch):
    """In a folder of one's own (no ./content), `new` and `schema` write there, not into the installed package."""
    from kitgen.load.library import builtin_root

    monkeypatch.delenv("KITGEN_CONTENT", raising=False)
    builtin = sorted(p.name for p in (builtin_root() / "content").iterdir())
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    result = runner.invoke(main, ["new", "my-game"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "content" / "my-game.yaml").is_file()
    assert "started your own library in content" in result.output
    assert sorted(p.name for p in (builtin_root() / "content").iterdir()) == builtin
    schema = runner.invoke(main, ["schema"])
    assert schema.exit_code == 0, schema.output
    assert json.loads((tmp_path / "schema" / "activity.schema.json").read_text())["type"] == "object"
    listed = runner.invoke(main, ["list"])
    assert listed.output.splitlines()[1].split()[0] == "my-game" and len(listed.output.splitlines()) == 2
    second = runner.invoke(main, ["new", "other-game"])
    assert second.exit_code == 0 and "started" not in second.output, "the library exists now"


# schema


def overlay(base, over):
    """An edition overlay laid over its base: mappings key by key, lists item by item, scalars replaced."""
    if isinstance(base, dict) and isinstance(over, dict):
        return {**base, **{k: overlay(base[k], v) if k in base else v for k, v in over.items()}}
    if isinstance(base, list) and isinstance(over, list):
        if len(base) == len(over):
            return [overlay(b, o) for b, o in zip(base, over)]
        assert not any(isinstance(item, dict) for item in base), "an edition may not add or drop list items"
    return over  # a list of plain texts may differ in length: the edition's replaces the base's


def content_documents() -> list[tuple[str, object]]:
    """Every activity as data: single files, each folder's own file, and each overlay merged over it."""
    documents = []
    for activity_id in activity_ids(CONTENT):
        single = CONTENT / f"{activity_id}.yaml"
        if single.is_file():
            documents.append((activity_id, read_yaml(single)))
            continue
        base = read_yaml(CONTENT / activity_id / "activity.yaml")
        documents.append((f"{activity_id}/activity.yaml", base))
        for path in sorted((CONTENT / activity_id).glob("activity.*.yaml")):
            documents.append((f"{activity_id}/{path.name} over activity.yaml", overlay(base, read_yaml(path))))
    return documents


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> dict:
    target = tmp_path_factory.mktemp("schema") / "x.json"
    result = CliRunner().invoke(main, ["schema", "-o", str(target), "--content", str(CONTENT)])
    assert result.exit_code == 0, result.output
    data = json.loads(target.read_text(encoding="utf-8"))
    jsonschema.validators.validator_for(data).check_schema(data)
    return data


def schema_errors(schema: dict, document) -> list[str]:
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [f"{'.'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:160]}"
            for e in validator.iter_errors(document)]


@pytest.mark.parametrize("name, document", content_documents(), ids=[n for n, _ in content_documents()])
def test_schema_accepts_every_content_file(schema, name, document):
    errors = schema_errors(schema, document)
    assert not errors, f"{name}: {len(errors)} errors, e.g. {errors[:6]}"


@pytest.mark.parametrize("breakage", ["count-six", "unknown-key"])
def test_schema_rejects_a_broken_activity(schema, breakage):
    text = (CONTENT / f"{ACTIVITY}.yaml").read_text(encoding="utf-8")
    if breakage == "count-six":
        text = text.replace("count: 6", "count: six", 1)
    else:
        text = text.replace("\ntitle: ", "\ntitel: Typo\ntitle: ", 1)
    errors = schema_errors(schema, yaml.safe_load(text))
    assert errors, breakage
    wanted = "decks.0.cards.0.count" if breakage == "count-six" else "titel"
    assert any(wanted in error for error in errors), errors


def test_preview_writes_one_png_per_page(tmp_path):
    dpi = 20
    result = CliRunner().invoke(main, ["preview", ACTIVITY, "--content", str(CONTENT), "--out", str(tmp_path),
                                       "--dpi", str(dpi)])
    assert result.exit_code == 0, result.output
    folder = tmp_path / ACTIVITY
    pngs = sorted((folder / "preview").glob("*.png"))
    pdfs = sorted(folder.glob("*.pdf"))
    assert pdfs
    for pdf in pdfs:
        own = [p for p in pngs if re.fullmatch(re.escape(pdf.stem) + r"-\d+", p.stem)]
        assert len(own) == pdf_pages(pdf), f"{pdf.name}: {len(own)} PNGs for {pdf_pages(pdf)} pages"
    assert len(pngs) == sum(pdf_pages(pdf) for pdf in pdfs)
    from PIL import Image

    with Image.open(pngs[0]) as image:  # A4 at 20 dpi: 210 mm → 165 px, 297 mm → 234 px
        assert image.size[0] == pytest.approx(210 / 25.4 * dpi, abs=1.5)
        assert image.size[1] == pytest.approx(297 / 25.4 * dpi, abs=1.5)


def _command_paths(group, prefix=()):
    yield prefix
    for name, command in sorted(getattr(group, "commands", {}).items()):
        yield from _command_paths(command, (*prefix, name))


@pytest.mark.parametrize("path", list(_command_paths(main)), ids=lambda p: " ".join(p) or "kitgen")
def test_every_help_has_an_example(path):
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Example" in result.output, result.output


# --------------------------------------------------------------------------- no worker outlives the build

STALLED_BATCH = """
import os, sys, time
from pathlib import Path

import kitgen.app.batch as batch
from kitgen.load.library import Library
from kitgen.plan.options import BuildOptions

marks = Path(sys.argv[1])


def stalled(activity_id, options, content, language=None):
    (marks / str(os.getpid())).write_text(activity_id)
    time.sleep(300)


batch.build_one = stalled
batch.build_library(Library.open(Path(sys.argv[2])), BuildOptions(out_dir=marks / "out"), jobs=2)
"""


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its new parent to reap it is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGTERM", "SIGHUP"])
def test_killing_a_library_build_ends_its_workers(signal_name: str, tmp_path: Path):
    """`build --all` killed while both workers build: the workers end too, within seconds, instead of waiting
    forever on a pipe nobody writes to."""
    import os
    import signal
    import time

    marks = tmp_path / "marks"
    marks.mkdir()
    script = tmp_path / "stalled.py"
    script.write_text(STALLED_BATCH)
    parent = subprocess.Popen([sys.executable, str(script), str(marks), str(CONTENT)], env=kitgen_env(tmp_path),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline and parent.poll() is None:
            workers = [int(p.name) for p in marks.iterdir() if p.name.isdigit()]
            time.sleep(0.05)
        assert len(workers) == 2, parent.stderr.read().decode() if parent.poll() is not None else "no workers"
        parent.send_signal(getattr(signal, signal_name))
        parent.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in workers if alive(pid)], "a worker outlived the build"
    finally:
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        parent.stderr.close()


# --------------------------------------------------------------------------- a class, tables of several sizes


def test_kits_for_a_class_are_counted_from_the_largest_table(tmp_path: Path):
    """An activity for 2 to 3 players: 6 students fill 2 tables of 3, so 2 kits (not 3 tables of the minimum)."""
    data = read_yaml(CONTENT / f"{ACTIVITY}.yaml")
    data["players"] = {"min": 2, "max": 3}
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / f"{ACTIVITY}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False),
                                                           encoding="utf-8")
    result = CliRunner().invoke(main, ["build", ACTIVITY, "--class-size", "6", "--content", str(tmp_path / "content"),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    kit = tmp_path / "out" / "variants" / "class6" / ACTIVITY  # a class build has a folder of its own
    cards = kit / f"{ACTIVITY}-cards.pdf"
    backs = [text for page in card_texts(cards)[1::2] for text in page]
    per_kit = sum(card["count"] for deck in data["decks"] for card in deck["cards"])
    assert kit_numbers(backs) == {1: per_kit, 2: per_kit}
    assert "2 kits for 6 players" in plain_text(kit / f"{ACTIVITY}-print-guide.pdf")

"""Shared fixtures: the growing-discard kit built once per session (A4 and Letter), and PDF readers.

Everything the PDF tests assert is measured from the files kitgen wrote, so the helpers here only
open and parse PDFs; they never ask kitgen where it meant to put things.
"""
from __future__ import annotations

import compileall
import hashlib
import os
import pickle
import shutil
import sys
import tempfile
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import pdfplumber
import pypdf
import pypdfium2
import pytest
from pypdf.generic import ContentStream

from kitgen.app.build import build, BuildOptions, BuildResult
from kitgen.core import collector
from kitgen.load.editions import own_language
from kitgen.load.library import Library
from kitgen.load import load_activity, LoadedActivity

try:
    import fcntl
except ImportError:  # Windows: no lock, see _locked
    fcntl = None  # type: ignore[assignment]

T = TypeVar("T")

# the test modules' rewritten bytecode is kept in tests/__pycache__ even where PYTHONDONTWRITEBYTECODE is set
# (as on many CI machines): pytest rewrites the asserts of all 80 modules otherwise in every process of every
# run, about 3 s of CPU each
sys.dont_write_bytecode = False

# the collector at the settings of the kitgen command, in every test process too, whether or not a test has
# imported the command line yet
collector.tune()

# compiled templates go to a cache of this test session's own, never the user's
os.environ["KITGEN_CACHE"] = tempfile.mkdtemp(prefix="kitgen-test-cache-")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the benchmark's synthetic decks (benchmarks/, outside the package)
CONTENT = REPO / "content"
ACTIVITY = "growing-discard"
GROWING = CONTENT / f"{ACTIVITY}.yaml"
PAPERS = ("a4", "letter")
MM_PER_PT = 25.4 / 72


def pytest_configure(config: pytest.Config) -> None:
    """kitgen's modules compiled once for the run: with PYTHONDONTWRITEBYTECODE set (as on many CI machines) no
    process writes them, so every kitgen a test starts would compile the whole package again (0.1 s each)."""
    if not hasattr(config, "workerinput"):  # the run's first process, before its workers start
        compileall.compile_dir(REPO / "kitgen", quiet=1)


def kitgen_env(folder: Path, **extra: str) -> dict[str, str]:
    """The environment for kitgen in a real process: no library or printer profiles from the user's own."""
    env = {k: v for k, v in os.environ.items() if k != "KITGEN_CONTENT"}
    env["KITGEN_CONFIG"] = str(folder / "printers.json")
    return {**env, **extra}


def small_activity(activity_id: str, title: str, purpose: str, cards: str = "", back: str = "{title: Main}") -> str:
    """The YAML of a two-player test activity of one deck `main`; `cards` is the deck's `cards:` value (a file
    mapping) or empty, for card lines to follow (six spaces in: `      - {id: a, count: 1}`)."""
    return (f"id: {activity_id}\ntitle: {title}\npurpose: {purpose}\ncategory: Test\nplayers: 2\nminutes: 10\n"
            "rules:\n  prepare: Shuffle the cards.\n  play: Take turns.\n"
            f"decks:\n  - id: main\n    name: Main\n    back: {back}\n    cards:{' ' + cards if cards else ''}\n")


def library_copy(tmp_path: Path, relative: str, *changes: tuple[str, str]) -> Path:
    """The library's activity file `relative` (its folder too, for a folder activity) in a library of its own,
    each (old, new) replaced once; the content folder."""
    content = tmp_path / "content"
    source = CONTENT / relative
    if source.parent != CONTENT:
        shutil.copytree(source.parent, content / source.parent.name)
    else:
        content.mkdir()
        shutil.copyfile(source, content / relative)
    path = content / relative
    text = path.read_text(encoding="utf-8")
    for old, new in changes:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return content


def pt_to_mm(points: float) -> float:
    return points * MM_PER_PT


# --------------------------------------------------------------------------- system tools, work counters


def require_tool(command: str, *, package: str) -> str:
    """The path of a system tool the test needs. Missing: a failure naming the Debian package under CI=true,
    locally a skip that says which package to install."""
    path = shutil.which(command)
    if path:
        return path
    message = f"{command} is not installed (Debian package {package}: sudo apt-get install {package})"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


KITGEN_SOURCE = str(REPO / "kitgen")


class TooMuchWork(AssertionError):
    """The work counted passed the limit the test set (it stops the work instead of waiting for it)."""


@dataclass
class Work:
    lines: int = 0


@contextmanager
def counted_lines(limit: int = 50_000_000) -> Iterator[Work]:
    """How many lines of kitgen's own code the block runs (a loop's line counts once per turn), in `work.lines`,
    even if it raised: work, not time. Past `limit` lines the work is stopped with TooMuchWork."""
    work = Work()

    def local(frame, event, arg):
        if event == "line":
            work.lines += 1
            if work.lines > limit:
                raise TooMuchWork(f"more than {limit:,} lines of kitgen run")
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(KITGEN_SOURCE) else None

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        yield work
    finally:
        sys.settrace(previous)


def lines_run(work: Callable[[], object], limit: int = 50_000_000) -> int:
    """The lines of kitgen's own code `work()` runs (see counted_lines)."""
    with counted_lines(limit) as counted:
        work()
    return counted.lines


@dataclass
class Peak:
    bytes: int = 0


@contextmanager
def allocated() -> Iterator[Peak]:
    """The most memory Python allocated inside the block (tracemalloc's peak), in `peak.bytes`, even if it raised."""
    peak = Peak()
    tracemalloc.start()
    try:
        yield peak
    finally:
        peak.bytes = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


# --------------------------------------------------------------------------- builds


_shared_folder: list[Path] = []  # set once per test process by `shared_folder`


@pytest.fixture(scope="session", autouse=True)
def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder the processes of one test run share (the parent of each xdist worker's own temporary folder,
    which pytest cleans up as it does those), where builds and parsed PDFs are kept for all of them."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared"
    folder.mkdir(exist_ok=True)
    _shared_folder[:] = [folder]
    return folder


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Held by one test process at a time (an exclusive lock on `path`; without fcntl, no lock: the work is
    then done twice, each result written whole)."""
    with open(path, "a+b") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def shared_folder_path() -> Path:
    """The folder this test run's processes share (see `shared_folder`)."""
    return _shared_folder[0]


def shared(name: str, make: Callable[[], T]) -> T:
    """`make()` done once per test run and shared by its processes: the first to ask makes it under a lock and
    keeps it pickled; the others wait for it and read it."""
    folder = shared_folder_path()
    kept = folder / f"{name}.pickle"
    with _locked(folder / f"{name}.lock"):
        if kept.exists():
            value: T = pickle.loads(kept.read_bytes())
            return value
        value = make()
        partial = kept.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(value))
        partial.replace(kept)
        return value


def library_kit(activity: str, paper: str = "a4", language: str | None = None) -> BuildResult:
    """A kit of the library in `content/` (the edition in `language`, else its own), built with the default
    options once per test run into a folder of its own: the many tests that only read such a kit share one
    build (none may change its files)."""
    return _library_kit(activity, paper, language or own_language(Library.open(CONTENT).find(activity)))


@lru_cache(maxsize=None)
def _library_kit(activity: str, paper: str, language: str) -> BuildResult:
    def made() -> BuildResult:
        out = shared_folder_path() / "kits" / paper
        return build(activity, BuildOptions(paper=paper, out_dir=out), Library.open(CONTENT), language)

    return shared(f"kit-{activity}-{paper}-{language}", made)


def options_kit(activity: str, language: str | None = None, **options: object) -> BuildResult:
    """A kit of the library (the edition in `language`, else its own) built with these options (paper A4 unless
    given) once per test run, shared by every test that only reads it (none may change its files)."""
    options = {"paper": "a4", **options}
    name = "-".join(f"{key}={options[key]}" for key in sorted(options))

    def made() -> BuildResult:
        out = shared_folder_path() / "option-kits" / name
        return build(activity, BuildOptions(**options, out_dir=out), Library.open(CONTENT),  # type: ignore[arg-type]
                     language)

    return shared(f"options-kit-{activity}-{language}-{name}", made)


@lru_cache(maxsize=None)
def _page_texts(path: str, mtime_ns: int) -> tuple[str, ...]:
    document = pypdfium2.PdfDocument(path)  # PDFium's text, lines kept: many times quicker than pdfplumber's or pypdf's
    try:
        return tuple(page.get_textpage().get_text_range().replace("\r\n", "\n") for page in document)
    finally:
        document.close()


def page_texts(path: Path) -> list[str]:
    """The text of each page, lines kept (PDFium, cached per file version)."""
    return list(_page_texts(str(path), path.stat().st_mtime_ns))


def words_text(path: Path) -> str:
    """Every page's words in reading order, whitespace collapsed to single spaces (PDFium: for checks of what
    a file says, not where; `pdf_text` reads pdfplumber's layout)."""
    return " ".join(" ".join(text.split()) for text in page_texts(path))


def plain_text(path: Path) -> str:
    """The text of every page, lines kept (cached per file version)."""
    return "\n".join(_page_texts(str(path), path.stat().st_mtime_ns))


@pytest.fixture(scope="session")
def a4_kit() -> BuildResult:
    """growing-discard on A4, built once per session into a temporary folder."""
    return library_kit(ACTIVITY, "a4")


@pytest.fixture(scope="session")
def letter_kit() -> BuildResult:
    """growing-discard on US Letter, built once per session."""
    return library_kit(ACTIVITY, "letter")


@pytest.fixture(scope="session", params=PAPERS)
def paper(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="session")
def kit(paper: str, request: pytest.FixtureRequest) -> BuildResult:
    """The session build for the current `paper` parameter (a4 or letter)."""
    return request.getfixturevalue(f"{paper}_kit")


@pytest.fixture(scope="session")
def loaded() -> LoadedActivity:
    """The activity as the YAML says it (the source of every expected text and count)."""
    return load_activity(CONTENT / f"{ACTIVITY}.yaml")


def file_of(result: BuildResult, role: str) -> Path:
    """The one output file with this role (cards, sheets, host-key, print-guide)."""
    matches = [f.path for f in result.files if f.role == role]
    assert len(matches) == 1, f"expected one {role!r} file, got {matches}"
    assert matches[0].is_file(), f"{matches[0]} was reported but not written"
    return matches[0]


def pdf_files(result: BuildResult) -> list[Path]:
    paths = [f.path for f in result.files if f.path.suffix == ".pdf"]
    assert paths, "the build produced no PDF"
    return paths


# --------------------------------------------------------------------------- PDF parsing


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle in PDF points, lower-left origin."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def contains_point(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    def mirrored(self, page_width: float) -> "Box":
        """This box seen from the other side of the sheet, flipped about the long (vertical) edge."""
        return Box(page_width - self.x1, self.y0, page_width - self.x0, self.y1)


@dataclass(frozen=True)
class Placement:
    """A form XObject drawn on a page: its resource name and where its bounding box landed."""

    name: str
    box: Box


@dataclass
class PageFacts:
    """What one page of a PDF holds, in PDF coordinates (points, origin lower left)."""

    index: int
    width: float
    height: float
    text: str
    words: list[dict]  # pdfplumber words, plus "y0"/"y1" in PDF coordinates
    lines: list[dict]  # pdfplumber line objects (includes lines drawn inside form XObjects)
    chars: list[dict]
    tables: list[list[list[str | None]]]  # only filled when asked for (slow on card pages)
    placements: list[Placement] = field(default_factory=list)

    def words_in(self, box: Box) -> list[dict]:
        """Words whose centre lies inside `box`, in reading order."""
        inside = [w for w in self.words
                  if box.contains_point((w["x0"] + w["x1"]) / 2, (w["y0"] + w["y1"]) / 2)]
        return sorted(inside, key=lambda w: (-w["y1"], w["x0"]))

    def text_in(self, box: Box) -> str:
        return " ".join(w["text"] for w in self.words_in(box))


def _multiply(m1: list[float], m2: list[float]) -> list[float]:
    """m1 × m2 for PDF matrices [a b c d e f]."""
    a1, b1, c1, d1, e1, f1 = m1
    a2, b2, c2, d2, e2, f2 = m2
    return [a1 * a2 + b1 * c2, a1 * b2 + b1 * d2,
            c1 * a2 + d1 * c2, c1 * b2 + d1 * d2,
            e1 * a2 + f1 * c2 + e2, e1 * b2 + f1 * d2 + f2]


def _apply(m: list[float], x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def form_placements(reader: pypdf.PdfReader, page: pypdf.PageObject) -> list[Placement]:
    """Every form XObject painted by the page's own content stream, with its transformed bounding box."""
    resources = page.get("/Resources")
    resources = resources.get_object() if resources is not None else {}
    xobjects = resources.get("/XObject")
    xobjects = xobjects.get_object() if xobjects is not None else {}
    contents = page.get_contents()
    if contents is None:
        return []
    ctm = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    stack: list[list[float]] = []
    found: list[Placement] = []
    for operands, operator in ContentStream(contents, reader).operations:
        if operator == b"q":
            stack.append(ctm)
        elif operator == b"Q":
            ctm = stack.pop()
        elif operator == b"cm":
            ctm = _multiply([float(v) for v in operands], ctm)
        elif operator == b"Do":
            name = str(operands[0])
            xobject = xobjects[name].get_object()
            if xobject.get("/Subtype") != "/Form":
                continue
            matrix = [float(v) for v in xobject.get("/Matrix", [1, 0, 0, 1, 0, 0])]
            full = _multiply(matrix, ctm)
            bx0, by0, bx1, by1 = (float(v) for v in xobject["/BBox"])
            corners = [_apply(full, x, y) for x in (bx0, bx1) for y in (by0, by1)]
            xs, ys = [p[0] for p in corners], [p[1] for p in corners]
            found.append(Placement(name, Box(min(xs), min(ys), max(xs), max(ys))))
    return found


def _facts(path: str, mtime_ns: int, tables: bool) -> tuple[PageFacts, ...]:
    reader = pypdf.PdfReader(path)
    pages: list[PageFacts] = []
    with pdfplumber.open(path) as pdf:
        for index, (plumber_page, pypdf_page) in enumerate(zip(pdf.pages, reader.pages)):
            height = float(plumber_page.height)
            words = []
            for word in plumber_page.extract_words():
                word = dict(word)
                word["y0"], word["y1"] = height - word["bottom"], height - word["top"]
                words.append(word)
            pages.append(PageFacts(
                index=index,
                width=float(plumber_page.width),
                height=height,
                text=plumber_page.extract_text() or "",
                words=words,
                lines=[dict(line) for line in plumber_page.lines],
                chars=[dict(char) for char in plumber_page.chars],
                tables=plumber_page.extract_tables() if tables else [],
                placements=form_placements(reader, pypdf_page),
            ))
        assert len(pdf.pages) == len(reader.pages)
    return tuple(pages)


def page_facts(path: Path, *, tables: bool = False) -> tuple[PageFacts, ...]:
    """Parsed pages of a PDF, cached per file version (each PDF's bytes are parsed once per test run, whichever
    process asks first). `tables=True` also runs pdfplumber's table finder on every page."""
    return _facts_of(str(path), path.stat().st_mtime_ns, tables)


@lru_cache(maxsize=None)
def _facts_of(path: str, mtime_ns: int, tables: bool) -> tuple[PageFacts, ...]:
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:32]
    return shared(f"facts-{digest}-{tables}", lambda: _facts(path, mtime_ns, tables))


def pdf_text(path: Path) -> str:
    """All extracted text of a PDF, whitespace collapsed to single spaces."""
    return " ".join(" ".join(page.text.split()) for page in page_facts(path))


@lru_cache(maxsize=None)
def _reader(path: str, mtime_ns: int) -> pypdf.PdfReader:
    return pypdf.PdfReader(path)


def pdf_reader(path: Path) -> pypdf.PdfReader:
    """A pypdf reader for page boxes, the catalog, fonts (cached per file version)."""
    return _reader(str(path), path.stat().st_mtime_ns)


# --------------------------------------------------------------------------- content to break on purpose


def yaml_data(text: str) -> Any:
    """YAML text as plain data: libyaml's safe loader gives what yaml.safe_load gives, ten times quicker (the
    tests read the library's files hundreds of times a run)."""
    import yaml

    return yaml.load(text, Loader=yaml.CSafeLoader)


def yaml_text(data: Any, **options: Any) -> str:
    """`data` as the YAML text yaml.safe_dump writes (unicode as it is, keys in their order): libyaml's emitter,
    which writes the same text quicker but for characters beyond U+FFFF, which it escapes; then Python's."""
    import yaml

    options = {"allow_unicode": True, "sort_keys": False, **options}
    text: str = yaml.dump(data, Dumper=yaml.CSafeDumper, **options)
    return yaml.safe_dump(data, **options) if "\\U" in text else text


def growing_data() -> dict:
    """growing-discard as plain data, to change and write back."""
    data: dict = yaml_data(GROWING.read_text(encoding="utf-8"))
    return data


def write_activity(folder: Path, data: dict, name: str = ACTIVITY) -> Path:
    """`folder/<name>.yaml` holding `data` (one line per value, however long)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(yaml_text(data, width=1000), encoding="utf-8")
    return path


def folder_activity(tmp_path: Path, name: str = "own-templates") -> Path:
    """content/<name>/activity.yaml (growing-discard with that id) and an empty templates/ folder."""
    data = growing_data()
    data["id"] = name
    folder = tmp_path / "content" / name
    write_activity(folder, data, "activity")
    (folder / "templates").mkdir()
    return folder

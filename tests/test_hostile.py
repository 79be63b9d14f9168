"""Hostile input: files made to take kitgen down (a process abort, memory without end, a build that never ends, a
corrupt PDF) are refused before the work, with a located error and exit status 2.

The corpus is tests/hostile: each `<case>.yaml` is an activity whose first line is `# expect: <first error line>`,
with the files of the same name beside it (`<case>.xlsx`, `<case>.ro.yaml`, ...). Files too large to keep are
written by the test (GENERATED). Every case runs `kitgen` in a process of its own, its address space capped (a
regression aborts that process or fails there, not the test run), stopped if it is still running after
HANG_GUARD seconds; its peak memory is read from the kernel's count when it ends.
"""
from __future__ import annotations

import resource
import shutil
import struct
import subprocess
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import forked
import pytest

from conftest import CONTENT, kitgen_env

HOSTILE = Path(__file__).resolve().parent / "hostile"
HANG_GUARD = 60  # seconds: a case still running then is stopped, and fails
ADDRESS_SPACE = 3 * 1024 ** 3  # bytes a case's process (and its workers) may map
PEAK_MEMORY = 300 * 1024 ** 2  # bytes of memory a refused case may have used at most (issue 27's bound)


# --------------------------------------------------------------------------- running kitgen


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    peak: int  # bytes: the largest resident set of the process (or a worker it waited for)


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_kitgen(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Run:
    """`kitgen ARGS` in a process of its own, in a session of its own (stopped with its workers)."""
    try:
        done = forked.run(list(args), cwd=cwd, env=env or kitgen_env(cwd), timeout=HANG_GUARD, memory=ADDRESS_SPACE)
    except subprocess.TimeoutExpired:
        pytest.fail(f"kitgen {' '.join(args)} was still running after {HANG_GUARD} s")
    return Run(done.returncode, done.stdout, done.stderr, done.peak)


def assert_refused(run: Run, expected: str, code: int = 2) -> None:
    """Exit `code`, no traceback, the expected first line on stderr, and memory within bounds."""
    assert "Traceback" not in run.stderr and "panicked" not in run.stderr, run.stderr[-3000:]
    assert run.code == code, f"exit {run.code}, expected {code}\n{run.stderr[-3000:]}"
    assert run.stderr.splitlines()[:1] == [expected]
    assert run.peak < PEAK_MEMORY, f"used {run.peak / 1024 ** 2:.0f} MB to refuse a file"


# --------------------------------------------------------------------------- files too large to keep


def _zip(path: Path, members: list[tuple[str, bytes, int, int]]) -> None:
    """A zip archive of already deflated members: (name, raw deflate data, CRC-32, size it declares)."""
    body, directory = b"", b""
    for name, data, crc, size in members:
        encoded = name.encode()
        directory += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x5C21, crc, len(data), size,
                                 len(encoded), 0, 0, 0, 0, 0, len(body)) + encoded
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x5C21, crc, len(data), size, len(encoded),
                            0) + encoded + data
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(directory), len(body), 0)
    path.write_bytes(body + directory + end)


def _deflated(text: bytes) -> tuple[bytes, int, int]:
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
    return squeeze.compress(text) + squeeze.flush(), zlib.crc32(text), len(text)


def zip_bomb(path: Path, inflated: int = 4_000_000_000, declared: int | None = None) -> None:
    """An XLSX of a few megabytes whose sheet inflates to `inflated` bytes of rows (declared as such, or as
    `declared` bytes: a size that lies). The sheet is one block of rows deflated once and repeated: deflate's full
    flush makes each copy of the block the same bytes."""
    from sheetfiles import write_xlsx

    small = path.with_suffix(".small.xlsx")
    write_xlsx(small, {"Sheet1": [["id", "name"], ["a", "A"]]})
    import zipfile

    with zipfile.ZipFile(small) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    small.unlink()
    head = b'<?xml version="1.0" encoding="UTF-8"?><worksheet ' \
           b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
    tail = b"</sheetData></worksheet>"
    block = b'<row><c t="inlineStr"><is><t>x</t></is></c></row>' * 20_000
    copies = (inflated - len(head) - len(tail)) // len(block)
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = squeeze.compress(head) + squeeze.flush(zlib.Z_FULL_FLUSH)
    repeated = squeeze.compress(block) + squeeze.flush(zlib.Z_FULL_FLUSH)
    data = start + repeated * copies + squeeze.compress(tail) + squeeze.flush()
    crc = zlib.crc32(head)
    for _ in range(copies):
        crc = zlib.crc32(block, crc)
    size = len(head) + copies * len(block) + len(tail)
    sheet = ("xl/worksheets/sheet1.xml", data, zlib.crc32(tail, crc), declared if declared is not None else size)
    _zip(path, [(name, *_deflated(text)) for name, text in parts.items() if name != sheet[0]] + [sheet])


def png(path: Path, width: int, height: int, rows: int, channels: int = 4) -> None:
    """A PNG of 8-bit RGBA (or RGB: channels 3) pixels that declares `height` rows and holds `rows` of them."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    squeeze, row = zlib.compressobj(9), b"\0" + b"\x80" * width * channels
    data = b"".join(squeeze.compress(row) for _ in range(rows)) + squeeze.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 6 if channels == 4 else 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b""))


def appended(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


GENERATED: dict[str, Callable[[Path], None]] = {
    "zip-bomb": lambda content: zip_bomb(content / "zip-bomb.xlsx"),
    "zip-bomb-lying": lambda content: zip_bomb(content / "zip-bomb-lying.xlsx", declared=10_000),
    # 200,000 rectangles inside the 20 MB picture limit (97 s and 806 MB once)
    "many-rects": lambda content: (content / "many-rects.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        + '<rect x="1" y="1" width="5" height="5" fill="#c00"/>' * 200_000 + "</svg>"),
    # 6,200 × 6,200 RGBA pixels, all their rows (609 MB once)
    "huge-png": lambda content: png(content / "huge-png.png", 6_200, 6_200, 6_200),
    # 10 of the 3,000 rows its header declares (the rest printed black once)
    "short-png": lambda content: png(content / "short-png.png", 100, 3_000, 10, channels=3),
    # 60,000 unknown keys (the problem list was 45 MB of stderr once)
    "unknown-keys": lambda content: appended(content / "unknown-keys.yaml",
                                             "".join(f"extra{n:05}: 1\n" for n in range(60_000))),
    # 3,000 cards naming pictures the library lacks (22 s of looking for similar names once)
    "unknown-pictures": lambda content: appended(content / "unknown-pictures.yaml", "".join(
        f"      - {{id: c{n}, count: 1, image: missing-{n:04}.png}}\n" for n in range(3_000))),
    # a heading row of 100,000 unknown columns (quadratic once: still running at 150 s)
    "wide-headings": lambda content: (content / "wide-headings.csv").write_text(
        ",".join(["id", *(f"h{n:06}" for n in range(100_000))]) + "\n" + ",".join(["a", *"1" * 100_000]) + "\n"),
}


# --------------------------------------------------------------------------- the corpus


CASES = sorted(HOSTILE.glob("*.yaml"))
ACTIVITIES = [path for path in CASES if "." not in path.stem]


def expected_line(case: Path) -> str:
    first = case.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect: "), f"{case.name} must start with '# expect: <first error line>'"
    return first[len("# expect: "):]


def lay_out(case: Path, root: Path) -> Path:
    """A library in `root/content` holding the case and its files (written, when too large to keep)."""
    content = root / "content"
    content.mkdir(parents=True, exist_ok=True)
    for path in HOSTILE.glob(f"{case.stem}.*"):
        shutil.copyfile(path, content / path.name)
    if case.stem in GENERATED:
        GENERATED[case.stem](content)
    return content


def written(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in (root / "out").rglob("*") if p.is_file()) \
        if (root / "out").exists() else []


@pytest.mark.parametrize("case", ACTIVITIES, ids=[path.stem for path in ACTIVITIES])
def test_hostile_activity_is_refused(case: Path, tmp_path: Path):
    """`kitgen build <case>`: exit 2, the expected located line, no traceback, nothing written."""
    lay_out(case, tmp_path)
    run = run_kitgen("build", case.stem, "--content", "content", "--out", "out", cwd=tmp_path)
    assert_refused(run, expected_line(case))
    assert written(tmp_path) == [], "a refused kit must write nothing"


def test_build_all_survives_a_hostile_workbook(tmp_path: Path):
    """`kitgen build --all` with a hostile workbook in the library: that kit fails with its located error, the
    others are built, the index is written, exit 2."""
    content = lay_out(HOSTILE / "far-cell.yaml", tmp_path)
    lay_out(HOSTILE / "repeated-cells.yaml", tmp_path)
    shutil.copyfile(CONTENT / "growing-discard.yaml", content / "growing-discard.yaml")
    run = run_kitgen("build", "--all", "--jobs", "2", "--quiet", "--content", "content", "--out", "out",
                     cwd=tmp_path)
    assert "Traceback" not in run.stderr and "BrokenProcessPool" not in run.stderr, run.stderr[-3000:]
    assert run.code == 2, run.stderr[-3000:]
    assert expected_line(HOSTILE / "far-cell.yaml") in run.stderr.splitlines()
    assert expected_line(HOSTILE / "repeated-cells.yaml") in run.stderr.splitlines()
    assert (tmp_path / "out" / "growing-discard" / "manifest.json").is_file()
    assert (tmp_path / "out" / "index.pdf").is_file() and (tmp_path / "out" / "index.html").is_file()
    assert "1 built, 0 up to date, 2 failed" in run.stdout

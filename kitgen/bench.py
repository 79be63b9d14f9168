"""Benchmark: `python -m kitgen.bench` builds synthetic decks and libraries in fresh processes and prints a table.

Cases: the floor (Python with kitgen's dependencies imported, then its build modules), the CLI's start, the real
library (full and no-op), synthetic decks of 200, 2,000 and 20,000 distinct
cards, and a synthetic library of 200 activities on one worker and on every core. Each case runs
`--repeat` times (median wall time; peak resident memory of the child process).
"""
from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kitgen.library import builtin_root

ACTIVITY = """id: {id}
title: Synthetic deck {id}
purpose: Measure how kitgen's build time grows with the number of cards.
category: Benchmark
players: 2
minutes: 10
rules:
  prepare: Shuffle the deck.
  play: Take turns.
decks:
  - id: deck
    name: Synthetic deck
    back: {{title: Synthetic, symbol: "★", pattern: stripes}}
    generate:
      product:
        row: {rows}
        column: {columns}
      card:
        id: "r{{{{ row }}}}c{{{{ column }}}}"
        name: "Card {{{{ row }}}}-{{{{ column }}}}"
        value: "{{{{ row }}}}"
        symbol: "◆"
        caption: "Column {{{{ column }}}}"
        text: "Row {{{{ row }}}} and column {{{{ column }}}}: a distinct card with its own text."
        count: {copies}
record_sheets:
  - id: record
    title: Record
    columns: [Turn, Note]
    rows: 6
"""


# what any build has to import before it draws anything: the floor under every build case below
DEPENDENCIES = "import click, yaml, jinja2.sandbox, pydantic, reportlab.pdfgen.canvas, reportlab.platypus"
KITGEN_MODULES = "import kitgen.cli, kitgen.build, kitgen.render.kit, kitgen.load.model"

# the reference under the deck cases: the same sheets drawn with a plain ReportLab canvas and nothing else
# (poker cards 3 × 3 on A4, crop marks, mirrored backs, embedded DejaVu Sans; no validation, no text fitting,
# no documents). Arguments: cards, font file, output file.
PLAIN_CANVAS = """
import sys
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
cards, font, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
pdfmetrics.registerFont(TTFont("Sans", font))
mm, page = 72 / 25.4, (595.2756, 841.8898)
w, h = 63.5 * mm, 88.9 * mm
x0, y0 = (page[0] - 3 * w) / 2, (page[1] - 3 * h) / 2
c = Canvas(out, pagesize=page, invariant=1, pageCompression=1)
for first in range(0, cards, 9):
    for side in ("face", "back"):
        for i in range(first, min(first + 9, cards)):
            column, row = (i - first) % 3, (i - first) // 3
            x, y = x0 + (2 - column if side == "back" else column) * w, y0 + (2 - row) * h
            c.setLineWidth(0.6)
            c.roundRect(x + 2 * mm, y + 2 * mm, w - 4 * mm, h - 4 * mm, 2.5 * mm)
            c.setFont("Sans", 10)
            if side == "face":
                c.drawString(x + 4 * mm, y + h - 10 * mm, f"Card {i // 20}-{i % 20}")
                c.drawString(x + 4 * mm, y + h / 2, f"Row {i // 20} and column {i % 20}:")
                c.drawString(x + 4 * mm, y + h / 2 - 12, "a distinct card with its own text.")
            else:
                c.drawCentredString(x + w / 2, y + h / 2, "Synthetic")
        c.setLineWidth(0.25)
        for k in range(4):
            c.line(x0 + k * w, y0 - 8 * mm, x0 + k * w, y0 - 1 * mm)
            c.line(x0 + k * w, y0 + 3 * h + 1 * mm, x0 + k * w, y0 + 3 * h + 8 * mm)
            c.line(x0 - 8 * mm, y0 + k * h, x0 - 1 * mm, y0 + k * h)
            c.line(x0 + 3 * w + 1 * mm, y0 + k * h, x0 + 3 * w + 8 * mm, y0 + k * h)
        c.showPage()
c.save()
"""


def synthetic_activity(folder: Path, activity_id: str, cards: int, copies: int = 1) -> None:
    """An activity whose deck holds `cards` distinct cards (a row × column product), `copies` of each."""
    columns = min(cards, 20)
    rows = cards // columns
    (folder / f"{activity_id}.yaml").write_text(
        ACTIVITY.format(id=activity_id, rows=list(range(rows)), columns=list(range(columns)), copies=copies),
        encoding="utf-8")


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Wall seconds and peak resident memory (MB) of one fresh process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env={**os.environ, **(env or {})})
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0,):
        raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read().decode()[-400:]}")
    return wall, usage.ru_maxrss // 1024


def measure(name: str, command: list[str], cwd: Path, repeat: int, out: Path | None, cards: int,
            env: dict[str, str] | None = None) -> dict:
    walls, peaks = [], []
    for _ in range(repeat):
        wall, peak = run(command, cwd, env)
        walls.append(wall)
        peaks.append(peak)
    pdfs = list(out.rglob("*.pdf")) if out else []
    pages = 0
    if pdfs:
        import json
        for manifest in out.rglob("manifest.json"):
            pages += sum(f["pages"] for f in json.loads(manifest.read_text())["files"].values())
    median = statistics.median(walls)
    return {"case": name, "wall": median, "peak": max(peaks), "pages": pages,
            "bytes": sum(p.stat().st_size for p in pdfs), "ms_per_card": (median * 1000 / cards) if cards else None}


def library_cases(work: Path, kitgen: list[str], repeat: int) -> list[dict]:
    """The CLI's start and the real library: full (with and without compiled templates kept) and no-op."""
    library = work / "library"
    shutil.copytree(builtin_root() / "content", library / "content")
    shutil.copytree(builtin_root() / "templates", library / "templates")
    out = work / "out-library"
    full = kitgen + ["build", "--all", "--force", "-q", "--content", str(library / "content"), "--out", str(out)]
    noop = kitgen + ["build", "--all", "-q", "--content", str(library / "content"), "--out", str(out)]
    python = kitgen[:1]
    return [measure("floor: Python + dependencies imported", python + ["-c", DEPENDENCIES], work, repeat, None, 0),
            measure("floor: + kitgen's build modules", python + ["-c", KITGEN_MODULES], work, repeat, None, 0),
            measure("kitgen --help", kitgen + ["--help"], work, repeat, None, 0),
            measure("library, full build", full, work, repeat, out, 0),
            measure("library, full, no template cache", full, work, repeat, out, 0, env={"KITGEN_CACHE": "off"}),
            measure("library, no-op rebuild", noop, work, repeat, None, 0)]


def _sigint_default() -> None:
    """In the watcher: SIGINT (Ctrl-C) as in a terminal, also when the benchmark runs as a background job,
    whose children inherit SIGINT ignored."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def watch_case(work: Path, kitgen: list[str], repeat: int) -> dict:
    """`kitgen build growing-discard --watch`: the time from saving an edit to the rebuilt kit (median)."""
    import queue
    import signal
    import threading

    content = work / "watched" / "content"
    shutil.copytree(builtin_root() / "content", content)
    source = content / "growing-discard.yaml"
    original = source.read_text(encoding="utf-8")
    process = subprocess.Popen(kitgen + ["build", "growing-discard", "--watch", "--content", str(content), "--out",
                                         str(work / "out-watched")], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, preexec_fn=_sigint_default)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()  # type: ignore

    def wait_for(text: str) -> None:
        while text not in lines.get(timeout=120):
            pass

    walls = []
    try:
        wait_for("watching")
        for turn in range(repeat):
            start = time.perf_counter()
            source.write_text(original.replace("purpose: ", f"purpose: ({turn}) ", 1), encoding="utf-8")
            wait_for("quality report")
            walls.append(time.perf_counter() - start)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return {"case": "save → rebuilt kit, --watch", "wall": statistics.median(walls), "peak": 0, "pages": 0,
            "bytes": 0, "ms_per_card": None}


def deck_cases(work: Path, kitgen: list[str], repeat: int, quick: bool) -> list[dict]:
    """Distinct cards (200, 2,000 and 20,000), and 40 card kinds printed once and 30 times each."""
    decks = work / "decks" / "content"
    decks.mkdir(parents=True)
    rows = []
    for cards, kits in [(200, 1), (2000, 1)] + ([] if quick else [(2000, 10)]):
        synthetic_activity(decks, f"deck-{cards}", cards)
        out = work / f"out-{cards}-{kits}"
        command = kitgen + ["build", f"deck-{cards}", "--force", "-q", "--content", str(decks), "--out", str(out)] \
            + (["--kits", str(kits)] if kits > 1 else [])
        label = f"{cards * kits:,} cards" + (f" ({kits} kits of {cards:,})" if kits > 1 else " (distinct)")
        rows.append(measure(label, command, work, repeat if cards * kits <= 2000 else 1, out, cards * kits))
        if cards == 2000 and kits == 1:
            rows.append(plain_canvas_case(work, repeat, cards))
    for copies in (1, 30):
        synthetic_activity(decks, f"repeat-{copies}", 40, copies)
        out = work / f"out-repeat-{copies}"
        command = kitgen + ["build", f"repeat-{copies}", "--force", "-q", "--content", str(decks), "--out", str(out)]
        rows.append(measure(f"{40 * copies:,} cards (40 kinds × {copies})", command, work, 1, out, 40 * copies))
    return rows


def plain_canvas_case(work: Path, repeat: int, cards: int) -> dict:
    """The same card sheets from a plain ReportLab canvas: what drawing alone costs with ReportLab."""
    from kitgen.render.fonts import FONT_DIR

    pdf = work / f"plain-{cards}.pdf"
    command = [sys.executable, "-c", PLAIN_CANVAS, str(cards), str(FONT_DIR / "DejaVuSans.ttf"), str(pdf)]
    row = measure(f"reference: plain canvas, {cards:,}", command, work, repeat, None, cards)
    row.update(pages=2 * -(-cards // 9), bytes=pdf.stat().st_size)
    return row


def parallel_cases(work: Path, kitgen: list[str], pairs: int = 2) -> tuple[list[dict], list[float]]:
    """200 small activities on one worker and on every core, in turn (A B A B), so that a drift in the
    machine's speed hits both alike; the speed-up is the median of the pairs' ratios."""
    many = work / "many" / "content"
    many.mkdir(parents=True)
    for index in range(200):
        synthetic_activity(many, f"activity-{index:03d}", 40)
    runs: dict[int, list[dict]] = {}
    for _ in range(pairs):
        for jobs in (1, os.cpu_count() or 1):
            out = work / f"out-many-{jobs}"
            command = kitgen + ["build", "--all", "--force", "-q", "--jobs", str(jobs), "--content", str(many),
                                "--out", str(out)]
            runs.setdefault(jobs, []).append(measure(f"200 activities, {jobs} worker(s)", command, work, 1, out,
                                                     200 * 40))
    one, every = runs.values() if len(runs) == 2 else (runs[1], runs[1])
    rows = []
    for side in (one, every):
        row = dict(side[0])
        row["wall"] = statistics.median(r["wall"] for r in side)
        row["peak"] = max(r["peak"] for r in side)
        row["ms_per_card"] = row["wall"] * 1000 / (200 * 40)
        rows.append(row)
    return rows, [a["wall"] / b["wall"] for a, b in zip(one, every)]


def print_table(rows: list[dict], speedups: list[float]) -> None:
    print(f"{'case':<36} {'median wall':>11} {'peak MB':>8} {'pages':>6} {'bytes':>11} {'ms/card':>8}")
    for row in rows:
        per_card = f"{row['ms_per_card']:.2f}" if row["ms_per_card"] else "-"
        size = f"{row['bytes']:,}" if row["bytes"] else "-"
        print(f"{row['case']:<36} {row['wall']:>10.2f}s {row['peak'] or '-':>8} {row['pages'] or '-':>6} "
              f"{size:>11} {per_card:>8}")
    repeats = [r for r in rows if "40 kinds" in r["case"]]
    if len(repeats) == 2:
        extra = (repeats[1]["bytes"] - repeats[0]["bytes"]) / (40 * 29)
        print(f"bytes per additional copy of a card kind: {extra:,.0f}")
    if speedups:
        print(f"parallel speed-up on {os.cpu_count()} cores: {statistics.median(speedups):.2f}× "
              f"(pairs: {', '.join(f'{s:.2f}' for s in speedups)})")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kitgen.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per case (median is reported)")
    parser.add_argument("--quick", action="store_true", help="skip the 20,000-card and 200-activity cases")
    args = parser.parse_args(argv)
    # as an installed package is: byte-compiled (an editable checkout may not be, and would pay for it each run)
    compileall.compile_dir(str(Path(__file__).resolve().parent), quiet=1)
    kitgen = [sys.executable, "-m", "kitgen"]
    speedups: list[float] = []
    with tempfile.TemporaryDirectory(prefix="kitgen-bench-") as tmp:
        work = Path(tmp)
        rows = library_cases(work, kitgen, args.repeat) + [watch_case(work, kitgen, args.repeat)] \
            + deck_cases(work, kitgen, args.repeat, args.quick)
        if not args.quick:
            many, speedups = parallel_cases(work, kitgen)
            rows += many
    print_table(rows, speedups)


if __name__ == "__main__":
    main()

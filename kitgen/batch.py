"""Build a whole library: every activity and language edition, in parallel, one failure never stopping the rest."""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kitgen.errors import KitgenError
from kitgen.library import Library
from kitgen.results import BuildOptions, BuildResult


@dataclass
class ActivityReport:
    """The outcome for one activity: its editions' results, or the error that stopped it."""

    activity_id: str
    results: list[BuildResult] = field(default_factory=list)
    error: str | None = None
    exit_code: int = 0
    thumbnails: dict[str, bytes] = field(default_factory=dict)  # kit folder name → PNG of its first card sheet

    @property
    def status(self) -> str:
        if self.error:
            return "failed"
        return "up to date" if all(r.skipped for r in self.results) else "built"


def build_one(activity_id: str, options: BuildOptions, content: Path) -> ActivityReport:
    """Build every edition of one activity; errors become part of the report."""
    from kitgen.build import build_all_editions
    from kitgen.index import thumbnail

    try:
        results = build_all_editions(activity_id, options, Library(content))
        # the index's thumbnails are drawn here, in the worker, while the other core builds another kit
        return ActivityReport(activity_id, results, thumbnails={r.folder.name: thumbnail(r) for r in results})
    except KitgenError as error:
        return ActivityReport(activity_id, error=str(error), exit_code=error.exit_code)
    except Exception as error:  # an unexpected failure in one kit must not stop the others
        return ActivityReport(activity_id, error=f"internal error: {type(error).__name__}: {error}", exit_code=1)


def _warm_up() -> None:
    """Import the renderer and register the fonts once, before workers fork and share them."""
    import kitgen.build  # noqa: F401
    import kitgen.render.kit  # noqa: F401
    from kitgen.render.fonts import register_fonts

    register_fonts()


def build_library(library: Library, options: BuildOptions, *, jobs: int | None = None,
                  on_done: Callable[[ActivityReport], None] | None = None) -> list[ActivityReport]:
    """Build every activity, `jobs` at a time (default: one per CPU core); reports in library order.

    Up-to-date activities are recognised here from their manifests, without loading the renderer.
    """
    from kitgen.inputs import fresh_results

    files = library.activity_files()
    reports: dict[str, ActivityReport] = {}
    stale = []
    for activity_id, path in files.items():
        fresh = fresh_results(path, library, options) if options.incremental else None
        if fresh is None:
            stale.append(activity_id)
        else:
            reports[activity_id] = ActivityReport(activity_id, fresh)
            if on_done:
                on_done(reports[activity_id])
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(stale)))
    if stale:
        _warm_up()
    if jobs == 1:
        for activity_id in stale:
            reports[activity_id] = build_one(activity_id, options, library.content)
            if on_done:
                on_done(reports[activity_id])
    else:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            futures = [pool.submit(build_one, activity_id, options, library.content) for activity_id in stale]
            for future in as_completed(futures):
                report = future.result()
                reports[report.activity_id] = report
                if on_done:
                    on_done(report)
    return [reports[activity_id] for activity_id in files]


def summary_table(reports: list[ActivityReport]) -> str:
    """A plain-text table: activity, files, pages, sheets of paper and of card stock, status."""
    rows = [("activity", "files", "pages", "paper", "card stock", "status")]
    for report in reports:
        for result in report.results or [None]:
            name = report.activity_id if result is None else Path(result.folder).name
            if result is None:
                rows.append((name, "-", "-", "-", "-", "failed"))
            else:
                rows.append((name, str(len(result.files)), str(result.pages), str(result.sheets(False)),
                             str(result.sheets(True)), "up to date" if result.skipped else "built"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    built = sum(r.status == "built" for r in reports)
    fresh = sum(r.status == "up to date" for r in reports)
    failed = sum(r.status == "failed" for r in reports)
    lines.append(f"{built} built, {fresh} up to date, {failed} failed")
    return "\n".join(lines)

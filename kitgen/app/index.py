"""The library index written by a batch build: a printable catalogue (PDF) and a page of links (HTML)."""
from __future__ import annotations

import html
import io
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Sequence, Union

from kitgen.app.report import ActivityReport
from kitgen.core.atomic import write_atomic
from kitgen.core.files import BuildResult
from kitgen.core.units import mm, PAPER_SIZES
from kitgen.fonts.registry import BOLD, register_fonts, REGULAR
from kitgen.load.library import Library
from kitgen.plan.options import VARIANTS
from kitgen.write.fresh import last_good_results, verified_manifest

if TYPE_CHECKING:
    from kitgen.load.model import Activity
    from kitgen.render.platypus import Flowable

# one kit in the catalogue: its activity (as its manifest's summary has it, or as loaded), its result, its
# thumbnail (JPEG) and the warning it is listed with, if any
Entry = tuple[Union["Activity", SimpleNamespace], BuildResult, bytes, Union[str, None]]

ROLE_NAMES = {"cards": "cards (card stock, two-sided)", "optional-cards": "optional deck (card stock, two-sided)",
              "mat": "mat (trim and glue)", "slips": "slips (cut)", "sheets": "player sheets",
              "host-key": "host key (adult only)", "print-guide": "print guide"}


STALE = "Not rebuilt: its content has errors (see the build's report). These are the files of its last good build."
STALE_MARK = 'class="stale"'  # an index with such an entry is written again even when every kit is up to date


def edition_failed(language: str, error: str) -> str:
    """The warning on the last good kit of an edition that failed while the activity's other editions were built."""
    first = error.strip().splitlines()[0] if error.strip() else "an error"
    return (f"The {language!r} edition was not rebuilt: {first} These are the files of its last good build; "
            "the other editions are up to date.")


def pages(count: int) -> str:
    return f"{count} page" if count == 1 else f"{count} pages"


def write_index(library: Library, reports: list[ActivityReport], out_dir: Path) -> tuple[Path, Path]:
    """`index.pdf` and `index.html` in `out_dir`, covering every kit; kept as they are when no kit changed."""
    pdf_path, html_path = out_dir / "index.pdf", out_dir / "index.html"
    if all(report.status == "up to date" for report in reports) and pdf_path.exists() and html_path.exists() \
            and STALE_MARK not in html_path.read_text(encoding="utf-8"):
        return pdf_path, html_path
    from kitgen.load import load_activity

    entries: list[Entry] = []
    failures: list[tuple[str, str]] = []  # what failed and left no kit to list
    for report in reports:
        # an activity whose content has errors keeps its last good kits, listed with a warning; when only some
        # editions failed, the others are listed as built and each failed one says why
        listed: list[tuple[BuildResult, str | None]] = [(result, None) for result in report.results]
        if report.error and report.failed_editions:
            listed += [(result, edition_failed(result.language, report.failed_editions[result.language]))
                       for result in last_good_results(report.activity_id, out_dir)
                       if result.language in report.failed_editions]
        elif report.error:
            listed = [(result, STALE) for result in last_good_results(report.activity_id, out_dir)]
        shown = {result.language for result, _ in listed}
        failures += [(f"{report.activity_id} ({language})", error) for language, error in report.failed_editions.items()
                     if language not in shown]
        if report.error and not report.failed_editions and not listed:
            failures.append((report.activity_id, report.error))
        for result, warning in listed:
            activity: Activity | SimpleNamespace
            if result.summary:
                activity = SimpleNamespace(**result.summary)
            else:  # a manifest from an older kitgen
                activity = load_activity(library.find(report.activity_id), result.language).activity
            picture = report.thumbnails.get(result.folder.name) or thumbnail(result)
            entries.append((activity, result, picture, warning))
    write_atomic(pdf_path, _catalogue_pdf(entries))
    write_atomic(html_path, _catalogue_html(entries, out_dir, failures).encode("utf-8"))
    return pdf_path, html_path


def thumbnail(result: BuildResult) -> bytes:
    """A small JPEG of the kit's first card sheet (or of its first file), for the catalogue."""
    from kitgen.app.preview import first_page_jpeg

    first = next((f for f in result.files if f.role.endswith("cards")), result.files[0])
    return first_page_jpeg(first.path, 220)


def _catalogue_html(entries: list[Entry], out_dir: Path, failures: Sequence[tuple[str, str]] = ()) -> str:
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8"><title>Activity library</title>',
             "<style>body{font-family:sans-serif;max-width:50em;margin:2em auto}li{margin:.2em 0}</style>",
             "</head><body><h1>Activity library</h1>"]
    for activity, result, _png, warning in entries:
        parts.append(f"<h2>{html.escape(activity.title)} <small>({html.escape(activity.language)})</small></h2>")
        if warning:
            parts.append(f"<p {STALE_MARK}><strong>{html.escape(warning)}</strong></p>")
        parts.append(f"<p>{html.escape(activity.purpose)}<br>{html.escape(activity.category)} · "
                     f"players: {activity.players} · {activity.minutes} min</p><ul>")
        for file in result.files:
            link = file.path.relative_to(out_dir).as_posix()
            parts.append(f'<li><a href="{html.escape(link)}">{html.escape(file.path.name)}</a> — '
                         f"{html.escape(ROLE_NAMES.get(file.role, file.role))}, {pages(file.pages)}</li>")
        parts.append("</ul>")
    if failures:
        parts.append("<h2>Not built</h2><ul>")
        for name, error in failures:
            first = error.strip().splitlines()[0] if error.strip() else "an error"
            parts.append(f"<li {STALE_MARK}><strong>{html.escape(name)}</strong>: {html.escape(first)}</li>")
        parts.append("</ul>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _thumbnail(picture: bytes, width: float) -> Flowable:
    """A flowable that draws a JPEG `width` points wide, embedded as it is.

    Given a picture in memory, ReportLab decodes it only to name it by its pixels; naming it by its JPEG bytes
    instead spares that work and memory, and keeps the catalogue the same from one build to the next.
    """
    from reportlab.lib.utils import ImageReader
    from kitgen.render.platypus import Flowable

    class JpegReader(ImageReader):
        def __init__(self) -> None:
            super().__init__(io.BytesIO(picture))  # reads the header only
            self._dataA = None  # no transparency mask

        def getRGBData(self) -> bytes:  # what drawImage names the picture by
            return picture

    class Thumbnail(Flowable):
        def __init__(self) -> None:
            super().__init__()
            pixels_wide, pixels_high = JpegReader().getSize()
            self.width, self.height = width, width * pixels_high / pixels_wide

        def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
            return self.width, self.height

        def draw(self) -> None:
            self.canv.drawImage(JpegReader(), 0, 0, self.width, self.height)

    return Thumbnail()


def _catalogue_pdf(entries: list[Entry]) -> bytes:
    from kitgen.render.platypus import NeutralCanvas, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle
    from reportlab.lib.styles import ParagraphStyle

    from kitgen.export.pdf import binary_streams

    register_fonts()
    body = ParagraphStyle("body", fontName=REGULAR, fontSize=9.5, leading=12.5, bulletFontName=REGULAR)
    head = ParagraphStyle("head", fontName=BOLD, fontSize=13, leading=16, spaceAfter=3)
    buffer = io.BytesIO()
    page = PAPER_SIZES["a4"]
    document = SimpleDocTemplate(buffer, pagesize=tuple(page), leftMargin=mm(15), rightMargin=mm(15),
                                 topMargin=mm(15), bottomMargin=mm(15), title="Activity library",
                                 author="kitgen", creator="kitgen", invariant=1,
                                 initialFontName=REGULAR)
    story: list[Flowable] = [Paragraph("Activity library", ParagraphStyle("h1", parent=head, fontSize=20, leading=24)),
                   Spacer(1, mm(4))]
    esc = html.escape
    for activity, result, picture, warning in entries:
        text: list[Flowable] = [Paragraph(f"{esc(activity.title)} ({esc(activity.language)})", head)]
        if warning:
            text.append(Paragraph(f"<b>{esc(warning)}</b>", body))
        text += [Paragraph(esc(activity.purpose), body),
                 Paragraph(f"{esc(activity.category)} · players: {activity.players} · {activity.minutes} minutes", body),
                 Spacer(1, mm(2))]
        text += [Paragraph(f"• {esc(f.path.name)}: {esc(ROLE_NAMES.get(f.role, f.role))}, {pages(f.pages)}", body)
                 for f in result.files]
        table = Table([[_thumbnail(picture, mm(40)), text]], colWidths=[mm(46), document.width - mm(46)])
        table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("FONTNAME", (0, 0), (-1, -1), REGULAR),
                                   ("LINEBELOW", (0, 0), (-1, -1), 0.5, (0.6, 0.6, 0.6)),
                                   ("BOTTOMPADDING", (0, 0), (-1, -1), 8)]))
        story.append(table)
    with binary_streams():
        document.build(story, canvasmaker=NeutralCanvas)
    return buffer.getvalue()


KITS_PAGE = "kits.html"


def write_kits_page(out_dir: Path) -> Path:
    """`kits.html` in `out_dir`: every kit built there that is whole, the default build's and each variant's
    (`variants/<name>/`), with its paper, card size and class size; written again after every build."""

    rows = []
    for manifest_path in sorted([*out_dir.glob("*/manifest.json"), *out_dir.glob(f"{VARIANTS}/*/*/manifest.json")]):
        manifest = verified_manifest(manifest_path.parent)
        if manifest is None:
            continue
        options = manifest["inputs"].get("options", {})
        folder = manifest_path.parent
        variant = folder.parent.name if folder.parent.parent.name == VARIANTS else "default"
        who = f"class of {options['class_size']}" if options.get("class_size") else f"{options.get('kits', 1)} kit(s)"
        links = "<br>".join(
            f'<a href="{html.escape((folder / name).relative_to(out_dir).as_posix())}">{html.escape(name)}</a> '
            f"({pages(entry['pages'])})" for name, entry in manifest["files"].items())
        title = manifest.get("summary", {}).get("title", manifest.get("activity", ""))
        rows.append(f"<tr><td>{html.escape(title)} ({html.escape(manifest.get('language', ''))})</td>"
                    f"<td>{html.escape(variant)}</td><td>{html.escape(str(options.get('paper', '')))}</td>"
                    f"<td>{html.escape(str(options.get('card_size') or 'the activity’s'))}</td>"
                    f"<td>{html.escape(who)}</td><td>{links}</td></tr>")
    page = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8"><title>Every kit built</title>',
            "<style>body{font-family:sans-serif;margin:2em}td,th{border-bottom:1px solid #ccc;padding:.3em .6em;"
            "text-align:left;vertical-align:top}table{border-collapse:collapse}</style></head><body>",
            "<h1>Every kit built</h1><table><tr><th>kit</th><th>variant</th><th>paper</th><th>card size</th>"
            "<th>kits</th><th>files</th></tr>", *rows, "</table></body></html>\n"]
    target = out_dir / KITS_PAGE
    write_atomic(target, "\n".join(page).encode("utf-8"))
    return target

"""The state behind `kitgen serve`'s pages: the library, the kits rendered so far (each activity edition with one
set of options, or what went wrong), their page pictures, and the saves heard from the file watcher.

A kit is rendered in memory through the library API (`render_kit`) and its pages rasterised with PDFium on
request; nothing is written to disk. The pages themselves are `serve_pages`, the HTTP handling `serve`.
"""
from __future__ import annotations

import queue
import threading
import time
from collections import Counter, OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from kitgen.app.printers import printer_offset
from kitgen.app.shown_errors import located, ShownProblem
from kitgen.app.watch import file_events, ignored
from kitgen.core.display import page_fingerprints
from kitgen.core.errors import ContentError, KitgenError, UsageError
from kitgen.core.files import OutputFile, Role
from kitgen.core.notes import Note
from kitgen.core.units import PAPER_SIZES, parse_card_size
from kitgen.load.editions import editions, own_language
from kitgen.load.library import Library
from kitgen.plan.options import BuildOptions

if TYPE_CHECKING:
    from watchfiles._rust_notify import RustNotify

PREVIEW_SCALE = 0.75  # 54 dpi: an A4 page is 446 pixels wide, shown at half that for sharpness on dense screens
LARGE_SCALE = 2.0  # 144 dpi: a page enlarged (clicked), 1,191 pixels wide for A4
THUMBNAIL_PX = 240  # the width of a kit's picture on the library page
DRAWN_AHEAD = 6  # new page pictures drawn after a save before the browser asks: about a screenful
WATCH_STEP_MS = 10  # a save is acted on once the file events have been quiet this long (an editor writes at once)
KEPT_KITS = 6  # kits (activity × options) kept rendered at most, besides those an open page shows
OPTION_NAMES = ("lang", "paper", "card_size", "class_size", "printer")
_ROLE_ORDER = [Role.PRINT_GUIDE, Role.CARDS, Role.OPTIONAL_CARDS, Role.SLIPS, Role.MAT, Role.SHEETS, Role.HOST_KEY]


@dataclass
class ShownFile:
    name: str
    role: Role
    pages: int
    data: bytes
    fingerprints: list[str]  # one per page: names its picture


@dataclass
class ShownKit:
    """One activity edition rendered with one set of options, or what went wrong; the last good files stay."""

    activity_id: str
    query: dict[str, str]
    files: list[ShownFile] = field(default_factory=list)
    error: list[ShownProblem] | None = None
    seconds: float = 0.0
    language: str = ""
    editions: list[str] = field(default_factory=list)
    title: str = ""
    purpose: str = ""
    invalid: bool = False  # the options themselves are wrong: no save can mend it, so it is never rendered again
    quality: list[Note] = field(default_factory=list)  # the last good render's quality notes
    problems: int = 0  # how many problems the error has (its list is capped)


@dataclass
class KitSummary:
    """An activity as the library page shows it, rendered with the page's first options: its title, how many
    problems or quality notes it has, the first problems' places, and its first page of cards (of the optional deck
    when it has no other, else its first page) to draw small."""

    activity_id: str
    title: str
    problems: int
    notes: int
    errors: list[ShownProblem]
    first_page: tuple[bytes, int] | None  # (PDF, page index) of the first card page, or of the first page
    thumbnail: bytes | None = None  # its PNG, drawn when first asked for


SHOWN_NOTES = 50  # the kit page lists at most this many quality notes
KitKey = tuple[str, tuple[tuple[str, str], ...]]  # an activity and the options a page gives


def problem_line(shown: ShownKit) -> str:
    """The first problem of a kit's error as the terminal shows it: `file:line:column: message` when it names a
    place, and how many more there are."""
    first = (shown.error or [{"message": "an error"}])[0]
    place = f"{first['file']}:{first['line']}:{first['column']}: " if "file" in first else ""
    more = shown.problems - 1
    return f"{place}{first['message']}" + (f" (and {more} more problem{'s' if more != 1 else ''})" if more > 0 else "")


def kit_key(activity_id: str, query: dict[str, str]) -> KitKey:
    """What names one rendering: the activity and the options given (empty ones left out)."""
    return activity_id, tuple(sorted((name, query[name]) for name in OPTION_NAMES if query.get(name)))


class ServedKits:
    """The state behind the page: the library, the kits rendered so far, the pictures, the open event streams."""

    def __init__(self, library: Library, defaults: dict[str, str] | None = None, log: Callable[[str], None] = print,
                 languages: list[str] | None = None):
        self.library = library
        self.defaults = {k: v for k, v in (defaults or {}).items() if v}
        self.languages = languages or []  # the editions shown first, in this order, where a kit has them
        self.log = log
        self.lock = threading.RLock()  # one render or rasterisation at a time (ReportLab and PDFium share state)
        self.kits: OrderedDict[tuple[str, tuple[tuple[str, str], ...]], ShownKit] = OrderedDict()
        self.sources: dict[str, tuple[bytes, int]] = {}  # fingerprint → (PDF, page index)
        self.pictures: dict[str, bytes] = {}  # fingerprint → PNG
        self.generation = 0
        self.listeners: list[queue.Queue[int]] = []
        self.open_pages: Counter[KitKey] = Counter()  # kit key → event streams open on a page showing it
        self._pages_lock = threading.Lock()  # (not `lock`: a stream opens or closes while a kit renders)
        self.summaries: dict[str, KitSummary] = {}  # activity → what the library page shows of it
        self.large: dict[str, bytes] = {}  # fingerprint → PNG at LARGE_SCALE

    # ------------------------------------------------------------------ rendering

    def options(self, query: dict[str, str]) -> BuildOptions:
        paper = (query.get("paper") or "a4").lower()
        if paper not in PAPER_SIZES:
            raise UsageError(f"paper must be one of {', '.join(PAPER_SIZES)}, got {paper!r}")
        if query.get("card_size"):
            try:
                parse_card_size(query["card_size"])
            except ValueError as error:
                raise UsageError(str(error)) from None
        class_size = query.get("class_size") or ""
        if class_size and not (class_size.isdigit() and 1 <= int(class_size) <= 500):
            raise UsageError(f"class size must be a whole number from 1 to 500, got {class_size!r}")
        offset = printer_offset(query["printer"]) if query.get("printer") else (0.0, 0.0)
        return BuildOptions(paper=paper, card_size=query.get("card_size") or None,
                            class_size=int(class_size) if class_size else None, back_offset_mm=offset)

    def kit(self, activity_id: str, query: dict[str, str]) -> ShownKit:
        """The kit as last rendered with these options (rendered now if it is not kept); with invalid options,
        the error, answered now and neither kept nor rendered again on a save."""
        key = kit_key(activity_id, query)
        kept = self.kits.get(key)
        if kept is not None and self.lock.acquire(blocking=False):  # (the usual case: taken at once)
            try:
                self.kits.move_to_end(key)
            finally:
                self.lock.release()
        if kept is not None:  # answered at once, also while a save's new pictures are drawn (after its render)
            return kept
        with self.lock:
            if key not in self.kits:
                shown = self.kits[key] = ShownKit(activity_id, dict(key[1]))
                self.render(shown)
                if shown.invalid:
                    del self.kits[key]
                    return shown
                self._keep_at_most(KEPT_KITS, key)
            self.kits.move_to_end(key)
            return self.kits[key]

    def _keep_at_most(self, count: int, asked: KitKey) -> None:
        """Forget the kits used longest ago that no open page shows (nor the `asked` one), until at most `count`
        are kept."""
        shown = self.shown_keys() | {asked}
        for key in [key for key in self.kits if key not in shown][:max(len(self.kits) - count, 0)]:
            del self.kits[key]
            self._forget_unused()

    @contextmanager
    def shown_by_a_page(self, activity_id: str, query: dict[str, str]) -> Iterator[None]:
        """While the block runs (a page's event stream is open), the kit it names is kept and rendered again
        after every save that touches it."""
        key = kit_key(activity_id, query)
        with self._pages_lock:
            self.open_pages[key] += 1
        try:
            yield
        finally:
            with self._pages_lock:
                self.open_pages[key] -= 1
                if self.open_pages[key] <= 0:
                    del self.open_pages[key]

    def shown_keys(self) -> set[KitKey]:
        """The kits some open page shows."""
        with self._pages_lock:
            return set(self.open_pages)

    def render(self, shown: ShownKit) -> None:
        from kitgen.app.rendering import load_edition, render_kit  # the pipeline, at the first render

        start = time.perf_counter()
        try:
            path = self.library.find(shown.activity_id)
            shown.editions = editions(path)
            preferred = [lang for lang in self.languages if lang in shown.editions]
            shown.language = shown.query.get("lang") or (preferred[0] if preferred else own_language(path))
            options = self._valid_options(shown)
            loaded = load_edition(shown.activity_id, path, shown.language)
            shown.title, shown.purpose = loaded.activity.title, loaded.activity.purpose
            kit = render_kit(loaded, options, self.library, several_editions=len(shown.editions) > 1, pdf=False)
            files = self._files(kit.files)
        except Exception as error:  # shown in the page, with the last good pages under it
            shown.error = located(error)
            shown.problems = len(error.problems) if isinstance(error, ContentError) else len(shown.error)
            shown.seconds = time.perf_counter() - start
            self.log(f"{shown.activity_id}: {problem_line(shown)}")
            return
        shown.files, shown.error, shown.quality = files, None, kit.notes
        shown.seconds = time.perf_counter() - start
        self._forget_unused()

    def _valid_options(self, shown: ShownKit) -> BuildOptions:
        """The kit's build options; UsageError, with the kit marked invalid, when they are not options it has."""
        try:
            if shown.language not in shown.editions:
                raise UsageError(f"{shown.activity_id} has no {shown.language!r} edition "
                                 f"(editions: {', '.join(shown.editions)})")
            return self.options(shown.query)
        except KitgenError:
            shown.invalid = True
            raise

    def _files(self, rendered: Iterable[OutputFile]) -> list[ShownFile]:
        """The rendered files, print guide first, each as PDF (a file that draws what it drew before is not
        written again: the backend keeps its bytes, so a small edit rewrites only the files it touches)."""
        from kitgen.export.pdf import write_pdf

        order = {role: i for i, role in enumerate(_ROLE_ORDER)}
        files = []
        for file in sorted(rendered, key=lambda f: order.get(f.role, len(order))):
            assert file.document is not None  # a rendered file has its drawing
            prints = page_fingerprints(file.document, salt=str(PREVIEW_SCALE))
            data = write_pdf(file.document)
            for index, fingerprint in enumerate(prints):
                self.sources[fingerprint] = (data, index)
            files.append(ShownFile(file.name, file.role, file.pages, data, prints))
        return files

    def _forget_unused(self) -> None:
        used = {fp for kit in self.kits.values() for file in kit.files for fp in file.fingerprints}
        for store in (self.sources, self.pictures, self.large):
            for fingerprint in [fp for fp in store if fp not in used]:
                del store[fingerprint]

    def picture(self, fingerprint: str, large: bool = False) -> bytes | None:
        """The PNG of one page (enlarged: at LARGE_SCALE), rasterised the first time it is asked for."""
        store, scale = (self.large, LARGE_SCALE) if large else (self.pictures, PREVIEW_SCALE)
        with self.lock:
            if fingerprint in store:
                return store[fingerprint]
            if fingerprint not in self.sources:
                return None

            from kitgen.export.raster import encoded, page_image

            data, index = self.sources[fingerprint]
            store[fingerprint] = encoded(page_image(data, index, scale), "PNG", compress_level=1)
            return store[fingerprint]

    def known(self, activity_id: str) -> bool:
        """Whether the library has an activity of this id."""
        return activity_id in self.library.activity_files()

    def summary(self, activity_id: str) -> KitSummary:
        """What the library page shows of an activity: from its kit with the first options when that is kept,
        else rendered now (and not kept); kept until a save touches the activity."""
        with self.lock:
            if activity_id in self.summaries:
                return self.summaries[activity_id]
            key = kit_key(activity_id, self.defaults)
            shown = self.kits.get(key)
            if shown is None:
                shown = ShownKit(activity_id, dict(key[1]))
                self.render(shown)
            first = min(shown.files, default=None, key=lambda f: (f.role is not Role.CARDS,
                                                                  f.role is not Role.OPTIONAL_CARDS))
            summary = KitSummary(activity_id, shown.title, shown.problems if shown.error else 0, len(shown.quality),
                                 list(shown.error or []), (first.data, 0) if first else None)
            self.summaries[activity_id] = summary
            return summary

    def thumbnail(self, activity_id: str) -> bytes | None:
        """The PNG of an activity's first card page, THUMBNAIL_PX wide (None: it has no page to show)."""
        summary = self.summary(activity_id)
        with self.lock:
            if summary.thumbnail is None and summary.first_page is not None:
                from kitgen.export.raster import encoded, page_image

                data, index = summary.first_page
                summary.thumbnail = encoded(page_image(data, index, width_px=THUMBNAIL_PX), "PNG", compress_level=1)
            return summary.thumbnail

    def changed(self, paths: list[str]) -> None:
        """Files were saved: render again the kits an open page shows that they belong to (all of them for a
        template) and forget those no page shows, then tell the open pages."""
        with self.lock:
            start = time.perf_counter()
            shown_keys = self.shown_keys()
            broken = []
            for key, shown in list(self.kits.items()):
                if key not in shown_keys:
                    del self.kits[key]  # rendered again if a page asks for it
                elif self._affects(shown.activity_id, paths):
                    self.render(shown)
                    if shown.error:
                        broken.append(f"{shown.activity_id} not rebuilt, {problem_line(shown)}")
            for activity_id in [a for a in self.summaries if self._affects(a, paths)]:
                del self.summaries[activity_id]  # the library page renders it again when it is next shown
            self._forget_unused()
            self.generation += 1
            names = ", ".join(Path(p).name for p in paths[:3]) + (" ..." if len(paths) > 3 else "")
            self.log(f"changed: {names}; pages refreshed in {time.perf_counter() - start:.2f}s"
                     + "".join(f"; {line}" for line in broken))
            shown_again = [self.kits[key] for key in shown_keys if key in self.kits]
        self.broadcast()
        self._draw_ahead(shown_again)

    def _draw_ahead(self, kits: list[ShownKit]) -> None:
        """Draw the first DRAWN_AHEAD new pictures of each kit an open page shows while the browser fetches the
        page (it asks for them once it has laid the page out, and finds them drawn or being drawn)."""
        for shown in kits:
            new = [fp for file in shown.files for fp in file.fingerprints if fp not in self.pictures]
            for fingerprint in new[:DRAWN_AHEAD]:
                self.picture(fingerprint)

    def _affects(self, activity_id: str, paths: list[str]) -> bool:
        content = self.library.content.resolve()
        for path in map(lambda p: Path(p).resolve(), paths):
            if not path.is_relative_to(content):
                return True  # a template of the library or kitgen's
            relative = path.relative_to(content).parts
            if relative and (relative[0] == activity_id or relative[0].split(".")[0] == activity_id):
                return True
        return False

    # ------------------------------------------------------------------ server push

    def broadcast(self) -> None:
        for listener in list(self.listeners):
            listener.put(self.generation)

    def watch(self, stop: threading.Event) -> None:
        """Listen to the library's file events from now on (a save made once this returns is heard) and act on
        them in a thread until `stop` is set."""
        notify, _folders = file_events([self.library.content, *self.library.template_dirs()])
        threading.Thread(target=self._act_on_events, args=(notify, stop), daemon=True).start()

    def _act_on_events(self, notify: RustNotify, stop: threading.Event) -> None:
        try:
            while not stop.is_set():
                raw = notify.watch(400, WATCH_STEP_MS, 5_000, stop)  # grouped until quiet for a step, at most 400 ms
                if isinstance(raw, str):
                    continue  # "timeout", or "stop" (then `stop` is set)
                paths = sorted({path for _change, path in raw if not ignored(Path(path).name)})
                if paths:
                    self.changed(paths)
        finally:
            notify.close()


"""The PDF backend: display lists (`kitgen.core.display`) → PDF bytes, with ReportLab.

This is the only module that relies on ReportLab internals (names starting with `_`), for two fast
paths a card sheet file needs: text written as PDF operators directly (tens of thousands of short
lines), and card forms that share one resource dictionary (thousands of forms). `require_tested_reportlab`
checks, before anything is drawn, that the installed ReportLab is inside the range these were tested
with and still has what they use; anything else is an error, never a broken file.
"""
from __future__ import annotations

import io
import zlib
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Literal, Protocol
from weakref import WeakKeyDictionary

from kitgen.core.cache import code_digest, Shelf
from kitgen.core.display import (Box, Circle, Color, Document, Form, Gradient, Group, IDENTITY, Image, Item, Line,
                                 Page, Path, Stroke, Text, Use, walk)
from kitgen.core.errors import BuildError
from kitgen.core.forked import Forked, worth_sharing
from kitgen.pictures.files import plain_reason
from kitgen.export import pdfx
from kitgen.export.operators import (color_operator, fp_str, path_code, path_operators, plain_bounds,
                                     stroke_operators)
from kitgen.export.shading import shading
from kitgen.export.subsets import subset_seed
from kitgen.fonts.registry import font_runs, register_fonts, REGULAR

if TYPE_CHECKING:
    from reportlab.pdfbase.pdfdoc import PDFObjectReference
    from reportlab.pdfbase.ttfonts import TTFont

# ReportLab's canvas as this module uses it: its private parts (CANVAS_INTERNALS) are not in ReportLab's type
# stubs, so the painter holds it untyped; `require_tested_reportlab` checks at run time that they are there.
ReportLabCanvas = Any

TESTED_REPORTLAB = ((4, 2), (5, 2))  # from (inclusive) .. to (exclusive); the same range as pyproject.toml
CANVAS_INTERNALS = ("_code", "_formData", "_preamble", "_restartAccumulators", "_doc", "_escape", "_pageCompression",
                    "pop_state_stack", "_setXObjects", "_extgstate", "_shadingUsed")


def _version(text: str) -> tuple[int, int]:
    major, minor = (text.split(".") + ["0"])[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


@lru_cache(maxsize=None)
def require_tested_reportlab(version: str | None = None) -> None:
    """Refuse a ReportLab outside the tested range, or one that lacks an internal the fast paths use."""
    import reportlab
    from reportlab.pdfbase import pdfdoc
    from reportlab.pdfgen.canvas import Canvas

    version = version or reportlab.Version
    low, high = TESTED_REPORTLAB
    if not low <= _version(version) < high:
        raise BuildError(f"ReportLab {version} is installed; kitgen's PDF backend is tested with "
                         f"{low[0]}.{low[1]} up to (not including) {high[0]}.{high[1]}: "
                         f"pip install 'reportlab>={low[0]}.{low[1]},<{high[0]}.{high[1]}'")
    scratch = Canvas(io.BytesIO())
    missing = [name for name in CANVAS_INTERNALS if not hasattr(scratch, name)]
    missing += [f"pdfdoc.{name}" for name in ("PDFFormXObject", "PDFResourceDictionary") if not hasattr(pdfdoc, name)]
    from reportlab.pdfbase import ttfonts

    missing += [] if callable(getattr(ttfonts, "SUBSETN", None)) else ["ttfonts.SUBSETN"]  # (kitgen.export.subsets)
    if missing:
        raise BuildError(f"ReportLab {version} lacks what kitgen's PDF backend relies on ({', '.join(missing)})")


@contextmanager
def binary_streams() -> Iterator[None]:
    """Compressed streams as binary while one file is written (ReportLab's default wraps them in ASCII85,
    a quarter larger for no gain in a printed file); the process-wide setting is restored afterwards."""
    from reportlab import rl_config

    before, rl_config.useA85 = rl_config.useA85, 0
    try:
        yield
    finally:
        rl_config.useA85 = before


def write_pdf(document: Document, keep: bool = True) -> bytes:
    """The PDF of `document`: every page, every form it uses, fonts embedded as subsets.

    A file that draws exactly what it drew in the last build is not written again: its bytes come from the
    cache (a rebuild after an edit to one file of a kit, in `--watch`, `serve` or a new process, writes only that
    file's PDF). The key covers every page item, every form (a form with a digest by that digest and its box),
    the file's settings, kitgen's code and fonts and ReportLab's version, so what is found is the same bytes.
    A file made only to be rasterised (`keep=False`) is neither looked up nor kept.
    """
    require_tested_reportlab()
    if not keep:
        return _written(document, kept=False)
    files: Shelf[bytes] = Shelf("files", _shelf_name(document))
    key = _file_key(document)
    data = files.get(key)
    if data is None:
        data = _written(document, kept=True)
        files.put(key, data)
    files.save()
    return data


def _file_key(document: Document) -> bytes:
    """A digest of everything `_written` reads (text origins included: they do not print, but are cheap to keep)."""
    import hashlib
    import pickle

    import reportlab

    forms = [(name, (form.digest, form.bbox) if form.digest else form) for name, form in document.forms.items()]
    drawn = (reportlab.Version, document.title, document.author, document.duplex, document.pdfx,
             [(page.width, page.height, page.boxes, page.items) for page in document.pages], forms)
    return hashlib.blake2b(code_digest() + pickle.dumps(drawn, protocol=pickle.HIGHEST_PROTOCOL),
                           digest_size=20).digest()


def _written(document: Document, kept: bool) -> bytes:
    """The PDF itself; with `kept`, the forms' compressed streams are kept for the next build of this file."""
    from reportlab.pdfgen.canvas import Canvas

    register_fonts()
    with binary_streams():
        buffer = io.BytesIO()
        first = document.pages[0] if document.pages else Page(595.2756, 841.8898)
        # the header names the version of the newest key written: /Duplex is PDF 1.7, /PrintScaling 1.6
        # (ReportLab's stubs type the initial font name as a number)
        canvas = Canvas(buffer, pagesize=(first.width, first.height), invariant=1, pageCompression=1,
                        initialFontName=REGULAR,  # type: ignore[arg-type]
                        pdfVersion=(1, 7) if document.duplex and not document.pdfx else (1, 6))
        canvas.setTitle(document.title)
        canvas.setAuthor(document.author)
        canvas.setCreator("kitgen")
        canvas.setViewerPreference("PrintScaling", "None")
        if document.duplex and not document.pdfx:
            canvas.setViewerPreference("Duplex", "DuplexFlipShortEdge" if document.duplex == "short"
                                       else "DuplexFlipLongEdge")
        streams: Shelf[bytes] = Shelf("streams", _shelf_name(document), kept)
        painter = _Painter(canvas, document.forms, streams, cmyk=document.pdfx)
        painter.fix_glyph_codes(document)
        seed = painter.glyph_codes + document.title.encode()
        with subset_seed(seed):
            painter.share(document)
            try:
                painter.draw_pages(document)
            finally:
                painter.close()
            if document.pdfx:
                _pdfx_keys(canvas, document.title)
            canvas.save()
        painter.streams.save()
    return buffer.getvalue()


def _pdfx_keys(canvas: ReportLabCanvas, title: str) -> None:
    """What makes the file PDF/X-4: the output intent with its CMYK profile (the catalog's OutputIntents),
    GTS_PDFXVersion and Trapped in the document information, and the XMP metadata that repeats them."""
    from reportlab.pdfbase.pdfdoc import PDFArray, PDFDictionary, PDFInfo, PDFName, PDFStream, PDFString

    doc = canvas._doc
    profile = PDFStream(PDFDictionary({"N": 4}), pdfx.profile_bytes())
    intent = PDFDictionary({"Type": PDFName("OutputIntent"), "S": PDFName("GTS_PDFX"),
                            "OutputConditionIdentifier": PDFString(pdfx.OUTPUT_CONDITION),
                            "OutputCondition": PDFString(pdfx.OUTPUT_CONDITION_INFO),
                            "RegistryName": PDFString(pdfx.REGISTRY), "Info": PDFString(pdfx.OUTPUT_CONDITION_INFO),
                            "DestOutputProfile": doc.Reference(profile)})
    catalog = doc.Catalog
    catalog.OutputIntents = PDFArray([intent])
    stamp = doc._timeStamp
    date = pdfx.xmp_date(tuple(stamp.YMDhms), stamp.dhh, stamp.dmm)
    info = doc.info
    metadata = PDFStream(PDFDictionary({"Type": PDFName("Metadata"), "Subtype": PDFName("XML")}),
                         pdfx.xmp(title, info.producer, info.creator, date), filters=[])
    catalog.Metadata = metadata
    # (ReportLab writes the catalog keys it lists: OutputIntents is added to this catalog's list)
    catalog.__NoDefault__ = [*type(catalog).__NoDefault__, "OutputIntents"]

    class PDFXInfo(PDFInfo):
        def format(self, document: Any) -> bytes:
            from reportlab.pdfbase.pdfdoc import format as pdf_format

            written = super().format(document)
            keys = PDFDictionary({"GTS_PDFXVersion": PDFString(pdfx.PDFX_VERSION)}).format(document)
            return written.rstrip()[:-2] + keys.strip()[2:]  # the two dictionaries' keys in one

    replaced = PDFXInfo()
    replaced.__dict__.update(info.__dict__)
    doc.info = replaced


def _shelf_name(document: Document) -> str:
    """Where the compressed forms of a file like this one are kept between builds."""
    import hashlib

    return hashlib.blake2b(document.title.encode(), digest_size=16).hexdigest()


# canvas → {(font, size, text): its show-text operators}
_SHOWN: WeakKeyDictionary[ReportLabCanvas, dict[tuple[str, float, str], str]] = WeakKeyDictionary()


def _truetype(name: str) -> TTFont:
    """The registered font `name`: every font kitgen draws with is a TrueType font."""
    from reportlab.pdfbase.pdfmetrics import getFont
    from reportlab.pdfbase.ttfonts import TTFont

    font = getFont(name)
    assert isinstance(font, TTFont), name
    return font


class _Painter:
    """Draws items on a ReportLab canvas, writing a colour, width or dash only when it changes."""

    def __init__(self, canvas: ReportLabCanvas, forms: dict[str, Form], streams: Shelf[bytes],
                 cmyk: bool = False) -> None:
        self.canvas = canvas
        self.cmyk = cmyk  # PDF/X: every colour and picture in the output intent's CMYK
        self.forms = forms
        self.streams = streams  # a form's compressed content, by its digest and the document's glyph codes
        self.glyph_codes = b""
        self.first_subset: dict[str, tuple[frozenset[str], dict[int, str], str]] = {}
        self.defined: set[str] = set()
        self.state: dict[str, object] = {}
        self.shared_resources: PDFObjectReference | None = None
        self.codes: dict[Item, str] = {}  # operators of a text or line already written in this file
        self.shared: dict[tuple[Item, ...], str | None] = {}  # a shared group's items → the form they are drawn in
        self.copy: Forked[Form, bytes] | None = None  # a second process compressing forms (`share`)
        self.theirs: dict[bytes, int] = {}  # a form's stream key → its place in the copy's results
        self.shadings: dict[Gradient, str] = {}  # a gradient's shading, made once a file

    # ---------------------------------------------------------------- state
    def set(self, key: str, value: object, operator: str) -> None:
        if self.state.get(key) != value:
            self.state[key] = value
            self.canvas.addLiteral(operator)

    def stroke(self, stroke: Stroke) -> None:
        if self.state.get("stroke style") == stroke:  # the crop marks and ruler strokes come in long runs
            return
        for key, value, operator in stroke_operators(stroke, self.cmyk):
            self.set(key, value, operator)
        self.state["stroke style"] = stroke

    def fill(self, color: Color) -> None:
        self.set("fill", color, color_operator(color, False, self.cmyk))

    @contextmanager
    def saved(self) -> Iterator[None]:
        state = dict(self.state)
        self.canvas.addLiteral("q")
        try:
            yield
        finally:
            self.canvas.addLiteral("Q")
            self.state = state

    # ---------------------------------------------------------------- pages
    def draw_pages(self, document: Document) -> None:
        """Every page of the document, with its boxes, each from PDF's default graphics state."""
        canvas = self.canvas
        for page in document.pages:
            fp_str(page.width, page.height, *(n for box in page.boxes.values() if box for n in box))
            canvas.setPageSize((page.width, page.height))
            for name in ("crop", "trim", "bleed", "art"):  # ReportLab keeps a box for later pages: reset each
                canvas.setCropBox(page.boxes.get(name), name=name)
            self.state = {}
            self.draw(page.items)
            canvas.showPage()

    # ---------------------------------------------------------------- items
    def draw(self, items: Iterable[Item]) -> None:
        for item in items:
            DRAW[type(item)](self, item)

    def text(self, item: Text) -> None:
        # each run in its own q … Q, as ReportLab's text objects were: text extractors (pypdf) take the end of a
        # saved state as the end of a text, and keep runs that sit far apart from running together
        code = self.codes.get(item)
        if code is None:  # the ruler's words and a sheet's labels come back on every page
            code = self.codes[item] = (f"q {color_operator(item.color, False, self.cmyk)} BT 1 0 0 1 {fp_str(item.x, item.y)} Tm "
                                       f"{self.shown(item.font, item.size, item.text)} ET Q")
        self.canvas.addLiteral(code)

    def shown(self, font_name: str, size: float, text: str) -> str:
        """Show-text operators for `text` (the font's subsets name the glyphs; remembered per file)."""
        shows = _SHOWN.setdefault(self.canvas, {})
        key = (font_name, size, text)
        if key not in shows:
            quick = self.first_subset.get(font_name)
            if quick is not None and text and quick[0].issuperset(text):  # one run in the first subset
                shows[key] = f"{quick[2]} {fp_str(size)} Tf ({text.translate(quick[1])}) Tj"
                return shows[key]

            doc = self.canvas._doc
            shows[key] = " ".join(f"{font.getSubsetInternalName(subset, doc)} {fp_str(size)} Tf "
                                  f"({self.canvas._escape(data)}) Tj"
                                  for font_name, run in font_runs(font_name, text)  # a font's fallback's characters
                                  for font in (_truetype(font_name),) for subset, data in font.splitString(run, doc))
        return shows[key]

    def line(self, item: Line) -> None:
        self.stroke(item.stroke)
        code = self.codes.get(item)
        if code is None:  # the ruler's strokes and the crop marks come back on every page
            code = self.codes[item] = f"{fp_str(item.x0, item.y0)} m {fp_str(item.x1, item.y1)} l S"
        self.canvas.addLiteral(code)

    def paint(self, code: str, stroke: Stroke | None, fill: Color | None, alpha: float = 1.0) -> None:
        if stroke is None and fill is None:
            return
        if stroke is not None:
            self.stroke(stroke)
        if fill is not None:
            self.fill(fill)
        operator = "B" if stroke is not None and fill is not None else ("S" if stroke is not None else "f")
        if alpha < 1.0:
            with self.saved():
                self.alpha("ca", alpha)
                self.canvas.addLiteral(f"{code} {operator}")
        else:
            self.canvas.addLiteral(f"{code} {operator}")

    def box(self, item: Box) -> None:
        if item.radius:
            code = path_code("roundRect", item.x, item.y, item.width, item.height, item.radius)
        else:
            code = path_code("rect", item.x, item.y, item.width, item.height)
        self.paint(code, item.stroke, item.fill, item.alpha)

    def circle(self, item: Circle) -> None:
        self.paint(path_code("circle", item.x, item.y, item.radius), item.stroke, item.fill)

    def path(self, item: Path) -> None:
        """A vector outline: its segments as path operators, then stroke, fill (even-odd with `*`) or both; a
        gradient painted inside the outline (clipped to it), an opacity as a graphics state."""
        if item.gradient is None and item.fill_alpha == item.stroke_alpha == 1:
            return self.outline(item) if item.stroke is not None or item.fill is not None else None
        with self.saved():
            for key, alpha in (("ca", item.fill_alpha), ("CA", item.stroke_alpha)):
                self.alpha(key, alpha) if alpha < 1 else None
            self.outline(item)

    def outline(self, item: Path) -> None:
        if item.stroke is not None:
            self.set("join", item.join, f"{item.join} j")
        code = path_operators(item.segments)
        fill = item.fill if item.gradient is None else None
        if item.gradient is not None and item.fill is not None:
            cm = f" {fp_str(*item.gradient.matrix)} cm" if item.gradient.matrix != IDENTITY else ""
            self.canvas.addLiteral(f"q {code} W{'*' if item.even_odd else ''} n{cm} /{self.shading(item.gradient)} sh Q")
        if item.stroke is None and fill is None:
            return
        operator = "B" if item.stroke is not None and fill is not None else ("S" if item.stroke else "f")
        if item.even_odd and fill is not None:
            operator += "*"
        if item.stroke is not None:
            self.stroke(item.stroke)
        if fill is not None:
            self.fill(fill)
        self.canvas.addLiteral(f"{code} {operator}")

    def alpha(self, key: str, value: float) -> None:
        """An opacity (`ca` fill, `CA` stroke) as a graphics state, written each time (unlike setFillAlpha)."""
        states = self.canvas._extgstate._c
        name = states.setdefault((key, value), f"gRLs{len(states)}")
        self.canvas.addLiteral(f"/{name} gs")

    def shading(self, gradient: Gradient) -> str:
        """The name of the shading that paints `gradient` (made the first time), in the resources of what is drawn."""
        name = self.shadings.get(gradient)
        if name is None:
            name = self.shadings[gradient] = self.canvas._doc.addShading(shading(gradient, self.cmyk))
        self.canvas._shadingUsed[name] = name
        return name

    def image(self, item: Image) -> None:
        from reportlab.lib.utils import ImageReader

        fp_str(item.x, item.y, item.width, item.height)
        try:
            if self.cmyk:  # PDF/X: the picture in the output intent's inks, over white
                picture = ImageReader(pdfx.cmyk_picture(item.data))
                self.canvas.drawImage(picture, item.x, item.y, item.width, item.height)
            else:
                picture = ImageReader(io.BytesIO(item.data))
                self.canvas.drawImage(picture, item.x, item.y, item.width, item.height, mask="auto")
        except Exception as error:  # a picture ReportLab cannot read
            raise BuildError(f"{item.name or 'image'}: cannot be drawn ({plain_reason(error)})") from None

    def group(self, item: Group) -> None:
        with self.saved():
            if item.clip is not None and item.clip.segments:
                self.canvas.addLiteral(f"{path_operators(item.clip.segments)} W{'*' if item.clip.even_odd else ''} n")
            elif item.clip is not None:
                clip = item.clip
                self.canvas.addLiteral(f"{fp_str(clip.x, clip.y, clip.width, clip.height)} re W n")
            if item.transform != IDENTITY:
                self.canvas.addLiteral(f"{fp_str(*item.transform)} cm")
            name = self.shared_form(item.items) if item.shared else None
            if name:  # drawn once as a form of its own, placed by reference wherever it comes back
                self.canvas.doForm(name)
            else:
                self.draw(item.items)

    def shared_form(self, items: tuple[Item, ...]) -> str | None:
        """The form that draws `items` (made the first time), or None when they cannot be one."""
        if items not in self.shared:
            bounds = plain_bounds(items)
            name = self.shared[items] = f"shared{len(self.shared)}" if bounds else None
            if name is not None and bounds is not None:
                self.define(Form(name, bounds, items))
        return self.shared[items]

    def use(self, item: Use) -> None:
        if item.form not in self.defined:
            self.define(self.forms[item.form])
        with self.saved():
            if item.transform != IDENTITY:
                self.canvas.addLiteral(f"{fp_str(*item.transform)} cm")
            self.canvas.doForm(item.form)

    # ---------------------------------------------------------------- glyphs
    def fix_glyph_codes(self, document: Document) -> None:
        """Give every character the document prints its code in its font's subsets now, in one fixed order
        (ReportLab numbers them as first drawn), so that a form's content depends on the document's characters
        alone and not on which forms came first: what lets a form's compressed content be reused."""
        import hashlib

        wanted: dict[str, set[str]] = {}
        for text in document.distinct_texts():
            wanted.setdefault(text.font, set()).update(text.text)
        by_font: dict[str, set[str]] = {}
        for name, chars in wanted.items():  # a character the font lacks is drawn in its fallback
            for font_name, run in font_runs(name, "".join(sorted(chars))):
                by_font.setdefault(font_name, set()).update(run)
        doc = self.canvas._doc
        digest = hashlib.blake2b(self.canvas._preamble.encode(), digest_size=16)
        for font_name in sorted(by_font):
            used = "".join(sorted(by_font[font_name]))
            font = _truetype(font_name)
            font.splitString(used, doc)
            font.getSubsetInternalName(0, doc)
            digest.update(f"{font_name}\0{used}\0".encode())
        self.glyph_codes = digest.digest()
        self.first_subset = {name: table for name in wanted if (table := self.first_subset_table(name))}

    def first_subset_table(self, name: str) -> tuple[frozenset[str], dict[int, str], str] | None:
        """For text in font `name`: the characters drawn with this font's own glyphs from its first subset, each
        one's code as escaped in a PDF string, and the subset's font name. Text of these characters alone is
        encoded by one `str.translate`, to the bytes `splitString` and `escapePDF` would give."""
        from reportlab.lib.rl_accel import escapePDF

        doc = self.canvas._doc
        font = _truetype(name)
        if doc not in font.state:  # every character of this font's texts is drawn with its fallback
            return None
        state = font.state[doc]
        table: dict[int, str] = {}
        for code, number in state.assignments.items():  # type: ignore[attr-defined]  # (not in ReportLab's stubs)
            char = chr(code)
            if number < 256 and font_runs(name, char) == [(name, char)]:
                table[code] = escapePDF(chr(number))
        if 32 in table and font_runs(name, "\u00a0") == [(name, "\u00a0")]:
            table[0xA0] = table[32]  # a no-break space is drawn as a space (as splitString does)
        return frozenset(map(chr, table)), table, font.getSubsetInternalName(0, doc)

    # ---------------------------------------------------------------- forms
    def share(self, document: Document) -> None:
        """After the glyph codes are fixed: when enough of the file's card forms are to be drawn anew, a forked copy
        of this process draws and compresses the later half of them (in the order the pages place them) while
        this one draws the pages and the first half (`kitgen.core.forked`); `define` takes the copy's streams,
        the same bytes it would have made."""
        used = dict.fromkeys(item.form for page in document.pages for item in walk(page.items)
                             if isinstance(item, Use))
        fresh: dict[bytes, Form] = {}
        for name in used:
            form = self.forms[name]
            key = self.stream_key(form)
            if key and key not in self.streams.entries and _plain(form):
                fresh.setdefault(key, form)
        if not worth_sharing(len(fresh)):
            return
        theirs = list(fresh.items())[len(fresh) // 2:]
        self.theirs = {key: index for index, (key, _) in enumerate(theirs)}
        self.copy = Forked(self.compressed, [form for _, form in theirs])

    def compressed(self, form: Form) -> bytes:
        """A plain form's compressed content, drawn as `define` draws it (in the copy `share` starts)."""
        self.define(form)
        content = self.streams.get(self.stream_key(form))
        assert content is not None, form.name  # (a plain form shares the file's resources: its stream is kept)
        return content

    def close(self) -> None:
        """Stop the copy `share` started, if it is still drawing (the file stopped on an error)."""
        if self.copy is not None:
            self.copy.close()
            self.copy = None
            self.theirs = {}

    def define(self, form: Form) -> None:
        """Draw a form once. A form of text and lines shares the document's font resources (a sheet file holds
        thousands), and its compressed content is kept for the next build; one with pictures, transparency or
        other forms gets resources of its own that name them."""
        self.defined.add(form.name)
        key = self.stream_key(form)
        content = self.streams.get(key) if key else None
        if content is None and key in self.theirs and self.copy is not None:
            copied = self.copy.results()
            if self.theirs[key] < len(copied):  # else the copy stopped before it (it failed there): drawn here
                content = copied[self.theirs[key]]
                self.streams.put(key, content)
        if content is not None:  # drawn by an earlier build of the same characters: the same bytes
            self.add_form(form.name, form.bbox, content)
            return
        state, self.state = self.state, {}
        fp_str(*form.bbox)
        self.canvas.beginForm(form.name, *form.bbox)
        self.draw(form.items)
        own = any(_own_resources(item) or (isinstance(item, Group) and item.shared and self.shared.get(item.items))
                  for item in walk(form.items))
        content = self.end_form(own)
        if key and content is not None:
            self.streams.put(key, content)
        self.state = state

    def stream_key(self, form: Form) -> bytes:
        """The form's digest with the document's glyph codes and its box; b"" when the form has no digest."""
        if not form.digest:
            return b""
        import hashlib

        return hashlib.blake2b(form.digest + self.glyph_codes + repr((form.bbox, self.cmyk)).encode(),
                               digest_size=20).digest()

    def add_form(self, name: str, bbox: tuple[float, float, float, float], content: bytes) -> None:
        """A form of the shared resources whose compressed content is already made."""
        canvas = self.canvas
        form = _card_form_class()(lowerx=bbox[0], lowery=bbox[1], upperx=bbox[2], uppery=bbox[3])
        form.compression = canvas._pageCompression
        form.content = content
        form.Resources = self.shared_resources_reference()
        canvas._doc.addForm(name, form)

    def shared_resources_reference(self) -> PDFObjectReference:
        from reportlab.pdfbase.pdfdoc import PDFResourceDictionary

        if self.shared_resources is None:
            resources = PDFResourceDictionary()
            resources.basicFonts()
            self.shared_resources = self.canvas._doc.Reference(resources)
        return self.shared_resources

    def end_form(self, own_resources: bool) -> bytes | None:
        """What `canvas.endForm` does, with complete resources: ReportLab's own forms leave out the graphics
        states (transparency) their content uses. Returns the compressed content of a form of the shared
        resources (None for one with resources of its own)."""
        from reportlab import rl_config
        from reportlab.pdfbase.pdfdoc import PDFResourceDictionary

        canvas = self.canvas
        name, lowerx, lowery, upperx, uppery = canvas._formData
        form = _card_form_class()(lowerx=lowerx, lowery=lowery, upperx=upperx, uppery=uppery)
        form.compression = canvas._pageCompression
        form.setStreamList([canvas._preamble] + canvas._code)
        content = None
        if own_resources:
            resources = PDFResourceDictionary()
            resources.basicFonts()
            resources.allProcs()
            canvas._setXObjects(form)
            if form.XObjects:  # (PDF dictionary keys ReportLab's stubs leave out)
                resources.XObject = form.XObjects  # type: ignore[attr-defined]
            states = canvas._extgstate.getState()
            if states:
                resources.ExtGState = states  # type: ignore[attr-defined]
            if canvas._shadingUsed:
                resources.setShading(canvas._shadingUsed)
            form.Resources = resources
        else:
            form.Resources = self.shared_resources_reference()
            if form.compression and not rl_config.useA85:
                content = form.content = zlib.compress(form.stream)
        canvas._doc.addForm(name, form)
        canvas._restartAccumulators()
        canvas.pop_state_stack()
        return content


def _plain(form: Form) -> bool:
    """Whether a form draws nothing but text, lines and shapes: its content depends on its items and the file's
    glyph codes alone, and it shares the file's resources."""
    return not any(_own_resources(item) or (isinstance(item, Group) and item.shared) for item in walk(form.items))


def _own_resources(item: Item) -> bool:
    """Whether drawing `item` names a resource of its own: a picture, a form, a graphics state or a shading."""
    return isinstance(item, (Image, Use)) or (isinstance(item, Box) and item.alpha < 1) or (
        isinstance(item, Path) and (item.gradient is not None or item.fill_alpha < 1 or item.stroke_alpha < 1))


# each item's drawing method (each takes its own kind of item)
DRAW: dict[type, Callable[[_Painter, Any], None]] = {
    Text: _Painter.text, Line: _Painter.line, Box: _Painter.box, Circle: _Painter.circle, Image: _Painter.image,
    Path: _Painter.path, Group: _Painter.group, Use: _Painter.use}


@lru_cache(maxsize=None)
class _CardForm(Protocol):
    """What the painter sets on a form of `_card_form_class` (a ReportLab form XObject)."""

    content: bytes | None
    compression: bool | Literal[0, 1]
    Resources: Any
    XObjects: Any
    stream: Any

    def setStreamList(self, data: Any) -> None: ...


def _card_form_class() -> Callable[..., _CardForm]:
    """A form XObject whose dictionary is written from one template: a sheet file of 2,000 distinct cards
    holds 2,000 forms, and ReportLab formats each through a dozen generic objects (same bytes, faster)."""
    from reportlab import rl_config
    from reportlab.pdfbase.pdfdoc import PDFFormXObject, format as pdf_format

    class CardForm(PDFFormXObject):
        content: bytes | None = None  # the compressed stream, when already made

        def format(self, document: Any) -> bytes:
            if self.content is None and (self.Resources is None or not self.stream or self.Annots
                                         or rl_config.useA85 or not self.compression):
                return super().format(document)
            content = document.encrypt.encode(self.content if self.content is not None
                                              else zlib.compress(self.stream))
            return b"".join((
                b"<<\n/BBox [ ", fp_str(self.lowerx, self.lowery, self.upperx, self.uppery).encode("ascii"),
                b" ] /Filter [ /FlateDecode ] /FormType 1 /Length ", str(len(content)).encode("ascii"),
                b" /Matrix [ 1 0 0 1 0 0 ] /Resources ", pdf_format(self.Resources, document),
                b" \n  /Subtype /Form /Type /XObject\n>>\nstream\n", content, b"endstream\n",
            ))

    return CardForm


__all__ = ["write_pdf", "require_tested_reportlab", "TESTED_REPORTLAB", "Item"]

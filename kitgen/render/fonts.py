"""The bundled font family (DejaVu Sans), registered once per process and embedded as subsets."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"
REGULAR = "KitSans"
BOLD = "KitSans-Bold"
_FILES = {REGULAR: "DejaVuSans.ttf", BOLD: "DejaVuSans-Bold.ttf"}


@lru_cache(maxsize=None)
def register_fonts() -> None:
    """Register the family with ReportLab (idempotent), and write compressed streams as binary.

    Every renderer calls this before drawing. ReportLab's default wraps each compressed stream in ASCII85,
    which makes the files a quarter larger and slower to write for no gain in a file that is printed.
    """
    from reportlab import rl_config
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics

    rl_config.useA85 = 0
    for name, file in _FILES.items():
        pdfmetrics.registerFont(_font(name, FONT_DIR / file))
    for bold, italic, name in ((0, 0, REGULAR), (1, 0, BOLD), (0, 1, REGULAR), (1, 1, BOLD)):
        addMapping(REGULAR, bold, italic, name)


def _font(name: str, path: Path):
    """ReportLab's TrueType font for `path`, with the metrics it parses from the file (character map, widths,
    glyph offsets: a tenth of a small kit's build) kept in the user's cache while the file is unchanged.

    ReportLab's own font class does the rest; only the step that reads the metrics out of the file is
    replaced by a read of the cached copy, which holds exactly what that step left on the typeface.
    """
    import pickle

    import reportlab
    from reportlab.pdfbase import ttfonts

    from kitgen.cache import cache_file, keep, recall

    info = path.stat()
    entry = cache_file("fonts", f"{path.stem}-{info.st_size}-{info.st_mtime_ns}-reportlab-{reportlab.Version}"
                                ".pickle")

    class Face(ttfonts.TTFontFace):
        def extractInfo(self, charInfo=1):
            try:
                parsed = pickle.loads(recall(entry) or b"")
            except Exception:  # none yet, or unreadable: parse the file
                parsed = None
            if isinstance(parsed, dict) and parsed.get("filename") == self.filename:
                self.__dict__.update(parsed)
            else:
                super().extractInfo(charInfo)
                if entry is not None:
                    keep(entry, pickle.dumps({k: v for k, v in vars(self).items() if k not in _NOT_KEPT}, protocol=5))
            per_unit = 1000 / self.unitsPerEm  # what ReportLab's parser sets: font units → PDF glyph space
            self._pdfScale = (lambda x: x) if self.unitsPerEm == 1000 else (lambda x: x * per_unit)

    standard, ttfonts.TTFontFace = ttfonts.TTFontFace, Face  # TTFont makes its typeface from this name
    try:
        return ttfonts.TTFont(name, str(path))
    finally:
        ttfonts.TTFontFace = standard


_NOT_KEPT = {"_ttf_data", "_pdfScale"}  # the file's bytes are read anew; the scale is a function


@lru_cache(maxsize=None)
def _covered() -> frozenset[int]:
    from reportlab.pdfbase import pdfmetrics

    register_fonts()
    codes: set[int] = set(pdfmetrics.getFont(REGULAR).face.charToGlyph)
    return frozenset(codes & set(pdfmetrics.getFont(BOLD).face.charToGlyph))


def missing_glyphs(text: str) -> list[str]:
    """Characters of `text` the bundled fonts cannot draw (line breaks and spaces are fine)."""
    covered = _covered()
    if covered.issuperset(map(ord, text)):
        return []
    return sorted({ch for ch in text if ord(ch) not in covered and ch not in "\n\r\t"})

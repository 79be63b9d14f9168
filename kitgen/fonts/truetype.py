"""ReportLab's TrueType fonts, with the metrics it parses from each file kept in the user's cache."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from reportlab.pdfbase.ttfonts import TTFont


def truetype_font(name: str, path: Path) -> TTFont:
    """ReportLab's TrueType font for `path`, with the metrics it parses from the file (character map, widths,
    glyph offsets: a tenth of a small kit's build) kept in the user's cache while the file is unchanged.

    ReportLab's own font class does the rest; only the step that reads the metrics out of the file is
    replaced by a read of the cached copy, which holds exactly what that step left on the typeface.
    """
    import pickle

    import reportlab
    from reportlab.pdfbase import ttfonts

    from kitgen.core.cache import cache_file, keep_sealed, recall_sealed

    info = path.stat()
    entry = cache_file("fonts", f"{path.stem}-{info.st_size}-{info.st_mtime_ns}-reportlab-{reportlab.Version}"
                                ".pickle")

    class Face(ttfonts.TTFontFace):
        def extractInfo(self, charInfo: bool | Literal[0, 1] = 1) -> None:
            try:
                sealed = recall_sealed(entry)  # None: none yet, damaged or not ours
                parsed = pickle.loads(sealed) if sealed is not None else None
            except Exception:  # none yet, or unreadable: parse the file
                parsed = None
            if isinstance(parsed, dict) and parsed.get("filename") == self.filename:
                self.__dict__.update(parsed)
            else:
                super().extractInfo(charInfo)
                if entry is not None:
                    keep_sealed(entry, pickle.dumps({k: v for k, v in vars(self).items() if k not in _NOT_KEPT}, protocol=5))
            per_unit = 1000 / self.unitsPerEm  # what ReportLab's parser sets: font units → PDF glyph space
            self._pdfScale = (lambda x: x) if self.unitsPerEm == 1000 else (lambda x: x * per_unit)

    standard = ttfonts.TTFontFace
    setattr(ttfonts, "TTFontFace", Face)  # TTFont makes its typeface from this name
    try:
        return ttfonts.TTFont(name, str(path))
    finally:
        setattr(ttfonts, "TTFontFace", standard)


_NOT_KEPT = {"_ttf_data", "_pdfScale"}  # the file's bytes are read anew; the scale is a function

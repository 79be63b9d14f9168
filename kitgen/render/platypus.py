"""ReportLab's platypus (paragraphs, tables, page templates), as kitgen imports it: always from here.

When `reportlab.platypus.paragraph` is imported it compiles a case-insensitive web-address pattern over most
of Unicode, which only its optional hyphenation of long addresses uses (off unless ReportLab's
`uriWasteReduce` setting is on; kitgen never turns it on). Compiling it costs about 50 ms of every cold
build, a tenth of the time before the first card is drawn. Here, that one pattern is compiled when it is
first used instead; every other pattern, and everything else platypus does, is left as it is.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Any, Iterator

_WEB_ADDRESS = "(^(?:[a-z0-9\\.\\-\\+]*)://)"  # how that pattern starts (ReportLab 3.6 to 4.x)


class LazyPattern:
    """A regular expression compiled on first use; otherwise it behaves as the compiled pattern."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(*self._source)
        return getattr(self._compiled, name)


@contextmanager
def _web_address_pattern_compiled_lazily() -> Iterator[None]:
    compile_now = re.compile

    def compile_or_defer(pattern: Any, flags: int = 0) -> Any:
        if isinstance(pattern, str) and pattern.startswith(_WEB_ADDRESS):
            return LazyPattern(pattern, flags)
        return compile_now(pattern, flags)

    re.compile = compile_or_defer
    try:
        yield
    finally:
        re.compile = compile_now


with _web_address_pattern_compiled_lazily():
    from reportlab.platypus import (  # noqa: E402
        Flowable, KeepInFrame, PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle)
    from reportlab.platypus.flowables import _listWrapOn  # type: ignore[attr-defined]  # noqa: E402 (how KeepInFrame measures)

from reportlab.lib.colors import CMYKColor, Color, toColor  # noqa: E402
from reportlab.pdfgen.canvas import Canvas  # noqa: E402


class NeutralCanvas(Canvas):
    """ReportLab's canvas with every neutral (black, a grey given as equal RGB) set in black ink alone
    (DeviceGray `g`/`G`), never as RGB, which a conversion to CMYK would separate into all four inks; and, like
    every kitgen PDF, printed at actual size (PrintScaling None)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("pdfVersion", (1, 6))  # the version /PrintScaling came in
        super().__init__(*args, **kwargs)
        self.setViewerPreference("PrintScaling", "None")

    def setFillColor(self, aColor: Any, alpha: float | None = None) -> None:  # noqa: N802 (ReportLab's name)
        level = _grey_level(aColor)
        if level is None:
            super().setFillColor(aColor, alpha)
        else:
            self.setFillGray(level, alpha)

    def setStrokeColor(self, aColor: Any, alpha: float | None = None) -> None:  # noqa: N802
        level = _grey_level(aColor)
        if level is None:
            super().setStrokeColor(aColor, alpha)
        else:
            self.setStrokeGray(level, alpha)


def _grey_level(color: Any) -> float | None:
    """The grey level of a neutral RGB colour, None for any other colour."""
    given = toColor(color) if isinstance(color, str) else color
    if isinstance(given, Color) and not isinstance(given, CMYKColor) and given.red == given.green == given.blue:
        return float(given.red)
    if isinstance(given, (tuple, list)) and len(given) == 3 and len(set(given)) == 1:
        return float(given[0])
    return None


class ShrunkToFit(KeepInFrame):
    """`KeepInFrame(mode="shrink")` that shrinks its content as little as it can: the largest scale at which it
    fits, found by halving (KeepInFrame's own search may stop a few percent smaller)."""

    def __init__(self, width: float, height: float, content: list[Flowable]) -> None:
        super().__init__(width, height, content, mode="shrink")
        self.content = content  # (KeepInFrame keeps it as `_content`, which its stubs do not name)

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        width, height = min(self.maxWidth, available_width), min(self.maxHeight, available_height)
        if stacked_height(self.content, width) <= height:
            return super().wrap(available_width, available_height)
        small, large = 1.0, 2.0  # how much larger a page the content is laid out on (1 / the scale)
        while stacked_height(self.content, width * large) > height * large:
            small, large = large, large * 2
        for _ in range(24):
            middle = (small + large) / 2
            small, large = (small, middle) if stacked_height(self.content, width * middle) <= height * middle \
                else (middle, large)
        W, H = _listWrapOn(self.content, width * large, self.canv)
        self._scale = large
        self.width, self.height = W / large, H / large
        return self.width, self.height


def stacked_height(flowables: list[Flowable], width: float) -> float:
    """The height `flowables` take laid out one under the other at `width`, spaces merged as a frame and
    `KeepInFrame` merge them."""
    return float(_listWrapOn(flowables, width, None)[1])


__all__ = ["Flowable", "KeepInFrame", "NeutralCanvas", "PageBreak", "Paragraph", "SimpleDocTemplate", "Spacer",
           "ShrunkToFit", "stacked_height", "Table", "TableStyle"]

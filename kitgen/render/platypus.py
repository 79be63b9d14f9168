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

__all__ = ["Flowable", "KeepInFrame", "PageBreak", "Paragraph", "SimpleDocTemplate", "Spacer", "Table",
           "TableStyle"]

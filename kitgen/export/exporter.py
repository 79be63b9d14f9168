"""What an exporter is: a named function from a rendered kit's files to more files written beside them.

An exporter sees the rendered files (each with its display list and PDF bytes) and the resolved options, and
returns `{name in the kit folder: bytes}`; it never touches the file system, the cache or the command line.
The build writes what it returns with the kit, atomically, listed in the kit's manifest.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from kitgen.core.files import OutputFile, Role
from kitgen.plan.options import BuildOptions, ResolvedOptions

CARD_FILES = (Role.CARDS, Role.OPTIONAL_CARDS)


def title_text(text: str) -> str:
    """`text` escaped for an SVG `<title>`, as `xml.sax.saxutils.quoteattr(text)[1:-1]` writes it (without
    importing urllib and ssl with it, as that module does)."""
    escaped = (text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
               .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))
    return escaped.replace('"', "&quot;") if '"' in escaped and "'" in escaped else escaped


@dataclass(frozen=True)
class Exporter:
    name: str
    wanted: Callable[[BuildOptions], bool]  # asked for by these options
    export: Callable[[list[OutputFile], ResolvedOptions, BuildOptions], dict[str, bytes]]

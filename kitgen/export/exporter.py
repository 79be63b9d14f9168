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


@dataclass(frozen=True)
class Exporter:
    name: str
    wanted: Callable[[BuildOptions], bool]  # asked for by these options
    export: Callable[[list[OutputFile], ResolvedOptions, BuildOptions], dict[str, bytes]]

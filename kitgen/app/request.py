"""What a command was asked to do: the activities, their editions and the build options, each chosen by
precedence (typed on the command line, else the library's kitgen.toml, else the option's default)."""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kitgen.app.printers import printer_offset
from kitgen.app.settings import chosen_options
from kitgen.core.choices import Duplex
from kitgen.core.errors import UsageError
from kitgen.load.editions import editions
from kitgen.load.library import Library
from kitgen.plan.options import BuildOptions, language_code, OPTION_NAMED


@dataclass(frozen=True)
class Request:
    """A command's options after precedence: the build options and the editions asked for."""

    options: BuildOptions
    language: str | list[str] | None  # --lang's one, the settings' list, or None for every edition
    printer: str | None
    out_dir: Path  # the output folder chosen (a variant's kits go to `<out>/variants/<name>/` inside it)


def chosen_ids(library: Library, activity_ids: tuple[str, ...] | list[str], use_all: bool) -> list[str]:
    """The activities a command works on: the ids given (each known, else "did you mean"), or the library's."""
    if bool(activity_ids) == use_all:
        raise UsageError("name one or more activities, or use --all (see kitgen list)")
    ids = list(library.activity_files()) if use_all else list(activity_ids)
    known_ids(library, ids)
    return ids


def known_ids(library: Library, activity_ids: tuple[str, ...] | list[str]) -> None:
    """An unknown activity id ends the command before anything is done, naming the closest known id."""
    known = list(library.activity_files())
    for activity_id in activity_ids:
        if activity_id not in known:
            close = difflib.get_close_matches(activity_id, known, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise UsageError(f"no activity {activity_id!r} in {library.content}; {hint}"
                             f"available: {', '.join(known) or '(none)'}")


def request(library: Library, typed: dict[str, Any], **fixed: Any) -> Request:
    """The options of a command: `typed` (by option name, only what the user typed) over the library's settings
    over the defaults; `fixed` are the command's own (incremental, out_dir when not typed...). The result is
    `placed`: a build with other options than the defaults goes to its own variant folder."""
    if typed.get("language") is not None:
        language_code(typed["language"])
    if typed.get("back_offset_mm") is not None and typed.get("printer"):
        raise UsageError("give --back-offset or --printer, not both")
    chosen = {**fixed, **{k: v for k, v in chosen_options(library.content, typed).items() if v is not None}}
    language, printer = chosen.pop("language", None), chosen.pop("printer", None)
    if chosen.get("fold"):  # faces and backs on one side of the sheet: no back page to shift, no flip edge
        if typed.get("back_offset_mm") is not None:
            raise UsageError("--fold prints faces and backs on the same side of the sheet: there is no back page "
                             "to shift; leave out --back-offset, or print duplex without --fold")
        if typed.get("duplex") == Duplex.SHORT:
            raise UsageError("--fold prints faces and backs on the same side of the sheet: there is no flip edge; "
                             "leave out --duplex short, or print duplex without --fold")
        chosen.pop("back_offset_mm", None)  # a library setting's shift is for its duplex prints
        if chosen.get("duplex") == Duplex.SHORT:
            chosen.pop("duplex")
    elif printer and "back_offset_mm" not in chosen:  # a printer profile's shift, for duplex only
        chosen["back_offset_mm"] = printer_offset(printer, str(chosen.get("duplex", Duplex.LONG)))
    chosen = {name: value for name, value in chosen.items() if name in OPTION_NAMED or name == "incremental"}
    options = BuildOptions(**chosen)
    return Request(options.placed(), language, printer, options.out_dir)


def languages_of(library: Library, activity_id: str, language: str | list[str] | None) -> list[str] | None:
    """The editions to build or check: --lang's one; the settings' languages this activity has (every edition when
    it has none of them); None for every edition."""
    if language is None or isinstance(language, str):
        return [language] if language else None
    return [lang for lang in editions(library.find(activity_id)) if lang in language] or None

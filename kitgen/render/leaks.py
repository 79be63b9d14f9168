"""The host-key leak check: no player file may print host-key material. It reads what render drew (the
display lists of every player file), not the content fields, so a host-key sentence reused anywhere
(a rule, a card, a mat's place label, a slip) is caught wherever it would be printed."""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Iterable

from kitgen.core.errors import Problem
from kitgen.load.model import Activity
from kitgen.load.source import dotted
from kitgen.load.source import Location, SourceMap
from kitgen.core.files import OutputFile

MIN_LENGTH = 12  # shorter host-key strings ("Yes", a card name) are not secrets
_SPACE = re.compile(r"\s+")


def _squeezed(text: str) -> str:
    """Text without any white space: line breaks and run boundaries fall anywhere in what is printed."""
    return _SPACE.sub("", text)


@dataclass(frozen=True)
class Secret:
    """One host-key string and where the content says it."""

    text: str
    loc: Location

    @property
    def key(self) -> str:
        return _squeezed(self.text)


def host_secrets(activity: Activity) -> list[Secret]:
    """Every host-key string long enough to be recognised, with its place in the content."""
    key = activity.host_key
    found: list[Secret] = [Secret(text, ("host_key", "intro", i)) for i, text in enumerate(key.intro)]
    for e, example in enumerate(key.examples):
        found += [Secret(text, ("host_key", "examples", e, name))
                  for name, text in (("title", example.title), ("note", example.note)) if text]
    for w, walkthrough in enumerate(key.walkthroughs):
        found.append(Secret(walkthrough.title, ("host_key", "walkthroughs", w, "title")))
        found += [Secret(step.text, ("host_key", "walkthroughs", w, "steps", s, "text"))
                  for s, step in enumerate(walkthrough.steps)]
    found += [Secret(table.title, ("host_key", "card_tables", t, "title")) for t, table in enumerate(key.card_tables)]
    found += [Secret(example.note, ("host_key", "sets", n, "note")) for n, example in enumerate(key.sets) if example.note]
    for s, section in enumerate(key.sections):
        found.append(Secret(section.title, ("host_key", "sections", s, "title")))
        found += [Secret(text, ("host_key", "sections", s, "paragraphs", p)) for p, text in enumerate(section.paragraphs)]
        found += [Secret(text, ("host_key", "sections", s, "items", i)) for i, text in enumerate(section.items)]
    return [secret for secret in found if len(_SPACE.sub(" ", secret.text).strip()) >= MIN_LENGTH]


def leak_problems(secrets: list[Secret], files: Iterable[OutputFile], source: SourceMap) -> list[Problem]:
    """A problem, located at the host-key string, for every player file that would print it."""
    problems = []
    for file in files:
        if not file.for_players or file.document is None or not secrets:
            continue
        runs = list(file.document.distinct_texts())
        starts, parts, at = [], [], 0
        for run in runs:
            part = _squeezed(run.text)
            starts.append(at)
            parts.append(part)
            at += len(part)
        printed = "".join(parts)
        for secret in secrets:
            where = printed.find(secret.key)
            if where < 0:
                continue
            origin = runs[bisect_right(starts, where) - 1].origin
            shown = _SPACE.sub(" ", secret.text).strip()
            problems.append(source.problem(secret.loc, (
                f"{dotted(secret.loc)}: host-key text would be printed in the players' file {file.name}"
                f"{f' (by {origin})' if origin else ''}: {shown[:70]!r}; host-key material belongs in the host "
                "key only")))
    return problems

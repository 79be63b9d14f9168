"""A catalog checked as it is read, as an activity's YAML is: a library's `locale/*.po` is content.

Every problem is located at its line (`locale/ro.po:12:1: …`) and says what was expected:
- the file is at most `MAX_CATALOG_BYTES`, its `Plural-Forms` a small, computable rule;
- a translation keeps exactly the placeholders of its English text (`%(n)d` stays `%(n)d`: no width, precision
  or flag, which could ask for a gigabyte of padding), and a `%` only where the English text formats one;
- no control characters;
- the words of file names (`msgctxt "file name"`) are plain letters, digits and '-', and stay distinct
  (`distinct_file_words`, on the chain of catalogs a build uses), so no output file overwrites another.
Markup in a translation is never refused here: it is text, escaped where it meets markup (`render/markup.py`).
"""
from __future__ import annotations

import gettext
import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from kitgen.core.errors import ContentError, Problem

MAX_CATALOG_BYTES = 2_000_000  # kitgen's own catalogs are about 40 kB
MAX_PLURALS = 6  # the most any language has (Arabic)
MAX_FILE_WORD = 40
FILE_NAME_CONTEXT = "file name"

# one printf-style conversion, as Python's `%` operator reads it
_TOKEN = re.compile(r"%(?:\((?P<name>[^()]*)\))?(?P<spec>[#0 +\-]*(?:\*|\d+)?(?:\.(?:\*|\d*))?[hlL]?)"
                    r"(?P<conversion>[diouxXeEfFgGcrsa%])")
_FILE_WORD = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_PLURAL_FORMS = re.compile(r"Plural-Forms:\s*(?P<value>[^\\\"\n]*)")


@dataclass(frozen=True)
class Format:
    """What a text asks of Python's `%` operator: its placeholders, those with a width, precision or flag, and
    whether it holds a `%` that starts no conversion (a text never formatted, like "at 100% size")."""

    placeholders: frozenset[str]
    padded: tuple[str, ...]
    lone: bool


def text_format(text: str) -> Format:
    placeholders: set[str] = set()
    padded: list[str] = []
    lone = False
    position = text.find("%")
    while position >= 0:
        match = _TOKEN.match(text, position)
        if match is None:
            lone = True
            position = text.find("%", position + 1)
            continue
        if match["conversion"] != "%":
            name = f"%({match['name']})" if match["name"] is not None else "%"
            placeholders.add(name + match["conversion"])
            if match["spec"]:
                padded.append(match.group(0))
        position = text.find("%", match.end())
    return Format(frozenset(placeholders), tuple(padded), lone)


def _listed(placeholders: Iterable[str]) -> str:
    return ", ".join(sorted(placeholders)) or "none"


def string_problems(english: tuple[str, ...], translated: str, context: str | None) -> Iterator[str]:
    """What is wrong with `translated` as a translation of `english` (a text, or a plural's two), each saying
    what was expected."""
    if _CONTROL.search(translated):
        yield "the translation holds a control character, expected printable text"
    if context == FILE_NAME_CONTEXT and not (_FILE_WORD.fullmatch(translated) and len(translated) <= MAX_FILE_WORD):
        yield (f"the file-name word {translated!r} is not a plain word, expected letters, digits and '-' only "
               f"(at most {MAX_FILE_WORD}), like {english[0]!r}")
    formats = [text_format(text) for text in english]
    if any(f.lone for f in formats):
        return  # an English text that is never formatted: its translation is printed as it is
    wanted = frozenset().union(*(f.placeholders for f in formats))
    if not any("%" in text for text in english):
        if "%" in translated:
            yield ("the translation holds '%' where the English text has none, expected no '%' "
                   "(write 'percent', or ask for the English text to hold one)")
        return
    found = text_format(translated)
    if found.padded:
        yield (f"placeholder {found.padded[0]} has a width, precision or flag, expected it plain, as in the "
               f"English text: {_listed(wanted)}")
    elif found.lone:
        yield "the translation holds a '%' that starts no placeholder, expected '%%' for a percent sign"
    elif found.placeholders != wanted:
        yield (f"the translation's placeholders are {_listed(found.placeholders)}, expected exactly those of the "
               f"English text: {_listed(wanted)}")


def plural_problem(header: str) -> str | None:
    """What is wrong with a `Plural-Forms` value, or None: `nplurals` from 1 to `MAX_PLURALS` and a `plural`
    rule gettext can compute, giving a form from 0 to nplurals - 1 for every count."""
    fields = dict(part.strip().partition("=")[::2] for part in header.split(";") if "=" in part)
    count = fields.get("nplurals", "").strip()
    if not count.isdigit() or not 1 <= int(count) <= MAX_PLURALS:
        return f"Plural-Forms nplurals={count!r}, expected a number from 1 to {MAX_PLURALS}"
    rule = fields.get("plural", "").strip()
    try:
        choose = gettext.c2py(rule)
        forms = {choose(n) for n in (*range(0, 1001), 10_000, 100_000, 1_000_000)}
    except (ValueError, ArithmeticError, RecursionError, TypeError) as error:
        return f"Plural-Forms plural={rule!r} cannot be computed ({error}), expected a rule like (n != 1)"
    if not forms <= set(range(int(count))):
        return f"Plural-Forms plural={rule!r} gives form {max(forms)}, expected forms 0 to {int(count) - 1}"
    return None


def header_problems(shown: str, text: str) -> list[Problem]:
    """The problems of a catalog's `Plural-Forms` line, found before the catalog is parsed (a parser makes room
    for `nplurals` forms in every plural entry)."""
    problems = []
    for match in _PLURAL_FORMS.finditer(text):
        problem = plural_problem(match["value"])
        if problem:
            problems.append(Problem(shown, text.count("\n", 0, match.start()) + 1, 1, problem))
    return problems


def size_problem(shown: str, size: int) -> ContentError | None:
    if size > MAX_CATALOG_BYTES:
        return ContentError([Problem(shown, 1, 1, f"the catalog is {size:,} bytes, expected at most "
                                                  f"{MAX_CATALOG_BYTES:,}")])
    return None


def string_line(lines: list[str], msgid_line: int) -> int:
    """The line of the `msgstr` that follows the `msgid` at `msgid_line` (1-based), or that line itself."""
    for number in range(max(msgid_line - 1, 0), min(len(lines), msgid_line + 10_000)):
        if lines[number].lstrip().startswith("msgstr"):
            return number + 1
    return msgid_line


def distinct_file_words(words: dict[str, str], where: dict[str, Problem]) -> list[Problem]:
    """Problems for the file-name words (`{English word: translated word}`) that are equal, ignoring case, to
    an earlier one: two files of a kit would have one name. `where` locates each translated word's entry."""
    problems = []
    seen: dict[str, str] = {}
    for english, word in words.items():
        key = word.casefold()
        if key in seen:
            place = where.get(english) or where.get(seen[key]) or Problem("catalog", 1, 1, "")
            problems.append(Problem(place.file, place.line, place.column,
                                    f"the file-name words for {seen[key]!r} and {english!r} are both {word!r}, "
                                    f"expected a different word for each (one file would overwrite the other)"))
        else:
            seen[key] = english
    return problems

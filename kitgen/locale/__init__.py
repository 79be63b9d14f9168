"""Locale catalogs: every fixed string kitgen prints comes from a gettext catalog.

Catalogs are looked for first in the library's own `locale/` folder (beside its `content/`), as
`locale/<lang>.po` or `locale/<lang>/LC_MESSAGES/kitgen.po`, then in kitgen's package
(`kitgen/locale/<lang>/LC_MESSAGES/kitgen.po`). A string a library catalog leaves empty (or marks fuzzy) is
taken from kitgen's catalog for that language, else printed in English; `missing_strings` names those.
"""
from __future__ import annotations

import gettext
import io
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

from kitgen.core.errors import ContentError, Problem, UsageError, display_path
from kitgen.locale.checks import (FILE_NAME_CONTEXT, MAX_CATALOG_BYTES, distinct_file_words, header_problems,
                                  size_problem, string_line, string_problems)

LOCALE_DIR = Path(__file__).resolve().parent
DOMAIN = "kitgen"
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"


def library_locale(content: Path | None) -> tuple[Path, ...]:
    """The catalog folders of a library whose activities are in `content`: its `locale/` beside `content/`."""
    return (Path(content).parent / "locale",) if content is not None else ()


_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(?:_[A-Za-z0-9]{2,8})?")


def catalog_candidates(folder: Path, language: str) -> list[Path]:
    """Where a catalog for `language` may be in `folder`; none for a text that is no language code (`../x`)."""
    if not _LANGUAGE.fullmatch(language):
        return []
    return [folder / f"{language}.po", folder / language / "LC_MESSAGES" / f"{DOMAIN}.po"]


def catalog_files(language: str, folders: tuple[Path, ...] = ()) -> list[Path]:
    """Every catalog for `language`, the library's before kitgen's own."""
    found = [path for folder in folders for path in catalog_candidates(folder, language) if path.is_file()]
    own = catalog_candidates(LOCALE_DIR, language)[1:]
    return found + [path for path in own if path.is_file()]


def available_languages(folders: tuple[Path, ...] = ()) -> list[str]:
    """English (the source language) and every language with a catalog, in the library or in kitgen."""
    found = {"en"} | {p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")}
    for folder in folders:
        found |= {p.stem for p in folder.glob("*.po")} | {p.parent.parent.name
                                                          for p in folder.glob(f"*/LC_MESSAGES/{DOMAIN}.po")}
    return sorted(found)


def missing_catalog(language: str, folders: tuple[Path, ...] = ()) -> str | None:
    """The message a build and a check give for a language without a catalog, or None."""
    if language == "en" or catalog_files(language, folders):
        return None
    where = f" (a library adds one as {folders[0] / (language + '.po')}: kitgen translate {language})" if folders else ""
    return (f"no catalog for language {language!r}; available: {', '.join(available_languages(folders))}{where}")


def _read(path: Path, language: str) -> Catalog:
    """The catalog at `path`, checked as it is read (`kitgen.locale.checks`): every problem located, exit 2."""
    from babel.messages.pofile import read_po

    shown = display_path(path)
    too_big = size_problem(shown, path.stat().st_size)
    if too_big:
        raise too_big
    with path.open("rb") as handle:
        raw = handle.read(MAX_CATALOG_BYTES + 1)
    too_big = size_problem(shown, len(raw))  # grew since its size was read
    if too_big:
        raise too_big
    text = raw.decode("utf-8", errors="replace")
    problems = header_problems(shown, text)
    if problems:
        raise ContentError(problems)
    try:
        catalog = read_po(io.BytesIO(raw), locale=language if "_" not in language else None)
    except Exception as error:  # a damaged catalog: say which file
        raise UsageError(f"{path}: cannot read the catalog: {error}") from None
    lines = text.splitlines()
    for message in catalog:
        if not message.id or message.fuzzy:
            continue  # the header, and entries a build leaves out
        english = tuple(str(text) for text in message.id) if isinstance(message.id, (tuple, list)) else \
            (str(message.id),)
        strings = tuple(str(text) for text in message.string) if isinstance(message.string, (tuple, list)) else \
            (str(message.string or ""),)
        line = string_line(lines, message.lineno or 1)
        for string in strings:
            if string:
                problems += [Problem(shown, line, 1, what) for what in string_problems(english, string,
                                                                                        message.context)]
    if problems:
        raise ContentError(problems)
    return catalog


def _file_words() -> list[str]:
    """The English words of file names, from the template catalog."""
    return [text for context, text in template_messages() if context == FILE_NAME_CONTEXT]


@lru_cache(maxsize=None)
def _translations(language: str, files: tuple[tuple[str, int, int], ...]) -> gettext.NullTranslations:
    if not files:  # English without a library catalog: the message ids as they are, no catalog read (nor Babel)
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo

    chain: gettext.NullTranslations | None = None
    where: dict[str, Problem] = {}  # the entry each file-name word comes from: the first catalog's that has it
    for name, _mtime, _size in files:
        read = _read(Path(name), language)
        for word in _file_words():
            entry = read.get(word, context=FILE_NAME_CONTEXT)
            if word not in where and entry is not None and entry.string and not entry.fuzzy:
                lines = Path(name).read_text(encoding="utf-8", errors="replace").splitlines()
                where[word] = Problem(display_path(Path(name)), string_line(lines, entry.lineno or 1), 1, "")
        buffer = io.BytesIO()
        write_mo(buffer, read)  # fuzzy and empty entries are left out
        buffer.seek(0)
        catalog = gettext.GNUTranslations(buffer)
        if chain is None:
            chain = catalog
        else:
            chain.add_fallback(catalog)
    chain = chain or gettext.NullTranslations()
    clashes = distinct_file_words({word: chain.pgettext(FILE_NAME_CONTEXT, word) for word in _file_words()}, where)
    if clashes:
        raise ContentError(clashes)
    return chain


def _versions(files: list[Path]) -> tuple[tuple[str, int, int], ...]:
    return tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)


def translations(language: str, folders: tuple[Path, ...] = ()) -> gettext.NullTranslations:
    """The catalogs for `language` chained: the library's, kitgen's own, then English (the message ids)."""
    problem = missing_catalog(language, folders)
    if problem:
        raise UsageError(problem)
    return _translations(language, _versions(catalog_files(language, folders)))


@lru_cache(maxsize=1)
def template_messages() -> tuple[tuple[str | None, str], ...]:
    """Every string kitgen prints, as (context, English text; a plural's singular), from the template catalog."""
    from babel.messages.pofile import read_po

    with TEMPLATE.open("rb") as handle:
        catalog = read_po(handle)
    return tuple((message.context, message.id if isinstance(message.id, str) else message.id[0])
                 for message in catalog if message.id)


def missing_strings(language: str, folders: tuple[Path, ...] = ()) -> list[str]:
    """The English texts that no catalog for `language` translates (empty or fuzzy everywhere): printed in English."""
    if language == "en":
        return []
    translations(language, folders)  # a missing catalog is an error, as in a build
    return list(_missing(language, _versions(catalog_files(language, folders))))


@lru_cache(maxsize=None)
def _missing(language: str, files: tuple[tuple[str, int, int], ...]) -> tuple[str, ...]:
    done: set[tuple[str | None, str]] = set()
    for name, _mtime, _size in files:
        for message in _read(Path(name), language):
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            if message.id and not message.fuzzy and all(strings):
                done.add((message.context, message.id if isinstance(message.id, str) else message.id[0]))
    return tuple(text for context, text in template_messages() if (context, text) not in done)


def catalog_template(language: str) -> bytes:
    """A catalog to fill in for `language`: every string with its English text, translations already in kitgen
    filled in."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    own = catalog_files(language)
    known = _read(own[0], language) if own else None
    try:
        catalog = Catalog(locale=language, project="kitgen", domain=DOMAIN, fuzzy=False)
    except Exception:  # a code Babel does not know: the header then names no plural rule
        catalog = Catalog(locale=None, project="kitgen", domain=DOMAIN, fuzzy=False)
    from babel.messages.pofile import read_po

    with TEMPLATE.open("rb") as handle:
        template = read_po(handle)
    for message in template:
        if not message.id:
            continue
        existing = known.get(message.id, context=message.context) if known else None
        empty = ("", "") if isinstance(message.id, tuple) else ""
        catalog.add(message.id, existing.string if existing and not existing.fuzzy else empty,
                    context=message.context, locations=message.locations)
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=0, omit_header=False)
    header = (f"# The words kitgen prints, in the language '{language}'.\n"
              "# Fill in each msgstr \"\" with the translation of the msgid above it; keep %(n)d, %(title)s and the\n"
              "# like exactly as they are. An empty msgstr is printed in English (the build lists those).\n"
              "# Entries with msgctxt \"file name\" name output files: plain letters, digits and '-' only.\n")
    return header.encode("utf-8") + buffer.getvalue()

"""Locale catalogs: every fixed string kitgen prints comes from a gettext catalog.

Catalogs are looked for first in the library's own `locale/` folder (beside its `content/`), as
`locale/<lang>.po` or `locale/<lang>/LC_MESSAGES/kitgen.po`, then in kitgen's package
(`kitgen/locale/<lang>/LC_MESSAGES/kitgen.po`). A string a library catalog leaves empty (or marks fuzzy) is
taken from kitgen's catalog for that language, else printed in English; `missing_strings` names those.
"""
from __future__ import annotations

import gettext
import io
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

from kitgen.core.errors import UsageError

LOCALE_DIR = Path(__file__).resolve().parent
DOMAIN = "kitgen"
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"


def library_locale(content: Path | None) -> tuple[Path, ...]:
    """The catalog folders of a library whose activities are in `content`: its `locale/` beside `content/`."""
    return (Path(content).parent / "locale",) if content is not None else ()


def catalog_candidates(folder: Path, language: str) -> list[Path]:
    return [folder / f"{language}.po", folder / language / "LC_MESSAGES" / f"{DOMAIN}.po"]


def catalog_files(language: str, folders: tuple[Path, ...] = ()) -> list[Path]:
    """Every catalog for `language`, the library's before kitgen's own."""
    found = [path for folder in folders for path in catalog_candidates(folder, language) if path.is_file()]
    own = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    return found + ([own] if own.is_file() else [])


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
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        try:
            return read_po(handle, locale=language if "_" not in language else None)
        except Exception as error:  # a damaged catalog: say which file
            raise UsageError(f"{path}: cannot read the catalog: {error}") from None


@lru_cache(maxsize=None)
def _translations(language: str, files: tuple[tuple[str, int, int], ...]) -> gettext.NullTranslations:
    from babel.messages.mofile import write_mo

    chain: gettext.NullTranslations | None = None
    for name, _mtime, _size in files:
        buffer = io.BytesIO()
        write_mo(buffer, _read(Path(name), language))  # fuzzy and empty entries are left out
        buffer.seek(0)
        catalog = gettext.GNUTranslations(buffer)
        if chain is None:
            chain = catalog
        else:
            chain.add_fallback(catalog)
    return chain or gettext.NullTranslations()


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

"""Locale catalogs: every fixed string kitgen prints comes from a gettext catalog (`<lang>/LC_MESSAGES/kitgen.po`)."""
from __future__ import annotations

import gettext
import io
from functools import lru_cache
from pathlib import Path

from kitgen.errors import UsageError

LOCALE_DIR = Path(__file__).resolve().parent
DOMAIN = "kitgen"


def available_languages() -> list[str]:
    """English (the source language) and every language with a catalog."""
    return sorted({"en"} | {p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")})


@lru_cache(maxsize=None)
def translations(language: str) -> gettext.NullTranslations:
    """The catalog for `language`; English strings are the message ids themselves."""
    po_file = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    if language == "en" and not po_file.exists():
        return gettext.NullTranslations()
    if not po_file.exists():
        raise UsageError(f"no catalog for language {language!r}; available: {', '.join(available_languages())}")
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po_file.open("rb") as handle:
        catalog = read_po(handle, locale=language)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)

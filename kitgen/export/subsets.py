"""Font subset tags: the six letters before a subset's name (`ABCDEF+DejaVuSans`), made from the characters of
the file being written, so two files with different subsets of a font never share a tag. ReportLab names every
font's first subset AAAAAA, which a print shop's imposition of several files can take for one font; its tag
function (`ttfonts.SUBSETN`, called with the subset's number when the fonts are written) is replaced by one that
reads the file's seed, and falls back to ReportLab's own outside `subset_seed`."""
from __future__ import annotations

import hashlib
import threading
from contextlib import contextmanager
from typing import Any, Iterator

from reportlab.pdfbase.ttfonts import SUBSETN as _REPORTLAB_SUBSET_TAG

_SUBSET_SEED = threading.local()  # the document being written: what its fonts' subset tags are made from


def _subset_tag(n: Any, table: Any = None) -> bytes:
    """A font subset's six-letter tag (`ABCDEF+DejaVuSans`): from the document's characters and the subset's
    number, so two files with different subsets of a font never share a tag (ReportLab names every first subset
    AAAAAA, which a print shop's imposition of several files can mistake for one font)."""
    seed = getattr(_SUBSET_SEED, "value", None)
    if seed is None:
        return _REPORTLAB_SUBSET_TAG(n)
    digest = hashlib.blake2b(seed + int(n).to_bytes(4, "big"), digest_size=6).digest()
    return bytes(65 + byte % 26 for byte in digest)


def _install_subset_tags() -> None:
    from reportlab.pdfbase import ttfonts

    if ttfonts.SUBSETN is not _subset_tag:
        ttfonts.SUBSETN = _subset_tag


@contextmanager
def subset_seed(seed: bytes) -> Iterator[None]:
    """While a file is written, its font subsets are tagged from `seed` (see `_subset_tag`)."""
    _install_subset_tags()
    before = getattr(_SUBSET_SEED, "value", None)
    _SUBSET_SEED.value = seed
    try:
        yield
    finally:
        _SUBSET_SEED.value = before


__all__ = ["subset_seed"]

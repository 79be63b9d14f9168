"""The garbage collector's settings for a kitgen process, made at its start-up seams.

A build makes hundreds of thousands of small objects that live until it ends. At the collector's default (a
young-generation pass every 700 new objects, each older pass walking everything kept) a 2,000-card build spent
about 18 % of its time collecting, a small kit 8 %; at `tune()`'s settings, under 4 % and 3 %. What an import
makes (modules, classes, functions) lives as long as the process: `importing()` keeps the collector out of an
import's way and then freezes what it made, so that no later pass walks it again.
"""
from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_PASS = 50_000  # new objects between two young-generation passes (Python's default: 700)


def tune() -> None:
    """The collector's thresholds for a build (once, before the stages are imported)."""
    gc.set_threshold(YOUNG_PASS, 20, 100)


@contextmanager
def importing() -> Iterator[None]:
    """No collection while the block imports; then everything alive is frozen out of later passes (call it
    only where little else is alive yet: at start-up, not in the middle of a build)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()

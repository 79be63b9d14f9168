"""The command line: a thin Click layer over kitgen's library API, one module per group of commands.

Exit codes: 0 ok, 1 a build or check failed, 2 bad usage or invalid content.
"""
from __future__ import annotations

import gc

# A build makes hundreds of thousands of small objects that live until it ends. At the collector's default (a
# young-generation pass every 700 new objects, each older pass walking everything kept) a 2,000-card build
# spent about 18 % of its time collecting, a small kit 8 %; at these settings, under 4 % and 3 %. Set before
# the stages are imported: an import makes many objects too.
gc.set_threshold(50_000, 20, 100)

from kitgen.load import skip_pydantic_plugins  # noqa: E402

skip_pydantic_plugins()

from kitgen.cli import building, library, tools  # noqa: E402, F401  (each module adds its commands to `main`)
from kitgen.cli.common import main  # noqa: E402

__all__ = ["main"]

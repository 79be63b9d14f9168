"""The command line: a thin Click layer over kitgen's library API, one module per group of commands.

Exit codes: 0 ok, 1 a build or check failed, 2 bad usage or invalid content.
"""
from __future__ import annotations

from kitgen.core import collector

collector.tune()
with collector.importing():  # the command line's modules; the stages arrive at their own seams
    from kitgen.load import skip_pydantic_plugins

    skip_pydantic_plugins()
    from kitgen.cli import building, library, tools  # noqa: F401  (each module adds its commands to `main`)
    from kitgen.cli.common import main

__all__ = ["main"]

"""The garbage collector's start-up settings (kitgen/core/collector.py): imports at the seams run without a
collection and what they made is frozen out of later passes, once; the collector is on again afterwards."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kitgen.core import collector

PROBE = """
import gc, json, sys
passes = []
def counted(phase, info):  # a pass once kitgen has set the collector (kitgen/__init__ and the collector come first)
    if phase == "start" and gc.get_threshold()[0] != 700:
        passes.append(info["generation"])
gc.callbacks.append(counted)
import kitgen.cli
from kitgen.app import build
after_cli = (len(passes), gc.get_freeze_count(), gc.isenabled(), gc.get_threshold()[0])
build.rendering_stage()
after_stages = (len(passes), gc.get_freeze_count(), gc.isenabled())
garbage = [[object() for _ in range(1000)] for _ in range(200)]
build.rendering_stage()
print(json.dumps([after_cli, after_stages, gc.get_freeze_count(), "kitgen.app.rendering" in sys.modules]))
"""


def test_the_command_line_and_the_stages_are_imported_without_a_collection_and_frozen_once(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (cli_passes, cli_frozen, cli_enabled, young), (stage_passes, stage_frozen, stage_enabled), frozen, imported = \
        json.loads(done.stdout.splitlines()[-1])
    assert (cli_passes, stage_passes) == (0, 0), "no collection while kitgen and its stages are imported"
    assert cli_enabled and stage_enabled and young == collector.YOUNG_PASS
    assert 0 < cli_frozen < stage_frozen, "what each seam imported is frozen"
    assert frozen == stage_frozen and imported, "a second call freezes nothing more (no garbage kept)"


def test_importing_turns_the_collector_back_on_only_if_it_was_on() -> None:
    import gc

    was = gc.isenabled()
    try:
        gc.disable()
        with collector.importing():
            assert not gc.isenabled()
        assert not gc.isenabled()
        gc.enable()
        with collector.importing():
            assert not gc.isenabled()
        assert gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
        gc.unfreeze()

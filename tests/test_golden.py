"""Every file of seven option sets is byte-identical to the recorded hashes (a move inside kitgen changes none).

Recorded with `python tests/golden/golden.py record` when the output is meant to change, and the change named
in the commit. The hashes hold for the recorded versions of the libraries that write bytes; with other
versions the test says which differ and skips.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "golden"))
import golden  # noqa: E402

pytestmark = pytest.mark.slow


def test_every_file_of_every_option_set_has_its_recorded_bytes(tmp_path: Path) -> None:
    recorded = json.loads(golden.HASHES.read_text())
    if recorded["versions"] != golden.versions():
        pytest.skip(f"hashes recorded with {recorded['versions']}, installed {golden.versions()}")
    built = golden.build_all(tmp_path)
    assert sorted(built) == sorted(recorded["files"]), "a different set of files was written"
    changed = [name for name, digest in built.items() if recorded["files"][name] != digest]
    assert not changed, f"{len(changed)} of {len(built)} files changed: {changed[:20]}"

"""The package type-checks with the mypy settings stated in pyproject.toml (`[tool.mypy]`, strict).

The run is mypy's own command, as CI and a developer type it (`python -m mypy` in the repository, which reads
the settings and the package to check from pyproject.toml); its messages are shown when it fails.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "kitgen"

ERROR = re.compile(r"^(?P<file>[^:\s]+\.py):\d+(?::\d+)?: error: ", re.MULTILINE)
CHECKED = re.compile(r"(?:checked|in) (\d+) source files?\)?$", re.MULTILINE)


def _mypy() -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy is not installed: pip install -e '.[test]' installs it and the stubs")
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml", "--no-color-output"],
                          cwd=REPO, capture_output=True, text=True, timeout=900)


def test_the_settings_are_strict() -> None:
    """The stated settings are mypy's strict mode over the whole package (only untyped libraries relaxed)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert settings.get("strict") is True
    assert settings.get("packages") == ["kitgen"]
    for override in settings.get("overrides", []):  # a relaxation names the library it is for, never kitgen
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        assert not any(module.split(".")[0] == "kitgen" for module in modules), override


@pytest.mark.slow  # a whole mypy run (7 s of CPU): with the slow run, and .ci/run runs `python -m mypy` itself too
def test_the_package_type_checks() -> None:
    run = _mypy()
    output = run.stdout + run.stderr
    assert run.returncode in (0, 1), f"mypy did not run to the end (exit {run.returncode}):\n{output}"
    checked = CHECKED.findall(output)
    assert checked and int(checked[-1]) >= len(list(PACKAGE.rglob("*.py"))), f"mypy checked too little:\n{output}"
    errors = [line for line in output.splitlines() if ERROR.match(line)]
    assert not errors, f"{len(errors)} type errors:\n" + "\n".join(errors)

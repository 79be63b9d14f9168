"""What a build imports: a `kitgen build` that asks for no picture, cut file or watcher loads none of the modules
only those need (the web server, the file watcher, PDFium, and urllib and ssl, which `xml.sax.saxutils` brings)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import quoteattr

from kitgen.export.exporter import title_text

NOT_FOR_A_BUILD = ("kitgen.app.serve", "kitgen.app.watch", "kitgen.app.preview", "pypdfium2", "xml.sax.saxutils",
                   "urllib.request", "ssl", "http.client", "http.server", "watchfiles")
NEEDED_BY_A_BUILD = ("kitgen.app.rendering", "kitgen.load.model", "reportlab.pdfgen.canvas", "jinja2")

REPORT = ("import sys; from kitgen.cli import main\n"
          "code = 0\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as stop:\n    code = stop.code\n"
          "print('IMPORTED', sorted(m for m in {names!r} if m in sys.modules))\nsys.exit(code)\n")


def _imported(tmp_path: Path, *args: str) -> list[str]:
    """The modules of NOT_FOR_A_BUILD + NEEDED_BY_A_BUILD that `kitgen ARGS` imported, in a fresh process."""
    from conftest import kitgen_env

    code = REPORT.format(names=NOT_FOR_A_BUILD + NEEDED_BY_A_BUILD)
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                          env=kitgen_env(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("IMPORTED"))
    return list(eval(line.removeprefix("IMPORTED ")))  # a list of names, printed by the child above


def test_a_build_imports_neither_the_server_the_watcher_nor_pdfium(tmp_path: Path) -> None:
    from conftest import CONTENT

    imported = _imported(tmp_path, "build", "growing-discard", "--force", "-q", "--content", str(CONTENT),
                         "--out", str(tmp_path / "out"))
    assert set(NEEDED_BY_A_BUILD) <= set(imported), imported  # (the check sees what a build does import)
    assert not set(imported) & set(NOT_FOR_A_BUILD), imported


def test_a_build_with_pictures_still_imports_pdfium(tmp_path: Path) -> None:
    from conftest import CONTENT

    imported = _imported(tmp_path, "build", "growing-discard", "--force", "-q", "--png", "72", "--content",
                         str(CONTENT), "--out", str(tmp_path / "out"))
    assert "pypdfium2" in imported
    assert any((tmp_path / "out").rglob("*.png"))


def test_a_cut_file_title_is_escaped_as_quoteattr_escapes_it() -> None:
    for text in ["Robots & <gears>", 'say "hi"', "it's", "both ' and \"", "tab\there\nline\rend", "", "ü ★ 🦊"]:
        assert title_text(text) == quoteattr(text)[1:-1], text

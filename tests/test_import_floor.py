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
CATALOG_READER = ("babel.messages.pofile",)  # an edition in another language than English reads its catalog

REPORT = ("import sys; from kitgen.cli import main\n"
          "code = 0\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as stop:\n    code = stop.code\n"
          "print('IMPORTED', sorted(m for m in {names!r} if m in sys.modules))\nsys.exit(code)\n")


def _imported(tmp_path: Path, *args: str) -> list[str]:
    """The modules of NOT_FOR_A_BUILD, NEEDED_BY_A_BUILD and CATALOG_READER that `kitgen ARGS` imported, in a fresh
    process."""
    from conftest import kitgen_env

    code = REPORT.format(names=NOT_FOR_A_BUILD + NEEDED_BY_A_BUILD + CATALOG_READER)
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


def test_an_english_build_reads_no_catalog_and_a_romanian_one_does(tmp_path: Path) -> None:
    """English is the catalogs' source language: its build takes the message ids as they are, without Babel and
    without reading kitgen.pot (about 40 ms of a small kit's cold build); Romanian reads its catalog."""
    from conftest import CONTENT

    for language, reads in (("en", False), ("ro", True)):
        imported = _imported(tmp_path, "build", "trash", "--lang", language, "--force", "-q", "--content",
                             str(CONTENT), "--out", str(tmp_path / "out"))
        assert ("babel.messages.pofile" in imported) is reads, (language, imported)


def test_the_english_file_name_words_are_distinct() -> None:
    """What the catalog check of a language proves for its words holds for the English ones an English build uses
    unchecked: no two file names of a kit are one word."""
    from kitgen.locale import _file_words
    from kitgen.locale.checks import distinct_file_words

    words = _file_words()
    assert len(words) >= 5, words
    assert distinct_file_words({word: word for word in words}, {}) == []
    assert distinct_file_words({**{word: word for word in words}, "extra": words[0].upper()}, {}), "the check can fail"


def test_a_build_with_pictures_still_imports_pdfium(tmp_path: Path) -> None:
    from conftest import CONTENT

    imported = _imported(tmp_path, "build", "growing-discard", "--force", "-q", "--png", "72", "--content",
                         str(CONTENT), "--out", str(tmp_path / "out"))
    assert "pypdfium2" in imported
    assert any((tmp_path / "out").rglob("*.png"))


def test_a_cut_file_title_is_escaped_as_quoteattr_escapes_it() -> None:
    for text in ["Robots & <gears>", 'say "hi"', "it's", "both ' and \"", "tab\there\nline\rend", "", "ü ★ 🦊"]:
        assert title_text(text) == quoteattr(text)[1:-1], text


def test_the_command_line_validates_content_without_discovering_pydantic_plugins(tmp_path: Path) -> None:
    """Loading and validating an activity in the kitgen command imports no importlib.metadata (pydantic's plugin
    discovery, 33 ms with the email package it brings); the content model still refuses bad content."""
    from conftest import GROWING, kitgen_env

    code = ("import sys\nimport kitgen.cli\nfrom kitgen.load import load_activity\nfrom kitgen.core.errors import "
            "ContentError\nload_activity(__import__('pathlib').Path(sys.argv[1]))\ntry:\n"
            "    load_activity(__import__('pathlib').Path(sys.argv[2]))\nexcept ContentError as error:\n"
            "    print('REFUSED', error.problems[0].message)\nprint('METADATA', 'importlib.metadata' in sys.modules)\n")
    broken = tmp_path / "growing-discard.yaml"
    broken.write_text(GROWING.read_text(encoding="utf-8").replace("players: 2", "players: two", 1), encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", code, str(GROWING), str(broken)], capture_output=True, text=True,
                          timeout=300, env=kitgen_env(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "REFUSED players" in done.stdout and "METADATA False" in done.stdout, done.stdout


def test_pydantic_asks_its_plugin_loader_for_get_plugins_alone() -> None:
    """kitgen's stand-in for pydantic's plugin loader (`kitgen.load.skip_pydantic_plugins`) has only
    `get_plugins`: the installed pydantic (the range in pyproject.toml) imports nothing else from that module."""
    import inspect
    import re

    import pydantic.plugin._schema_validator as schema_validator

    from kitgen.load import PLUGIN_LOADER

    assert PLUGIN_LOADER == "pydantic.plugin._loader"
    imports = re.findall(r"from \._loader import ([^\n]+)", inspect.getsource(schema_validator))
    assert imports == ["get_plugins"], imports
    package = (Path(schema_validator.__file__).parent)
    others = [path.name for path in package.parent.rglob("*.py") if "_loader" in path.read_text(encoding="utf-8")
              and path.name not in ("_loader.py", "_schema_validator.py")]
    assert not others, others

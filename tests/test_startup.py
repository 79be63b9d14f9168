"""What kitgen does to start faster must not change what ReportLab does."""
from __future__ import annotations

import re
import subprocess
import sys


def test_the_deferred_web_address_pattern_still_works_and_re_compile_is_restored():
    import kitgen.render.platypus  # noqa: F401  (the first import of platypus goes through it)
    from reportlab.platypus import paragraph

    assert re.compile.__module__ == "re", "re.compile is ReportLab's and everyone else's again"
    assert paragraph._uri_split_pairs("https://example.org/a/b") == [
        ("https://example.org/a/", "b"), ("https://example.org/", "a/b"), ("https://", "example.org/a/b")]
    assert paragraph._uri_split_pairs("not a web address") is None


def test_a_fresh_process_defers_only_that_pattern():
    code = ("import re, kitgen.render.platypus, reportlab.platypus.paragraph as p, reportlab.lib.textsplit as t;"
            "print(type(p.uri_pat).__name__, type(p._hy_letters_pat).__name__)")
    printed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert printed.split() == ["LazyPattern", "Pattern"]


UNNEEDED_FOR_UP_TO_DATE = ("pydantic", "kitgen.load.model", "kitgen.check.content", "jinja2", "reportlab.pdfgen",
                           "reportlab.platypus", "kitgen.render.kit")


def test_an_up_to_date_kit_is_told_so_without_the_content_model_templates_or_reportlab(tmp_path):
    """`kitgen build ID` on a kit that is up to date reads the manifest and the inputs, and stops: it does not
    import pydantic (the content model's validators), Jinja or ReportLab. After a content edit it builds as
    ever."""
    from conftest import CONTENT, kitgen_env

    build = ("import sys; from kitgen.cli import main\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             f"print('IMPORTED', [m for m in {UNNEEDED_FOR_UP_TO_DATE!r} if m in sys.modules])\n")
    args = ["build", "growing-discard", "--content", str(CONTENT), "--out", str(tmp_path / "out")]

    def run() -> str:
        done = subprocess.run([sys.executable, "-c", build, *args], capture_output=True, text=True, timeout=300,
                              env=kitgen_env(tmp_path), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stdout

    first = run()
    assert "wrote " in first and "IMPORTED []" not in first  # building needs them all
    again = run()
    assert "up to date" in again
    assert "IMPORTED []" in again, again

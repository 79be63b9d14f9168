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

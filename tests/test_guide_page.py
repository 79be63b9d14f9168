"""`kitgen docs` writes the authoring guide as a web page that needs no network, and `--open` says so (exit 1)
when no browser can be started instead of pretending it opened one."""
from __future__ import annotations

import re
import webbrowser
from pathlib import Path

import pytest
from click.testing import CliRunner

from kitgen.app.guide import guide_html, heading_id
from kitgen.cli import main

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "docs" / "authoring.md"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KITGEN_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def headings(markdown: str) -> list[str]:
    """The guide's headings, outside its code blocks, as a reader sees them (no backticks)."""
    found, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"#{1,6} (.+)", line)):
            found.append(match[1].replace("`", "").strip())
    return found


def test_docs_writes_the_guide_as_a_web_page_with_every_heading(cache: Path):
    result = CliRunner().invoke(main, ["docs"])
    assert result.exit_code == 0, result.output
    page, markdown = (Path(line) for line in result.output.splitlines())
    assert markdown.resolve() == GUIDE.resolve()
    text = page.read_text(encoding="utf-8")
    assert page.is_relative_to(cache) and text.startswith("<!DOCTYPE html>")
    expected = headings(GUIDE.read_text(encoding="utf-8"))
    assert len(expected) > 40 and "9. Exit codes" in expected
    shown = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", text)]
    assert [h.replace("&amp;", "&") for h in shown] == expected
    assert text.count("<table>") == GUIDE.read_text(encoding="utf-8").count("\n|---|")  # tables are tables
    # nothing from the network: no stylesheet, script or picture fetched; every link goes to a heading
    assert not re.search(r"<(script|link|img|iframe)\b", text)
    ids = set(re.findall(r' id="([^"]+)"', text))
    links = re.findall(r'href="([^"]+)"', text)
    assert links and all(link.startswith("#") and link[1:] in ids for link in links), sorted(set(links) - ids)


def test_a_picture_in_the_guide_is_shown_as_its_words():
    page = guide_html("# Serve\n\n| a | b |\n|---|---|\n| ![the library page](images/serve-index.png) | x |\n")
    assert "<img" not in page and "images/serve-index.png" not in page
    assert '<td><span class="picture">(picture: the library page)</span></td>' in page


def test_raw_html_in_the_guide_is_shown_as_text():
    page = guide_html("# Mats\n\nEvery part is labelled <title> · Player 1 <script>x</script>\n")
    assert "&lt;title&gt;" in page and "<script>" not in page and '<h1 id="mats">Mats</h1>' in page


def test_heading_ids_follow_the_guides_own_links():
    assert heading_id("3.9 Printing defaults") == "39-printing-defaults"
    assert heading_id("Hand examples (examples)") == "hand-examples-examples"
    page = guide_html("## Notes\n\n## Notes\n")
    assert 'id="notes"' in page and 'id="notes-1"' in page


def test_open_without_a_browser_exits_1_with_a_message(cache: Path, monkeypatch: pytest.MonkeyPatch):
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *args, **kwargs: opened.append(url) and False)
    result = CliRunner().invoke(main, ["docs", "--open"])
    assert result.exit_code == 1, result.output
    assert "no web browser could be started" in result.output and "authoring.html" in result.output
    assert "Traceback" not in result.output
    assert opened and opened[0].startswith("file://") and opened[0].endswith("authoring.html")


def test_open_with_a_browser_exits_0(cache: Path, monkeypatch: pytest.MonkeyPatch):
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *args, **kwargs: not opened.append(url))
    result = CliRunner().invoke(main, ["docs", "--open"])
    assert result.exit_code == 0, result.output
    assert len(opened) == 1 and Path(opened[0].removeprefix("file://")).read_text(encoding="utf-8").startswith("<!")


def test_a_browser_that_raises_is_no_browser(cache: Path, monkeypatch: pytest.MonkeyPatch):
    def refuse(url: str, *args: object, **kwargs: object) -> bool:
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "open", refuse)
    result = CliRunner().invoke(main, ["docs", "--open"])
    assert result.exit_code == 1 and "no web browser could be started" in result.output

"""Pictures found by the names a teacher writes: sequences (polar bear) and emoji newer than Python's Unicode
tables (jellyfish) print, `kitgen pictures WORD` lists them, an unknown name points to that command, and an emoji
written with VS16 (❄️) prints as the picture, not as the text glyph. Measured in the PDFs."""
from __future__ import annotations

from pathlib import Path

import pdfplumber
import pytest

import forked
from conftest import kitgen_env
from kitgen.core.errors import ContentError
from test_pictures import activity, built, MM


def emoji_strokes(pdf: Path) -> int:
    """Small stroked shapes (lines and curves narrower than 30 mm) on the first page: a picture's outlines."""
    with pdfplumber.open(pdf) as document:
        page = document.pages[0]
        return len([c for c in page.curves + page.lines if c["stroke"] and c["width"] < 30 * MM])


@pytest.mark.parametrize("name", ["polar bear", "polar-bear", "jellyfish"])
def test_a_picture_named_as_the_guide_names_it_prints(tmp_path: Path, name: str):
    files = built(tmp_path, activity(f"- {{id: A, count: 1, picture: {name}, name: Animal}}\n"))
    (tmp_path / "plain").mkdir()
    plain = built(tmp_path / "plain", activity("- {id: A, count: 1, name: Animal}\n"))
    assert emoji_strokes(files["cards.pdf"]) >= emoji_strokes(plain["cards.pdf"]) + 5, f"{name}: no picture drawn"


def test_kitgen_pictures_lists_the_names_with_a_word_and_an_unknown_name_points_to_it(tmp_path: Path):
    listed = forked.run(["pictures", "bear"], cwd=tmp_path, env=kitgen_env(tmp_path), timeout=120)
    assert listed.returncode == 0, listed.stderr
    lines = dict(line.split("\t")[::-1] for line in listed.stdout.splitlines())
    assert lines["polar bear"] == "🐻‍❄️" and lines["teddy bear"] == "🧸"
    assert all("bear" in name for name in lines)
    none = forked.run(["pictures", "zzqx"], cwd=tmp_path, env=kitgen_env(tmp_path), timeout=120)
    assert none.returncode == 2 and none.stderr.startswith("error: no picture's name has 'zzqx'")
    with pytest.raises(ContentError) as caught:
        built(tmp_path, activity("- {id: A, count: 1, picture: xylophonist}\n"))
    assert "`kitgen pictures xylophonist` lists the pictures whose name has that word" in str(caught.value)
    assert "kitgen.render" not in str(caught.value), "no Python names in a message to a teacher"


def test_an_emoji_with_vs16_prints_as_its_picture(tmp_path: Path):
    files = built(tmp_path, activity('- {id: A, count: 1, name: "Cold \\u2744\\ufe0f", text: Snow}\n'))
    with pdfplumber.open(files["cards.pdf"]) as document:
        words = document.pages[0].extract_text()
    assert "\u2744" not in words and "Cold" in words
    (tmp_path / "plain").mkdir()
    plain = built(tmp_path / "plain", activity('- {id: A, count: 1, name: "Cold", text: Snow}\n'))
    assert emoji_strokes(files["cards.pdf"]) >= emoji_strokes(plain["cards.pdf"]) + 3, "the snowflake is drawn"


def test_a_kit_whose_picture_names_python_knows_never_reads_the_emoji_data(tmp_path: Path):
    """The emoji data (a tenth of a second to import, more to index) is read only for a name Python lacks."""
    from kitgen.pictures import emoji

    emoji.every_picture_name.cache_clear()
    built(tmp_path, activity("- {id: A, count: 1, picture: hedgehog, name: Animal}\n"))
    assert emoji.every_picture_name.cache_info().misses == 0
    emoji.named_picture("jellyfish")  # a name only the emoji data has: read now, once
    emoji.named_picture("polar bear")
    assert emoji.every_picture_name.cache_info().misses == 1

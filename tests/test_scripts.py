"""Text kitgen cannot print truthfully is refused with its location, never printed wrong without a word:
right-to-left script (it would come out reversed and unshaped) and characters beyond U+FFFF that are not
drawn as pictures (the PDF's text layer would name a wrong character)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kitgen.cli import main

REPO = Path(__file__).resolve().parents[1]


def library_with_title(tmp_path: Path, title: str) -> Path:
    content = tmp_path / "content"
    content.mkdir()
    source = (REPO / "content" / "growing-discard.yaml").read_text(encoding="utf-8")
    assert "\ntitle: Growing discard deck\n" in source
    (content / "growing-discard.yaml").write_text(
        source.replace("\ntitle: Growing discard deck\n", f"\ntitle: {title}\n", 1), encoding="utf-8")
    return content


def title_line() -> int:
    source = (REPO / "content" / "growing-discard.yaml").read_text(encoding="utf-8")
    return source.splitlines().index("title: Growing discard deck") + 1


@pytest.mark.parametrize("command", ["check", "build"])
def test_right_to_left_text_is_refused_where_the_content_says_it(tmp_path, command):
    content = library_with_title(tmp_path, "Growing discard שלום")
    out = tmp_path / "out"
    args = [command, "growing-discard", "--content", str(content)] + (["--out", str(out)] if command == "build" else [])
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert re.search(rf"growing-discard\.yaml:{title_line()}:\d+: title: 'ש' \(U\+05E9\).*right-to-left", result.stderr)
    assert "Traceback" not in result.output
    assert not out.exists() or not any(out.rglob("*.pdf"))


def test_a_character_beyond_u_ffff_is_refused_at_its_field(tmp_path):
    content = library_with_title(tmp_path, "Growing discard 𝔸")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["build", "growing-discard", "--content", str(content), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert re.search(rf"growing-discard\.yaml:{title_line()}:\d+: title: '𝔸' \(U\+1D538\).*beyond U\+FFFF",
                     result.stderr), result.stderr
    assert not out.exists() or not any(out.rglob("*.pdf"))


def test_an_emoji_beyond_u_ffff_on_a_card_prints_as_a_picture_and_is_not_refused(tmp_path):
    content = tmp_path / "content"
    content.mkdir()
    source = (REPO / "content" / "growing-discard.yaml").read_text(encoding="utf-8")
    assert "text: Counts 1 coin" in source
    (content / "growing-discard.yaml").write_text(source.replace("text: Counts 1 coin", "text: 🐿 Counts 1 coin", 1),
                                                  encoding="utf-8")
    result = CliRunner().invoke(main, ["build", "growing-discard", "--content", str(content),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output

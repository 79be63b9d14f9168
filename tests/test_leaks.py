"""The host-key leak check reads what is printed (the display lists): a host-key sentence reused in any kind of
player file is a located error naming the file, the host-key field and where it would have been printed."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kitgen.build import BuildOptions, build
from kitgen.cli import main
from kitgen.errors import ContentError
from kitgen.library import Library

SECRET = "The blue card always wins a tie at the end of the round."

ACTIVITY = """\
id: leaky
title: Leaky
purpose: Checks that host-key text stays out of player files.
category: Test
players: 2
minutes: 10
language: en
card_size: poker
rules:
  prepare: Shuffle the cards.
  play: [Draw a card on your turn.]
  finish: The player with more cards wins.
decks:
  - id: main
    name: Main deck
    back: {title: Leaky, symbol: "★", pattern: stripes}
    cards:
      - {id: blue, name: Blue card, count: 2, text: A plain blue card.}
  - id: extra
    name: Extra deck
    optional: true
    back: {title: Extra, symbol: "◆", pattern: dots}
    cards:
      - {id: red, name: Red card, count: 1, text: A plain red card.}
slips:
  - id: note
    title: My note
    size: 90x60mm
    lines: ["Name:"]
boards:
  - id: mat
    title: Play mat
    positions: {columns: 2, rows: 1, width: 70mm, height: 95mm, labels: [Draw pile, Discard pile]}
record_sheets:
  - {id: record, title: Score sheet, columns: [Turn, Points], rows: 4}
host_key:
  intro: Keep this page away from the players.
  sections:
    - title: Ties
      items:
        - {secret}
"""

# where a teacher might paste the host-key sentence, by the player file it would be printed in
LEAKS = {
    "cards": ("{id: blue, name: Blue card, count: 2, text: A plain blue card.}",
              '{id: blue, name: Blue card, count: 2, text: "' + SECRET + '"}', "leaky-cards.pdf"),
    "optional deck": ("{id: red, name: Red card, count: 1, text: A plain red card.}",
                      '{id: red, name: Red card, count: 1, text: "' + SECRET + '"}', "leaky-optional-deck.pdf"),
    "slips": ('lines: ["Name:"]', f'lines: ["Name:", "{SECRET}"]', "leaky-slips.pdf"),
    "mat": ("labels: [Draw pile, Discard pile]", f'labels: [Draw pile, "{SECRET}"]', "leaky-mat.pdf"),
    "player sheets": ("play: [Draw a card on your turn.]", f'play: [Draw a card on your turn., "{SECRET}"]',
                      "leaky-sheets.pdf"),
    "print guide": ("    name: Extra deck\n", f'    name: Extra deck\n    note: "{SECRET}"\n', "leaky-print-guide.pdf"),
}


def library_with(tmp_path: Path, old: str = "", new: str = "") -> Library:
    content = tmp_path / "content"
    content.mkdir()
    text = ACTIVITY.replace("{secret}", SECRET)
    if old:
        assert old in text, old
        text = text.replace(old, new, 1)
    (content / "leaky.yaml").write_text(text, encoding="utf-8")
    return Library.open(content)


def test_the_activity_builds_when_nothing_leaks(tmp_path):
    result = build("leaky", BuildOptions(out_dir=tmp_path / "out"), library_with(tmp_path))
    assert {f.name for f in result.files} == {"leaky-cards.pdf", "leaky-optional-deck.pdf", "leaky-slips.pdf",
                                              "leaky-mat.pdf", "leaky-sheets.pdf", "leaky-host-key.pdf",
                                              "leaky-print-guide.pdf"}


@pytest.mark.parametrize("kind", LEAKS)
def test_a_host_key_sentence_in_any_player_file_is_a_located_error(tmp_path, kind):
    old, new, file_name = LEAKS[kind]
    library = library_with(tmp_path, old, new)
    with pytest.raises(ContentError) as caught:
        build("leaky", BuildOptions(out_dir=tmp_path / "out"), library)
    message = str(caught.value)
    secret_line = 1 + ACTIVITY.replace("{secret}", SECRET).replace(old, new, 1).splitlines().index(f"        - {SECRET}")
    assert re.search(rf"leaky\.yaml:{secret_line}:\d+: host_key\.sections\[0\]\.items\[0\]: host-key text would be "
                     rf"printed in the players' file {re.escape(file_name)}", message), message
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.pdf"))


def test_the_mat_leak_names_the_place_that_would_print_it(tmp_path):
    old, new, _ = LEAKS["mat"]
    with pytest.raises(ContentError, match=r"by .*leaky\.yaml:\d+:\d+: boards\[0\] .*place 2"):
        build("leaky", BuildOptions(out_dir=tmp_path / "out"), library_with(tmp_path, old, new))


def test_a_leak_stops_the_command_with_exit_status_2_and_no_traceback(tmp_path):
    old, new, _ = LEAKS["mat"]
    library_with(tmp_path, old, new)
    result = CliRunner().invoke(main, ["build", "leaky", "--content", str(tmp_path / "content"),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert "leaky-mat.pdf" in result.stderr and "Traceback" not in result.stderr

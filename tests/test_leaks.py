"""The host-key leak check reads what is printed (the display lists): a host-key sentence reused in any kind of
player file is a located error naming the file, the host-key field and where it would have been printed."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kitgen.app.build import build, BuildOptions
from kitgen.cli import main
from kitgen.core.errors import ContentError
from kitgen.load.library import Library

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


# ----------------------------------------------------------------- every host-key field, and text inside text

CARD = "{id: blue, name: Blue card, count: 2, text: A plain blue card.}"
SCORED_CARD = "{id: blue, name: Blue card, count: 2, text: A plain blue card., data: {coins: 3, order: 1}}"
ITEM = f"        - {SECRET}\n"

# each host-key field that may hold a sentence, with the secret in it (YAML under `host_key:`), and the field's
# place as the error names it
HOST_FIELDS = {
    "intro": (f"  intro: [Keep this page away., \"{SECRET}\"]\n", "host_key.intro[1]"),
    "example title": (f"  examples:\n    - {{title: \"{SECRET}\", hand: [blue], sum: coins, unit: coins}}\n",
                      "host_key.examples[0].title"),
    "example note": (f"  examples:\n    - {{title: One card, hand: [blue], sum: coins, unit: coins, note: \"{SECRET}\"}}\n",
                     "host_key.examples[0].note"),
    "walkthrough title": (f"  walkthroughs:\n    - title: \"{SECRET}\"\n      steps:\n        - text: Turn one.\n",
                          "host_key.walkthroughs[0].title"),
    "walkthrough step": ("  walkthroughs:\n    - title: A short round\n      steps:\n        - text: Turn one.\n"
                         f"        - text: \"{SECRET}\"\n", "host_key.walkthroughs[0].steps[1].text"),
    "card table title": (f"  card_tables:\n    - title: \"{SECRET}\"\n      deck: main\n"
                         "      fields: [{field: coins, heading: Coins}]\n", "host_key.card_tables[0].title"),
    "set note": ("  scoring: {order: order, size: 1, points: 1}\n"
                 f"  sets:\n    - {{cards: [blue], points: 1, note: \"{SECRET}\"}}\n", "host_key.sets[0].note"),
    "section title": (f"  sections:\n    - title: \"{SECRET}\"\n      items: [Nothing else.]\n",
                      "host_key.sections[0].title"),
    "section paragraph": (f"  sections:\n    - title: Ties\n      paragraphs: [\"{SECRET}\"]\n",
                          "host_key.sections[0].paragraphs[0]"),
}


def activity_with_host_key(host_key: str, play: str) -> str:
    """The leaky activity with its host key replaced by `host_key` and `play` as the one rule of play."""
    text = ACTIVITY.replace(CARD, SCORED_CARD)
    head, _ = text.split("host_key:\n")
    head = head.replace("play: [Draw a card on your turn.]", f"play: [{play}]")
    return head + "host_key:\n" + host_key


def build_text(tmp_path: Path, text: str):
    content = tmp_path / "content"
    content.mkdir(parents=True)
    (content / "leaky.yaml").write_text(text, encoding="utf-8")
    return build("leaky", BuildOptions(out_dir=tmp_path / "out"), Library.open(content))


@pytest.mark.parametrize("field", HOST_FIELDS)
def test_every_host_key_field_is_checked_even_inside_a_longer_printed_sentence(tmp_path, field):
    host_key, where = HOST_FIELDS[field]
    # printed in the players' rules inside a longer sentence, broken over other words: still the secret
    play = f'"Before you start, read this: {SECRET} Then draw."'
    with pytest.raises(ContentError) as caught:
        build_text(tmp_path, activity_with_host_key(host_key, play))
    assert f"{where}: host-key text would be printed in the players' file leaky-sheets.pdf" in str(caught.value)


@pytest.mark.parametrize("field", HOST_FIELDS)
def test_the_same_host_key_fields_build_when_the_players_never_see_them(tmp_path, field):
    host_key, _ = HOST_FIELDS[field]
    result = build_text(tmp_path, activity_with_host_key(host_key, "Draw a card on your turn."))
    assert any(f.name == "leaky-host-key.pdf" for f in result.files)


def test_a_host_key_string_of_twelve_characters_is_a_secret_and_one_of_eleven_is_not(tmp_path):
    twelve = "Blue beats r"  # printed inside "Blue beats red."
    assert len(twelve) == 12
    with pytest.raises(ContentError, match=r"host_key\.sections\[0\]\.items\[0\]: host-key text would be printed"):
        build_text(tmp_path / "a", activity_with_host_key(
            f"  sections:\n    - title: Ties\n      items: [\"{twelve}\"]\n", f'"{twelve}ed."'))
    shorter = "Blue beats."  # eleven characters: too short to be recognised as a secret
    assert len(shorter) == 11
    result = build_text(tmp_path / "b", activity_with_host_key(
        f"  sections:\n    - title: Ties\n      items: [\"{shorter}\"]\n", f'"{shorter} Draw."'))
    assert any(f.name == "leaky-sheets.pdf" for f in result.files)


@pytest.mark.parametrize("labels, place", [(f'["{SECRET}", Discard pile]', "place 1"),
                                           (f'[Draw pile, "{SECRET}"]', "place 2")])
def test_the_leak_names_the_place_that_prints_it_not_a_neighbour(tmp_path, labels, place):
    library = library_with(tmp_path, "labels: [Draw pile, Discard pile]", f"labels: {labels}")
    with pytest.raises(ContentError) as caught:
        build("leaky", BuildOptions(out_dir=tmp_path / "out"), library)
    assert re.search(rf"leaky-mat\.pdf \(by .*boards\[0\] \(mat 'mat'\), {place}\)", str(caught.value)), \
        str(caught.value)


def test_a_card_leak_names_the_card_that_prints_it(tmp_path):
    blue = f'{{id: blue, name: Blue card, count: 2, text: "{SECRET}"}}'
    green = "{id: green, name: Green card, count: 2, text: A plain green card.}"
    library = library_with(tmp_path, CARD, f"{blue}\n      - {green}")
    with pytest.raises(ContentError) as caught:
        build("leaky", BuildOptions(out_dir=tmp_path / "out"), library)
    assert "leaky-cards.pdf (by " in str(caught.value) and "decks[0].cards[0] (card 'blue')" in str(caught.value)


def test_a_secret_that_is_the_first_thing_a_player_file_prints_is_caught(tmp_path):
    """The mat's title is the first text its file prints: a host-key sentence there starts at offset 0 of what
    is printed, and is a leak like any other."""
    library = library_with(tmp_path, "title: Play mat", f'title: "{SECRET}"')
    with pytest.raises(ContentError) as caught:
        build("leaky", BuildOptions(out_dir=tmp_path / "out"), library)
    assert "host_key.sections[0].items[0]: host-key text would be printed in the players' file leaky-mat.pdf" \
        in str(caught.value), str(caught.value)

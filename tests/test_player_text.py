"""What the players read is computed from the cards: placeholders outside the decks, replayed worked examples.

A number of the card data printed in the rules, the player aid or a record sheet follows the card (a
changed cost changes every page that states it), and a worked example on the rules sheet is replayed like
the host key's walkthroughs: an impossible one is refused with its place in the file, exit 2.
"""
from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from kitgen.app.build import build, BuildOptions
from kitgen.cli import main
from kitgen.load.library import Library

from conftest import file_of, library_copy, page_texts


def copy(tmp_path: Path, activity_id: str, *changes: tuple[str, str]) -> Path:
    """The library activity in a folder of its own, each (old, new) replaced once; the folder."""
    return library_copy(tmp_path, f"{activity_id}.yaml", *changes)


def sheet_pages(content: Path, tmp_path: Path, activity_id: str) -> list[str]:
    result = build(activity_id, BuildOptions(out_dir=tmp_path / "out"), Library.open(content))
    return [" ".join(text.split()) for text in page_texts(file_of(result, "sheets"))]


def check(content: Path, activity_id: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", activity_id, "--content", str(content)])
    return result.exit_code, result.stderr


def line_of(content: Path, activity_id: str, needle: str, after: str = "  example:") -> tuple[int, int]:
    """Line and column (1-based) of the first `needle` after the line `after` of the activity's file."""
    lines = (content / f"{activity_id}.yaml").read_text(encoding="utf-8").split("\n")
    start = lines.index(after)
    for n, line in enumerate(lines[start:], start + 1):
        if needle in line:
            return n, line.index(needle.lstrip("- ")) + 1 if needle.startswith("- ") else line.index(needle) + 1
    raise AssertionError(needle)


# --------------------------------------------------------------------------- numbers follow the cards


def test_a_changed_worker_cost_changes_the_rules_and_every_player_aid(tmp_path):
    content = copy(tmp_path, "junkyard-robots", ("data: {metal: 2, glass: 2, plastic: 1}",
                                                 "data: {metal: 2, glass: 1, plastic: 1}"))
    pages = sheet_pages(content, tmp_path, "junkyard-robots")
    stating = [n for n, text in enumerate(pages) if "Worker 2 metal, 1 glass, 1 plastic" in text]
    aids = [n for n, text in enumerate(pages) if "Your turn in five phases" in text]
    assert aids and set(aids) <= set(stating), (aids, stating)  # every aid's Build phase (the rules point to it)
    assert not any("Worker 2 metal, 2 glass" in text for text in pages)
    assert "A Worker costs 4 junk cards" in pages[0]  # a computed sum, not only a copied number


def test_a_changed_s2_price_changes_the_rules(tmp_path):
    content = copy(tmp_path, "growing-discard", ("data: {coins: 0, stars: 2, price: 4}",
                                                 "data: {coins: 0, stars: 2, price: 3}"))
    rules = sheet_pages(content, tmp_path, "growing-discard")[0]
    assert "a C2 costs 3 coins and an S2 costs 3" in rules, rules
    assert "S2 costs 4" not in rules


def test_a_placeholder_naming_no_card_is_a_located_error(tmp_path):
    content = copy(tmp_path, "growing-discard", ("an S2 costs {{ cards.S2.price }}", "an S2 costs {{ cards.S3.price }}"))
    code, stderr = check(content, "growing-discard")
    assert code == 2, stderr
    assert re.search(r"growing-discard\.yaml:\d+:\d+: rules\.prepare\[2\]: .*S3", stderr), stderr


# --------------------------------------------------------------------------- worked examples are replayed


def test_the_rules_example_prints_the_computed_hands(tmp_path):
    rules = " ".join(sheet_pages(copy(tmp_path, "junkyard-robots"), tmp_path, "junkyard-robots")[:2])  # two pages
    # Leo after turn 1: the rules sheet and the host key agree because both are computed
    assert "Now: Leo: 0 metal, 1 glass, 1 plastic, 1 Worker" in rules, rules
    assert "Now: Mia: 0 metal, 0 glass, 1 plastic, 0 Workers, 1 Garden" in rules, rules


def test_an_impossible_junkyard_example_is_refused_at_its_step(tmp_path):
    # Mia builds her second Worker on turn 3, one glass short
    content = copy(tmp_path, "junkyard-robots", ('''          text: "Turn 3: Metal."''',
                                                 '''          build: Worker
          text: "Turn 3: Metal."'''))
    code, stderr = check(content, "junkyard-robots")
    line, _ = line_of(content, "junkyard-robots", 'text: "Turn 3: Metal."')
    line -= 2  # the step's first key, two lines above its text
    assert code == 2, stderr
    assert re.search(rf"junkyard-robots\.yaml:{line}:11: rules\.example\[0\]\.steps\[2\]: "
                     r"Mia pays 2 glass but holds 1$", stderr, re.MULTILINE), stderr


def test_a_seven_card_hand_is_refused_by_the_hand_of_four(tmp_path):
    content = copy(tmp_path, "growing-discard", ("start: {Your hand: {C1: 3, blank: 1}",
                                                 "start: {Your hand: {C1: 6, blank: 1}"))
    code, stderr = check(content, "growing-discard")
    line, column = line_of(content, "growing-discard", "start: {Your hand")
    assert code == 2, stderr
    assert re.search(rf"growing-discard\.yaml:{line}:{column + 7}: rules\.example\[0\]\.start: "
                     r"Your hand holds 7 \(6 C1, blank\), the game allows at most 4$", stderr, re.MULTILINE), stderr


def test_a_wrong_sum_in_the_growing_discard_example_is_refused(tmp_path):
    content = copy(tmp_path, "growing-discard", ("start: {Your hand: {C1: 3, blank: 1}",
                                                 "start: {Your hand: {C1: 2, blank: 2}"),
                   ("gain: [C1, C1, C1]", "gain: [C1, C1]"))
    code, stderr = check(content, "growing-discard")
    assert code == 2, stderr
    assert re.search(r"growing-discard\.yaml:\d+:11: rules\.example\[0\]\.steps\[1\]: "
                     r"Your coins pays 3 coins but holds 2$", stderr, re.MULTILINE), stderr


def test_a_needle_example_that_is_not_a_set_is_refused(tmp_path):
    content = copy(tmp_path, "needle-in-a-card-stack", ('move: ["5♥", "6♣", "7♠"]', 'move: ["5♥", "6♣", "9♦"]'))
    code, stderr = check(content, "needle-in-a-card-stack")
    line, column = line_of(content, "needle-in-a-card-stack", 'move: ["5♥", "6♣", "9♦"]')
    assert code == 2, stderr
    assert re.search(rf"needle-in-a-card-stack\.yaml:{line}:{column + 6}: rules\.example\[0\]\.steps\[1\]\.move: "
                     r"not a set: 5♥, 6♣, 9♦ are not consecutive$", stderr, re.MULTILINE), stderr


def test_a_needle_example_with_a_card_ana_does_not_hold_is_refused(tmp_path):
    content = copy(tmp_path, "needle-in-a-card-stack", ('move: ["2♣"]', 'move: ["3♣"]'))
    code, stderr = check(content, "needle-in-a-card-stack")
    assert code == 2, stderr
    assert re.search(r"needle-in-a-card-stack\.yaml:\d+:\d+: rules\.example\[0\]\.steps\[3\]: "
                     r"3♣ is not with Ana's hand, so it cannot move to discard pile$", stderr, re.MULTILINE), stderr


def test_the_game_rules_hold_on_the_host_key_walkthroughs_too(tmp_path):
    # the host key's refill walkthrough lays down four cards: not whole sets of three
    content = copy(tmp_path, "needle-in-a-card-stack", ("        - move: {card: 3}\n          to: Ana's sets",
                                                        "        - move: {card: 4}\n          to: Ana's sets"))
    code, stderr = check(content, "needle-in-a-card-stack")
    assert code == 2, stderr
    assert re.search(r"needle-in-a-card-stack\.yaml:\d+:\d+: host_key\.walkthroughs\[0\]\.steps\[1\]\.move: "
                     r"4 cards laid down in Ana's sets, expected whole sets of 3$", stderr, re.MULTILINE), stderr


# --------------------------------------------------------------------------- a typed card number is noted


def test_a_typed_number_that_repeats_a_cards_data_is_a_located_note(tmp_path):
    content = copy(tmp_path, "junkyard-robots", ("Worker {{ cards.Worker.metal }}\n          metal,", "Worker 2\n          metal,"))
    notes = "\n".join(str(note) for note in build("junkyard-robots", BuildOptions(out_dir=tmp_path / "out"), Library.open(content)).quality)
    line, column = line_of(content, "junkyard-robots", "text: \"You may build 1 robot", after="player_aids:")
    assert re.search(rf"junkyard-robots\.yaml:{line}:{column + 6}: player_aids\[0\]\.steps\[3\]\.text: '2' after "
                     r"'Worker' repeats the card's data \(metal: 2\); print it with \{\{ cards\.Worker\.metal \}\}",
                     notes), notes
    assert notes.count("repeats the card's data") == 1, notes  # the library's own texts print no such number

"""Game rules a replay needs, expressed once and held on every worked example and walkthrough of a kit.

Trash's chain (`game.places`): a card goes only on its own place while it is face down, a king on any
face-down place, a number may take a king's place, and a card that fits a face-down place is never
discarded. Needle's draw from the opponent's hand (`game.once_in`): once in three of the player's own
turns. An impossible step is refused at its place in the file, exit 2; the printed state is computed.
"""
from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from kitgen.cli import main

from conftest import CONTENT, file_of, library_copy, library_kit, words_text


def copy_trash(tmp_path: Path, *changes: tuple[str, str]) -> Path:
    """Trash (both editions) in a library of its own, each (old, new) replaced once in activity.yaml."""
    return library_copy(tmp_path, "trash/activity.yaml", *changes)


def copy_needle(tmp_path: Path, *changes: tuple[str, str]) -> Path:
    content = tmp_path / "content"
    content.mkdir()
    path = content / "needle-in-a-card-stack.yaml"
    text = (CONTENT / "needle-in-a-card-stack.yaml").read_text(encoding="utf-8")
    for old, new in changes:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return content


def check(content: Path, activity_id: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", activity_id, "--content", str(content)])
    return result.exit_code, result.stderr


def position(path: Path, needle: str, after: str) -> tuple[int, int]:
    """Line and column (1-based) of the value after `needle` in the first line holding it after `after`."""
    lines = path.read_text(encoding="utf-8").split("\n")
    start = next(n for n, line in enumerate(lines) if after in line)
    for n, line in enumerate(lines[start:], start + 1):
        if needle in line:
            return n, line.index(needle) + len(needle) + 1
    raise AssertionError(needle)


# The rules example's fourth step puts the king on place 9 (face down); on place 7 it lies on the 7♠.
KING_STEP = '''        - place: "K♣"
          at: "9"
          finds: "5♦"
          text: Regele ține locul oricărei cărți, așa că Ana îl pune pe locul 9'''


def test_a_king_put_on_a_face_up_place_in_the_rules_example_is_refused(tmp_path):
    content = copy_trash(tmp_path, (KING_STEP, KING_STEP.replace('at: "9"', 'at: "7"')))
    code, stderr = check(content, "trash")
    line, column = position(content / "trash" / "activity.yaml", 'at: ', 'place: "K♣"')
    assert code == 2, stderr
    assert re.search(rf"trash/activity\.yaml:{line}:{column}: rules\.example\[0\]\.steps\[3\]\.at: K♣ is wild and "
                     r"goes only on a place still face down; locul 7 already shows 7♠ face up", stderr), stderr


def test_a_card_put_on_another_place_than_its_own_is_refused(tmp_path):
    step = '''        - place: "5♦"
          at: "5"
          finds: "Q♠"
          text: Pune 5'''
    content = copy_trash(tmp_path, (step, step.replace('at: "5"', 'at: "4"')))
    code, stderr = check(content, "trash")
    assert code == 2, stderr
    assert "rules.example[0].steps[4].at: 5♦ goes only on locul 5, not on locul 4" in stderr, stderr


def test_a_card_that_fits_a_face_down_place_cannot_be_discarded(tmp_path):
    # In the host key's second walkthrough, 7♦ is discarded because place 7 already shows 7♠; with place 7
    # still face down at the start, the 7♦ must go there.
    content = copy_trash(tmp_path, ('face_up: {"3": "3♥", "5": "5♦", "7": "7♠", "9": "K♣"}',
                                    'face_up: {"3": "3♥", "5": "5♦", "9": "K♣"}'))
    code, stderr = check(content, "trash")
    assert code == 2, stderr
    assert re.search(r"trash/activity\.yaml:\d+:\d+: host_key\.walkthroughs\[1\]\.steps\[3\]\.move: 7♦ fits "
                     r"locul 7, still face down, so it goes there, not to teanc", stderr), stderr


def test_a_queen_has_no_place_on_the_mat(tmp_path):
    step = '''        - place: "5♦"
          at: "5"
          finds: "Q♠"
          text: Pune 5'''
    content = copy_trash(tmp_path, (step, step.replace('place: "5♦"', 'place: "Q♠"').replace('finds: "Q♠"',
                                                                                              'finds: "5♦"')))
    code, stderr = check(content, "trash")
    assert code == 2, stderr
    assert "Q♠ is not with Ana, so it cannot be placed" in stderr or "Q♠ fits no place on the mat" in stderr, stderr


def test_the_number_takes_the_kings_place_and_the_king_moves_on(tmp_path):
    """The host key's second walkthrough is replayed: 9♥ takes the king's place, the king goes to place 2."""
    result = library_kit("trash", language="en")
    text = words_text(file_of(result, "host-key"))
    assert "Now: Ana: K♣ · place 3: 3♥ · place 5: 5♦ · place 7: 7♠ · place 9: 9♥" in text, text
    assert "Now: Ana: 7♦ · place 2: K♣ · place 3: 3♥ · place 5: 5♦ · place 7: 7♠ · place 9: 9♥" in text, text


def test_the_trash_rules_print_the_mat_computed_after_every_step(tmp_path):
    result = library_kit("trash", language="en")
    text = words_text(file_of(result, "sheets"))
    assert "She puts it on place 7. A 3 was lying there. Now: Ana: 3♥ · place 7: 7♠" in text, text
    assert ("her turn ends. Now: Ana: – · place 3: 3♥ · place 5: 5♦ · place 7: 7♠ · place 9: K♣" in text), text


def test_the_romanian_rules_name_the_places_in_romanian(tmp_path):
    result = library_kit("trash", language="ro")
    text = words_text(file_of(result, "sheets"))
    assert "Acum: Ana: 3♥ · locul 7: 7♠" in text, text


# --------------------------------------------------------------------------- Needle: once in three turns


def test_a_draw_from_the_opponent_too_soon_is_refused(tmp_path):
    content = copy_needle(tmp_path, ("          turn: 7\n", "          turn: 6\n"))
    code, stderr = check(content, "needle-in-a-card-stack")
    line, column = position(content / "needle-in-a-card-stack.yaml", "turn: ", "turn: 6")
    assert code == 2, stderr
    assert re.search(rf"needle-in-a-card-stack\.yaml:{line}:{column}: rules\.example\[2\]\.steps\[3\]\.turn: "
                     r"Ben's hand takes from Ana's hand on turn 6, but did on turn 4: once in 3 turns, so turn 7 "
                     r"at the earliest", stderr), stderr


def test_a_draw_from_the_opponent_without_its_turn_is_refused(tmp_path):
    content = copy_needle(tmp_path, ("          turn: 7\n", ""))
    code, stderr = check(content, "needle-in-a-card-stack")
    assert code == 2, stderr
    assert ("rules.example[2].steps[3].move: a move from Ana's hand to Ben's hand is allowed once in 3 turns: "
            "give the step's `turn`") in stderr, stderr


def test_the_needle_rules_print_bens_hand_computed(tmp_path):
    result = library_kit("needle-in-a-card-stack")
    text = words_text(file_of(result, "sheets"))
    assert "the round is over. Now: Ben's hand: 7 cards, 8♦" in text, text

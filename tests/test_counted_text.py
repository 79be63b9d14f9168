"""Counts a player or the adult reads follow the content: deck sizes, card counts, mat places and game rules.

Rules, aids, record sheets, the host key and the notes the print guide prints may write `{{ count.C2 }}`,
`{{ decks.supply }}`, `{{ total }}`, `{{ places['layout-mat'] }}`, `{{ game.at_most.hand }}` and
`{{ scoring.points }}`; a deck made smaller in a copy changes every page that says how big it is, and a
count still typed is a located note.
"""
from __future__ import annotations

from pathlib import Path

from kitgen.app.build import build, BuildOptions
from kitgen.check.content import check_activity
from kitgen.load.library import Library
from kitgen.load.loader import load_activity

from conftest import CONTENT, file_of, library_copy, words_text


def copy(tmp_path: Path, relative: str, *changes: tuple[str, str]) -> Path:
    return library_copy(tmp_path, relative, *changes)


def texts(content: Path, activity_id: str, role: str, tmp_path: Path, language: str | None = None) -> str:
    result = build(activity_id, BuildOptions(out_dir=tmp_path / "out"), Library.open(content), language=language)
    return words_text(file_of(result, role))


def test_a_smaller_supply_pile_changes_the_rules(tmp_path):
    content = copy(tmp_path, "growing-discard.yaml", ('      - id: C2\n        count: 12', '      - id: C2\n        count: 10'))
    rules = texts(content, "growing-discard", "sheets", tmp_path)
    assert "one pile of 10 C2 and one pile of 12 S2" in rules, rules
    assert "one starting deck of 8 cards (6 C1 and 2 blank)" in rules, rules


def test_a_larger_hand_changes_the_rules_and_the_example(tmp_path):
    content = copy(tmp_path, "growing-discard.yaml", ("at_most: {hand: 4}", "at_most: {hand: 5}"))
    rules = texts(content, "growing-discard", "sheets", tmp_path)
    assert "draw 5 cards from your own deck" in rules, rules
    assert "The 5 cards from your hand follow it" in rules, rules


def test_a_smaller_deck_changes_the_rules_and_the_print_guide(tmp_path):
    # Junkyard's events: nine instead of ten (the totals follow, as a deck's size must be declared)
    content = copy(tmp_path, "junkyard-robots.yaml",
                   ("cards: 200\n  decks: {junk: 90, robots: 60, facilities: 40, events: 10}",
                    "cards: 199\n  decks: {junk: 90, robots: 60, facilities: 40, events: 9}"),
                   ('      - id: Flood\n', '      - id: Flood\n'))
    path = content / "junkyard-robots.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index("      - id: Flood\n")
    end = text.index("      - id:", start + 1)
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    rules = texts(content, "junkyard-robots", "sheets", tmp_path)
    assert "Shuffle the 9 event cards" in rules and "After all 9, shuffle them" in rules, rules
    guide = texts(content, "junkyard-robots", "print-guide", tmp_path)
    assert "Write the card names on 199 index cards" in guide, guide


def test_a_mat_with_more_places_changes_both_trash_editions(tmp_path):
    content = copy(tmp_path, "trash/activity.yaml",
                   ('"8", "9", "10"]', '"8", "9", "10", "11", "12"]'), ("columns: 5\n", "columns: 6\n"))
    english = texts(content, "trash", "sheets", tmp_path, "en")
    assert "The mat has 12 places." in english and "deal 12 cards to each player" in english, english
    assert "Cards face up on the mat (of 12)" in english, english
    romanian = texts(content, "trash", "sheets", tmp_path, "ro")
    assert "Planșa are 12 locuri." in romanian, romanian


def test_a_longer_wait_between_draws_from_the_opponent_changes_the_rules_and_the_tracker(tmp_path):
    content = copy(tmp_path, "needle-in-a-card-stack.yaml",
                   ("once_in: [{from: hand, to: hand, turns: 3}]", "once_in: [{from: hand, to: hand, turns: 2}]"))
    rules = texts(content, "needle-in-a-card-stack", "sheets", tmp_path)
    assert "at most once in any 2 of your turns" in rules and "again on turn 6 at the earliest" in rules, rules
    assert "this turn number plus 2" in rules, rules


def test_a_deck_note_in_the_print_guide_is_filled(tmp_path):
    content = copy(tmp_path, "needle-in-a-card-stack.yaml",
                   ("note: Only needed when the class has no deck of playing cards.",
                    "note: Only needed when the class has no deck of {{ decks['standard-deck'] }} playing cards."))
    guide = texts(content, "needle-in-a-card-stack", "print-guide", tmp_path)
    assert "no deck of 52 playing cards" in guide and "{{" not in guide, guide


def typed_counts(path: Path) -> list[str]:
    return [note.what for note in check_activity(load_activity(path)).notes if "repeats" in note.what]


def test_a_typed_count_is_a_located_note(tmp_path):
    content = copy(tmp_path, "growing-discard.yaml", ("one pile of {{ count.C2 }} C2", "one pile of 12 C2"))
    notes = typed_counts(content / "growing-discard.yaml")
    assert any("rules.prepare[1]: '12' before 'C2' repeats how many its deck holds; print it with "
               "{{ count.C2 }}" in note for note in notes), notes


def test_a_typed_number_of_cards_is_a_located_note(tmp_path):
    content = copy(tmp_path, "times-table-pairs/activity.yaml", ("Shuffle all {{ total }} cards", "Shuffle all 40 cards"))
    notes = typed_counts(content / "times-table-pairs" / "activity.yaml")
    assert any("rules.prepare[0]: '40 cards' repeats the number of cards of the kit; print it with {{ total }}"
               in note for note in notes), notes


def test_the_library_types_no_count(tmp_path):
    for path in sorted(CONTENT.glob("*.yaml")) + sorted(CONTENT.glob("*/activity.yaml")):
        assert typed_counts(path) == [], path

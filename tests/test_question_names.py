"""A times-table question's name is made from its numbers: facts.csv holds a and b only, and the deck's
card template fills id and name (`{{ a }} × {{ b }}`) from each row, so "3 × 7" can never sit beside
a = 3, b = 8. A name the row cannot fill is an error at its row."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kitgen.core.errors import ContentError
from kitgen.load.loader import load_activity

from conftest import CONTENT

TIMES = CONTENT / "times-table-pairs"


def copy(tmp_path: Path, facts: str | None = None, old: str = "", new: str = "") -> Path:
    folder = tmp_path / "content" / "times-table-pairs"
    shutil.copytree(TIMES, folder)
    if facts is not None:
        (folder / "facts.csv").write_text(facts, encoding="utf-8")
    if old:
        path = folder / "activity.yaml"
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, old
        path.write_text(text.replace(old, new), encoding="utf-8")
    return folder / "activity.yaml"


def questions(path: Path) -> list[tuple[str, str]]:
    deck = next(d for d in load_activity(path).activity.decks if d.id == "questions")
    return [(card.id, card.title) for card in deck.cards]


def test_the_library_types_no_question_name():
    assert (TIMES / "facts.csv").read_text(encoding="utf-8").splitlines()[0] == "a,b"
    for card_id, title in questions(TIMES / "activity.yaml"):
        a, b = card_id.split("-x-")
        assert title == f"{a}\u00a0×\u00a0{b}"


def test_a_changed_factor_changes_the_name_and_the_id(tmp_path):
    path = copy(tmp_path, "a,b\n3,8\n4,2\n")
    assert questions(path) == [("3-x-8", "3\u00a0×\u00a08"), ("4-x-2", "4\u00a0×\u00a02")]


def test_a_name_the_rows_cannot_fill_is_one_error_at_the_template(tmp_path):
    path = copy(tmp_path, None, 'name: "{{ a }}\\u00a0×\\u00a0{{ b }}"', 'name: "{{ a }}\\u00a0×\\u00a0{{ c }}"')
    with pytest.raises(ContentError) as raised:
        load_activity(path)
    lines = str(raised.value).splitlines()
    assert len(lines) == 1 and lines[0].endswith("activity.yaml:49:45: decks[0].cards.card.name: the name cannot be "
                                                 "filled from the rows: 'c' is undefined on 20 cards"), lines

"""Walkthroughs are replayed: counts per holder, changed step by step, checked against the card data.

The replay is tested as pure functions over the model (an overdrawn payment, a named card taken from a
holder that does not have it, an end that does not add up), through the command line on the kept
impossible Junkyard Garden timeline (located at its step), and in the printed host key, whose running
state is read back from the PDF.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from kitgen.app.build import build, BuildOptions
from kitgen.cli import main
from kitgen.load.library import Library
from kitgen.load import load_activity
from kitgen.load.model import Activity
from kitgen.check.replay import replay, replays

from conftest import CONTENT, file_of, words_text as pdf_text

BROKEN = Path(__file__).resolve().parent / "broken"

ROBOTS = [{"id": "robots", "name": "Robots", "back": {"title": "ROBOT"}, "cards": [
    {"id": "Worker", "count": 4, "data": {"metal": 2, "glass": 2, "plastic": 1}}]},
    {"id": "facilities", "name": "Facilities", "back": {"title": "FACILITY"}, "cards": [
        {"id": "Garden", "count": 2, "data": {"workers": 2, "points": 8}}]}]
COSTS = {"metal": "metal", "glass": "glass", "plastic": "plastic", "workers": "Worker"}


def activity(walkthrough: dict, decks: list | None = None) -> Activity:
    return Activity.model_validate({
        "id": "t", "title": "T", "purpose": "P.", "category": "C", "players": 2, "minutes": 10,
        "rules": {"prepare": "x", "play": "y"}, "decks": ROBOTS if decks is None else decks,
        "host_key": {"walkthroughs": [walkthrough]}})


def run(*args: str):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


# --------------------------------------------------------------------------- the replay itself


def test_a_payment_read_from_the_card_data_that_overdraws_is_a_problem_at_its_step():
    walk = {"title": "W", "start": {"Mia": {"metal": 3, "glass": 2, "plastic": 2}}, "costs": COSTS,
            "steps": [{"text": "a", "build": "Worker"}, {"text": "b", "gain": {"glass": 1}, "build": "Worker"}]}
    result = replay(activity(walk), activity(walk).host_key.walkthroughs[0])
    assert result.problems == [(("steps", 1), "Mia pays 2 metal but holds 1")]
    assert [s.holders for s in result.steps] == [(("Mia", (("metal", 1), ("glass", 0), ("plastic", 1), ("Worker", 1))),)]
    # the cost comes from the card: a cheaper Worker makes the same steps possible
    cheap = [dict(ROBOTS[0], cards=[{"id": "Worker", "count": 4, "data": {"metal": 1, "glass": 1}}]), ROBOTS[1]]
    result = replay(activity(walk, cheap), activity(walk, cheap).host_key.walkthroughs[0])
    assert result.problems == []
    assert result.steps[-1].holders == (("Mia", (("metal", 1), ("glass", 1), ("plastic", 2), ("Worker", 2))),)


def test_a_plain_payment_and_a_facility_paid_in_workers():
    walk = {"title": "W", "start": {"Mia": {"Worker": 1}}, "costs": COSTS, "plurals": {"Worker": "Workers"},
            "steps": [{"text": "a", "build": "Garden"}]}
    result = replay(activity(walk), activity(walk).host_key.walkthroughs[0])
    assert result.problems == [(("steps", 0), "Mia pays 2 Workers but holds 1")]
    walk["start"] = {"Mia": {"Worker": 2, "coins": 1}}
    walk["steps"] = [{"text": "a", "build": "Garden"}, {"text": "b", "pay": {"coins": 2}}]
    result = replay(activity(walk), activity(walk).host_key.walkthroughs[0])
    assert result.steps[0].holders == (("Mia", (("Worker", 0), ("coins", 1), ("Garden", 1))),)
    assert result.problems == [(("steps", 1), "Mia pays 2 coins but holds 1")]


def test_a_named_card_taken_from_a_holder_that_does_not_have_it_is_a_problem():
    deck = [{"id": "cards", "name": "Cards", "back": {"title": "C"}, "cards": [
        {"id": "K♣", "count": 1}, {"id": "5♦", "count": 1}]}]
    walk = {"title": "W", "start": {"place 3": {"K♣": 1}, "place 9": {"5♦": 1}},
            "steps": [{"text": "a", "who": "place 3", "move": ["K♣"], "to": "Ana's hand"},
                      {"text": "b", "who": "place 3", "move": ["K♣"], "to": "place 9"}]}
    result = replay(activity(walk, deck), activity(walk, deck).host_key.walkthroughs[0])
    assert result.problems == [(("steps", 1), "K♣ is not with place 3, so it cannot move to place 9")]
    assert result.steps[0].holders[-1] == ("Ana's hand", (("K♣", 1),))
    walk["steps"][1]["move"] = ["Q♠"]
    result = replay(activity(walk, deck), activity(walk, deck).host_key.walkthroughs[0])
    assert result.problems == [(("steps", 1), "Q♠ is not with place 3, so it cannot move to place 9")]


def test_the_end_is_checked_and_written_as_a_sum():
    walk = {"title": "W", "start": {"hand": {"card": 7}}, "plurals": {"card": "cards"}, "end": {"hand": {"card": 7}},
            "steps": [{"text": "draw", "gain": {"card": 1}},
                      {"text": "set", "move": {"card": 3}, "to": "table"},
                      {"text": "refill", "who": "hand", "gain": {"card": 3}},
                      {"text": "discard", "move": {"card": 1}, "to": "discard pile"}]}
    result = replay(activity(walk, []), activity(walk, []).host_key.walkthroughs[0])
    assert result.problems == []
    assert [result.sum_text(*s) for s in result.sums] == ["hand: 7 + 1 − 3 + 3 − 1 = 7 cards"]
    walk["steps"].pop(2)  # forget the refill
    result = replay(activity(walk, []), activity(walk, []).host_key.walkthroughs[0])
    assert result.problems == [(("end", "hand", "card"), "the steps leave hand with 4 cards, the walkthrough's end says 7")]


def test_every_walkthrough_of_the_library_replays():
    for path in sorted(CONTENT.glob("*.yaml")) + [CONTENT / "trash" / "activity.yaml"]:
        model = load_activity(path).activity
        for result in replays(model):
            assert result is None or result.problems == [], (path.name, result.problems)
    junkyard = load_activity(CONTENT / "junkyard-robots.yaml").activity
    garden = replays(junkyard)[0]
    assert garden.steps[-1].holders[0][1][-2:] == (("Worker", 0), ("Garden", 1))
    assert sum(1 for step in garden.walkthrough.steps if "Worker" in step.build) == 2


# --------------------------------------------------------------------------- the command line and the PDF


def test_the_impossible_garden_timeline_is_rejected_at_its_step(tmp_path):
    case = BROKEN / "impossible-garden.yaml"
    content = tmp_path / "content"
    content.mkdir()
    shutil.copyfile(case, content / case.name)
    lines = case.read_text(encoding="utf-8").split("\n")
    steps = [n for n, line in enumerate(lines, 1) if re.match(r"        - cards: ", line)]
    assert len(steps) == 4
    for command in (("check", "impossible-garden", "--content", str(content)),
                    ("build", "impossible-garden", "--content", str(content), "--out", str(tmp_path / "out"))):
        code, _stdout, stderr = run(*command)
        assert code == 2, stderr
        assert re.search(rf"impossible-garden\.yaml:{steps[2]}:11: host_key\.walkthroughs\[0\]\.steps\[2\]: "
                         r"Mia pays 2 metal but holds 1$", stderr, re.MULTILINE), stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.pdf"))


def build_copy(tmp_path: Path, activity_id: str, change: tuple[str, str] | None = None):
    content = tmp_path / "content"
    content.mkdir()
    path = content / f"{activity_id}.yaml"
    shutil.copyfile(CONTENT / f"{activity_id}.yaml", path)
    if change:
        text = path.read_text(encoding="utf-8")
        assert change[0] in text
        path.write_text(text.replace(change[0], change[1], 1), encoding="utf-8")
    return build(activity_id, BuildOptions(out_dir=tmp_path / "out"), Library.open(content))


def test_the_host_key_prints_the_running_state_computed_after_every_step(tmp_path):
    text = pdf_text(file_of(build_copy(tmp_path, "junkyard-robots"), "host-key"))
    expected = ["At the start: Mia: 2 metal, 2 glass, 2 plastic",
                "Now: Mia: 1 metal, 0 glass, 1 plastic, 1 Worker",
                "Now: Mia: 1 metal, 1 glass, 1 plastic, 1 Worker",
                "Now: Mia: 2 metal, 1 glass, 1 plastic, 1 Worker",
                "Now: Mia: 0 metal, 0 glass, 0 plastic, 2 Workers",
                "Now: Mia: 0 metal, 0 glass, 1 plastic, 0 Workers, 1 Garden",
                "Now: Leo: 1 metal, 0 glass, 1 plastic, 0 Workers, 1 Recycling Center · Leo's recycled pile: 1 glass"]
    at = 0
    for line in expected:
        found = text.find(line, at)
        assert found >= 0, (line, text[at:at + 600])
        at = found + len(line)


def test_the_printed_state_follows_the_card_data(tmp_path):
    """A Worker that costs no plastic leaves Mia her plastic: the printed hands change with the card."""
    result = build_copy(tmp_path, "junkyard-robots", ("data: {metal: 2, glass: 2, plastic: 1}",
                                                      "data: {metal: 2, glass: 2, plastic: 0}"))
    text = pdf_text(file_of(result, "host-key"))
    assert "Now: Mia: 0 metal, 0 glass, 2 plastic, 2 Workers" in text
    assert "Now: Mia: 0 metal, 0 glass, 0 plastic, 2 Workers" not in text


def test_needle_refill_arithmetic_is_printed_as_a_computed_sum(tmp_path):
    text = pdf_text(file_of(build_copy(tmp_path, "needle-in-a-card-stack"), "host-key"))
    assert "Check: Ana's hand: 7 + 1 − 3 + 3 − 1 = 7 cards" in text
    assert "Now: Ana's hand: 8 cards" in text

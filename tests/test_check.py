"""`kitgen check` is the build without the writing: every problem that stops `kitgen build` in the render stage
(pictures, QR codes, fonts, text that cannot fit, host-key leaks) is found by `check`, located, all in one run,
exit status 2, and nothing is written. Each case runs the command line on a small broken activity."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from kitgen.cli import main

SECRET = "The blue card always wins a tie at the end of the round."
LONG_TEXT = " ".join(["word"] * 400)
LONG_URL = "https://example.org/" + "a-long-path/" * 30


def activity(cards: str, card_size: str = "poker", rules_play: str = "Take turns.") -> str:
    """A small activity with the given card lines (already YAML flow mappings, one a line)."""
    lines = "\n".join(f"      - {card}" for card in cards.strip().splitlines())
    return textwrap.dedent("""\
        id: words
        title: Words
        purpose: A tiny activity.
        category: Test
        players: 2
        minutes: 10
        card_size: {card_size}
        rules:
          prepare: Shuffle the cards.
          play: "{play}"
        decks:
          - id: main
            name: Main
            back: {{title: Main, symbol: "★"}}
            cards:
        """).format(card_size=card_size, play=rules_play) + lines + "\n" + textwrap.dedent(f"""\
        host_key:
          sections:
            - title: Ties
              items:
                - {SECRET}
        """)


def library(tmp_path: Path, text: str) -> Path:
    content = tmp_path / "content"
    content.mkdir(exist_ok=True)
    (content / "words.yaml").write_text(text, encoding="utf-8")
    return content


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the content that holds `needle`."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def run_check(tmp_path: Path, text: str) -> str:
    """`kitgen check words` on the library holding `text`: exit status 2, no traceback, nothing written; the
    message on stderr."""
    content = library(tmp_path, text)
    before = sorted(p for p in tmp_path.rglob("*"))
    result = CliRunner().invoke(main, ["check", "words", "--content", str(content)])
    message = result.stderr
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output and "words: ok" not in result.output
    assert sorted(p for p in tmp_path.rglob("*")) == before, "check writes nothing"
    return message


def assert_located(message: str, line: int, pattern: str) -> None:
    assert re.search(rf"words\.yaml:{line}:\d+: {pattern}", message), message


def test_a_good_activity_checks_ok(tmp_path: Path):
    content = library(tmp_path, activity("{id: A, count: 2, name: Ace, text: A plain card.}"))
    result = CliRunner().invoke(main, ["check", "words", "--content", str(content)])
    assert result.exit_code == 0, result.output
    assert "words: ok" in result.output


def test_check_finds_an_unknown_picture_name(tmp_path: Path):
    text = activity("{id: A, count: 1, name: Ace, picture: hedgehgo}")
    message = run_check(tmp_path, text)
    assert_located(message, line_of(text, "hedgehgo"), r"decks\[0\]\.cards\[0\]\.picture: no picture named 'hedgehgo'")


def test_check_finds_a_missing_image_file(tmp_path: Path):
    text = activity("{id: A, count: 1, name: Ace, image: missing.png}")
    message = run_check(tmp_path, text)
    assert_located(message, line_of(text, "missing.png"), r"decks\[0\]\.cards\[0\]\.image: no picture 'missing\.png'")


def test_check_finds_a_corrupt_image_file(tmp_path: Path):
    text = activity("{id: A, count: 1, name: Ace, image: garbage.png}")
    (library(tmp_path, text) / "garbage.png").write_bytes(b"not a picture at all")
    message = run_check(tmp_path, text)
    assert_located(message, line_of(text, "garbage.png"),
                   r"decks\[0\]\.cards\[0\]\.image: 'garbage\.png' is not a picture: it is text")


def test_check_finds_a_qr_code_too_dense_for_its_place(tmp_path: Path):
    text = activity(f"{{id: A, count: 1, name: Fox, qr: '{LONG_URL}', caption: A, text: Read the long text, "
                    "footer: F}", card_size="mini")
    message = run_check(tmp_path, text)
    assert_located(message, line_of(text, "id: A"), r"decks\[0\]\.cards\[0\] \(card 'A'\), qr: the QR code of .* "
                                                    r"needs \d+ modules of at least 0\.5 mm")


def test_check_finds_a_character_no_font_has(tmp_path: Path):
    text = activity('{id: A, count: 1, name: Ace, caption: "Bird 𓅓"}')
    message = run_check(tmp_path, text)
    assert_located(message, line_of(text, "id: A"), r"decks\[0\]\.cards\[0\] \(card 'A'\), caption: the bundled font "
                                                    r"cannot draw '𓅓' \(U\+13153\)")


def test_check_finds_text_that_cannot_fit_on_its_card(tmp_path: Path):
    text = activity(f"{{id: A, count: 1, name: Ace, text: {LONG_TEXT}}}")
    message = run_check(tmp_path, text)
    assert_located(message, line_of(text, "id: A"), r"decks\[0\]\.cards\[0\] \(card 'A'\), text: the text does not "
                                                    r"fit on the card even at [\d.]+ pt")


def test_check_finds_host_key_text_printed_in_a_player_file(tmp_path: Path):
    text = activity("{id: A, count: 1, name: Ace}", rules_play=SECRET)
    message = run_check(tmp_path, text)
    assert_located(message, line_of(text, f"- {SECRET}"), r"host_key\.sections\[0\]\.items\[0\]: host-key text "
                                                          r"would be printed in the players' file words-sheets\.pdf")


def test_one_check_reports_every_render_stage_problem_at_once(tmp_path: Path):
    text = activity(f"""\
        {{id: A, count: 1, name: Ace, image: missing.png}}
        {{id: B, count: 1, name: Bee, text: {LONG_TEXT}}}
        {{id: C, count: 1, name: Sea, text: {LONG_TEXT}}}
        {{id: D, count: 1, name: Dee, caption: "Bird 𓅓"}}
        {{id: E, count: 1, name: Eel, qr: '{LONG_URL}', caption: A, text: Read the long text, footer: F}}
        """, card_size="mini", rules_play=SECRET)
    message = run_check(tmp_path, text)
    assert_located(message, line_of(text, "missing.png"), r"decks\[0\]\.cards\[0\]\.image: no picture")
    assert_located(message, line_of(text, "id: B"), r"decks\[0\]\.cards\[1\] \(card 'B'\), text: the text does not fit")
    assert_located(message, line_of(text, "id: C"), r"decks\[0\]\.cards\[2\] \(card 'C'\), text: the text does not fit")
    assert_located(message, line_of(text, "id: D"), r"decks\[0\]\.cards\[3\] \(card 'D'\), caption: the bundled font")
    assert_located(message, line_of(text, "id: E"), r"decks\[0\]\.cards\[4\] \(card 'E'\), qr: the QR code")
    assert_located(message, line_of(text, f"- {SECRET}"), r"host_key\.sections\[0\]\.items\[0\]: host-key text")
    assert len([line for line in message.splitlines() if re.match(r".*words\.yaml:\d+:\d+: ", line)]) == 6, message


def test_check_of_every_edition_reports_the_problems_of_each(tmp_path: Path):
    text = activity("{id: A, count: 1, name: Ace, image: missing.png}")
    content = library(tmp_path, text)
    (content / "words.de.yaml").write_text(f"title: Wörter\ndecks:\n  - cards:\n      - {{text: {LONG_TEXT}}}\n",
                                           encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "words", "--content", str(content)])
    assert result.exit_code == 2, result.output
    message = result.stderr
    assert_located(message, line_of(text, "missing.png"), r"decks\[0\]\.cards\[0\]\.image: no picture")
    assert message.count("no picture 'missing.png'") == 1, "a problem both editions share is listed once"
    assert re.search(r"words\.de\.yaml:4:\d+: decks\[0\]\.cards\[0\] \(card 'A'\), text: the text does not fit",
                     message), message


@pytest.mark.parametrize("broken", ["text-too-long", "unicorn-glyph"])
def test_check_reports_what_the_broken_corpus_expects(tmp_path: Path, broken: str):
    source = Path(__file__).parent / "broken" / f"{broken}.yaml"
    text = source.read_text(encoding="utf-8")
    content = tmp_path / "content"
    content.mkdir()
    (content / f"{broken}.yaml").write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", broken, "--content", str(content)])
    assert result.exit_code == 2, result.output
    for expected in re.findall(r"^# (?:expect|also): (.+)$", text, re.M):
        assert f"{broken}.yaml:{expected}" in result.stderr, result.stderr


def test_a_mat_that_cannot_print_its_text_is_reported_with_the_cards_that_cannot(tmp_path: Path):
    text = activity(f"{{id: A, count: 1, name: Ace, text: {LONG_TEXT}}}") + textwrap.dedent(f"""\
        boards:
          - id: mat
            title: Play mat
            positions: {{columns: 2, rows: 1, width: 70mm, height: 95mm, labels: [Draw pile, {"W" * 190}]}}
        """)
    message = run_check(tmp_path, text)
    assert_located(message, line_of(text, "id: A"), r"decks\[0\]\.cards\[0\] \(card 'A'\), text: the text does not fit")
    assert_located(message, line_of(text, "id: mat"), r"boards\[0\] \(mat 'mat'\): the text .* does not fit on the mat")


def test_a_content_problem_and_a_bad_picture_are_reported_together(tmp_path: Path):
    text = activity("{id: A, count: 1, name: Ace, image: missing.png}").replace(
        "card_size: poker", "card_size: poker\ntotals: {cards: 3}")
    message = run_check(tmp_path, text)
    assert_located(message, line_of(text, "totals:"),
                   r"totals\.cards: the content declares 3 cards but the decks hold 1")
    assert_located(message, line_of(text, "missing.png"), r"decks\[0\]\.cards\[0\]\.image: no picture 'missing\.png'")

"""Keycap emoji (3️⃣, #️⃣) are drawn whole, as the picture set draws them, and a digit not made a keycap stays
text. The set names its drawings with four hex digits a code point (`0033-FE0F-20E3`, `00A9`)."""
from __future__ import annotations

import pytest

from kitgen.pictures.emoji import emoji_available, emoji_runs, named_picture

pytestmark = pytest.mark.skipif(not emoji_available(), reason="the OpenMoji picture set is not installed")

KEYCAP = "\u20e3"


@pytest.mark.parametrize("text, expected", [
    ("Roll a 3\ufe0f\u20e3 to start", [(7, 10, "0033-FE0F-20E3")]),
    ("#\u20e3", [(0, 2, "0023-FE0F-20E3")]),  # written without VS16
    ("*\ufe0f\u20e3 and 5\ufe0f\u20e3", [(0, 3, "002A-FE0F-20E3"), (8, 11, "0035-FE0F-20E3")]),
])
def test_a_keycap_is_one_picture(text, expected):
    assert emoji_runs(text, {KEYCAP}) == expected


def test_digits_that_are_no_keycap_stay_text():
    assert emoji_runs("score 33 points, # 4", {KEYCAP}) == []


def test_a_keycap_and_a_symbol_of_two_hex_digits_are_pictures_by_themselves():
    assert named_picture("3\ufe0f\u20e3") == named_picture("3\u20e3")
    assert emoji_runs("\u00a9", {"\u00a9"}) == [(0, 1, "00A9")]

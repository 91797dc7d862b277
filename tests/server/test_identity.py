"""Names and chat text: what shows, stays in its place, and nothing else."""

from __future__ import annotations

import pytest

from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.services.identity import check_name, check_text

#: Emoji sequences with an invisible selector, joiner or tags: chat keeps them, names do not.
EMOJI_SEQUENCES = [
    "👩\u200d💻",  # ZWJ inside an emoji sequence
    "🏳️\u200d🌈 Kai",  # ZWJ after a variation selector
    "👩🏽\u200d🔬",  # ZWJ after a skin tone
    "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",  # England's flag (tags)
    "1️⃣",  # keycap: a variation selector and an enclosing mark
    "❤️",  # U+2764 U+FE0F, as phones type it
]

GOOD_NAMES = [
    "はなこ",
    "Ann",
    "<b>x</b>",  # kept as typed; clients render names as text
    "José",
    "Ðặng Thị",  # Vietnamese: precomposed letters
    "e\u0301\u0323",  # two combining marks on one letter
    "💻 Ann",  # an emoji that needs no invisible selector or joiner
    "👍🏽",  # a skin tone is a visible modifier
    "🇯🇵",  # a flag of two regional indicators
    "สมชาย",  # Thai
    "علي",  # right-to-left text itself is fine
    "ア ン",
]

BAD_NAMES = [
    "",
    "   ",
    "\u200b",  # only a zero-width space
    "\ufeff",  # only a byte-order mark
    "\u3164",  # Hangul filler: a letter that draws nothing
    "\u2800\u2800",  # braille blanks
    "Ann\u202e",  # right-to-left override
    "\u202egnp.exe",
    "A\u2066B",  # bidi isolate
    "An\u2028n",  # line separator
    "An\u2029n",  # paragraph separator
    "A\u200bnn",  # zero-width space inside
    "A\u00adnn",  # soft hyphen
    "Ann\u200d",  # a joiner that joins no emoji
    "\U000e0067Ann",  # a tag outside a flag
    # Names allow nothing invisible, not even inside an emoji (chat keeps these whole).
    *EMOJI_SEQUENCES,
    "Z\u0336\u0337\u0338\u0339",  # four combining marks on one letter
    "Z" + "\u0300" * 30,
    "\u0301",  # a mark alone
    "x" * 25,
    "A\nB",
    5,
    None,
]


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_names_that_show_are_kept_as_typed(name: str) -> None:
    assert check_name(f"  {name} ") == name


@pytest.mark.parametrize("name", BAD_NAMES, ids=repr)
def test_invisible_or_direction_changing_names_are_refused(name: object) -> None:
    with pytest.raises(ProtocolError) as refused:
        check_name(name)
    assert refused.value.code == "bad_name"


@pytest.mark.parametrize(
    "text", ["gg", "<i>gg</i>", "行こう\n次", "tab\there", "علي", *EMOJI_SEQUENCES]
)
def test_chat_keeps_what_is_sent(text: str) -> None:
    assert check_text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "",
        " \n ",
        "\u200b",
        "\ufeff",
        "gg \u202eevil",
        "a\u2067b",
        "a\u2028b",
        "Z" + "\u0300" * 9,
        "a\u200bb",  # a zero-width space between letters
        "gg\ufe0f",  # a selector after no emoji
    ],
    ids=repr,
)
def test_chat_that_hides_or_turns_text_around_is_refused(text: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        check_text(text)
    assert refused.value.code == "bad_text"

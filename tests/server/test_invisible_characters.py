"""Nothing invisible in what people type for others: one rule, by Unicode property.

Every character with ``Default_Ignorable_Code_Point`` or ``Bidi_Control`` (found here by
scanning all of Unicode with the ``regex`` package) is refused inside a player name, an
account name, chat and an Illustori word; a property test over all of Unicode checks that
nothing accepted holds one (chat and words: outside a well-formed emoji sequence).  The
audit's examples are refused through the server, and "Hana" cannot be had twice by adding
an invisible character.  Japanese names and emoji stay welcome: in chat an emoji keeps its
presentation selector and joiners; a name takes the emoji without them.
"""

from __future__ import annotations

import random

import httpx
import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from bodoge.core.errors import GameError
from bodoge.core.text import EMOJI_SEQUENCE
from bodoge.games.illustori.rules import _check_text as check_word
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.services.accounts import AccountError, account_key
from bodoge.server.services.identity import check_name, check_text
from tests.support.client import Client
from tests.support.live_server import LiveServer

PROPERTY = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]")
#: Every invisible code point of Unicode (as the regex package knows it), surrogates aside.
INVISIBLE = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000 and PROPERTY.match(chr(c))]
AUDIT = ["\u034f", "\ufe0f", "\u115f", "\u17b4", "\u180b"]


def refused(check, *args) -> bool:
    try:
        check(*args)
    except (ProtocolError, AccountError, GameError):
        return True
    return False


def test_the_property_finds_the_audits_characters_and_the_known_ones() -> None:
    assert len(INVISIBLE) > 4000  # tags, variation selectors, unassigned ignorables…
    known = {"\u200b", "\u200d", "\u2060", "\ufeff", "\u202e", "\u2066", "\u061c", "\u3164"}
    assert set(AUDIT) | known <= set(INVISIBLE)


def test_every_invisible_character_is_refused_everywhere() -> None:
    for char in INVISIBLE:
        name = f"Ha{char}na"
        assert refused(check_name, name), f"name U+{ord(char):04X}"
        assert refused(account_key, name), f"account name U+{ord(char):04X}"
        assert refused(check_text, f"gg {char}gg"), f"chat U+{ord(char):04X}"
        assert refused(check_word, f"つき{char}よ"), f"word U+{ord(char):04X}"


ANY_TEXT = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=24)


@given(ANY_TEXT)
def test_no_name_accepted_holds_an_invisible_character(text: str) -> None:
    for check in (check_name, account_key):
        if not refused(check, text):
            assert PROPERTY.search(text) is None, text


@given(st.lists(st.one_of(ANY_TEXT, st.sampled_from(INVISIBLE)), min_size=1, max_size=6))
def test_no_chat_line_or_word_accepted_holds_one_outside_an_emoji(parts: list[str]) -> None:
    text = "".join(parts)
    for check in (check_text, check_word):
        if not refused(check, text):
            assert PROPERTY.search(EMOJI_SEQUENCE.sub("", text)) is None, text


def test_what_people_really_type_stays_welcome() -> None:
    for name in ("はなこ", "山田 太郎", "Zoë", "José", "💻 Ann", "❤ Hana", "Ｈａｎａ"):
        assert check_name(name) == name
    for line in (
        "❤️ gg",  # U+2764 U+FE0F, as phones send it
        "👩\u200d💻 coding",
        "👍🏽 ok",
        "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f!",
        "1️⃣ first",
        "🇯🇵 やった",
    ):
        assert check_text(line) == line
    for name in ("❤️ Hana", "👩\u200d💻 Ann"):  # a name takes neither selector nor joiner
        assert refused(check_name, name)
    assert refused(check_text, "Hana\ufe0f")  # a selector after a letter is no emoji


@pytest.mark.parametrize("char", AUDIT)
async def test_the_audits_names_are_refused_at_hello(live_server: LiveServer, char: str) -> None:
    client = await Client.connect(live_server.ws_url, name=None)
    for name in (f"a{char}b", f"Hana{char}"):
        reply = await client.request("hello", name=name)
        assert reply["type"] == "error" and reply["code"] == "bad_name", (name, reply)
    await client.close()


async def test_an_account_cannot_look_like_another(live_server: LiveServer) -> None:
    base = f"Hana{random.randrange(10**6)}"
    owner = await Client.connect(live_server.ws_url, "Hana")
    other = await Client.connect(live_server.ws_url, "Guest")
    async with httpx.AsyncClient(base_url=live_server.url, timeout=30) as http:

        async def keep(client: Client, name: str) -> httpx.Response:
            body = {"name": name, "password": "correct horse battery"}
            headers = {"Authorization": f"Bearer {client.token}"}
            return await http.post("/api/account", json=body, headers=headers)

        assert (await keep(owner, base)).status_code == 201
        for lookalike in (base[:2] + "\u034f" + base[2:], base + "\ufe0f", base + "\u180b"):
            response = await keep(other, lookalike)
            assert response.status_code == 400, lookalike
            assert response.json()["error"]["code"] == "bad_account_name"
    await owner.close()
    await other.close()

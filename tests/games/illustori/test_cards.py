"""Illustori's picture cards: reproducible from the deck seed, varied, named in two languages."""

from __future__ import annotations

import re
import unicodedata

import emoji
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bodoge.games.illustori import cards as cards_module
from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori.art import card_svg
from bodoge.games.illustori.cards import (
    ATTRIBUTION,
    DEFAULT_DECK_SIZE,
    Card,
    card,
    count_possible_cards,
    deck,
)

KATAKANA = re.compile(r"[ァ-ヴー]+")
MAX_SEED = 2**53 - 1


def cast_of(c: Card) -> tuple[tuple[str, str], ...]:
    return tuple((p.role, p.emoji) for p in c.reading_order())


def test_same_seed_and_number_give_the_same_card_and_svg_bytes() -> None:
    first = card_svg(card(12345, 17)).encode()
    card.cache_clear()  # a fresh computation, not the cached card
    assert card_svg(card(12345, 17)).encode() == first


def test_a_deck_is_its_cards_numbered_from_zero() -> None:
    cards = deck(99, 5)
    assert [c.number for c in cards] == [0, 1, 2, 3, 4]
    assert all(c.deck_seed == 99 for c in cards)
    assert cards == [card(99, n) for n in range(5)]
    assert len(deck(99)) == DEFAULT_DECK_SIZE == 60


def test_different_seeds_give_different_decks() -> None:
    one = [cast_of(c) for c in deck(1, 60)]
    two = [cast_of(c) for c in deck(2, 60)]
    assert one != two
    # Not just shuffled: most cards of one deck are nowhere in the other.
    assert len(set(one) - set(two)) >= 55


def test_a_deck_of_sixty_shows_sixty_different_subjects_and_casts() -> None:
    cards = deck(2024, 60)
    assert len({c.subject.emoji for c in cards}) == 60
    assert len({cast_of(c) for c in cards}) == 60


def test_more_than_five_thousand_different_cards_are_possible() -> None:
    assert count_possible_cards() >= 5_000
    # And they really come up: 3,000 cards drawn from several decks barely repeat.
    seen = {cast_of(card(seed, n)) for seed in range(25) for n in range(120)}
    assert len(seen) >= 2_900


def test_count_is_exact_for_a_small_template_set() -> None:
    # Subject + wearable only: per subject, the wearables it may wear.
    expected = sum(len(cards_module._eligible("wearable", s, {})) for s in cat.SUBJECTS)
    assert count_possible_cards(((("wearable",), 1),)) == expected
    assert expected == sum(
        1
        for s in cat.SUBJECTS
        for w in cat.WEARABLES
        if not (w.faceless_only and s.face) and not (w.slot == "eyes" and s.face and s.eyes is None)
    )


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(-(2**63), 2**63), number=st.integers(0, 10_000))
def test_every_card_has_two_to_four_named_parts(seed: int, number: int) -> None:
    c = card(seed, number)
    assert 2 <= len(c.parts) <= 4
    roles = [p.role for p in c.parts]
    assert roles.count("subject") == 1
    assert len(set(roles)) == len(roles)
    assert len({p.emoji for p in c.parts}) == len(c.parts)
    for p in c.parts:
        assert p.name_en and p.name_ja
        assert KATAKANA.fullmatch(p.reading_ja), (p.emoji, p.reading_ja)
        assert p.codepoints == tuple(ord(ch) for ch in p.emoji)
        assert 0 < p.place.size < 400
    assert c.alt("en") and c.alt("ja")


def test_parts_are_drawn_back_to_front() -> None:
    for c in deck(5, 200):
        roles = [p.role for p in c.parts]
        if "scenery" in roles:
            assert roles[0] == "scenery"
        seat = c.part("seat")
        if seat is not None:
            mode = cat.seat(seat.emoji).mode
            # What the subject is in is drawn over it; what it rides, under it.
            assert (roles.index("seat") > roles.index("subject")) == (mode == "in")
        if "wearable" in roles:
            assert roles.index("wearable") > roles.index("subject")


def test_alt_text_reads_in_both_languages() -> None:
    example = cards_module._example()
    assert example.alt("en") == "A spouting whale wearing a crown, in a teacup"
    assert example.alt("ja") == "王冠をかぶって湯飲みに入った潮吹きクジラ"
    assert example.alt("en", short=True) == "spouting whale, crown, teacup"
    assert example.alt("ja", short=True) == "潮吹きクジラ・王冠・湯飲み"
    with pytest.raises(ValueError, match="fr"):
        example.alt("fr")
    for c in deck(3, 60):
        assert c.alt("ja").endswith(c.subject.name_ja) or "、背景に" in c.alt("ja")
        assert c.alt("en")[0].isupper()
        assert c.subject.name_en.lower() in c.alt("en").lower()


def test_to_json_lists_the_parts_subject_first() -> None:
    data = card(8, 3).to_json()
    assert data["number"] == 3 and data["deck_seed"] == 8
    assert data["parts"][0]["role"] == "subject"
    assert {"emoji", "codepoints", "name_en", "name_ja", "reading_ja"} <= set(data["parts"][0])
    assert data["alt_ja"] == card(8, 3).alt("ja")


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, None])
def test_a_card_number_is_a_whole_number_from_zero(bad: object) -> None:
    with pytest.raises(ValueError):
        card(1, bad)  # type: ignore[arg-type]


def test_a_deck_seed_is_a_whole_number() -> None:
    with pytest.raises(ValueError):
        card(1.5, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        deck(1, -3)


# --- the emoji catalogue -----------------------------------------------------


def test_catalogue_emoji_exist_in_openmoji_and_have_japanese_names() -> None:
    emoji.config.load_language("ja")
    for char in cat.all_chars():
        assert cat.openmoji_svg_path(char).is_file(), char
        assert char in emoji.EMOJI_DATA, char
        assert "ja" in emoji.EMOJI_DATA[char], char


def test_catalogue_has_no_flags_keycaps_symbols_or_skin_tones() -> None:
    for char in cat.all_chars():
        for ch in char:
            assert not 0x1F1E6 <= ord(ch) <= 0x1F1FF, f"flag in {char}"
            assert not 0x1F3FB <= ord(ch) <= 0x1F3FF, f"skin tone in {char}"
            assert ch != "\u20e3", f"keycap {char}"
        # A picture, not a letter, digit, punctuation or space (emoji newer
        # than this Python's Unicode tables show as unassigned, Cn).
        assert unicodedata.category(char[0]) in ("So", "Cn"), char


def test_roles_do_not_share_emoji_that_the_count_treats_as_independent() -> None:
    wearables = {w.char for w in cat.WEARABLES}
    held = {h.char for h in cat.HELD}
    scenery = {s.char for s in cat.SCENERY}
    assert not wearables & held
    assert not wearables & scenery
    assert not held & scenery


def test_catalogue_sizes_leave_room_for_sixty_different_subjects() -> None:
    assert len(cat.SUBJECTS) >= 100
    assert len({s.char for s in cat.SUBJECTS}) == len(cat.SUBJECTS)
    assert len(cat.WEARABLES) >= 10 and len(cat.HELD) >= 20
    assert len(cat.SEATS) >= 30 and len(cat.SCENERY) >= 20


@pytest.mark.parametrize(
    ("char", "reading"),
    [
        ("👑", "オウカン"),
        ("🐳", "シオフキクジラ"),
        ("🦃", "シチメンチョウ"),
        ("🌙", "ミカヅキ"),
        ("⏰", "メザマシトケイ"),
        ("🍙", "オニギリ"),
        ("🧛", "キュウケツキ"),
        ("🚲", "ジテンシャ"),
    ],
)
def test_japanese_readings(char: str, reading: str) -> None:
    assert cat.reading_ja(char) == reading


def test_readings_of_kanji_come_from_unidic() -> None:
    assert cat.reading_of("雪だるま") == "ユキダルマ"
    assert cat.reading_of("宝石") == "ホウセキ"
    assert cat.reading_of("カメ") == "カメ"


def test_every_catalogue_name_has_a_katakana_reading() -> None:
    for char in cat.all_chars():
        assert KATAKANA.fullmatch(cat.reading_ja(char)), (char, cat.name_ja(char))
        assert cat.name_en(char) and ":" not in cat.name_en(char) and "_" not in cat.name_en(char)


def test_attribution_names_openmoji_and_its_licence() -> None:
    assert ATTRIBUTION == (
        "All emojis designed by OpenMoji – the open-source emoji and icon project. "
        "License: CC BY-SA 4.0"
    )

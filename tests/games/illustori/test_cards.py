"""Illustori's cards: reproducible from the deck seed, varied, readable, in two languages."""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter

import emoji
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bodoge.games.illustori import backdrops, scenes
from bodoge.games.illustori import cards as cards_module
from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori.art import card_svg
from bodoge.games.illustori.cards import (
    ATTRIBUTION,
    DEFAULT_DECK_SIZE,
    KINDS,
    LAP,
    MAX_PROP_CARDS,
    Card,
    card,
    count_possible_cards,
    deck,
)
from bodoge.games.illustori.composition import LIMITS, Placement, Plan, legibility

KATAKANA = re.compile(r"[ァ-ヴー]+")
MAX_SEED = 2**53 - 1


def cast_of(c: Card) -> tuple[object, ...]:
    """What a card shows, layout aside: its kind, theme and emoji in their roles."""
    return (c.kind, c.theme, *((p.role, p.emoji) for p in c.things()))


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


def test_more_than_fifty_thousand_different_cards_are_possible() -> None:
    assert count_possible_cards() >= 50_000
    # And they really come up: of 3,000 cards drawn from 25 decks, four in five
    # are different (big faces and shapes, with fewer emoji to draw on, repeat most).
    seen = {cast_of(card(seed, n)) for seed in range(25) for n in range(120)}
    assert len(seen) >= 2_400


# -- many kinds of scene, varied across a deck ---------------------------------------------

SEEDS = range(60)  # 60 decks of 60 cards


def props_of(c: Card) -> set[str]:
    """The emoji on a card beside its main figure (and more of it)."""
    return {p.emoji for p in c.parts if p.role not in ("subject", "member")}


@pytest.mark.parametrize("seed", SEEDS)
def test_a_sixty_card_deck_is_varied(seed: int) -> None:
    cards = deck(seed, 60)
    kinds = Counter(c.kind for c in cards)
    # Every kind of scene, none on more than 20% of the cards.
    assert set(kinds) == set(KINDS) and len(KINDS) >= 10
    assert max(kinds.values()) <= 0.2 * 60
    # No emoji twice as the main figure.
    assert len({c.subject.emoji for c in cards}) == 60
    # No accessory, prop, sign or partner on more than three cards.
    props = Counter(char for c in cards for char in props_of(c))
    assert max(props.values()) <= MAX_PROP_CARDS == 3, props.most_common(3)
    # The themes vary too: no setting, feeling or sign twice while another waits.
    themes = Counter((c.kind, c.theme) for c in cards)
    for kind in KINDS:
        counts = [themes[t.kind, t.key] for t in scenes.themes(kind)]
        assert max(counts) - min(counts) <= 1, (kind, counts)


def test_a_lap_is_the_default_deck() -> None:
    assert LAP == DEFAULT_DECK_SIZE == sum(scenes.KIND_SLOTS.values())
    assert max(scenes.KIND_SLOTS.values()) <= 0.2 * LAP


@pytest.mark.parametrize("seed", SEEDS)
def test_every_card_is_readable_at_hand_size(seed: int) -> None:
    for c in deck(seed, 60):
        measured = legibility([(p.emoji, p.role, p.place) for p in c.parts])
        assert measured.ok, (c.number, c.kind, c.names("en"), measured)
        assert measured.subject >= LIMITS["subject"] == 0.5
        assert measured.smallest >= LIMITS["smallest"] == 0.2
        assert measured.hidden <= LIMITS["hidden"] == 0.5
        assert measured.inside >= LIMITS["inside"]


def test_legibility_catches_what_the_issue_saw() -> None:
    # A hippo a third of the card on a sled; a flower too small to tell; a
    # balloon over an alarm clock; a whale half off the card.
    small = legibility([("🛷", "seat", Placement(120, 150, 220)),
                        ("🦛", "subject", Placement(120, 90, 80))])  # fmt: skip
    assert not small.ok and small.subject < LIMITS["subject"]
    tiny = legibility([("🐘", "subject", Placement(120, 120, 200)),
                       ("🌸", "wearable", Placement(60, 60, 30))])  # fmt: skip
    assert not tiny.ok and tiny.smallest < LIMITS["smallest"]
    hidden = legibility([("⏰", "subject", Placement(120, 120, 200)),
                         ("🎈", "held", Placement(120, 120, 190))])  # fmt: skip
    assert not hidden.ok and hidden.hidden > LIMITS["hidden"]
    cut = legibility([("🐳", "subject", Placement(230, 120, 200))])
    assert not cut.ok and cut.inside < LIMITS["inside"]
    # Goggles would hide a thing's face altogether: things never get them.
    assert "🥽" not in cards_module._eligible("wearable", cat.subject("⏰"), {})


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_reads_in_both_languages(kind: str) -> None:
    found = [c for seed in range(8) for c in deck(seed, 60) if c.kind == kind]
    assert found
    for c in found:
        assert c.alt("en")[0].isupper() and c.alt("ja")
        assert c.subject.name_ja in c.alt("ja")
        assert c.scene.kind == kind


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(-(2**63), 2**63), number=st.integers(0, 10_000))
def test_every_card_has_named_parts_around_one_subject(seed: int, number: int) -> None:
    c = card(seed, number)
    assert 1 <= len(c.parts) <= 10
    roles = [p.role for p in c.parts]
    assert roles.count("subject") == 1
    # Only more of the subject repeats: every other emoji is there once.
    others = [p.emoji for p in c.parts if p.role not in ("subject", "member")]
    assert len(set(others)) == len(others)
    assert all(p.emoji == c.subject.emoji for p in c.parts if p.role == "member")
    for p in c.parts:
        assert p.name_en and p.name_ja
        assert KATAKANA.fullmatch(p.reading_ja), (p.emoji, p.reading_ja)
        assert p.codepoints == tuple(ord(ch) for ch in p.emoji)
        assert 0 < p.place.size < 400
    assert c.alt("en") and c.alt("ja")


def test_parts_are_drawn_back_to_front() -> None:
    for c in deck(5, 200):
        roles = [p.role for p in c.parts]
        seat = c.part("seat")
        if seat is not None:
            mode = cat.seat(seat.emoji).mode
            # What the subject is in is drawn over it; what it rides, under it.
            assert (roles.index("seat") > roles.index("subject")) == (mode == "in")
        if "wearable" in roles:
            assert roles.index("wearable") > roles.index("subject")


def test_alt_text_reads_in_both_languages() -> None:
    example = cards_module._example()
    assert example.alt("en") == "A spouting whale wearing a crown"
    assert example.alt("ja") == "王冠をかぶった潮吹きクジラ"
    assert example.alt("en", short=True) == "spouting whale, crown"
    assert example.alt("ja", short=True) == "潮吹きクジラ・王冠"
    with pytest.raises(ValueError, match="fr"):
        example.alt("fr")
    parade = cards_module.from_plan(Plan("crowd", "parade", "🐧"), random.Random(1))
    assert parade.alt("en") == "A parade of penguins" and parade.alt("ja") == "ペンギンの行列"
    assert parade.names("en") == ("penguin",)
    sizes = cards_module.from_plan(Plan("sizes", "sizes", "🍓", other="🐘"), random.Random(1))
    assert sizes.alt("en") == "A giant strawberry and a tiny elephant"
    assert sizes.alt("ja") == "巨大ないちごと小さなゾウ"


def test_to_json_lists_the_parts_subject_first() -> None:
    data = card(8, 3).to_json()
    assert data["number"] == 3 and data["deck_seed"] == 8
    assert data["kind"] == card(8, 3).kind and data["theme"] == card(8, 3).theme
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
    assert not wearables & held


def test_catalogue_sizes_leave_room_for_sixty_different_subjects() -> None:
    assert len(cat.SUBJECTS) >= 100
    assert len({s.char for s in cat.SUBJECTS}) == len(cat.SUBJECTS)
    assert len(cat.WEARABLES) >= 10 and len(cat.HELD) >= 20 and len(cat.SEATS) >= 25
    assert len(cat.FACES) == len(scenes.themes("face")) >= 12
    assert {t.marks[0] for t in scenes.themes("face")} == set(cat.FACES)
    assert len(scenes.themes("setting")) >= 10


def test_every_seat_has_words_and_every_setting_a_sky() -> None:
    assert {s.char for s in cat.SEATS} <= set(scenes.SEAT_WORDS)
    assert {s.key for s in scenes.SETTINGS} == {t.key for t in scenes.themes("setting")}
    assert set(backdrops.SKIES) == {s.key for s in scenes.SETTINGS}


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

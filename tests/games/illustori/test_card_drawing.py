"""Cards drawn right (issue 34, point 9): a figure's head where the drawing has it, what it
holds beside a figure that is all head, no prop over the part that tells a figure, one
figure for emoji called by one name, and English alt text that reads as English — checked
on the cases seen and over many decks."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

import inflect
import numpy as np
import pytest

from bodoge.core.rng import rng
from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori.cards import MAX_PROP_CARDS, Card, card, deck, from_plan
from bodoge.games.illustori.composition import Plan

DECKS = 200
ENGLISH = inflect.engine()

#: The heads as the OpenMoji drawings have them, read off the drawings for these tests
#: (72-unit drawing space): the hippo grazes to the right.
TRUE_HEADS = {"🦛": (46.0, 28.0, 68.0, 48.0)}


@cache
def decks() -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(deck(seed, 60)) for seed in range(DECKS))


def _cards() -> list[Card]:
    return [c for d in decks() for c in d]


def _covered(box: cat.Box, others: list[cat.Box]) -> float:
    """The share of the ellipse in ``box`` (points on a grid) under the drawings in ``others``, each
    taken as the ellipse in its box: emoji drawings are roundish, and a thin diagonal
    thing (a fishing pole) fills little of its box."""
    x0, y0, x1, y1 = box
    u = (np.arange(16) + 0.5) / 16
    uu, vv = np.meshgrid(u, u)
    round_ = (uu - 0.5) ** 2 + (vv - 0.5) ** 2 <= 0.25  # a head is roundish too
    xs, ys = x0 + (x1 - x0) * uu[round_], y0 + (y1 - y0) * vv[round_]
    inside = np.zeros(xs.shape, dtype=bool)
    for a0, b0, a1, b1 in others:
        a, b = (a1 - a0) / 2, (b1 - b0) / 2
        inside |= ((xs - a0 - a) / a) ** 2 + ((ys - b0 - b) / b) ** 2 <= 1.0
    return float(inside.mean())


def _drawn(part: object) -> cat.Box:
    return part.place.box(cat.content_box(part.emoji))  # type: ignore[attr-defined]


def _head_of(char: str) -> cat.Box | None:
    """The part that tells a figure: its head, or all of a figure that is all head."""
    try:
        figure = cat.subject(char)
    except KeyError:
        return None
    if char in TRUE_HEADS:
        return TRUE_HEADS[char]
    if figure.head is not None:
        return figure.head
    return cat.content_box(char) if figure.face else None


def _over_head(c: Card) -> list[tuple[str, float]]:
    """Each figure's head on the card and the share of it that things drawn over it cover
    (what it wears is meant to be there; a crowd's members overlap as crowds do)."""
    out = []
    for i, part in enumerate(c.parts):
        head = _head_of(part.emoji)
        if head is None or part.role in ("member", "mark", "wearable"):
            continue
        over = [_drawn(p) for p in c.parts[i + 1 :] if p.role != "wearable"]
        out.append((part.emoji, _covered(part.place.box(head), over)))
    return out


# -- the hippo's head -----------------------------------------------------------------------


def test_the_hippo_faces_right_as_openmoji_draws_it() -> None:
    hippo = cat.subject("🦛")
    assert hippo.facing == "right"
    assert hippo.head is not None and _overlap_x(hippo.head, TRUE_HEADS["🦛"]) > 0.8


def _overlap_x(a: cat.Box, b: cat.Box) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) / (b[2] - b[0])


def _wears_on_its_head(c: Card) -> bool:
    subject, worn = c.subject, c.part("wearable")
    assert worn is not None
    head = subject.place.box(_head_of(subject.emoji) or cat.content_box(subject.emoji))
    x0, _, x1, _ = _drawn(worn)
    return head[0] - 4 <= (x0 + x1) / 2 <= head[2] + 4


def test_seed_7_card_3_the_hippos_scarf_is_on_its_head() -> None:
    c = card(7, 3)
    assert (c.kind, c.subject.emoji) == ("dressed", "🦛") and c.part("wearable")
    assert _wears_on_its_head(c)


def test_in_200_decks_what_a_figure_wears_is_on_its_head() -> None:
    worn = [c for c in _cards() if c.part("wearable") and _head_of(c.subject.emoji)]
    hippos = [c for c in worn if c.subject.emoji == "🦛"]
    assert len(worn) > 400 and hippos
    wrong = [(c.deck_seed, c.number, c.names("en")) for c in worn if not _wears_on_its_head(c)]
    assert not wrong, wrong[:10]


# -- a figure that is all head holds things beside it --------------------------------------

ALL_HEAD = ("👹", "🧸", "👽")
INSTRUMENTS = ("🎸", "🎺", "🎻")


def _into_the_face(c: Card) -> float:
    return max((share for char, share in _over_head(c) if char == c.subject.emoji), default=0)


@pytest.mark.parametrize("figure", ALL_HEAD)
def test_an_instrument_is_held_beside_a_head_not_stuck_into_it(figure: str) -> None:
    assert cat.all_head(figure)
    plans = [Plan("dressed", "dressed", figure, held=i) for i in INSTRUMENTS]
    plans += [Plan("doing", "rock", figure, mark="🎸"), Plan("doing", "violin", figure, mark="🎻")]
    for plan in plans:
        for seed in range(8):
            c = from_plan(plan, rng(seed, "held", plan.kind))
            assert _into_the_face(c) <= 0.06, (plan, seed, _into_the_face(c))


def _all_head(char: str) -> bool:
    try:
        figure = cat.subject(char)
    except KeyError:
        return False
    return figure.face and (figure.head is None or char == "🧸")


def test_in_200_decks_nothing_is_stuck_into_a_figure_that_is_all_head() -> None:
    held = [
        c for c in _cards() if _all_head(c.subject.emoji) and (c.part("held") or c.kind == "doing")
    ]
    assert len(held) > 100
    stuck = [(c.deck_seed, c.number, c.names("en")) for c in held if _into_the_face(c) > 0.06]
    assert not stuck, stuck[:10]


# -- no prop over the part that tells a figure ---------------------------------------------


@pytest.mark.parametrize(
    "plan",
    [Plan("doing", "reading", "🐐", mark="📖"), Plan("ride", "ride", "🎲", seat="🦕")],
    ids=["a book over a goat's head", "a die over a dinosaur"],
)
def test_a_prop_does_not_hide_a_figures_head(plan: Plan) -> None:
    for seed in range(8):
        try:
            c = from_plan(plan, rng(seed, "prop"))
        except ValueError:
            continue  # no readable layout: the deck plans such a card otherwise
        assert max(share for _, share in _over_head(c)) <= 0.25, (seed, _over_head(c))


def test_in_200_decks_every_figures_head_shows() -> None:
    hidden = [
        (c.deck_seed, c.number, c.names("en"), char, round(share, 2))
        for c in _cards()
        for char, share in _over_head(c)
        if share > 0.25
    ]
    assert not hidden, (len(hidden), hidden[:10])


# -- emoji called by one name are one figure -----------------------------------------------


@pytest.mark.parametrize("same", ["🐇🐰", "🐕🐶🐩", "🐈🐱", "🐉🐲", "🐓🐔", "🦕🦖", "🐴🐎"])
def test_emoji_called_by_one_name_are_one_figure(same: str) -> None:
    chars = [c for c in cat.all_chars() if c in same]
    assert len(chars) >= 2 and len({cat.figure(c) for c in chars}) == 1
    assert cat.figure("🐶") != cat.figure("🐱") and cat.figure("💭") != cat.figure("💬")


#: What players call a figure besides its catalogue names (a poodle is a dog).
_ALSO = {"🐩": "dog", "🐕": "dog", "🐶": "dog", "🐓": "chicken", "🦖": "dinosaur"}


def _called(char: str) -> set[str]:
    return {cat.name_en(char).lower(), cat.reading_ja(char), _ALSO.get(char, "")} - {""}


def test_in_200_decks_no_two_main_figures_are_called_alike() -> None:
    for d in decks():
        names = Counter(name for c in d for name in _called(c.subject.emoji))
        assert max(names.values()) == 1, (d[0].deck_seed, names.most_common(2))
        props = Counter(
            cat.figure(p.emoji)
            for c in d
            for p in {p.emoji: p for p in c.parts if p.role not in ("subject", "member")}.values()
        )
        assert max(props.values()) <= MAX_PROP_CARDS, (d[0].deck_seed, props.most_common(2))
        for c in d:  # no horse riding a horse, no dog dreaming of a dog
            others = [p.emoji for p in c.parts if p.role not in ("subject", "member")]
            assert cat.figure(c.subject.emoji) not in {cat.figure(o) for o in others}


# -- English alt text ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plan", "alt"),
    [
        (Plan("dressed", "dressed", "🦄", wearable="👑"), "A unicorn wearing a crown"),
        (Plan("ride", "ride", "🐶", seat="🥞"), "A dog on pancakes"),
        (Plan("dream", "dream", "🐱", other="🍖", mark="💭"), "A cat dreaming of meat"),
        (Plan("sizes", "sizes", "🍒", other="🐘"), "Giant cherries and a tiny elephant"),
        (Plan("sign", "angry", "🍙", mark="💢"), "An angry rice ball"),
        (Plan("sign", "crush", "🦉", mark="💕"), "An owl in love"),
        (Plan("sizes", "sizes", "🥚", other="🦛"), "A giant egg and a tiny hippopotamus"),
    ],
)
def test_english_alt_text_is_grammatical(plan: Plan, alt: str) -> None:
    assert _laid_out(plan).alt("en") == alt


def _laid_out(plan: Plan) -> Card:
    for seed in range(20):
        try:
            return from_plan(plan, rng(seed, "alt"))
        except ValueError:
            continue  # that layout hid something: another
    raise AssertionError(f"no layout for {plan}")


def test_every_name_is_counted_as_english_counts_it() -> None:
    """A name inflect reads as a plural is listed as one (or is one of the few nouns alike
    in both numbers), so that no plural takes "a"."""
    alike = {"🐟", "🐡", "🪼", "🐑", "🦏", "📚"}  # a fish, a sheep, a rhinoceros, a stack of …
    for char in cat.all_chars():
        last = cat.name_en(char).split()[-1]
        looks_plural = bool(ENGLISH.singular_noun(last)) and not last.endswith(("us", "ss"))
        if looks_plural and char not in alike:
            assert cat.counted_en(char) == "plural", (char, cat.name_en(char))


_ARTICLE = re.compile(r"\b([Aa]n?) ([\w-]+)")


def test_alt_text_of_3000_cards_reads_as_english() -> None:
    before = {a for a, _ in _SIGN_ADJECTIVES}
    uncounted = {
        char: cat.name_en(char) for char in cat.all_chars() if cat.counted_en(char) != "one"
    }
    for c in _cards()[:3000]:
        alt = c.alt("en")
        assert alt[0].isupper() and "  " not in alt and not alt.endswith(" "), alt
        # "a" or "an" as the next word sounds (a unicorn, an owl, an angry …)
        for article, word in _ARTICLE.findall(alt):
            assert article.lower() == ENGLISH.a(word).split()[0], alt
        # no article before a plural, a mass noun or a name (giant cherries, meat)
        for part in c.parts:
            name = uncounted.get(part.emoji)
            if name and part.role in ("subject", "other", "held", "seat", "wearable"):
                found = re.search(rf"\b[Aa]n? (?:[\w-]+ )?{re.escape(name)}\b", alt)
                assert not found, alt
        # an adjective goes before its noun: "an angry rice ball", not "a rice ball angry"
        if c.kind == "sign":
            assert alt.split()[-1] not in before, alt


_SIGN_ADJECTIVES = [
    ("sleeping", ""), ("singing", ""), ("angry", ""), ("puzzled", ""), ("surprised", ""),
    ("nervous", ""), ("dizzy", ""), ("sparkling", ""), ("asleep", ""),
]  # fmt: skip

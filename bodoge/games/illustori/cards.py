"""Illustori's picture cards: strange, nameable scenes of two to four emoji.

A deck never runs dry: card ``number`` of the deck with seed ``deck_seed`` is
always the same picture, any number gives a card, and a new seed gives a new
deck.  A card is a subject (a whale, a cactus, a robot) with up to three more
emoji that it wears, holds, sits in or rides, or that stand behind it.

API (used by the engine, the server and the bots):

* :func:`card` ``(deck_seed, number) -> Card`` – one card (numbers start at 0,
  as the engine's deck does);
* :func:`deck` ``(deck_seed, count=60) -> list[Card]`` – cards ``0 … count-1``;
* :class:`Card` – ``parts`` (back to front), each a :class:`Part` with the
  emoji, its code points, its role, its English and Japanese names and the
  katakana reading; ``card.alt("ja")`` / ``card.alt("en")`` for alt text and
  ``card.to_json()`` for clients;
* :func:`~bodoge.games.illustori.art.card_svg` ``(card) -> str`` draws it;
* :data:`ATTRIBUTION` – the OpenMoji credit to show wherever cards are shown.

Within a deck the subjects go round a shuffled list, so the 60 cards of a
table all show different subjects.

>>> c = card(1, 0)
>>> c == card(1, 0), 2 <= len(c.parts) <= 4
(True, True)
>>> [p.role for p in card(1, 0).parts if p.role == "subject"]
['subject']
>>> deck(7, 3) == [card(7, 0), card(7, 1), card(7, 2)]
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bodoge.core.rng import rng
from bodoge.core.values import is_whole
from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori.composition import (
    Backdrop,
    Cast,
    Placement,
    Role,
    backdrop,
    compose,
)
from bodoge.games.illustori.emoji_catalogue import ATTRIBUTION

__all__ = [
    "ATTRIBUTION",
    "DEFAULT_DECK_SIZE",
    "LANGUAGES",
    "Card",
    "Part",
    "card",
    "count_possible_cards",
    "deck",
]

DEFAULT_DECK_SIZE = 60
LANGUAGES = ("ja", "en")

# Which roles join the subject, and how often: most cards have one or two
# companions, a few have three (busier scenes are harder to read).
TEMPLATES: tuple[tuple[tuple[Role, ...], int], ...] = (
    (("wearable",), 3),
    (("held",), 2),
    (("seat",), 3),
    (("wearable", "seat"), 4),
    (("wearable", "held"), 2),
    (("held", "seat"), 2),
    (("seat", "scenery"), 2),
    (("wearable", "scenery"), 2),
    (("held", "scenery"), 1),
    (("wearable", "seat", "scenery"), 2),
    (("wearable", "held", "seat"), 1),
)

# The order the roles are read in (and chosen in: a seat rules out a scarf).
_READING_ORDER: tuple[Role, ...] = ("subject", "wearable", "held", "seat", "scenery")


@dataclass(frozen=True)
class Part:
    """One emoji on a card and what it is called.

    ``emoji`` is the emoji text (``"🐳"``), ``role`` one of ``subject``,
    ``wearable``, ``held``, ``seat``, ``scenery``; ``place`` says where it
    is drawn.
    """

    emoji: str
    role: Role
    name_en: str
    name_ja: str
    reading_ja: str
    place: Placement

    @property
    def codepoints(self) -> tuple[int, ...]:
        """The emoji's Unicode code points.

        >>> card(1, 0).subject.codepoints == tuple(ord(c) for c in card(1, 0).subject.emoji)
        True
        """
        return tuple(ord(c) for c in self.emoji)

    @property
    def hexcode(self) -> str:
        """OpenMoji's name for the drawing, e.g. ``1F433``."""
        return cat.hexcode(self.emoji)

    def name(self, language: str) -> str:
        """The name in ``ja`` or ``en``."""
        return self.name_ja if _language(language) == "ja" else self.name_en


def _language(language: str) -> str:
    if language not in LANGUAGES:
        raise ValueError(f"no card names in {language!r}; choose one of {LANGUAGES}")
    return language


@dataclass(frozen=True)
class Card:
    """A picture card: ``parts`` in drawing order (back to front) and a backdrop."""

    deck_seed: int
    number: int
    parts: tuple[Part, ...]
    backdrop: Backdrop

    def part(self, role: Role) -> Part | None:
        """The part playing ``role``, if the card has one."""
        return next((p for p in self.parts if p.role == role), None)

    @property
    def subject(self) -> Part:
        """The main figure."""
        found = self.part("subject")
        assert found is not None  # every card is built around a subject
        return found

    def reading_order(self) -> tuple[Part, ...]:
        """The parts subject first, then what it wears, holds, sits in, and the scenery."""
        return tuple(p for role in _READING_ORDER for p in self.parts if p.role == role)

    def names(self, language: str) -> tuple[str, ...]:
        """The parts' names in reading order."""
        return tuple(p.name(language) for p in self.reading_order())

    def alt(self, language: str = "ja", *, short: bool = False) -> str:
        """Alt text: a phrase saying what the picture shows, or with ``short`` the names.

        >>> c = _example()
        >>> c.alt("en")
        'A spouting whale wearing a crown, in a teacup'
        >>> c.alt("ja")
        '王冠をかぶって湯飲みに入った潮吹きクジラ'
        >>> c.alt("ja", short=True)
        '潮吹きクジラ・王冠・湯飲み'
        """
        if _language(language) == "ja":
            return "・".join(self.names("ja")) if short else _alt_ja(self)
        return ", ".join(self.names("en")) if short else _alt_en(self)

    def to_json(self) -> dict[str, Any]:
        """What clients and bots need to know about the card (not how it is drawn)."""
        return {
            "deck_seed": self.deck_seed,
            "number": self.number,
            "parts": [
                {
                    "emoji": p.emoji,
                    "codepoints": p.hexcode,
                    "role": p.role,
                    "name_en": p.name_en,
                    "name_ja": p.name_ja,
                    "reading_ja": p.reading_ja,
                }
                for p in self.reading_order()
            ],
            "alt_en": self.alt("en"),
            "alt_ja": self.alt("ja"),
        }


def _with_article(part: Part) -> str:
    article = cat.article_en(part.emoji)
    return f"{article} {part.name_en}" if article else part.name_en


def _alt_en(card: Card) -> str:
    phrase = _with_article(card.subject)
    doing = []
    if wear := card.part("wearable"):
        doing.append(f"{cat.wearable(wear.emoji).verb[0]} {_with_article(wear)}")
    if held := card.part("held"):
        doing.append(f"holding {_with_article(held)}")
    if doing:
        phrase += " " + " and ".join(doing)
    if seat := card.part("seat"):
        how = {"in": "in", "on": "on", "ride": "riding", "hang": "hanging from"}
        phrase += f", {how[cat.seat(seat.emoji).mode]} {_with_article(seat)}"
    if scenery := card.part("scenery"):
        phrase += f", with {_with_article(scenery)} behind"
    return phrase[0].upper() + phrase[1:]


def _alt_ja(card: Card) -> str:
    # Each companion is a clause before the subject: "王冠をかぶって…に入った".
    clauses: list[tuple[str, str]] = []
    if wear := card.part("wearable"):
        _, te, ta = cat.wearable(wear.emoji).verb
        clauses.append((wear.name_ja + te, wear.name_ja + ta))
    if held := card.part("held"):
        clauses.append((held.name_ja + "を持って", held.name_ja + "を持った"))
    if seat := card.part("seat"):
        verb = {"in": "入", "on": "乗", "ride": "乗", "hang": "ぶら下が"}[cat.seat(seat.emoji).mode]
        clauses.append((f"{seat.name_ja}に{verb}って", f"{seat.name_ja}に{verb}った"))
    joint = "、" if len(clauses) > 2 else ""
    phrase = joint.join([te for te, _ in clauses[:-1]] + [ta for _, ta in clauses[-1:]])
    phrase += card.subject.name_ja
    if scenery := card.part("scenery"):
        phrase += f"、背景に{scenery.name_ja}"
    return phrase


# ---------------------------------------------------------------------------
# Choosing a card's cast


def _eligible(role: Role, subject: cat.Subject, chosen: dict[Role, str]) -> list[str]:
    """The emoji that may play ``role`` with this subject and what is already chosen."""
    used = {subject.char, *chosen.values()}
    seat = cat.seat(chosen["seat"]) if "seat" in chosen else None
    if role == "wearable":
        out = []
        for w in cat.WEARABLES:
            if w.faceless_only and subject.face:
                continue
            # A profile has no place for glasses; a thing's eyes can go anywhere.
            if w.slot == "eyes" and subject.face and subject.eyes is None:
                continue
            # A scarf would float over the cup's rim: what is "in" hides the neck;
            # a mask would hide all that a subject in a cup shows.
            if (w.slot == "neck" or w.covers_face) and seat is not None and seat.mode == "in":
                continue
            out.append(w.char)
    elif role == "held":
        out = [h.char for h in cat.HELD]
    elif role == "seat":
        x0, y0, x1, y1 = cat.content_box(subject.char)
        # A flat subject (a crocodile, a pudding) would vanish inside a cup,
        # under its own hat: it rides instead.
        flat = (y1 - y0) < 0.75 * (x1 - x0)
        out = [s.char for s in cat.SEATS if not (flat and s.mode == "in")]
    elif role == "scenery":
        out = [s.char for s in cat.SCENERY]
    else:
        raise ValueError(f"no such companion role: {role}")
    return [c for c in out if c not in used]


# Roles are chosen seat first, since a seat rules some wearables out.
_CHOICE_ORDER: tuple[Role, ...] = ("seat", "wearable", "held", "scenery")


@lru_cache(maxsize=64)
def _subject_order(deck_seed: int, lap: int) -> tuple[cat.Subject, ...]:
    order = list(cat.SUBJECTS)
    rng(deck_seed, "subjects", lap).shuffle(order)
    return tuple(order)


def _cast(deck_seed: int, number: int, rand: random.Random) -> Cast:
    laps, index = divmod(number, len(cat.SUBJECTS))
    subject = _subject_order(deck_seed, laps)[index]
    roles = rand.choices([t for t, _ in TEMPLATES], weights=[w for _, w in TEMPLATES])[0]
    chosen: dict[Role, str] = {}
    for role in _CHOICE_ORDER:
        if role in roles:
            chosen[role] = rand.choice(_eligible(role, subject, chosen))
    return Cast(subject.char, **chosen)  # type: ignore[arg-type]


# typed: card(1, True) must be refused, not answered with card(1, 1).
@lru_cache(maxsize=4096, typed=True)
def card(deck_seed: int, number: int) -> Card:
    """Card ``number`` (0, 1, 2, …) of the deck with seed ``deck_seed``.

    Everything random comes from ``rng(deck_seed, "card", number)`` (and, for
    the round of subjects, ``rng(deck_seed, "subjects", lap)``), so the card
    is the same on every machine.
    """
    if not is_whole(deck_seed):
        raise ValueError(f"a deck seed is a whole number, not {deck_seed!r}")
    if not is_whole(number) or number < 0:
        raise ValueError(f"a card number is a whole number from 0, not {number!r}")
    rand = rng(deck_seed, "card", number)
    cast = _cast(deck_seed, number, rand)
    parts = tuple(
        Part(char, role, cat.name_en(char), cat.name_ja(char), cat.reading_ja(char), place)
        for char, role, place in compose(cast, rand)
    )
    scenery = cat.scenery(cast.scenery) if cast.scenery else None
    return Card(deck_seed, number, parts, backdrop(rand, scenery))


def deck(deck_seed: int, count: int = DEFAULT_DECK_SIZE) -> list[Card]:
    """Cards ``0 … count-1`` of the deck with seed ``deck_seed``."""
    if not is_whole(count) or count < 0:
        raise ValueError(f"a deck has a whole number of cards, not {count!r}")
    return [card(deck_seed, n) for n in range(count)]


def count_possible_cards(templates: Sequence[tuple[tuple[Role, ...], int]] = TEMPLATES) -> int:
    """How many different casts (sets of emoji in their roles) a card can show.

    Layouts (sizes, turns, mirroring, backdrops) vary on top of this.  The
    count relies on wearables, held things and scenery never sharing an emoji
    (the tests check it), so only the seat's choice changes what else may go.

    >>> count_possible_cards() > 100_000
    True
    """
    total = 0
    for subject in cat.SUBJECTS:
        for roles, _ in templates:
            seats: list[str | None] = (
                list(_eligible("seat", subject, {})) if "seat" in roles else [None]
            )
            for seat_char in seats:
                chosen: dict[Role, str] = {"seat": seat_char} if seat_char else {}
                combos = 1
                for role in roles:
                    if role != "seat":
                        combos *= len(_eligible(role, subject, chosen))
                total += combos
    return total


def _example() -> Card:
    """A hand-made card for the docs: a whale wearing a crown in a teacup."""
    here = Placement(120, 120, 100)

    def part(char: str, role: Role) -> Part:
        return Part(char, role, cat.name_en(char), cat.name_ja(char), cat.reading_ja(char), here)

    parts = (part("🐳", "subject"), part("🍵", "seat"), part("👑", "wearable"))
    return Card(0, 0, parts, Backdrop("plain", "#ffffff", "#eeeeee"))

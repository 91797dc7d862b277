"""Illustori's picture cards: strange scenes of emoji that invite more than a name.

A deck never runs dry: card ``number`` of the deck with seed ``deck_seed`` is
always the same picture, any number gives a card, and a new seed gives a new
deck.  Each card is one of twelve kinds of scene (:data:`.scenes.KINDS`): a
figure dressed up or riding something, a figure in a place or weather, a crowd
or a parade, a big face with what it feels about, two figures in love or
fighting, a heart made of strawberries, a figure with a sign of its state, a
giant strawberry beside a tiny elephant, a figure doing something, a parent and
child, a figure dreaming — so that a card can be called by its mood, an action,
a place or a pun, not only by the things on it.

API (used by the engine, the server and the bots):

* :func:`card` ``(deck_seed, number) -> Card`` – one card (numbers start at 0,
  as the engine's deck does);
* :func:`deck` ``(deck_seed, count=60) -> list[Card]`` – cards ``0 … count-1``;
* :class:`Card` – its ``kind`` and ``theme`` (see :mod:`.scenes`), its
  ``parts`` (back to front), each a :class:`Part` with the emoji, its code
  points, its role, its English and Japanese names and the katakana reading;
  ``card.alt("ja")`` / ``card.alt("en")`` for alt text and ``card.to_json()``
  for clients;
* :func:`~bodoge.games.illustori.art.card_svg` ``(card) -> str`` draws it;
* :data:`ATTRIBUTION` – the OpenMoji credit to show wherever cards are shown.

**Variety.**  Cards are planned in laps of 60 (:data:`LAP`, a default deck):
each lap holds every kind a fixed number of times (no kind on more than 12
cards, see :data:`.scenes.KIND_SLOTS`), its main figures are all different,
and no other emoji (a hat, a seat, a sign, a partner) is on more than
:data:`MAX_PROP_CARDS` cards of it.  Emoji that players call by one name (🐶
and 🐕, a dog; 🐰 and 🐇, a rabbit) count as one figure
(:func:`.emoji_catalogue.figure`).

>>> c = card(1, 0)
>>> c == card(1, 0), c.kind in KINDS
(True, True)
>>> [p.role for p in c.parts].count("subject")
1
>>> deck(7, 3) == [card(7, 0), card(7, 1), card(7, 2)]
True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bodoge.core.rng import rng
from bodoge.core.values import is_whole
from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori import scenes
from bodoge.games.illustori.composition import (
    Backdrop,
    Placed,
    Placement,
    Plan,
    Role,
    backdrop,
    compose,
)
from bodoge.games.illustori.emoji_catalogue import ATTRIBUTION
from bodoge.games.illustori.scenes import KIND_SLOTS, KINDS

__all__ = [
    "ATTRIBUTION",
    "DEFAULT_DECK_SIZE",
    "KINDS",
    "LANGUAGES",
    "LAP",
    "MAX_PROP_CARDS",
    "Card",
    "Part",
    "card",
    "count_possible_cards",
    "deck",
    "from_plan",
]

DEFAULT_DECK_SIZE = 60
LANGUAGES = ("ja", "en")
#: Cards are planned in laps of this many (a default deck is one lap).
LAP = sum(KIND_SLOTS.values())
#: No emoji but the main figure is on more cards than this in a lap.
MAX_PROP_CARDS = 3

# The order parts are read in: the figure, more of it, then what goes with it.
_READING_ORDER: tuple[Role, ...] = (
    "subject",
    "member",
    "wearable",
    "held",
    "seat",
    "other",
    "mark",
)


@dataclass(frozen=True)
class Part:
    """One emoji on a card and what it is called.

    ``emoji`` is the emoji text (``"🐳"``), ``role`` one of ``subject``,
    ``member`` (more of the subject), ``wearable``, ``held``, ``seat``,
    ``other`` (a second thing that matters) and ``mark`` (what tells the
    theme); ``place`` says where it is drawn.
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
    """A picture card: its kind of scene and theme, ``parts`` back to front, a backdrop."""

    deck_seed: int
    number: int
    kind: str
    theme: str
    parts: tuple[Part, ...]
    backdrop: Backdrop

    def part(self, role: Role) -> Part | None:
        """The (first) part playing ``role``, if the card has one."""
        return next((p for p in self.parts if p.role == role), None)

    @property
    def subject(self) -> Part:
        """The main figure."""
        found = self.part("subject")
        assert found is not None  # every card is built around a subject
        return found

    @property
    def scene(self) -> scenes.Theme:
        """What the scene is about, with its words (see :mod:`.scenes`)."""
        return scenes.theme(self.kind, self.theme)

    def reading_order(self) -> tuple[Part, ...]:
        """The parts: the figure (and more of it) first, then what goes with it."""
        return tuple(p for role in _READING_ORDER for p in self.parts if p.role == role)

    def things(self) -> tuple[Part, ...]:
        """One part for each different emoji, in reading order."""
        seen: dict[str, Part] = {}
        for part in self.reading_order():
            seen.setdefault(part.emoji, part)
        return tuple(seen.values())

    def names(self, language: str) -> tuple[str, ...]:
        """The names of the different things on the card, in reading order."""
        return tuple(p.name(language) for p in self.things())

    def alt(self, language: str = "ja", *, short: bool = False) -> str:
        """Alt text: a phrase saying what the picture shows, or with ``short`` the names.

        >>> c = _example()
        >>> c.alt("en")
        'A spouting whale wearing a crown'
        >>> c.alt("ja")
        '王冠をかぶった潮吹きクジラ'
        >>> c.alt("ja", short=True)
        '潮吹きクジラ・王冠'
        """
        if _language(language) == "ja":
            return "・".join(self.names("ja")) if short else _alt_ja(self)
        return ", ".join(self.names("en")) if short else _alt_en(self)

    def to_json(self) -> dict[str, Any]:
        """What clients and bots need to know about the card (not how it is drawn)."""
        return {
            "deck_seed": self.deck_seed,
            "number": self.number,
            "kind": self.kind,
            "theme": self.theme,
            "parts": [
                {
                    "emoji": p.emoji,
                    "codepoints": p.hexcode,
                    "role": p.role,
                    "name_en": p.name_en,
                    "name_ja": p.name_ja,
                    "reading_ja": p.reading_ja,
                }
                for p in self.things()
            ],
            "alt_en": self.alt("en"),
            "alt_ja": self.alt("ja"),
        }


# -- alt text -------------------------------------------------------------------------------


def _a(part: Part | None, adjective: str = "") -> str:
    """The English name with its article (if it takes one) and an adjective: ``a whale``,
    ``an owl``, ``the sun``, ``meat``, ``an angry rice ball``, ``giant cherries``."""
    assert part is not None
    return cat.phrase_en(part.emoji, adjective)


def _ja(part: Part | None) -> str:
    assert part is not None
    return part.name_ja


_SEAT_EN = {"in": "in", "on": "on", "ride": "riding", "hang": "hanging from"}
_SEAT_JA = {"in": "入", "on": "乗", "ride": "乗", "hang": "ぶら下が"}
_PAIR_EN = {"love": "in love", "fight": "fighting", "talk": "chatting"}
_PAIR_JA = {"love": "恋", "fight": "けんか", "talk": "おしゃべり"}
# A figure's state: an adjective before its name ("an angry rice ball"), or a phrase after
# it ("a cat in love").
_SIGN_EN: dict[str, tuple[str, str]] = {
    "sleep": ("sleeping", ""), "sing": ("singing", ""), "angry": ("angry", ""),
    "wonder": ("puzzled", ""), "surprise": ("surprised", ""),
    "idea": ("", "with a bright idea"), "crush": ("", "in love"), "sweat": ("nervous", ""),
    "fire": ("", "fired up"), "dizzy": ("dizzy", ""), "shiny": ("sparkling", ""),
}  # fmt: skip
_SIGN_JA = {
    "sleep": "眠る", "sing": "歌う", "angry": "怒った", "wonder": "首をかしげる",
    "surprise": "驚いた", "idea": "ひらめいた", "crush": "恋する", "sweat": "あせる",
    "fire": "燃える", "dizzy": "目が回る", "shiny": "ぴかぴかの",
}  # fmt: skip


def _alt_en(card: Card) -> str:
    subject, other, mark = card.subject, card.part("other"), card.part("mark")
    kind, theme = card.kind, card.theme
    many = cat.plural_en(subject.emoji)
    if kind in ("dressed", "ride"):
        phrase = _a(subject)
        if wear := card.part("wearable"):
            phrase += f" {cat.wearable(wear.emoji).verb[0]} {_a(wear)}"
        if held := card.part("held"):
            phrase += f" holding {_a(held)}"
        if seat := card.part("seat"):
            phrase += f" {_SEAT_EN[cat.seat(seat.emoji).mode]} {_a(seat)}"
    elif kind == "setting":
        phrase = _a(subject) + card.scene.frames["en"][0].removeprefix("{name}")
    elif kind == "crowd":
        phrase = {"swarm": f"a crowd of {many}", "parade": f"a parade of {many}"}.get(
            theme, f"{many} and one {other.name_en if other else ''}"
        )
    elif kind == "face":
        phrase = f"{_a(subject)} and {_a(other)}"
    elif kind == "pair":
        phrase = f"{_a(subject)} and {_a(other)} {_PAIR_EN[theme]}"
    elif kind == "shape":
        phrase = f"a {theme} of {many}"
    elif kind == "sign" and theme == "forbidden":
        phrase = f"no {many}"
    elif kind == "sign":
        before, after = _SIGN_EN[theme]
        phrase = f"{_a(subject, before)} {after}".strip()
    elif kind == "sizes":
        phrase = f"{_a(subject, 'giant')} and {_a(other, 'tiny')}"
    elif kind == "doing":
        phrase = f"{_a(subject)} with {_a(mark)}"
    elif kind == "family":
        phrase = f"{_a(subject)} and its baby"
    else:  # dream
        phrase = f"{_a(subject)} dreaming of {_a(other)}"
    return phrase[0].upper() + phrase[1:]


def _alt_ja(card: Card) -> str:
    subject, other, mark = card.subject.name_ja, card.part("other"), card.part("mark")
    kind, theme = card.kind, card.theme
    if kind in ("dressed", "ride"):
        if wear := card.part("wearable"):
            return wear.name_ja + cat.wearable(wear.emoji).verb[2] + subject
        if held := card.part("held"):
            return f"{held.name_ja}を持った{subject}"
        seat = card.part("seat")
        assert seat is not None
        return f"{seat.name_ja}に{_SEAT_JA[cat.seat(seat.emoji).mode]}った{subject}"
    if kind == "setting":
        return card.scene.frames["ja"][0].format(name=subject)
    if kind == "crowd":
        if theme == "odd":
            return f"{subject}の群れの中の{_ja(other)}"
        return f"{subject}の{'行列' if theme == 'parade' else '群れ'}"
    if kind == "face":
        return f"{subject}と{_ja(other)}"
    if kind == "pair":
        return f"{subject}と{_ja(other)}の{_PAIR_JA[theme]}"
    if kind == "shape":
        return f"{subject}の{scenes.theme('shape', theme).words['ja'][0]}"
    if kind == "sign":
        return f"{subject}禁止" if theme == "forbidden" else _SIGN_JA[theme] + subject
    if kind == "sizes":
        return f"巨大な{subject}と小さな{_ja(other)}"
    if kind == "doing":
        return f"{_ja(mark)}を持った{subject}"
    if kind == "family":
        return f"{subject}の親子"
    return f"{_ja(other)}の夢を見る{subject}"


# ---------------------------------------------------------------------------
# Planning a lap of cards


def _creatures() -> list[str]:
    return [s.char for s in cat.SUBJECTS if s.face]


def _everyone() -> list[str]:
    return [s.char for s in cat.SUBJECTS]


# Where each kind finds its main figures.
_SUBJECT_POOLS = {
    "dressed": _everyone,
    "ride": _everyone,
    "setting": _everyone,
    "crowd": _everyone,
    "face": lambda: [t.marks[0] for t in scenes.themes("face")],
    "pair": _creatures,
    "shape": lambda: list(cat.SHAPE_ITEMS),
    "sign": _everyone,
    "sizes": lambda: list(cat.GIANTS),
    "doing": _creatures,
    "family": _creatures,
    "dream": _creatures,
}


def _eligible(role: Role, subject: cat.Subject, chosen: dict[Role, str]) -> list[str]:
    """The emoji that may be worn, held or sat in by this subject (``dressed``, ``ride``)."""
    if role == "wearable":
        out = []
        for w in cat.WEARABLES:
            if w.faceless_only and subject.face:
                continue
            # A profile has no place for glasses; goggles would hide a thing's
            # face (a clock's dial) altogether.
            if w.slot == "eyes" and subject.face and subject.eyes is None:
                continue
            if w.covers_face and not subject.face:
                continue
            out.append(w.char)
    elif role == "held":
        out = [h.char for h in cat.HELD]
    elif role == "seat":
        x0, y0, x1, y1 = cat.content_box(subject.char)
        # A flat subject (a crocodile, a pudding) would vanish inside a cup: it rides instead.
        flat = (y1 - y0) < 0.75 * (x1 - x0)
        out = [s.char for s in cat.SEATS if not (flat and s.mode == "in")]
    else:
        raise ValueError(f"no such companion role: {role}")
    # Nothing called by the figure's own name (a horse riding a horse), nor twice.
    taken = {cat.figure(subject.char), *(cat.figure(c) for c in chosen.values())}
    return [c for c in out if cat.figure(c) not in taken]


class _Lap:
    """The plans of one lap, made one card at a time under the variety rules."""

    # Emoji are counted by figure (``cat.figure``): two that players call by one name
    # (🐶 and 🐕, both a dog) are one figure for the limits.

    def __init__(self, rand: random.Random) -> None:
        self.rand = rand
        self.subjects: set[str] = set()
        self.props: Counter[str] = Counter()
        self.themes: Counter[tuple[str, str]] = Counter()

    def pick(self, candidates: Sequence[str], *, avoid: Sequence[str] = ()) -> str | None:
        """A candidate on fewer than :data:`MAX_PROP_CARDS` cards so far, or ``None``."""
        shunned = {cat.figure(c) for c in avoid}
        free = [
            c
            for c in candidates
            if self.props[cat.figure(c)] < MAX_PROP_CARDS and cat.figure(c) not in shunned
        ]
        return self.rand.choice(free) if free else None

    def theme(self, kind: str, needs_mark: bool = False) -> scenes.Theme:
        """The least used theme of ``kind`` (ties at random) whose marks are not used up."""
        options = [
            t
            for t in scenes.themes(kind)
            if not needs_mark or any(self.props[cat.figure(m)] < MAX_PROP_CARDS for m in t.marks)
        ]
        fewest = min(self.themes[t.kind, t.key] for t in options)
        # counted once its card is planned (:meth:`plan`): a try that fails counts nothing
        return self.rand.choice([t for t in options if self.themes[t.kind, t.key] == fewest])

    def plan(self, kind: str, rand: random.Random) -> tuple[Plan, list[Placed]]:
        """A plan of ``kind`` and its layout (drawn with ``rand``), counted in the lap."""
        for _ in range(50):
            found = self._try(kind)
            # A combination no layout can make readable (a gorilla in a boot)
            # is planned otherwise.
            parts = compose(found, rand) if found is not None else None
            if found is not None and parts is not None:
                self.themes[found.kind, found.theme] += 1
                self.subjects.add(cat.figure(found.subject))
                for _, char in found.chars():
                    self.props[cat.figure(char)] += 1
                return found, parts
        raise AssertionError(f"no {kind} card can be planned")  # the pools are far larger

    def _subject(self, kind: str, theme: scenes.Theme) -> str | None:
        candidates = [theme.marks[0]] if kind == "face" else _SUBJECT_POOLS[kind]()
        pool = [c for c in candidates if cat.figure(c) not in self.subjects]
        return self.rand.choice(pool) if pool else None

    def _try(self, kind: str) -> Plan | None:
        theme = self.theme(kind, needs_mark=kind in ("pair", "sign", "doing"))
        subject = self._subject(kind, theme)
        if subject is None:
            return None
        pick, key = self.pick, theme.key
        if kind == "dressed":
            who = cat.subject(subject)
            if self.rand.random() < 0.6:
                wear = pick(_eligible("wearable", who, {}))
                return Plan(kind, key, subject, wearable=wear) if wear else None
            held = pick(_eligible("held", who, {}))
            return Plan(kind, key, subject, held=held) if held else None
        if kind == "ride":
            seat = pick(_eligible("seat", cat.subject(subject), {}))
            return Plan(kind, key, subject, seat=seat) if seat else None
        if kind in ("setting", "shape", "family"):
            return Plan(kind, key, subject)
        if kind == "crowd":
            if key != "odd":
                return Plan(kind, key, subject)
            odd = pick(_creatures(), avoid=[subject])
            return Plan(kind, key, subject, other=odd) if odd else None
        if kind == "face":
            thing = pick(theme.things)
            return Plan(kind, key, subject, other=thing) if thing else None
        if kind == "pair":
            partner, mark = pick(_creatures(), avoid=[subject]), pick(theme.marks)
            return Plan(kind, key, subject, other=partner, mark=mark) if partner and mark else None
        if kind in ("sign", "doing"):
            mark = pick(theme.marks, avoid=[subject])  # no light bulb with a light bulb
            return Plan(kind, key, subject, mark=mark) if mark else None
        if kind == "sizes":
            tiny = pick(cat.TINIES, avoid=[subject])
            return Plan(kind, key, subject, other=tiny) if tiny else None
        if kind == "dream":
            dream, bubble = pick(cat.DREAMS, avoid=[subject]), pick([cat.THOUGHT])
            return Plan(kind, key, subject, other=dream, mark=bubble) if dream and bubble else None
        raise ValueError(f"no such kind of scene: {kind}")


@lru_cache(maxsize=64)
def _lap(deck_seed: int, lap: int) -> tuple[tuple[Plan, tuple[Placed, ...], Backdrop], ...]:
    """Cards ``lap * LAP … (lap + 1) * LAP - 1``: each one's plan, layout and backdrop."""
    rand = rng(deck_seed, "lap", lap)
    kinds = [kind for kind in KINDS for _ in range(KIND_SLOTS[kind])]
    rand.shuffle(kinds)
    planner = _Lap(rand)
    out = []
    for index, kind in enumerate(kinds):
        drawing = rng(deck_seed, "card", lap * LAP + index)
        plan, parts = planner.plan(kind, drawing)
        out.append((plan, tuple(parts), backdrop(drawing, plan)))
    return tuple(out)


def _card(deck_seed: int, number: int, plan: Plan, parts: Sequence[Placed], back: Backdrop) -> Card:
    named = tuple(
        Part(char, role, cat.name_en(char), cat.name_ja(char), cat.reading_ja(char), place)
        for char, role, place in parts
    )
    return Card(deck_seed, number, plan.kind, plan.theme, named, back)


def from_plan(plan: Plan, rand: random.Random, deck_seed: int = 0, number: int = 0) -> Card:
    """The card a plan makes, laid out with ``rand`` (for hand-made cards in tests and docs).

    Raises ``ValueError`` if no readable layout is found for it.
    """
    parts = compose(plan, rand)
    if parts is None:
        raise ValueError(f"no readable layout for {plan}")
    return _card(deck_seed, number, plan, parts, backdrop(rand, plan))


# typed: card(1, True) must be refused, not answered with card(1, 1).
@lru_cache(maxsize=4096, typed=True)
def card(deck_seed: int, number: int) -> Card:
    """Card ``number`` (0, 1, 2, …) of the deck with seed ``deck_seed``.

    Its lap of :data:`LAP` cards is planned from ``rng(deck_seed, "lap",
    lap)`` and the card laid out with ``rng(deck_seed, "card", number)``, so
    the card is the same on every machine.
    """
    if not is_whole(deck_seed):
        raise ValueError(f"a deck seed is a whole number, not {deck_seed!r}")
    if not is_whole(number) or number < 0:
        raise ValueError(f"a card number is a whole number from 0, not {number!r}")
    lap, index = divmod(number, LAP)
    plan, parts, back = _lap(deck_seed, lap)[index]
    return _card(deck_seed, number, plan, parts, back)


def deck(deck_seed: int, count: int = DEFAULT_DECK_SIZE) -> list[Card]:
    """Cards ``0 … count-1`` of the deck with seed ``deck_seed``."""
    if not is_whole(count) or count < 0:
        raise ValueError(f"a deck has a whole number of cards, not {count!r}")
    return [card(deck_seed, n) for n in range(count)]


def count_possible_cards() -> int:
    """How many different plans (kind, theme and emoji in their roles) a card can show.

    Layouts (sizes, turns, mirroring, backdrops) vary on top of this.

    >>> count_possible_cards() > 50_000
    True
    """
    everyone, creatures = _everyone(), _creatures()
    total = 0
    for char in everyone:
        who = cat.subject(char)
        total += len(_eligible("wearable", who, {})) + len(_eligible("held", who, {}))
        total += len(_eligible("seat", who, {}))
    total += len(everyone) * len(scenes.themes("setting"))
    total += len(everyone) * (2 + len(creatures))  # swarm, parade, odd one out
    total += sum(len(t.things) for t in scenes.themes("face"))
    bonds = sum(len(t.marks) for t in scenes.themes("pair"))
    total += len(creatures) * (len(creatures) - 1) * bonds
    total += len(cat.SHAPE_ITEMS) * len(scenes.themes("shape"))
    total += len(everyone) * len(scenes.themes("sign"))
    total += len(cat.GIANTS) * len(cat.TINIES)
    total += len(creatures) * sum(len(t.marks) for t in scenes.themes("doing"))
    total += len(creatures) * (1 + len(cat.DREAMS))  # families, dreams
    return total


def _example() -> Card:
    """A hand-made card for the docs: a whale wearing a crown."""
    return from_plan(Plan("dressed", "dressed", "🐳", wearable="👑"), rng(0, "example"))

"""Laying out a card's scene: where each emoji goes, how big, turned and mirrored how.

Each kind of scene (see :mod:`.scenes`) has its own layout, in card units
(the card is :data:`CARD_SIZE` square):

* ``dressed`` and ``ride`` build a figure in its own 72-unit drawing space —
  a hat on the head, glasses on the eyes, a held thing at the side, a seat
  under it (in front of it when the figure is *in* the seat) — and scale the
  group to fill the card;
* the others place each emoji by the share of the card it takes: a figure
  standing in a setting, a crowd in rows, a parade in perspective, a big face
  with what it feels about in a corner, a pair facing each other under a sign,
  a heart or a ring of one thing, a giant small thing beside a tiny big one…

Every layout keeps the card readable at hand size (about 100 pixels):
:func:`legibility` measures it from the layout alone, and :data:`LIMITS` says
what is enough (the tests check every kind over many seeds).

>>> from bodoge.core.rng import rng
>>> plan = Plan("dressed", "dressed", "🐳", wearable="👑")
>>> [(char, role) for char, role, _ in compose(plan, rng(1, "example")) or []]
[('🐳', 'subject'), ('👑', 'wearable')]
>>> parts = compose(Plan("crowd", "swarm", "🐧"), rng(1, "example")) or []
>>> sorted({role for _, role, _ in parts}), len(parts) >= 6
(['member', 'subject'], True)
>>> legibility(parts).ok
True
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass
from typing import Literal

import numpy as np

from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori import scenes

__all__ = [
    "CARD_SIZE",
    "LIMITS",
    "Backdrop",
    "Legibility",
    "Placement",
    "Plan",
    "Role",
    "backdrop",
    "compose",
    "legibility",
]

#: Cards are square; every coordinate on a card is in these units.
CARD_SIZE = 240.0
_MARGIN = 14.0

#: What an emoji does in a scene: the main figure, more of the same figure
#: (a crowd, a shape, a child), something worn, held or sat in, a second
#: thing that matters (a partner, what a face fears, the dream), or a mark
#: that tells the theme (💤, ❤️, a fishing rod, a thought bubble).
Role = Literal["subject", "member", "wearable", "held", "seat", "other", "mark"]
Placed = tuple[str, Role, "Placement"]


@dataclass(frozen=True)
class Placement:
    """Where an emoji's 72×72 drawing goes on the card.

    ``x``, ``y`` is the drawing's centre, ``size`` its width (both in card
    units), ``rotate`` a clockwise turn in degrees about the centre, and
    ``flip`` mirrors it left to right.
    """

    x: float
    y: float
    size: float
    rotate: float = 0.0
    flip: bool = False

    def point(self, u: float, v: float) -> tuple[float, float]:
        """Where the drawing's point (u, v) lands on the card.

        >>> Placement(100, 100, 144).point(36, 36)
        (100.0, 100.0)
        >>> Placement(100, 100, 144, flip=True).point(72, 36)
        (28.0, 100.0)
        """
        k = self.size / 72.0
        dx = (u - 36.0) * k * (-1.0 if self.flip else 1.0)
        dy = (v - 36.0) * k
        a = math.radians(self.rotate)
        cos, sin = math.cos(a), math.sin(a)
        return (self.x + dx * cos - dy * sin, self.y + dx * sin + dy * cos)

    def box(self, box: cat.Box) -> cat.Box:
        """The card-space bounding box of a box in the drawing."""
        x0, y0, x1, y1 = box
        corners = [self.point(u, v) for u in (x0, x1) for v in (y0, y1)]
        xs = [c[0] for c in corners]
        ys = [c[1] for c in corners]
        return (min(xs), min(ys), max(xs), max(ys))

    def scaled(self, factor: float, dx: float, dy: float) -> Placement:
        """This placement after the whole card is scaled by ``factor`` and moved."""
        return Placement(
            self.x * factor + dx, self.y * factor + dy, self.size * factor, self.rotate, self.flip
        )


def _placed_at(
    anchor: tuple[float, float],
    target: tuple[float, float],
    size: float,
    rotate: float,
    flip: bool,
) -> Placement:
    """The placement that puts the drawing's ``anchor`` point on ``target``."""
    probe = Placement(0.0, 0.0, size, rotate, flip).point(*anchor)
    return Placement(target[0] - probe[0], target[1] - probe[1], size, rotate, flip)


@dataclass(frozen=True)
class Plan:
    """What a card shows, before it is laid out: its kind and theme and its emoji.

    ``other`` is the second thing that matters (a partner, what a face feels
    about, the odd one out, the tiny big thing, the dreamed thing); ``mark``
    the emoji that tells the theme (a sign, a tool, a thought bubble).
    """

    kind: str
    theme: str
    subject: str
    wearable: str | None = None
    held: str | None = None
    seat: str | None = None
    other: str | None = None
    mark: str | None = None

    def chars(self) -> tuple[tuple[Role, str], ...]:
        """The emoji beside the subject, with their roles."""
        found: list[tuple[Role, str]] = []
        for role in ("wearable", "held", "seat", "other", "mark"):
            char = getattr(self, role)
            if char is not None:
                found.append((role, char))
        return tuple(found)


@dataclass(frozen=True)
class Backdrop:
    """The card's background: a soft two-colour gradient and a simple shape, or a setting.

    ``style`` is one of :data:`STYLES`, or a setting's key (``beach``,
    ``night``…: a place drawn behind the figure, see :mod:`.art`).
    """

    style: str
    top: str
    bottom: str


# Soft colour pairs (top, bottom) that OpenMoji's bright fills stand out on.
PALETTES: tuple[tuple[str, str], ...] = (
    ("#fdf0d5", "#fbd3a9"),
    ("#e3f2fd", "#bbdefb"),
    ("#e8f5e9", "#c8e6c9"),
    ("#fce4ec", "#f8bbd0"),
    ("#ede7f6", "#d1c4e9"),
    ("#fff8e1", "#ffe082"),
    ("#e0f7fa", "#b2ebf2"),
    ("#f1f8e9", "#dcedc8"),
    ("#fbe9e7", "#ffccbc"),
    ("#f3e5f5", "#e1bee7"),
    ("#e8eaf6", "#c5cae9"),
    ("#fffde7", "#fff59d"),
)
STYLES = ("plain", "rays", "dots", "hill", "halo")
# Kinds whose figures stand on the ground: a hill under them.
_GROUNDED = frozenset({"pair", "sizes", "family"})


# The sky of each setting (top, bottom); the rest is drawn by :mod:`.art`.
SKIES: dict[str, tuple[str, str]] = {
    "beach": ("#9fdcff", "#e3f6ff"),
    "night": ("#141b6b", "#3d1a78"),
    "snow": ("#a9cdf5", "#e6f1fc"),
    "city": ("#ffe0b2", "#ffc7a8"),
    "space": ("#07022a", "#2d1b69"),
    "sea": ("#4fc3f7", "#0277bd"),
    "rain": ("#8fa3ad", "#cfd8dc"),
    "desert": ("#ffe9a0", "#ffc46b"),
    "forest": ("#dcedc8", "#a5d6a7"),
    "stage": ("#4e342e", "#2b1d19"),
    "sunset": ("#ff7043", "#ffca28"),
}


def backdrop(rand: random.Random, plan: Plan) -> Backdrop:
    """A backdrop: the setting itself, a hill under standing figures, or a soft pattern."""
    top, bottom = rand.choice(PALETTES)
    style = rand.choice(STYLES)
    if plan.kind == "setting":
        style = plan.theme
        top, bottom = SKIES[plan.theme]
    elif plan.kind in _GROUNDED:
        style = "hill"
    return Backdrop(style, top, bottom)


def _width(box: cat.Box) -> float:
    return box[2] - box[0]


def _height(box: cat.Box) -> float:
    return box[3] - box[1]


def _around(boxes: list[cat.Box]) -> cat.Box:
    """The smallest box holding every one of ``boxes``."""
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _facing_of(native: cat.Facing, flip: bool) -> cat.Facing:
    if native == "front":
        return "front"
    if flip:
        return "right" if native == "left" else "left"
    return native


def _flip_to_face(native: cat.Facing, wanted: cat.Facing, rand: random.Random) -> bool:
    """Mirror a drawing that looks ``native`` so that it looks ``wanted``."""
    if native == "front" or wanted == "front":
        return rand.random() < 0.5
    return native != wanted


def compose(plan: Plan, rand: random.Random) -> list[Placed] | None:
    """Place the plan's emoji on a card, back to front: ``(emoji, role, placement)``.

    A layout that would not be readable (see :func:`legibility`) is drawn
    again, a few times; ``None`` if none is (the deck then plans the card
    otherwise, see :mod:`.cards`).
    """
    layout = _LAYOUTS[plan.kind]
    for _ in range(_ATTEMPTS):
        parts = layout(plan, rand)
        if legibility(parts).ok:
            return parts
    return None


_ATTEMPTS = 6


def _put(
    char: str, centre: tuple[float, float], side: float, rotate: float = 0.0, flip: bool = False
) -> Placement:
    """The emoji with its drawn part's centre at ``centre`` and its larger side ``side`` long."""
    x0, y0, x1, y1 = cat.content_box(char)
    size = side * 72.0 / max(x1 - x0, y1 - y0)
    return _placed_at(((x0 + x1) / 2, (y0 + y1) / 2), centre, size, rotate, flip)


def _stand(
    char: str, x: float, ground: float, side: float, rotate: float = 0.0, flip: bool = False
) -> Placement:
    """The emoji standing with the middle of its drawn bottom on ``(x, ground)``."""
    x0, y0, x1, y1 = cat.content_box(char)
    size = side * 72.0 / max(x1 - x0, y1 - y0)
    return _placed_at(((x0 + x1) / 2, y1), (x, ground), size, rotate, flip)


def _facing(char: str) -> cat.Facing:
    try:
        return cat.subject(char).facing
    except KeyError:
        return "front"


def _looking(char: str, towards: int, rand: random.Random) -> bool:
    """Whether to mirror ``char`` so that it looks towards -1 (left) or 1 (right)."""
    return _flip_to_face(_facing(char), "right" if towards > 0 else "left", rand)


def _share(rand: random.Random, low: float, high: float) -> float:
    return CARD_SIZE * rand.uniform(low, high)


def _within(x: float, half: float) -> float:
    """``x`` moved so that something ``half`` wide each way stays inside the margins."""
    return min(max(x, _MARGIN + half), CARD_SIZE - _MARGIN - half)


def _across(u: float, side: float) -> float:
    """The centre of something ``side`` long, ``u`` of the way across the card within the margins.

    ``u`` runs from -1 (against the left, or top, margin) through 0 (the middle) to 1
    (against the right, or bottom, margin).
    """
    return CARD_SIZE / 2 + u * (CARD_SIZE / 2 - _MARGIN - side / 2)


def _stand_facing(
    char: str, x: float, ground: float, side: float, tilt: float, way: int, rand: random.Random
) -> Placement:
    """``char`` standing on ``(x, ground)``, tilted up to ``tilt`` degrees, looking ``way``."""
    return _stand(char, x, ground, side, rand.uniform(-tilt, tilt), _looking(char, way, rand))


def _figure(plan: Plan, rand: random.Random) -> list[Placed]:
    """``dressed`` and ``ride``: a figure with what it wears, holds or sits in, filling the card."""
    subject = cat.subject(plan.subject)
    sbox = cat.content_box(subject.char)
    seat = cat.seat(plan.seat) if plan.seat else None

    flip = rand.random() < 0.5
    turn = rand.uniform(-6, 6) if seat else rand.uniform(-10, 10)
    body = Placement(0.0, 0.0, 72.0, turn, flip)
    facing = _facing_of(subject.facing, flip)
    world = body.box(sbox)
    big = max(_width(sbox), _height(sbox))

    placed: dict[Role, tuple[str, Placement]] = {"subject": (subject.char, body)}
    if plan.wearable:
        wear = cat.wearable(plan.wearable)
        placed["wearable"] = (plan.wearable, _wear(wear, subject, body, facing, rand))
    if plan.held:
        hbox = cat.content_box(plan.held)
        side = {"left": -1, "right": 1}.get(facing) or rand.choice((-1, 1))
        size = 72.0 * 0.55 * big / max(_width(hbox), _height(hbox)) * rand.uniform(0.9, 1.1)
        edge = world[2] if side > 0 else world[0]
        target = (edge + side * 0.1 * size, world[1] + 0.55 * _height(world))
        hold = _placed_at(
            ((hbox[0] + hbox[2]) / 2, (hbox[1] + hbox[3]) / 2),
            target,
            size,
            side * rand.uniform(5, 22),
            side < 0,
        )
        placed["held"] = (plan.held, hold)
    if seat:
        placed["seat"] = (seat.char, _seat(seat, subject, body, facing, rand))
    order: tuple[Role, ...]
    if seat and seat.mode == "in":
        order = ("subject", "seat", "wearable", "held")
    else:
        order = ("seat", "subject", "wearable", "held")
    return _fit([(placed[r][0], r, placed[r][1]) for r in order if r in placed])


def _setting(plan: Plan, rand: random.Random) -> list[Placed]:
    """A figure standing (or floating) large in its setting."""
    ground = scenes.setting(plan.theme).ground
    side = _share(rand, 0.6, 0.7)
    x = _within(CARD_SIZE / 2 + rand.uniform(-20, 20), side / 2)
    flip = rand.random() < 0.5
    turn = rand.uniform(-6, 6)
    if ground is None:
        place = _put(plan.subject, (x, CARD_SIZE * rand.uniform(0.47, 0.53)), side, turn, flip)
    else:
        place = _stand(plan.subject, x, CARD_SIZE * ground, side, turn, flip)
    return [(plan.subject, "subject", place)]


def _crowd(plan: Plan, rand: random.Random) -> list[Placed]:
    """A swarm in rows, a parade in perspective, or a swarm with one odd one out."""
    if plan.theme == "parade":
        return _parade(plan, rand)
    cell = (CARD_SIZE - 2 * _MARGIN) / 3
    # Three in the back row, two between them in the middle, three in front.
    spots = [(0, c + 0.5) for c in range(3)] + [(1, c) for c in (1, 2)]
    spots += [(2, c + 0.5) for c in range(3)]
    front = (2, 1.5)
    for gone in rand.sample([s for s in spots if s != front], rand.choice((0, 1, 2))):
        spots.remove(gone)
    odd = rand.choice([s for s in spots if s != front]) if plan.other else None
    parts: list[Placed] = []
    for row, col in spots:  # back rows first
        side = _share(rand, 0.27, 0.3)
        x = _within(_MARGIN + cell * col + rand.uniform(-5, 5), side / 2)
        y = CARD_SIZE * (0.2 + 0.3 * row) + rand.uniform(-4, 4)
        char = plan.subject
        role: Role = "subject" if (row, col) == front else "member"
        if (row, col) == odd and plan.other:
            char, role = plan.other, "other"
        flip = rand.random() < 0.5
        parts.append((char, role, _put(char, (x, y), side, rand.uniform(-10, 10), flip)))
    return parts


def _parade(plan: Plan, rand: random.Random) -> list[Placed]:
    count = rand.choice((4, 5))
    way = rand.choice((-1, 1))  # the side the parade walks towards
    flip = _looking(plan.subject, way, rand)
    parts: list[Placed] = []
    for i in range(count):  # from the back (small, high) to the front
        t = i / (count - 1)
        side = CARD_SIZE * (0.27 + 0.17 * t)
        x = CARD_SIZE / 2 + way * CARD_SIZE * (-0.27 + 0.54 * t)
        ground = CARD_SIZE * (0.42 + 0.5 * t)
        role: Role = "subject" if i == count - 1 else "member"
        parts.append(
            (
                plan.subject,
                role,
                _stand(plan.subject, _within(x, side / 2), ground, side, rand.uniform(-4, 4), flip),
            )
        )
    return parts


def _face(plan: Plan, rand: random.Random) -> list[Placed]:
    """A big face, and what it feels about in a lower corner."""
    assert plan.other is not None
    way = rand.choice((-1, 1))
    side = _share(rand, 0.66, 0.72)
    centre = (
        _within(CARD_SIZE / 2 - way * rand.uniform(8, 20), side / 2),
        CARD_SIZE * rand.uniform(0.4, 0.46),
    )
    face = _put(plan.subject, centre, side, rand.uniform(-6, 6))
    small = _share(rand, 0.34, 0.4)
    spot = (_across(way, small), CARD_SIZE - _MARGIN - small / 2)
    thing = _put(plan.other, spot, small, rand.uniform(-12, 12), rand.random() < 0.5)
    return [(plan.subject, "subject", face), (plan.other, "other", thing)]


def _pair(plan: Plan, rand: random.Random) -> list[Placed]:
    """Two figures facing each other, with the sign of their bond between them."""
    assert plan.other is not None and plan.mark is not None
    ground = CARD_SIZE * 0.9
    ways = (1, -1) if rand.random() < 0.5 else (-1, 1)  # either may stand on the left
    parts: list[Placed] = []
    for (char, role), way in zip(
        ((plan.subject, "subject"), (plan.other, "other")), ways, strict=True
    ):
        side = _share(rand, 0.5, 0.53)
        x = CARD_SIZE / 2 - way * CARD_SIZE * rand.uniform(0.22, 0.25)
        place = _stand_facing(char, _within(x, side / 2), ground, side, 5, way, rand)
        parts.append((char, role, place))  # type: ignore[arg-type]
    mark = _put(
        plan.mark,
        (CARD_SIZE / 2, CARD_SIZE * rand.uniform(0.2, 0.24)),
        _share(rand, 0.24, 0.28),
        rand.uniform(-10, 10),
    )
    return [*parts, (plan.mark, "mark", mark)]


def _shape(plan: Plan, rand: random.Random) -> list[Placed]:
    """A heart, a star or a ring of one thing, or a tower of it."""
    if plan.theme == "tower":
        return _tower(plan, rand)
    points = _outline(plan.theme)
    side = _share(rand, 0.21, 0.23)
    parts: list[Placed] = []
    for i, (u, v) in enumerate(points):
        centre = (_across(u, side), _across(v, side))
        role: Role = "subject" if i == 0 else "member"
        place = _put(plan.subject, centre, side, rand.uniform(-15, 15), rand.random() < 0.5)
        parts.append((plan.subject, role, place))
    return parts


def _outline(shape: str) -> list[tuple[float, float]]:
    """Points along a shape, in units of half the card from its centre (the first at the bottom)."""
    if shape == "heart":
        # The classic heart curve, sampled evenly along its length.
        curve = [
            (
                16 * math.sin(t) ** 3,
                -(13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)),
            )
            for t in (math.pi + 2 * math.pi * i / 600 for i in range(600))
        ]
        return [(x / 16, (y - 2.5) / 14.5) for x, y in _even(curve, 10)]
    if shape == "star":
        return [
            (r * math.sin(a), -r * math.cos(a))
            for k in range(10)
            for r, a in [(1.0 if k % 2 == 0 else 0.45, math.pi + k * math.pi / 5)]
        ]
    return [(math.sin(a), -math.cos(a)) for a in (math.pi + k * math.pi / 4 for k in range(8))]


def _even(curve: list[tuple[float, float]], count: int) -> list[tuple[float, float]]:
    """``count`` points spread evenly along a closed curve, from its first point."""
    closed = [*curve, curve[0]]
    steps = [math.dist(a, b) for a, b in itertools.pairwise(closed)]
    total = sum(steps)
    out, walked, i = [], 0.0, 0
    for k in range(count):
        goal = total * k / count
        while walked + steps[i] < goal:
            walked += steps[i]
            i += 1
        out.append(closed[i])
    return out


def _tower(plan: Plan, rand: random.Random) -> list[Placed]:
    x0, y0, x1, y1 = cat.content_box(plan.subject)
    count = 4
    # Four storeys, each overlapping the one below a little, fill the card's
    # height, however flat the thing (a sushi is wide, a bottle tall).
    tall = (CARD_SIZE - 2 * _MARGIN) * rand.uniform(0.25, 0.28)
    side = min(tall * max(x1 - x0, y1 - y0) / (y1 - y0), CARD_SIZE * 0.55)
    tall = side * (y1 - y0) / max(x1 - x0, y1 - y0)
    step = min(0.85 * tall, (CARD_SIZE - 2 * _MARGIN - tall) / (count - 1))
    ground = CARD_SIZE - _MARGIN
    parts: list[Placed] = []
    for i in range(count):  # from the bottom up: each drawn over the one below
        x = CARD_SIZE / 2 + rand.uniform(-10, 10)
        role: Role = "subject" if i == 0 else "member"
        place = _stand(
            plan.subject, x, ground - i * step, side, rand.uniform(-8, 8), rand.random() < 0.5
        )
        parts.append((plan.subject, role, place))
    return parts


def _sign(plan: Plan, rand: random.Random) -> list[Placed]:
    """A figure with the sign of its state by its head, or on a prohibition sign."""
    assert plan.mark is not None
    if plan.theme == "forbidden":
        side = _share(rand, 0.56, 0.6)
        figure = _put(
            plan.subject,
            (CARD_SIZE / 2, CARD_SIZE / 2),
            side,
            rand.uniform(-6, 6),
            rand.random() < 0.5,
        )
        # OpenMoji's sign is filled white: behind the figure, like a sticker
        # on it, its ring and bar still show all round.
        sign = _put(plan.mark, (CARD_SIZE / 2, CARD_SIZE / 2), CARD_SIZE - 2 * _MARGIN)
        return [(plan.mark, "mark", sign), (plan.subject, "subject", figure)]
    way = rand.choice((-1, 1))
    side = _share(rand, 0.6, 0.66)
    x = _within(CARD_SIZE / 2 - way * CARD_SIZE * 0.1, side / 2)
    figure = _stand_facing(plan.subject, x, CARD_SIZE - _MARGIN, side, 6, way, rand)
    small = _share(rand, 0.28, 0.32)
    spot = (_across(way, small), _MARGIN + small / 2 + rand.uniform(0, 8))
    mark = _put(plan.mark, spot, small, rand.uniform(-12, 12))
    return [(plan.subject, "subject", figure), (plan.mark, "mark", mark)]


def _sizes(plan: Plan, rand: random.Random) -> list[Placed]:
    """A giant small thing, and a tiny big thing at its foot."""
    assert plan.other is not None
    way = rand.choice((-1, 1))
    ground = CARD_SIZE * 0.93
    side = _share(rand, 0.7, 0.76)
    x = _within(CARD_SIZE / 2 - way * 22, side / 2)
    giant = _stand(plan.subject, x, ground, side, rand.uniform(-5, 5), rand.random() < 0.5)
    small = _share(rand, 0.25, 0.28)
    tiny = _stand_facing(plan.other, _across(way, small), ground, small, 4, -way, rand)
    return [(plan.subject, "subject", giant), (plan.other, "other", tiny)]


def _doing(plan: Plan, rand: random.Random) -> list[Placed]:
    """A figure with the tool of what it does, held out on the side it faces."""
    assert plan.mark is not None
    way = rand.choice((-1, 1))
    side = _share(rand, 0.58, 0.64)
    x = _within(CARD_SIZE / 2 - way * CARD_SIZE * 0.12, side / 2)
    figure = _stand_facing(plan.subject, x, CARD_SIZE - _MARGIN, side, 5, way, rand)
    tool = _share(rand, 0.4, 0.46)
    spot = (_across(way, tool), CARD_SIZE * rand.uniform(0.34, 0.42))
    # Tools are drawn leaning right: mirrored on the left.
    held = _put(plan.mark, spot, tool, way * rand.uniform(0, 12), way < 0)
    return [(plan.subject, "subject", figure), (plan.mark, "mark", held)]


def _family(plan: Plan, rand: random.Random) -> list[Placed]:
    """A parent and its child, side by side, the child looking up at the parent."""
    way = rand.choice((-1, 1))  # where the child stands
    ground = CARD_SIZE * 0.92
    side = _share(rand, 0.6, 0.66)
    x = _within(CARD_SIZE / 2 - way * 30, side / 2)
    parent = _stand_facing(plan.subject, x, ground, side, 4, way, rand)
    small = _share(rand, 0.31, 0.35)
    child = _stand_facing(plan.subject, _across(way, small), ground, small, 6, -way, rand)
    return [(plan.subject, "subject", parent), (plan.subject, "member", child)]


# Where the cloud of the thought bubble (💭) is, in its drawing: the dream goes there.
_CLOUD = (36.5, 29.0)


def _dream(plan: Plan, rand: random.Random) -> list[Placed]:
    """A figure asleep in a lower corner, its dream in a thought bubble above."""
    assert plan.other is not None and plan.mark is not None
    way = rand.choice((-1, 1))  # the side the bubble is on
    side = _share(rand, 0.5, 0.56)
    sleeper = _stand_facing(
        plan.subject, _across(-way, side), CARD_SIZE - _MARGIN, side, 8, way, rand
    )
    bubble_side = _share(rand, 0.58, 0.62)
    # The bubble's tail points down-left as drawn: mirrored when the bubble is on the left.
    centre = (_across(way, bubble_side), _MARGIN + bubble_side / 2)
    bubble = _put(plan.mark, centre, bubble_side, 0.0, way < 0)
    dream = _put(
        plan.other,
        bubble.point(*_CLOUD),
        bubble_side * 0.5,
        rand.uniform(-8, 8),
        rand.random() < 0.5,
    )
    return [
        (plan.subject, "subject", sleeper),
        (plan.mark, "mark", bubble),
        (plan.other, "other", dream),
    ]


_LAYOUTS = {
    "dressed": _figure,
    "ride": _figure,
    "setting": _setting,
    "crowd": _crowd,
    "face": _face,
    "pair": _pair,
    "shape": _shape,
    "sign": _sign,
    "sizes": _sizes,
    "doing": _doing,
    "family": _family,
    "dream": _dream,
}


def _wear(
    wear: cat.Wearable,
    subject: cat.Subject,
    body: Placement,
    facing: cat.Facing,
    rand: random.Random,
) -> Placement:
    sbox = cat.content_box(subject.char)
    hx0, hy0, hx1, hy1 = subject.head or sbox
    hw, hh = hx1 - hx0, hy1 - hy0
    # A flat thing (a slice of bread) gets a hat for its height, not its
    # width; a small head (a giraffe's) still gets one that can be seen.
    hw = max(min(hw, 1.1 * hh), 0.4 * max(_width(sbox), _height(sbox)))
    cx = (hx0 + hx1) / 2
    turn = body.rotate + rand.uniform(-6, 6)
    flip = False
    if wear.slot == "head":
        point = (cx, hy0 + wear.sink * hh)
    elif wear.slot == "ear":
        side = rand.choice((-1, 1))
        point = (cx + side * 0.3 * (hx1 - hx0), hy0 + 0.1 * hh)
        turn += side * rand.uniform(12, 28) * (-1 if body.flip else 1)
        flip = rand.random() < 0.5
    elif wear.slot == "eyes":
        point = subject.eyes or (cx, hy0 + 0.42 * hh)
    elif subject.face:
        point = (cx, hy1 - 0.06 * hh)
    else:
        # A thing's "neck" is a little below its middle (a cactus, a bottle).
        point = (cx, hy0 + 0.55 * hh)
    if wear.facing != "front":
        flip = _flip_to_face(wear.facing, facing, rand)
    size = 72.0 * wear.fit * hw / wear.span * rand.uniform(0.92, 1.1)
    return _placed_at(wear.anchor, body.point(*point), size, turn, flip)


def _seat(
    seat: cat.Seat,
    subject: cat.Subject,
    body: Placement,
    facing: cat.Facing,
    rand: random.Random,
) -> Placement:
    sbox = cat.content_box(subject.char)
    world = body.box(sbox)
    if seat.mode == "in":
        # The subject fills the opening, so that it is in, not on, the seat.
        size = 72.0 * _width(world) / seat.width * rand.uniform(1.0, 1.12)
    else:
        # The subject stays the star: about as big as what it rides.
        tbox = cat.content_box(seat.char)
        ratio = rand.uniform(0.9, 1.15) * seat.scale
        size = 72.0 * max(_width(world), _height(world)) / ratio / max(_width(tbox), _height(tbox))
    k = size / 72.0
    turn = rand.uniform(-3, 3)
    flip = _flip_to_face(seat.facing, facing, rand)
    bottom = body.point((sbox[0] + sbox[2]) / 2, sbox[3])
    if seat.mode == "hang":
        target = body.point((sbox[0] + sbox[2]) / 2, sbox[1] + 0.05 * _height(sbox))
    elif seat.mode == "in":
        floor = seat.floor if seat.floor is not None else seat.at[1] + 12
        depth = min(0.2 * _height(world), (floor - seat.at[1]) * k)
        target = (bottom[0], bottom[1] - depth)
    else:
        target = (bottom[0], bottom[1] - 0.04 * _height(world))
    return _placed_at(seat.at, target, size, turn, flip)


def _fit(parts: list[Placed]) -> list[Placed]:
    """Scale and move the group so that it fills the card inside the margins."""
    x0, y0, x1, y1 = _around([p.box(cat.content_box(char)) for char, _, p in parts])
    span = CARD_SIZE - 2 * _MARGIN
    factor = min(span / (x1 - x0), span / (y1 - y0))
    dx = CARD_SIZE / 2 - factor * (x0 + x1) / 2
    dy = CARD_SIZE / 2 - factor * (y0 + y1) / 2
    return [(char, role, p.scaled(factor, dx, dy)) for char, role, p in parts]


# -- readable at hand size ---------------------------------------------------------------


@dataclass(frozen=True)
class Legibility:
    """How readable a layout is, from each emoji's drawn box as a share of the card.

    ``subject`` is the larger side of the main figure's box (of the whole
    group for a crowd or a shape) as a share of the card's side; ``smallest``
    the same for the smallest emoji on the card; ``hidden`` the largest share
    of an emoji's drawing that emoji drawn over it cover (what a figure wears
    aside, and a seat or a sign under the figure on it); ``inside`` the smallest share
    of an emoji's box that lies on the card.
    """

    subject: float
    smallest: float
    hidden: float
    inside: float

    @property
    def ok(self) -> bool:
        """Whether every measure is within :data:`LIMITS`."""
        return (
            self.subject >= LIMITS["subject"]
            and self.smallest >= LIMITS["smallest"]
            and self.hidden <= LIMITS["hidden"]
            and self.inside >= LIMITS["inside"]
        )


#: At hand size (about 100 px) a fifth of the card is 20 px, about the
#: smallest an OpenMoji drawing is still told apart at; the main figure takes
#: at least half the card's side; nothing is more than half hidden or cut off.
LIMITS = {"subject": 0.5, "smallest": 0.2, "hidden": 0.5, "inside": 0.9}

# What a figure wears is part of it, and a seat or a sign is seen around the
# figure on it: neither counts as hidden by the figure.
_AROUND = frozenset({"seat", "mark"})


def legibility(parts: list[Placed]) -> Legibility:
    """Measure a layout (see :class:`Legibility`)."""
    boxes = [p.box(cat.content_box(char)) for char, _, p in parts]
    sides = [max(b[2] - b[0], b[3] - b[1]) / CARD_SIZE for b in boxes]
    group = [
        b for (_, role, _), b in zip(parts, boxes, strict=True) if role in ("subject", "member")
    ]
    if len(group) > 1:
        x0, y0, x1, y1 = _around(group)
        subject = max(x1 - x0, y1 - y0) / CARD_SIZE
    else:
        subject = next(s for (_, r, _), s in zip(parts, sides, strict=True) if r == "subject")
    hidden = 0.0
    for i, box in enumerate(boxes):
        under = parts[i][1]
        over = [
            b
            for (_, r, _), b in zip(parts[i + 1 :], boxes[i + 1 :], strict=True)
            if r != "wearable" and not (under in _AROUND and r == "subject")
        ]
        hidden = max(hidden, _covered(box, over))
    inside = min(_inside(b) for b in boxes)
    return Legibility(round(subject, 3), round(min(sides), 3), round(hidden, 3), round(inside, 3))


def _inside(box: cat.Box) -> float:
    """The share of ``box`` on the card."""
    x0, y0, x1, y1 = box
    w = max(0.0, min(x1, CARD_SIZE) - max(x0, 0.0))
    h = max(0.0, min(y1, CARD_SIZE) - max(y0, 0.0))
    return w * h / ((x1 - x0) * (y1 - y0))


def _covered(box: cat.Box, others: list[cat.Box]) -> float:
    """The share of the drawing in ``box`` that lies under the drawings in ``others``.

    Emoji drawings are roundish: each is taken as the ellipse inscribed in its
    box (sampled on a grid), which is much nearer the truth than the box.
    """
    x0, y0, x1, y1 = box
    near = [o for o in others if o[0] < x1 and o[2] > x0 and o[1] < y1 and o[3] > y0]
    if not near:
        return 0.0
    xs = x0 + (x1 - x0) * _GRID[:, 0:1]
    ys = y0 + (y1 - y0) * _GRID[:, 1:2]
    o = np.array(near)
    a, b = (o[:, 2] - o[:, 0]) / 2, (o[:, 3] - o[:, 1]) / 2
    inside = ((xs - o[:, 0] - a) / a) ** 2 + ((ys - o[:, 1] - b) / b) ** 2 <= 1.0
    return float(inside.any(axis=1).mean())


def _grid(steps: int = 12) -> np.ndarray:
    """Points of the unit square inside its inscribed circle, on a grid."""
    u = (np.arange(steps) + 0.5) / steps
    uu, vv = np.meshgrid(u, u)
    keep = (uu - 0.5) ** 2 + (vv - 0.5) ** 2 <= 0.25
    return np.stack([uu[keep], vv[keep]], axis=1)


_GRID = _grid()

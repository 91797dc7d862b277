"""Laying out a card's scene: where each emoji goes, how big, turned and mirrored how.

Each kind of scene (see :mod:`.scenes`) has its own layout, in card units
(the card is :data:`CARD_SIZE` square):

* ``dressed`` and ``ride`` build a figure in its own 72-unit drawing space —
  a hat on the head, glasses on the eyes, a held thing at the side, a seat
  under it (in front of it when the figure is *in* the seat) — and scale the
  group to fill the card (:mod:`.figures`);
* the others place each emoji by the share of the card it takes: a figure
  standing in a setting, a crowd in rows, a parade in perspective, a big face
  with what it feels about in a corner, a pair facing each other under a sign,
  a heart or a ring of one thing, a giant small thing beside a tiny big one…

Every layout keeps the card readable at hand size (about 100 pixels):
:func:`legibility` measures it from the layout alone, and :data:`LIMITS` says
what is enough (the tests check every kind over many seeds; see
:mod:`.legibility`).  A plan, a placement and the card's units are in
:mod:`.placement`, the card's background in :mod:`.backdrops`.

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

from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori import scenes
from bodoge.games.illustori.backdrops import Backdrop, backdrop
from bodoge.games.illustori.figures import figure_layout
from bodoge.games.illustori.legibility import LIMITS, Legibility, legibility
from bodoge.games.illustori.placement import (
    CARD_SIZE,
    MARGIN,
    Placed,
    Placement,
    Plan,
    Role,
    flip_to_face,
    placed_at,
)

# The layout's public names, wherever they are defined, so that a card is laid out
# and checked through this one module.
__all__ = [
    "CARD_SIZE",
    "LIMITS",
    "Backdrop",
    "Legibility",
    "Placed",
    "Placement",
    "Plan",
    "Role",
    "backdrop",
    "compose",
    "legibility",
]


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
    return placed_at(((x0 + x1) / 2, (y0 + y1) / 2), centre, size, rotate, flip)


def _stand(
    char: str, x: float, ground: float, side: float, rotate: float = 0.0, flip: bool = False
) -> Placement:
    """The emoji standing with the middle of its drawn bottom on ``(x, ground)``."""
    x0, y0, x1, y1 = cat.content_box(char)
    size = side * 72.0 / max(x1 - x0, y1 - y0)
    return placed_at(((x0 + x1) / 2, y1), (x, ground), size, rotate, flip)


def _facing(char: str) -> cat.Facing:
    try:
        return cat.subject(char).facing
    except KeyError:
        return "front"


def _looking(char: str, towards: int, rand: random.Random) -> bool:
    """Whether to mirror ``char`` so that it looks towards -1 (left) or 1 (right)."""
    return flip_to_face(_facing(char), "right" if towards > 0 else "left", rand)


def _share(rand: random.Random, low: float, high: float) -> float:
    return CARD_SIZE * rand.uniform(low, high)


def _within(x: float, half: float) -> float:
    """``x`` moved so that something ``half`` wide each way stays inside the margins."""
    return min(max(x, MARGIN + half), CARD_SIZE - MARGIN - half)


def _across(u: float, side: float) -> float:
    """The centre of something ``side`` long, ``u`` of the way across the card within the margins.

    ``u`` runs from -1 (against the left, or top, margin) through 0 (the middle) to 1
    (against the right, or bottom, margin).
    """
    return CARD_SIZE / 2 + u * (CARD_SIZE / 2 - MARGIN - side / 2)


def _stand_facing(
    char: str, x: float, ground: float, side: float, tilt: float, way: int, rand: random.Random
) -> Placement:
    """``char`` standing on ``(x, ground)``, tilted up to ``tilt`` degrees, looking ``way``."""
    return _stand(char, x, ground, side, rand.uniform(-tilt, tilt), _looking(char, way, rand))


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
    cell = (CARD_SIZE - 2 * MARGIN) / 3
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
        x = _within(MARGIN + cell * col + rand.uniform(-5, 5), side / 2)
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
    spot = (_across(way, small), CARD_SIZE - MARGIN - small / 2)
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
    tall = (CARD_SIZE - 2 * MARGIN) * rand.uniform(0.25, 0.28)
    side = min(tall * max(x1 - x0, y1 - y0) / (y1 - y0), CARD_SIZE * 0.55)
    tall = side * (y1 - y0) / max(x1 - x0, y1 - y0)
    step = min(0.85 * tall, (CARD_SIZE - 2 * MARGIN - tall) / (count - 1))
    ground = CARD_SIZE - MARGIN
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
        sign = _put(plan.mark, (CARD_SIZE / 2, CARD_SIZE / 2), CARD_SIZE - 2 * MARGIN)
        return [(plan.mark, "mark", sign), (plan.subject, "subject", figure)]
    way = rand.choice((-1, 1))
    side = _share(rand, 0.6, 0.66)
    x = _within(CARD_SIZE / 2 - way * CARD_SIZE * 0.1, side / 2)
    figure = _stand_facing(plan.subject, x, CARD_SIZE - MARGIN, side, 6, way, rand)
    small = _share(rand, 0.28, 0.32)
    spot = (_across(way, small), MARGIN + small / 2 + rand.uniform(0, 8))
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
    if cat.all_head(plan.subject):
        # A figure that is all head: the tool low beside it, not stuck into its face.
        side = _share(rand, 0.52, 0.56)
        figure = _stand_facing(
            plan.subject, _across(-way, side), CARD_SIZE * 0.68, side, 5, way, rand
        )
        tool = _share(rand, 0.34, 0.38)
        spot = (_across(way, tool), CARD_SIZE - MARGIN - tool / 2)  # in the lower corner
        held = _put(plan.mark, spot, tool, way * rand.uniform(0, 12), way < 0)
        return [(plan.subject, "subject", figure), (plan.mark, "mark", held)]
    side = _share(rand, 0.58, 0.64)
    x = _within(CARD_SIZE / 2 - way * CARD_SIZE * 0.12, side / 2)
    figure = _stand_facing(plan.subject, x, CARD_SIZE - MARGIN, side, 5, way, rand)
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
        plan.subject, _across(-way, side), CARD_SIZE - MARGIN, side, 8, way, rand
    )
    bubble_side = _share(rand, 0.58, 0.62)
    # The bubble's tail points down-left as drawn: mirrored when the bubble is on the left.
    centre = (_across(way, bubble_side), MARGIN + bubble_side / 2)
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
    "dressed": figure_layout,
    "ride": figure_layout,
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

"""Laying out a card's scene: where each emoji goes, how big, turned and mirrored how.

A scene is built around the subject in its own 72-unit drawing space: a hat
goes to the subject's head, glasses to its eyes, a held thing to its side, a
seat under it (in front of it when the subject is *in* the seat).  The whole
group is then scaled to fill the card, and a piece of scenery and a soft
backdrop go behind it.

>>> from bodoge.core.rng import rng
>>> cast = Cast(subject="🐳", wearable="👑", seat="🍵")
>>> [(char, role) for char, role, _ in compose(cast, rng(1, "example"))]
[('🐳', 'subject'), ('🍵', 'seat'), ('👑', 'wearable')]
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Literal

from bodoge.games.illustori import emoji_catalogue as cat

__all__ = ["CARD_SIZE", "Backdrop", "Cast", "Placement", "Role", "backdrop", "compose"]

#: Cards are square; every coordinate on a card is in these units.
CARD_SIZE = 240.0
_MARGIN = 14.0

Role = Literal["subject", "wearable", "held", "seat", "scenery"]


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
class Cast:
    """The emoji a scene is made of: a subject and up to three others."""

    subject: str
    wearable: str | None = None
    held: str | None = None
    seat: str | None = None
    scenery: str | None = None


@dataclass(frozen=True)
class Backdrop:
    """The card's background: a soft two-colour gradient and a simple shape.

    ``style`` is one of ``plain``, ``rays``, ``dots``, ``hill`` and ``halo``.
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


def backdrop(rand: random.Random, scenery: cat.Scenery | None = None) -> Backdrop:
    """A backdrop; ground scenery stands on a hill."""
    top, bottom = rand.choice(PALETTES)
    style = rand.choice(STYLES)
    if scenery is not None and scenery.place == "ground":
        style = "hill"
    return Backdrop(style, top, bottom)


def _width(box: cat.Box) -> float:
    return box[2] - box[0]


def _height(box: cat.Box) -> float:
    return box[3] - box[1]


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


def compose(cast: Cast, rand: random.Random) -> list[tuple[str, Role, Placement]]:
    """Place the cast on a card, back to front: ``(emoji, role, placement)``."""
    subject = cat.subject(cast.subject)
    sbox = cat.content_box(subject.char)
    seat = cat.seat(cast.seat) if cast.seat else None

    flip = rand.random() < 0.5
    turn = rand.uniform(-6, 6) if seat else rand.uniform(-10, 10)
    body = Placement(0.0, 0.0, 72.0, turn, flip)
    facing = _facing_of(subject.facing, flip)
    world = body.box(sbox)
    big = max(_width(sbox), _height(sbox))

    placed: dict[Role, tuple[str, Placement]] = {"subject": (subject.char, body)}

    if cast.wearable:
        placed["wearable"] = (
            cast.wearable,
            _wear(cat.wearable(cast.wearable), subject, body, facing, rand),
        )

    if cast.held:
        hbox = cat.content_box(cast.held)
        side = {"left": -1, "right": 1}.get(facing) or rand.choice((-1, 1))
        size = 72.0 * 0.5 * big / max(_width(hbox), _height(hbox)) * rand.uniform(0.85, 1.1)
        # An "in" seat hides the lower body, so hold the thing up higher.
        height = 0.35 if seat and seat.mode == "in" else 0.55
        edge = world[2] if side > 0 else world[0]
        target = (edge + side * 0.12 * size, world[1] + height * _height(world))
        hold = _placed_at(
            ((hbox[0] + hbox[2]) / 2, (hbox[1] + hbox[3]) / 2),
            target,
            size,
            side * rand.uniform(5, 22),
            side < 0,
        )
        placed["held"] = (cast.held, hold)

    if seat:
        placed["seat"] = (seat.char, _seat(seat, subject, body, facing, rand))

    order: tuple[Role, ...]
    if seat and seat.mode == "in":
        order = ("subject", "seat", "wearable", "held")
    else:
        order = ("seat", "subject", "wearable", "held")
    parts: list[tuple[str, Role, Placement]] = [
        (placed[role][0], role, placed[role][1]) for role in order if role in placed
    ]
    if cast.scenery:
        scenery = cat.scenery(cast.scenery)
        side = rand.choice((-1, 1))
        parts = _fit(parts, room=0.8, side=-side, up=scenery.place == "ground")
        parts.insert(0, (scenery.char, "scenery", _scenery(scenery, side, rand)))
    else:
        parts = _fit(parts)
    return parts


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
        # The subject stays the star: a little smaller than what it rides.
        tbox = cat.content_box(seat.char)
        ratio = rand.uniform(0.6, 0.85) * seat.scale
        size = 72.0 * max(_width(world), _height(world)) / ratio / max(_width(tbox), _height(tbox))
    k = size / 72.0
    turn = rand.uniform(-3, 3)
    flip = _flip_to_face(seat.facing, facing, rand)
    bottom = body.point((sbox[0] + sbox[2]) / 2, sbox[3])
    if seat.mode == "hang":
        target = body.point((sbox[0] + sbox[2]) / 2, sbox[1] + 0.05 * _height(sbox))
    elif seat.mode == "in":
        floor = seat.floor if seat.floor is not None else seat.at[1] + 12
        depth = min(0.27 * _height(world), (floor - seat.at[1]) * k)
        target = (bottom[0], bottom[1] - depth)
    else:
        target = (bottom[0], bottom[1] - 0.04 * _height(world))
    return _placed_at(seat.at, target, size, turn, flip)


def _fit(
    parts: list[tuple[str, Role, Placement]],
    room: float = 1.0,
    side: int = 0,
    up: bool = False,
) -> list[tuple[str, Role, Placement]]:
    """Scale and move the group so that it fills the card, or ``room`` of it.

    With less room, the group moves towards ``side`` (-1 left, 1 right) and to
    the top if ``up`` (else the bottom), leaving the opposite corner to the
    scenery.
    """
    boxes = [p.box(cat.content_box(char)) for char, _, p in parts]
    x0 = min(b[0] for b in boxes)
    y0 = min(b[1] for b in boxes)
    x1 = max(b[2] for b in boxes)
    y1 = max(b[3] for b in boxes)
    span = CARD_SIZE - 2 * _MARGIN
    factor = min(span * room / (x1 - x0), span * room / (y1 - y0))
    slack = span * (1 - room) / 2
    dx = CARD_SIZE / 2 - factor * (x0 + x1) / 2 + side * slack
    dy = CARD_SIZE / 2 - factor * (y0 + y1) / 2 + (-slack if up else slack) * (1 if room < 1 else 0)
    return [(char, role, p.scaled(factor, dx, dy)) for char, role, p in parts]


def _scenery(scenery: cat.Scenery, side: int, rand: random.Random) -> Placement:
    """Scenery in a top corner (sky) or a bottom one (ground) on ``side``."""
    box = cat.content_box(scenery.char)
    size = CARD_SIZE * rand.uniform(0.36, 0.44) * 72.0 / max(_width(box), _height(box))
    k = size / 72.0
    half_w = _width(box) * k / 2
    half_h = _height(box) * k / 2
    x = CARD_SIZE / 2 + side * (CARD_SIZE / 2 - _MARGIN * 0.6 - half_w)
    edge = _MARGIN * 0.6 + half_h
    y = edge if scenery.place == "sky" else CARD_SIZE - edge
    centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    return _placed_at(centre, (x, y), size, rand.uniform(-8, 8), rand.random() < 0.5)

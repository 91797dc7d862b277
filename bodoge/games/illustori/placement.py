"""What a card's layout is made of: the plan of a card, its units, and where an emoji goes.

A :class:`Plan` says what a card shows; laying it out (:mod:`.composition`)
gives each emoji a :class:`Placement` in card units (the card is
:data:`CARD_SIZE` square), with a :data:`Role` that says what it does in the
scene.  The box and facing helpers here are shared by every layout.

>>> around([(0, 0, 10, 10), (5, -5, 20, 8)])
(0, -5, 20, 10)
>>> facing_of("left", flip=True), facing_of("front", flip=True)
('right', 'front')
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Literal

from bodoge.games.illustori import emoji_catalogue as cat

#: Cards are square; every coordinate on a card is in these units.
CARD_SIZE = 240.0
MARGIN = 14.0

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


def placed_at(
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


def width(box: cat.Box) -> float:
    return box[2] - box[0]


def height(box: cat.Box) -> float:
    return box[3] - box[1]


def around(boxes: list[cat.Box]) -> cat.Box:
    """The smallest box holding every one of ``boxes``."""
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def facing_of(native: cat.Facing, flip: bool) -> cat.Facing:
    if native == "front":
        return "front"
    if flip:
        return "right" if native == "left" else "left"
    return native


def flip_to_face(native: cat.Facing, wanted: cat.Facing, rand: random.Random) -> bool:
    """Mirror a drawing that looks ``native`` so that it looks ``wanted``."""
    if native == "front" or wanted == "front":
        return rand.random() < 0.5
    return native != wanted

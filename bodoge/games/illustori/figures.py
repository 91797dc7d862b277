"""``dressed`` and ``ride``: a figure built with what it wears, holds or sits in.

The figure is drawn in its own 72-unit drawing space — a hat on the head,
glasses on the eyes, a held thing at the side, a seat under it (in front of
it when the figure is *in* the seat) — and the group is then scaled to fill
the card.
"""

from __future__ import annotations

import random

from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori.placement import (
    CARD_SIZE,
    MARGIN,
    Placed,
    Placement,
    Plan,
    Role,
    around,
    facing_of,
    flip_to_face,
    height,
    placed_at,
    width,
)


def figure_layout(plan: Plan, rand: random.Random) -> list[Placed]:
    """``dressed`` and ``ride``: a figure with what it wears, holds or sits in, filling the card."""
    subject = cat.subject(plan.subject)
    sbox = cat.content_box(subject.char)
    seat = cat.seat(plan.seat) if plan.seat else None

    flip = rand.random() < 0.5
    turn = rand.uniform(-6, 6) if seat else rand.uniform(-10, 10)
    body = Placement(0.0, 0.0, 72.0, turn, flip)
    facing = facing_of(subject.facing, flip)
    world = body.box(sbox)
    big = max(width(sbox), height(sbox))

    placed: dict[Role, tuple[str, Placement]] = {"subject": (subject.char, body)}
    if plan.wearable:
        wear = cat.wearable(plan.wearable)
        placed["wearable"] = (plan.wearable, _wear(wear, subject, body, facing, rand))
    if plan.held:
        hbox = cat.content_box(plan.held)
        side = {"left": -1, "right": 1}.get(facing) or rand.choice((-1, 1))
        size = 72.0 * 0.55 * big / max(width(hbox), height(hbox)) * rand.uniform(0.9, 1.1)
        edge = world[2] if side > 0 else world[0]
        if cat.all_head(subject.char):
            # A figure that is all head holds it at its side, low, clear of the face.
            half = 0.5 * size * width(hbox) / 72.0
            target = (edge + side * 1.05 * half, world[1] + 0.72 * height(world))
        else:
            target = (edge + side * 0.1 * size, world[1] + 0.55 * height(world))
        hold = placed_at(
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
    hw = max(min(hw, 1.1 * hh), 0.4 * max(width(sbox), height(sbox)))
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
        flip = flip_to_face(wear.facing, facing, rand)
    size = 72.0 * wear.fit * hw / wear.span * rand.uniform(0.92, 1.1)
    return placed_at(wear.anchor, body.point(*point), size, turn, flip)


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
        size = 72.0 * width(world) / seat.width * rand.uniform(1.0, 1.12)
    else:
        # The subject stays the star: about as big as what it rides.
        tbox = cat.content_box(seat.char)
        ratio = rand.uniform(0.9, 1.15) * seat.scale
        size = 72.0 * max(width(world), height(world)) / ratio / max(width(tbox), height(tbox))
    k = size / 72.0
    turn = rand.uniform(-3, 3)
    flip = flip_to_face(seat.facing, facing, rand)
    bottom = body.point((sbox[0] + sbox[2]) / 2, sbox[3])
    if seat.mode == "hang":
        target = body.point((sbox[0] + sbox[2]) / 2, sbox[1] + 0.05 * height(sbox))
    elif seat.mode == "in":
        floor = seat.floor if seat.floor is not None else seat.at[1] + 12
        depth = min(0.2 * height(world), (floor - seat.at[1]) * k)
        target = (bottom[0], bottom[1] - depth)
    else:
        target = (bottom[0], bottom[1] - 0.04 * height(world))
    return placed_at(seat.at, target, size, turn, flip)


def _fit(parts: list[Placed]) -> list[Placed]:
    """Scale and move the group so that it fills the card inside the margins."""
    x0, y0, x1, y1 = around([p.box(cat.content_box(char)) for char, _, p in parts])
    span = CARD_SIZE - 2 * MARGIN
    factor = min(span / (x1 - x0), span / (y1 - y0))
    dx = CARD_SIZE / 2 - factor * (x0 + x1) / 2
    dy = CARD_SIZE / 2 - factor * (y0 + y1) / 2
    return [(char, role, p.scaled(factor, dx, dy)) for char, role, p in parts]

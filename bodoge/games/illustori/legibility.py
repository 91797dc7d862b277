"""Whether a layout is readable at hand size (about 100 pixels), from the layout alone.

:func:`legibility` measures a layout, and :data:`LIMITS` says what is enough
(the tests check every kind of scene over many seeds).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori.placement import CARD_SIZE, Placed, around


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
    #: The largest share of a figure's head (:attr:`.Subject.head`) that a thing drawn
    #: over it covers: a held book, a tool, a rider on a dinosaur, a partner in front (what
    #: it wears is not counted) — a figure is told by its head.
    head: float = 0.0
    #: The largest share of a figure that is all head (a dog's face, an ogre, an alien: no
    #: head box) that a *thing* it holds covers (not another figure, nor a sign: those are
    #: ``head``): what it holds goes beside it, not into it.
    face: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether every measure is within :data:`LIMITS`."""
        return (
            self.subject >= LIMITS["subject"]
            and self.smallest >= LIMITS["smallest"]
            and self.hidden <= LIMITS["hidden"]
            and self.inside >= LIMITS["inside"]
            and self.head <= LIMITS["head"]
            and self.face <= LIMITS["face"]
        )


#: At hand size (about 100 px) a fifth of the card is 20 px, about the
#: smallest an OpenMoji drawing is still told apart at; the main figure takes
#: at least half the card's side; nothing is more than half hidden or cut off; a
#: figure's head is at most a fifth covered, and a figure that is all head hardly at
#: all (a thing held may touch it, not stick into it).
LIMITS = {
    "subject": 0.5,
    "smallest": 0.2,
    "hidden": 0.5,
    "inside": 0.9,
    "head": 0.2,
    "face": 0.04,
}

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
        x0, y0, x1, y1 = around(group)
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
    covered = {"head": 0.0, "face": 0.0}
    for i, (char, role, place) in enumerate(parts):
        found = _readable(char)
        if found is None or role in ("member", "mark", "wearable"):
            continue  # a crowd's members overlap as crowds do; a sign is seen around
        which, readable = found
        later = zip(parts[i + 1 :], boxes[i + 1 :], strict=True)
        above = [(c, r, b) for (c, r, _), b in later if r != "wearable"]
        head = place.box(readable)
        covered["head"] = max(covered["head"], _covered(head, [b for _, _, b in above]))
        if which == "face":
            # The strict limit is for a thing held (a guitar, a dream's cake), not for a
            # partner's shoulder nor a sign drawn from the head (a thought bubble's tail).
            things = [b for c, r, b in above if r != "mark" and _readable(c) is None]
            covered["face"] = max(covered["face"], _covered(head, things))
    return Legibility(
        round(subject, 3),
        round(min(sides), 3),
        round(hidden, 3),
        round(inside, 3),
        round(covered["head"], 3),
        round(covered["face"], 3),
    )


def _readable(char: str) -> tuple[str, cat.Box] | None:
    """The part of a figure that tells what it is, in its drawing: ``("head", box)`` for a
    figure with a head box, ``("face", box)`` for one that is all head (its whole drawing,
    or a big head's box: :func:`.all_head`); ``None`` for a thing (seen whole: ``hidden``
    keeps it so)."""
    try:
        figure = cat.subject(char)
    except KeyError:
        return None
    if figure.head is not None:
        return ("face" if cat.all_head(char) else "head"), figure.head
    return ("face", cat.content_box(char)) if figure.face else None


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

"""A card's background: a soft gradient and a simple shape, or the sky of its setting.

>>> from bodoge.core.rng import rng
>>> backdrop(rng(1, "example"), Plan("setting", "night", "🐱"))
Backdrop(style='night', top='#141b6b', bottom='#3d1a78')
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bodoge.games.illustori.placement import Plan


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

"""The bench's cheap Tagiron move picker (a client helper, also used by tests)."""

from __future__ import annotations

import random

from bodoge.core.values import JSON


def pick_move(view: dict[str, JSON], rng: random.Random) -> dict[str, JSON] | None:
    """A cheap legal Tagiron move: a random face-up question, else a pass."""
    from bodoge.games.tagiron.cards import CARDS

    if view["may_ask"]:
        card = rng.choice(view["face_up"])
        choices = CARDS[card].choices
        return {"type": "ask", "card": card, "choice": rng.choice(choices) if choices else None}
    if view["may_pass"]:
        return {"type": "pass"}
    return None

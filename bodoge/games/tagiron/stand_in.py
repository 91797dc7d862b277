"""What a stand-in plays for an absent Tagiron player (``Game.stand_in``).

A stand-in — the bot that plays a late turn, or the seat of a player who left — never
declares: a place is won only by the player's own deduction.  On the seat's turn it asks
(the question its bot chose, or the first face-up card when the bot would have declared);
when asking is over — a 2-player final declaration, the last turns after the cards ran out —
it passes, the rules' own way to decline a declaration (in a final declaration a pass counts
as a wrong one: the first player wins).  Out of turn it does nothing.  So an absent player
keeps what the rules give a player who never declares: with 3–4 players the last place when
the others' places are decided, or none when the cards run out.

>>> from bodoge.games.tagiron.game import TagironGame
>>> game = TagironGame()
>>> state = game.setup(game.options({"players": 2}), 2, seed=4)
>>> first, second = state.first, 1 - state.first
>>> state, _ = game.apply(state, first, Declare(state.hands[second]))
>>> stand_in(game.view(state, second), second, Declare(state.hands[first]))
Pass()
"""

from __future__ import annotations

from collections.abc import Mapping

from bodoge.core.game import Seat
from bodoge.core.values import JSON
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.moves import Ask, Declare, Pass, TagironMove


def stand_in(view: Mapping[str, JSON], seat: Seat, move: TagironMove | None) -> TagironMove | None:
    """The bot's ``move`` unless it declares; then a question, a pass, or nothing."""
    if not isinstance(move, Declare):
        return move
    if view.get("turn") != seat or view.get("phase") == "ended":
        return None  # out of turn a stand-in has nothing to do
    face_up = view.get("face_up")
    if view.get("may_ask") and isinstance(face_up, list) and face_up:
        card = str(face_up[0])
        choices = CARDS[card].choices
        return Ask(card, choices[0] if choices else None)
    if view.get("may_pass"):
        return Pass()
    return None

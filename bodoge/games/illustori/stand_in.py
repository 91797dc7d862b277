"""What a stand-in plays for an absent Illustori player (``Game.stand_in``).

A stand-in — the bot that plays a late turn, or the seat of a player who left — never plays a
card with a word: a card played out is a step toward winning that only the player's own word
may take.  Where its bot would play a card it **exchanges that one card** instead, the rules'
other whole turn, which keeps the hand as large as it was; when it votes it says **OK**, as the
rules count a missing vote when the vote's time runs out (`vote_limit`), so it neither sinks
nor carries another player's word by a choice of its own.  The first word, which nobody votes
on and which moves no card of a hand, it gives as its bot would: the game cannot start
without it.  So an absent player keeps the cards they held; a table of stand-ins still ends,
by the stalled-table rule (three rounds without a word), ranked by the cards each holds.

>>> from bodoge.games.illustori.moves import PlayCard, Vote
>>> stand_in({"phase": "play", "hand": [3, 8]}, 0, PlayCard(8, "たこ"))
Exchange(cards=(8,))
>>> stand_in({"phase": "vote", "hand": [3]}, 1, Vote(False))
Vote(ok=True)
"""

from __future__ import annotations

from collections.abc import Mapping

from bodoge.core.game import Seat
from bodoge.core.values import JSON
from bodoge.games.illustori.moves import Exchange, IllustoriMove, PlayCard, Vote


def stand_in(
    view: Mapping[str, JSON], seat: Seat, move: IllustoriMove | None
) -> IllustoriMove | None:
    """The bot's ``move``, but a played card exchanged and every vote OK."""
    if isinstance(move, PlayCard):
        return Exchange((move.card,))
    if isinstance(move, Vote):
        return Vote(True)
    return move

"""The table's facts that every game's view and events share: one name and one shape each.

As boardgame.io's ``ctx`` gives every game ``numPlayers``, ``currentPlayer`` and
``gameover``, every view holds :class:`TableFacts` (made by the game, since only
it knows who is awaited or how many cards a hand holds) and every game announces
a new turn and the end with the events defined here.  The server, the bots and
the pages can then read these facts the same way in any game; a game adds its
own fields beside them.

The names follow the rest of the protocol: ``you`` is the viewer's seat as in
the ``table`` frame, ``to_act`` the awaited seats as there, ``players`` the count
as in every game's options, and a count of things is ``<things>_count``.

>>> facts = TableFacts(players=2, you=None, turn=1, to_act=(1,), result=None,
...                    hand_counts=(5, 5), deck_count=12)
>>> facts.to_json()  # doctest: +NORMALIZE_WHITESPACE
{'players': 2, 'you': None, 'turn': 1, 'to_act': [1], 'result': None,
 'hand_counts': [5, 5], 'deck_count': 12}
>>> TurnStarted(1).to_json()
{'type': 'turn_started', 'seat': 1}
>>> GameEnded(Result((2, 1), "declared")).to_json()  # doctest: +NORMALIZE_WHITESPACE
{'type': 'game_ended', 'result': {'places': [2, 1], 'reason': 'declared', 'winners': [1]},
 'revealed': None}
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from bodoge.core.game import Event, Result, Seat
from bodoge.core.values import JSON

#: The keys :meth:`TableFacts.to_json` always gives (the others only for a game that has them).
FACT_KEYS = ("players", "you", "turn", "to_act", "result")


@dataclass(frozen=True)
class TableFacts:
    """What one viewer is told of the table in every game's view.

    * ``players`` — how many seats the game has;
    * ``you`` — the viewer's seat, ``None`` for a spectator;
    * ``turn`` — whose turn it is, ``None`` once the game is over (a game where
      several seats act at once still has one seat whose turn it is: during an
      Illustori vote, the player whose word is voted on);
    * ``to_act`` — the awaited seats the viewer may be told of
      (:meth:`~bodoge.core.game.Game.public_to_act`), in order;
    * ``result`` — how the game ended, ``None`` while it runs;
    * ``hand_counts`` — how many cards or tiles each seat holds, for a game with hands;
    * ``deck_count`` — how many are left to draw, for a game with a deck.

    What a seat may do beyond being awaited (ask, declare, vote) is each game's own.
    """

    players: int
    you: Seat | None
    turn: Seat | None
    to_act: Collection[Seat]
    result: Result | None
    hand_counts: Sequence[int] | None = None
    deck_count: int | None = None

    def to_json(self) -> dict[str, JSON]:
        data: dict[str, JSON] = {
            "players": self.players,
            "you": self.you,
            "turn": self.turn,
            "to_act": sorted(self.to_act),
            "result": None if self.result is None else self.result.to_json(),
        }
        # A game without hands or a deck has no such key, rather than a null that
        # would read as "unknown".
        if self.hand_counts is not None:
            data["hand_counts"] = list(self.hand_counts)
        if self.deck_count is not None:
            data["deck_count"] = self.deck_count
        return data


@dataclass(frozen=True)
class TurnStarted(Event):
    """``seat``'s turn begins (in every game, every seat may see it)."""

    seat: Seat

    def to_json(self) -> dict[str, JSON]:
        return {"type": "turn_started", "seat": self.seat}


@dataclass(frozen=True)
class GameEnded(Event):
    """The game is over, with ``result``.

    ``revealed`` is what the game shows everyone at its end beside the result,
    as JSON-ready data of the game's own (each game's schema says its shape):
    Tagiron's every tile, Illustori's hand counts then.  It is the one place a
    game adds to this event, so every ``game_ended`` reads the same way.
    """

    result: Result
    revealed: Mapping[str, JSON] | None = None

    def to_json(self) -> dict[str, JSON]:
        return {
            "type": "game_ended",
            "result": self.result.to_json(),
            "revealed": None if self.revealed is None else dict(self.revealed),
        }

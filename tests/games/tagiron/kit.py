"""Tagiron for the contract harness: random play, and which tiles a seat may not see.

Moves are made from their JSON form by the game itself, and log entries are
told apart by their fields, so this kit leans only on the state's fields and
on the tiles and the question cards, not on where the rules' classes live.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from bodoge.core.game import Event, Move, Seat
from bodoge.games import get
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.tiles import TILE_CODES, sort_hand
from tests.core.kit import GameKit, Secrets

GAME = get("tagiron")
Tagiron = Any  # a Tagiron state


def table(rng: random.Random) -> dict[str, object]:
    return {"players": rng.choice([2, 3, 4])}


def question(state: Tagiron, rng: random.Random) -> dict[str, object]:
    """One of the questions face up, with one of its numbers for a choice card."""
    card = rng.choice(state.face_up)
    choices = CARDS[card].choices
    return {"type": "ask", "card": card, "choice": rng.choice(choices) if choices else None}


def random_move(state: Tagiron, rng: random.Random) -> tuple[Seat | None, Move]:
    """Mostly a question; else a declaration or a pass by any seat that may act.

    One declaration in five is right, so that most games run for a while; the
    others name random tiles, sometimes out of hand order, which 2 players may
    not do.
    """
    kind = rng.choice(["ask"] * 12 + ["declare", "pass", "unordered"])
    if kind == "ask" and state.turn is not None and state.may_ask(state.turn):
        return state.turn, GAME.move_from_json(question(state, rng))
    seat = rng.choice(sorted(GAME.may_act(state)))
    if kind == "pass":
        return seat, GAME.move_from_json({"type": "pass"})
    target = state.target_of(seat)
    if rng.random() < 0.2:
        tiles = list(target)
    else:
        tiles = rng.choices(TILE_CODES, k=len(target))
        tiles = list(sort_hand(tiles)) if kind != "unordered" else tiles
    return seat, GAME.move_from_json({"type": "declare", "tiles": tiles})


def unheard(entry: object, seat: Seat | None) -> bool:
    """Whether ``entry`` is a declaration whose tiles ``seat`` did not hear."""
    heard_by = getattr(entry, "heard_by", None)
    return heard_by is not None and seat not in heard_by


def random_tiles(count: int, rng: random.Random) -> tuple[str, ...]:
    return sort_hand(rng.choices(TILE_CODES, k=count))


def state_twin(state: Tagiron, seat: Seat | None, rng: random.Random) -> Tagiron:
    """The tiles ``seat`` cannot see dealt afresh, and declarations it did not hear reworded.

    At the end every tile is shown, so an ended game has no twin but itself.
    """
    if GAME.result(state) is not None:
        return state
    hidden = [s for s in range(len(state.hands)) if s != seat]
    pool = [t for s in hidden for t in state.hands[s]] + list(state.centre)
    rng.shuffle(pool)
    hands = list(state.hands)
    for s in hidden:
        hands[s], pool = sort_hand(pool[: len(hands[s])]), pool[len(hands[s]) :]
    log = tuple(
        dataclasses.replace(e, tiles=random_tiles(len(e.tiles), rng)) if unheard(e, seat) else e
        for e in state.log
    )
    return dataclasses.replace(state, hands=tuple(hands), centre=sort_hand(pool), log=log)


def event_twin(event: Event, seat: Seat | None, rng: random.Random) -> Event:
    """A declaration ``seat`` did not hear, naming other tiles; any other event as it is."""
    if unheard(event, seat):
        return dataclasses.replace(event, tiles=random_tiles(len(event.tiles), rng))  # type: ignore[attr-defined]
    return event


KIT = GameKit(
    game=GAME,
    table=table,
    move=random_move,
    secrets=Secrets(state=state_twin, event=event_twin),
)

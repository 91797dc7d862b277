"""Playing Tagiron through the server in tests: random legal moves and a hidden-tile check.

The move picker only reads the seat's own view (like a real client); the leak
check replays the finished game's history with the rules engine to learn who
held which tile and who heard which declaration.
"""

from __future__ import annotations

import asyncio
import json
import random
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterator

from bodoge.bench.moves import pick_move
from bodoge.core.values import JSON
from bodoge.games.tagiron.events import Declared
from bodoge.games.tagiron.game import TagironGame
from bodoge.games.tagiron.tiles import ALL_TILES, COPIES, sort_key
from tests.support import http_schema
from tests.support.client import Client

GAME = TagironGame()


def random_move(view: dict[str, JSON], rng: random.Random, declare: float = 0.1) -> JSON:
    """A legal-looking move for this view (declarations are random guesses)."""
    hand = view["hand"] or []
    if view["may_declare"] and (not view["may_ask"] or rng.random() < declare):
        if view["may_pass"] and rng.random() < 0.5:
            return {"type": "pass"}
        pool = list(ALL_TILES)
        for tile in hand:
            pool.remove(tile)
        size = 4 if view["players"] == 4 else 5
        return {"type": "declare", "tiles": sorted(rng.sample(pool, size), key=sort_key)}
    return pick_move(view, rng)


async def play_seat(
    client: Client,
    table: str,
    rng: random.Random,
    *,
    out_of_turn: float = 0.1,
    declare: float = 0.1,
    timeout: float = 60.0,
) -> dict[str, JSON]:
    """Play one seat until the game ends; returns the last state message."""

    def is_state(m: dict[str, JSON]) -> bool:
        return m.get("type") in ("table", "event") and (
            m.get("table") == table or m.get("table", {}).get("id") == table
        )

    # Start from the newest state already received, even if a test consumed it.
    states = [i for i, m in enumerate(client.received) if is_state(m)]
    if states:
        client._cursor = min(client._cursor, states[-1])
    while True:
        message = await client.wait_for(is_state, timeout)
        # Act only on the newest state: older ones are already out of date.
        newer = [m for m in client.received[client._cursor :] if is_state(m)]
        if newer:
            continue
        if message.get("result") or message.get("view") is None:
            if message.get("result"):
                return message
            continue
        mine = message["you"] if message["type"] == "table" else message["view"]["you"]
        awaited = mine in message["to_act"]
        if message["may_act"] and (awaited or rng.random() < out_of_turn):
            move = random_move(message["view"], rng, declare if awaited else 1.0)
            if move is not None:
                reply = await client.request("move", table=table, move=move)
                if reply["type"] == "error":
                    # Out-of-turn moves race with the turn; a stale view may be refused.
                    assert reply["code"] in {
                        "not_your_turn",
                        "may_not_declare",
                        "game_finished",
                        "not_playing",
                        "may_not_ask",
                        "may_not_pass",
                        "card_not_face_up",
                    }, reply


def http_json(url: str) -> JSON:
    with urllib.request.urlopen(url, timeout=20) as response:
        content = response.read()
        kind = response.headers.get("content-type", "")
        http_schema.check("GET", urllib.parse.urlsplit(url).path, response.status, kind, content)
        return json.loads(content)


async def history(base_url: str, table: str) -> JSON:
    return await asyncio.to_thread(http_json, f"{base_url}api/tables/{table}/history")


class Truth:
    """Who held what and who heard which declaration, from a finished game's history."""

    def __init__(self, hist: JSON) -> None:
        players = hist["options"]["players"]
        state = GAME.setup(GAME.options(hist["options"]), players, hist["seed"])
        self.hand_lists = [list(h) for h in state.hands]
        self.hands = [Counter(h) for h in state.hands]
        self.players = players
        #: (move n, declaration) in order.
        self.declarations: list[tuple[int, Declared]] = []
        for m in hist["moves"]:
            state, events = GAME.apply(state, m["seat"], GAME.move_from_json(m["move"]))
            self.declarations += [(m["n"], e) for e in events if isinstance(e, Declared)]
        self.end = len(hist["moves"])

    def sources(self, seat: int | None, n: int) -> list[Counter[str]]:
        """The tile lists ``seat`` may have seen after move ``n``."""
        found = [self.hands[seat]] if seat is not None else []
        found += [Counter(d.tiles) for k, d in self.declarations if k <= n and seat in d.heard_by]
        return found


def tile_lists(data: JSON) -> Iterator[list[str]]:
    """Every list of tile codes inside a message, and every lone tile code (as a list)."""
    if isinstance(data, dict):
        for value in data.values():
            yield from tile_lists(value)
    elif isinstance(data, list):
        if data and all(isinstance(x, str) and x in COPIES for x in data):
            yield data
        else:
            for value in data:
                yield from tile_lists(value)
    elif isinstance(data, str) and data in COPIES:
        yield [data]


def leaks(messages: list[dict[str, JSON]], seat: int | None, truth: Truth) -> list[JSON]:
    """Messages that showed ``seat`` tiles it may not see (before the game ended)."""
    found = []
    n = 0
    for message in messages:
        if message.get("type") in ("table", "event"):
            n = message["n"]
            if message.get("result") is not None:
                break  # everything is revealed at the end
        sources = truth.sources(seat, n)
        for tiles in tile_lists(message):
            if not any(not (Counter(tiles) - source) for source in sources):
                found.append((n, tiles, message))
    return found

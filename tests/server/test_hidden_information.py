"""No message the server sends ever shows a seat a tile it may not see.

Many random games (2, 3 and 4 players, with random declarations and
out-of-turn declarations) are played through a real server with a client on
every seat plus a spectator.  Afterwards the history tells who held which
tile and who heard which declaration; every message each client received
before the end is checked against that.
"""

from __future__ import annotations

import asyncio
import random

from tests.server.tagiron_play import Truth, history, leaks, play_seat
from tests.support.client import Client
from tests.support.live_server import LiveServer

GAMES = 30


async def _one_game(server: LiveServer, players: int, seed: int) -> int:
    rng = random.Random(seed)
    seats = [await Client.connect(server.ws_url, f"s{seed}-{s}") for s in range(players)]
    spectator = await Client.connect(server.ws_url, f"spectator{seed}")
    table = (await seats[0].ok("table.create", game="tagiron", options={"players": players}))[
        "table"
    ]
    for client in seats[1:]:
        await client.ok("table.join", table=table)
    for client in [*seats, spectator]:
        await client.ok("table.open", table=table)
    await seats[0].ok("table.start", table=table)
    await asyncio.gather(
        *(
            play_seat(c, table, random.Random(rng.random()), declare=0.15, out_of_turn=0.05)
            for c in seats
        )
    )
    final = await spectator.wait_for(
        lambda m: m.get("type") == "event" and m["result"] is not None, timeout=60
    )
    truth = Truth(await history(server.url, table))
    assert final["n"] == truth.end
    for seat, client in enumerate(seats):
        assert leaks(client.received, seat, truth) == [], f"seat {seat} saw hidden tiles"
        # Every move reached every seat exactly once, in order.
        assert [m["n"] for m in client.of_type("event")] == list(range(1, truth.end + 1))
    assert leaks(spectator.received, None, truth) == [], "the spectator saw hidden tiles"
    # The check can fail: the player's own view did hold tiles the spectator never got.
    assert any(tiles for tiles in truth.hands)
    for client in [*seats, spectator]:
        await client.close()
    # Declarations some seats did not hear: the case the check is most about.
    return sum(len(d.heard_by) < players for _, d in truth.declarations)


async def test_random_games_never_leak_hidden_tiles(live_server: LiveServer) -> None:
    secret = await asyncio.gather(*(_one_game(live_server, 2 + g % 3, g) for g in range(GAMES)))
    assert sum(secret) > 5


def test_the_leak_check_catches_a_leak() -> None:
    """A message showing another seat's hand is reported."""
    hist_like = {"options": {"players": 3}, "seed": 1, "moves": []}
    truth = Truth(hist_like)
    others = truth.hand_lists[1]
    message = {"type": "table", "n": 0, "result": None, "view": {"hand": others}}
    assert leaks([message], 0, truth) != []
    assert leaks([message], 1, truth) == []
    assert leaks([message], None, truth) != []

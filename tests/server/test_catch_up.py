"""A catch-up (``table.open`` with ``since``) sends each move's frame exactly as it was sent live.

Every seat and a spectator watch a game from before its start; then, at a vote half cast
(Illustori) or a dozen moves in (Tagiron), and again later (Tagiron: at its end), each of
them opens the table again on a connection of its own with every ``since`` from 0 on, and
the frames it gets must be, once parsed, the event frames it was sent live from
``since + 1`` on: the facts too (``to_act``, ``deadlines``, ``clock``), each of its own
move and seen through the seat's eyes, never the table's current timers. With a turn limit
every awaited person has a deadline, so a frame that told the current deadlines through an
older state would tell, in a secret vote, who has not voted yet (the audit of issue 27: a
catch-up frame n=1 carried the running vote deadline of seat 2).

Illustori plays with ``secret_votes`` at 3 and 4 players, Tagiron at 2, 3 and 4 players,
all with a turn limit.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import pytest

from tests.server.tagiron_play import random_move
from tests.server.test_illustori_secret_votes import GAME as ILLUSTORI
from tests.server.test_illustori_secret_votes import choose, leaks
from tests.support.client import Client, Message
from tests.support.live_server import LiveServer

TURN = {"turn_seconds": 600}


def _about(message: Message, table: str) -> bool:
    where = message.get("table")
    return message.get("type") in ("table", "event") and (
        where == table or (isinstance(where, dict) and where.get("id") == table)
    )


def live_events(client: Client, table: str, since: int) -> list[Message]:
    """The event frames of the table ``client`` was sent live after move ``since``."""
    return [
        f
        for f in client.frames
        if f.get("type") == "event" and f.get("table") == table and f["n"] > since
    ]


async def caught_up(client: Client, table: str, since: int) -> tuple[list[Message], Message]:
    """The event frames a ``table.open`` with ``since`` sends, and its ack."""
    start = len(client.frames)
    ack = await client.ok("table.open", table=table, since=since)
    frames = client.frames[start:]
    events = [f for f in frames if f.get("type") == "event" and f.get("table") == table]
    await asyncio.sleep(0.06)  # well inside the rate limit (the game is over or paused)
    return events, ack


async def check_every_catch_up(
    server: LiveServer, table: str, watchers: list[Client], n: int
) -> None:
    """Each watcher, on a new connection of its own player, catches up from every point."""

    async def one(watcher: Client) -> None:
        again = await Client.connect(server.ws_url, name=None, token=watcher.token)
        try:
            for since in range(n):
                events, ack = await caught_up(again, table, since)
                assert ack["n"] == n and ack["you"] == watcher_seat(watcher, table)
                live = live_events(watcher, table, since)[: n - since]
                assert [f["n"] for f in live] == list(range(since + 1, n + 1))
                for got, sent in zip(events, live, strict=True):
                    assert got == sent, f"since {since}: frame {got['n']} differs from the live one"
        finally:
            await again.close()

    await asyncio.gather(*(one(w) for w in watchers))


def watcher_seat(client: Client, table: str) -> int | None:
    snapshot = next(m for m in client.frames if m.get("type") == "table" and _about(m, table))
    return snapshot["you"]


async def seated_table(
    server: LiveServer, game: str, options: Message, players: int
) -> tuple[list[Client], Client, str]:
    """People in every seat and a spectator, all watching the table before it starts."""
    clients = [await Client.connect(server.ws_url, f"catch{s}") for s in range(players)]
    spectator = await Client.connect(server.ws_url, "onlooker")
    table = (await clients[0].ok("table.create", game=game, options=options, settings=TURN))[
        "table"
    ]
    for client in clients[1:]:
        await client.ok("table.join", table=table)
    for client in [*clients, spectator]:
        await client.ok("table.open", table=table)
    await clients[0].ok("table.start", table=table)
    for client in [*clients, spectator]:
        await client.wait_for(lambda m: _about(m, table) and m.get("view") is not None)
    return clients, spectator, table


def last_state(client: Client, table: str) -> Message:
    return next(m for m in reversed(client.received) if _about(m, table))


async def play(clients: list[Client], table: str, rng: random.Random, moves: int, pick) -> int:
    """Up to ``moves`` moves, one at a time, each seen by everyone; the last move's number."""
    n = last_state(clients[0], table)["n"]
    for _ in range(moves):
        states = [last_state(c, table) for c in clients]
        if states[0].get("result"):
            break
        movers = [s for s, m in enumerate(states) if m.get("may_act")]
        assert movers, "nobody may act"
        seat = rng.choice(movers)
        reply = await clients[seat].ok("move", table=table, move=pick(states[seat]["view"], rng))
        n = reply["n"]
        for client in clients:
            await client.wait_for(lambda m, n=n: m.get("type") == "event" and m.get("n") == n)
        await asyncio.sleep(0.02)
    return n


def illustori_move(view: Message, rng: random.Random) -> Message:
    return ILLUSTORI.move_to_json(choose(view, view["you"], rng))


def tagiron_move(view: Message, rng: random.Random) -> Message:
    move = random_move(view, rng, declare=0.05)
    assert isinstance(move, dict)
    return move


@pytest.mark.parametrize("players", [3, 4])
async def test_illustori_secret_votes_catch_ups_are_the_live_frames(
    live_server: LiveServer, players: int
) -> None:
    options = {"players": players, "secret_votes": True, "deck_size": 30}
    clients, spectator, table = await seated_table(live_server, "illustori", options, players)
    watchers = [*clients, spectator]
    rng = random.Random(players)
    # The audit's moment: a vote that one voter has cast and another has not.
    for _ in range(30):
        n = await play(clients, table, rng, 1, illustori_move)
        view = last_state(clients[0], table)["view"]
        if view["phase"] == "vote" and view["votes"]["cast"] == 1:
            break
    else:
        raise AssertionError("no vote was ever half cast")
    await check_every_catch_up(live_server, table, watchers, n)
    # Forty moves on (a whole game's every catch-up would cost minutes of replays).
    n = await play(clients, table, rng, 40, illustori_move)
    await check_every_catch_up(live_server, table, watchers, n)
    for seat, client in enumerate(clients):
        assert leaks(client.received, seat, table) == [], f"seat {seat}"
    assert leaks(spectator.received, None, table) == []
    for client in watchers:
        await client.close()


@pytest.mark.parametrize("players", [2, 3, 4])
async def test_tagiron_catch_ups_are_the_live_frames(live_server: LiveServer, players: int) -> None:
    clients, spectator, table = await seated_table(
        live_server, "tagiron", {"players": players}, players
    )
    watchers = [*clients, spectator]
    rng = random.Random(10 + players)
    n = await play(clients, table, rng, 12, tagiron_move)
    timed = [f for f in live_events(clients[0], table, 0) if any(f.get("deadlines") or [])]
    assert timed, "no frame told a deadline"
    await check_every_catch_up(live_server, table, watchers, n)
    n = await play(clients, table, rng, 60, tagiron_move)
    await check_every_catch_up(live_server, table, watchers, n)
    for client in watchers:
        await client.close()


async def test_a_catch_up_after_a_crash_is_the_live_frames(
    make_live_server: Callable[..., LiveServer],
) -> None:
    """The moves' timers come back from the store: after ``kill -9`` and a restart, every
    catch-up is still the frames sent live (a restored table keeps no state per move)."""
    server = make_live_server()
    options = {"players": 3, "secret_votes": True, "deck_size": 30}
    clients, spectator, table = await seated_table(server, "illustori", options, 3)
    rng = random.Random(7)
    for _ in range(30):
        n = await play(clients, table, rng, 1, illustori_move)
        view = last_state(clients[0], table)["view"]
        if n >= 6 and view["phase"] == "vote" and view["votes"]["cast"] == 1:
            break
    else:
        raise AssertionError("no vote was ever half cast")
    server.restart(crash=True)
    await check_every_catch_up(server, table, [*clients, spectator], n)

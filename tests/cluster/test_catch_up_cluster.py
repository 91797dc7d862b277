"""In a cluster, a catch-up through another process's mirror is the frames that went out live.

The table runs on process A; every seat and a spectator also watch it through process B's
mirror from before its start. Relay plays with a turn limit and a vote clock, so every frame
carries deadlines and a clock. Then each of them opens the table again on B, and on A, with
every ``since``: each catch-up must be the event frames its seat was sent live (the owner and
the mirror render the same frames, from the moves' own timers: published with each move, and
kept with it in the store).
"""

from __future__ import annotations

import json
from typing import Any

from bodoge.server.wiring import Server
from tests.cluster.test_serve_cluster import Make, _players, _until
from tests.cluster.test_serve_cluster import make_node as make_node  # the fixture
from tests.server.test_tables import Tab

PLAYERS = 3


def raw(tab: Tab) -> Tab:
    """``tab``, keeping in ``tab.raw`` every frame exactly as the server sent it."""
    frames: list[dict[str, Any]] = []
    send, send_now = tab.transport.send, tab.transport.send_now

    async def keep(text: str) -> None:
        frames.append(json.loads(text))
        await send(text)

    def keep_now(text: str) -> bool:
        frames.append(json.loads(text))
        return send_now(text)

    tab.transport.send = keep  # type: ignore[method-assign]
    tab.transport.send_now = keep_now  # type: ignore[method-assign]
    tab.raw = frames  # type: ignore[attr-defined]
    return tab


def new_tab(server: Server) -> Tab:
    return raw(Tab(server))


async def test_catch_ups_through_a_mirror_are_the_live_frames(make_node: Make) -> None:
    a, b = await make_node(), await make_node()
    seats = [raw(tab) for tab in await _players(a, PLAYERS)]
    options = {"players": PLAYERS, "rounds": 3, "vote_seconds": 120}
    settings = {"turn_seconds": 600}
    table = (await seats[0].ok("table.create", game="relay", options=options, settings=settings))[
        "table"
    ]
    for tab in seats[1:]:
        await tab.ok("table.join", table=table)
    watchers: list[Tab] = []
    for tab in [*seats, None]:
        watcher = new_tab(b)
        await watcher.ok("hello", **({"token": tab.token} if tab else {"name": "onlooker"}))
        await watcher.ok("table.open", table=table)
        watchers.append(watcher)
    for tab in seats:
        await tab.ok("table.open", table=table)
    await seats[0].ok("table.start", table=table)

    n = 0
    for round_ in range(3):
        turn = round_ % PLAYERS
        n = (await seats[turn].ok("move", table=table, move={"type": "say", "word": "w"}))["n"]
        for seat in range(PLAYERS):
            if seat != turn:
                move = {"type": "vote", "ok": True}
                n = (await seats[seat].ok("move", table=table, move=move))["n"]

    def live(tab: Tab, since: int) -> list[dict[str, Any]]:
        return [m for m in tab.raw if m["type"] == "event" and m["n"] > since]  # type: ignore[attr-defined]

    async def shown_everywhere() -> bool:
        return all(live(w, n - 1) for w in watchers)

    await _until(shown_everywhere)
    timed = [f for f in live(seats[1], 0) if any(f.get("deadlines") or [])]
    assert timed and any(f.get("clock") for f in live(seats[1], 0))
    for owner_tab, watcher in zip([*seats, None], watchers, strict=True):
        sent = live(watcher, 0)
        assert [f["n"] for f in sent] == list(range(1, n + 1))
        if owner_tab is not None:  # the mirror renders what the owner renders
            assert live(owner_tab, 0) == sent
        for server in (b, a):
            again = new_tab(server)
            await again.ok("hello", token=_token(watcher))
            for since in range(n):
                before = len(again.raw)  # type: ignore[attr-defined]
                await again.ok("table.open", table=table, since=since)
                got = [m for m in again.raw[before:] if m["type"] == "event"]  # type: ignore[attr-defined]
                assert got == live(watcher, since), (server.process, since)


def _token(tab: Tab) -> str:
    welcome = next(m for m in tab.transport.sent if m["type"] == "welcome")
    return str(welcome["token"])

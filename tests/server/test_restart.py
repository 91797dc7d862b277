"""``kill -9`` mid-game, start again on the same data: nothing lost, timers resumed."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from tests.server.tagiron_play import history, play_seat, random_move
from tests.support.client import Client
from tests.support.live_server import DEFAULT_ARGS, LiveServer

#: Long enough that four moves and a restart fit in one turn on a busy machine.
TURN_SECONDS = 10


def _epoch(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


async def test_a_crashed_server_brings_every_table_back_and_its_timer_fires(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server()
    ann = await Client.connect(server.ws_url, "Ann")
    bob = await Client.connect(server.ws_url, "Bob")
    settings = {"turn_seconds": TURN_SECONDS, "timeout_bot": "easy"}
    table = (
        await ann.ok("table.create", game="tagiron", options={"players": 2}, settings=settings)
    )["table"]
    await bob.ok("table.join", table=table)
    # A second, waiting table must come back too.
    waiting = (await bob.ok("table.create", game="tagiron", options={"players": 3}))["table"]
    await ann.ok("chat", table=table, text="good luck")
    await ann.ok("table.start", table=table)
    clients = {0: ann, 1: bob}
    rng = random.Random(4)
    sent = []
    for _ in range(4):
        snap = await ann.ok("table.open", table=table)
        mover = snap["to_act"][0]
        view = (await clients[mover].ok("table.open", table=table))["view"]
        move = random_move(view, rng, declare=0)
        await clients[mover].ok("move", table=table, move=move)  # acknowledged: committed
        sent.append((mover, move))
    before = await ann.ok("table.open", table=table)
    awaited = before["to_act"][0]
    deadline = _epoch(before["deadlines"][awaited])
    assert deadline > time.time()

    server.restart()  # kill -9, then start again on the same data and port

    ann2 = await Client.connect(server.ws_url, name=None)
    await ann2.hello(token=ann.token)
    after = await ann2.ok("table.open", table=table)
    if time.time() < deadline - 0.5:  # the turn has not run out: the same deadline, resumed
        assert after["n"] == 4
        assert after["deadlines"] == before["deadlines"]
        assert after["view"] == before["view"]
    assert [c["text"] for c in after["chat"]] == ["good luck"]
    assert after["table"]["seats"][1]["connected"] is False  # Bob is not back yet
    lobby = await ann2.ok("lobby.subscribe")
    assert {table, waiting} <= {t["id"] for t in lobby["tables"]}

    # Nobody moves: the timeout bot plays the awaited seat's turn when its time is up (on a
    # slow machine it may have done so already, as the server came back past the deadline).
    if after["n"] == 4:
        timed_out = await ann2.wait_for(lambda m: m.get("type") == "event" and m["n"] == 5, 25)
        assert timed_out["seat"] == awaited
        assert time.time() < deadline + 3  # resumed the remaining time, not a new limit
    else:
        assert time.time() > deadline and after["n"] == 5

    bob2 = await Client.connect(server.ws_url, name=None)
    await bob2.hello(token=bob.token)
    await bob2.ok("table.open", table=table, since=3)
    assert [e["n"] for e in bob2.of_type("event")][:2] == [4, 5]
    finals = await asyncio.gather(play_seat(ann2, table, rng), play_seat(bob2, table, rng))
    assert finals[0]["n"] == finals[1]["n"]

    hist = await history(server.url, table)
    assert [(m["seat"], m["move"]) for m in hist["moves"][:4]] == sent
    assert hist["moves"][4]["actor"] == "timeout"
    assert [m["n"] for m in hist["moves"]] == list(range(1, finals[0]["n"] + 1))
    for client in (ann, bob, ann2, bob2):
        await client.close()


async def test_bots_resume_after_a_crash(make_live_server: Callable[..., LiveServer]) -> None:
    server = make_live_server()
    ann = await Client.connect(server.ws_url, "Ann")
    bots = [{"seat": s, "level": "easy"} for s in (1, 2)]
    table = (await ann.ok("table.create", game="tagiron", options={"players": 3}, bots=bots))[
        "table"
    ]
    await ann.ok("table.open", table=table)
    await ann.ok("table.start", table=table)
    snap = await ann.wait_for(lambda m: m.get("type") == "table" and m["view"] is not None)
    if 0 in snap["to_act"]:  # make sure the bots have a turn pending at the crash
        await ann.ok("move", table=table, move=random_move(snap["view"], random.Random(1), 0))
    server.restart()
    ann2 = await Client.connect(server.ws_url, name=None)
    await ann2.hello(token=ann.token)
    await ann2.ok("table.open", table=table)
    final = await play_seat(ann2, table, random.Random(9))
    assert final["result"] is not None
    await ann.close()
    await ann2.close()


def _children(pid: int) -> set[int]:
    """Every process descended from ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


async def test_bot_workers_leave_with_a_killed_server(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server(args=(*DEFAULT_ARGS, "--bot-workers", "1"))
    ann = await Client.connect(server.ws_url, "Ann")
    table = (
        await ann.ok(
            "table.create",
            game="tagiron",
            options={"players": 2},
            bots=[{"seat": 1, "level": "easy"}],
        )
    )["table"]
    await ann.ok("table.start", table=table)
    await ann.ok("table.open", table=table)
    children: set[int] = set()
    for _ in range(100):  # the worker pool starts in the background
        children = _children(server.pid)
        if children:
            break
        await asyncio.sleep(0.1)
    assert children, "the server started no bot worker"
    server.kill()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in children):
        await asyncio.sleep(0.2)
    assert not [pid for pid in children if _alive(pid)], "bot workers outlived the server"

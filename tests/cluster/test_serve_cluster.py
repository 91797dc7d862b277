"""Servers in cluster mode, in-process on the shared PostgreSQL and Redis: ownership wired in.

Each test has a database and a namespace of its own. Two :class:`Server` objects in one
event loop stand for two processes; connections are driven frame by frame (``Tab``).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from starlette.applications import Starlette

from bodoge.cluster.namespace import Namespace
from bodoge.server.edge.api import api_routes
from bodoge.server.edge.metrics import health
from bodoge.server.replication.cluster_reach import ClusterReach
from bodoge.server.replication.mirror import Mirror
from bodoge.server.replication.publishing import TablePublisher
from bodoge.server.runtime.config import Quotas, ServerConfig
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.runtime.table import LiveTable
from bodoge.server.services.accounts import SIGNED_OUT
from bodoge.server.services.devices import Device
from bodoge.server.wiring import Server
from bodoge.store import Fenced, MoveRecord, SeatRecord, TableRecord
from bodoge.store.sql import SqlStore
from tests.games.relay.game import RelayGame
from tests.server.test_tables import Tab
from tests.support.lobby import ever_gone, gone, listing, shown
from tests.support.services import PostgresServer, RedisServer

Make = Callable[..., Any]


@pytest.fixture
async def make_node(
    database_url: str, shared_redis: str, namespace: Namespace
) -> AsyncIterator[Make]:
    """Cluster servers on one database and namespace; all are stopped afterwards."""
    servers: list[Server] = []

    async def make(**config: Any) -> Server:
        settings = {
            "db_url": database_url,
            "redis_url": shared_redis,
            "redis_namespace": namespace.prefix,
            "bot_delay": 0.0,
            "bot_workers": 0,
            "games": {"relay": RelayGame()},
            "lease_seconds": 1.0,
            **config,
        }
        server = Server(ServerConfig(**settings))
        await server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        await server.stop()


async def _players(server: Server, count: int) -> list[Tab]:
    tabs = []
    for i in range(count):
        tab = Tab(server)
        welcome = await tab.ok("hello", name=f"p{i}")
        tab.player, tab.token = welcome["player"], welcome["token"]
        tabs.append(tab)
    return tabs


async def _relay(tabs: list[Tab], **options: Any) -> str:
    table = (
        await tabs[0].ok("table.create", game="relay", options={"players": len(tabs), **options})
    )["table"]
    for tab in tabs[1:]:
        await tab.ok("table.join", table=table)
    for tab in tabs:
        await tab.ok("table.open", table=table)
    await tabs[0].ok("table.start", table=table)
    return table


async def _owner(server: Server, table: str) -> tuple[str | None, int]:
    async with server.store.engine.connect() as conn:  # type: ignore[attr-defined]
        row = (
            await conn.execute(
                sa.text("SELECT owner, owner_epoch FROM tables WHERE id = :t"), {"t": table}
            )
        ).one()
    return row[0], row[1]


async def _moves(server: Server, table: str) -> list[int]:
    bundle = await server.store.load_table(table)
    assert bundle is not None
    return [m.n for m in bundle.moves]


def _reach(server: Server) -> ClusterReach:
    reach = server.tables.reach
    assert isinstance(reach, ClusterReach)
    return reach


def _mirrors(server: Server) -> dict[str, Mirror]:
    return _reach(server).mirrors.mirrors


def _publisher(server: Server) -> TablePublisher:
    return _reach(server).publisher


async def _until(condition: Callable[[], Any], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_a_table_is_played_through_a_process_that_does_not_run_it(
    make_node: Make,
) -> None:
    a, b = await make_node(), await make_node()
    (host,) = await _players(a, 1)
    guest, other = await _players(b, 2)
    settings = {"assistant": True}  # three people: the assistant is on only when asked for
    table = (
        await host.ok("table.create", game="relay", options={"players": 3}, settings=settings)
    )["table"]
    assert await _owner(a, table) == (a.process, 1)
    # Commands from b are run by a: b never claims the table.
    joined = await guest.ok("table.join", table=table)
    assert joined["seat"] == 1 and joined["table"] == table
    await other.ok("table.join", table=table)
    for tab in (host, guest, other):
        await tab.ok("table.open", table=table)
    assert table not in b.tables.live and table in _mirrors(b)
    assert await _owner(a, table) == (a.process, 1)

    async def everyone_connected() -> bool:  # presence is added up at the owner
        seats = a.tables.live[table].seats_json()
        return all(seat["connected"] for seat in seats)

    await _until(everyone_connected)
    await guest.ok("table.start", table=table)

    # Errors keep their codes across the hop, and change nothing.
    early = await guest.request("move", table=table, move={"type": "say", "word": "x"})
    assert early["type"] == "error" and early["code"] == "not_your_turn", early
    bad = await guest.request("move", table=table, move={"type": "shout"})
    assert bad["type"] == "error" and bad["code"] == "bad_move", bad

    said = await host.ok("move", table=table, move={"type": "say", "word": "ringo"})
    for tab in (guest, other):
        voted = await tab.ok("move", table=table, move={"type": "vote", "ok": True})
        # The ack comes after the event it acknowledges, on the tab that sent the move.
        events = [m for m in tab.transport.sent if m["type"] == "event"]
        assert events[-1]["n"] == voted["n"]
        assert tab.transport.sent.index(events[-1]) < tab.transport.sent.index(voted)
    turn = await guest.ok("move", table=table, move={"type": "say", "word": "gorilla"})
    assert (said["n"], turn["n"]) == (1, 4)
    line = await other.ok("chat", table=table, text="from b")
    assert line["line"] == 1
    await host.wait(lambda m: m.get("type") == "chat" and m.get("text") == "from b")
    await host.ok("chat", table=table, text="from a")
    await guest.wait(lambda m: m.get("type") == "chat" and m.get("text") == "from a")

    for tab in (host, guest, other):
        await tab.wait(lambda m: m.get("type") == "event" and m.get("n") == 4)
        assert [e["n"] for e in tab.events()] == [1, 2, 3, 4]
    assert await _moves(a, table) == [1, 2, 3, 4]
    # The replica renders per seat exactly as the owner does.
    replica = _mirrors(b)[table]
    assert replica.snapshot(1)["view"] == a.tables.live[table].snapshot(1)["view"]
    assert replica.snapshot(None) == a.tables.live[table].snapshot(None)

    # The assistant answers from the replica's view of the seat.
    helped = await guest.ok("assist", table=table)
    assert helped["analysis"] == {"words_so_far": 2, "seat": 1}

    # The HTTP API of b reads a's table from the store.
    http = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=Starlette(routes=api_routes(b))), base_url="http://b"
    )
    async with http:
        summary = await http.get(f"/api/tables/{table}")
        assert summary.status_code == 200 and summary.json()["n"] == 4
        assert (await http.get(f"/api/tables/{table}/history")).status_code == 409

    # A name changed on b shows at a's table, and at every tab of it.
    await guest.ok("rename", name="ゲスト")

    def renamed(m: dict[str, Any]) -> bool:
        return m.get("type") == "table.seats" and m["seats"][1]["player"]["name"] == "ゲスト"

    await host.wait(renamed)
    await other.wait(renamed)

    # Closing the last tab on b: the owner hears that its player is gone.
    await other.ok("table.close", table=table)

    async def other_gone() -> bool:
        return not a.tables.live[table].seats_json()[2]["connected"]

    await _until(other_gone)
    assert a.tables.live[table].seats_json()[1]["connected"]

    status, body = await health(a.process, a.probes())
    assert status == 200 and body["redis"]["ok"] and body["database"]["ok"]


async def test_settings_and_rematch_work_from_a_process_that_does_not_run_the_table(
    make_node: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    caught_up: list[str] = []
    resync = Mirror.resync

    async def counted(replica: Mirror) -> None:
        caught_up.append(replica.id)
        await resync(replica)

    monkeypatch.setattr(Mirror, "resync", counted)
    a, b = await make_node(), await make_node()
    (host,) = await _players(a, 1)
    guest, other = await _players(b, 2)
    options = {"players": 3, "rounds": 1}
    table = (await host.ok("table.create", game="relay", options=options))["table"]
    assert (await _owner(a, table))[0] == a.process
    for tab in (guest, other):
        await tab.ok("table.join", table=table)
    # The host changes a setting from a tab on b, which does not run the table.
    host_on_b = Tab(b)
    await host_on_b.ok("hello", token=host.token)
    for tab in (host, guest, other, host_on_b):
        await tab.ok("table.open", table=table)
    refused = await guest.request("table.settings", table=table, settings={"bot_pace": "slow"})
    assert refused["type"] == "error" and refused["code"] == "not_host", refused
    await host_on_b.ok("table.settings", table=table, settings={"bot_pace": "slow"})
    assert a.tables.live[table].settings.bot_pace == "slow"
    assert _mirrors(b)[table].summary()["settings"]["bot_pace"] == "slow"
    for tab in (host, guest, other, host_on_b):  # every tab, wherever it is, sees them
        await tab.wait(
            lambda m: m.get("type") == "table" and m["table"]["settings"]["bot_pace"] == "slow"
        )
    await host.ok("table.start", table=table)
    await host.ok("move", table=table, move={"type": "say", "word": "ringo"})
    for tab in (guest, other):
        await tab.ok("move", table=table, move={"type": "vote", "ok": True})
    await guest.wait(lambda m: m.get("type") == "event" and m["result"] is not None)

    # A rematch proposed on b (the finished table runs on a) ...
    proposed = await guest.ok("table.rematch", table=table)
    rematch = proposed["table"]
    assert rematch != table and proposed["seat"] == 1
    # ... shown on b's tabs (the replica follows the link) and a's ...
    for tab in (other, host):
        await tab.wait(lambda m: m.get("type") == "table.seats" and m["rematch"] == rematch)
    # ... and confirmed on b: both steps (the finished table's link, the new table's seat)
    # run where those tables run. (The rematch runs on a or b, the less loaded: either way
    # one of the two confirmations below joins it through the other process.)
    assert (await _owner(a, rematch))[0] in {a.process, b.process}
    confirmed = await other.ok("table.rematch", table=table)
    assert confirmed == {**confirmed, "table": rematch, "seat": 2}
    again = await other.ok("table.rematch", table=table)  # twice: still the same seat
    assert again["table"] == rematch and again["seat"] == 2
    assert (await host.ok("table.rematch", table=table))["seat"] == 0
    bundle = await a.store.load_table(rematch)
    assert bundle is not None
    seated = [s.player for s in bundle.seats]
    assert seated == [host.player["id"], guest.player["id"], other.player["id"]]
    assert bundle.table.host == guest.player["id"]
    assert bundle.table.settings["bot_pace"] == "slow"  # the same settings
    # Every publication arrived in order: b's replica never had to catch up from the store.
    assert caught_up == []


async def test_every_lobby_lists_every_open_table_of_the_cluster(make_node: Make) -> None:
    a, b = await make_node(), await make_node()
    (host,) = await _players(a, 1)
    (watcher,) = await _players(b, 1)
    listed = await watcher.ok("lobby.subscribe")
    assert listed["tables"] == []
    table = (await host.ok("table.create", game="relay", options={"players": 2}))["table"]
    new = shown(await watcher.wait(lambda m: shown(m, table) is not None), table)
    assert new is not None and new["host"] == host.player["id"]
    # A process that starts later asks the others for their tables.
    c = await make_node()
    (late,) = await _players(c, 1)
    assert [t["id"] for t in (await late.ok("lobby.subscribe"))["tables"]] == [table]
    # So does the HTTP API's list of open tables.
    http = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=Starlette(routes=api_routes(c))), base_url="http://c"
    )
    async with http:
        listed_over_http = (await http.get("/api/tables")).json()["tables"]
    assert [t["id"] for t in listed_over_http] == [table]
    # Changes reach every lobby: a seat taken through b, then the table gone.
    await watcher.ok("table.join", table=table)

    def seated(m: dict[str, Any]) -> bool:
        summary = shown(m, table)
        return summary is not None and summary["seats"][1]["kind"] == "human"

    for tab in (watcher, late):
        await tab.wait(seated)
    await watcher.ok("table.leave", table=table)
    await host.ok("table.leave", table=table)  # the last person left: the table is deleted
    for tab in (watcher, late):
        await tab.wait(lambda m: gone(m, table))
    assert (await late.ok("lobby.subscribe"))["tables"] == []


def _lists(tab: Tab, table: str, online: int, connected: list[bool]) -> Callable[[], Any]:
    """Whether the lobby ``tab`` holds lists ``table`` with ``online`` people and those seats
    connected."""

    async def check() -> bool:
        summary = listing(tab.transport.sent).get(table)
        return (
            summary is not None
            and summary["online"] == online
            and [s["connected"] for s in summary["seats"]] == connected
        )

    return check


def _unlisted(tab: Tab, table: str) -> Callable[[], Any]:
    async def check() -> bool:
        return table not in listing(tab.transport.sent)

    return check


async def _subscribed(server: Server) -> dict[str, dict[str, Any]]:
    """The lobby a new watcher on ``server`` starts from, by table id."""
    (late,) = await _players(server, 1)
    return {t["id"]: t for t in (await late.ok("lobby.subscribe"))["tables"]}


@pytest.mark.parametrize("runs_it", ["creator", "third", "joiner"])
async def test_a_full_table_its_people_have_open_anywhere_is_listed_everywhere(
    make_node: Make, runs_it: str
) -> None:
    """Issue 33: a two-player table made through a and run by a, b or c; its host opens it
    through a, the second person joins and opens it through c. Every lobby of every process
    lists it all along, with both people and ``online`` counted across the processes."""
    a, b, c = await make_node(), await make_node(), await make_node()
    owner = {"creator": a, "third": b, "joiner": c}[runs_it]
    _reach(a).placement.target = lambda: None if owner is a else owner.process  # type: ignore[method-assign]
    watchers = [(await _players(node, 1))[0] for node in (a, b, c)]
    for watcher in watchers:
        await watcher.ok("lobby.subscribe")
    (host,) = await _players(a, 1)
    (guest,) = await _players(c, 1)
    table = (await host.ok("table.create", game="relay", options={"players": 2}))["table"]
    assert (await _owner(a, table))[0] == owner.process
    await host.ok("table.open", table=table)
    for watcher in watchers:
        await _until(_lists(watcher, table, 1, [True, False]))
    await guest.ok("table.join", table=table)  # full now
    # Its snapshot through c counts the guest and the host on a.
    assert (await guest.ok("table.open", table=table))["table"]["online"] == 2
    for watcher in watchers:
        await _until(_lists(watcher, table, 2, [True, True]))
        assert not ever_gone(watcher.transport.sent, table)
    for node in (a, b, c):
        listed = await _subscribed(node)
        assert listed[table]["online"] == 2, node.process
    http = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=Starlette(routes=api_routes(b))), base_url="http://b"
    )
    async with http:
        over_http = {t["id"]: t for t in (await http.get("/api/tables")).json()["tables"]}
    assert over_http[table]["online"] == 2
    # A spectator through b counts too, once however many tabs, until their last one closes.
    spectator, second_tab = Tab(b), Tab(b)
    welcome = await spectator.ok("hello", name="watching")
    await second_tab.ok("hello", token=welcome["token"])
    for tab in (spectator, second_tab):
        await tab.ok("table.open", table=table)
    for watcher in watchers:
        await _until(_lists(watcher, table, 3, [True, True]))
    for tab in (spectator, second_tab):
        await tab.ok("table.close", table=table)
    await guest.ok("table.close", table=table)  # the host still has it open: still listed
    for watcher in watchers:
        await _until(_lists(watcher, table, 1, [True, False]))
    await host.ok("table.close", table=table)
    for tab in (host, guest):
        await tab.conn.gone()
    # Nobody can join it, nobody is there to start it: off every list.
    for watcher in watchers:
        await _until(_unlisted(watcher, table))
    for node in (a, b, c):
        assert table not in await _subscribed(node)


async def test_the_people_of_a_dead_process_stop_counting_in_every_lobby(make_node: Make) -> None:
    """b runs the table; its host has it open through a, its second person through c, which
    dies: within c's lease every lobby counts the host alone, and lists the table until the
    host closes it too."""
    a, b, c = await make_node(), await make_node(), await make_node()
    _reach(a).placement.target = lambda: b.process  # type: ignore[method-assign]
    watchers = [(await _players(node, 1))[0] for node in (a, b)]
    for watcher in watchers:
        await watcher.ok("lobby.subscribe")
    (host,) = await _players(a, 1)
    (guest,) = await _players(c, 1)
    table = (await host.ok("table.create", game="relay", options={"players": 2}))["table"]
    await host.ok("table.open", table=table)
    await guest.ok("table.join", table=table)
    await guest.ok("table.open", table=table)
    for watcher in watchers:
        await _until(_lists(watcher, table, 2, [True, True]))
    # c dies without a word: its lease (1 s here) runs out, and with it who it said was there.
    await c.cluster.ownership.stop()
    async with a.store.engine.begin() as conn:  # type: ignore[attr-defined]
        await conn.execute(
            sa.text("UPDATE cluster_processes SET expires_at = 0 WHERE id = :me"),
            {"me": c.process},
        )
    for watcher in watchers:
        await _until(_lists(watcher, table, 1, [True, False]), timeout=5)
        assert not ever_gone(watcher.transport.sent, table)
    for node in (a, b):
        assert (await _subscribed(node))[table]["online"] == 1
    await host.ok("table.close", table=table)  # the host is connected to a, not to b
    for watcher in watchers:
        await _until(_unlisted(watcher, table))
    for node in (a, b):
        assert table not in await _subscribed(node)


async def test_a_table_taken_over_keeps_its_place_in_every_lobby(make_node: Make) -> None:
    """b lets a full table go and d, where none of its people is, takes it: until the
    processes its people have it open through have told d so, it stays listed, so no lobby
    drops it and lists it again; after that, it goes when they do."""
    a, b, c, d = await make_node(), await make_node(), await make_node(), await make_node()
    _reach(a).placement.target = lambda: b.process  # type: ignore[method-assign]
    watchers = [(await _players(node, 1))[0] for node in (a, b, c, d)]
    for watcher in watchers:
        await watcher.ok("lobby.subscribe")
    (host,) = await _players(a, 1)
    (guest,) = await _players(c, 1)
    table = (await host.ok("table.create", game="relay", options={"players": 2}))["table"]
    await host.ok("table.open", table=table)
    await guest.ok("table.join", table=table)
    await guest.ok("table.open", table=table)
    for watcher in watchers:
        await _until(_lists(watcher, table, 2, [True, True]))
    epoch = (await _owner(b, table))[1]
    await b.tables.call(table, LiveTable.let_go)

    async def released() -> bool:
        return (await _owner(b, table))[0] is None

    await _until(released)
    taken = await d.tables.get(table)  # d knows nobody's presence yet
    assert (await _owner(d, table)) == (d.process, epoch + 1)
    assert taken.listed
    for watcher in watchers:
        await _until(_lists(watcher, table, 2, [True, True]))
    await asyncio.sleep(1.5)  # the grace (the lease, 1 s here) is over
    for watcher in watchers:
        assert await _lists(watcher, table, 2, [True, True])()
        assert not ever_gone(watcher.transport.sent, table)
    # After the grace, nobody there is nobody there: both close it.
    for tab in (host, guest):
        await tab.ok("table.close", table=table)
    for watcher in watchers:
        await _until(_unlisted(watcher, table))


async def test_a_replica_that_missed_a_publication_catches_up(make_node: Make) -> None:
    """A publication lost on the way (a gap in the numbers): the store has what it said."""
    a, b = await make_node(), await make_node()
    host, third = await _players(a, 2)
    (watcher,) = await _players(b, 1)
    table = (await host.ok("table.create", game="relay", options={"players": 3}))["table"]
    await watcher.ok("table.open", table=table)
    replica = _mirrors(b)[table]
    await _until(lambda: _true(replica.last_seq is not None))
    publisher = _publisher(a)
    send = publisher.send
    publisher.send = lambda *args: None  # type: ignore[method-assign]  # lost
    await third.ok("table.join", table=table)  # a seat taken: its publication never leaves
    publisher.send = send  # type: ignore[method-assign]
    await host.ok("chat", table=table, text="hello")  # the next one shows the gap

    def seated(m: dict[str, Any]) -> bool:
        return m.get("type") == "table.seats" and m["seats"][1]["kind"] == "human"

    await watcher.wait(seated)
    await watcher.wait(lambda m: m.get("type") == "chat" and m["text"] == "hello")
    assert replica.seats[1].player == third.player["id"]


async def test_the_owner_forgets_who_watched_through_a_dead_process(make_node: Make) -> None:
    a, b = await make_node(), await make_node()
    (host,) = await _players(a, 1)
    (guest,) = await _players(b, 1)
    table = (await host.ok("table.create", game="relay", options={"players": 2}))["table"]
    await guest.ok("table.join", table=table)
    for tab in (host, guest):
        await tab.ok("table.open", table=table)
    live = a.tables.live[table]

    async def connected() -> bool:
        return bool(live.seats_json()[1]["connected"])

    await _until(connected)
    # b dies without a word: its lease runs out, and with it what it said of its watchers.
    await b.cluster.ownership.stop()
    async with a.store.engine.begin() as conn:  # type: ignore[attr-defined]
        await conn.execute(
            sa.text("UPDATE cluster_processes SET expires_at = 0 WHERE id = :me"),
            {"me": b.process},
        )

    async def gone() -> bool:
        return not await connected()

    await _until(gone)
    seats = await host.wait(
        lambda m: m.get("type") == "table.seats" and not m["seats"][1]["connected"]
    )
    assert seats["seats"][0]["connected"]


async def test_replicas_follow_a_new_owner(make_node: Make) -> None:
    """The owner stops: another process runs the table; the others' tabs miss nothing."""
    a, b, c = await make_node(), await make_node(), await make_node()
    tabs = [*await _players(a, 1), *await _players(b, 1), *await _players(c, 1)]
    table = await _relay(tabs)
    await tabs[0].ok("move", table=table, move={"type": "say", "word": "ringo"})
    await tabs[1].ok("move", table=table, move={"type": "vote", "ok": True})
    # a's last line never leaves it (as if it died between the commit and the publication).
    _publisher(a).send = lambda *args: None  # type: ignore[method-assign]
    await tabs[0].ok("chat", table=table, text="last words")
    await a.stop()

    async def taken() -> bool:
        return table in b.tables.live or table in c.tables.live

    await _until(taken)
    new_owner, watcher = (b, c) if table in b.tables.live else (c, b)
    assert table not in watcher.tables.live
    # The new owner's first publication has a new epoch: the replica catches up from the
    # store; the tabs of the process that took the table over get it when they move to it.
    for tab in tabs[1:]:
        await tab.wait(lambda m: m.get("type") == "chat" and m["text"] == "last words")
    await tabs[2].ok("move", table=table, move={"type": "vote", "ok": True})
    await tabs[1].ok("move", table=table, move={"type": "say", "word": "gorilla"})
    for tab in tabs[1:]:
        await tab.wait(lambda m: m.get("type") == "event" and m.get("n") == 4)
        assert [e["n"] for e in tab.events()] == [1, 2, 3, 4]
    assert await _moves(new_owner, table) == [1, 2, 3, 4]


async def test_replicas_catch_up_after_redis_restarts(
    redis_server: RedisServer, database_url: str, namespace: Namespace
) -> None:
    """Publications are lost while Redis is away: the replica catches up from the store."""
    servers = []
    for _ in range(2):
        config = ServerConfig(
            db_url=database_url,
            redis_url=redis_server.url,
            redis_namespace=namespace.prefix,
            bot_delay=0.0,
            bot_workers=0,
            games={"relay": RelayGame()},
            lease_seconds=5.0,
        )
        server = Server(config)
        await server.start()
        servers.append(server)
    a, b = servers
    try:
        tabs = [*await _players(a, 2), *await _players(b, 1)]
        table = await _relay(tabs)
        await tabs[0].ok("move", table=table, move={"type": "say", "word": "ringo"})
        await asyncio.to_thread(redis_server.stop)
        # a commits while Redis is down: nobody hears of it, the store has it.
        await tabs[1].ok("move", table=table, move={"type": "vote", "ok": True})
        await asyncio.to_thread(redis_server.start)

        async def caught_up() -> bool:
            return len(tabs[2].events()) == 2

        await _until(caught_up, timeout=15)
        assert b.cluster.redis_reconnects >= 1

        async def owner_back() -> bool:
            # b sends its player's move to a, on a's own channel, subscribed again on a's
            # reconnection (b's may come first).
            return a.cluster is not None and a.cluster.redis_reconnects >= 1

        await _until(owner_back, timeout=15)
        await tabs[2].ok("move", table=table, move={"type": "vote", "ok": True})
        for tab in tabs:
            await tab.wait(lambda m: m.get("type") == "event" and m.get("n") == 3)
            assert [e["n"] for e in tab.events()] == [1, 2, 3]
        assert table not in b.tables.live
    finally:
        for server in servers:
            await server.stop()


async def test_a_stale_owner_is_fenced_and_lets_go(make_node: Make) -> None:
    a, b = await make_node(), await make_node()
    tabs = await _players(a, 3)
    table = await _relay(tabs, vote_seconds=0.3)  # a rule clock: the table moves by itself
    await tabs[0].ok("move", table=table, move={"type": "say", "word": "ringo"})
    # a stops renewing (as if paused): its lease runs out and b takes the table over.
    await a.cluster.ownership.stop()
    async with a.store.engine.begin() as conn:  # type: ignore[attr-defined]
        await conn.execute(
            sa.text("UPDATE cluster_processes SET expires_at = 0 WHERE id = :me"),
            {"me": a.process},
        )
    b.cluster.ownership.wake()

    async def taken() -> bool:
        return table in b.tables.live

    await _until(taken)
    owner, epoch = await _owner(b, table)
    assert owner == b.process and epoch == 2
    before = await _moves(a, table)

    # a still believes it runs the table: its next write (a chat line, whatever the state of
    # the game; or its clock's move) is fenced, it lets the table go and its watchers are
    # sent to reconnect. The line itself is sent on to b, which runs the table: written once.
    await tabs[1].conn.receive(json.dumps({"type": "chat", "table": table, "text": "stale"}))
    await _until(lambda: _true(tabs[1].transport.closed_with == 1012))
    assert table not in a.tables.live
    moved = await _moves(a, table)
    assert moved[: len(before)] == before and moved == list(range(1, len(moved) + 1))
    stored = await a.store.load_table(table)
    assert stored is not None and [line.text for line in stored.chat] == ["stale"]
    assert all(tab.transport.closed_with == 1012 for tab in tabs)

    # b runs the table now: the players reconnect there (what the load balancer does) and play on.
    again = []
    for tab in tabs:
        back = Tab(b)
        await back.ok("hello", token=tab.token)
        again.append(back)

    async def vote_over() -> bool:  # b's clock ends the vote a started
        return not b.tables.live[table].state.voting

    await _until(vote_over)
    opened = [await back.ok("table.open", table=table) for back in again]
    n = opened[0]["n"]
    assert n == len(await _moves(b, table)) >= len(moved) and all(o["n"] == n for o in opened)
    turn = opened[0]["view"]["turn"]
    said = await again[turn].ok("move", table=table, move={"type": "say", "word": "gorilla"})
    assert said["n"] == n + 1 and await _moves(b, table) == list(range(1, n + 2))
    assert b.cluster.takeovers == 1


async def _true(value: bool) -> bool:
    return value


async def test_a_late_release_keeps_a_table_loaded_again_meanwhile(
    make_node: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table leaves memory and is loaded again before its release reached the database:
    the release is of the old claim, and the table runs on under the new one."""
    a = await make_node()
    host, guest = await _players(a, 2)
    table = await _relay([host, guest])
    await host.ok("move", table=table, move={"type": "say", "word": "ringo"})
    gate = asyncio.Event()
    release = a.cluster.release

    async def late_release(table_id: str, *epoch: int | None) -> None:
        await gate.wait()
        await release(table_id, *epoch)

    monkeypatch.setattr(a.cluster, "release", late_release)
    live = a.tables.live[table]
    await live.call(live.let_go)  # out of memory (its tabs told to reconnect)
    back = Tab(a)
    await back.ok("hello", token=guest.token)
    await back.ok("move", table=table, move={"type": "vote", "ok": True})  # loaded again
    owner, epoch = await _owner(a, table)
    assert owner == a.process and epoch == 2
    gate.set()
    await asyncio.sleep(0.3)  # the late release ran
    assert await _owner(a, table) == (a.process, 2)
    assert a.cluster.ownership.held.get(table) == 2
    said = await back.ok("move", table=table, move={"type": "say", "word": "gorilla"})
    assert said["n"] == 3


async def test_a_leaving_process_hands_its_tables_over_at_once(make_node: Make) -> None:
    a, b = await make_node(lease_seconds=30.0), await make_node(lease_seconds=30.0)
    tabs = await _players(a, 2)
    table = await _relay(tabs, vote_seconds=0.3)
    await tabs[0].ok("move", table=table, move={"type": "say", "word": "ringo"})  # a vote runs
    loop = asyncio.get_running_loop()
    began = loop.time()
    await a.stop()

    async def taken() -> bool:
        return table in b.tables.live

    await _until(taken, timeout=5)
    assert loop.time() - began < 5  # far sooner than the 30 s lease
    assert (await _owner(b, table))[0] == b.process

    async def vote_over() -> bool:  # the clock of the vote runs on b
        return await _moves(b, table) == [1, 2]

    await _until(vote_over)


async def test_the_writer_fails_the_fenced_tables_writes_only(database_url: str) -> None:
    store = SqlStore(database_url)
    await store.start()
    refused: set[str] = set()
    seen: list[tuple[bool, set[str]]] = []

    class Unclaimed:
        """A fence that knows of no claims: every group is checked in its transaction."""

        process = "p"

        def claims(self, tables: Any) -> None:
            return None

        async def refused(self, conn: Any, tables: Any) -> set[str]:
            seen.append((conn.is_in_transaction(), set(tables)))
            return refused & set(tables)

        async def lost(self, tables: Any) -> None:
            raise AssertionError("told by the check, not by a move's statement")

    store.fence = Unclaimed()
    try:
        for table in ("t_kept", "t_fenced"):
            record = TableRecord(table, "relay", {}, {}, 1, "playing", None, 0)
            await store.create_table(record, [SeatRecord(0), SeatRecord(1)])
        refused.add("t_fenced")
        moves = [
            store.append_move(t, MoveRecord(1, 0, {"type": "say"}, 5, "player"), None, None)
            for t in ("t_kept", "t_fenced")
        ]
        kept, fenced = await asyncio.gather(*moves, return_exceptions=True)
        assert kept is None and isinstance(fenced, Fenced) and fenced.tables == {"t_fenced"}
        assert all(in_transaction for in_transaction, _ in seen)
        assert {"t_kept", "t_fenced"} <= set().union(*(tables for _, tables in seen))
        for table, count in (("t_kept", 1), ("t_fenced", 0)):
            bundle = await store.load_table(table)
            assert bundle is not None and len(bundle.moves) == count
    finally:
        await store.close()


def test_serve_refuses_redis_without_postgres(tmp_path: Any) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bodoge", "serve", "--data", str(tmp_path), "--redis", "redis://x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0
    assert "--redis needs a PostgreSQL --db" in run.stderr


async def test_play_resumes_by_itself_after_postgresql_restarts(
    postgres_server: PostgresServer, shared_redis: str, namespace: Namespace
) -> None:
    """Moves are store_unavailable while PostgreSQL is down, past the lease; then play goes on.

    The lease lapsed meanwhile, but nobody could claim the table: the process keeps it at
    its epoch, and nothing it acknowledged is lost.
    """
    config = ServerConfig(
        db_url=postgres_server.url(),
        redis_url=shared_redis,
        redis_namespace=namespace.prefix,
        bot_delay=0.0,
        bot_workers=0,
        games={"relay": RelayGame()},
        lease_seconds=1.0,
    )
    server = Server(config)
    await server.start()
    try:
        tabs = await _players(server, 2)
        table = await _relay(tabs)
        await tabs[0].ok("move", table=table, move={"type": "say", "word": "ringo"})
        vote = {"type": "vote", "ok": True}
        await asyncio.to_thread(postgres_server.stop)
        refused = await tabs[1].request("move", table=table, move=vote)
        assert refused["type"] == "error" and refused["code"] == "store_unavailable", refused
        await asyncio.sleep(1.5)  # past the lease
        await asyncio.to_thread(postgres_server.start)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while (reply := await tabs[1].request("move", table=table, move=vote))["type"] == "error":
            assert reply["code"] == "store_unavailable", reply
            assert loop.time() < deadline, "play did not resume"
            await asyncio.sleep(0.2)
        assert reply["n"] == 2
        ownership = server.cluster.ownership

        async def renewed() -> bool:
            return ownership.lapses >= 1 and ownership.lease_valid

        await _until(renewed)  # it found its lease lapsed, took it again, kept its table
        assert await _owner(server, table) == (server.process, 1)
        assert await _moves(server, table) == [1, 2]
        assert table in server.tables.live
    finally:
        await server.stop()


# --- what the processes count and remember together -----------------------------------------


async def _frame(tab: Tab, request_id: int, **fields: Any) -> dict[str, Any]:
    """Send a request with the given id (a retry is the same frame again); its reply."""
    before = len(tab.transport.sent)
    await tab.conn.receive(json.dumps({"id": request_id, **fields}))

    async def answered() -> bool:
        return any(m.get("id") == request_id for m in tab.transport.sent[before:])

    await _until(answered)
    return next(m for m in tab.transport.sent[before:] if m.get("id") == request_id)


async def test_a_request_retried_on_another_process_gets_the_first_reply(
    make_node: Make,
) -> None:
    """A client reconnects through the load balancer to another process and sends its
    unacknowledged requests again: they are answered, not run twice."""
    a, b = await make_node(), await make_node()
    host, guest = await _players(a, 2)
    table = await _relay([host, guest])
    again = Tab(b)  # the host's new connection lands on b
    await again.ok("hello", token=host.token)
    say = {"type": "move", "table": table, "move": {"type": "say", "word": "ringo"}}
    first = await _frame(host, 40, **say)
    assert first["type"] == "ack" and first["n"] == 1
    retried = await _frame(again, 40, **say)
    assert retried == first
    chat = {"type": "chat", "table": table, "text": "once"}
    line = await _frame(host, 41, **chat)
    assert await _frame(again, 41, **chat) == line
    assert await _moves(a, table) == [1]
    bundle = await b.store.load_table(table)
    assert bundle is not None and [c.text for c in bundle.chat] == ["once"]
    # The same id with other fields is another request (a client that numbered anew).
    other = await _frame(again, 41, type="chat", table=table, text="twice")
    assert other["type"] == "ack" and other["line"] == 2
    # A request whose process died before it replied is run again where it is retried.
    text = {"type": "chat", "table": table, "text": "orphan", "id": 42}
    note = {"request": json.dumps(text, sort_keys=True, separators=(",", ":")), "process": "gone"}
    await b.cluster.shared.write(host.player["id"], "42", note, 60)
    orphan = await _frame(again, 42, type="chat", table=table, text="orphan")
    assert orphan["type"] == "ack" and orphan["line"] == 3


def _visitor(server: Server, address: str) -> Tab:
    """A tab from a client address (counted against the rates per address)."""
    tab = Tab(server)
    tab.conn = server.connect(tab.transport, address)
    return tab


async def test_rates_and_caps_are_the_clusters(make_node: Make) -> None:
    """A visitor on several processes gets the rates and caps of one, not one per process."""
    quotas = Quotas(new_players_per_hour=2, tables_per_hour=2, waiting_tables_per_player=1)
    a, b = await make_node(quotas=quotas), await make_node(quotas=quotas)
    first, second, third = (_visitor(s, "192.0.2.7") for s in (a, b, b))
    ann = await first.ok("hello", name="ann")
    await second.ok("hello", name="bob")
    refused = await third.request("hello", name="cid")
    assert refused["type"] == "error" and refused["code"] == "new_player_rate_limited", refused
    # Ann's waiting table, made on a, counts on b; so do the tables she made an hour.
    ann_on_b = _visitor(b, "198.51.100.1")
    ann_on_b._ids = itertools.count(100)  # not a retry of her requests on a (ids 1, 2, …)
    await ann_on_b.ok("hello", token=ann["token"])
    table = (await first.ok("table.create", game="relay", options={"players": 2}))["table"]
    capped = await ann_on_b.request("table.create", game="relay", options={"players": 2})
    assert capped["type"] == "error" and capped["code"] == "too_many_tables", capped
    await first.ok("table.leave", table=table)  # the last person left: deleted
    second_table = await ann_on_b.ok("table.create", game="relay", options={"players": 2})
    await ann_on_b.ok("table.leave", table=second_table["table"])
    limited = await first.request("table.create", game="relay", options={"players": 2})
    assert limited["type"] == "error" and limited["code"] == "table_rate_limited", limited


async def test_new_tables_are_spread_over_the_processes(make_node: Make) -> None:
    """Every host on one process (the load balancer's doing): their tables still spread."""
    a, b = await make_node(), await make_node()

    async def a_knows_b() -> bool:
        return b.process in a.cluster.ownership.loads

    await _until(a_knows_b)
    hosts = await _players(a, 6)
    tables = [
        (await host.ok("table.create", game="relay", options={"players": 2}))["table"]
        for host in hosts
    ]
    owners = Counter([(await _owner(a, table))[0] for table in tables])
    assert owners[a.process] >= 2 and owners[b.process] >= 2, owners
    # Each is played from a, wherever it runs.
    guests = await _players(a, 6)
    for host, guest, table in zip(hosts, guests, tables, strict=True):
        await guest.ok("table.join", table=table)
        for tab in (host, guest):
            await tab.ok("table.open", table=table)
        await host.ok("table.start", table=table)
        assert (await host.ok("move", table=table, move={"type": "say", "word": "a"}))["n"] == 1


async def test_signing_out_everywhere_reaches_every_process(make_node: Make) -> None:
    """Sign out everywhere on one process: the account's sockets on another close too, and
    the tokens that process had cached name nobody any more."""
    a, b = await make_node(), await make_node()
    (hal,) = await _players(a, 1)
    player = a.players.get(str(hal.player["id"]))
    assert player is not None
    name = f"hal{uuid.uuid4().hex[:8]}"
    await a.accounts.keep_name(player, Device("192.0.2.1"), name, "correct horse battery")
    on_b = Tab(b)
    await on_b.ok("hello", token=hal.token)  # b caches hal's token
    assert (await b.players.by_token(hal.token)).id == player.id
    fresh = await a.accounts.sign_out_everywhere(player, Device("192.0.2.1"))

    async def closed_on_b() -> bool:
        return on_b.transport.closed_with == SIGNED_OUT

    await _until(closed_on_b)
    with pytest.raises(ProtocolError) as refused:
        await b.players.by_token(hal.token)
    assert refused.value.code == "bad_token"
    assert (await b.players.by_token(fresh)).id == player.id


async def test_ending_a_device_reaches_the_process_it_is_connected_to(make_node: Make) -> None:
    """The account page on one process ends a device whose socket is on another: that socket
    closes, and the other process refuses its token from then on."""
    a, b = await make_node(), await make_node()
    (ivy,) = await _players(a, 1)
    player = a.players.get(str(ivy.player["id"]))
    assert player is not None
    name = f"ivy{uuid.uuid4().hex[:8]}"
    await a.accounts.keep_name(player, Device("192.0.2.1"), name, "correct horse battery")
    _, phone = await a.accounts.sign_in(Device("192.0.2.2"), name, "correct horse battery")
    on_b = Tab(b)
    await on_b.ok("hello", token=phone)
    assert (await b.players.by_token(phone)).id == player.id
    listed = await a.accounts.devices(player, str(ivy.token))
    (other,) = [d for d in listed if not d["this"]]
    await a.accounts.end_device(player, str(ivy.token), other["id"])

    async def closed_on_b() -> bool:
        return on_b.transport.closed_with == SIGNED_OUT

    await _until(closed_on_b)
    with pytest.raises(ProtocolError) as refused:
        await b.players.by_token(phone)
    assert refused.value.code == "bad_token"
    assert (await b.players.by_token(ivy.token)).id == player.id


async def test_a_table_no_other_process_follows_is_told_to_nobody(make_node: Make) -> None:
    """Its publications reach no subscriber: after the first that nobody heard, they are
    numbered but not sent; a process that comes to watch the table misses nothing, also
    the moves made between its loading the table and the owner hearing of it."""
    a, b = await make_node(), await make_node()
    host, guest = await _players(a, 2)
    (watcher,) = await _players(b, 1)
    publisher = _publisher(a)
    sent: list[dict[str, Any]] = []
    send = publisher.send

    def counted(table_id: str, data: dict[str, Any], heard: Any = None) -> None:
        sent.append(data)
        send(table_id, data, heard)

    publisher.send = counted  # type: ignore[method-assign]
    table = await _relay([host, guest])
    await host.ok("move", table=table, move={"type": "say", "word": "ringo"})
    await guest.ok("move", table=table, move={"type": "vote", "ok": True})
    await _until(lambda: _true(publisher.unsent > 0))
    told, unsent = len(sent), publisher.unsent
    await guest.ok("move", table=table, move={"type": "say", "word": "gorilla"})
    await host.ok("chat", table=table, text="quiet")
    assert len(sent) == told and publisher.unsent == unsent + 2  # nobody listens: not sent

    # b loads the table; before a hears that b watches it, a's host moves: not sent either.
    mirrors = _reach(b).mirrors
    ask_owner = mirrors.ask_owner
    assert ask_owner is not None
    loaded = asyncio.Event()
    moved = asyncio.Event()

    async def late_watch(table_id: str, owner: str | None, call: Any) -> Any:
        loaded.set()
        await moved.wait()
        return await ask_owner(table_id, owner, call)

    mirrors.ask_owner = late_watch
    opening = asyncio.create_task(watcher.ok("table.open", table=table))
    await loaded.wait()
    await host.ok("move", table=table, move={"type": "vote", "ok": True})
    assert len(sent) == told  # still nobody listening as far as a knows
    moved.set()
    await opening
    mirrors.ask_owner = ask_owner
    # The owner's answer carries a move number ahead of the mirror's: it reads the store.
    await watcher.wait(lambda m: m.get("type") == "event" and m.get("n") == 4)
    # From now on every change is sent, and the watcher's events go on without a gap.
    await host.ok("move", table=table, move={"type": "say", "word": "ramen"})
    await watcher.wait(lambda m: m.get("type") == "event" and m.get("n") == 5)
    assert len(sent) > told
    numbers = [e["n"] for e in watcher.events()]
    assert numbers == sorted(set(numbers)) and numbers[-1] == 5
    replica = _mirrors(b)[table]
    assert replica.snapshot(None) == a.tables.live[table].snapshot(None)


async def _table_on(owner: Server, other: Server, tabs: list[Tab]) -> str:
    """A relay table of ``tabs`` that ``owner`` runs (tables go to the least loaded process:
    made until one lands there)."""
    for _ in range(10):
        table = await _relay(tabs)
        if (await _owner(other, table))[0] == owner.process:
            return table
        for tab in tabs:
            await tab.ok("table.leave", table=table)
    raise AssertionError(f"no table landed on {owner.process}")


async def test_a_table_command_waits_on_no_redis_and_its_owner_answers_a_retry(
    make_node: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move or a chat line is noted nowhere before it runs: its table's owner remembers
    what it ran, so a retry reaching it through another process while the first is still
    running gets the first reply, and the line is written once."""
    a, b = await make_node(), await make_node()
    host, guest = await _players(a, 2)
    table = await _table_on(a, b, [host, guest])
    noted: list[str] = []
    for server in (a, b):
        note = server.cluster.shared.note

        async def counted(*args: Any, note: Any = note) -> Any:
            noted.append(args[1])
            return await note(*args)

        monkeypatch.setattr(server.cluster.shared, "note", counted)
    said = await _frame(host, 60, type="move", table=table, move={"type": "say", "word": "a"})
    assert said["type"] == "ack"
    assert noted == []  # before: one Redis round trip before every command

    # The first chat is held on the owner (a) while its retry comes through b.
    from bodoge.server.runtime import commands

    run_say = commands._RUNNERS[commands.Say]
    release = asyncio.Event()

    async def held(*args: Any) -> None:
        await release.wait()
        await run_say(*args)

    monkeypatch.setitem(commands._RUNNERS, commands.Say, held)
    again = Tab(b)  # the host's new connection lands on b
    await again.ok("hello", token=host.token)
    chat = {"type": "chat", "table": table, "text": "once", "id": 61}
    sent = [asyncio.create_task(tab.conn.receive(json.dumps(chat))) for tab in (host, again)]
    await asyncio.sleep(0.3)  # both are at the owner now, one running, one waiting for it
    release.set()
    await asyncio.gather(*sent)
    first = await host.wait(lambda m: m.get("id") == 61)
    retried = await again.wait(lambda m: m.get("id") == 61)
    assert first == retried and first["type"] == "ack" and first["line"] == 1
    bundle = await b.store.load_table(table)
    assert bundle is not None and [c.text for c in bundle.chat] == ["once"]
    # A refusal is remembered too: the retry gets it, nothing runs twice.
    early = {"type": "move", "table": table, "move": {"type": "say", "word": "b"}, "id": 62}
    refused = await _frame(host, 62, **{k: v for k, v in early.items() if k != "id"})
    assert refused["type"] == "error" and refused["code"] == "not_your_turn"
    assert await _frame(again, 62, **{k: v for k, v in early.items() if k != "id"}) == refused
    assert noted == []


async def test_a_retry_after_its_owner_died_gets_the_reply_the_owner_gave(
    make_node: Make,
) -> None:
    """The owner answered a move and a chat line, then went away before the client got the
    replies: whichever process takes the table over answers their retries with them (the
    owner noted each reply in Redis, without waiting), and runs nothing twice."""
    a, b, c = await make_node(), await make_node(), await make_node()
    host, guest = await _players(c, 2)
    table = await _table_on(a, c, [host, guest])
    say = {"type": "move", "table": table, "move": {"type": "say", "word": "ringo"}}
    first = await _frame(host, 70, **say)
    chat = {"type": "chat", "table": table, "text": "once"}
    line = await _frame(host, 71, **chat)
    assert first["type"] == "ack" and line["type"] == "ack"

    async def noted() -> bool:
        note = await b.cluster.shared.read(str(host.player["id"]), "71")
        return note is not None and "reply" in note

    await _until(noted)
    await a.stop()

    async def taken() -> bool:
        return table in b.tables.live or table in c.tables.live

    await _until(taken)
    again = Tab(b)  # a process that never saw these requests
    await again.ok("hello", token=host.token)
    assert await _frame(again, 70, **say) == first  # not "not your turn"
    assert await _frame(again, 71, **chat) == line
    bundle = await b.store.load_table(table)
    assert bundle is not None and [c.text for c in bundle.chat] == ["once"]
    assert [m.n for m in bundle.moves] == [1]

"""A process alone stops telling its lobby changes (issue 33, point 8): nobody else hears
them. Another process that starts, or gets Redis back, asks it for its tables, and from
then on it tells every change again — none is lost in between."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from bodoge.cluster.bus import Bus
from bodoge.cluster.namespace import Namespace
from bodoge.server.replication.lobby_link import LobbyLink
from bodoge.server.replication.messages import ListTables
from bodoge.server.runtime.config import ServerConfig
from bodoge.server.wiring import Server
from tests.cluster.test_serve_cluster import _players, _until, make_node
from tests.games.relay.game import RelayGame
from tests.server.test_tables import Tab
from tests.support.lobby import listing
from tests.support.services import RedisServer

__all__ = ["make_node"]  # fixtures

Make = Callable[..., Any]


def _link(server: Server) -> LobbyLink:
    assert server.lobby_link is not None
    return server.lobby_link


def _count_lobby_publications(server: Server) -> list[bytes]:
    """Every lobby message ``server`` hands Redis from now on."""
    assert server.cluster is not None
    bus: Bus = server.cluster.bus
    channel = server.cluster.namespace.lobby
    sent: list[bytes] = []
    publish = bus.publish

    async def counted(to: str, message: Any) -> int:
        if to == channel:
            sent.append(message)
        return await publish(to, message)

    bus.publish = counted  # type: ignore[method-assign]
    return sent


def _same_lobby(here: Tab, there: Tab) -> Callable[[], Any]:
    async def check() -> bool:
        return listing(here.transport.sent) == listing(there.transport.sent)

    return check


def _lists(tab: Tab, table: str) -> Callable[[], Any]:
    async def check() -> bool:
        return table in listing(tab.transport.sent)

    return check


async def _quiet(server: Server) -> None:
    async def check() -> bool:
        return _link(server).quiet

    await _until(check)


async def test_a_process_alone_tells_its_lobby_changes_once(make_node: Make) -> None:
    a = await make_node()
    sent = _count_lobby_publications(a)
    host, guest = await _players(a, 2)
    table = (await host.ok("table.create", game="relay", options={"players": 2}))["table"]
    await _quiet(a)
    assert len(sent) == 1  # the first reached only a itself
    await guest.ok("table.join", table=table)
    await host.ok("table.start", table=table)
    other = (await host.ok("table.create", game="relay", options={"players": 3}))["table"]
    await guest.ok("table.join", table=other)
    await guest.ok("table.leave", table=other)
    await asyncio.sleep(0.3)  # anything queued has left
    assert len(sent) == 1
    assert _link(a).unsent >= 4 and _link(a).quiet


async def test_a_process_started_later_hears_every_table_and_every_change(
    make_node: Make,
) -> None:
    a = await make_node()
    sent = _count_lobby_publications(a)
    host, guest, third = await _players(a, 3)
    (watch_a,) = await _players(a, 1)
    await watch_a.ok("lobby.subscribe")
    open_one = (await host.ok("table.create", game="relay", options={"players": 3}))["table"]
    await _quiet(a)
    half = (await host.ok("table.create", game="relay", options={"players": 2}))["table"]
    await guest.ok("table.join", table=open_one)
    assert len(sent) == 1
    b = await make_node()  # it asked a for its tables: a tells again from before it answered
    assert not _link(a).quiet
    # Changes at once after the answer: a new table, one filled, one started, one removed.
    made = (await third.ok("table.create", game="relay", options={"players": 2}))["table"]
    await guest.ok("table.join", table=half)
    await guest.ok("table.open", table=half)
    await host.ok("table.open", table=half)
    await host.ok("table.start", table=half)
    await guest.ok("table.leave", table=open_one)
    await host.ok("table.leave", table=open_one)  # nobody left: the table is removed
    (watch_b,) = await _players(b, 1)
    await watch_b.ok("lobby.subscribe")
    await _until(_same_lobby(watch_a, watch_b))
    tables = listing(watch_b.transport.sent)
    assert open_one not in tables and made in tables
    assert [s["kind"] for s in tables[half]["seats"]] == ["human", "human"]
    # b's own changes reach a, and a's next ones reach b.
    (b_host,) = await _players(b, 1)
    from_b = (await b_host.ok("table.create", game="relay", options={"players": 2}))["table"]
    await third.ok("table.join", table=from_b)
    await third.ok("table.leave", table=made)
    await _until(_same_lobby(watch_a, watch_b))
    tables = listing(watch_a.transport.sent)
    assert from_b in tables and made not in tables
    assert not _link(a).quiet and not _link(b).quiet


async def test_a_process_quiet_before_redis_restarts_is_heard_after(
    redis_server: RedisServer, database_url: str, namespace: Namespace
) -> None:
    servers: list[Server] = []

    async def start() -> Server:
        server = Server(
            ServerConfig(
                db_url=database_url,
                redis_url=redis_server.url,
                redis_namespace=namespace.prefix,
                bot_delay=0.0,
                bot_workers=0,
                games={"relay": RelayGame()},
                lease_seconds=5.0,
            )
        )
        await server.start()
        servers.append(server)
        return server

    try:
        a = await start()
        host, guest = await _players(a, 2)
        (watch_a,) = await _players(a, 1)
        await watch_a.ok("lobby.subscribe")
        first = (await host.ok("table.create", game="relay", options={"players": 2}))["table"]
        await _quiet(a)
        b = await start()
        (watch_b,) = await _players(b, 1)
        await watch_b.ok("lobby.subscribe")
        await _until(_same_lobby(watch_a, watch_b))
        await asyncio.to_thread(redis_server.stop)
        # Told while Redis is away: lost on the channel, found again by b's resync.
        await guest.ok("table.join", table=first)
        await asyncio.to_thread(redis_server.start)
        assert b.cluster is not None

        async def reconnected() -> bool:
            assert b.cluster is not None
            return b.cluster.redis_reconnects >= 1

        await _until(reconnected, timeout=15)

        async def both_seated() -> bool:
            seats = listing(watch_b.transport.sent)[first]["seats"]
            return [s["kind"] for s in seats] == ["human", "human"]

        # (Not "the same lobby" alone: a's own watcher may not have had the join yet either,
        # its lobby's updates being gathered, and two lists without it are the same too.)
        await _until(both_seated)
        await _until(_same_lobby(watch_a, watch_b))
        later = (await host.ok("table.create", game="relay", options={"players": 3}))["table"]
        await _until(_lists(watch_b, later))
    finally:
        for server in servers:
            await server.stop()


async def test_a_change_heard_while_a_resync_waits_is_not_undone_by_the_older_answer(
    make_node: Make,
) -> None:
    """The owner's listing and its lobby messages travel apart: a join heard before the
    listing made before it arrives is kept, the listing's number being older."""
    a, b = await make_node(), await make_node()
    host, guest = await _players(a, 2)
    table = (await host.ok("table.create", game="relay", options={"players": 3}))["table"]
    owner, other = (a, b) if table in a.tables.live else (b, a)
    assert table in owner.tables.live and table not in other.tables.live

    async def seats() -> list[str | None]:
        summary: Any = other.lobby.remote.get(table)
        return [] if summary is None else [seat["player"] for seat in summary["seats"]]

    async def only_host() -> bool:
        return await seats() == [host.player, None, None]

    await _until(only_host)
    answered, gate = asyncio.Event(), asyncio.Event()
    reach: Any = owner.tables.reach
    handlers = reach.owner._handlers
    listing_now = handlers[ListTables]

    async def held_back(call: ListTables) -> Any:
        answer = await listing_now(call)  # the listing as of now: the host alone
        answered.set()
        await gate.wait()
        return answer

    handlers[ListTables] = held_back
    resync = asyncio.create_task(_link(other).sync())  # as after Redis came back
    await asyncio.wait_for(answered.wait(), 10)
    await guest.ok("table.join", table=table)  # told on the lobby's channel at once

    async def both() -> bool:
        return await seats() == [host.player, guest.player, None]

    await _until(both)  # heard while the resync waits for its answer
    gate.set()
    await asyncio.wait_for(resync, 10)
    assert await both(), await seats()
    # A later resync, its answer newer than every change, takes the listing as it is.
    handlers[ListTables] = listing_now
    await guest.ok("table.leave", table=table)
    await _link(other).sync()
    assert await only_host(), await seats()

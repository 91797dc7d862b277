"""The lobby is the cluster's (issue 33, point 6): real ``bodoge serve --redis`` processes.

A two-player table is made through one process and run by another; its host has it open
through the first, the second person joins and opens it through a third. Every process's
lobby lists it with both people (``online`` 2), also when it is full, and a process that is
killed takes its people off the count within its lease (one second here).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.cluster.test_processes import LEASE, _stored, engine, make_process
from tests.support.client import Client
from tests.support.live_server import LiveServer
from tests.support.lobby import ever_gone, listing

__all__ = ["engine", "make_process"]  # fixtures


async def _shows(
    client: Client, table: str, online: int, connected: list[bool], timeout: float = 10
) -> None:
    """Wait until the lobby ``client`` holds lists ``table`` so."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        summary = listing(client.received).get(table)
        if (
            summary is not None
            and summary["online"] == online
            and [s["connected"] for s in summary["seats"]] == connected
        ):
            return
        assert loop.time() < deadline, (client.player, summary)
        await asyncio.sleep(0.05)


async def _unlisted(client: Client, table: str, timeout: float = 10) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while table in listing(client.received):
        assert loop.time() < deadline, "still listed"
        await asyncio.sleep(0.05)


async def _subscribed(server: LiveServer) -> dict[str, dict[str, Any]]:
    """The lobby a new watcher on ``server`` starts from, by table id."""
    late = await Client.connect(server.ws_url, "late")
    try:
        return {t["id"]: t for t in (await late.ok("lobby.subscribe"))["tables"]}
    finally:
        await late.close()


def _runs(processes: list[LiveServer], owner: str | None) -> LiveServer:
    assert owner is not None
    return next(p for p in processes if owner.split("-")[-2] == str(p.pid))


async def _spread_table(
    make_process: Callable[..., Any], engine: AsyncEngine
) -> tuple[list[LiveServer], LiveServer, LiveServer, LiveServer, Client, str]:
    """Three processes and a table made through the first (``through``) that another one
    runs (``runs``); the third is ``other``. Returns them, the host (on the first) and the
    table."""
    processes = [await make_process() for _ in range(3)]
    through = processes[0]
    host = await Client.connect(through.ws_url, "Host")
    # The first process holds a table: the next one is placed on a process with fewer.
    await host.ok("table.create", game="tagiron", options={"players": 2})
    await asyncio.sleep(3 * LEASE)  # every process's load seen at an orphan scan
    table = (await host.ok("table.create", game="tagiron", options={"players": 2}))["table"]
    runs = _runs(processes, (await _stored(engine, table))[1])
    assert runs is not through
    other = next(p for p in processes if p not in (through, runs))
    return processes, through, runs, other, host, table


async def test_a_full_table_opened_through_two_processes_is_listed_by_every_process(
    make_process: Callable[..., Any], engine: AsyncEngine
) -> None:
    processes, through, runs, other, host, table = await _spread_table(make_process, engine)
    watchers = [await Client.connect(p.ws_url, f"w{i}") for i, p in enumerate(processes)]
    for watcher in watchers:
        await watcher.ok("lobby.subscribe")
    await host.ok("table.open", table=table)
    guest = await Client.connect(other.ws_url, "Guest")
    await guest.ok("table.join", table=table)
    await guest.ok("table.open", table=table)
    for watcher in watchers:
        await _shows(watcher, table, 2, [True, True])
    async with httpx.AsyncClient(timeout=20) as http:
        for process in processes:
            assert (await _subscribed(process))[table]["online"] == 2
            listed = (await http.get(f"{process.url}api/tables")).json()["tables"]
            assert {t["id"]: t["online"] for t in listed}[table] == 2
    # The guest's process is killed: within its lease every other lobby counts the host
    # alone, and still lists the table (its host has it open).
    loop = asyncio.get_running_loop()
    killed = loop.time()
    await asyncio.to_thread(other.kill)
    survivors = watchers[: processes.index(other)] + watchers[processes.index(other) + 1 :]
    for watcher in survivors:
        await _shows(watcher, table, 1, [True, False], timeout=LEASE + 10)
    took = loop.time() - killed
    assert took < LEASE + 4, f"counted after {took:.1f} s"
    for watcher in watchers:
        assert not ever_gone(watcher.received, table)
    # The host closes it: full, and nobody there to start it: off every list.
    await host.ok("table.close", table=table)
    for watcher in survivors:
        await _unlisted(watcher, table)
    for process in (through, runs):
        assert table not in await _subscribed(process)


async def test_a_new_owner_counts_the_people_of_every_process(
    make_process: Callable[..., Any], engine: AsyncEngine
) -> None:
    """The process that runs the table is killed while both people have it open through
    the two others: whichever takes it over lists it with both, and no lobby drops it."""
    _, through, runs, other, host, table = await _spread_table(make_process, engine)
    watchers = [await Client.connect(p.ws_url, f"w{i}") for i, p in enumerate((through, other))]
    for watcher in watchers:
        await watcher.ok("lobby.subscribe")
    await host.ok("table.open", table=table)
    guest = await Client.connect(other.ws_url, "Guest")
    await guest.ok("table.join", table=table)
    await guest.ok("table.open", table=table)
    for watcher in watchers:
        await _shows(watcher, table, 2, [True, True])
    dead = str(runs.pid)
    await asyncio.to_thread(runs.kill)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while True:  # the lease runs out; a scan claims the table
        owner = (await _stored(engine, table))[1]
        if owner is not None and owner.split("-")[-2] != dead:
            break
        assert loop.time() < deadline, f"never taken over: {owner}"
        await asyncio.sleep(0.05)
    assert _runs([through, other], owner) in (through, other)
    for watcher in watchers:
        await _shows(watcher, table, 2, [True, True])
    await asyncio.sleep(1)  # any flicker would have come by now
    for watcher in watchers:
        await _shows(watcher, table, 2, [True, True], timeout=0)
        assert not ever_gone(watcher.received, table), watcher.player
    for process in (through, other):
        assert (await _subscribed(process))[table]["online"] == 2

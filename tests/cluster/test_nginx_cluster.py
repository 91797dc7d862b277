"""Three ``bodoge serve`` processes behind nginx: both games played to the end through faults.

A private PostgreSQL and Redis (so that they can be restarted), three processes with a
one-second lease, nginx in front (``bodoge/cluster/nginx.py``'s configuration). Every
client connects through nginx, so the seats of one table are spread over the processes:
most of them play through a process that does not run their table (a replica, commands
forwarded to the owner). A four-player Tagiron game and a three-player Illustori game with
secret votes, each with a spectator, are played to the end while Redis is restarted,
PostgreSQL is restarted and the process that runs the Tagiron table is killed with
SIGKILL. A client whose connection drops comes back through nginx with its token and
resyncs from its last event.

Checked: every acknowledged move is in the stored history, which is numbered 1…N; every
client saw every event exactly once and in order across its connections (after each
resync); each client's view, rebuilt from frames alone, equals a fresh snapshot at the end;
no tile or vote went to a seat that may not see it; no traceback in any process's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import random
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from bodoge.games.illustori.game import IllustoriGame
from tests.server import test_illustori_secret_votes as illustori
from tests.server.tagiron_play import Truth, history, leaks, random_move
from tests.support.client import Client, Message
from tests.support.live_server import DEFAULT_ARGS, LiveServer
from tests.support.services import NginxServer, PostgresServer, RedisServer, running

ILLUSTORI = IllustoriGame()
#: Errors a move may get while the cluster heals; the player looks again and moves again.
PASSING = {"table_unavailable", "store_unavailable", "internal_error"}
#: Errors of a move chosen from a view that was out of date by then.
STALE = {
    "not_your_turn",
    "game_finished",
    "not_playing",
    "may_not_ask",
    "may_not_declare",
    "may_not_pass",
    "card_not_face_up",
}


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode()


def _about(message: Message, table: str) -> bool:
    where = message.get("table")
    return where == table or (isinstance(where, dict) and where.get("id") == table)


class Player:
    """One person at a table, through as many connections (sessions) as it takes."""

    def __init__(self, nginx: NginxServer, name: str) -> None:
        self.nginx = nginx
        self.name = name
        self.sessions: list[Client] = []
        self.acked: list[int] = []

    @property
    def client(self) -> Client:
        return self.sessions[-1]

    async def connect(self) -> None:
        self.sessions.append(await Client.connect(self.nginx.ws_url, self.name))

    def state(self, table: str) -> Message | None:
        return self.client.follower.states.get(table)

    async def reconnect(self, table: str) -> None:
        """Back through nginx with the same token; the table opened from the last event."""
        old = self.client
        known = old.follower.states.get(table)
        since = known["n"] if known is not None else None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while True:
            assert loop.time() < deadline, f"{self.name} could not come back"
            try:
                new = await Client.connect(self.nginx.ws_url, None, token=old.token)
            except Exception:  # nginx found no process yet, or the hello failed
                await asyncio.sleep(0.2)
                continue
            if known is not None:  # the frames to come patch the view this client had
                new.follower.states[table] = copy.deepcopy(known)
            try:
                reply = await new.request("table.open", table=table, since=since, timeout=10)
            except Exception:
                reply = {"type": "error", "code": "closed"}
            if reply["type"] != "error":
                break
            await new.close()
            await asyncio.sleep(0.2)
        with contextlib.suppress(Exception):
            await old.close()
        self.sessions.append(new)

    async def until(self, table: str, n: int, timeout: float = 20.0) -> None:
        """Wait until this player has seen move ``n`` (coming back if the connection drops)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            state = self.state(table)
            if state is not None and state["n"] >= n:
                return
            assert loop.time() < deadline, f"{self.name} never saw move {n} ({state})"
            if self.client.closed.done():
                await self.reconnect(table)
                continue
            with contextlib.suppress(Exception):
                await self.client.wait_for(lambda m: True, timeout=0.5)


async def _seat_everyone(players: list[Player], watcher: Player, game: str, **create: Any) -> str:
    host = players[0].client
    table = (await host.ok("table.create", game=game, **create))["table"]
    for player in players[1:]:
        await player.client.ok("table.join", table=table)
    for player in [*players, watcher]:
        await player.client.ok("table.open", table=table)
    await host.ok("table.start", table=table)
    for player in [*players, watcher]:
        await player.client.wait_for(
            lambda m: m.get("type") == "table" and _about(m, table) and m.get("view") is not None
        )
    return table


async def _drive(
    players: list[Player],
    watcher: Player,
    table: str,
    choose: Callable[[Message, int, random.Random], Any],
    progress: Callable[[int], None],
    seed: int,
) -> Message:
    """Play until the result: a seat that may act moves, everyone sees it, again."""
    rng = random.Random(seed)
    for _ in range(1000):
        states = [p.state(table) for p in players]
        if any(s is None for s in states):  # a connection came back without a copy
            for p, s in zip(players, states, strict=True):
                if s is None:
                    try:
                        await p.client.request("table.open", table=table, timeout=10)
                    except Exception:  # closed meanwhile: back through nginx
                        await p.reconnect(table)
            continue
        if states[0].get("result"):
            return states[0]
        movers = [s for s, m in enumerate(states) if m.get("may_act")]
        assert movers, f"nobody may act: {states[0]}"
        seat = rng.choice(movers)
        move = choose(states[seat]["view"], seat, rng)
        try:
            reply = await players[seat].client.request("move", table=table, move=move, timeout=15)
        except Exception:  # the connection closed (its process gone, a table moved)
            await players[seat].reconnect(table)
            continue
        if reply["type"] == "error":
            assert reply["code"] in PASSING | STALE, reply
            await asyncio.sleep(0.1)
            continue
        players[seat].acked.append(reply["n"])
        for player in [*players, watcher]:
            await player.until(table, reply["n"])
        progress(reply["n"])
    raise AssertionError("the game did not end")


def _tagiron_move(view: Message, seat: int, rng: random.Random) -> Any:
    return random_move(view, rng, declare=0.0)


def _illustori_move(view: Message, seat: int, rng: random.Random) -> Any:
    return ILLUSTORI.move_to_json(illustori.choose(view, seat, rng))


def _contiguous(player: Player, table: str) -> list[int]:
    """Every event number the player saw, across its connections; checked in order."""
    seen: list[int] = []
    n = -1
    for client in player.sessions:
        for m in client.frames:
            if not _about(m, table):
                continue
            if m.get("type") == "table":
                assert m["n"] >= n, f"{player.name}: a snapshot went back ({m['n']} < {n})"
                n = m["n"]
            elif m.get("type") == "event":
                assert m["n"] == n + 1, f"{player.name}: event {m['n']} after {n}"
                n = m["n"]
                seen.append(n)
    return seen


async def _owner_pid(url: str, table: str) -> int:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            owner = (
                await conn.execute(sa.text("SELECT owner FROM tables WHERE id = :t"), {"t": table})
            ).scalar()
    finally:
        await engine.dispose()
    return int(str(owner).split("-")[-2])


async def test_both_games_to_the_end_through_restarts_and_a_kill(tmp_path: Path) -> None:
    with running(PostgresServer(), RedisServer()) as (pg, redis):
        assert isinstance(pg, PostgresServer) and isinstance(redis, RedisServer)
        processes: list[LiveServer] = []
        nginx: NginxServer | None = None
        try:
            for i in range(3):  # one after another: the first makes the schema
                args = [
                    *DEFAULT_ARGS,
                    *("--db", pg.url(), "--redis", redis.url, "--lease", "1"),
                    *("--trusted-proxies", "127.0.0.1"),
                    *("--bot-workers", "0", "--log-level", "info"),
                ]
                server = LiveServer(tmp_path / f"p{i}", args=args)
                processes.append(await asyncio.to_thread(server.start))
            nginx = await asyncio.to_thread(NginxServer([p.port for p in processes]).start)
            await _play_through_faults(pg, redis, processes, nginx)
        finally:
            for server in processes:
                await asyncio.to_thread(server.stop)
            if nginx is not None:
                await asyncio.to_thread(nginx.close)
        tracebacks = [
            log[max(0, at - 300) : at + 1500]
            for server in processes
            for log in [server.log_path.read_text(errors="replace")]
            for at in [log.find("Traceback")]
            if at >= 0
        ]
        assert not tracebacks, "\n-----\n".join(tracebacks)


async def _play_through_faults(
    pg: PostgresServer, redis: RedisServer, processes: list[LiveServer], nginx: NginxServer
) -> None:
    tagiron = [Player(nginx, f"tag{s}") for s in range(4)]
    tag_watch = Player(nginx, "tagwatch")
    story = [Player(nginx, f"ill{s}") for s in range(3)]
    story_watch = Player(nginx, "illwatch")
    for player in [*tagiron, tag_watch, *story, story_watch]:
        await player.connect()
    tag_table = await _seat_everyone(tagiron, tag_watch, "tagiron", options={"players": 4})
    story_table = await _seat_everyone(
        story,
        story_watch,
        "illustori",
        options={"players": 3, "secret_votes": True, "deck_size": 30},
        settings={"turn_seconds": 600},
    )

    # nginx spread the connections over every process.
    for server in processes:
        metrics = await asyncio.to_thread(_get, f"{server.url}metrics")
        gauge = next(
            line for line in metrics.splitlines() if line.startswith("bodoge_connections ")
        )
        assert float(gauge.split()[1]) >= 3, metrics
    # Through nginx the figures and probes are the operator's: its own address serves them,
    # the public site does not.
    for path in ("metrics", "healthz"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            await asyncio.to_thread(_get, f"{nginx.url}{path}")
        assert refused.value.code == 404
    assert "bodoge_connections " in await asyncio.to_thread(_get, f"{nginx.operator_url}metrics")
    assert '"process"' in await asyncio.to_thread(_get, f"{nginx.operator_url}healthz")

    faults: list[asyncio.Task[None]] = []
    done: list[str] = []

    async def restart_redis() -> None:
        await asyncio.to_thread(redis.restart)
        done.append("redis")

    async def restart_postgres() -> None:
        await asyncio.to_thread(pg.stop)
        await asyncio.sleep(1.0)
        await asyncio.to_thread(pg.start)
        done.append("postgres")

    async def kill_owner() -> None:
        pid = await _owner_pid(pg.url(), tag_table)
        victim = next(p for p in processes if p.process is not None and p.pid == pid)
        await asyncio.to_thread(victim.kill)
        done.append("kill")

    plan = {4: restart_redis, 10: restart_postgres, 16: kill_owner}

    def progress(n: int) -> None:
        fault = plan.pop(n, None)
        if fault is not None:
            faults.append(asyncio.create_task(fault()))

    tag_end, story_end = await asyncio.gather(
        _drive(tagiron, tag_watch, tag_table, _tagiron_move, progress, seed=1),
        _drive(story, story_watch, story_table, _illustori_move, lambda n: None, seed=2),
    )
    await asyncio.gather(*faults)
    assert sorted(done) == ["kill", "postgres", "redis"], (done, tag_end["n"])

    live = next(p for p in processes if p.process is not None)
    for table, players, watcher, end in (
        (tag_table, tagiron, tag_watch, tag_end),
        (story_table, story, story_watch, story_end),
    ):
        hist = await history(live.url, table)
        numbers = [m["n"] for m in hist["moves"]]
        assert numbers == list(range(1, end["n"] + 1))
        for player in [*players, watcher]:
            await player.until(table, end["n"])
            assert set(player.acked) <= set(numbers)  # every acknowledged move kept
            assert _contiguous(player, table) == numbers, player.name
            # The view rebuilt from frames alone is what a fresh snapshot shows.
            fresh = await Client.connect(nginx.ws_url, None, token=player.client.token)
            snapshot = await fresh.ok("table.open", table=table)
            assert player.state(table)["view"] == snapshot["view"], player.name
            await fresh.close()
        if table == tag_table:
            truth = Truth(hist)
            for seat, player in enumerate([*players, watcher]):
                received = [m for c in player.sessions for m in c.received]
                assert leaks(received, seat if seat < 4 else None, truth) == [], player.name
        else:
            for seat, player in enumerate([*players, watcher]):
                received = [m for c in player.sessions for m in c.received]
                found = illustori.leaks(received, seat if seat < 3 else None, table)
                found += illustori.log_leaks(player.state(table)["view"]["log"])
                assert found == [], (player.name, found)

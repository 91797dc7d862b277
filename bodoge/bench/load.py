"""The load: tables of clients playing Tagiron back to back, in client processes."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bodoge.bench.client import (
    Known,
    Lost,
    Seat,
    Stats,
    error_kind,
    open_seat,
    settle_heap,
)
from bodoge.bench.moves import pick_move
from bodoge.core.values import JSON
from bodoge.server.runtime.stats import GC
from bodoge.server.services.loop_watch import LoopWatch

#: Seconds the clients wait at most for every table's first game to have started.
FIRST_GAMES = 300.0
#: About the moves of a bench game (4 players; fewer with fewer): ``× --think``, a game's length.
GAME_MOVES = 20


class TableRun:
    """The clients of one table playing games back to back until ``stop``."""

    def __init__(
        self,
        seats: list[Seat],
        think: float,
        arrival: float,
        stats: Stats,
        rng: random.Random,
        stagger: float = 0.0,
    ) -> None:
        self.seats = seats
        self.think = think
        #: Mean pause before each game (0: none, every table at once).
        self.arrival = arrival
        #: The first game starts up to this many seconds later (evenly spread).
        self.stagger = stagger
        self.stats = stats
        self.rng = rng
        self.measuring = False
        self.stop = False
        self.table = ""
        self.known = [Known() for _ in seats]
        self.sent: dict[int, float] = {}
        self.missing: dict[int, int] = {}
        self.over: asyncio.Event = asyncio.Event()
        #: The move number each seat has a move on its way for (one at a time).
        self.planned: dict[int, int] = {}
        #: Set once the first game has started (or failed to: the table gave it up).
        self.begun = asyncio.Event()

    def _state(self, index: int, message: dict[str, JSON], size: int) -> None:
        if message["type"] == "event":
            if message.get("table") != self.table:
                return
            if self.measuring:
                self.stats.event_bytes.append(size)
                if "patch" in message:
                    self.stats.patches += 1
            n = message["n"]
            if message["seat"] != index and n in self.missing:
                self.missing[n] -= 1
                if self.missing[n] == 0:
                    started = self.sent.pop(n)
                    del self.missing[n]
                    if self.measuring:
                        self.stats.latencies.append(time.perf_counter() - started)
        elif message["table"]["id"] != self.table:
            return
        known = self.known[index]
        try:
            known.update(message)
        except (KeyError, IndexError, TypeError, ValueError):
            self.stats.errors += 1  # a patch that does not fit the view we had
            return
        self._consider(index)

    def _consider(self, index: int) -> None:
        """Send a move (after a think time) if it is this seat's turn and none is on its way."""
        known = self.known[index]
        facts = known.facts
        if facts["result"] is not None:
            self.over.set()
            return
        n = known.n
        if n is None or self.planned.get(index) == n:
            return
        if known.view is not None and facts["may_act"] and index in (facts["to_act"] or ()):
            move = pick_move(known.view, self.rng)
            if move is not None:
                self.planned[index] = n
                asyncio.get_running_loop().create_task(self._move(index, n, move))

    async def _move(self, index: int, n: int, move: dict[str, JSON]) -> None:
        await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
        if self.stop or self.known[index].n != n:
            # The table moved on while thinking (catching up after a reconnection: the
            # frames that follow may hold this seat's own move, committed before the cut).
            return
        table = self.table
        self.sent[n + 1] = time.perf_counter()
        self.missing[n + 1] = len(self.seats) - 1
        try:
            reply = await self.seats[index].request("move", table=table, move=move)
        except Exception as exc:
            if self.stop:  # the bench is over: its clients hang up
                return
            self.stats.error(error_kind("move", exc))
            if self.planned.get(index) == n:
                del self.planned[index]
            if not isinstance(exc, Lost):  # a lost connection resyncs when it is back
                await asyncio.sleep(0.5)
                await self._resync(index)
            return
        self.stats.acked.append((table, int(reply["n"]), index, time.monotonic()))
        if self.measuring:
            self.stats.moves += 1

    async def _resync(self, index: int) -> None:
        """Reopen the table from this seat's last event (the missed ones come first), go on."""
        if self.stop or not self.table:
            return
        since: dict[str, JSON] = (
            {} if self.known[index].n is None else {"since": self.known[index].n}
        )
        try:
            await self.seats[index].request("table.open", table=self.table, timeout=20, **since)
        except Exception as exc:
            if self.stop:
                return
            self.stats.error(error_kind("table.open", exc))
            if not isinstance(exc, Lost):
                await asyncio.sleep(0.5)
                asyncio.get_running_loop().create_task(self._resync(index))
            return
        self._consider(index)

    async def play(self) -> None:
        for index, seat in enumerate(self.seats):
            seat.on_state = functools.partial(self._state, index)
            seat.on_back = functools.partial(self._resync, index)
        host, *others = self.seats
        if self.stagger > 0:
            await asyncio.sleep(self.rng.uniform(0, self.stagger))
        while not self.stop:
            if self.arrival > 0:
                await asyncio.sleep(self.rng.expovariate(1 / self.arrival))
            self.over = asyncio.Event()
            self.table = ""
            self.sent.clear()
            self.missing.clear()
            self.planned.clear()
            self.known = [Known() for _ in self.seats]
            try:
                created = await host.request(
                    "table.create", game="tagiron", options={"players": len(self.seats)}
                )
                self.table = created["table"]
                for seat in others:
                    await seat.request("table.join", table=self.table)
                for seat in self.seats:
                    await seat.request("table.open", table=self.table)
                await host.request("table.start", table=self.table)
                self.begun.set()
                await self.over.wait()
                if self.measuring:
                    self.stats.games += 1
                for seat in self.seats:
                    await seat.request("table.close", table=self.table)
            except Exception as exc:
                self.begun.set()
                self.stats.error(error_kind("setting up a game", exc))
                if self.table:
                    self.stats.abandoned.append(self.table)
                await asyncio.sleep(1)


@dataclass(frozen=True)
class Gates:
    """The steps the bench's clients and its measuring process take together (a semaphore
    each client process releases once, an event the measuring process sets)."""

    ready: Any  # every seat connected
    go: Any  # play
    begun: Any  # every table's first game started
    measure: Any  # the window opens
    ended: Any  # this process's window ended, its tables stopped
    hang_up: Any  # the server's figures read: close the sockets

    @classmethod
    def made(cls, ctx: Any) -> Gates:
        return cls(
            ctx.Semaphore(0),
            ctx.Event(),
            ctx.Semaphore(0),
            ctx.Event(),
            ctx.Semaphore(0),
            ctx.Event(),
        )


@dataclass(frozen=True)
class Plan:
    """What every client process does."""

    urls: list[str]
    tables: int
    players: int
    think: float
    arrival: float
    #: Seconds over which the tables' first games start (0: each after its first pause).
    stagger: float
    duration: float
    seed: int


async def play_tables(
    plan: Plan,
    ready: Callable[[], None],
    go: Callable[[], Any],
    begun: Callable[[], None],
    measure: Callable[[], Any],
    ended: Callable[[], None],
    hang_up: Callable[[], Any],
) -> Stats:
    """Connect every seat, then ``ready()``; once ``go()`` returns, play; once every table's
    first game has started, ``begun()``; once ``measure()`` returns, measure for the
    plan's duration, stop playing and ``ended()``; once ``hang_up()`` returns, hang up."""
    stats = Stats()
    rng = random.Random(plan.seed)
    gate = asyncio.Semaphore(64)  # do not knock on the server's door 2,000 times at once

    async def gated_seat(name: str, url: str) -> Seat:
        async with gate:
            return await open_seat(url, name, stats)

    runs = []
    for t in range(plan.tables):
        names = [f"b{plan.seed}-{t}-{s}" for s in range(plan.players)]
        # Seat by seat over the server processes (a cluster): a table's seats are spread.
        urls = [plan.urls[(t * plan.players + s) % len(plan.urls)] for s in range(plan.players)]
        seats = await asyncio.gather(*(gated_seat(n, u) for n, u in zip(names, urls, strict=True)))
        table_rng = random.Random(rng.random())
        runs.append(TableRun(list(seats), plan.think, plan.arrival, stats, table_rng, plan.stagger))
    stats.clients = plan.tables * plan.players
    ready()
    await asyncio.to_thread(go)
    tasks = [asyncio.create_task(run.play()) for run in runs]
    # Every table makes, fills and starts its first game at once (within a few Poisson
    # pauses): a rush that real tables, made one by one over hours, do not bring; the window
    # opens after it (measure.py waits a warm-up more).
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(run.begun.wait() for run in runs)), FIRST_GAMES)
    begun()
    await asyncio.to_thread(measure)
    for run in runs:
        run.measuring = True

    # The server's own watch of its loop: the lags, and whose each stall was.
    watcher = LoopWatch(0.01, lags=stats.lags)
    watcher.start(sample=False)
    await asyncio.sleep(plan.duration)
    watcher.stop()
    stats.loop = watcher.to_json()
    for run in runs:
        run.measuring = False
        run.stop = True
    for task in tasks:
        task.cancel()
    # Not before every client process's window has ended, and the server's figures are read:
    # thousands of sockets closing at once would stall the server while others measure.
    ended()
    await asyncio.to_thread(hang_up)
    # All at once: one after another, 4,000 closing handshakes on a loaded machine outlast
    # the wait for the results.
    await asyncio.gather(*(seat.close() for run in runs for seat in run.seats))
    return stats


def client_process(plan: Plan, results: Any, gates: Gates) -> None:
    # The clients share the machine's cores with the server: uvloop's loop (as uvicorn's)
    # spends less of them per frame than asyncio's own, leaving the server more.
    import uvloop

    GC.install()  # the clients' stalls show their collector's share
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        play = play_tables(
            plan,
            functools.partial(settle_heap, gates.ready.release),
            gates.go.wait,
            functools.partial(settle_heap, gates.begun.release),
            gates.measure.wait,
            gates.ended.release,
            gates.hang_up.wait,
        )
        results.put(runner.run(play))

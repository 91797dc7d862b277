"""``bodoge bench server``: many tables played by real WebSocket clients against a real server.

The bench starts ``bodoge serve`` as a subprocess on a temporary data folder,
opens one WebSocket client per seat (``--tables`` × ``--players``), and has
every table play Tagiron games back to back for ``--duration`` seconds.  The
clients pick moves cheaply (a random face-up question, or a pass), after a
think time of about ``--think`` seconds, so that the figures measure the
server rather than bots.

Games start at random times: before each game a table waits a pause drawn from
an exponential distribution (mean ``--arrival`` seconds), so the games of all
tables start as a Poisson stream, as people's would.  ``--burst`` starts every
table at the same instant and the next game at once: a stress case, labelled so.

It prints, over the measured window (after a warm-up):

* moves per second (acknowledged moves);
* the time from a move being sent to **every other seat** having its event,
  median and 99th percentile;
* the server's CPU time per 1,000 moves (``utime + stime`` of
  ``/proc/<pid>/stat``), its share of a core, and its peak memory (``VmHWM``);
* the size of an ``event`` frame as the clients receive it (median);
* the server's garbage-collector passes, from ``GET /api/stats``: the longest
  pause and the total time per generation.

``--cluster N`` starts N ``bodoge serve --redis`` processes instead of one, on a database of
their own (made on ``--cluster-pg``, dropped afterwards) and a Redis namespace of their own
(on ``--cluster-redis``), behind a private nginx (``bodoge/cluster/nginx.py``, round-robin, no
sticky sessions) through which every client connects, so that most seats of a table play
through a process that does not run it (a replica; moves forwarded to the owner).
``--direct`` hands each client one process's address instead, seat by seat. CPU time and
memory are those of all the processes together (nginx's CPU apart); the collector's figures
are one surviving process's. At the end every acknowledged move is looked up in the database
(``acknowledged moves lost``). ``--cluster 1,2,3`` runs each size with the same clients and
prints the figures side by side.

``--kill-owner-after S`` kills (SIGKILL) the process owning the most live tables S seconds
into the window. Its clients reconnect through nginx with their token and reopen their table
from their last event, as the browser does; the bench prints the **claim time** — from the
kill to each of the victim's tables being claimed by a new owner (its ``tables.owner`` row,
polled every 20 ms), beside what the victim's lease had left at the kill — the **takeover
time** — from the kill to the first move acknowledged on each table the victim owned, median
and max — and the errors the clients saw, by kind.

``--checkout PATH`` runs the server from another source tree (a git worktree of
an older commit, say); ``--ab OLD_PATH`` runs old, new, old, new (``--rounds``)
and prints the ratio of server CPU per 1,000 moves.  Clients run in ``--procs``
processes; they share the machine's cores with the server, so on a small machine
the client side inflates the latencies.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import multiprocessing
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bodoge.core.values import JSON

#: The source tree this bench belongs to (the "new" side of an A/B).
HERE = Path(__file__).resolve().parents[2]

#: What an ``event`` frame may leave out when unchanged, and a ``table`` snapshot always has.
FACTS = ("to_act", "may_act", "deadlines", "clock", "result")


def register_bench(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("server", help="tables of clients against a running server")
    parser.add_argument("--tables", type=int, default=100, help="concurrent tables")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds measured")
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument(
        "--think", type=float, default=1.0, help="mean seconds a client waits before moving"
    )
    parser.add_argument(
        "--arrival",
        type=float,
        default=2.0,
        help="mean seconds a table pauses before each game (exponential: Poisson starts)",
    )
    parser.add_argument(
        "--burst",
        action="store_true",
        help="stress case: every table starts at the same instant, the next game at once",
    )
    parser.add_argument("--procs", type=int, default=1, help="client processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--url",
        default=None,
        help="use this running server's ws:// URL instead of starting one (no CPU or memory)",
    )
    parser.add_argument(
        "--checkout",
        type=Path,
        default=None,
        metavar="PATH",
        help="run the server from this source tree (e.g. a git worktree of an older commit)",
    )
    parser.add_argument(
        "--ab",
        type=Path,
        default=None,
        metavar="OLD_PATH",
        help="A/B: run the server from OLD_PATH and from this tree, alternated, --rounds each",
    )
    parser.add_argument("--rounds", type=int, default=2, help="runs of each side with --ab")
    parser.add_argument(
        "--cluster",
        type=_sizes,
        default=[],
        metavar="N[,N…]",
        help="N server processes in cluster mode (PostgreSQL and Redis) behind nginx; "
        "several sizes (1,2,3): one run each with the same clients, then a table of the figures",
    )
    parser.add_argument(
        "--direct",
        action="store_true",
        help="with --cluster: no nginx, each client connects straight to one process",
    )
    parser.add_argument(
        "--kill-owner-after",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --cluster N (N >= 2): SIGKILL the process owning the most live tables this "
        "many seconds into the measured window; print the claim and takeover times and the "
        "acknowledged moves lost",
    )
    parser.add_argument(
        "--cluster-pg",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        metavar="DSN",
        help="the PostgreSQL server a --cluster run makes its database on (and drops it)",
    )
    parser.add_argument(
        "--cluster-redis",
        default="redis://127.0.0.1:6379/0",
        metavar="URL",
        help="the Redis a --cluster run uses (in a namespace of its own)",
    )
    parser.set_defaults(func=run)


def _sizes(text: str) -> list[int]:
    """``--cluster``'s sizes: ``"3"`` or ``"1,2,3"``.

    >>> _sizes("1,2,3"), _sizes("2")
    ([1, 2, 3], [2])
    """
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"not a number of processes (or a list of them): {text}")
    return sizes


# --- the clients -------------------------------------------------------------------


@dataclass
class Stats:
    moves: int = 0
    games: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)
    clients: int = 0
    #: How late the client process's own event loop ran (its share of the latencies).
    lags: list[float] = field(default_factory=list)
    #: Bytes of each ``event`` frame received while measuring.
    event_bytes: list[int] = field(default_factory=list)
    #: Event frames carrying a ``patch`` (the others carry the whole ``view``).
    patches: int = 0
    #: Every acknowledged move of the run, measured or not: (table, n, seat, when acknowledged
    #: on ``time.monotonic()``, the same clock in every process of the machine).
    acked: list[tuple[str, int, int, float]] = field(default_factory=list)
    #: The errors by kind (``"move: table_unavailable"``, ``"move: connection lost"`` …).
    kinds: dict[str, int] = field(default_factory=dict)
    #: Connections that dropped and came back (through the load balancer, same token).
    reconnects: int = 0
    #: Tables whose clients gave their game up (a request of the setting up failed).
    abandoned: list[str] = field(default_factory=list)

    def error(self, kind: str) -> None:
        self.errors += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1


class Lost(ConnectionError):
    """The connection dropped before the reply came (the request may have been carried out)."""


class Refused(RuntimeError):
    """The server answered ``error``: ``code`` says why."""

    def __init__(self, type: str, code: str, message: str) -> None:
        super().__init__(f"{type}: {code} {message}")
        self.code = code


class Seat:
    """One WebSocket client: replies by id, state messages (and their size) to a callback.

    When the connection drops (its server process was killed) the seat connects again to
    the same URL — through the load balancer, to whichever process it picks — with the
    player's token, and calls ``on_back`` (which reopens the table from its last event).
    """

    def __init__(self, ws: Any, url: str, stats: Stats, name: str) -> None:
        self.ws = ws
        self.url = url
        self.name = name
        self.stats = stats
        self.token: str | None = None
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, JSON]]] = {}
        self.on_state: Callable[[dict[str, JSON], int], None] = lambda m, size: None
        self.on_back: Callable[[], Any] | None = None
        self.closing = False
        self.back = asyncio.Event()
        self.back.set()
        self.reader = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            await self._read()
            for future in self.waiting.values():
                if not future.done():
                    future.set_exception(Lost("connection lost"))
            self.waiting.clear()
            if self.closing or self.token is None:
                return
            self.back.clear()
            await self._reconnect()
            self.back.set()
            if self.on_back is not None:
                asyncio.get_running_loop().create_task(self.on_back())

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for frame in self.ws:
                message = json.loads(frame)
                future = self.waiting.pop(message.get("id"), None)
                if future is not None:
                    if not future.done():
                        future.set_result(message)
                elif message["type"] in ("event", "table"):
                    size = len(frame) if frame.isascii() else len(frame.encode())
                    self.on_state(message, size)

    async def _reconnect(self) -> None:
        from websockets.asyncio.client import connect

        while not self.closing:
            try:
                self.ws = await connect(self.url, compression=None, max_size=2**22, open_timeout=10)
            except Exception:
                await asyncio.sleep(0.2)  # no process behind the balancer answered yet
                continue
            hello = json.dumps({"type": "hello", "id": 0, "token": self.token, "name": self.name})
            try:
                await self.ws.send(hello)
                while json.loads(await asyncio.wait_for(self.ws.recv(), 10)).get("id") != 0:
                    pass
            except Exception:
                with contextlib.suppress(Exception):
                    await self.ws.close()
                await asyncio.sleep(0.2)
                continue
            self.stats.reconnects += 1
            return

    async def request(self, type: str, timeout: float = 60, **fields: JSON) -> dict[str, JSON]:
        await self.back.wait()
        rid = next(self.ids)
        future: asyncio.Future[dict[str, JSON]] = asyncio.get_running_loop().create_future()
        self.waiting[rid] = future
        try:
            await self.ws.send(json.dumps({"type": type, "id": rid, **fields}))
        except Exception as exc:
            self.waiting.pop(rid, None)
            raise Lost("connection lost") from exc
        reply = await asyncio.wait_for(future, timeout)
        if reply["type"] == "error":
            raise Refused(type, str(reply["code"]), str(reply["message"]))
        return reply

    async def close(self) -> None:
        self.closing = True
        with contextlib.suppress(Exception):
            await self.ws.close()


def error_kind(type: str, exc: BaseException) -> str:
    """How an error of a request shows in the report.

    >>> error_kind("move", Refused("move", "table_unavailable", "…"))
    'move: table_unavailable'
    >>> error_kind("move", Lost("connection lost")), error_kind("move", TimeoutError())
    ('move: connection lost', 'move: no reply in time')
    """
    if isinstance(exc, Refused):
        return f"{type}: {exc.code}"
    if isinstance(exc, Lost):
        return f"{type}: connection lost"
    if isinstance(exc, TimeoutError):
        return f"{type}: no reply in time"
    return f"{type}: {exc.__class__.__name__}"


class Known:
    """What one seat knows of its table: the view and the facts, kept up by each frame.

    A ``table`` snapshot sets everything.  An ``event`` frame either carries the whole
    ``view`` or a ``patch`` against the previous one (JSON Patch ops, some naming one of
    the frame's ``events`` as their value), and only the facts that changed.

    >>> known = Known()
    >>> known.update({"type": "table", "view": {"turn": 0}, "to_act": [0], "may_act": True,
    ...               "deadlines": [None], "clock": None, "result": None})
    >>> known.update({"type": "event", "events": [{"type": "pass"}], "to_act": [1],
    ...               "patch": [{"op": "replace", "path": "/turn", "value": 1}]})
    >>> known.view, known.facts["to_act"], known.facts["may_act"]
    ({'turn': 1}, [1], True)
    """

    def __init__(self) -> None:
        self.view: JSON = None
        self.facts: dict[str, JSON] = dict.fromkeys(FACTS)
        #: The number of the last move this seat has seen (``None``: nothing yet).
        self.n: int | None = None

    def update(self, message: dict[str, JSON]) -> None:
        n = message.get("n")
        self.n = n if isinstance(n, int) else self.n
        if message["type"] == "table":
            self.view = message.get("view")
            self.facts = {key: message.get(key) for key in FACTS}
            return
        if "view" in message:
            self.view = message["view"]
        elif "patch" in message:
            from bodoge.server.runtime.viewdiff import apply

            self.view = apply(self.view, message["patch"], message.get("events", ()))
        for key in FACTS:
            if key in message:
                self.facts[key] = message[key]


def pick_move(view: dict[str, JSON], rng: random.Random) -> dict[str, JSON] | None:
    """A cheap legal Tagiron move: a random face-up question, else a pass."""
    from bodoge.games.tagiron.cards import CARDS

    if view["may_ask"]:
        card = rng.choice(view["face_up"])
        choices = CARDS[card].choices
        return {"type": "ask", "card": card, "choice": rng.choice(choices) if choices else None}
    if view["may_pass"]:
        return {"type": "pass"}
    return None


class TableRun:
    """The clients of one table playing games back to back until ``stop``."""

    def __init__(
        self,
        seats: list[Seat],
        think: float,
        arrival: float,
        stats: Stats,
        rng: random.Random,
    ) -> None:
        self.seats = seats
        self.think = think
        #: Mean pause before each game (0: none, every table at once).
        self.arrival = arrival
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
            move = pick_move(known.view, self.rng)  # type: ignore[arg-type]
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
        self.stats.acked.append((table, int(reply["n"]), index, time.monotonic()))  # type: ignore[arg-type]
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
            seat.on_state = lambda m, size, i=index: self._state(i, m, size)
            seat.on_back = lambda i=index: self._resync(i)
        host, *others = self.seats
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
                await self.over.wait()
                if self.measuring:
                    self.stats.games += 1
                for seat in self.seats:
                    await seat.request("table.close", table=self.table)
            except Exception as exc:
                self.stats.error(error_kind("setting up a game", exc))
                if self.table:
                    self.stats.abandoned.append(self.table)
                await asyncio.sleep(1)


@dataclass(frozen=True)
class Plan:
    """What every client process does."""

    urls: list[str]
    tables: int
    players: int
    think: float
    arrival: float
    warm_up: float
    duration: float
    seed: int


async def _clients(plan: Plan, ready: Callable[[], None], go: Callable[[], Any]) -> Stats:
    from websockets.asyncio.client import connect

    stats = Stats()
    rng = random.Random(plan.seed)
    gate = asyncio.Semaphore(64)  # do not knock on the server's door 2,000 times at once

    async def open_seat(name: str, url: str) -> Seat:
        async with gate:
            ws = await connect(url, compression=None, max_size=2**22, open_timeout=120)
            seat = Seat(ws, url, stats, name)
            welcome = await seat.request("hello", token=None, name=name)
            seat.token = str(welcome["token"])
            return seat

    runs = []
    for t in range(plan.tables):
        names = [f"b{plan.seed}-{t}-{s}" for s in range(plan.players)]
        # Seat by seat over the server processes (a cluster): a table's seats are spread.
        urls = [plan.urls[(t * plan.players + s) % len(plan.urls)] for s in range(plan.players)]
        seats = await asyncio.gather(*(open_seat(n, u) for n, u in zip(names, urls, strict=True)))
        table_rng = random.Random(rng.random())
        runs.append(TableRun(list(seats), plan.think, plan.arrival, stats, table_rng))
    stats.clients = plan.tables * plan.players
    ready()
    await asyncio.to_thread(go)
    tasks = [asyncio.create_task(run.play()) for run in runs]
    await asyncio.sleep(plan.warm_up)  # the first games started
    for run in runs:
        run.measuring = True

    async def watch_lag() -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(0.01)
            stats.lags.append(time.perf_counter() - started - 0.01)

    watcher = asyncio.create_task(watch_lag())
    await asyncio.sleep(plan.duration)
    watcher.cancel()
    for run in runs:
        run.measuring = False
        run.stop = True
    for task in tasks:
        task.cancel()
    for run in runs:
        for seat in run.seats:
            await seat.close()
    return stats


def _client_process(plan: Plan, results: Any, ready: Any, go: Any) -> None:
    results.put(asyncio.run(_clients(plan, ready.release, go.wait)))


# --- the server -----------------------------------------------------------------------


def _tree_env(tree: Path) -> dict[str, str]:
    """The environment that makes ``python -m bodoge`` import ``tree``'s sources."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tree), env.get("PYTHONPATH")) if p)
    return env


def _serve_flags(tree: Path) -> str:
    """``bodoge serve --help`` of ``tree``: which flags its server knows."""
    done = subprocess.run(
        [sys.executable, "-m", "bodoge", "serve", "--help"],
        cwd=tree,
        env=_tree_env(tree),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bodoge serve --help failed in {tree}:\n{done.stderr[-2000:]}")
    return done.stdout


#: The ``bodoge serve`` options the bench turns off (0), where the server has them.
UNLIMITED = (
    "--max-connections-per-address",
    "--new-players-per-hour",
    "--waiting-tables-per-player",
    "--tables-per-hour",
    "--uploads-per-hour",
)


def serve_command(data: Path, help_text: str) -> list[str]:
    """``bodoge serve`` for the bench, with only the flags that ``--help`` lists.

    >>> serve_command(Path("/d"), "--bot-workers N")[-2:]
    ['--bot-workers', '0']
    """
    command = [sys.executable, "-m", "bodoge", "serve", "--port", "0", "--data", str(data)]
    command += ["--bot-workers", "0"]
    # Every client of the bench comes from this machine's address, and makes a player and
    # tables faster than a person would: no cap or quota of an address or a player applies.
    for flag in UNLIMITED:
        if flag in help_text:
            command += [flag, "0"]
    return command


def _start_server(
    data: Path, tree: Path, extra: list[str] | None = None
) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        serve_command(data, _serve_flags(tree)) + (extra or []),
        cwd=tree,
        env=_tree_env(tree),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    )
    assert process.stdout is not None
    seen = []
    for line in process.stdout:
        seen.append(line)
        found = re.search(r"serving on (http://\S+?/)\s", line)
        if found:
            return process, found.group(1).replace("http://", "ws://") + "ws"
    raise RuntimeError("the server did not start:\n" + "".join(seen[-30:]))


def _server_stats(url: str) -> dict[str, JSON] | None:
    """``GET /api/stats`` of the server at ws:// ``url`` (``None``: it has none)."""
    http = re.sub(r"^ws", "http", url).removesuffix("/ws") + "/api/stats"
    try:
        with urllib.request.urlopen(http, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        if exc.code != 404:
            print(f"  (GET /api/stats: {exc})", file=sys.stderr)
    except (OSError, ValueError) as exc:
        print(f"  (GET /api/stats: {exc!r})", file=sys.stderr)
    return None


def _proc_status(pid: int, key: str) -> int:
    """A ``/proc/<pid>/status`` figure in KiB (0 where there is no /proc)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(rf"^{key}:\s+(\d+) kB", text, re.M)
    return int(found.group(1)) if found else 0


def _cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time so far (``/proc/<pid>/stat``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# --- one run --------------------------------------------------------------------------


@dataclass(frozen=True)
class Kill:
    """The owner killed under load: which process, when, and the live tables it owned."""

    pid: int
    at: float
    tables: frozenset[str]
    #: Seconds the run went on after the kill.
    left: float = 0.0
    #: Seconds the victim's lease had left at the kill (by the database's clock).
    lease_left: float | None = None
    #: The kill's wall-clock time (``time.time()``), to compare with the moves' ``at``.
    wall: float = 0.0
    #: Seconds from the kill to each table's claim by a new owner (its row in the database
    #: naming another process, polled every :data:`CLAIM_POLL` s); unclaimed ones missing.
    claims: dict[str, float] = field(default_factory=dict, compare=False)


#: Seconds between two looks at the victim's tables' owners after a kill.
CLAIM_POLL = 0.02


def takeover_times(
    kill: Kill,
    acked: list[tuple[str, int, int, float]],
    committed: dict[tuple[str, int], int] | None = None,
) -> dict[str, float]:
    """Seconds from the kill to the first move acknowledged on each table the victim owned.

    Only moves committed after the kill count (``committed``: each move's ``at``, in ms, as
    the database has it): the reply to a move the victim committed just before it died may
    reach its client later (its process waits up to 2 s to show the move first). A table
    that never moved again is not in the answer. The time includes the clients' coming back
    through the load balancer and one think time.

    >>> kill = Kill(7, 100.0, frozenset({"t1", "t2", "t3"}), wall=1000.0)
    >>> acked = [("t1", 5, 0, 99.0), ("t1", 6, 1, 102.5), ("t1", 7, 0, 103.0),
    ...          ("t2", 3, 2, 101.0), ("t9", 1, 0, 100.5)]
    >>> takeover_times(kill, acked)
    {'t1': 2.5, 't2': 1.0}
    >>> committed = {("t1", 6): 999_900, ("t1", 7): 1_002_000, ("t2", 3): 1_000_500}
    >>> takeover_times(kill, acked, committed)
    {'t1': 3.0, 't2': 1.0}
    """
    first: dict[str, float] = {}
    for table, n, _seat, when in acked:
        if table not in kill.tables or when <= kill.at:
            continue
        if committed is not None and committed.get((table, n), 0) <= kill.wall * 1000:
            continue
        first[table] = min(first.get(table, when), when)
    return {table: when - kill.at for table, when in sorted(first.items())}


@dataclass
class Outcome:
    """The figures of one run."""

    stats: list[Stats]
    duration: float
    pid: int
    players: int = 4
    #: Every server process (a cluster has several; ``pid`` is the first).
    pids: list[int] = field(default_factory=list)
    #: Server CPU seconds and wall seconds over the measured window.
    cpu: float = 0.0
    wall: float = 0.0
    peak_kib: int = 0
    rss_kib: int = 0
    #: ``/api/stats`` at the start and the end of the window (``None``: not served).
    before: dict[str, JSON] | None = None
    after: dict[str, JSON] | None = None
    #: nginx in front of a cluster: its pid and CPU seconds over the window (0: none).
    nginx_pid: int = 0
    nginx_cpu: float = 0.0
    #: ``--kill-owner-after``: the process killed, when (``time.monotonic()``), and the
    #: live tables it owned then.
    killed: Kill | None = None
    #: Acknowledged moves not in the database at the end (``None``: not checked).
    lost: list[tuple[str, int, int]] | None = None
    #: When each stored move was committed (``at``, ms), by table and number (a cluster).
    committed: dict[tuple[str, int], int] | None = None

    @property
    def moves(self) -> int:
        return sum(s.moves for s in self.stats)

    @property
    def cpu_per_1000_moves(self) -> float | None:
        return self.cpu / self.moves * 1000 if self.pid and self.moves else None


def measure(args: argparse.Namespace, tree: Path | None) -> Outcome:
    """Start a server (from ``tree``, or use ``--url``), play, and collect the figures."""
    from bodoge.server.cli import raise_file_limit

    raise_file_limit()
    data = Path(tempfile.mkdtemp(prefix="bodoge-bench-"))
    servers: list[subprocess.Popen[str]] = []
    urls: list[str] = []
    database: str | None = None
    nginx: subprocess.Popen[bytes] | None = None
    try:
        if args.url:
            urls = [args.url]
        else:
            extras: list[list[str]] = [[]]
            if args.cluster:
                database = args.cluster_database = _make_database(args.cluster_pg)
                namespace = f"bench:{os.urandom(5).hex()}"
                flags = ["--db", _sqlalchemy_url(args.cluster_pg, database)]
                flags += ["--redis", args.cluster_redis, "--redis-namespace", namespace]
                extras = [flags] * args.cluster
            for i, extra in enumerate(extras):  # one after another: the first makes the schema
                server, url = _start_server(data / f"p{i}", tree or HERE, extra)
                servers.append(server)
                urls.append(url)
                # The server's output would fill the pipe: drain it in the background.
                output = server.stdout
                assert output is not None
                threading.Thread(target=output.read, daemon=True).start()
        clients = urls
        if args.cluster and not args.direct:
            nginx, balancer = _start_nginx(data / "nginx", urls, 2 * args.tables * args.players)
            clients = [balancer]
        outcome = _play(args, clients, urls, [server.pid for server in servers], nginx)
        if database is not None:
            acked = [a for s in outcome.stats for a in s.acked]
            url = _sqlalchemy_url(args.cluster_pg, database)
            outcome.lost, outcome.committed = _lost_moves(url, acked)
        return outcome
    finally:
        if nginx is not None:
            nginx.kill()
            nginx.wait()
        for server in servers:
            server.terminate()
        for server in servers:
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(20)
        if database is not None:
            _drop_database(args.cluster_pg, database)
        shutil.rmtree(data, ignore_errors=True)


def _start_nginx(
    folder: Path, urls: list[str], connections: int
) -> tuple[subprocess.Popen[bytes], str]:
    """Debian's nginx as the load balancer over the processes at ``urls`` (ws:// …/ws).

    Configured as the cluster tests configure it (:func:`bodoge.cluster.nginx.standalone_config`,
    round-robin, no sticky sessions); returns the process and the ws:// URL clients use.
    """
    import socket

    from bodoge.cluster.nginx import standalone_config

    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.access(nginx, os.X_OK):
        raise RuntimeError("nginx is not installed (apt-get install nginx-light), or use --direct")
    folder.mkdir(parents=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    upstreams = [re.sub(r"^ws://([^/]+)/.*$", r"\1", url) for url in urls]
    config = folder / "nginx.conf"
    config.write_text(
        standalone_config(upstreams, f"127.0.0.1:{port}", str(folder), max(1024, connections))
    )
    log = open(folder / "nginx.log", "ab")  # noqa: SIM115 - the child keeps it
    try:
        process = subprocess.Popen(
            [nginx, "-p", str(folder), "-c", str(config), "-e", str(folder / "error.log")],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    finally:
        log.close()
    deadline = time.monotonic() + 20
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            break
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            text = (folder / "error.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"nginx did not start:\n{text}")
        time.sleep(0.05)
    return process, f"ws://127.0.0.1:{port}/ws"


def _lost_moves(
    url: str, acked: list[tuple[str, int, int, float]]
) -> tuple[list[tuple[str, int, int]], dict[tuple[str, int], int]]:
    """The acknowledged moves that the database's history does not hold (by table, n and
    seat), and when each stored move was committed (by table and n)."""
    import sqlalchemy as sa
    from sqlalchemy.ext.asyncio import create_async_engine

    async def read() -> list[tuple[str, int, int | None, int]]:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as conn:
                rows = await conn.execute(sa.text("SELECT table_id, n, seat, at FROM moves"))
                return [(str(t), int(n), seat, int(at)) for t, n, seat, at in rows]
        finally:
            await engine.dispose()

    moves = asyncio.run(read())
    kept = {(t, n, seat) for t, n, seat, _ in moves}
    lost = sorted((t, n, seat) for t, n, seat, _ in acked if (t, n, seat) not in kept)
    return lost, {(t, n): at for t, n, _, at in moves}


def _kill_owner(args: argparse.Namespace, pids: list[int], left: float) -> Kill | None:
    """SIGKILL the process owning the most live tables, then watch its tables being claimed
    until the run ends; ``None`` if no process owns a live table."""
    assert args.cluster_database is not None
    url = _sqlalchemy_url(args.cluster_pg, args.cluster_database)
    return asyncio.run(_kill_and_watch(url, pids, left))


async def _kill_and_watch(url: str, pids: list[int], left: float) -> Kill | None:
    import signal

    import sqlalchemy as sa
    from sqlalchemy.ext.asyncio import create_async_engine

    from bodoge.cluster.ownership import DB_NOW

    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                sa.text(
                    "SELECT owner, id FROM tables WHERE owner IS NOT NULL AND status = 'playing'"
                )
            )
            owned: dict[str, list[str]] = {}
            for owner, table in rows:
                owned.setdefault(str(owner), []).append(str(table))
        # An owner's name is ``host-pid-random`` (bodoge/cluster/ownership.py).
        by_pid: dict[int, str] = {}
        for owner in owned:
            with contextlib.suppress(ValueError, IndexError):
                by_pid[int(owner.split("-")[-2])] = owner
        candidates = [pid for pid in pids if pid in by_pid]
        if not candidates:
            print("  (kill: no process owns a live table now; nothing killed)", flush=True)
            return None
        victim = max(candidates, key=lambda pid: len(owned[by_pid[pid]]))
        name = by_pid[victim]
        tables = frozenset(owned[name])
        async with engine.connect() as conn:  # the lease as it stands right at the kill
            ms_left = (
                await conn.execute(
                    sa.text(f"SELECT expires_at - {DB_NOW} FROM cluster_processes WHERE id = :p"),
                    {"p": name},
                )
            ).scalar_one_or_none()
            os.kill(victim, signal.SIGKILL)
            at, wall = time.monotonic(), time.time()
        claims: dict[str, float] = {}
        query = sa.text("SELECT id, owner FROM tables WHERE id = ANY(:ids)")
        async with engine.connect() as conn:
            while time.monotonic() < at + left and len(claims) < len(tables):
                result = await conn.execute(query, {"ids": sorted(tables - claims.keys())})
                now = time.monotonic()
                for table, owner in result:
                    if owner is not None and owner != name:
                        claims[str(table)] = now - at
                await conn.commit()
                await asyncio.sleep(CLAIM_POLL)
        remaining = max(0.0, at + left - time.monotonic())
        await asyncio.sleep(remaining)
        return Kill(
            victim,
            at,
            tables,
            left,
            lease_left=None if ms_left is None else ms_left / 1000,
            wall=wall,
            claims=claims,
        )
    finally:
        await engine.dispose()


def _play(
    args: argparse.Namespace,
    urls: list[str],
    direct: list[str],
    pids: list[int],
    nginx: subprocess.Popen[bytes] | None = None,
) -> Outcome:
    """The clients against ``urls``; the figures of the processes ``pids`` (at ``direct``)."""
    arrival = 0.0 if args.burst else args.arrival
    # Long enough for the first games to have started (95% of them with Poisson starts).
    warm_up = min(5.0, args.duration / 5) + 3 * arrival
    ctx = multiprocessing.get_context("spawn")
    procs = max(1, min(args.procs, args.tables))
    results = ctx.Queue()
    ready = ctx.Semaphore(0)
    go = ctx.Event()
    workers = []
    try:
        for p in range(procs):
            share = args.tables // procs + (1 if p < args.tables % procs else 0)
            plan = Plan(
                urls,
                share,
                args.players,
                args.think,
                arrival,
                warm_up,
                args.duration,
                args.seed * 1000 + p,
            )
            worker = ctx.Process(target=_client_process, args=(plan, results, ready, go))
            worker.start()
            workers.append(worker)
        for _ in workers:
            ready.acquire()
        go.set()
        time.sleep(warm_up)
        outcome = Outcome([], args.duration, pids[0] if pids else 0, args.players, pids)
        outcome.nginx_pid = nginx.pid if nginx is not None else 0
        # The collector's figures are those of one process that lives to the end.
        befores = [_server_stats(url) for url in direct]
        cpu_start, wall_start = sum(map(_cpu_seconds, pids)), time.monotonic()
        nginx_start = _cpu_seconds(outcome.nginx_pid) if nginx else 0.0
        kill_after = getattr(args, "kill_owner_after", None)
        cpu_dead, peak_dead = 0.0, 0
        if kill_after is not None:
            time.sleep(kill_after)
            # The victim's CPU time and memory so far count; it has none after.
            before = {pid: (_cpu_seconds(pid), _proc_status(pid, "VmHWM")) for pid in pids}
            # Until the run ends: the kill, then the victim's tables being claimed.
            outcome.killed = _kill_owner(args, pids, args.duration - kill_after)
            if outcome.killed is not None:
                cpu_dead, peak_dead = before[outcome.killed.pid]
            else:
                time.sleep(args.duration - kill_after)
        else:
            time.sleep(args.duration)
        victim = outcome.killed.pid if outcome.killed is not None else 0
        alive = [pid for pid in pids if pid != victim]
        outcome.cpu = sum(map(_cpu_seconds, alive)) + cpu_dead - cpu_start
        outcome.wall = time.monotonic() - wall_start
        if nginx is not None:
            outcome.nginx_cpu = _cpu_seconds(outcome.nginx_pid) - nginx_start
        for pid, url, before in zip(pids or [0], direct, befores, strict=False):
            if outcome.killed is None or pid != outcome.killed.pid:
                outcome.before, outcome.after = before, _server_stats(url)
                break
        outcome.stats = [results.get(timeout=args.duration + 600) for _ in workers]
        outcome.peak_kib = sum(_proc_status(pid, "VmHWM") for pid in alive) + peak_dead
        outcome.rss_kib = sum(_proc_status(pid, "VmRSS") for pid in alive)
    finally:
        for worker in workers:
            worker.join(30)
    return outcome


def _sqlalchemy_url(dsn: str, database: str) -> str:
    """The asyncpg URL of ``database`` on the server of ``dsn``.

    >>> _sqlalchemy_url("postgresql://u@h:5432/postgres", "b1")
    'postgresql+asyncpg://u@h:5432/b1'
    """
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(dsn)
    return urlunsplit(("postgresql+asyncpg", parts.netloc, f"/{database}", parts.query, ""))


def _admin(dsn: str, sql: str) -> None:
    import asyncpg

    async def run() -> None:
        conn = await asyncpg.connect(dsn, timeout=10)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run())


def _make_database(dsn: str) -> str:
    """A new empty database for a cluster run on the PostgreSQL server of ``dsn``."""
    name = f"bodoge_bench_{os.urandom(5).hex()}"
    _admin(dsn, f'CREATE DATABASE "{name}"')
    return name


def _drop_database(dsn: str, name: str) -> None:
    try:
        _admin(dsn, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    except Exception as exc:  # the figures are printed anyway
        print(f"  (dropping the bench's database {name} failed: {exc})", file=sys.stderr)


def _gc_lines(before: dict[str, JSON] | None, after: dict[str, JSON] | None) -> list[str]:
    """The collector's passes between two ``/api/stats`` answers.

    Young passes (generations 0 and 1) and full ones (generation 2: CPython's own,
    or the sweeps of ``bodoge/server/services/collector.py``) are shown apart.
    """
    if before is None or after is None or "gc" not in after:
        return ["server GC: not measured (the server has no /api/stats)"]
    start, end = before["uptime"], after["uptime"]
    old, new = before["gc"]["generations"], after["gc"]["generations"]

    def spent(g: int, key: str) -> float:
        return new[g][key] - old[g][key]

    parts = [
        f"gen{g} {spent(g, 'collections'):.0f}× {spent(g, 'total_ms'):.0f} ms" for g in range(3)
    ]
    total = sum(spent(g, "total_ms") for g in range(3))
    cpu = sum(spent(g, "cpu_ms") for g in range(3))
    window = [p for p in after["gc"]["long_pauses"] if start < p[0] <= end]
    young = [p for p in window if p[1] < 2]
    if young:
        _, generation, longest, longest_cpu = max(young, key=lambda p: p[2])
        worst = f"longest young pause {longest:.1f} ms (gen{generation}, {longest_cpu:.1f} ms CPU)"
        over = sum(1 for p in young if p[2] > 20)
        count = sum(spent(g, "collections") for g in (0, 1))
        worst += f", {over} of {count:.0f} over 20 ms"
    else:
        worst = "longest young pause < 1 ms"
    full = [p for p in window if p[1] == 2]
    if full:
        _, _, longest, longest_cpu = max(full, key=lambda p: p[2])
        worst += f"; {len(full)} full pass(es), longest {longest:.1f} ms ({longest_cpu:.1f} ms CPU)"
    else:
        worst += "; no full pass of 1 ms or more"
    since = max(g["longest_ms"] for g in new)
    policy = f"threshold {tuple(after['gc']['threshold'])}"
    if "sweeps" in after["gc"]:
        sweeps = after["gc"]["sweeps"] - before["gc"]["sweeps"]
        swept = after["gc"]["swept"] - before["gc"]["swept"]
        policy += f"; sweeps in the window: {sweeps}, freeing {swept} objects"
        policy += f" ({after['gc']['sweeps']} since start-up)"
    return [
        f"server GC: {worst}",
        f"  {total:.0f} ms in all, {cpu:.0f} ms of CPU "
        f"({total / 10 / max(1e-9, end - start):.1f}% of the time): {', '.join(parts)}",
        f"  ({policy}; longest pause since start-up {since:.1f} ms)",
    ]


def report(outcome: Outcome, indent: str = "  ") -> None:
    stats = outcome.stats
    moves = outcome.moves
    duration = outcome.duration
    lines = [f"clients connected: {sum(s.clients for s in stats)}"]
    lines.append(
        f"moves: {moves} in {duration:g} s = {moves / duration:.1f} moves/s "
        f"({sum(s.games for s in stats)} games finished)"
    )
    latencies = [x for s in stats for x in s.latencies]
    if latencies:
        lines.append(
            "move sent → every other seat has it: "
            f"median {statistics.median(latencies) * 1e3:.1f} ms, "
            f"p99 {_percentile(latencies, 0.99) * 1e3:.1f} ms (over {len(latencies)} moves)"
        )
    lags = [x for s in stats for x in s.lags]
    if lags:
        lines.append(
            f"the clients' own event-loop lag: median {statistics.median(lags) * 1e3:.1f} ms, "
            f"p99 {_percentile(lags, 0.99) * 1e3:.1f} ms"
        )
    sizes = [x for s in stats for x in s.event_bytes]
    if sizes:
        patches = sum(s.patches for s in stats)
        kind = "patch" if patches * 2 > len(sizes) else "whole view"
        lines.append(
            f"event frame ({outcome.players}-seat tables): "
            f"median {statistics.median(sizes):.0f} bytes "
            f"(p90 {_percentile(sizes, 0.9):.0f}; {kind}; over {len(sizes)} frames)"
        )
    per_move = outcome.cpu_per_1000_moves
    if outcome.pid:
        cpu = f"{per_move:.2f} s per 1,000 moves" if per_move is not None else "no moves"
        together = f" ({len(outcome.pids)} processes together)" if len(outcome.pids) > 1 else ""
        lines.append(
            f"server CPU{together}: {cpu}, "
            f"{outcome.cpu / max(1e-9, outcome.wall) * 100:.0f}% of one core"
        )
        lines.append(
            f"server memory: peak (VmHWM) {outcome.peak_kib / 1024:.0f} MiB, "
            f"now {outcome.rss_kib / 1024:.0f} MiB"
        )
    if outcome.nginx_pid:
        lines.append(
            f"nginx (load balancer) CPU: {outcome.nginx_cpu / max(1e-9, outcome.wall) * 100:.0f}% "
            "of one core"
        )
    lines += _gc_lines(outcome.before, outcome.after)
    lines += _kill_lines(outcome)
    errors = sum(s.errors for s in stats)
    if errors:
        kinds: dict[str, int] = {}
        for s in stats:
            for kind, count in s.kinds.items():
                kinds[kind] = kinds.get(kind, 0) + count
        each = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
        lines.append(f"errors seen by clients: {errors} ({each})")
    reconnects = sum(s.reconnects for s in stats)
    if reconnects:
        lines.append(f"clients reconnected: {reconnects}")
    for line in lines:
        print(indent + line, flush=True)


def _kill_lines(outcome: Outcome) -> list[str]:
    """The takeover after ``--kill-owner-after`` and the acknowledged moves lost."""
    lines = []
    kill = outcome.killed
    if kill is not None:
        acked = [a for s in outcome.stats for a in s.acked]
        moved = takeover_times(kill, acked, outcome.committed)
        times = sorted(moved.values())
        given_up = (kill.tables - moved.keys()) & {t for s in outcome.stats for t in s.abandoned}
        never = len(kill.tables - moved.keys() - given_up)
        lines.append(
            f"owner killed (SIGKILL, pid {kill.pid}) with {len(kill.tables)} live tables; "
            f"{len(times)} moved again"
            + (f", {never} never did in the {kill.left:g} s left" if never else "")
            + (f", {len(given_up)} given up by their clients (setting up)" if given_up else "")
        )
        claims = sorted(kill.claims.values())
        if claims:
            unclaimed = len(kill.tables) - len(claims)
            lines.append(
                "claim time (kill → the table claimed by a new owner, its row polled every "
                f"{CLAIM_POLL * 1000:g} ms): median {statistics.median(claims):.2f} s, "
                f"max {claims[-1]:.2f} s"
                + (
                    f"; the lease had {kill.lease_left:.2f} s left at the kill, so the claim "
                    f"came {claims[-1] - kill.lease_left:.2f} s after it ran out"
                    if kill.lease_left is not None
                    else ""
                )
                + (f"; {unclaimed} never claimed" if unclaimed else "")
            )
        if times:
            lines.append(
                "takeover time (kill → first move committed after it acknowledged, on a "
                "table it owned): "
                f"median {statistics.median(times):.2f} s, max {times[-1]:.2f} s"
            )
    if outcome.lost is not None:
        total = sum(len(s.acked) for s in outcome.stats)
        lines.append(
            f"acknowledged moves lost: {len(outcome.lost)} of {total} "
            "(each client's acknowledged moves against the database's history)"
        )
        for table, n, seat in outcome.lost[:5]:
            lines.append(f"  lost: {table} move {n} (seat {seat})")
    return lines


def _header(args: argparse.Namespace, tree: Path | None) -> str:
    procs = max(1, min(args.procs, args.tables))
    start = (
        "BURST start (stress case: every table at the same instant, the next game at once)"
        if args.burst
        else f"Poisson starts (a pause of ~{args.arrival:g} s, exponential, before each game)"
    )
    where = f"server from {tree}" if tree is not None else ""
    if getattr(args, "cluster", 0):
        spread = (
            "clients spread seat by seat (--direct: no load balancer)"
            if args.direct
            else "clients through nginx (round-robin, no sticky sessions)"
        )
        processes = "process" if args.cluster == 1 else "processes"
        where = f"{args.cluster} cluster {processes}, {spread}" + (f", {where}" if where else "")
        if args.kill_owner_after is not None and args.cluster >= 2:
            where += f"; the owner of the most live tables killed {args.kill_owner_after:g} s in"
    return (
        f"bench server: {args.tables} tables × {args.players} seats "
        f"= {args.tables * args.players} clients in {procs} process(es), "
        f"think ~{args.think:g} s, measuring {args.duration:g} s "
        f"on {os.cpu_count()} cores (load average before: {os.getloadavg()[0]:.1f})\n"
        f"  {start}{'; ' + where if where else ''}"
    )


def run(args: argparse.Namespace) -> int:
    sizes: list[int] = args.cluster
    args.cluster_database = None
    args.cluster = sizes[0] if sizes else 0
    if args.kill_owner_after is not None:
        if max(sizes, default=0) < 2 or args.url:
            print("--kill-owner-after needs --cluster N with N >= 2", file=sys.stderr)
            return 2
        if not 0 < args.kill_owner_after < args.duration:
            print("--kill-owner-after must be within --duration", file=sys.stderr)
            return 2
    if args.direct and not sizes:
        print("--direct goes with --cluster N", file=sys.stderr)
        return 2
    if len(sizes) > 1 and (args.ab is not None or args.url):
        print("several --cluster sizes go without --ab and --url", file=sys.stderr)
        return 2
    if args.ab is not None:
        return run_ab(args)
    tree = args.checkout.resolve() if args.checkout else None
    if len(sizes) > 1:
        return run_sizes(args, sizes, tree)
    print(_header(args, tree), flush=True)
    report(measure(args, tree))
    return 0


def run_sizes(args: argparse.Namespace, sizes: list[int], tree: Path | None) -> int:
    """One run per cluster size, the same clients each time, then the figures side by side."""
    rows = []
    for i, size in enumerate(sizes, 1):
        one = argparse.Namespace(**vars(args))
        one.cluster, one.cluster_database = size, None
        if size < 2:
            one.kill_owner_after = None  # one process: nobody to take a table over
        print(f"[{i}/{len(sizes)}] " + _header(one, tree), flush=True)
        outcome = measure(one, tree)
        report(outcome, indent="    ")
        rows.append((size, outcome))
    print("cluster sizes, same clients (" + _clients_line(args) + "):")
    for line in size_table(rows):
        print("  " + line, flush=True)
    return 0


def _clients_line(args: argparse.Namespace) -> str:
    return (
        f"{args.tables} tables × {args.players} seats, think ~{args.think:g} s, "
        f"{args.duration:g} s measured"
        + (f", owner killed {args.kill_owner_after:g} s in" if args.kill_owner_after else "")
    )


def size_table(rows: list[tuple[int, Outcome]]) -> list[str]:
    """The figures of runs on several cluster sizes, one line each."""
    lines = [
        "  N   moves/s   latency median / p99   CPU s/1000 moves   "
        "claim max   takeover median / max   acked lost   errors"
    ]
    for size, outcome in rows:
        latencies = [x for s in outcome.stats for x in s.latencies]
        latency = "-"
        if latencies:
            median, p99 = statistics.median(latencies), _percentile(latencies, 0.99)
            latency = f"{median * 1e3:6.1f} / {p99 * 1e3:.1f} ms"
        per_move = outcome.cpu_per_1000_moves
        takeover, claim = "-", "-"
        if outcome.killed is not None:
            claims = outcome.killed.claims.values()
            claim = f"{max(claims):.2f} s" if claims else "none"
            acked = [a for s in outcome.stats for a in s.acked]
            times = sorted(takeover_times(outcome.killed, acked, outcome.committed).values())
            takeover = f"{statistics.median(times):.2f} / {times[-1]:.2f} s" if times else "none"
        lost = "-" if outcome.lost is None else str(len(outcome.lost))
        lines.append(
            f"{size:3d}   {outcome.moves / outcome.duration:7.1f}   {latency:>20}   "
            f"{per_move if per_move is not None else float('nan'):16.2f}   {claim:>9}   "
            f"{takeover:>21}   "
            f"{lost:>10}   {sum(s.errors for s in outcome.stats):6d}"
        )
    return lines


def run_ab(args: argparse.Namespace) -> int:
    """Old, new, old, new …: the server from ``--ab`` against this tree, same clients."""
    old, new = args.ab.resolve(), (args.checkout or HERE).resolve()
    per_move: dict[str, list[float]] = {"old": [], "new": []}
    order = [("old", old), ("new", new)] * args.rounds
    for i, (side, tree) in enumerate(order, 1):
        print(f"[{i}/{len(order)}] {side}: " + _header(args, tree), flush=True)
        outcome = measure(args, tree)
        report(outcome, indent="    ")
        if outcome.cpu_per_1000_moves is not None:
            per_move[side].append(outcome.cpu_per_1000_moves)
    print("A/B: server CPU seconds per 1,000 moves")
    for side, tree in (("old", old), ("new", new)):
        runs = ", ".join(f"{x:.3f}" for x in per_move[side])
        mean = statistics.mean(per_move[side]) if per_move[side] else float("nan")
        print(f"  {side} ({tree}): {runs}  (mean {mean:.3f})")
    if per_move["old"] and per_move["new"]:
        ratio = statistics.mean(per_move["new"]) / statistics.mean(per_move["old"])
        print(f"  new / old = {ratio:.2f}")
    return 0

"""Which process runs which live table: a lease per process, a fenced claim per table.

Everything lives in PostgreSQL, because the check that matters — "is this process still
the table's owner?" — must be atomic with the commit of a move, and only the database can
make it so. Times are the database's clock, so the machines' clocks do not matter.

* **The lease.** Each process has a row in ``cluster_processes`` whose ``expires_at`` it
  pushes ``lease`` seconds ahead every ``lease / 3`` seconds: one statement per process,
  however many tables it runs. A process whose row has expired is dead to the others.
* **The claim.** ``tables.owner`` names the process that runs a table and
  ``tables.owner_epoch`` counts the claims: a process may claim a table nobody owns, or
  whose owner's lease expired, and each claim adds one to the epoch. The epoch is the
  fencing token: every group commit of the writer checks, in its own transaction and with
  ``FOR SHARE`` (see :func:`fenced`), that this process still holds each table at the epoch
  it claimed; a claim by another process waits for that transaction and then moves the
  epoch on, so the old owner's next commit fails. The ``(table, n)`` key of a move stays
  the last guard.
* **A lapsed lease.** A process that was paused (SIGSTOP, a long stall) past its lease
  finds on its next renewal that its row expired. It renews it, then keeps the tables
  still owned by it at the epoch it holds — nobody else can have written them, since any
  claim moves the epoch — and lets go of the others, telling ``on_lost``.
* **Orphans.** Every ``scan_interval`` each process lists the waiting and playing tables
  whose owner is not a live process and claims those for which it is the rendezvous-hash
  winner among live processes (:func:`rendezvous_winner`): deterministic, so processes
  don't fight over them, and spread evenly. It tells ``on_orphans`` what it claimed.
* **Released tables.** A table that leaves memory is released (``owner`` NULL): it is
  dormant, and whoever next needs it claims it. It is not an orphan.
* **Leaving.** A process that stops cleanly deletes its row: its tables become orphans
  at once and the others claim them at their next scan (:meth:`Ownership.wake` makes that
  immediate, for instance when they hear the leaver's announcement). Its tables keep its
  name as owner until then rather than NULL, because a dormant table would wait for a
  visitor, while these are running games with timers and bots that need a process now.

>>> rendezvous_winner("t_1", ["p1", "p2", "p3"]) in {"p1", "p2", "p3"}
True
>>> rendezvous_winner("t_1", []) is None
True
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bodoge.cluster.tasks import cancel_and_wait
from bodoge.store.base import Fenced as Fenced  # what the writer raises for fenced tables
from bodoge.store.upgrade import upgrade

log = logging.getLogger(__name__)

#: Seconds a lease lasts after each renewal.
LEASE = 5.0
#: Seconds between two looks for orphaned tables.
SCAN_INTERVAL = 1.0
#: Statuses of tables that need a process: their owner's death orphans them.
LIVE_STATUSES = ("waiting", "playing")
#: The database's clock in milliseconds (``clock_timestamp``: now, not the transaction's start).
DB_NOW = "(extract(epoch from clock_timestamp()) * 1000)::bigint"

TablesCallback = Callable[[set[str]], Awaitable[None]]
ClaimsCallback = Callable[[dict[str, int]], Awaitable[None]]
ProcessesCallback = Callable[[set[str]], Awaitable[None]]

_LIVE = f"SELECT id FROM cluster_processes WHERE expires_at > {DB_NOW}"

_RENEW = sa.text(
    f"UPDATE cluster_processes SET expires_at = {DB_NOW} + :lease_ms, tables = :tables"
    f" WHERE id = :me AND expires_at > {DB_NOW} RETURNING expires_at"
)
_REGISTER = sa.text(
    "INSERT INTO cluster_processes (id, address, started_at, expires_at, tables)"
    f" VALUES (:me, :address, {DB_NOW}, {DB_NOW} + :lease_ms, :tables)"
    f" ON CONFLICT (id) DO UPDATE SET expires_at = {DB_NOW} + :lease_ms,"
    " address = excluded.address, tables = excluded.tables RETURNING expires_at"
)
# Rows are locked in id order (the subquery), as the writer's fencing check locks them, so
# a claim of many tables and a group commit never deadlock.
_CLAIM = sa.text(
    "UPDATE tables SET owner = :me, owner_epoch = owner_epoch + 1 WHERE id IN ("
    " SELECT id FROM tables WHERE id = ANY(:ids)"
    f" AND (owner IS NULL OR owner = :me OR owner NOT IN ({_LIVE}))"
    " ORDER BY id FOR UPDATE)"
    " RETURNING id, owner_epoch"
)
_RELEASE = sa.text(
    "UPDATE tables SET owner = NULL WHERE id = :table AND owner = :me AND owner_epoch = :epoch"
)
_HELD = sa.text("SELECT id, owner_epoch FROM tables WHERE id = ANY(:ids) AND owner = :me")
_ORPHANS = sa.text(
    "SELECT id FROM tables WHERE status = ANY(:statuses) AND owner IS NOT NULL"
    f" AND owner NOT IN ({_LIVE})"
)
_PROCESSES = sa.text(
    f"SELECT id, expires_at, COALESCE(tables, 0) AS tables, {DB_NOW} AS now FROM cluster_processes"
)
_OWNER = sa.text(f"SELECT owner FROM tables WHERE id = :table AND owner IN ({_LIVE})")
_LEAVE = sa.text("DELETE FROM cluster_processes WHERE id = :me")
_FENCE = (
    "SELECT id, owner_epoch FROM tables WHERE id = ANY({ids}) AND owner = {me}"
    " ORDER BY id FOR SHARE"
)
#: Process rows expired this long ago (ms) are deleted by whoever scans.
FORGET_AFTER_MS = 24 * 3600 * 1000


class ClusterError(Exception):
    """Cluster ownership cannot work as asked."""


class NeedsPostgres(ClusterError):
    """Cluster mode runs on PostgreSQL only (SQLite is one process's database)."""


def new_process_id() -> str:
    """A name for this process, unique across restarts: ``host-pid-random``.

    >>> len(new_process_id().rsplit("-", 2)[-1])
    6
    """
    host = socket.gethostname().split(".")[0][:40] or "host"
    return f"{host}-{os.getpid()}-{secrets.token_hex(3)}"


def _score(process: str, table: str) -> bytes:
    return hashlib.blake2b(f"{process}\x00{table}".encode(), digest_size=8).digest()


def rendezvous_winner(table: str, processes: Iterable[str]) -> str | None:
    """The process that should take ``table`` over: highest hash of (process, table).

    Every process computes the same winner from the same list of live processes; when a
    process leaves, only its own tables change hands.
    """
    return max(sorted(processes), key=lambda p: _score(p, table), default=None)


async def fenced(conn: Any, process: str, epochs: Mapping[str, int]) -> set[str]:
    """Of ``epochs`` (table → the epoch this process claimed), those it no longer holds.

    ``conn`` is a SQLAlchemy :class:`AsyncConnection` or an asyncpg connection, inside the
    transaction that is about to write those tables: the rows stay share-locked until it
    ends, so no claim can slip in between this check and the commit. The writer fails the
    writes of the returned tables (:class:`Fenced`) and commits the rest.
    """
    if not epochs:
        return set()
    ids = sorted(epochs)
    if isinstance(conn, AsyncConnection):
        sql = sa.text(_FENCE.format(ids=":ids", me=":me"))
        rows = (await conn.execute(sql, {"ids": ids, "me": process})).all()
    else:  # asyncpg's own connection, as the store's writer holds it
        rows = await conn.fetch(_FENCE.format(ids="$1::text[]", me="$2"), ids, process)
    held = {row[0]: row[1] for row in rows}
    return {table for table, epoch in epochs.items() if held.get(table) != epoch}


async def prepare(engine: AsyncEngine) -> None:
    """Make the store ready for cluster mode: its schema at the newest version.

    The cluster's tables and columns are part of the store's migrations
    (bodoge/store/upgrade.py), which processes starting together take turns to run (an
    advisory lock); a store already up to date is only read.
    """
    if engine.dialect.name != "postgresql":
        raise NeedsPostgres(f"cluster mode needs PostgreSQL, not {engine.dialect.name}")
    await upgrade(engine)


class Ownership:
    """This process's lease and the tables it holds, kept in PostgreSQL.

    ``on_lost`` hears of tables this process no longer holds (another process claimed them
    while its lease had lapsed); ``on_orphans`` of tables it took over from a dead process
    (table → epoch): the server loads and runs those; ``on_departed`` of processes whose
    lease ended since the last scan. Callbacks run on the renewal and scan
    tasks, one at a time; they should queue work rather than wait for it.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        process: str | None = None,
        *,
        address: str = "",
        lease: float = LEASE,
        scan_interval: float = SCAN_INTERVAL,
        on_lost: TablesCallback | None = None,
        on_orphans: ClaimsCallback | None = None,
        on_departed: ProcessesCallback | None = None,
    ) -> None:
        if engine.dialect.name != "postgresql":
            raise NeedsPostgres(f"cluster mode needs PostgreSQL, not {engine.dialect.name}")
        self.engine = engine
        self.process = process or new_process_id()
        self.address = address
        self.lease = lease
        self.scan_interval = scan_interval
        self.on_lost = on_lost
        self.on_orphans = on_orphans
        #: Hears of processes seen alive at the last scan whose lease has ended since (they
        #: died or left): what they left unfinished besides their tables is settled then.
        self.on_departed = on_departed
        self._live: set[str] = set()
        #: Tables this process holds, with the epoch of its claim.
        self.held: dict[str, int] = {}
        #: Tables taken over from dead processes.
        self.takeovers = 0
        #: Renewals that found the lease already lapsed.
        self.lapses = 0
        #: Renewals or scans that failed (the database unreachable), and recoveries after them.
        self.database_failures = 0
        self.database_reconnects = 0
        self._database_down = False
        #: Until when (monotonic) the lease is surely valid: the last successful renewal's
        #: sending time plus the lease.
        self._valid_until = 0.0
        #: Seconds until the next lease that is about to run out (found by :meth:`scan`).
        self.next_expiry: float | None = None
        #: The live processes and the tables each held at its last renewal, as the last
        #: scan found them (new tables go to the least loaded: ``Tables._placement``).
        self.loads: dict[str, int] = {}
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._joined = False

    @property
    def lease_ms(self) -> int:
        return int(self.lease * 1000)

    @property
    def lease_valid(self) -> bool:
        """Whether the lease is surely unexpired, by this process's own clock.

        False after a pause or while the database is unreachable for longer than the
        lease: the tables may be someone else's by now (fencing decides at the next write).
        """
        return time.monotonic() < self._valid_until

    def epoch(self, table: str) -> int | None:
        """The epoch of this process's claim on ``table``, if it holds it."""
        return self.held.get(table)

    # --- life ------------------------------------------------------------------------------

    async def join(self, *, run: bool = True) -> None:
        """Register this process (a fresh lease) and start renewing it and scanning.

        With ``run=False`` nothing runs by itself: the caller calls :meth:`renew` and
        :meth:`scan` (the tests do, to pause a process exactly where they want).
        """
        sent = time.monotonic()
        async with self.engine.begin() as conn:
            await conn.execute(
                _REGISTER,
                {
                    "me": self.process,
                    "address": self.address,
                    "lease_ms": self.lease_ms,
                    "tables": len(self.held),
                },
            )
        self._valid_until = sent + self.lease
        self._joined = True
        if run:
            self._tasks = [
                asyncio.create_task(self._renew_loop(), name=f"lease-{self.process}"),
                asyncio.create_task(self._scan_loop(), name=f"orphans-{self.process}"),
            ]

    async def stop(self) -> None:
        """Stop renewing and scanning without leaving (as if the process had died)."""
        tasks, self._tasks = self._tasks, []
        await cancel_and_wait(tasks)

    async def leave(self) -> set[str]:
        """Stop, and end the lease at once: every held table becomes an orphan for the others.

        Returns the tables handed over (to announce, so the others scan at once).
        """
        await self.stop()
        handed = set(self.held)
        if self._joined:
            async with self.engine.begin() as conn:
                await conn.execute(_LEAVE, {"me": self.process})
        self.held.clear()
        self._joined = False
        self._valid_until = 0.0
        return handed

    def wake(self) -> None:
        """Scan for orphans now rather than at the next interval (a process left)."""
        self._wake.set()

    # --- claims ------------------------------------------------------------------------------

    async def claim(self, table: str) -> int | None:
        """Claim ``table`` if nobody live holds it; return the new epoch, or None.

        A table this process already holds is claimed again (a new epoch): the writes in
        flight under the old epoch then fail, so call it only when (re)loading the table.
        """
        claimed = await self.claim_many([table])
        return claimed.get(table)

    async def claim_many(self, tables: Iterable[str]) -> dict[str, int]:
        """Claim every table of ``tables`` that nobody live holds; return table → epoch."""
        ids = sorted(set(tables))
        if not ids:
            return {}
        async with self.engine.begin() as conn:
            rows = (await conn.execute(_CLAIM, {"me": self.process, "ids": ids})).all()
        claimed = {row[0]: int(row[1]) for row in rows}
        for table, epoch in claimed.items():
            # Two claims of one table here (the orphan scan and a visitor loading it) may
            # come back in either order: the later epoch is the database's.
            if epoch > self.held.get(table, -1):
                self.held[table] = epoch
        return claimed

    async def release(self, table: str, epoch: int | None = None) -> bool:
        """Let go of ``table`` (it left memory): dormant until someone needs it.

        With ``epoch``, only the claim of that epoch: a table claimed again since (loaded
        again here before this release ran) stays held. Returns whether it was still held
        (False: another process had claimed it already, or this one again).
        """
        held = self.held.get(table)
        if held is None or (epoch is not None and held != epoch):
            return False
        self.held.pop(table)
        epoch = held
        async with self.engine.begin() as conn:
            result = await conn.execute(
                _RELEASE, {"table": table, "me": self.process, "epoch": epoch}
            )
        return bool(result.rowcount)

    async def forget(self, tables: Collection[str]) -> None:
        """Drop tables found fenced (by the writer): they are someone else's; tell ``on_lost``."""
        lost = {t for t in tables if self.held.pop(t, None) is not None}
        if lost and self.on_lost is not None:
            await self.on_lost(lost)

    async def owner_of(self, table: str) -> str | None:
        """The process that holds ``table`` now, if its lease is running."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(_OWNER, {"table": table})).first()
        return None if row is None else row[0]

    async def live_processes(self) -> dict[str, int]:
        """Every process whose lease is running, with its expiry (database ms)."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(_PROCESSES)).all()
        return {row.id: row.expires_at for row in rows if row.expires_at > row.now}

    # --- the lease -------------------------------------------------------------------------

    async def renew(self) -> bool:
        """Push the lease ahead; return False if it had lapsed (and handle that).

        After a lapse the lease is taken again and the held tables are checked: those
        another process claimed meanwhile are dropped and given to ``on_lost``.
        """
        sent = time.monotonic()
        params = {
            "me": self.process,
            "lease_ms": self.lease_ms,
            "address": self.address,
            "tables": len(self.held),
        }
        async with self.engine.begin() as conn:
            renewed = (await conn.execute(_RENEW, params)).first() is not None
            if not renewed:
                # First the lease again, so nobody can claim what is still ours; then see
                # what is still ours.
                await conn.execute(_REGISTER, params)
        self._valid_until = sent + self.lease
        if renewed:
            return True
        self.lapses += 1
        held = dict(self.held)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(_HELD, {"ids": sorted(held), "me": self.process})).all()
        still = {row[0]: int(row[1]) for row in rows}
        lost = {t for t, epoch in held.items() if still.get(t) != epoch}
        log.warning(
            "process %s: lease had lapsed; %d tables kept, %d lost to others",
            self.process,
            len(held) - len(lost),
            len(lost),
        )
        await self.forget(lost)
        return False

    async def _renew_loop(self) -> None:
        interval = self.lease / 3
        while True:
            delay = interval
            try:
                await asyncio.wait_for(self.renew(), self.lease)
                self._database_back()
            except (SQLAlchemyError, OSError, TimeoutError) as exc:
                self._database_lost(exc)
                delay = min(interval, 0.2)  # try again soon: the lease is running out
            except Exception:
                log.exception("renewing the lease of %s failed", self.process)
            await asyncio.sleep(delay)

    def _database_lost(self, exc: BaseException) -> None:
        self.database_failures += 1
        if not self._database_down:
            log.warning("process %s: the database does not answer: %s", self.process, exc)
        self._database_down = True

    def _database_back(self) -> None:
        if self._database_down:
            self.database_reconnects += 1
            log.warning("process %s: the database answers again", self.process)
        self._database_down = False

    # --- orphans ---------------------------------------------------------------------------

    async def scan(self) -> dict[str, int]:
        """Claim the orphaned tables this process is the rendezvous winner for.

        Returns them (table → epoch) and gives them to ``on_orphans``; sets
        :attr:`next_expiry`. Claims nothing while this process's own lease is in doubt (it
        is not among the live processes the others see).
        """
        async with self.engine.connect() as conn:
            statuses = list(LIVE_STATUSES)
            orphans = [row[0] for row in await conn.execute(_ORPHANS, {"statuses": statuses})]
            processes = (await conn.execute(_PROCESSES)).all()
        now = processes[0].now if processes else 0
        live = [p.id for p in processes if p.expires_at > now]
        self.loads = {p.id: p.tables for p in processes if p.expires_at > now}
        # A process that stops renewing is dead when its lease runs out: look again then.
        soon = [
            p.expires_at - now for p in processes if now < p.expires_at < now + 1000 * self.lease
        ]
        self.next_expiry = min(soon) / 1000 if soon else None
        if any(p.expires_at < now - FORGET_AFTER_MS for p in processes):
            async with self.engine.begin() as conn:
                await conn.execute(
                    sa.text(f"DELETE FROM cluster_processes WHERE expires_at < {DB_NOW} - :age"),
                    {"age": FORGET_AFTER_MS},
                )
        departed, self._live = self._live - set(live), set(live)
        if departed and self.on_departed is not None and self.lease_valid:
            await self.on_departed(departed)
        mine = [t for t in orphans if rendezvous_winner(t, live) == self.process]
        if not mine or not self.lease_valid:
            return {}
        claimed = await self.claim_many(mine)
        if claimed:
            self.takeovers += len(claimed)
            log.warning("process %s took over %d tables", self.process, len(claimed))
            if self.on_orphans is not None:
                await self.on_orphans(claimed)
        return claimed

    async def _scan_loop(self) -> None:
        while True:
            delay = self.scan_interval
            try:
                await asyncio.wait_for(self.scan(), self.lease)
            except (SQLAlchemyError, OSError, TimeoutError) as exc:
                self._database_lost(exc)
            except Exception:
                log.exception("looking for orphaned tables failed (process %s)", self.process)
            else:
                if self.next_expiry is not None:
                    delay = min(delay, self.next_expiry + 0.02)
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)

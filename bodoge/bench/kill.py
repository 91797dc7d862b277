"""``--kill-owner-after``: the owner of the most live tables killed under load, and
its tables taken over."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import time
from dataclasses import dataclass, field

from bodoge.bench.cluster import sqlalchemy_url


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


def kill_owner(args: argparse.Namespace, pids: list[int], left: float) -> Kill | None:
    """SIGKILL the process owning the most live tables, then watch its tables being claimed
    until the run ends; ``None`` if no process owns a live table."""
    assert args.cluster_database is not None
    url = sqlalchemy_url(args.cluster_pg, args.cluster_database)
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

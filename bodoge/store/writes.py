"""What the store writes: each write's plain-SQL statement, spelt for each way the store runs
it, the writes of a move and of other records, and how a group of them is planned.

Writes are plain SQL statements, not SQLAlchemy Core: on the hot path (a move, and the
timers it leaves) Core's compiling and parameter handling, and a hop to aiosqlite's
thread per statement, cost the event loop some 20 times what SQLite itself does.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Protocol

import orjson
import sqlalchemy as sa

from bodoge.store.base import Fenced
from bodoge.store.records import MoveRecord, Timers

#: A time after every time stored (ms): "unseen since before it" holds for anyone.
ANY_TIME = 2**62


def dumps(value: Any) -> str:
    """JSON text of a column: orjson, several times faster than ``json.dumps`` per move."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


class Stmt:
    """One write statement in plain SQL (``?`` placeholders), with its PostgreSQL and
    SQLAlchemy spellings.  Parameters at the positions in ``json_at`` are JSON columns: the
    store encodes them (:func:`dumps`: JSON text, as SQLAlchemy's JSON type wrote) when it
    runs them.
    """

    __slots__ = ("json_at", "keys", "pg", "sql", "text")

    def __init__(self, sql: str, json_at: Iterable[int] = ()) -> None:
        parts = sql.split("?")
        self.sql = sql
        self.pg = "".join(f"{p}${i}" for i, p in enumerate(parts[:-1], 1)) + parts[-1]
        self.keys = tuple(f"p{i}" for i in range(len(parts) - 1))
        self.text = sa.text("".join(f"{p}:p{i}" for i, p in enumerate(parts[:-1])) + parts[-1])
        self.json_at = frozenset(json_at)

    def encode(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        if not self.json_at:
            return row
        # None is SQL's NULL, not JSON's null: "nothing stored" (a move's unknown timers).
        return tuple(
            dumps(v) if i in self.json_at and v is not None else v for i, v in enumerate(row)
        )

    def __repr__(self) -> str:
        return f"Stmt({self.sql!r})"


#: A statement and the parameters of one run of it.
Op = tuple[Stmt, tuple[Any, ...]]


#: Most writes committed in one transaction.
GROUP_LIMIT = 256

INSERT_MOVE = Stmt(
    "INSERT INTO moves (table_id, n, seat, move, at, actor, deadlines, clock_deadline)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    json_at=(3, 6),
)
#: PostgreSQL's: a move and its table's timers (if parameter 10, ``changed``) in one
#: statement, so that the moves of a group are one ``executemany``: one round trip.
PG_APPEND_MOVE = Stmt(
    "WITH appended AS (INSERT INTO moves"
    " (table_id, n, seat, move, at, actor, deadlines, clock_deadline)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?))"
    " UPDATE tables SET deadlines = ?, clock_deadline = ? WHERE id = ? AND ?",
    json_at=(3, 6, 8),
)
#: PostgreSQL's in a cluster: :data:`PG_APPEND_MOVE` on condition that the process (parameter 2)
#: still holds the table at the epoch of its claim (3), checked on the table's row locked
#: ``FOR SHARE`` in the same statement, as the fencing query does (``fenced`` in
#: bodoge/cluster/ownership.py). It answers the moves it appended: 0 when the table is no
#: longer this process's, and then it wrote nothing. So a group of moves in a cluster is one
#: pipelined round trip, fence included, where a transaction around the fencing query and the
#: moves was four (BEGIN, the check, the moves, COMMIT).
PG_APPEND_HELD_MOVE = Stmt(
    "WITH held AS (SELECT id FROM tables WHERE id = ? AND owner = ? AND owner_epoch = ?"
    " FOR SHARE),"
    " appended AS (INSERT INTO moves"
    " (table_id, n, seat, move, at, actor, deadlines, clock_deadline)"
    " SELECT id, ?, ?, ?, ?, ?, ?, ? FROM held RETURNING 1),"
    " timed AS (UPDATE tables SET deadlines = ?, clock_deadline = ?"
    " WHERE id = (SELECT id FROM held) AND ?)"
    " SELECT count(*) FROM appended",
    json_at=(5, 8, 10),
)
SET_TIMERS = Stmt("UPDATE tables SET deadlines = ?, clock_deadline = ? WHERE id = ?", json_at=(0,))
FINISH_TABLE = Stmt(
    "UPDATE tables SET status = 'finished', finished_at = ?, result = ?, deadlines = '{}',"
    " clock_deadline = NULL WHERE id = ?",
    json_at=(1,),
)
SET_STATISTICS = Stmt("UPDATE tables SET statistics = ? WHERE id = ?", json_at=(0,))
RATING_PENDING = Stmt("INSERT INTO rating_pending (table_id, at) VALUES (?, ?)")


class Write:
    """One write: its statements, all about one thing (``key``: a table, a player, a picture set).

    ``conflict`` is the message of the :class:`~bodoge.store.base.Conflict` raised if it
    breaks a uniqueness rule (the database's own message otherwise).
    """

    __slots__ = ("conflict", "key", "statements")

    def __init__(self, key: tuple[str, str], statements: list[Op], conflict: str = "") -> None:
        self.key = key
        self.statements = statements
        self.conflict = conflict

    def ops(self, pg: bool = False) -> list[Op]:
        return self.statements


class MoveWrite:
    """A move to append, the hot path: its statements are made where the group is planned."""

    __slots__ = ("move", "rated", "result", "statistics", "table_id", "timers")
    conflict: ClassVar[str] = ""

    def __init__(
        self,
        table_id: str,
        move: MoveRecord,
        timers: Timers | None,
        result: Mapping[str, object] | None,
        rated: bool = False,
        statistics: Sequence[Mapping[str, int]] | None = None,
    ) -> None:
        self.table_id = table_id
        self.move = move
        self.timers = timers
        self.result = result
        self.rated = rated
        self.statistics = statistics

    @property
    def key(self) -> tuple[str, str]:
        return ("table", self.table_id)

    def ops(self, pg: bool = False) -> list[Op]:
        """Its statements (``pg``: PostgreSQL's, the move and its timers in one)."""
        m, table_id, timers, result = self.move, self.table_id, self.timers, self.result
        move = (table_id, *self._move_row())
        ops: list[Op]
        if pg:
            if timers is None or result is not None:
                ops = [(PG_APPEND_MOVE, (*move, None, None, table_id, False))]
            else:
                both = (*move, dict(timers.deadlines), timers.clock_deadline, table_id, True)
                ops = [(PG_APPEND_MOVE, both)]
        else:
            ops = [(INSERT_MOVE, move)]
            if timers is not None and result is None:
                left = (dict(timers.deadlines), timers.clock_deadline, table_id)
                ops.append((SET_TIMERS, left))
        if result is not None:
            ops.extend(finish_ops(table_id, m.at, result, self.statistics))
            if self.rated:
                ops.append((RATING_PENDING, (table_id, m.at)))
        return ops

    def held_row(self, process: str, epoch: int) -> tuple[Any, ...]:
        """Its row of :data:`PG_APPEND_HELD_MOVE` (a move that does not finish its table)."""
        timers = self.timers
        left = (
            (None, None, False)
            if timers is None
            else (dict(timers.deadlines), timers.clock_deadline, True)
        )
        return (self.table_id, process, epoch, *self._move_row(), *left)

    def _move_row(self) -> tuple[Any, ...]:
        """The move's own columns after its table: number, seat, move, time, actor and the
        timers it left running."""
        m = self.move
        kept = m.timers
        return (
            m.n,
            m.seat,
            m.move,
            m.at,
            m.actor,
            None if kept is None else dict(kept.deadlines),
            None if kept is None else kept.clock_deadline,
        )


def finish_ops(
    table_id: str,
    at: int,
    result: Mapping[str, object],
    statistics: Sequence[Mapping[str, int]] | None,
) -> list[Op]:
    """Finish a table; its statistics too, if given (never a JSON null: NULL means
    "not made yet", which the start-up looks for)."""
    ops: list[Op] = [(FINISH_TABLE, (at, dict(result), table_id))]
    if statistics is not None:
        ops.append((SET_STATISTICS, ([dict(s) for s in statistics], table_id)))
    return ops


AnyWrite = Write | MoveWrite
#: Per write of a group: ``None`` (committed) or what its caller gets raised.
Outcomes = list[BaseException | None]


class Fence(Protocol):
    """A cluster's guard on the writes of tables (PostgreSQL): a process writes only the
    tables it holds, at the epoch of its claim (bodoge/cluster/ownership.py)."""

    @property
    def process(self) -> str:
        """The process whose claims the writes stand on."""
        ...

    def claims(self, table_ids: Collection[str]) -> Mapping[str, int] | None:
        """The epoch of this process's claim on each of ``table_ids``; ``None`` if it does
        not hold one of them (the group is then checked by :meth:`refused`)."""
        ...

    async def refused(self, conn: Any, table_ids: Collection[str]) -> Collection[str]:
        """Of ``table_ids``, those this process may not write, checked with the writer's
        connection inside the group's transaction, before its statements."""
        ...

    async def lost(self, table_ids: Collection[str]) -> None:
        """Writes of ``table_ids`` found them no longer this process's (and wrote nothing)."""
        ...


def tables_written(writes: Sequence[AnyWrite]) -> set[str]:
    return {write.key[1] for write in writes if write.key[0] == "table"}


def held_appends(
    writes: Sequence[AnyWrite], fence: Fence
) -> tuple[list[int], list[tuple[Any, ...]]] | None:
    """A group that only appends moves to held tables, none finishing its table, as rows of
    :data:`PG_APPEND_HELD_MOVE`: the writes' order (positions in ``writes``) and their rows.

    The rows go by table id, each table's moves in their order, so that the tables' rows are
    locked in the order a claim locks them (``_CLAIM`` in bodoge/cluster/ownership.py) and the
    two never deadlock. ``None`` for any other group: it takes the transaction.
    """
    moves: list[MoveWrite] = []
    for write in writes:
        if not isinstance(write, MoveWrite) or write.result is not None:
            return None
        moves.append(write)
    claims = fence.claims({move.table_id for move in moves})
    if claims is None:
        return None
    order = sorted(range(len(moves)), key=lambda i: moves[i].table_id)  # stable
    process = fence.process
    rows = [moves[i].held_row(process, claims[moves[i].table_id]) for i in order]
    return order, rows


async def apply_fence(
    fence: Fence, conn: Any, writes: list[AnyWrite], outcomes: Outcomes
) -> list[AnyWrite]:
    """Run ``fence``; fail the refused tables' writes in ``outcomes``; return the others."""
    refused = set(await fence.refused(conn, tables_written(writes)))
    if not refused:
        return writes
    kept = []
    for i, write in enumerate(writes):
        if write.key[0] == "table" and write.key[1] in refused:
            outcomes[i] = Fenced([write.key[1]])
        else:
            kept.append(write)
    return kept


def batches(
    writes: Sequence[AnyWrite], pg: bool = False
) -> list[tuple[Stmt, list[tuple[Any, ...]]]]:
    """The statements of ``writes`` as few ``executemany`` batches as keep their effect.

    A statement joins the last batch of its kind unless a later batch holds a statement
    about the same thing (the same ``key``): statements about different things touch
    different rows and commute, and those about one thing keep their order.  So the
    moves of a group of tables are one insert and their timers one update, whatever
    came between them.  (An order the database refuses only fails the group, and
    failed groups are retried one write at a time, in order.)
    """
    planned: list[tuple[Stmt, list[tuple[Any, ...]]]] = []
    last_of_kind: dict[Stmt, int] = {}
    last_of_key: dict[tuple[str, str], int] = {}
    for write in writes:
        key = write.key
        for stmt, row in write.ops(pg):
            at = last_of_kind.get(stmt, -1)
            if at < 0 or at < last_of_key.get(key, -1):
                at = last_of_kind[stmt] = len(planned)
                planned.append((stmt, []))
            planned[at][1].append(row)
            last_of_key[key] = at
    return planned

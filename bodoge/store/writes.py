"""What the store writes: each write's plain-SQL statement, spelt for each way the store runs
it, the writes of a move and of other records, and how a group of them is planned.

Writes are plain SQL statements, not SQLAlchemy Core: on the hot path (a move, and the
timers it leaves) Core's compiling and parameter handling, and a hop to aiosqlite's
thread per statement, cost the event loop some 20 times what SQLite itself does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, ClassVar

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
        kept = m.timers
        move = (
            table_id,
            m.n,
            m.seat,
            m.move,
            m.at,
            m.actor,
            None if kept is None else dict(kept.deadlines),
            None if kept is None else kept.clock_deadline,
        )
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
#: A cluster's check at the start of a group commit: given the writer's connection (inside
#: the group's transaction) and the tables the group writes, the tables it may not write.
Fence = Callable[[Any, Collection[str]], Awaitable[Collection[str]]]


def tables_written(writes: Sequence[AnyWrite]) -> set[str]:
    return {write.key[1] for write in writes if write.key[0] == "table"}


async def apply_fence(
    fence: Fence, conn: Any, writes: list[AnyWrite], outcomes: Outcomes
) -> list[AnyWrite]:
    """Run ``fence``; fail the refused tables' writes in ``outcomes``; return the others."""
    refused = set(await fence(conn, tables_written(writes)))
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

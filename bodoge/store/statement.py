"""A write statement in plain SQL, spelt for each way the store runs it.

Writes are plain SQL statements, not SQLAlchemy Core: on the hot path (a move, and the
timers it leaves) Core's compiling and parameter handling, and a hop to aiosqlite's
thread per statement, cost the event loop some 20 times what SQLite itself does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson
import sqlalchemy as sa

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
        return tuple(dumps(v) if i in self.json_at else v for i, v in enumerate(row))

    def __repr__(self) -> str:
        return f"Stmt({self.sql!r})"


#: A statement and the parameters of one run of it.
Op = tuple[Stmt, tuple[Any, ...]]

"""A body that reads, decides and writes in one transaction of its own (a rating update,
a passkey challenge taken once), run on SQLite's writer thread or an engine connection.

The body gets a :data:`Runner` and speaks plain SQL with ``?`` placeholders, so that one
body serves both.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import sqlalchemy as sa

from bodoge.store.writes import Stmt

T = TypeVar("T")

#: Runs one statement (``?`` placeholders) in the transaction: its rows and its row count.
Runner = Callable[[str, Sequence[Any]], tuple[list[Any], int]]


def on_sqlite(db: sqlite3.Connection, body: Callable[..., T], *args: Any) -> T:
    """``body(run, *args)`` on the SQLite writer thread, in a transaction of its own."""

    def run(sql: str, params: Sequence[Any]) -> tuple[list[Any], int]:
        cursor = db.execute(sql, tuple(params))
        return cursor.fetchall(), cursor.rowcount

    db.execute("BEGIN IMMEDIATE")
    try:
        done = body(run, *args)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return done


def sa_runner(conn: sa.Connection) -> Runner:
    def run(sql: str, params: Sequence[Any]) -> tuple[list[Any], int]:
        stmt = Stmt(sql)
        result = conn.execute(stmt.text, dict(zip(stmt.keys, params, strict=True)))
        rows = list(result) if result.returns_rows else []
        return rows, result.rowcount

    return run

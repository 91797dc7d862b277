"""A database that cannot write now (full disk, gone) is :class:`StoreUnavailable` to the
caller, whatever the driver; a broken rule stays a :class:`Conflict`, anything else itself.
(The whole path, on a real full disk, is ``tests/server/test_full_disk.py``.)"""

from __future__ import annotations

import sqlite3

import asyncpg
import pytest
from sqlalchemy.exc import IntegrityError, OperationalError

from bodoge.store import Conflict, StoreUnavailable
from bodoge.store.failures import (
    ENGINE_UNAVAILABLE,
    SQLITE_UNAVAILABLE,
    asyncpg_unavailable,
)
from bodoge.store.failures import outcome as write_outcome
from bodoge.store.writes import Write

WRITE = Write(("table", "t_1"), [], "table t_1 already has move 3")


@pytest.mark.parametrize(
    ("error", "integrity", "unavailable"),
    [
        (sqlite3.OperationalError("database or disk is full"), sqlite3.IntegrityError, "sqlite"),
        (asyncpg.DiskFullError("could not extend file"), asyncpg.UniqueViolationError, "pg"),
        (asyncpg.ConnectionDoesNotExistError("gone"), asyncpg.UniqueViolationError, "pg"),
        (ConnectionResetError("reset"), asyncpg.UniqueViolationError, "pg"),
        (OperationalError("INSERT", {}, Exception("disk full")), IntegrityError, "engine"),
    ],
)
def test_a_database_that_cannot_write_is_unavailable(
    error: Exception, integrity: type[Exception], unavailable: str
) -> None:
    kinds = {"sqlite": SQLITE_UNAVAILABLE, "engine": ENGINE_UNAVAILABLE}.get(unavailable)
    outcome = write_outcome(error, WRITE, integrity, kinds or asyncpg_unavailable())
    assert isinstance(outcome, StoreUnavailable)


def test_a_broken_rule_is_a_conflict_and_a_bug_is_itself() -> None:
    kinds = asyncpg_unavailable()
    conflict = write_outcome(
        asyncpg.UniqueViolationError("dup"), WRITE, asyncpg.UniqueViolationError, kinds
    )
    assert isinstance(conflict, Conflict) and "move 3" in str(conflict)
    bug = TypeError("a bug")
    assert write_outcome(bug, WRITE, asyncpg.UniqueViolationError, kinds) is bug

"""What a failed write becomes for its caller: a broken rule is a :class:`Conflict`, a
database that cannot write now :class:`StoreUnavailable`, anything else itself."""

from __future__ import annotations

import sqlite3

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from bodoge.store.base import Conflict, StoreUnavailable
from bodoge.store.writes import AnyWrite

Kinds = type[BaseException] | tuple[type[BaseException], ...]

#: What the database raises when it cannot write now, for the SQLite writer thread (disk
#: full, an I/O error, a lock held too long) and SQLAlchemy's engine.
SQLITE_UNAVAILABLE: Kinds = sqlite3.OperationalError
ENGINE_UNAVAILABLE: Kinds = OperationalError


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be reached or written now (it is restarting,
    down, out of disk), rather than a bug: the caller answers ``store_unavailable``.

    Writes already fail with :class:`StoreUnavailable`; this also covers a read that meets
    a connection the database closed (SQLAlchemy's ``InterfaceError``, asyncpg's own).

    >>> is_unavailable(StoreUnavailable("disk full")), is_unavailable(KeyError("x"))
    (True, False)
    """
    if isinstance(exc, StoreUnavailable | SQLITE_UNAVAILABLE | OperationalError | InterfaceError):
        return True
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    try:
        kinds = asyncpg_unavailable()
    except ImportError:
        return False
    return isinstance(exc, kinds)


def asyncpg_unavailable() -> Kinds:
    """asyncpg's: the server is gone or going, or out of disk or memory.

    ``InternalClientError`` is a connection left mid-operation by a lost server ("cannot
    switch to state …"): the statement was never sent, and the connection is dropped.
    """
    import asyncpg

    return (
        OSError,
        TimeoutError,
        asyncpg.InterfaceError,
        asyncpg.InternalClientError,
        asyncpg.PostgresConnectionError,
        asyncpg.InsufficientResourcesError,
        asyncpg.OperatorInterventionError,
    )


def outcome(exc: Exception, write: AnyWrite, integrity: Kinds, unavailable: Kinds) -> Exception:
    """What the caller of a write that failed alone gets: a broken rule is a :class:`Conflict`,
    a database that cannot write now :class:`StoreUnavailable`.
    """
    if isinstance(exc, integrity):
        return Conflict(write.conflict or str(getattr(exc, "orig", None) or exc))
    if caused_by(exc, unavailable):
        return StoreUnavailable(str(getattr(exc, "orig", None) or exc))
    return exc


def caused_by(exc: BaseException, kinds: Kinds) -> bool:
    """Whether ``exc`` or what it wraps (SQLAlchemy's ``orig``, an exception's cause) is one
    of ``kinds``: a connection the engine could not open, for instance, while PostgreSQL
    is starting up, reaches the writer wrapped in SQLAlchemy's errors."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, kinds):
            return True
        orig = getattr(current, "orig", None)
        todo += [orig if isinstance(orig, BaseException) else None, current.__cause__]
    return False

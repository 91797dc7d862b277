"""The SQLAlchemy 2 (asyncio) store: SQLite by default, PostgreSQL by URL.

:class:`SqlStore` is one object made of the store's parts:

* :mod:`~bodoge.store.engine`: the database and the one writer that commits in groups
  (:mod:`~bodoge.store.writes` plans a group, :class:`~bodoge.store.engine.SqliteWriter` is
  SQLite's, on the event loop and a thread, :mod:`~bodoge.store.failures` says what a failed
  write is);
* :mod:`~bodoge.store.opening` (URLs, the engine, SQLite's settings) and
  :mod:`~bodoge.store.upgrade` (the schema's version, migrated on open:
  :mod:`~bodoge.store.migrations`);
* the queries of each area: :mod:`~bodoge.store.players`, :mod:`~bodoge.store.accounts`,
  :mod:`~bodoge.store.tables`, :mod:`~bodoge.store.loading`, :mod:`~bodoge.store.ratings`,
  :mod:`~bodoge.store.pictures`, :mod:`~bodoge.store.notifications`;
  :mod:`~bodoge.store.mapping` turns rows into records.
"""

from __future__ import annotations

from bodoge.store.accounts import AccountQueries
from bodoge.store.failures import is_unavailable
from bodoge.store.loading import TableLoading
from bodoge.store.notifications import NotifyQueries
from bodoge.store.opening import sqlite_url
from bodoge.store.pictures import PictureQueries
from bodoge.store.players import PlayerQueries
from bodoge.store.ports import Store
from bodoge.store.puzzles import PuzzleQueries
from bodoge.store.ratings import RatingQueries
from bodoge.store.tables import TableQueries
from bodoge.store.turns import TurnQueries

__all__ = ["SqlStore", "is_unavailable", "open_store", "sqlite_url"]


class SqlStore(
    PlayerQueries,
    AccountQueries,
    TableQueries,
    TableLoading,
    RatingQueries,
    PictureQueries,
    TurnQueries,
    NotifyQueries,
    PuzzleQueries,
    Store,
):
    """:class:`Store` on any SQLAlchemy async URL."""


async def open_store(url: str) -> SqlStore:
    """Open (and create if needed) the store at ``url``."""
    store = SqlStore(url)
    try:
        await store.start()
    except BaseException:
        await store.close()  # the engine's connections, even if the schema could not be made
        raise
    return store

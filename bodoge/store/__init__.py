"""Persistence: a table is its history (options, seed, seats and ordered moves).

The server only talks to :class:`~bodoge.store.base.Store`; :func:`open_store`
picks the implementation from a database URL (SQLite by default, PostgreSQL
through ``postgresql+asyncpg://``).
"""

from bodoge.store.base import Conflict, Fenced, Store, StoreUnavailable
from bodoge.store.records import (
    AccountRecord,
    ChallengeRecord,
    ChatRecord,
    MoveRecord,
    PasskeyRecord,
    PictureSetRecord,
    PlayerRecord,
    RatingRecord,
    SeatRecord,
    TableBundle,
    TableRecord,
    Timers,
)
from bodoge.store.sql import SqlStore, is_unavailable, open_store, sqlite_url

__all__ = [
    "AccountRecord",
    "ChallengeRecord",
    "ChatRecord",
    "Conflict",
    "Fenced",
    "MoveRecord",
    "PasskeyRecord",
    "PictureSetRecord",
    "PlayerRecord",
    "RatingRecord",
    "SeatRecord",
    "SqlStore",
    "Store",
    "StoreUnavailable",
    "TableBundle",
    "TableRecord",
    "Timers",
    "is_unavailable",
    "open_store",
    "sqlite_url",
]

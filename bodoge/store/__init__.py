"""Persistence: a table is its history (options, seed, seats and ordered moves).

The server only talks to :class:`~bodoge.store.ports.Store`, or to the narrower port
one part of it needs (:mod:`bodoge.store.ports`); :func:`open_store` picks the
implementation from a database URL (SQLite by default, PostgreSQL through
``postgresql+asyncpg://``).
"""

from bodoge.store.base import Conflict, Fenced, StoreUnavailable
from bodoge.store.notifications import NotifySettings, OutboxItem, PushSubscription
from bodoge.store.ports import (
    AccountStore,
    GuestStore,
    HistoryStore,
    NotifyStore,
    PictureStore,
    PlayerStore,
    PuzzleStore,
    RatingStore,
    StatisticsStore,
    Store,
    TableReader,
    TablesStore,
    TableStore,
    TurnStore,
)
from bodoge.store.records import (
    AccountRecord,
    ChallengeRecord,
    ChatRecord,
    MoveRecord,
    PasskeyRecord,
    PictureSetRecord,
    PlayerRecord,
    PuzzleAttemptRecord,
    PuzzlePlayerRecord,
    PuzzleRecord,
    RatingRecord,
    SeatRecord,
    SessionRecord,
    Sighting,
    TableBundle,
    TableRecord,
    Timers,
    VacationRecord,
)
from bodoge.store.sql import SqlStore, is_unavailable, open_store, sqlite_url

__all__ = [
    "AccountRecord",
    "AccountStore",
    "ChallengeRecord",
    "ChatRecord",
    "Conflict",
    "Fenced",
    "GuestStore",
    "HistoryStore",
    "MoveRecord",
    "NotifySettings",
    "NotifyStore",
    "OutboxItem",
    "PasskeyRecord",
    "PictureSetRecord",
    "PictureStore",
    "PlayerRecord",
    "PlayerStore",
    "PushSubscription",
    "PuzzleAttemptRecord",
    "PuzzlePlayerRecord",
    "PuzzleRecord",
    "PuzzleStore",
    "RatingRecord",
    "RatingStore",
    "SeatRecord",
    "SessionRecord",
    "Sighting",
    "SqlStore",
    "StatisticsStore",
    "Store",
    "StoreUnavailable",
    "TableBundle",
    "TableReader",
    "TableRecord",
    "TableStore",
    "TablesStore",
    "Timers",
    "TurnStore",
    "VacationRecord",
    "is_unavailable",
    "open_store",
    "sqlite_url",
]

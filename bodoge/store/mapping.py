"""Rows of the database as the store's records, and records as rows."""

from __future__ import annotations

from typing import Any

from bodoge.store.records import (
    AccountRecord,
    ChatRecord,
    MoveRecord,
    PasskeyRecord,
    PictureSetRecord,
    PlayerRecord,
    RatingRecord,
    SeatRecord,
    SessionRecord,
    Sighting,
    TableRecord,
    Timers,
)


def player(row: Any) -> PlayerRecord:
    return PlayerRecord(row.id, row.name, row.token_hash, row.created_at, row.seen_at)


def table(row: Any) -> TableRecord:
    return TableRecord(
        id=row.id,
        game=row.game,
        options=row.options,
        settings=row.settings,
        seed=row.seed,
        status=row.status,
        host=row.host,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
        result=row.result,
        deadlines=dict(row.deadlines or {}),
        clock_deadline=row.clock_deadline,
        unwatched_at=row.unwatched_at,
        rematch=row.rematch,
        statistics=row.statistics,
    )


def table_row(t: TableRecord) -> tuple[Any, ...]:
    """The columns :data:`~bodoge.store.tables.INSERT_TABLE` sets, in its order."""
    return (
        t.id,
        t.game,
        t.options,
        t.settings,
        t.seed,
        t.status,
        t.host,
        t.created_at,
        t.started_at,
        t.finished_at,
        t.result,
        dict(t.deadlines),
        t.clock_deadline,
    )


def seat(row: Any) -> SeatRecord:
    return SeatRecord(row.seat, row.kind, row.player, row.level, row.left_player)


def move(row: Any) -> MoveRecord:
    timers = None if row.deadlines is None else Timers(dict(row.deadlines), row.clock_deadline)
    return MoveRecord(row.n, row.seat, row.move, row.at, row.actor, timers)


def chat_line(row: Any) -> ChatRecord:
    return ChatRecord(row.table_id, row.line, row.player, row.name, row.text, row.at)


def session(row: Any) -> SessionRecord:
    seen = Sighting(
        row.seen_at if row.seen_at is not None else row.created_at,
        row.address or "",
        row.browser or "",
        row.system or "",
    )
    return SessionRecord(row.token_hash, row.player, row.generation, row.created_at, seen)


def passkey(row: Any) -> PasskeyRecord:
    return PasskeyRecord(
        row.id,
        row.player,
        bytes(row.public_key),
        row.sign_count,
        row.name,
        row.created_at,
        row.used_at,
    )


def rating(row: Any) -> RatingRecord:
    return RatingRecord(row.player, row.game, row.mu, row.sigma, row.games, row.updated_at)


def rating_point(row: Any) -> RatingRecord:
    """A row of ``rating_history``: the rating after one rated table."""
    return RatingRecord(row.player, row.game, row.mu, row.sigma, row.games, row.at, row.table_id)


def picture_set(row: Any) -> PictureSetRecord:
    return PictureSetRecord(
        row.id, row.size, row.created_at, row.owner, row.bytes or 0, row.used_at
    )


def account(row: Any) -> AccountRecord | None:
    """The account of a ``players`` row (``None``: a guest)."""
    if row.account_key is None:
        return None
    return AccountRecord(
        player(row), row.account_name, row.account_key, row.password_hash, row.generation or 0
    )

"""Notifications: a person's choices and e-mail address, their browsers' Web Push
subscriptions, the server's secrets, and the outbox (what is to be sent, claimed by one
process at a time).

Every body here runs in a transaction of its own (:meth:`SqlEngine._transaction`) in plain
SQL, so one body serves SQLite and PostgreSQL.  A row of the outbox is *claimed* by a
conditional ``UPDATE`` (unclaimed, or its claim expired): on PostgreSQL a second process's
``UPDATE`` of the same row waits for the first's commit and then finds its condition false,
so exactly one process sends it; on SQLite one writer runs every transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from bodoge.store.engine import SqlEngine
from bodoge.store.transactions import Runner

_SETTINGS = "player, email, email_verified_at, lang, my_turn, game_ended, invited, digest"
_OUTBOX = "key, player, channel, kind, table_id, payload, created_at, due_at, attempts"


@dataclass(frozen=True)
class NotifySettings:
    """What a person chose: their e-mail address (verified or not), language and kinds."""

    player: str
    email: str | None = None
    email_verified_at: int | None = None
    lang: str = "ja"
    my_turn: bool = True
    game_ended: bool = True
    invited: bool = True
    digest: bool = False

    @property
    def verified_email(self) -> str | None:
        return self.email if self.email and self.email_verified_at is not None else None


@dataclass(frozen=True)
class PushSubscription:
    """One browser's Web Push subscription."""

    endpoint: str
    player: str
    p256dh: str
    auth: str
    lang: str
    created_at: int


@dataclass(frozen=True)
class OutboxItem:
    """One notification to send on one channel (``mail``, ``push`` or ``digest``)."""

    key: str
    player: str
    channel: str
    kind: str
    table_id: str | None
    payload: dict[str, Any]
    created_at: int
    due_at: int
    attempts: int = 0


class NotifyQueries(SqlEngine):
    """:class:`~bodoge.store.ports.NotifyStore`."""

    # --- choices and addresses ------------------------------------------------------------

    async def notify_settings(self, player_id: str) -> NotifySettings | None:
        return await self._transaction(_settings, player_id)

    async def save_notify_settings(self, settings: NotifySettings, at: int) -> None:
        await self._transaction(_save_settings, settings, at)

    async def verify_email(self, player_id: str, email: str, at: int) -> bool:
        return await self._transaction(_verify, player_id, email, at)

    async def unsubscribe_email(self, player_id: str, email: str, at: int) -> bool:
        return await self._transaction(_unsubscribe, player_id, email, at)

    # --- Web Push subscriptions -----------------------------------------------------------

    async def add_push_subscription(self, sub: PushSubscription, limit: int) -> None:
        await self._transaction(_add_push, sub, limit)

    async def remove_push_subscription(self, endpoint: str, player_id: str | None) -> bool:
        return await self._transaction(_remove_push, endpoint, player_id)

    async def replace_push_subscription(self, old: str, sub: PushSubscription, limit: int) -> bool:
        return await self._transaction(_replace_push, old, sub, limit)

    async def push_subscriptions(self, player_id: str) -> list[PushSubscription]:
        return await self._transaction(_push_of, player_id)

    # --- secrets --------------------------------------------------------------------------

    async def secret(self, name: str, make: Callable[[], str], at: int) -> str:
        # Made outside the transaction (a key pair takes a while), kept only if first.
        return await self._transaction(_secret, name, make(), at)

    # --- the outbox -----------------------------------------------------------------------

    async def enqueue(self, items: Sequence[OutboxItem]) -> int:
        return await self._transaction(_enqueue, items) if items else 0

    async def claim_due(
        self,
        now: int,
        until: int,
        by: str,
        limit: int,
        channels: Sequence[str],
        owner_first_ms: int | None = None,
    ) -> list[OutboxItem]:
        return await self._transaction(
            _claim_due, now, until, by, limit, tuple(channels), owner_first_ms
        )

    async def digests_due(self, older_than: int, now: int) -> list[str]:
        return await self._transaction(_digests_due, older_than, now)

    async def claim_digest(self, player_id: str, now: int, until: int, by: str) -> list[OutboxItem]:
        return await self._transaction(_claim_digest, player_id, now, until, by)

    async def outbox_sent(self, keys: Sequence[str], by: str, at: int) -> None:
        await self._transaction(_sent, tuple(keys), by, at)

    async def outbox_retry(
        self, keys: Sequence[str], by: str, due_at: int | None, error: str, at: int
    ) -> None:
        await self._transaction(_retry, tuple(keys), by, due_at, error, at)

    async def prune_outbox(self, sent_before: int) -> int:
        return await self._transaction(_prune, sent_before)

    async def outbox_hasten(self, player_id: str, kind: str, due_at: int) -> int:
        return await self._transaction(_hasten, player_id, kind, due_at)

    async def turn_running(self, table_id: str, player_id: str, deadline: int) -> bool:
        return await self._transaction(_turn_running, table_id, player_id, deadline)


def _flag(value: Any) -> bool:
    return bool(int(value))


def _settings(run: Runner, player_id: str) -> NotifySettings | None:
    rows, _ = run(f"SELECT {_SETTINGS} FROM notify_settings WHERE player = ?", (player_id,))
    if not rows:
        return None
    r = rows[0]
    return NotifySettings(
        r[0], r[1], r[2], r[3], _flag(r[4]), _flag(r[5]), _flag(r[6]), _flag(r[7])
    )


def _save_settings(run: Runner, s: NotifySettings, at: int) -> None:
    run("DELETE FROM notify_settings WHERE player = ?", (s.player,))
    row = (s.player, s.email, s.email_verified_at, s.lang)
    flags = tuple(int(f) for f in (s.my_turn, s.game_ended, s.invited, s.digest))
    run(
        f"INSERT INTO notify_settings ({_SETTINGS}, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (*row, *flags, at),
    )


def _verify(run: Runner, player_id: str, email: str, at: int) -> bool:
    # Only the address the link was made for: a link to an address since changed is void.
    _, changed = run(
        "UPDATE notify_settings SET email_verified_at = COALESCE(email_verified_at, ?),"
        " updated_at = ? WHERE player = ? AND email = ?",
        (at, at, player_id, email),
    )
    return changed == 1


def _unsubscribe(run: Runner, player_id: str, email: str, at: int) -> bool:
    _, changed = run(
        "UPDATE notify_settings SET my_turn = 0, game_ended = 0, invited = 0, digest = 0,"
        " updated_at = ? WHERE player = ? AND email = ?",
        (at, player_id, email),
    )
    # What was waiting to be mailed there goes too: "stop" means now, not after a digest.
    run(
        "DELETE FROM notify_outbox WHERE player = ? AND channel IN ('mail', 'digest')"
        " AND sent_at IS NULL AND kind <> 'verify'",
        (player_id,),
    )
    return changed == 1


def _add_push(run: Runner, s: PushSubscription, limit: int) -> None:
    run("DELETE FROM push_subscriptions WHERE endpoint = ?", (s.endpoint,))
    run(
        "INSERT INTO push_subscriptions (endpoint, player, p256dh, auth, lang, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (s.endpoint, s.player, s.p256dh, s.auth, s.lang, s.created_at),
    )
    # The newest ``limit`` devices only: a browser that resubscribes often leaves no pile.
    run(
        "DELETE FROM push_subscriptions WHERE player = ? AND endpoint NOT IN"
        " (SELECT endpoint FROM push_subscriptions WHERE player = ?"
        " ORDER BY created_at DESC, endpoint LIMIT ?)",
        (s.player, s.player, limit),
    )


def _remove_push(run: Runner, endpoint: str, player_id: str | None) -> bool:
    if player_id is None:
        _, n = run("DELETE FROM push_subscriptions WHERE endpoint = ?", (endpoint,))
    else:
        _, n = run(
            "DELETE FROM push_subscriptions WHERE endpoint = ? AND player = ?",
            (endpoint, player_id),
        )
    return n == 1


def _replace_push(run: Runner, old: str, s: PushSubscription, limit: int) -> bool:
    if not _remove_push(run, old, s.player):
        return False
    _add_push(run, s, limit)
    return True


def _push_of(run: Runner, player_id: str) -> list[PushSubscription]:
    rows, _ = run(
        "SELECT endpoint, player, p256dh, auth, lang, created_at FROM push_subscriptions"
        " WHERE player = ? ORDER BY created_at, endpoint",
        (player_id,),
    )
    return [PushSubscription(*r) for r in rows]


def _secret(run: Runner, name: str, made: str, at: int) -> str:
    run(
        "INSERT INTO server_secrets (name, value, created_at) VALUES (?, ?, ?)"
        " ON CONFLICT (name) DO NOTHING",
        (name, made, at),
    )
    rows, _ = run("SELECT value FROM server_secrets WHERE name = ?", (name,))
    return str(rows[0][0])


def _enqueue(run: Runner, items: Sequence[OutboxItem]) -> int:
    added = 0
    for i in items:
        # The key is the notification: a second announcement of it is no second one.
        _, n = run(
            f"INSERT INTO notify_outbox ({_OUTBOX}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)"
            " ON CONFLICT (key) DO NOTHING",
            (
                i.key,
                i.player,
                i.channel,
                i.kind,
                i.table_id,
                json.dumps(i.payload),
                i.created_at,
                i.due_at,
            ),
        )
        added += max(n, 0)
    return added


def _item(r: Sequence[Any]) -> OutboxItem:
    return OutboxItem(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7], r[8])


def _claim(run: Runner, key: str, now: int, until: int, by: str) -> bool:
    _, n = run(
        "UPDATE notify_outbox SET claimed_until = ?, claimed_by = ?, attempts = attempts + 1"
        " WHERE key = ? AND sent_at IS NULL AND (claimed_until IS NULL OR claimed_until < ?)",
        (until, by, key, now),
    )
    return n == 1


def _claim_due(
    run: Runner,
    now: int,
    until: int,
    by: str,
    limit: int,
    channels: tuple[str, ...],
    owner_first_ms: int | None,
) -> list[OutboxItem]:
    marks = ", ".join("?" for _ in channels)
    owner_first, args = "", cast(tuple[int | str, ...], ())
    if owner_first_ms is not None:
        # Only the process that runs a table (``tables.owner``, set in a cluster) knows who
        # has it open: a row of a table another process runs is left to that one, unless it
        # has been due for ``owner_first_ms`` (the owner died and nobody has taken over).
        owner_first = (
            " AND (n.table_id IS NULL OR n.due_at <= ? OR NOT EXISTS (SELECT 1 FROM tables t"
            " WHERE t.id = n.table_id AND t.owner IS NOT NULL AND t.owner <> ?))"
        )
        args = (now - owner_first_ms, by)
    rows, _ = run(
        f"SELECT {_OUTBOX} FROM notify_outbox n WHERE sent_at IS NULL AND due_at <= ?"
        f" AND (claimed_until IS NULL OR claimed_until < ?) AND channel IN ({marks})"
        f"{owner_first} ORDER BY due_at, key LIMIT ?",
        (now, now, *channels, *args, limit),
    )
    return [replace(_item(r), attempts=r[8] + 1) for r in rows if _claim(run, r[0], now, until, by)]


def _digests_due(run: Runner, older_than: int, now: int) -> list[str]:
    # A digest goes a day after the oldest thing it tells: at most one a day per person.
    rows, _ = run(
        "SELECT player FROM notify_outbox WHERE channel = 'digest' AND sent_at IS NULL"
        " AND (claimed_until IS NULL OR claimed_until < ?)"
        " GROUP BY player HAVING MIN(created_at) <= ? ORDER BY MIN(created_at) LIMIT 100",
        (now, older_than),
    )
    return [str(r[0]) for r in rows]


def _claim_digest(run: Runner, player_id: str, now: int, until: int, by: str) -> list[OutboxItem]:
    rows, _ = run(
        f"SELECT {_OUTBOX} FROM notify_outbox WHERE channel = 'digest' AND player = ?"
        " AND sent_at IS NULL AND (claimed_until IS NULL OR claimed_until < ?)"
        " ORDER BY created_at, key",
        (player_id, now),
    )
    return [_item(r) for r in rows if _claim(run, r[0], now, until, by)]


def _sent(run: Runner, keys: tuple[str, ...], by: str, at: int) -> None:
    for key in keys:
        run(
            "UPDATE notify_outbox SET sent_at = ?, claimed_until = NULL, error = NULL"
            " WHERE key = ? AND claimed_by = ?",
            (at, key, by),
        )


def _retry(
    run: Runner, keys: tuple[str, ...], by: str, due_at: int | None, error: str, at: int
) -> None:
    for key in keys:
        if due_at is None:  # given up: kept as sent, with why, so it is not tried forever
            run(
                "UPDATE notify_outbox SET sent_at = ?, claimed_until = NULL, error = ?"
                " WHERE key = ? AND claimed_by = ?",
                (at, error[:500], key, by),
            )
        else:
            run(
                "UPDATE notify_outbox SET due_at = ?, claimed_until = NULL, error = ?"
                " WHERE key = ? AND claimed_by = ?",
                (due_at, error[:500], key, by),
            )


def _prune(run: Runner, sent_before: int) -> int:
    _, n = run(
        "DELETE FROM notify_outbox WHERE sent_at IS NOT NULL AND sent_at < ?", (sent_before,)
    )
    return int(n)


def _hasten(run: Runner, player_id: str, kind: str, due_at: int) -> int:
    _, n = run(
        "UPDATE notify_outbox SET due_at = ? WHERE player = ? AND kind = ? AND sent_at IS NULL"
        " AND due_at > ? AND channel IN ('mail', 'push')",
        (due_at, player_id, kind, due_at),
    )
    return max(int(n), 0)


def _turn_running(run: Runner, table_id: str, player_id: str, deadline: int) -> bool:
    rows, _ = run(
        "SELECT t.status, t.deadlines, s.seat FROM tables t JOIN seats s ON s.table_id = t.id"
        " WHERE t.id = ? AND s.player = ?",
        (table_id, player_id),
    )
    for status, raw, seat in rows:
        deadlines = json.loads(raw) if isinstance(raw, str) else raw
        if (
            status == "playing"
            and isinstance(deadlines, dict)
            and deadlines.get(str(seat)) == deadline
        ):
            return True
    return False

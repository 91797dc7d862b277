"""Accounts: a player's account name and password, sign-ins (sessions), passkeys and the
challenges of passkey ceremonies."""

from __future__ import annotations

import secrets
from typing import Any

import sqlalchemy as sa

from bodoge.store import mapping, schema
from bodoge.store.engine import SqlEngine
from bodoge.store.records import (
    AccountRecord,
    ChallengeRecord,
    PasskeyRecord,
    SessionRecord,
    Sighting,
)
from bodoge.store.transactions import Runner
from bodoge.store.writes import Op, Stmt, Write

#: A guest's token becomes the first sign-in of the account they make (before the players
#: row changes: only while it is still a guest's).
FIRST_SESSION = Stmt(
    "INSERT INTO sessions (token_hash, player, generation, created_at, seen_at, address,"
    " browser, system) SELECT token_hash, id, 0, created_at, ?, ?, ?, ? FROM players"
    " WHERE id = ? AND account_key IS NULL"
)
MAKE_ACCOUNT = Stmt(
    "UPDATE players SET account_name = ?, account_key = ?, password_hash = ?, generation = 0,"
    " token_hash = ? WHERE id = ? AND account_key IS NULL"
)
SET_PASSWORD = Stmt("UPDATE players SET password_hash = ? WHERE id = ?")
INSERT_SESSION = Stmt(
    "INSERT INTO sessions (token_hash, player, generation, created_at, seen_at, address,"
    " browser, system) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
SESSION_SEEN = Stmt(
    "UPDATE sessions SET seen_at = ?, address = ?, browser = ?, system = ? WHERE token_hash = ?"
)
#: When a sign-in was last used: its ``seen_at``, or its start if not since.
LAST_USED = "COALESCE(sessions.seen_at, sessions.created_at)"

DELETE_SESSION = Stmt("DELETE FROM sessions WHERE token_hash = ?")
REPLACE_TOKEN = Stmt("UPDATE players SET token_hash = ? WHERE token_hash = ?")
NEXT_GENERATION = Stmt("UPDATE players SET generation = ?, token_hash = ? WHERE id = ?")
DELETE_OLD_SESSIONS = Stmt("DELETE FROM sessions WHERE player = ? AND generation < ?")
INSERT_PASSKEY = Stmt(
    "INSERT INTO passkeys (id, player, public_key, sign_count, name, created_at, used_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
USE_PASSKEY = Stmt("UPDATE passkeys SET sign_count = ?, used_at = ? WHERE id = ?")
DELETE_PASSKEY = Stmt("DELETE FROM passkeys WHERE player = ? AND id = ?")


class AccountQueries(SqlEngine):
    """:class:`~bodoge.store.ports.AccountStore`."""

    async def account(self, player_id: str) -> AccountRecord | None:
        return await self._account(schema.players.c.id == player_id)

    async def account_by_key(self, key: str) -> AccountRecord | None:
        return await self._account(schema.players.c.account_key == key)

    async def _account(self, where: Any) -> AccountRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(schema.players).where(where))).first()
        return None if row is None else mapping.account(row)

    async def make_account(
        self,
        player_id: str,
        name: str,
        key: str,
        password_hash: str | None,
        first: Sighting | None = None,
    ) -> None:
        seen = (None, "", "", "") if first is None else _seen(first)
        ops: list[Op] = [
            (FIRST_SESSION, (*seen, player_id)),
            (MAKE_ACCOUNT, (name, key, password_hash, no_token(), player_id)),
        ]
        conflict = "this account name is taken"
        await self._write(Write(("player", player_id), ops, conflict))

    async def set_password(self, player_id: str, password_hash: str | None) -> None:
        row = (password_hash, player_id)
        await self._write(Write(("player", player_id), [(SET_PASSWORD, row)]))

    async def add_session(
        self, token_hash: str, player_id: str, generation: int, seen: Sighting
    ) -> None:
        row = (token_hash, player_id, generation, seen.at, *_seen(seen))
        await self._write(Write(("player", player_id), [(INSERT_SESSION, row)]))

    async def sessions(self, player_id: str, used_since: int) -> list[SessionRecord]:
        p, s = schema.players.c, schema.sessions.c
        used = sa.func.coalesce(s.seen_at, s.created_at)
        query = (
            sa.select(schema.sessions)
            .join(schema.players, p.id == s.player)
            .where(
                s.player == player_id,
                s.generation == sa.func.coalesce(p.generation, 0),
                used >= used_since,
            )
            .order_by(used.desc(), s.created_at.desc(), s.token_hash)
        )
        async with self.engine.connect() as conn:
            return [mapping.session(row) for row in await conn.execute(query)]

    async def session_seen(self, token_hash: str, seen: Sighting) -> None:
        row = (*_seen(seen), token_hash)
        await self._write(Write(("session", token_hash), [(SESSION_SEEN, row)]))

    async def delete_expired_sessions(self, used_before: int) -> int:
        return await self._transaction(_delete_expired, used_before)

    async def end_session(self, token_hash: str, replacement: str) -> None:
        ops: list[Op] = [
            (DELETE_SESSION, (token_hash,)),
            (REPLACE_TOKEN, (replacement, token_hash)),
        ]
        await self._write(Write(("session", token_hash), ops))

    async def end_sessions(self, player_id: str, generation: int, replacement: str) -> None:
        ops: list[Op] = [
            (NEXT_GENERATION, (generation, replacement, player_id)),
            (DELETE_OLD_SESSIONS, (player_id, generation)),
        ]
        await self._write(Write(("player", player_id), ops))

    async def add_passkey(self, passkey: PasskeyRecord) -> None:
        k = passkey
        row = (k.id, k.player, k.public_key, k.sign_count, k.name, k.created_at, k.used_at)
        conflict = "this passkey is known already"
        await self._write(Write(("player", k.player), [(INSERT_PASSKEY, row)], conflict))

    async def passkey(self, credential_id: str) -> PasskeyRecord | None:
        c = schema.passkeys.c
        async with self.engine.connect() as conn:
            query = schema.passkeys.select().where(c.id == credential_id)
            row = (await conn.execute(query)).first()
        return mapping.passkey(row) if row else None

    async def passkeys(self, player_id: str) -> list[PasskeyRecord]:
        c = schema.passkeys.c
        query = schema.passkeys.select().where(c.player == player_id).order_by(c.created_at, c.id)
        async with self.engine.connect() as conn:
            return [mapping.passkey(row) for row in await conn.execute(query)]

    async def use_passkey(self, credential_id: str, sign_count: int, at: int) -> None:
        row = (sign_count, at, credential_id)
        await self._write(Write(("passkey", credential_id), [(USE_PASSKEY, row)]))

    async def delete_passkey(self, player_id: str, credential_id: str) -> None:
        row = (player_id, credential_id)
        await self._write(Write(("player", player_id), [(DELETE_PASSKEY, row)]))

    # --- the addresses an account signs in from ------------------------------------------

    async def note_address(self, player_id: str, address: str, at: int, keep: int) -> None:
        await self._transaction(_note_address, player_id, address, at, keep)

    async def knows_address(self, key: str, address: str, since: int) -> bool:
        p, a = schema.players.c, schema.sign_in_addresses.c
        query = (
            sa.select(a.player)
            .join(schema.players, p.id == a.player)
            .where(p.account_key == key, a.address == address, a.seen_at >= since)
            .limit(1)
        )
        async with self.engine.connect() as conn:
            return (await conn.execute(query)).first() is not None

    # --- passkey challenges: taken once, whichever process asks ---------------------------

    async def add_challenge(self, challenge: ChallengeRecord, now: int, limit: int) -> bool:
        return await self._transaction(_add_challenge, challenge, now, limit)

    async def take_challenge(self, challenge_id: str, now: int) -> ChallengeRecord | None:
        return await self._transaction(_take_challenge, challenge_id, now)


def no_token() -> str:
    """The hash of no token: 256 random bits, which no token's SHA-256 will ever be."""
    return secrets.token_hex(32)


def _seen(seen: Sighting) -> tuple[int, str, str, str]:
    return (seen.at, seen.address, seen.browser, seen.system)


def _delete_expired(run: Runner, used_before: int) -> int:
    _, deleted = run(f"DELETE FROM sessions WHERE {LAST_USED} < ?", (used_before,))
    return int(deleted)


def _note_address(run: Runner, player_id: str, address: str, at: int, keep: int) -> None:
    run("DELETE FROM sign_in_addresses WHERE player = ? AND address = ?", (player_id, address))
    run(
        "INSERT INTO sign_in_addresses (player, address, seen_at) VALUES (?, ?, ?)",
        (player_id, address, at),
    )
    # The most recent ``keep`` only: an account's usual places, not every café it passed.
    run(
        "DELETE FROM sign_in_addresses WHERE player = ? AND address NOT IN"
        " (SELECT address FROM sign_in_addresses WHERE player = ?"
        " ORDER BY seen_at DESC, address LIMIT ?)",
        (player_id, player_id, keep),
    )


_CHALLENGE_COLUMNS = "id, challenge, purpose, player, name, rp_id, expires_at"


def _add_challenge(run: Runner, c: ChallengeRecord, now: int, limit: int) -> bool:
    run("DELETE FROM passkey_challenges WHERE expires_at < ?", (now,))
    rows, _ = run("SELECT COUNT(*) FROM passkey_challenges", ())
    if rows[0][0] >= limit:
        return False
    row = (c.id, c.challenge, c.purpose, c.player, c.name, c.rp_id, c.expires_at)
    run(f"INSERT INTO passkey_challenges ({_CHALLENGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", row)
    return True


def _take_challenge(run: Runner, challenge_id: str, now: int) -> ChallengeRecord | None:
    rows, _ = run(
        f"SELECT {_CHALLENGE_COLUMNS} FROM passkey_challenges WHERE id = ?", (challenge_id,)
    )
    # Two processes may read it at once: the one whose delete takes the row has it.
    _, taken = run("DELETE FROM passkey_challenges WHERE id = ?", (challenge_id,))
    if not rows or taken != 1:
        return None
    r = rows[0]
    found = ChallengeRecord(r[0], bytes(r[1]), r[2], r[3], r[4], r[5], r[6])
    return found if found.expires_at >= now else None

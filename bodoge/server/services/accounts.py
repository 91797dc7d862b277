"""Accounts, optional: a guest keeps their name with a password and/or passkeys.

A guest is a player with a token (:mod:`bodoge.server.services.identity`).  "Keep my name"
gives that same player (same id: every game and seat stays theirs) an account
name and a way to sign in again on any device: a password (argon2id, through
``argon2-cffi``) and/or passkeys (WebAuthn, through ``webauthn``).

* **Names.**  An account name is a nickname (:func:`~bodoge.server.services.identity.check_name`)
  with nothing invisible in it: no format characters at all (zero-width joiners,
  direction marks and overrides), no "blank" letters.  Two names clash when their
  keys are equal: NFKC, case folded, NFKC again, inner spaces made one
  (``"Ｈａｎａ"``, ``"hana"`` and ``"HANA"`` are one account).
* **Passwords** are hashed with argon2id (:data:`HASH_PARAMETERS`), two at a time at most,
  in threads: never on the event loop.
* **Sign-ins.**  Each sign-in gets a token of its own (its SHA-256 in ``sessions``,
  tagged with the account's generation); the guest's first token keeps working, as the
  account's first sign-in.  Each is a device the account page lists (browser, system,
  client address, first and last use: :meth:`Accounts.devices`) and may end
  (:meth:`Accounts.end_device`); one unused for ``--session-days`` expires
  (:class:`~bodoge.server.services.identity.Players`).  Signing out ends one token; "sign
  out everywhere" moves the account's generation on (every older sign-in is dead) and
  gives this device a new token.  Live WebSockets of an ended token are closed (4001).
* **Throttling.**  A password sign-in takes a token from the client address's bucket
  (every name it tries) and from the bucket of the pair (account name, address): ten
  wrong passwords from one address stop that address, not the account.  A slower
  *brake* per account (every address together) stops a guess spread over many
  addresses, but never the owner at one of their usual addresses: those the account
  signed in from (or was made at) in the last 180 days, kept in the store
  (``sign_in_addresses``, an IPv6 address by its /64), which pass the brake.  A
  successful sign-in gives its pair's and the brake's tokens back.  Passkey sign-ins
  take nothing of these (only their own per-address rate of ceremonies begun): no
  password guessing can block them.  Unknown names and wrong passwords get the same
  ``sign_in_failed`` after the same argon2 work (a dummy hash is checked) and the same
  look-ups, so neither the answer nor its time tells which names exist.
* **Passkeys.**  Discoverable credentials: signing in with a passkey names no
  account (the authenticator offers its own), so nothing there reveals a name
  either.  A ceremony's challenge is kept in the store for 5 minutes and taken (deleted)
  by the request that finishes it, so it is used once, and a ceremony begun on one
  process of a cluster (behind a round-robin balancer) finishes on another, or after a
  restart.

>>> account_key("  Ｈａｎａ  Ｋｏ ")
('Ｈａｎａ  Ｋｏ', 'hana ko')
>>> account_key("ha\\u200bna")
Traceback (most recent call last):
...
bodoge.server.services.accounts.AccountError: an account name is 1-24 characters...
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import json
import secrets
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from webauthn import (
    base64url_to_bytes,
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import bytes_to_base64url, parse_authentication_credential_json
from webauthn.helpers.exceptions import InvalidJSONStructure, WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from bodoge.server.runtime.protocol import ProtocolError, now_ms
from bodoge.server.services.devices import Device
from bodoge.server.services.identity import Player, Players, check_name, hash_token, new_token
from bodoge.server.services.quotas import Buckets
from bodoge.store import AccountRecord, AccountStore, ChallengeRecord, Conflict, PasskeyRecord

#: Passwords are 8 to 256 characters (a passphrase is welcome).
PASSWORD_CHARS = (8, 256)


class HashParameters(TypedDict):
    """argon2-cffi's ``PasswordHasher`` arguments that bodoge sets (the rest are its own)."""

    time_cost: int
    memory_cost: int
    parallelism: int


#: Argon2id at OWASP's recommended floor (19 MiB, 2 passes, 1 lane): some 90 ms of one core on
#: the busy 2-core test machine, where argon2-cffi's defaults (64 MiB, 3 passes, 4 lanes) took
#: 1.5 s.  A hash keeps its parameters, so raising them later still verifies older hashes.
HASH_PARAMETERS: HashParameters = {"time_cost": 2, "memory_cost": 19456, "parallelism": 1}
#: Password hashes computed at once (each takes a core and 19 MiB): the rest wait their turn.
HASHING_AT_ONCE = 2
#: Seconds a passkey challenge may be answered, and the most kept at once.
CHALLENGE_SECONDS = 300.0
MAX_CHALLENGES = 10_000
#: Passkeys one account may have.
MAX_PASSKEYS = 20
PASSKEY_NAME_CHARS = 40
#: An address the account signed in from this recently (ms) is one of its owner's usual ones;
#: the most recent few are kept.
USUAL_ADDRESS_MS = 180 * 86_400_000
USUAL_ADDRESSES = 16
#: The close code of a WebSocket whose token was ended.
SIGNED_OUT = 4001
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


class AccountError(Exception):
    """A refused account request: an HTTP status, a code and a message; nothing changed."""

    def __init__(self, status: int, code: str, message: str, retry: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.retry = retry


def account_key(raw: object, limit: int = 24) -> tuple[str, str]:
    """The account name as shown (spaces around it removed) and its unique key."""
    bad = AccountError(
        400, "bad_account_name", f"an account name is 1-{limit} characters with nothing invisible"
    )
    try:
        name = check_name(raw, limit)
    except ProtocolError:
        raise bad from None
    for char in name:
        kind = unicodedata.category(char)
        if kind in ("Cf", "Cc", "Co", "Cn", "Zl", "Zp") or char in _BLANK:
            raise bad
        if kind == "Zs" and char != " " and char != "\u3000":
            raise bad  # odd-width spaces: a name that looks like another
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    key = " ".join(folded.split())
    if not key:
        raise bad
    return name, key


def check_password(raw: object) -> str:
    low, high = PASSWORD_CHARS
    if not isinstance(raw, str) or not low <= len(raw) <= high or "\x00" in raw:
        raise AccountError(400, "bad_password", f"a password is {low}-{high} characters")
    return raw


@dataclass(frozen=True)
class Origin:
    """Where the page that asks runs: WebAuthn binds a passkey to the site's host name."""

    origin: str  # "https://games.example.org"
    rp_id: str  # "games.example.org"


class Kickable(Protocol):
    token_hash: str | None

    def kick(self, code: int, *, flush: bool = False) -> None: ...


class Sockets:
    """The live WebSockets of each player, so that signing out closes them (code 4001)."""

    def __init__(self) -> None:
        self._by_player: dict[str, set[Kickable]] = {}

    def enter(self, player_id: str, socket: Kickable) -> None:
        self._by_player.setdefault(player_id, set()).add(socket)

    def leave(self, player_id: str, socket: Kickable) -> None:
        held = self._by_player.get(player_id)
        if held is not None:
            held.discard(socket)
            if not held:
                del self._by_player[player_id]

    def signed_out(self, player_id: str, token_hashes: set[str] | None) -> None:
        """Close the player's sockets of these tokens (``None``: all of them)."""
        for socket in list(self._by_player.get(player_id, ())):
            if token_hashes is None or socket.token_hash in token_hashes:
                socket.kick(SIGNED_OUT)


class Accounts:
    """Every account operation, free of HTTP (:mod:`bodoge.server.edge.account_api` serves them)."""

    def __init__(
        self,
        store: AccountStore,
        players: Players,
        *,
        sign_ins_per_hour: int = 30,
        sign_ins_per_account_hour: int = 10,
        sign_in_brake_per_hour: int = 30,
        on_sign_out: Callable[[str, set[str] | None], None] | None = None,
        hasher: PasswordHasher | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], int] = now_ms,
    ) -> None:
        self.store = store
        self.players = players
        self.hasher = hasher or PasswordHasher(**HASH_PARAMETERS)
        self._hashing = asyncio.Semaphore(HASHING_AT_ONCE)
        #: Password sign-ins (and accounts made) per client address; per account name and
        #: address; per account name from any address but its owner's usual ones (the brake).
        self.by_address = Buckets(sign_ins_per_hour, clock=clock, name="sign_ins")
        self.by_account = Buckets(sign_ins_per_account_hour, clock=clock, name="account_sign_ins")
        self.brake = Buckets(sign_in_brake_per_hour, clock=clock, name="account_brake")
        #: Passkey sign-ins begun per client address: apart, so passwords never block them.
        self.passkey_rate = Buckets(sign_ins_per_hour, clock=clock, name="passkey_sign_ins")
        #: Told (player id, ended token hashes; ``None``: all) so live sockets can be closed.
        self.on_sign_out = on_sign_out
        #: The wall clock (ms) of challenges' expiry: every process of a cluster shares it.
        self._wall = wall
        self._dummy: str | None = None

    # --- what an account is -----------------------------------------------------------

    async def describe(self, player: Player, token: str = "") -> dict[str, Any]:
        """The player's account as its page shows it; ``token``: this device's."""
        account = await self.store.account(player.id)
        if account is None:
            return {"player": player.to_json(), "account": None}
        keys = await self.store.passkeys(player.id)
        return {
            "player": player.to_json(),
            "account": {
                "name": account.name,
                "password": account.password_hash is not None,
                "passkeys": [
                    {"id": k.id, "name": k.name, "created_at": k.created_at, "used_at": k.used_at}
                    for k in keys
                ],
                "devices": await self.devices(player, token),
                "session_days": self.players.session_ms / 86_400_000,
            },
        }

    async def devices(self, player: Player, token: str) -> list[dict[str, Any]]:
        """The account's sign-ins that have not expired, the most recently used first:
        each a device, ``this`` the one of ``token``."""
        mine = hash_token(token)
        return [
            {
                "id": device_id(s.token_hash),
                "browser": s.seen.browser,
                "system": s.seen.system,
                "address": s.seen.address,
                "first_seen": s.created_at,
                "last_seen": s.seen.at,
                "this": s.token_hash == mine,
            }
            for s in await self.store.sessions(player.id, self.players.used_since())
        ]

    async def end_device(self, player: Player, token: str, chosen: object) -> None:
        """Sign another device out: its token names nobody, its WebSockets are closed."""
        await self._need_account(player)
        found = [
            s.token_hash
            for s in await self.store.sessions(player.id, self.players.used_since())
            if device_id(s.token_hash) == chosen
        ]
        if not found:
            raise AccountError(404, "unknown_device", "no device of yours has this id")
        if found[0] == hash_token(token):
            raise AccountError(409, "this_device", "sign out to end this device's sign-in")
        await self._end(player, found[0])

    async def _need_account(self, player: Player) -> AccountRecord:
        account = await self.store.account(player.id)
        if account is None:
            raise AccountError(409, "not_an_account", "keep your name first")
        return account

    async def _hash(self, password: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, password_hash: str | None, password: str) -> bool:
        """Whether ``password`` matches; with no hash, the same work against a dummy one."""
        if self._dummy is None:
            self._dummy = await self._hash(secrets.token_urlsafe(16))
        target = password_hash or self._dummy
        try:
            async with self._hashing:
                await asyncio.to_thread(self.hasher.verify, target, password)
        except (VerificationError, InvalidHashError):
            return False
        return password_hash is not None

    @property
    def buckets(self) -> tuple[Buckets, ...]:
        """Every rate of sign-ins (a cluster counts them in Redis)."""
        return self.by_address, self.by_account, self.brake, self.passkey_rate

    async def _throttle(self, address: str, key: str | None) -> bool:
        """Take this try's tokens, or refuse it (nothing taken); whether the brake's was."""
        await _take(self.by_address, address)
        if key is None:
            return False
        place = usual_place(address)
        # Looked up for every name tried, existing or not: the same work either way.
        usual = await self.store.knows_address(key, place, self._wall() - USUAL_ADDRESS_MS)
        pair = f"{key}\n{place}"
        try:
            await _take(self.by_account, pair)
        except AccountError:
            self.by_address.give_back(address)
            raise
        if usual:
            return False
        try:
            await _take(self.brake, key)
        except AccountError:
            self.by_address.give_back(address)
            self.by_account.give_back(pair)
            raise
        return True

    async def _note_address(self, player_id: str, address: str) -> None:
        """The owner signed in (or made the account) here: one of their usual addresses."""
        if address:
            await self.store.note_address(
                player_id, usual_place(address), self._wall(), USUAL_ADDRESSES
            )

    # --- keeping a name, passwords ----------------------------------------------------

    async def keep_name(
        self, player: Player, device: Device, name: object, password: object
    ) -> None:
        """The guest becomes an account with a password (a passkey: :meth:`register`); the
        token they began with, this device's, is the account's first sign-in."""
        shown, key = account_key(name)
        secret = check_password(password)
        if await self.store.account(player.id) is not None:
            raise AccountError(409, "already_an_account", "you have kept your name already")
        # Names tried per address: no quick list of who exists.
        await self._throttle(device.address, None)
        await self._make(player, device, shown, key, await self._hash(secret))
        await self._note_address(player.id, device.address)

    async def _make(
        self, player: Player, device: Device, shown: str, key: str, password_hash: str | None
    ) -> None:
        first = device.seen(self._wall())
        try:
            await self.store.make_account(player.id, shown, key, password_hash, first)
        except Conflict:
            raise AccountError(409, "name_taken", "this account name is taken") from None
        if await self.store.account(player.id) is None:  # made an account meanwhile elsewhere
            raise AccountError(409, "already_an_account", "you have kept your name already")

    async def change_password(self, player: Player, old: object, new: object) -> None:
        """Set or change the password; changing one needs the old one."""
        account = await self._need_account(player)
        secret = check_password(new)
        if account.password_hash is not None and (
            not isinstance(old, str) or not await self._verify(account.password_hash, old)
        ):
            raise AccountError(403, "wrong_password", "the current password is not this")
        await self.store.set_password(player.id, await self._hash(secret))

    async def remove_password(self, player: Player) -> None:
        """Passkeys only from now on (refused without a passkey: no way back in)."""
        await self._need_account(player)
        if not await self.store.passkeys(player.id):
            raise AccountError(409, "last_sign_in", "add a passkey before removing the password")
        await self.store.set_password(player.id, None)

    # --- signing in and out -----------------------------------------------------------

    async def sign_in(self, device: Device, name: object, password: object) -> tuple[Player, str]:
        """A new token for the account, if ``password`` is its password."""
        failed = AccountError(401, "sign_in_failed", "no account has this name and password")
        try:
            _, key = account_key(name)
        except AccountError:
            key = None
        braked = await self._throttle(device.address, key)
        account = await self.store.account_by_key(key) if key is not None else None
        given = password if isinstance(password, str) else ""
        matches = await self._verify(account.password_hash if account else None, given)
        if account is None or not matches:
            raise failed
        assert key is not None  # an account was found by it
        self.by_account.give_back(f"{key}\n{usual_place(device.address)}")
        if braked:
            self.brake.give_back(key)
        await self._note_address(account.player.id, device.address)
        return await self._issue(account, device)

    async def _issue(self, account: AccountRecord, device: Device) -> tuple[Player, str]:
        token = new_token()
        seen = device.seen(self._wall())
        await self.store.add_session(hash_token(token), account.player.id, account.generation, seen)
        return self.players.remember_token(account.player, hash_token(token)), token

    async def sign_out(self, player: Player, token: str) -> None:
        """This token names nobody from now on (the player stays; sign in to be them again)."""
        await self._need_account(player)
        await self._end(player, hash_token(token))

    async def _end(self, player: Player, digest: str) -> None:
        await self.store.end_session(digest, hash_token(new_token()))
        self.players.forget_tokens({digest})
        if self.on_sign_out is not None:
            self.on_sign_out(player.id, {digest})

    async def sign_out_everywhere(self, player: Player, device: Device) -> str:
        """Every sign-in of the account ends; this device gets a new token."""
        account = await self._need_account(player)
        generation = account.generation + 1
        await self.store.end_sessions(player.id, generation, hash_token(new_token()))
        self.players.forget_player_tokens(player.id)
        if self.on_sign_out is not None:
            self.on_sign_out(player.id, None)
        _, token = await self._issue(
            AccountRecord(account.player, account.name, account.key, None, generation), device
        )
        return token

    # --- passkeys -----------------------------------------------------------------------

    async def _new_challenge(
        self, purpose: str, player: str | None, name: str | None, rp_id: str
    ) -> tuple[str, bytes]:
        now = self._wall()
        challenge = secrets.token_bytes(32)
        cid = secrets.token_urlsafe(16)
        expires = now + round(CHALLENGE_SECONDS * 1000)
        record = ChallengeRecord(cid, challenge, purpose, player, name, rp_id, expires)
        if not await self.store.add_challenge(record, now, MAX_CHALLENGES):
            raise AccountError(503, "busy", "too many sign-ins at once; try again soon")
        return cid, challenge

    async def _take_challenge(self, cid: object, purpose: str, rp_id: str) -> ChallengeRecord:
        found = None
        if isinstance(cid, str) and 0 < len(cid) <= 64:
            found = await self.store.take_challenge(cid, self._wall())
        if found is None or found.purpose != purpose or found.rp_id != rp_id:
            raise AccountError(400, "bad_challenge", "ask for new passkey options and try again")
        return found

    async def registration_options(
        self, player: Player, origin: Origin, name: object = None
    ) -> dict[str, Any]:
        """Options for ``navigator.credentials.create``: a guest names the account to make."""
        account = await self.store.account(player.id)
        if account is None:
            shown, key = account_key(name)
            if await self.store.account_by_key(key) is not None:
                raise AccountError(409, "name_taken", "this account name is taken")
            existing: list[PasskeyRecord] = []
        else:
            shown, key = account.name, account.key
            existing = await self.store.passkeys(player.id)
            if len(existing) >= MAX_PASSKEYS:
                raise AccountError(409, "too_many_passkeys", f"{MAX_PASSKEYS} passkeys at most")
        cid, challenge = await self._new_challenge(
            purpose="register",
            player=player.id,
            name=None if account else shown,
            rp_id=origin.rp_id,
        )
        options = generate_registration_options(
            rp_id=origin.rp_id,
            rp_name="bodoge",
            user_id=player.id.encode(),
            user_name=shown,
            user_display_name=shown,
            challenge=challenge,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=_unb64(k.id)) for k in existing],
        )
        return {"challenge": cid, "publicKey": _json(options)}

    async def register(
        self,
        player: Player,
        origin: Origin,
        cid: object,
        credential: object,
        label: object,
        device: Device | None = None,
    ) -> None:
        """Store the new passkey (and, for a guest, make the account it was asked for)."""
        found = await self._take_challenge(cid, "register", origin.rp_id)
        if found.player != player.id:
            raise AccountError(400, "bad_challenge", "ask for new passkey options and try again")
        try:
            verified = verify_registration_response(
                credential=credential,  # type: ignore[arg-type]
                expected_challenge=found.challenge,
                expected_rp_id=origin.rp_id,
                expected_origin=origin.origin,
            )
        except (WebAuthnException, InvalidJSONStructure, ValueError, TypeError, KeyError) as exc:
            raise AccountError(400, "bad_passkey", f"the passkey was not accepted: {exc}") from None
        shown = _label(label)
        # A guest keeps their name with this passkey.
        if found.name is not None and await self.store.account(player.id) is None:
            _, key = account_key(found.name)
            await self._make(player, device or Device(), found.name, key, None)
        try:
            await self.store.add_passkey(
                PasskeyRecord(
                    id=bytes_to_base64url(verified.credential_id),
                    player=player.id,
                    public_key=verified.credential_public_key,
                    sign_count=verified.sign_count,
                    name=shown,
                    created_at=now_ms(),
                )
            )
        except Conflict:
            raise AccountError(409, "bad_passkey", "this passkey is registered already") from None

    async def remove_passkey(self, player: Player, credential_id: object) -> None:
        account = await self._need_account(player)
        keys = await self.store.passkeys(player.id)
        if not any(k.id == credential_id for k in keys):
            raise AccountError(404, "unknown_passkey", "you have no such passkey")
        if len(keys) == 1 and account.password_hash is None:
            raise AccountError(409, "last_sign_in", "set a password before removing this passkey")
        await self.store.delete_passkey(player.id, str(credential_id))

    async def authentication_options(self, address: str, origin: Origin) -> dict[str, Any]:
        """Options for ``navigator.credentials.get``: any passkey of this site will do."""
        await _take(self.passkey_rate, address)
        cid, challenge = await self._new_challenge(
            purpose="sign_in", player=None, name=None, rp_id=origin.rp_id
        )
        options = generate_authentication_options(
            rp_id=origin.rp_id,
            challenge=challenge,
            user_verification=UserVerificationRequirement.PREFERRED,
        )
        return {"challenge": cid, "publicKey": _json(options)}

    async def authenticate(
        self, origin: Origin, cid: object, credential: object, device: Device | None = None
    ) -> tuple[Player, str]:
        """A new token for the passkey's account."""
        found = await self._take_challenge(cid, "sign_in", origin.rp_id)
        failed = AccountError(401, "sign_in_failed", "this passkey signs nobody in here")
        try:
            parsed = parse_authentication_credential_json(credential)  # type: ignore[arg-type]
        except (WebAuthnException, InvalidJSONStructure, ValueError, TypeError, KeyError):
            raise failed from None
        passkey = await self.store.passkey(bytes_to_base64url(parsed.raw_id))
        if passkey is None:
            raise failed
        try:
            verified = verify_authentication_response(
                credential=parsed,
                expected_challenge=found.challenge,
                expected_rp_id=origin.rp_id,
                expected_origin=origin.origin,
                credential_public_key=passkey.public_key,
                credential_current_sign_count=passkey.sign_count,
            )
        except (WebAuthnException, InvalidJSONStructure, ValueError, TypeError, KeyError):
            raise failed from None
        handle = parsed.response.user_handle
        if handle is not None and handle != passkey.player.encode():
            raise failed
        account = await self.store.account(passkey.player)
        if account is None:
            raise failed
        await self.store.use_passkey(passkey.id, verified.new_sign_count, now_ms())
        device = device or Device()
        await self._note_address(account.player.id, device.address)
        return await self._issue(account, device)


def device_id(token_hash: str) -> str:
    """A sign-in's id on the account page: not its token's hash, which is the store's key."""
    return hashlib.sha256(f"device:{token_hash}".encode()).hexdigest()[:16]


def usual_place(address: str) -> str:
    """Where a client is, as the brake remembers it: an IPv4 address as it is, an IPv6
    address as its /64 network (a host's privacy addresses change within it).

    >>> usual_place("203.0.113.9"), usual_place("2001:db8:1:2:a:b:c:d")
    ('203.0.113.9', '2001:db8:1:2::/64')
    >>> usual_place("::ffff:203.0.113.9"), usual_place("not an address")
    ('203.0.113.9', 'not an address')
    >>> usual_place("not an address")
    'not an address'
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


async def _take(buckets: Buckets, key: str) -> None:
    wait = await buckets.try_take(key)
    if wait:
        raise AccountError(
            429, "sign_in_rate_limited", f"too many tries; the next one in {wait} s", wait
        )


def _label(raw: object) -> str:
    if raw is None or raw == "":
        return "passkey"
    try:
        return check_name(raw, PASSKEY_NAME_CHARS)
    except ProtocolError:
        raise AccountError(
            400, "bad_passkey_name", f"a passkey's name is 1-{PASSKEY_NAME_CHARS} characters"
        ) from None


def _json(options: Any) -> Any:
    return json.loads(options_to_json(options))


def _unb64(text: str) -> bytes:
    return base64url_to_bytes(text)

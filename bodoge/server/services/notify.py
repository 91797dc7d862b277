"""Notifications: e-mail and Web Push for people who are not looking at the page.

:class:`Notifier` is the tables' ``TurnNotifier`` (``bodoge/server/runtime/notify.py``)
and what the account page changes (an address and its verification, the kinds wanted, a
daily digest, a browser's push subscription).

**Off the move's path.** A table's call is awaited by a background job, never by a move,
and only writes the notification to the store's outbox (``notify_outbox``), due ``grace``
from now; a drain task on every process sends what is due.  A failed send is tried again
later (doubling back-off, ``attempts`` at most); a permanent refusal (an SMTP 5xx, a push
service's 404/410, which also removes the subscription) is not.

**Once.** A notification's key is ``kind:player:table:turn:channel``: a turn announced
twice (a restart, another process taking the table over) is stored once.  A row is sent by
the process that claimed it (a conditional ``UPDATE``, :mod:`bodoge.store.notifications`),
and a claim lasts ``lease`` so that a process that died holding one leaves it to another.
E-mail and the digest share one key per turn: one e-mail per game per turn at most.

**Not while watching.** Nobody is told about a table they have open: not when it is
announced, nor when it is due (where the table runs, ``watching`` knows).  In a cluster
only the table's owner (``tables.owner``) knows, so a row of a table another process runs
is left to that process, and claimed by another only once it has been due ``lease`` (the
owner died and nobody took the table over).

**Only while it is one's turn.** A turn is told ``grace`` after it begins, or, if it began
during the person's vacation, ``grace`` after the vacation ends (ended early: from then,
:meth:`Notifier.vacation_ended`).  At sending time a turn that is no longer running (the
person moved within the grace from another device, the game ended) is dropped: the store
says whether the table still plays with that deadline on the person's seat.

**Links.** The verification and unsubscribe links carry a token signed with the server's
key (HMAC-SHA256, kept in ``server_secrets``): they work without signing in, name one
person and one address, and a verification expires after two days.  The unsubscribe link
of every e-mail is also its RFC 8058 ``List-Unsubscribe`` (one click, a ``POST``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from email.errors import HeaderParseError
from email.headerregistry import Address
from typing import Any, Protocol

from bodoge.server.runtime.clock import clock as server_clock
from bodoge.server.runtime.notify import Final
from bodoge.server.runtime.protocol import now_ms
from bodoge.server.services.accounts import AccountError
from bodoge.server.services.mail import Mail, Mailer, permanent
from bodoge.server.services.notify_texts import Ending, compose, lang_of, push_text
from bodoge.server.services.push import Pusher, PushGone, make_vapid_pem
from bodoge.store import (
    NotifySettings,
    NotifyStore,
    OutboxItem,
    PlayerStore,
    PushSubscription,
    is_unavailable,
)

log = logging.getLogger(__name__)

#: Each kind of notification and the choice that turns it on.
CHOICE = {"turn": "my_turn", "ended": "game_ended", "invited": "invited"}
CHOICES = ("my_turn", "game_ended", "invited", "digest")
HOUR_MS = 3600 * 1000
DAY_MS = 24 * HOUR_MS
#: A verification link works this long.
VERIFY_MS = 2 * DAY_MS
#: One verification e-mail per address in this window: a button pressed twice sends one.
VERIFY_WINDOW_MS = 10 * 60 * 1000
MAX_EMAIL = 254
MAX_ENDPOINT = 2048
MAX_KEY = 200
#: The longest a push service keeps a message for a device that is off (seconds): four
#: weeks, the most the big push services keep one anyway.
MAX_TTL = 28 * 24 * 3600


@dataclass(frozen=True)
class NotifyTimes:
    """How long things wait (ms), and how often the outbox is read (s)."""

    #: From a table's call to the notification being due: a person who opens the table in
    #: the meantime is not told.
    grace_ms: int = 30_000
    poll_seconds: float = 5.0
    #: The first retry's wait; each next one doubles, up to ``retry_max_ms``.
    retry_ms: int = 30_000
    retry_max_ms: int = 6 * HOUR_MS
    attempts: int = 8
    #: A process holds a claimed row this long before another may take it.
    lease_ms: int = 120_000
    #: A digest goes this long after the oldest thing it tells.
    digest_ms: int = DAY_MS
    #: Sent rows are kept this long (what "sent once" remembers).
    keep_ms: int = 30 * DAY_MS
    #: Web Push subscriptions kept per person (their newest devices).
    push_per_player: int = 10


class Links:
    """Signed tokens of e-mail links: ``payload.mac``, both base64url.

    >>> links = Links(b"k" * 32)
    >>> token = links.make("unsub", "p_1", "a@example.org", "en", None)
    >>> links.read(token, "unsub", 0)["e"]
    'a@example.org'
    >>> links.read(token, "verify", 0) is None, links.read(token[:-2] + "AA", "unsub", 0)
    (True, None)
    """

    def __init__(self, key: bytes) -> None:
        self.key = key

    def _mac(self, body: bytes) -> str:
        digest = hmac.new(self.key, body, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    def make(self, use: str, player: str, email: str, lang: str, expires: int | None) -> str:
        payload = {"u": use, "p": player, "e": email, "l": lang, "x": expires}
        body = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode())
        text = body.rstrip(b"=")
        return f"{text.decode()}.{self._mac(text)}"

    def read(self, token: str, use: str, now: int) -> dict[str, Any] | None:
        """The payload if the token is ours, for ``use`` and unexpired; else ``None``."""
        body, _, mac = token.partition(".")
        if not body or not hmac.compare_digest(self._mac(body.encode()), mac):
            return None
        try:
            payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        except ValueError:
            return None
        if not isinstance(payload, dict) or payload.get("u") != use:
            return None
        expires = payload.get("x")
        if expires is not None and (not isinstance(expires, int) or expires < now):
            return None
        return payload


def _digest_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def check_email(raw: object) -> str:
    """An address as typed, if it is one (``local@domain``, nothing a header could hide).

    >>> check_email(" hana@example.org ")
    'hana@example.org'
    >>> check_email("hana@example.org\\r\\nBcc: x@y")
    Traceback (most recent call last):
    ...
    bodoge.server.services.accounts.AccountError: an e-mail address is name@domain
    """
    bad = AccountError(400, "bad_email", "an e-mail address is name@domain")
    if not isinstance(raw, str):
        raise bad
    text = raw.strip()
    if not text or len(text) > MAX_EMAIL or any(c.isspace() or ord(c) < 32 for c in text):
        raise bad
    try:
        address = Address(addr_spec=text)
    except (HeaderParseError, ValueError, IndexError):
        raise bad from None
    if not address.username or "." not in address.domain or address.addr_spec != text:
        raise bad
    return text


class NotifierStore(NotifyStore, PlayerStore, Protocol):
    """What the notifier keeps, and the players' names (an invitation says who sent it)."""


class Notifier:
    """The tables' notifier and the account page's notification settings."""

    def __init__(
        self,
        store: NotifierStore,
        *,
        site: str,
        process: str,
        titles: Mapping[str, Mapping[str, str]],
        watching: Callable[[str, str], bool],
        is_account: Callable[[str], Any],
        mailer: Mailer | None = None,
        push: bool = True,
        contact: str = "mailto:admin@localhost",
        clock: Callable[[], int] = now_ms,
        times: NotifyTimes | None = None,
        local_push: bool = False,
        turn_running: Callable[[str, str, int], Awaitable[bool]] | None = None,
    ) -> None:
        self.store = store
        #: Whether a person's turn (table, player, deadline) still runs, asked at sending
        #: time (the wiring gives the store's answer); ``None``: every turn is taken to run.
        self.turn_running = turn_running
        self.site = site.rstrip("/")
        self.process = process
        self.titles = titles
        self.watching = watching
        self.is_account = is_account
        self.mailer = mailer
        self.push_on = push
        self.contact = contact
        self.clock = clock
        self.times = times or NotifyTimes()
        #: Accept loopback push endpoints (tests standing in for a push service).
        self.local_push = local_push
        self.links: Links | None = None
        self.pusher: Pusher | None = None
        self._wake = asyncio.Event()
        self._drainer: asyncio.Task[None] | None = None
        self._pruned_at = 0
        #: Calls and drains under way (:attr:`busy`).
        self._working = 0
        #: What the drain did, for tests and ``/api/stats``: sent, retried, given up, skipped.
        self.counts = {"sent": 0, "retried": 0, "failed": 0, "skipped": 0}

    async def start(self, *, drain: bool = True) -> None:
        """Read (or make) the keys; ``drain``: send what comes due from now on, in a task
        (a test that calls :meth:`drain` itself says ``False``)."""
        now = self.clock()
        key = await self.store.secret("links", lambda: secrets.token_hex(32), now)
        self.links = Links(bytes.fromhex(key))
        if self.push_on:
            pem = await self.store.secret("vapid", make_vapid_pem, now)
            self.pusher = Pusher.from_pem(pem, self.contact)
        if drain:
            self._drainer = asyncio.create_task(self._drain_loop(), name="notify-drain")

    @property
    def busy(self) -> bool:
        """Whether a table's call is being stored or a drain is due or under way (a test
        clock waits until none is before moving on, as time would)."""
        return self._working > 0 or (self._drainer is not None and self._wake.is_set())

    async def stop(self) -> None:
        if self._drainer is not None:
            self._drainer.cancel()
            await asyncio.gather(self._drainer, return_exceptions=True)

    # --- the tables' port ------------------------------------------------------------------
    # ``TurnNotifier`` (bodoge/server/runtime/notify.py): each call is awaited by a background
    # job of the table, never by its move, and only writes to the outbox.

    async def your_turn(
        self, player_id: str, table_id: str, game: str, deadline: int, after: int | None = None
    ) -> None:
        # The deadline names the turn: a turn announced again (a restart, a takeover) has
        # the same one, the next turn another.
        await self._announce(
            "turn", player_id, table_id, game, str(deadline), deadline=deadline, after=after
        )

    async def vacation_ended(self, player_id: str) -> None:
        """The person ended their vacation early: the turns kept for its end are told now
        (after the grace).  Kept in the outbox, so whichever process sends them, and a
        restart, see it."""
        self._working += 1
        try:
            due = self.clock() + self.times.grace_ms
            if await self.store.outbox_hasten(player_id, "turn", due):
                self._wake_at(due)
        finally:
            self._working -= 1

    async def game_ended(
        self, player_id: str, table_id: str, game: str, seat: int, final: Final
    ) -> None:
        # The row keeps the standings, not words: each person is told in their language at
        # sending time.
        ending = Ending(
            seat, tuple((s.name, s.place) for s in final.standings), final.abandoned
        ).to_json()
        await self._announce(
            "ended", player_id, table_id, game, "end", place=final.place(seat), ending=ending
        )

    async def invited(self, player_id: str, table_id: str, game: str, by: str) -> None:
        """``by`` (a player's id) invited ``player_id`` to ``table_id``."""
        found = await self.store.players([by])
        name = found[by].name if by in found else ""
        await self._announce("invited", player_id, table_id, game, "invite", by=name)

    async def _announce(
        self,
        kind: str,
        player_id: str,
        table_id: str,
        game: str,
        turn: str,
        *,
        deadline: int | None = None,
        by: str = "",
        place: int | None = None,
        after: int | None = None,
        ending: dict[str, Any] | None = None,
    ) -> None:
        if self.watching(player_id, table_id):
            return
        payload = {"game": game, "by": by, "deadline": deadline, "place": place, **(ending or {})}
        self._working += 1
        try:
            await self._enqueue(kind, player_id, table_id, turn, payload, after)
        finally:
            self._working -= 1

    async def _enqueue(
        self,
        kind: str,
        player_id: str,
        table_id: str,
        turn: str,
        payload: dict[str, Any],
        after: int | None = None,
    ) -> None:
        settings = await self.store.notify_settings(player_id) or NotifySettings(player_id)
        if not getattr(settings, CHOICE[kind]):
            return
        now = self.clock()
        # A turn begun on the person's vacation is told when it ends (``after``).
        due = max(now, after or 0) + self.times.grace_ms
        base = f"{kind}:{player_id}:{table_id}:{turn}"
        items: list[OutboxItem] = []
        if self.mailer is not None and settings.verified_email:
            channel = "digest" if settings.digest else "mail"
            items.append(
                OutboxItem(f"{base}:mail", player_id, channel, kind, table_id, payload, now, due)
            )
        if self.pusher is not None:
            for sub in await self.store.push_subscriptions(player_id):
                key = f"{base}:push:{_digest_of(sub.endpoint)}"
                shown = {**payload, "endpoint": sub.endpoint}
                items.append(OutboxItem(key, player_id, "push", kind, table_id, shown, now, due))
        if items:
            await self.store.enqueue(items)
            # The drain looks again when these come due, not a poll later (also when they
            # were stored before: a turn told again after a restart wakes the new drain).
            self._wake_at(due)

    def _wake_at(self, due: int) -> None:
        if self.clock is now_ms:
            # On the server's clock, whose "now" the due time is: a test's ManualClock
            # living through days sends each notification when its simulated time comes.
            server_clock().call_at(due, self._wake.set)
        else:
            wait = max(0, due - self.clock()) / 1000
            asyncio.get_running_loop().call_later(wait, self._wake.set)

    # --- the drain -------------------------------------------------------------------------

    async def _drain_loop(self) -> None:
        while True:
            try:
                await self.drain()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if is_unavailable(exc):  # the database gone away: the next round tries again
                    log.warning("sending notifications waits for the database: %s", exc)
                else:
                    log.warning("sending notifications failed", exc_info=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.times.poll_seconds)
            self._wake.clear()

    async def drain(self) -> int:
        """Send what is due now and nobody holds; how many were handled."""
        self._working += 1
        try:
            return await self._drain()
        finally:
            self._working -= 1

    async def _drain(self) -> int:
        t = self.times
        now = self.clock()
        handled = 0
        while True:
            until = now + t.lease_ms
            # A table's owner alone knows whether the person has it open (``watching``): its
            # rows are the owner's to send, another's only once the owner seems gone.
            items = await self.store.claim_due(
                now, until, self.process, 20, ("mail", "push"), owner_first_ms=t.lease_ms
            )
            for item in items:
                await self._send(item)
            handled += len(items)
            if len(items) < 20:
                break
        for player in await self.store.digests_due(now - t.digest_ms, now):
            batch = await self.store.claim_digest(player, now, now + t.lease_ms, self.process)
            if batch:
                await self._send_digest(player, batch)
                handled += len(batch)
        if now - self._pruned_at > HOUR_MS:
            self._pruned_at = now
            await self.store.prune_outbox(now - t.keep_ms)
        return handled

    async def _finish(self, items: list[OutboxItem], error: BaseException | str | None) -> None:
        keys = [i.key for i in items]
        now = self.clock()
        if error is None:
            self.counts["sent"] += 1
            await self.store.outbox_sent(keys, self.process, now)
            return
        attempts = max(i.attempts for i in items)
        final = isinstance(error, str) or permanent(error) or attempts >= self.times.attempts
        if final:
            self.counts["skipped" if isinstance(error, str) else "failed"] += 1
            await self.store.outbox_retry(keys, self.process, None, str(error), now)
            return
        self.counts["retried"] += 1
        wait = min(self.times.retry_ms * 2 ** max(attempts - 1, 0), self.times.retry_max_ms)
        await self.store.outbox_retry(keys, self.process, now + wait, repr(error), now)

    async def _send(self, item: OutboxItem) -> None:
        if (
            item.kind in CHOICE
            and item.table_id is not None
            and self.watching(item.player, item.table_id)
        ):
            await self._finish([item], "not sent: the person had the table open")
            return
        deadline = item.payload.get("deadline")
        if (
            item.kind == "turn"
            and item.table_id is not None
            and isinstance(deadline, int)
            and self.turn_running is not None
            and not await self.turn_running(item.table_id, item.player, deadline)
        ):
            # Moved within the grace without the table open (another device, the stand-in,
            # the game ended): the turn is over, and a mail about it would be a false alarm.
            await self._finish([item], "not sent: the turn is over")
            return
        try:
            if item.channel == "push":
                skipped = await self._push(item)
            else:
                skipped = await self._mail(item)
        except Exception as exc:  # PushFailed, an SMTP error, a connection lost
            log.info("sending %s failed: %r", item.key, exc)
            await self._finish([item], exc)
            return
        await self._finish([item], skipped)

    def _title(self, game: str, lang: str) -> str:
        titles = self.titles.get(game, {})
        return titles.get(lang) or titles.get("en") or game

    async def _mail(self, item: OutboxItem) -> str | None:
        assert self.mailer is not None and self.links is not None
        settings = await self.store.notify_settings(item.player)
        p = item.payload
        if item.kind == "verify":
            if settings is None or settings.email != p["to"]:
                return "not sent: the address changed"
            body = compose(settings.lang, "verify", site=self.site, link=p["link"])
            await self.mailer.send(Mail(p["to"], body.subject, body.text, body.html, settings.lang))
            return None
        if (
            settings is None
            or not settings.verified_email
            or not getattr(settings, CHOICE[item.kind])
        ):
            return "not sent: no longer wanted"
        lang = settings.lang
        unsubscribe = self._unsubscribe_url(settings)
        body = compose(
            lang,
            item.kind,
            site=self.site,
            table_id=item.table_id,
            game=self._title(p["game"], lang),
            by=p.get("by", ""),
            deadline=p.get("deadline"),
            unsubscribe=unsubscribe,
            ending=Ending.of(p) if item.kind == "ended" else None,
        )
        await self.mailer.send(self._mail_to(settings, body, unsubscribe))
        return None

    def _unsubscribe_url(self, settings: NotifySettings) -> str:
        assert self.links is not None and settings.email is not None
        token = self.links.make("unsub", settings.player, settings.email, settings.lang, None)
        return f"{self.site}/unsubscribe/{token}"

    def _mail_to(self, settings: NotifySettings, body: Any, unsubscribe: str) -> Mail:
        assert settings.email is not None
        headers = (
            ("List-Unsubscribe", f"<{unsubscribe}>"),
            ("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"),
        )
        return Mail(settings.email, body.subject, body.text, body.html, settings.lang, headers)

    async def _send_digest(self, player_id: str, batch: list[OutboxItem]) -> None:
        settings = await self.store.notify_settings(player_id)
        if self.mailer is None or settings is None or not settings.verified_email:
            await self._finish(batch, "not sent: no verified address")
            return
        lang = settings.lang
        items = [
            (
                i.kind,
                i.table_id or "",
                self._title(i.payload["game"], lang),
                i.payload["by"],
                Ending.of(i.payload) if i.kind == "ended" else None,
            )
            for i in batch
        ]
        unsubscribe = self._unsubscribe_url(settings)
        body = compose(lang, "digest", site=self.site, items=items, unsubscribe=unsubscribe)
        try:
            await self.mailer.send(self._mail_to(settings, body, unsubscribe))
        except Exception as exc:
            await self._finish(batch, exc)
            return
        await self._finish(batch, None)

    async def _push(self, item: OutboxItem) -> str | None:
        assert self.pusher is not None
        p = item.payload
        subs = await self.store.push_subscriptions(item.player)
        sub = next((s for s in subs if s.endpoint == p["endpoint"]), None)
        if sub is None:
            return "not sent: the subscription is gone"
        settings = await self.store.notify_settings(item.player) or NotifySettings(item.player)
        if not getattr(settings, CHOICE[item.kind]):
            return "not sent: no longer wanted"
        title, text = push_text(
            sub.lang,
            item.kind,
            game=self._title(p["game"], sub.lang),
            by=p.get("by", ""),
            ending=Ending.of(p) if item.kind == "ended" else None,
        )
        message = {
            "title": title,
            "body": text,
            "url": f"/t/{item.table_id}",
            "tag": f"bodoge-{item.table_id}",
            "kind": item.kind,
        }
        deadline = p.get("deadline")
        now = self.clock()
        ttl = (deadline - now) // 1000 if isinstance(deadline, int) else DAY_MS // 1000
        try:
            await self.pusher.send(sub, message, ttl=min(max(60, ttl), MAX_TTL))
        except PushGone:
            await self.store.remove_push_subscription(sub.endpoint, None)
            return "not sent: the push service forgot the subscription (removed)"
        return None

    # --- what the account page changes ----------------------------------------------------

    async def settings(self, player_id: str) -> NotifySettings:
        return await self.store.notify_settings(player_id) or NotifySettings(player_id)

    async def describe(self, player_id: str) -> dict[str, Any]:
        s = await self.settings(player_id)
        devices = await self.store.push_subscriptions(player_id)
        return {
            "mail": self.mailer is not None,
            "email": s.email,
            "verified": s.verified_email is not None,
            "lang": s.lang,
            "choices": {c: getattr(s, c) for c in CHOICES},
            "push": {
                "key": self.pusher.public_key if self.pusher else None,
                "devices": len(devices),
            },
        }

    async def set_email(self, player_id: str, raw: object, lang: object) -> None:
        if self.mailer is None:
            raise AccountError(409, "no_mail", "this server sends no e-mail")
        if not await self.is_account(player_id):
            raise AccountError(409, "not_an_account", "keep your name first")
        email = check_email(raw)
        now = self.clock()
        s = await self.settings(player_id)
        language = lang_of(lang) if lang is not None else s.lang
        same = s.email is not None and s.email.casefold() == email.casefold()
        kept = replace(
            s,
            email=email,
            lang=language,
            email_verified_at=s.email_verified_at if same else None,
        )
        await self.store.save_notify_settings(kept, now)
        if kept.verified_email:
            return
        assert self.links is not None
        token = self.links.make("verify", player_id, email, language, now + VERIFY_MS)
        payload = {"to": email, "link": f"{self.site}/verify-email/{token}"}
        key = f"verify:{player_id}:{_digest_of(email)}:{now // VERIFY_WINDOW_MS}"
        item = OutboxItem(key, player_id, "mail", "verify", None, payload, now, now)
        if not await self.store.enqueue([item]):
            raise AccountError(
                429,
                "rate_limited",
                "a confirmation was sent to this address a moment ago: look for it",
                retry=VERIFY_WINDOW_MS // 1000,
            )
        self._wake.set()

    async def remove_email(self, player_id: str) -> None:
        s = await self.settings(player_id)
        await self.store.save_notify_settings(
            replace(s, email=None, email_verified_at=None), self.clock()
        )

    async def set_choices(self, player_id: str, body: Mapping[str, Any]) -> None:
        s = await self.settings(player_id)
        changes: dict[str, Any] = {}
        for name, value in body.items():
            if name in CHOICES:
                if not isinstance(value, bool):
                    raise AccountError(400, "bad_request", f"{name} is true or false")
                changes[name] = value
            elif name == "lang":
                if value not in ("ja", "en"):
                    raise AccountError(400, "bad_request", "lang is ja or en")
                changes[name] = value
            else:
                raise AccountError(400, "bad_request", f"unknown choice: {name}"[:80])
        await self.store.save_notify_settings(replace(s, **changes), self.clock())

    async def verify(self, token: str, fallback: str = "ja") -> tuple[str, bool]:
        """Follow a verification link: its language (``fallback`` if it names none) and
        whether the address is now verified."""
        assert self.links is not None
        payload = self.links.read(token, "verify", self.clock())
        if payload is None:  # an expired link of ours still says in which language to answer
            stale = self.links.read(token, "verify", 0)
            return (lang_of(stale["l"]) if stale else fallback), False
        done = await self.store.verify_email(payload["p"], payload["e"], self.clock())
        return lang_of(payload["l"]), done

    def unsubscribe_link(self, token: str) -> tuple[str, str] | None:
        """An unsubscribe link's language and address, if it is one."""
        assert self.links is not None
        payload = self.links.read(token, "unsub", self.clock())
        return None if payload is None else (lang_of(payload["l"]), payload["e"])

    async def unsubscribe(self, token: str) -> tuple[str, str] | None:
        """Stop every e-mail to the link's address; its language and address (``None``: not
        one of our links).  An address since changed is left alone, but the answer is the
        same: a link must not tell whether someone changed their address."""
        assert self.links is not None
        payload = self.links.read(token, "unsub", self.clock())
        if payload is None:
            return None
        await self.store.unsubscribe_email(payload["p"], payload["e"], self.clock())
        return lang_of(payload["l"]), payload["e"]

    async def add_push(self, player_id: str, body: Mapping[str, Any]) -> None:
        sub = self._subscription(player_id, body)
        await self.store.add_push_subscription(sub, self.times.push_per_player)

    async def replace_push(self, player_id: str, body: Mapping[str, Any]) -> None:
        """A browser's push service renewed its subscription (the service worker's
        ``pushsubscriptionchange``): keep the new one in place of ``old_endpoint``, which
        must be the person's own — nobody may drop another's device."""
        old = body.get("old_endpoint")
        if not isinstance(old, str) or not old or len(old) > MAX_ENDPOINT:
            raise AccountError(400, "bad_subscription", "old_endpoint is the endpoint replaced")
        sub = self._subscription(player_id, {k: v for k, v in body.items() if k != "old_endpoint"})
        if sub.endpoint == old:
            raise AccountError(400, "bad_subscription", "the new endpoint is the old one")
        if not await self.store.replace_push_subscription(old, sub, self.times.push_per_player):
            raise AccountError(404, "unknown_subscription", "no device of yours has it")

    def _subscription(self, player_id: str, body: Mapping[str, Any]) -> PushSubscription:
        """A browser's ``PushSubscription.toJSON()`` (and ``lang``), checked."""
        if self.pusher is None:
            raise AccountError(409, "no_push", "this server sends no push notifications")
        endpoint, keys = body.get("endpoint"), body.get("keys")
        if (
            not isinstance(endpoint, str)
            or not endpoint.startswith("https://")
            or len(endpoint) > MAX_ENDPOINT
        ) and not (self.local_push and _local_endpoint(endpoint)):
            raise AccountError(400, "bad_subscription", "endpoint is the push service's https URL")
        if not isinstance(keys, dict):
            raise AccountError(400, "bad_subscription", "keys holds p256dh and auth")
        p256dh, auth = keys.get("p256dh"), keys.get("auth")
        if not _key(p256dh, 65) or not _key(auth, 16):
            raise AccountError(400, "bad_subscription", "keys holds p256dh and auth (base64url)")
        assert isinstance(endpoint, str) and isinstance(p256dh, str) and isinstance(auth, str)
        lang = lang_of(body.get("lang"))
        return PushSubscription(endpoint, player_id, p256dh, auth, lang, self.clock())

    async def remove_push(self, player_id: str, endpoint: object) -> None:
        if not isinstance(endpoint, str):
            raise AccountError(400, "bad_subscription", "send the endpoint to forget")
        if not await self.store.remove_push_subscription(endpoint, player_id):
            raise AccountError(404, "unknown_subscription", "no device of yours has it")


#: Loopback push endpoints (``http://127.0.0.1…``), accepted only where ``local_push`` says so:
#: a test's stand-in for a push service.  A server open to anyone refuses them, or a visitor
#: could make it send requests to its own machine.
LOCAL_PUSH = ("http://127.0.0.1:", "http://localhost:")


def _local_endpoint(endpoint: object) -> bool:
    return isinstance(endpoint, str) and endpoint.startswith(LOCAL_PUSH) and len(endpoint) < 300


def _key(raw: object, size: int) -> bool:
    """Whether ``raw`` is base64url of ``size`` bytes (a P-256 point: 65; a secret: 16)."""
    if not isinstance(raw, str) or len(raw) > MAX_KEY:
        return False
    try:
        return len(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))) == size
    except ValueError:
        return False

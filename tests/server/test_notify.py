"""Notifications end to end with real parts: a real SMTP server (aiosmtpd) receives the
e-mails, a push endpoint on this machine receives the Web Push messages and they are
decrypted with the subscription's keys (RFC 8291).  The notifier runs in the test, on a
real store, with a clock the test moves; only the browsers' own push services (unreachable
from here) are stood in for."""

from __future__ import annotations

import asyncio
import base64
import json
import ssl
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from html import escape
from ipaddress import IPv4Address
from pathlib import Path

import aiosmtplib
import pytest
import sqlalchemy as sa
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID

from bodoge.games import registry
from bodoge.server.runtime.notify import Final, Standing
from bodoge.server.services.accounts import AccountError
from bodoge.server.services.mail import Mail, Mailer, SmtpSettings, permanent
from bodoge.server.services.notify import Notifier, NotifyTimes
from bodoge.store import NotifySettings, PlayerRecord, open_store, sqlite_url
from bodoge.store.sql import SqlStore
from tests.support.databases import PG_ADMIN, own_database, require
from tests.support.turn_play import (
    BrowserKeys,
    Clock,
    MailSink,
    PushService,
    SmtpServer,
    free_port,
    parts,
)

#: A two-player game's end that the first seat won.
TWO = Final((Standing("Hana", 1), Standing("Ken", 2)))
TITLES = {game_id: game.title for game_id, game in registry().items()}
SITE = "https://games.example.org"
GRACE = 30


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqlStore]:
    store = await open_store(sqlite_url(tmp_path))
    names = {"p_0": "Hana", "p_1": "Ken", "p_2": "Yui", "p_8": "ケン", "p_9": "Hana & <Ken>"}
    for n, (player, name) in enumerate(names.items()):
        await store.create_player(PlayerRecord(player, name, f"{n:064x}", 0))
    yield store
    await store.close()


class Watching:
    """Who has which table open: (player, table) pairs."""

    def __init__(self) -> None:
        self.open: set[tuple[str, str]] = set()

    def __call__(self, player: str, table: str) -> bool:
        return (player, table) in self.open


MakeNotifier = Callable[..., Notifier]


@pytest.fixture
async def make_notifier(
    store: SqlStore, smtp: SmtpServer
) -> AsyncIterator[Callable[..., Notifier]]:
    made: list[Notifier] = []

    def make(
        *, on: SqlStore | None = None, process: str = "proc-a", site: str = SITE, **kw: object
    ) -> Notifier:
        notifier = Notifier(
            on or store,
            site=site,
            process=process,
            titles=TITLES,
            watching=kw.pop("watching", Watching()),  # type: ignore[arg-type]
            is_account=lambda p: asyncio.sleep(0, result=True),
            mailer=Mailer(SmtpSettings.parse(smtp.url)),
            clock=kw.pop("clock", Clock()),  # type: ignore[arg-type]
            times=NotifyTimes(grace_ms=GRACE * 1000, poll_seconds=3600, retry_ms=60_000),
            local_push=kw.pop("local_push", True),  # type: ignore[arg-type]
            **kw,  # type: ignore[arg-type]
        )
        made.append(notifier)
        return notifier

    yield make
    for notifier in made:
        await notifier.stop()


def turn(n: int) -> int:
    """The deadline of a table's turn ``n``: what names a turn to the notifier."""
    return 1_900_000_000_000 + n * 1000


async def verified(store: SqlStore, player: str, lang: str, **choices: bool) -> str:
    email = f"{player}@example.org"
    await store.save_notify_settings(NotifySettings(player, email, 1, lang, **choices), 1)
    return email


async def turn_passes(notifier: Notifier, clock: Clock, seconds: float = GRACE) -> None:
    clock.advance(seconds)
    await notifier.drain()


@pytest.mark.parametrize("lang", ["ja", "en"])
async def test_a_turn_is_mailed_once_in_the_persons_language(
    store: SqlStore, smtp: SmtpServer, make_notifier: MakeNotifier, lang: str
) -> None:
    clock = Clock()
    notifier = make_notifier(clock=clock)
    await notifier.start(drain=False)
    email = await verified(store, "p_0", lang)
    deadline = clock.now + 24 * 3600 * 1000
    await notifier.your_turn("p_0", "t_abc", "tagiron", deadline + 7)
    await notifier.your_turn("p_0", "t_abc", "tagiron", deadline + 7)  # a restart's second word
    await notifier.drain()
    assert smtp.sink.messages == []  # not before the grace
    await turn_passes(notifier, clock)
    await turn_passes(notifier, clock, 3600)
    await notifier.your_turn(
        "p_0", "t_abc", "tagiron", deadline + 7
    )  # once more, later: still once
    await turn_passes(notifier, clock)
    assert len(smtp.sink.messages) == 1
    mail = smtp.sink.messages[0]
    assert mail["To"] == email
    assert mail["From"] == "bodoge@games.example.org"
    assert mail["Content-Language"] == lang
    assert mail["Auto-Submitted"] == "auto-generated"
    title = {"ja": "タギロン", "en": "Tagiron"}[lang]
    assert (
        mail["Subject"] == {"ja": f"{title}であなたの番です", "en": f"Your turn in {title}"}[lang]
    )
    unsubscribe = mail["List-Unsubscribe"]
    assert unsubscribe.startswith(f"<{SITE}/unsubscribe/") and unsubscribe.endswith(">")
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert mail.get_content_type() == "multipart/alternative"
    text, html = parts(mail)
    for body in (text, html):
        assert f"{SITE}/t/t_abc" in body
        assert unsubscribe[1:-1] in body
        assert f"{SITE}/account" in body
    due = {"ja": "期限：2027-01-16 08:00（UTC）", "en": "Play by 2027-01-16 08:00 UTC"}[lang]
    assert due in text and due in html
    assert f'<html lang="{lang}">' in html
    # the next turn is a new notification
    await notifier.your_turn("p_0", "t_abc", "tagiron", deadline + 9)
    await turn_passes(notifier, clock)
    assert len(smtp.sink.messages) == 2


async def test_nothing_is_sent_to_someone_watching_the_table(
    store: SqlStore, smtp: SmtpServer, push: PushService, make_notifier: MakeNotifier
) -> None:
    clock, watching = Clock(), Watching()
    notifier = make_notifier(clock=clock, watching=watching)
    await notifier.start(drain=False)
    await verified(store, "p_0", "en")
    keys = BrowserKeys()
    await notifier.add_push("p_0", keys.subscription(push.endpoint("a")))
    # watching when the turn starts: nothing is even stored
    watching.open.add(("p_0", "t_1"))
    await notifier.your_turn("p_0", "t_1", "tagiron", turn(1))
    await turn_passes(notifier, clock)
    # opened during the grace: nothing is sent when it comes due
    watching.open.clear()
    await notifier.your_turn("p_0", "t_1", "tagiron", turn(2))
    watching.open.add(("p_0", "t_1"))
    await turn_passes(notifier, clock)
    assert smtp.sink.messages == [] and push.received == []
    assert notifier.counts["skipped"] == 2  # the e-mail and the push of turn 2
    # another table of theirs still reaches them
    await notifier.your_turn("p_0", "t_2", "illustori", turn(1))
    await turn_passes(notifier, clock)
    assert [m["Subject"] for m in smtp.sink.messages] == ["Your turn in Illustori"]
    assert [keys.decrypt(r.body)["url"] for r in push.received] == ["/t/t_2"]


async def test_the_choices_decide_what_is_sent(
    store: SqlStore, smtp: SmtpServer, make_notifier: MakeNotifier
) -> None:
    clock = Clock()
    notifier = make_notifier(clock=clock)
    await notifier.start(drain=False)
    await verified(store, "p_0", "en", my_turn=False)
    await verified(store, "p_1", "en", game_ended=False, invited=True)
    await store.save_notify_settings(NotifySettings("p_2", "p_2@example.org", None, "en"), 1)
    for player in ("p_0", "p_1", "p_2"):
        await notifier.your_turn(player, "t_1", "tagiron", turn(3))
        await notifier.game_ended(player, "t_1", "tagiron", 0, TWO)
        await notifier.invited(player, "t_2", "tagiron", "p_9")
    await turn_passes(notifier, clock)
    got = sorted((m["To"], m["Subject"]) for m in smtp.sink.messages)
    assert got == [
        ("p_0@example.org", "Hana & <Ken> invites you to Tagiron"),
        ("p_0@example.org", "Your game of Tagiron has ended"),
        ("p_1@example.org", "Hana & <Ken> invites you to Tagiron"),
        ("p_1@example.org", "Your turn in Tagiron"),
    ]  # p_2's address is not verified: nothing
    invite = next(m for m in smtp.sink.messages if "invites" in m["Subject"])
    assert "Hana &amp; &lt;Ken&gt; invites you" in parts(invite)[1]


async def test_a_digest_gathers_a_day_into_one_email(
    store: SqlStore, smtp: SmtpServer, make_notifier: MakeNotifier
) -> None:
    clock = Clock()
    notifier = make_notifier(clock=clock)
    await notifier.start(drain=False)
    await verified(store, "p_0", "ja", digest=True)
    await notifier.your_turn("p_0", "t_1", "tagiron", turn(1))
    await turn_passes(notifier, clock, 3 * 3600)
    await notifier.game_ended("p_0", "t_2", "illustori", 0, TWO)
    await notifier.invited("p_0", "t_3", "tagiron", "p_8")
    await turn_passes(notifier, clock, 20 * 3600)
    assert smtp.sink.messages == []  # a day after the first, not before
    await turn_passes(notifier, clock, 3600)
    assert len(smtp.sink.messages) == 1
    mail = smtp.sink.messages[0]
    assert mail["Subject"] == "bodoge のお知らせ（3件）"
    text, html = parts(mail)
    for table in ("t_1", "t_2", "t_3"):
        assert f"{SITE}/t/{table}" in text and f"{SITE}/t/{table}" in html
    assert "ケンさんがタギロンの卓に招待しています。" in text
    # the game's end says how it went, there too
    assert "- イラストリーの卓の対局が終わりました。あなたの勝ちです。" in text
    assert "イラストリーの卓の対局が終わりました。あなたの勝ちです。" in html
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    await turn_passes(notifier, clock, 48 * 3600)
    assert len(smtp.sink.messages) == 1


async def test_a_mail_server_saying_later_is_tried_again_with_back_off(
    store: SqlStore, smtp: SmtpServer, make_notifier: MakeNotifier
) -> None:
    clock = Clock()
    notifier = make_notifier(clock=clock)
    await notifier.start(drain=False)
    await verified(store, "p_0", "en")
    smtp.sink.refuse = "451 4.3.0 try again later"
    await notifier.your_turn("p_0", "t_1", "tagiron", turn(1))
    await turn_passes(notifier, clock)  # attempt 1 fails: again in 60 s
    await turn_passes(notifier, clock, 59)
    await turn_passes(notifier, clock, 2)  # attempt 2 fails: again in 120 s
    assert notifier.counts["retried"] == 2
    smtp.sink.refuse = None
    await turn_passes(notifier, clock, 100)
    assert smtp.sink.messages == []
    await turn_passes(notifier, clock, 21)
    assert len(smtp.sink.messages) == 1
    # a refusal for good is not retried
    smtp.sink.refuse = "550 5.1.1 no such mailbox"
    await notifier.your_turn("p_0", "t_1", "tagiron", turn(2))
    await turn_passes(notifier, clock)
    smtp.sink.refuse = None
    await turn_passes(notifier, clock, 3600 * 24)
    assert len(smtp.sink.messages) == 1 and notifier.counts["failed"] == 1


async def test_verification_links_verify_only_the_address_they_were_sent_to(
    store: SqlStore, smtp: SmtpServer, make_notifier: MakeNotifier
) -> None:
    clock = Clock()
    notifier = make_notifier(clock=clock)
    await notifier.start(drain=False)
    await notifier.set_email("p_0", "first@example.org", "en")
    with pytest.raises(AccountError, match="a moment ago"):  # pressed twice: one mail
        await notifier.set_email("p_0", "first@example.org", "en")
    clock.advance(600)
    await notifier.set_email("p_0", "second@example.org", "ja")
    await notifier.drain()
    # the first address's mail is dropped: it was changed before it went out
    assert [m["To"] for m in smtp.sink.messages] == ["second@example.org"]
    mail = smtp.sink.messages[0]
    assert mail["Subject"] == "メールアドレスの確認"
    assert "List-Unsubscribe" not in mail  # asked for, not a list
    link = next(w for w in parts(mail)[0].split() if "/verify-email/" in w)
    first_link = notifier.links.make("verify", "p_0", "first@example.org", "en", clock.now + 1)  # type: ignore[union-attr]
    assert await notifier.verify(first_link) == ("en", False)
    token = link.rsplit("/", 1)[1]
    assert await notifier.verify(token[:-3] + "abc") == ("ja", False)
    assert (await notifier.describe("p_0"))["verified"] is False
    clock.advance(47 * 3600)
    assert await notifier.verify(token) == ("ja", True)
    assert (await notifier.describe("p_0"))["verified"] is True
    # an expired link does nothing
    await notifier.set_email("p_0", "third@example.org", "en")
    await notifier.drain()
    late = next(w for w in parts(smtp.sink.messages[-1])[0].split() if "/verify-email/" in w)
    clock.advance(49 * 3600)
    assert await notifier.verify(late.rsplit("/", 1)[1]) == ("en", False)


@pytest.mark.parametrize(
    "bad",
    [
        None,
        3,
        "",
        "no-at",
        "a@b",
        "a b@example.org",
        "x" * 250 + "@e.org",
        "a@example.org\r\nBcc: b@example.org",
        "<a@example.org>",
    ],
)
async def test_a_bad_address_is_refused_and_changes_nothing(
    store: SqlStore, make_notifier: MakeNotifier, bad: object
) -> None:
    notifier = make_notifier()
    await notifier.start(drain=False)
    await notifier.set_email("p_0", "kept@example.org", "en")
    with pytest.raises(AccountError) as refused:
        await notifier.set_email("p_0", bad, "en")
    assert refused.value.code == "bad_email"
    assert (await notifier.describe("p_0"))["email"] == "kept@example.org"


# --- Web Push ------------------------------------------------------------------------------


def vapid_claims(headers: dict[str, str], public_key: str) -> dict[str, object]:
    """The VAPID JWT of a push request, its signature checked with the server's public key."""
    scheme, _, params = headers["authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(p.strip().split("=", 1) for p in params.split(","))
    assert fields["k"] == public_key
    raw_key = base64.urlsafe_b64decode(public_key + "=" * (-len(public_key) % 4))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw_key)
    header, claims, signature = fields["t"].split(".")
    raw = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
    der = encode_dss_signature(int.from_bytes(raw[:32]), int.from_bytes(raw[32:]))
    key.verify(der, f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if bad
    return json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))


async def test_a_push_reaches_each_device_once_encrypted_to_its_keys(
    store: SqlStore, push: PushService, make_notifier: MakeNotifier
) -> None:
    clock = Clock()
    notifier = make_notifier(clock=clock, contact="mailto:admin@games.example.org")
    await notifier.start(drain=False)
    phone, laptop = BrowserKeys(), BrowserKeys()
    await notifier.add_push("p_0", {**phone.subscription(push.endpoint("phone")), "lang": "ja"})
    await notifier.add_push("p_0", {**laptop.subscription(push.endpoint("laptop")), "lang": "en"})
    deadline = clock.now + 3600 * 1000
    await notifier.your_turn("p_0", "t_xyz", "illustori", deadline + 4)
    await notifier.your_turn("p_0", "t_xyz", "illustori", deadline + 4)
    await turn_passes(notifier, clock)
    await turn_passes(notifier, clock)
    assert sorted(r.path for r in push.received) == ["/push/laptop", "/push/phone"]
    by_path = {r.path: r for r in push.received}
    shown = phone.decrypt(by_path["/push/phone"].body)
    assert shown == {
        "title": "あなたの番です",
        "body": "イラストリー：卓を開いて指しましょう",
        "url": "/t/t_xyz",
        "tag": "bodoge-t_xyz",
        "kind": "turn",
    }
    assert laptop.decrypt(by_path["/push/laptop"].body)["title"] == "Your turn"
    with pytest.raises(Exception):  # noqa: B017 - one device's keys open no other's message
        laptop.decrypt(by_path["/push/phone"].body)
    request = by_path["/push/phone"]
    assert request.headers["content-encoding"] == "aes128gcm"
    assert 60 <= int(request.headers["ttl"]) <= 3600 - GRACE  # no use after the deadline
    assert notifier.pusher is not None
    claims = vapid_claims(request.headers, notifier.pusher.public_key)
    assert claims["aud"] == f"http://127.0.0.1:{push.port}"
    assert claims["sub"] == "mailto:admin@games.example.org"


async def test_the_vapid_keys_are_made_once_and_kept(
    store: SqlStore, make_notifier: MakeNotifier
) -> None:
    first = make_notifier()
    await first.start(drain=False)
    second = make_notifier(process="proc-b")
    await second.start(drain=False)
    assert first.pusher is not None and second.pusher is not None
    assert first.pusher.public_key == second.pusher.public_key
    assert len(base64.urlsafe_b64decode(first.pusher.public_key + "=")) == 65
    assert (await first.describe("p_0"))["push"] == {"key": first.pusher.public_key, "devices": 0}


async def test_an_expired_subscription_is_removed_and_a_failing_one_retried(
    store: SqlStore, push: PushService, make_notifier: MakeNotifier
) -> None:
    clock = Clock()
    notifier = make_notifier(clock=clock)
    await notifier.start(drain=False)
    keys = BrowserKeys()
    await notifier.add_push("p_0", keys.subscription(push.endpoint("a")))
    push.status = 500
    await notifier.game_ended("p_0", "t_1", "tagiron", 0, TWO)
    await turn_passes(notifier, clock)
    assert notifier.counts["retried"] == 1 and len(push.received) == 1
    push.status = 201
    await turn_passes(notifier, clock, 61)
    assert len(push.received) == 2 and notifier.counts["sent"] == 1
    assert keys.decrypt(push.received[1].body)["kind"] == "ended"
    push.status = 410
    await notifier.invited("p_0", "t_2", "tagiron", "p_1")
    await turn_passes(notifier, clock)
    assert await store.push_subscriptions("p_0") == []
    await notifier.your_turn("p_0", "t_2", "tagiron", turn(1))
    await turn_passes(notifier, clock)
    assert len(push.received) == 3  # nothing more: the device is forgotten


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"endpoint": "ftp://push.example/x", "keys": {"p256dh": "x", "auth": "y"}},
        {"endpoint": "https://push.example/x"},
        {"endpoint": "https://push.example/x", "keys": {"p256dh": "AAAA", "auth": "AAAA"}},
        {"endpoint": "https://push.example/" + "x" * 3000, "keys": {}},
    ],
)
async def test_a_bad_subscription_is_refused(
    store: SqlStore, make_notifier: MakeNotifier, body: dict[str, object]
) -> None:
    notifier = make_notifier()
    await notifier.start(drain=False)
    with pytest.raises(AccountError) as refused:
        await notifier.add_push("p_0", body)
    assert refused.value.code == "bad_subscription"
    assert await store.push_subscriptions("p_0") == []


async def test_loopback_endpoints_are_refused_unless_allowed(
    store: SqlStore, push: PushService, make_notifier: MakeNotifier
) -> None:
    notifier = make_notifier(local_push=False)
    await notifier.start(drain=False)
    with pytest.raises(AccountError):
        await notifier.add_push("p_0", BrowserKeys().subscription(push.endpoint("a")))


# --- a cluster: two processes drain one outbox ---------------------------------------------


async def test_two_processes_send_each_notification_once(
    smtp: SmtpServer, push: PushService, make_notifier: MakeNotifier
) -> None:
    """Two processes (two stores on one PostgreSQL database, two notifiers) are told of
    the same turns, as an owner and the process that took its tables over would be, and
    drain the outbox at once: each person gets each e-mail and push once."""
    require(PG_ADMIN, 5432, "PostgreSQL")
    async with own_database() as url:
        stores = [await open_store(url) for _ in range(2)]
        try:
            for n in range(12):
                await stores[0].create_player(PlayerRecord(f"p_{n}", f"P{n}", f"{n:064x}", 0))
            clock = Clock()
            notifiers = [
                make_notifier(on=s, process=f"proc-{i}", clock=clock) for i, s in enumerate(stores)
            ]
            for notifier in notifiers:
                await notifier.start(drain=False)
            keys = BrowserKeys()
            for n in range(12):
                await verified(stores[0], f"p_{n}", "en")
                await notifiers[0].add_push(f"p_{n}", keys.subscription(push.endpoint(f"{n}")))
            for notifier in notifiers:
                for n in range(12):
                    await notifier.your_turn(f"p_{n}", "t_1", "tagiron", turn(5))
            clock.advance(GRACE)
            await asyncio.gather(*(n.drain() for n in notifiers for _ in range(3)))
            assert sorted(m["To"] for m in smtp.sink.messages) == sorted(
                f"p_{n}@example.org" for n in range(12)
            )
            assert sorted(r.path for r in push.received) == sorted(f"/push/{n}" for n in range(12))
            assert notifiers[0].counts["sent"] + notifiers[1].counts["sent"] == 24
        finally:
            for notifier in notifiers:
                await notifier.stop()
            for s in stores:
                await s.close()


async def test_only_the_tables_owner_decides_who_is_watching(
    store: SqlStore, smtp: SmtpServer, make_notifier: MakeNotifier
) -> None:
    """Two processes on one store: ``proc-a`` runs table ``t_1`` (``tables.owner``) and so
    knows who has it open; ``proc-b`` does not run it, so its ``watching`` says no to
    everyone.  A row of ``t_1`` is ``proc-a``'s to send (or skip): ``proc-b`` leaves it
    alone while ``proc-a`` may be alive, and sends it only once it has been due a lease's
    time (the owner died with nobody taking the table over).  A row of a table nobody owns
    goes to whoever claims it first."""
    engine = store.engine  # type: ignore[attr-defined]
    async with engine.begin() as conn:
        await conn.execute(
            sa.text(
                "INSERT INTO tables (id, game, options, settings, seed, status, created_at,"
                " deadlines, owner) VALUES ('t_1', 'tagiron', '{}', '{}', 1, 'playing', 0,"
                " '{}', 'proc-a')"
            )
        )
    clock, sees = Clock(), Watching()
    owner = make_notifier(clock=clock, watching=sees, process="proc-a")
    other = make_notifier(clock=clock, process="proc-b")
    for notifier in (owner, other):
        await notifier.start(drain=False)
    await verified(store, "p_0", "en")
    # Opened during the grace, on the owner (the only one who knows): not sent, by anyone.
    await owner.your_turn("p_0", "t_1", "tagiron", turn(1))
    sees.open.add(("p_0", "t_1"))
    clock.advance(GRACE)
    assert await other.drain() == 0  # the owner's row: the other process leaves it
    assert await owner.drain() == 1
    assert smtp.sink.messages == [] and owner.counts["skipped"] == 1
    # Not watched, and the owner gone: the other process sends it after a lease, once.
    sees.open.clear()
    await owner.your_turn("p_0", "t_1", "tagiron", turn(2))
    clock.advance(GRACE)
    assert await other.drain() == 0
    clock.advance(owner.times.lease_ms / 1000)
    assert await other.drain() == 1
    assert len(smtp.sink.messages) == 1 and other.counts["sent"] == 1
    # A table nobody runs (released, or one process alone): whoever drains first sends it.
    await other.your_turn("p_0", "t_9", "tagiron", turn(1))
    clock.advance(GRACE)
    assert await other.drain() == 1
    assert len(smtp.sink.messages) == 2


# --- SMTP over TLS, with credentials -------------------------------------------------------


def self_signed(folder: Path) -> ssl.SSLContext:
    """A server's TLS context with a certificate for 127.0.0.1 that nobody signed."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=1))
        .not_valid_after(now + timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(IPv4Address("127.0.0.1"))]), False
        )
        .sign(key, hashes.SHA256())
    )
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return context


@pytest.mark.parametrize("mode", ["starttls", "smtps"])
async def test_mail_goes_over_tls_with_credentials(tmp_path: Path, mode: str) -> None:
    context = self_signed(tmp_path)
    sink = MailSink()
    logins: list[tuple[bytes, bytes]] = []

    def authenticator(
        server: object, session: object, envelope: object, mechanism: str, data: LoginPassword
    ) -> AuthResult:
        logins.append((data.login, data.password))
        return AuthResult(
            success=(data.login, data.password) == (b"bodoge@example.org", b"p/w"), handled=False
        )

    port = free_port()
    tls = (
        {"tls_context": context, "require_starttls": True}
        if mode == "starttls"
        else {
            "ssl_context": context,
            # aiosmtpd knows TLS only as STARTTLS: over smtps it would hide AUTH
            "auth_require_tls": False,
        }
    )
    controller = Controller(
        sink,
        hostname="127.0.0.1",
        port=port,
        authenticator=authenticator,
        auth_required=True,
        **tls,
    )
    controller.start()
    try:
        scheme, extra = ("smtp", "starttls=1&") if mode == "starttls" else ("smtps", "")
        url = f"{scheme}://bodoge%40example.org:p%2Fw@127.0.0.1:{port}?{extra}verify=0"
        mail = Mail("hana@example.org", "Hello", "text", "<p>html</p>", "en")
        await Mailer(SmtpSettings.parse(url)).send(mail)
        assert [m["Subject"] for m in sink.messages] == ["Hello"]
        assert logins == [(b"bodoge@example.org", b"p/w")]
        # a wrong password is refused for good (535): not retried
        wrong = url.replace("p%2Fw", "nope")
        with pytest.raises(aiosmtplib.SMTPException) as refused:
            await Mailer(SmtpSettings.parse(wrong)).send(mail)
        assert permanent(refused.value)
        # the certificate is checked unless told otherwise
        checked = url.replace("verify=0", "verify=1")
        with pytest.raises((aiosmtplib.SMTPException, ssl.SSLError, OSError)):
            await Mailer(SmtpSettings.parse(checked)).send(mail)
        assert len(sink.messages) == 1
    finally:
        controller.stop()


async def test_the_drain_sends_a_turn_as_it_comes_due_not_a_poll_later(
    store: SqlStore, smtp: SmtpServer
) -> None:
    """On its own (no test calling ``drain``), with an hour between polls: a turn's e-mail
    goes out once its grace is over, then nothing more."""
    notifier = Notifier(
        store,
        site=SITE,
        process="proc-a",
        titles=TITLES,
        watching=Watching(),
        is_account=lambda p: asyncio.sleep(0, result=True),
        mailer=Mailer(SmtpSettings.parse(smtp.url)),
        times=NotifyTimes(grace_ms=300, poll_seconds=3600),
    )
    await notifier.start()
    try:
        await verified(store, "p_0", "en")
        await notifier.your_turn("p_0", "t_1", "tagiron", turn(1))
        await asyncio.sleep(0.1)
        assert smtp.sink.messages == []
        for _ in range(100):
            if smtp.sink.messages:
                break
            await asyncio.sleep(0.05)
        assert [m["Subject"] for m in smtp.sink.messages] == ["Your turn in Tagiron"]
    finally:
        await notifier.stop()


#: Each ending as the first seat's person (p_0) is told of it, in each language: the line
#: that says how it went, then the standings (none for an abandoned game).
ENDINGS = {
    "won": (
        Final((Standing("Hana", 1), Standing("Ken", 2))),
        {"en": "You won.", "ja": "あなたの勝ちです。"},
        {"en": ["1st Hana (you)", "2nd Ken"], "ja": ["1位 Hana（あなた）", "2位 Ken"]},
    ),
    "second_of_four": (
        Final(
            (
                Standing("Hana", 2),
                Standing(None, 1),
                Standing("Hana & <Ken>", 4),
                Standing("Yui", 3),
            )
        ),
        {"en": "You came 2nd of 4.", "ja": "4人中2位でした。"},
        {
            "en": ["1st Bot", "2nd Hana (you)", "3rd Yui", "4th Hana & <Ken>"],
            "ja": ["1位 ボット", "2位 Hana（あなた）", "3位 Yui", "4位 Hana & <Ken>"],
        },
    ),
    "draw": (
        Final((Standing("Hana", 1), Standing("Ken", 1))),
        {"en": "It was a draw.", "ja": "引き分けでした。"},
        {"en": ["1st Hana (you)", "1st Ken"], "ja": ["1位 Hana（あなた）", "1位 Ken"]},
    ),
    "lost": (
        Final((Standing("Hana", None), Standing("Ken", 1), Standing("Yui", 2))),
        {"en": "You lost.", "ja": "あなたの負けです。"},
        {
            "en": ["1st Ken", "2nd Yui", "- Hana (you)"],
            "ja": ["1位 Ken", "2位 Yui", "- Hana（あなた）"],
        },
    ),
    "abandoned": (
        Final((Standing("Hana", None), Standing("Ken", None)), abandoned=True),
        {
            "en": "The game was abandoned: nobody placed.",
            "ja": "対局は放棄され、順位はつきませんでした。",
        },
        {"en": [], "ja": []},
    ),
}


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("ending", list(ENDINGS))
async def test_the_end_says_how_it_went_and_the_standings(
    store: SqlStore,
    smtp: SmtpServer,
    push: PushService,
    make_notifier: MakeNotifier,
    ending: str,
    lang: str,
) -> None:
    """The e-mail (plain text and HTML, names escaped) and the push of a game's end."""
    final, said, standings = ENDINGS[ending]
    clock = Clock()
    notifier = make_notifier(clock=clock)
    await notifier.start(drain=False)
    await verified(store, "p_0", lang)
    keys = BrowserKeys()
    await notifier.add_push("p_0", {**keys.subscription(push.endpoint("a")), "lang": lang})
    await notifier.game_ended("p_0", "t_1", "tagiron", 0, final)
    await turn_passes(notifier, clock)
    (mail,) = smtp.sink.messages
    title = {"ja": "タギロン", "en": "Tagiron"}[lang]
    assert (
        mail["Subject"]
        == {"ja": f"{title}の対局が終わりました", "en": f"Your game of {title} has ended"}[lang]
    )
    text, html = parts(mail)
    text = text.replace("\r\n", "\n")
    first = {
        "en": f"The game at your table of {title} has ended. {said['en']}",
        "ja": f"{title}の卓の対局が終わりました。{said['ja']}",
    }[lang]
    heading = {"en": "Final standings:", "ja": "最終順位："}[lang]
    shown = standings[lang]
    told = [first, heading, *shown] if shown else [first]
    assert text.startswith("\n".join(told) + "\n\n")
    assert f"<p>{escape(first)}</p>" in html
    if shown:
        assert "<br>".join(escape(x) for x in [heading, *shown]) in html
        assert "<Ken>" not in html
    else:
        assert heading not in text and heading not in html
    (sent,) = push.received
    message = keys.decrypt(sent.body)
    sep, colon, space = ("・", "：", "") if lang == "ja" else (" · ", ": ", " ")
    assert message["kind"] == "ended"
    assert message["title"] == {"en": "Game over", "ja": "対局が終わりました"}[lang]
    body = f"{title}{colon}{said[lang]}" + (f"{space}{sep.join(shown)}" if shown else "")
    assert message["body"] == body

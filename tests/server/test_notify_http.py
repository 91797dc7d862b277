"""Notifications through a real server process: the settings' HTTP routes, an address
verified by the link a real SMTP server received, a one-click unsubscribe (RFC 8058) that
works without signing in, and the installable page's files."""

from __future__ import annotations

import asyncio
import io
import json
import re
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Callable
from urllib.parse import urlsplit

import httpx
import pytest
from PIL import Image

from bodoge.games import registry
from bodoge.server.services.mail import Mailer, SmtpSettings
from bodoge.server.services.notify import Notifier, NotifyTimes
from bodoge.store import open_store, sqlite_url
from tests.support.client import Client
from tests.support.live_server import DEFAULT_ARGS, LiveServer
from tests.support.turn_play import BrowserKeys, SmtpServer, b64url, parts

PASSWORD = "correct horse battery"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
async def http(live_server: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=30) as client:
        yield client


async def guest(server: LiveServer, name: str) -> Client:
    return await Client.connect(server.ws_url, name)


async def mail_arrives(smtp: SmtpServer, count: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while len(smtp.sink.messages) < count:
        assert time.monotonic() < deadline, f"{len(smtp.sink.messages)} of {count} e-mails came"
        await asyncio.sleep(0.05)


async def test_an_address_is_verified_by_its_link_and_unsubscribed_in_one_click(
    make_live_server: Callable[..., LiveServer], smtp: SmtpServer
) -> None:
    server = make_live_server(args=[*DEFAULT_ARGS, "--smtp-url", smtp.url])
    site = f"http://localhost:{server.port}"
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        hana = await guest(server, "Hana")
        try:
            token = hana.token
            assert token is not None
            email = {"email": "hana@example.org", "lang": "en"}
            refused = await http.post("/api/account/email", json=email, headers=bearer(token))
            assert (
                refused.status_code == 409 and refused.json()["error"]["code"] == "not_an_account"
            )
            kept = await http.post(
                "/api/account", json={"name": "Hana", "password": PASSWORD}, headers=bearer(token)
            )
            assert kept.status_code == 201
            saved = await http.post("/api/account/email", json=email, headers=bearer(token))
            assert saved.status_code == 200, saved.text
            assert saved.json()["email"] == "hana@example.org" and not saved.json()["verified"]
            await mail_arrives(smtp, 1)
            mail = smtp.sink.messages[0]
            assert mail["To"] == "hana@example.org"
            assert mail["Subject"] == "Confirm your e-mail address"
            text, html = parts(mail)
            link = re.search(r"http://\S+/verify-email/\S+", text)
            assert link is not None and link.group(0).startswith(f"{site}/verify-email/")
            assert f'href="{link.group(0)}"' in html
            path = urlsplit(link.group(0)).path
            # a cut link verifies nothing
            cut = await http.get(path[:-4], headers={"Accept-Language": "en-GB,en;q=0.9"})
            assert cut.status_code == 400 and "This link does not work" in cut.text
            cut = await http.get(path[:-4])  # a link that says nothing, a browser neither
            assert cut.status_code == 400 and "このリンクは使えません" in cut.text
            opened = await http.get(path)
            assert opened.status_code == 200 and "Address confirmed" in opened.text
            assert "<script" not in opened.text
            assert opened.headers["content-security-policy"].startswith("default-src 'self'")
            state = (await http.get("/api/account/notifications", headers=bearer(token))).json()
            assert state["verified"] and state["choices"]["my_turn"]

            # A turn, told by a notifier on this server's store (as a table would), sends an
            # e-mail whose List-Unsubscribe link stops every e-mail, without signing in.
            store = await open_store(sqlite_url(server.data))
            notifier = Notifier(
                store,
                site=site,
                process="test",
                titles={g: game.title for g, game in registry().items()},
                watching=lambda p, t: False,
                is_account=store.account,
                mailer=Mailer(SmtpSettings.parse(smtp.url)),
                times=NotifyTimes(grace_ms=0),
            )
            try:
                await notifier.start(drain=False)
                deadline = notifier.clock() + 3_600_000
                await notifier.your_turn(hana.player["id"], "t_abcdefghij", "tagiron", deadline)
                await notifier.drain()
            finally:
                await notifier.stop()
                await store.close()
            await mail_arrives(smtp, 2)
            turn = smtp.sink.messages[1]
            assert turn["Subject"] == "Your turn in Tagiron"
            assert f"{site}/t/t_abcdefghij" in parts(turn)[0]
            unsubscribe = turn["List-Unsubscribe"].strip("<>")
            assert turn["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
            one_click = urlsplit(unsubscribe).path
            # Opening it (a link checker does) only asks
            asked = await http.get(one_click)
            assert asked.status_code == 200 and "hana@example.org" in asked.text
            assert f'<form method="post" action="{one_click}">' in asked.text
            state = (await http.get("/api/account/notifications", headers=bearer(token))).json()
            assert state["choices"]["my_turn"]
            # JSON is not how a mail program posts
            wrong = await http.post(one_click, json={"List-Unsubscribe": "One-Click"})
            assert wrong.status_code == 415
            # the mail program's POST: a form, from no page of ours, no token
            done = await http.post(
                one_click,
                content=b"List-Unsubscribe=One-Click",
                headers={
                    "Content-Type": "application/x-www-form-urlencoded",
                    "Origin": "https://mail.example.com",
                },
            )
            assert done.status_code == 200, done.text
            assert "bodoge sends no more e-mail to hana@example.org" in done.text
            state = (await http.get("/api/account/notifications", headers=bearer(token))).json()
            assert state["choices"] == {
                "my_turn": False,
                "game_ended": False,
                "invited": False,
                "digest": False,
            }
            forged = await http.post(
                one_click[:-3] + "xyz",
                content=b"List-Unsubscribe=One-Click",
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            )
            assert forged.status_code == 400
        finally:
            await hana.close()


async def test_choices_are_changed_and_bad_ones_refused(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    yui = await guest(live_server, "Yui")
    try:
        token = yui.token
        assert token is not None
        start = await http.get("/api/account/notifications", headers=bearer(token))
        assert start.status_code == 200
        assert start.json()["mail"] is False  # this server has no --smtp-url
        assert start.json()["choices"] == {
            "my_turn": True,
            "game_ended": True,
            "invited": True,
            "digest": False,
        }
        changed = await http.post(
            "/api/account/notifications",
            json={"my_turn": False, "digest": True, "lang": "en"},
            headers=bearer(token),
        )
        assert changed.status_code == 200
        assert changed.json()["lang"] == "en"
        assert changed.json()["choices"]["my_turn"] is False
        assert changed.json()["choices"]["digest"] is True
        for bad in ({"my_turn": "no"}, {"lang": "fr"}, {"sound": True}, {"invited": 1}):
            refused = await http.post("/api/account/notifications", json=bad, headers=bearer(token))
            assert refused.status_code == 400, bad
            assert refused.json()["error"]["code"] == "bad_request"
        after = await http.get("/api/account/notifications", headers=bearer(token))
        assert after.json() == changed.json()
        no_mail = await http.post(
            "/api/account/email", json={"email": "yui@example.org"}, headers=bearer(token)
        )
        assert no_mail.status_code == 409 and no_mail.json()["error"]["code"] == "no_mail"
        anonymous = await http.get("/api/account/notifications")
        assert anonymous.status_code == 401
    finally:
        await yui.close()


async def test_a_device_subscribes_to_push_and_unsubscribes(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    ken = await guest(live_server, "Ken")
    try:
        token = ken.token
        assert token is not None
        key = (await http.get("/api/account/notifications", headers=bearer(token))).json()
        assert key["push"]["devices"] == 0 and len(key["push"]["key"]) == 87
        keys = BrowserKeys()
        endpoint = "https://push.example.net/send/abc123"
        sub = {**keys.subscription(endpoint), "expirationTime": None, "lang": "en"}
        added = await http.post("/api/push/subscriptions", json=sub, headers=bearer(token))
        assert added.status_code == 201, added.text
        assert added.json()["push"]["devices"] == 1
        again = await http.post("/api/push/subscriptions", json=sub, headers=bearer(token))
        assert again.json()["push"]["devices"] == 1  # the same device, kept once
        # a loopback endpoint would make the server call itself: refused
        local = {**keys.subscription("http://127.0.0.1:6379/"), "lang": "en"}
        refused = await http.post("/api/push/subscriptions", json=local, headers=bearer(token))
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == "bad_subscription"
        other = await guest(live_server, "Mallory")
        try:
            assert other.token is not None
            stolen = await http.request(
                "DELETE",
                "/api/push/subscriptions",
                json={"endpoint": endpoint},
                headers=bearer(other.token),
            )
            assert stolen.status_code == 404  # not theirs: nothing removed
        finally:
            await other.close()
        removed = await http.request(
            "DELETE", "/api/push/subscriptions", json={"endpoint": endpoint}, headers=bearer(token)
        )
        assert removed.status_code == 200 and removed.json()["push"]["devices"] == 0
        gone = await http.request(
            "DELETE", "/api/push/subscriptions", json={"endpoint": endpoint}, headers=bearer(token)
        )
        assert gone.status_code == 404
        assert gone.json()["error"]["code"] == "unknown_subscription"
    finally:
        await ken.close()


async def test_the_page_is_installable(live_server: LiveServer, http: httpx.AsyncClient) -> None:
    page = await http.get("/")
    assert '<link rel="manifest" href="/manifest.webmanifest" />' in page.text
    answer = await http.get("/manifest.webmanifest")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = json.loads(answer.content)
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    sizes = set()
    for icon in manifest["icons"]:
        got = await http.get(icon["src"])
        assert got.status_code == 200 and got.headers["content-type"] == icon["type"]
        if icon["type"] == "image/png":
            with Image.open(io.BytesIO(got.content)) as image:
                assert f"{image.width}x{image.height}" == icon["sizes"]
                sizes.add((image.width, icon["purpose"]))
    assert {(192, "any"), (512, "any"), (512, "maskable")} <= sizes
    worker = await http.get("/sw.js")
    assert worker.status_code == 200
    assert worker.headers["content-type"].startswith("text/javascript")
    assert worker.headers["cache-control"] == "no-cache"
    assert worker.headers["content-security-policy"].startswith("default-src 'self'")
    for event in ("install", "fetch", "push", "notificationclick"):
        assert f'addEventListener("{event}"' in worker.text


def stored_subscriptions(server: LiveServer, endpoints: list[str]) -> dict[str, tuple[str, ...]]:
    """The server's own rows for these endpoints: player, keys and language."""
    with sqlite3.connect(f"file:{server.data / 'bodoge.sqlite3'}?mode=ro", uri=True) as db:
        marks = ",".join("?" * len(endpoints))
        rows = db.execute(
            "SELECT endpoint, player, p256dh, auth, lang FROM push_subscriptions"
            f" WHERE endpoint IN ({marks})",
            endpoints,
        ).fetchall()
    return {r[0]: tuple(r[1:]) for r in rows}


async def test_a_renewed_subscription_replaces_the_old_and_refusals_change_nothing(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    """``POST /api/push/subscriptions/replace``, what the service worker sends when the push
    service renewed a subscription: the person's old endpoint goes, the new one comes; a bad
    token, another's endpoint, malformed keys change nothing."""
    run = uuid.uuid4().hex[:8]
    old, new = f"https://push.example.net/{run}/old", f"https://push.example.net/{run}/new"
    hers, unknown = f"https://push.example.net/{run}/hers", f"https://push.example.net/{run}/none"
    endpoints = [old, new, hers, unknown]
    ken, mallory = await guest(live_server, "Ken"), await guest(live_server, "Mallory")
    try:
        assert ken.token is not None and mallory.token is not None
        ken_keys, her_keys, fresh = BrowserKeys(), BrowserKeys(), BrowserKeys()
        for token, keys, endpoint in ((ken.token, ken_keys, old), (mallory.token, her_keys, hers)):
            sub = {**keys.subscription(endpoint), "lang": "ja"}
            added = await http.post("/api/push/subscriptions", json=sub, headers=bearer(token))
            assert added.status_code == 201, added.text
        before = stored_subscriptions(live_server, endpoints)
        assert set(before) == {old, hers}
        renewal = {**fresh.subscription(new), "expirationTime": None, "lang": "en"}

        async def replace(token: str | None, body: dict[str, object]) -> httpx.Response:
            headers = bearer(token) if token is not None else {}
            return await http.post("/api/push/subscriptions/replace", json=body, headers=headers)

        short_key = {"p256dh": b64url(b"\x04" + b"k" * 63), "auth": renewal["keys"]["auth"]}
        for token, body, status, code in (
            (None, {**renewal, "old_endpoint": old}, 401, "bad_token"),
            ("not-a-token", {**renewal, "old_endpoint": old}, 401, "bad_token"),
            (mallory.token, {**renewal, "old_endpoint": old}, 404, "unknown_subscription"),
            (ken.token, {**renewal, "old_endpoint": hers}, 404, "unknown_subscription"),
            (ken.token, {**renewal, "old_endpoint": unknown}, 404, "unknown_subscription"),
            (
                ken.token,
                {**renewal, "keys": short_key, "old_endpoint": old},
                400,
                "bad_subscription",
            ),
            (
                ken.token,
                {**renewal, "keys": {"p256dh": "!!", "auth": "??"}, "old_endpoint": old},
                400,
                "bad_subscription",
            ),
            (ken.token, {"endpoint": new, "old_endpoint": old}, 400, "bad_subscription"),
            (
                ken.token,
                {**renewal, "endpoint": "http://push.example.net/x", "old_endpoint": old},
                400,
                "bad_subscription",
            ),
            (ken.token, renewal, 400, "bad_subscription"),
            (ken.token, {**renewal, "old_endpoint": 7}, 400, "bad_subscription"),
            (ken.token, {**renewal, "endpoint": old, "old_endpoint": old}, 400, "bad_subscription"),
        ):
            refused = await replace(token, body)
            assert refused.status_code == status, (body, refused.text)
            assert refused.json()["error"]["code"] == code, (body, refused.text)
            assert stored_subscriptions(live_server, endpoints) == before, body
        done = await replace(ken.token, {**renewal, "old_endpoint": old})
        assert done.status_code == 200, done.text
        assert done.json()["push"]["devices"] == 1
        assert stored_subscriptions(live_server, endpoints) == {
            new: (ken.player_id, fresh.p256dh, b64url(fresh.auth), "en"),
            hers: before[hers],
        }
        # Sent again (the worker retried): the old one is gone, so the worker adds instead.
        again = await replace(ken.token, {**renewal, "old_endpoint": old})
        assert again.status_code == 404
    finally:
        await ken.close()
        await mallory.close()

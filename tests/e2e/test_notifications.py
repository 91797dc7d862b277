"""Notifications in Chromium: the service worker shows a Web Push and opens the table on a
click, the account page's panel in both languages, and an e-mail address verified by the
link a real SMTP server received.

A push is delivered to the worker's registration through the DevTools protocol
(``ServiceWorker.deliverPushMessage``): browsers' push services are unreachable from this
machine, so ``pushManager.subscribe`` cannot succeed here (tests/server/test_notify.py sends
and decrypts real encrypted pushes up to the push service's door).  Headless Chromium keeps
the notifications it shows (``registration.getNotifications()``) but has no screen to click
them on: the click is a ``notificationclick`` event dispatched inside the worker, which runs
the worker's own listener.
"""

from __future__ import annotations

import base64
import json
import re
import sqlite3
import time
import uuid
from collections.abc import Callable

import pytest

from tests.e2e import ui
from tests.e2e.conftest import DESKTOP
from tests.support.live_server import DEFAULT_ARGS, LiveServer
from tests.support.turn_play import BrowserKeys, SmtpServer, b64url, parts

NOTIFICATIONS_JS = """async () => {
  const reg = await navigator.serviceWorker.ready;
  const shown = await reg.getNotifications();
  return shown.map((n) => ({title: n.title, body: n.body, tag: n.tag, data: n.data, icon: n.icon}));
}"""

CLICK_JS = """async () => {
  const [shown] = await self.registration.getNotifications();
  try {
    self.dispatchEvent(new NotificationEvent("notificationclick", {notification: shown}));
  } catch (e) {
    // waitUntil refuses an event the browser did not make; the listener ran before it
  }
  return shown.data.url;
}"""


def registration_id(page: object) -> tuple[object, str]:
    """The page's service worker registration, as the DevTools protocol names it."""
    cdp = page.context.new_cdp_session(page)  # type: ignore[attr-defined]
    found: list[str] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: found.extend(
            r["registrationId"] for r in e["registrations"] if not r["isDeleted"]
        ),
    )
    cdp.send("ServiceWorker.enable")
    deadline = time.monotonic() + 10
    while not found and time.monotonic() < deadline:
        page.wait_for_timeout(50)  # type: ignore[attr-defined]
    assert found, "no service worker registration"
    return cdp, found[-1]


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_push_shows_the_notification_and_a_click_opens_the_table(
    open_page: Callable[..., tuple[object, object]], live_server: LiveServer, lang: str
) -> None:
    page, _ = open_page("/", lang=lang)
    context = page.context  # type: ignore[attr-defined]
    origin = live_server.url.rstrip("/")
    context.grant_permissions(["notifications"], origin=origin)
    ui.sign_in(page, "Hana")  # type: ignore[arg-type]
    table = ui.create_table(page, 2)  # type: ignore[arg-type]
    page.goto(origin + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=create-table]")  # type: ignore[attr-defined]
    state = page.evaluate(  # type: ignore[attr-defined]
        "navigator.serviceWorker.ready.then((r) => r.active.state)"
    )
    assert state in ("activating", "activated")
    page.evaluate(  # type: ignore[attr-defined]
        "window.__pushes = [];"
        " navigator.serviceWorker.addEventListener('message', (e) => window.__pushes.push(e.data))"
    )
    cdp, registration = registration_id(page)
    title = {"ja": "あなたの番です", "en": "Your turn"}[lang]
    message = {
        "title": title,
        "body": "Tagiron: open the table to play",
        "url": f"/t/{table}",
        "tag": f"bodoge-{table}",
        "kind": "turn",
    }
    cdp.send(  # type: ignore[attr-defined]
        "ServiceWorker.deliverPushMessage",
        {"origin": origin, "registrationId": registration, "data": json.dumps(message)},
    )
    page.wait_for_function("() => window.__pushes.length > 0")  # type: ignore[attr-defined]
    assert page.evaluate("() => window.__pushes") == [  # type: ignore[attr-defined]
        {"type": "bodoge.push", "url": f"/t/{table}", "kind": "turn"}
    ]
    shown = page.evaluate(NOTIFICATIONS_JS)  # type: ignore[attr-defined]
    assert shown == [
        {
            "title": title,
            "body": "Tagiron: open the table to play",
            "tag": f"bodoge-{table}",
            "data": {"url": f"/t/{table}"},
            "icon": f"{origin}/static/icons/icon-192.png",
        }
    ]
    # a second push for the same table replaces the first (one per table, by its tag)
    cdp.send(  # type: ignore[attr-defined]
        "ServiceWorker.deliverPushMessage",
        {"origin": origin, "registrationId": registration, "data": json.dumps(message)},
    )
    page.wait_for_function("() => window.__pushes.length > 1")  # type: ignore[attr-defined]
    assert len(page.evaluate(NOTIFICATIONS_JS)) == 1  # type: ignore[attr-defined]
    worker = context.service_workers[0] if context.service_workers else None
    assert worker is not None and worker.url == f"{origin}/sw.js"
    assert worker.evaluate(CLICK_JS) == f"/t/{table}"
    page.wait_for_url(re.compile(rf".*/t/{table}$"))  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=seats]")  # type: ignore[attr-defined]
    assert page.evaluate(NOTIFICATIONS_JS) == []  # type: ignore[attr-defined]


def test_the_shell_opens_from_the_worker_when_the_server_is_slow(
    open_page: Callable[..., tuple[object, object]], live_server: LiveServer
) -> None:
    """The worker kept the page and its files: a reload with the network gone still draws
    the page (the lobby's frame; its data needs the server)."""
    page, _ = open_page("/", lang="en")
    ui.sign_in(page, "Ken")  # type: ignore[arg-type]
    page.evaluate("navigator.serviceWorker.ready")  # type: ignore[attr-defined]
    page.reload()  # type: ignore[attr-defined]  # now controlled: the files pass through it
    page.wait_for_selector("[data-testid=me]")  # type: ignore[attr-defined]
    assert page.evaluate("Boolean(navigator.serviceWorker.controller)")  # type: ignore[attr-defined]
    context = page.context  # type: ignore[attr-defined]
    context.set_offline(True)
    try:
        page.reload()  # type: ignore[attr-defined]
        page.wait_for_selector("[data-testid=me]")  # type: ignore[attr-defined]
    finally:
        context.set_offline(False)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_an_account_verifies_its_address_from_the_account_page(
    browser: object, make_live_server: Callable[..., LiveServer], smtp: SmtpServer, lang: str
) -> None:
    server = make_live_server(args=[*DEFAULT_ARGS, "--smtp-url", smtp.url])
    context = browser.new_context(viewport=DESKTOP, locale="ja-JP")  # type: ignore[attr-defined]
    try:
        context.add_init_script(f"localStorage.setItem('bodoge.lang', '{lang}')")
        page = context.new_page()
        page.set_default_timeout(15_000)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url)
        ui.sign_in(page, "Yui")
        page.goto(server.url + "account")
        words = {
            "ja": ("通知", "メールで通知を受け取るには", "この端末で通知を受け取る"),
            "en": ("Notifications", "To get e-mail, keep your name first", "Get notifications"),
        }[lang]
        panel = page.locator("[data-testid=notify-panel]")
        panel.get_by_text(words[1]).wait_for()
        assert panel.locator("h2").inner_text() == words[0]
        assert words[2] in panel.locator("[data-testid=notify-push-toggle]").inner_text()
        if lang == "en":
            ui.assert_no_japanese(page, ["Yui"])
        page.fill("[data-testid=account-name]", f"Yui{lang}")
        page.fill("[data-testid=account-password]", "correct horse battery")
        page.click("[data-testid=keep-password]")
        page.wait_for_selector("[data-testid=notify-email]")
        page.fill("[data-testid=notify-email]", "yui@example.org")
        page.click("[data-testid=notify-email-save]")
        status = page.locator("[data-testid=notify-email-status]")
        pending = {"ja": "確認のリンクを送りました", "en": "A confirmation link went to"}[lang]
        status.get_by_text(pending).wait_for()
        deadline = time.monotonic() + 15
        while not smtp.sink.messages:
            assert time.monotonic() < deadline, "no e-mail came"
            page.wait_for_timeout(50)
        mail = smtp.sink.messages[0]
        assert mail["Content-Language"] == lang
        link = re.search(r"http://\S+/verify-email/\S+", parts(mail)[0])
        assert link is not None
        path = link.group(0).split("/", 3)[3]
        page.goto(server.url + path)
        done = {"ja": "アドレスを確認しました", "en": "Address confirmed"}[lang]
        assert page.locator("h1").inner_text() == done
        page.click("a[href='/account']")
        verified = {"ja": "yui@example.org に通知が届きます", "en": "Notifications go to yui"}[lang]
        page.locator("[data-testid=notify-email-status]").get_by_text(verified).wait_for()
        # a choice made on the page is kept by the server
        page.uncheck("[data-testid=notify-game_ended]")
        page.wait_for_timeout(300)
        page.reload()
        page.wait_for_selector("[data-testid=notify-game_ended]")
        assert not page.is_checked("[data-testid=notify-game_ended]")
        assert page.is_checked("[data-testid=notify-my_turn]")
        assert not errors, errors
    finally:
        context.close()


#: The browser's push service is unreachable here, so ``pushManager.subscribe`` cannot
#: succeed: the page's is stood in for by one that hands back ``sub`` (what a push service
#: would give). Everything from there on is the page's own: the request to the server and
#: what it hands the service worker.
STAND_IN_PAGE_SUBSCRIBE = """(sub) => {
  const made = {endpoint: sub.endpoint, toJSON: () => sub, unsubscribe: async () => true};
  let subscribed = false;
  PushManager.prototype.subscribe = async function () { subscribed = true; return made; };
  PushManager.prototype.getSubscription = async function () { return subscribed ? made : null; };
}"""

#: The push service renews the subscription: ``pushsubscriptionchange`` dispatched inside
#: the worker, as the browser would, with the old subscription (Firefox) or the new one
#: and no old (what Chromium gives when it renews one itself); the worker's own
#: ``pushManager.subscribe`` is stood in for as the page's is, noting the key it is given.
RENEW_IN_WORKER = """([old, fresh, withNew]) => {
  const made = {endpoint: fresh.endpoint, toJSON: () => fresh};
  self.__asked = [];
  PushManager.prototype.subscribe = async function (options) {
    self.__asked.push(Array.from(new Uint8Array(options.applicationServerKey)));
    return made;
  };
  const event = new ExtendableEvent("pushsubscriptionchange");
  Object.defineProperty(event, "oldSubscription", {value: withNew ? null : {endpoint: old}});
  Object.defineProperty(event, "newSubscription", {value: withNew ? made : null});
  try {
    self.dispatchEvent(event);
  } catch (e) {
    // waitUntil refuses an event the browser did not make; the listener ran before it
  }
}"""


def stored_push(server: LiveServer, endpoints: list[str]) -> dict[str, tuple[str, str, str]]:
    with sqlite3.connect(f"file:{server.data / 'bodoge.sqlite3'}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT endpoint, p256dh, auth, lang FROM push_subscriptions WHERE endpoint IN (?, ?)",
            endpoints,
        ).fetchall()
    return {r[0]: (r[1], r[2], r[3]) for r in rows}


def key_bytes(text: str) -> list[int]:
    return list(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


@pytest.mark.parametrize("with_new", [False, True], ids=["old-given", "new-given"])
def test_a_renewed_push_subscription_replaces_the_old_one_on_the_server(
    open_page: Callable[..., tuple[object, object]], live_server: LiveServer, with_new: bool
) -> None:
    page, _ = open_page("/", lang="en")
    context = page.context  # type: ignore[attr-defined]
    origin = live_server.url.rstrip("/")
    context.grant_permissions(["notifications"], origin=origin)
    ui.sign_in(page, "Mio")  # type: ignore[arg-type]
    page.evaluate("navigator.serviceWorker.ready")  # type: ignore[attr-defined]
    run = uuid.uuid4().hex[:8]
    old = f"https://push.example.net/{run}/old"
    new = f"https://push.example.net/{run}/new"
    old_keys, new_keys = BrowserKeys(), BrowserKeys()
    page.goto(origin + "/account")  # type: ignore[attr-defined]
    toggle = page.locator("[data-testid=notify-push-toggle]")  # type: ignore[attr-defined]
    toggle.wait_for()
    page.evaluate(  # type: ignore[attr-defined]
        STAND_IN_PAGE_SUBSCRIBE, {**old_keys.subscription(old), "expirationTime": None}
    )
    toggle.click()
    status = page.locator("[data-testid=notify-push-status]")  # type: ignore[attr-defined]
    status.get_by_text("This device gets notifications").wait_for()

    def stored() -> dict[str, tuple[str, str, str]]:
        return stored_push(live_server, [old, new])

    deadline = time.monotonic() + 15
    while old not in stored():
        assert time.monotonic() < deadline, "the page's subscription never reached the server"
        page.wait_for_timeout(50)  # type: ignore[attr-defined]
    assert stored() == {old: (old_keys.p256dh, b64url(old_keys.auth), "en")}
    worker = context.service_workers[0] if context.service_workers else None
    assert worker is not None and worker.url == f"{origin}/sw.js"
    kept = worker.evaluate("() => readKept()")
    assert kept["endpoint"] == old and kept["lang"] == "en" and kept["token"]
    fresh = {**new_keys.subscription(new), "expirationTime": None}
    worker.evaluate(RENEW_IN_WORKER, [old, fresh, with_new])
    deadline = time.monotonic() + 15
    while old in stored() or new not in stored():
        assert time.monotonic() < deadline, f"the server still holds {stored()}"
        page.wait_for_timeout(50)  # type: ignore[attr-defined]
    assert stored() == {new: (new_keys.p256dh, b64url(new_keys.auth), "en")}
    asked = worker.evaluate("() => self.__asked")
    if with_new:
        assert asked == []  # the browser subscribed already: the worker does not again
    else:
        # subscribed again with the server's VAPID key, as the page handed it over
        server_key = page.evaluate(  # type: ignore[attr-defined]
            """() => fetch("/api/account/notifications", {headers: {Authorization:
                 `Bearer ${JSON.parse(localStorage.getItem("bodoge.token"))}`}})
               .then((r) => r.json()).then((s) => s.push.key)"""
        )
        assert asked == [key_bytes(server_key)]
    # The worker keeps the new endpoint: the next renewal replaces that one.
    deadline = time.monotonic() + 5
    while worker.evaluate("() => readKept().then((k) => k.endpoint)") != new:
        assert time.monotonic() < deadline, "the worker kept the old endpoint"
        page.wait_for_timeout(50)  # type: ignore[attr-defined]

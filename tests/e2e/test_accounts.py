"""Accounts in Chromium: keep a name mid-game, a password sign-in on a second browser, a
passkey on a virtual authenticator (Chrome DevTools Protocol), signing out, throttling."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.e2e import ui
from tests.e2e.conftest import DESKTOP, PHONE, check_socket
from tests.e2e.test_accessibility import Audit
from tests.support.live_server import DEFAULT_ARGS, LiveServer

PASSWORD = "correct horse battery"


@pytest.fixture
def open_at(browser: object) -> Iterator[Callable[..., object]]:
    """A fresh browser context (another device) on ``http://localhost:port`` — passkeys
    need a host name, not an address — with its page's errors collected."""
    contexts, errors = [], []

    def open_(
        server: LiveServer,
        path: str = "/",
        lang: str = "ja",
        *,
        host: str = "localhost",
        viewport: dict[str, int] = DESKTOP,
        proxy: dict[str, str] | None = None,
    ) -> object:
        context = browser.new_context(viewport=viewport, locale="ja-JP", proxy=proxy)  # type: ignore[attr-defined]
        context.add_init_script(
            f"try {{ localStorage.setItem('bodoge.lang', '{lang}'); }} catch (e) {{}}"
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("websocket", lambda ws: check_socket(ws, f"to the page {path}"))
        page.goto(f"http://{host}:{server.port}{path}")
        return page

    yield open_
    for context in contexts:
        context.close()
    assert not errors, f"uncaught errors in the page: {errors}"


def add_authenticator(page: object) -> tuple[object, str]:
    """A platform authenticator with user verification, for this page (CDP ``WebAuthn``)."""
    cdp = page.context.new_cdp_session(page)  # type: ignore[attr-defined]
    cdp.send("WebAuthn.enable", {"enableUI": False})
    found = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return cdp, found["authenticatorId"]


def player_id(page: object) -> str:
    page.wait_for_function("() => window.bodoge.conn.state === 'ready'")  # type: ignore[attr-defined]
    return page.evaluate("() => window.bodoge.conn.player.id")  # type: ignore[attr-defined]


def open_account(page: object) -> None:
    page.click("[data-testid=account-link]")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=account-status], [data-testid=sign-in]")  # type: ignore[attr-defined]


#: What the account page of a guest says about passkeys where they cannot work, per language.
PASSKEY_WHY = {
    "ja": {"ip": "IP アドレス", "https": "HTTPS"},
    "en": {"ip": "IP address", "https": "HTTPS"},
}


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_passkey_buttons_only_where_passkeys_work(
    live_server: LiveServer, open_at, lang: str, viewport: dict[str, int]
) -> None:
    """On 127.0.0.1 (an IP address) or plain HTTP off localhost a browser refuses passkeys:
    no passkey button there, but a note that says why and what to open instead."""
    buttons = "[data-testid=keep-passkey], [data-testid=sign-in-passkey]"

    def guest_account_page(page: object) -> object:
        ui.sign_in(page, "はなこ")
        open_account(page)
        return page

    at_localhost = guest_account_page(open_at(live_server, "/", lang, viewport=viewport))
    at_localhost.wait_for_selector("[data-testid=keep-passkey]")
    assert at_localhost.locator("[data-testid=sign-in-passkey]").count() == 1
    assert at_localhost.locator("[data-testid=passkey-why]").count() == 0

    at_ip = guest_account_page(open_at(live_server, "/", lang, host="127.0.0.1", viewport=viewport))
    at_ip.wait_for_selector("[data-testid=keep-password]")
    assert at_ip.locator(buttons).count() == 0
    notes = at_ip.locator("[data-testid=passkey-why]")
    assert notes.count() == 2  # under keeping a name and under signing in
    for text in notes.all_inner_texts():
        assert PASSKEY_WHY[lang]["ip"] in text and "127.0.0.1" in text, text
    link = notes.first.locator("a")
    assert link.get_attribute("href") == f"http://localhost:{live_server.port}/account"
    link.click()  # localhost is another site: a page of its own, with the passkey sign-in
    at_ip.wait_for_selector("[data-testid=sign-in-passkey]")

    # A host name over plain HTTP (a LAN name, through a proxy that is the server itself;
    # the proxy carries no WebSocket, so this page stays a signed-out one).
    on_lan = open_at(
        live_server,
        "/account",
        lang,
        host="bodoge.lan",
        viewport=viewport,
        proxy={"server": f"http://127.0.0.1:{live_server.port}"},
    )
    on_lan.wait_for_selector("[data-testid=sign-in]")
    assert on_lan.evaluate("() => isSecureContext") is False
    assert on_lan.locator(buttons).count() == 0
    why = on_lan.inner_text("[data-testid=passkey-why]")
    assert PASSKEY_WHY[lang]["https"] in why and "localhost" in why, why


def test_keep_a_name_mid_game_and_sign_in_elsewhere(
    live_server: LiveServer, open_at, screenshot_dir
) -> None:
    laptop = open_at(live_server)
    ui.sign_in(laptop, "はなこ")
    me = player_id(laptop)
    table = ui.start_tagiron_against_bots(laptop, level="easy")
    assert ui.tagiron_turn(laptop) in ("ask", "final", "pass")
    ui.ask_first_card(laptop)

    # Mid-game: keep the name with a password, then go back to the same seat.
    open_account(laptop)
    assert "はなこ" in laptop.inner_text("[data-testid=account-status]")
    ui.screenshots(laptop, screenshot_dir, "account-keep", user_texts=["はなこ"])
    audit = Audit()
    audit.check(laptop, "account, a guest")
    laptop.fill("[data-testid=account-password]", PASSWORD)
    laptop.click("[data-testid=keep-password]")
    laptop.wait_for_selector("[data-testid=password-save]")
    assert laptop.inner_text("[data-testid=account-link]").strip() == "アカウント"
    laptop.goto(f"http://localhost:{live_server.port}/t/{table}")
    ui.wait_board(laptop)
    assert player_id(laptop) == me
    assert ui.tagiron_turn(laptop) in ("ask", "final", "pass", "over")

    # A second browser signs in with the password: the same player, the same seat.
    phone = open_at(live_server, "/")
    phone.click("[data-testid=nick-sign-in]")
    ui.screenshots(phone, screenshot_dir, "sign-in")
    audit.check(phone, "sign in")
    phone.fill("[data-testid=sign-in-name]", "ハナコ")  # another name: refused, nothing learnt
    phone.fill("[data-testid=sign-in-password]", PASSWORD)
    phone.click("[data-testid=sign-in]")
    phone.wait_for_selector(".toast >> text=名前かパスワードが違います")
    phone.fill("[data-testid=sign-in-name]", "はなこ")
    phone.click("[data-testid=sign-in]")
    phone.wait_for_selector("[data-testid=me]")
    assert player_id(phone) == me
    phone.goto(f"http://localhost:{live_server.port}/t/{table}")
    ui.wait_board(phone)
    you = phone.evaluate("() => window.bodoge.app.shownTable.snap.you")
    assert you == 0

    # Sign out on the phone: its token is gone, the laptop stays signed in.
    open_account(phone)
    audit.check(phone, "account")
    audit.assert_clean()
    phone.click("[data-testid=sign-out]")
    phone.wait_for_selector("[data-testid=sign-in]")
    assert phone.evaluate("() => localStorage.getItem('bodoge.token')") is None
    assert player_id(laptop) == me


def test_a_passkey_signs_in_and_sign_out_everywhere(
    live_server: LiveServer, open_at, screenshot_dir
) -> None:
    laptop = open_at(live_server)
    cdp, authenticator = add_authenticator(laptop)
    ui.sign_in(laptop, "Kai")
    me = player_id(laptop)
    open_account(laptop)
    laptop.click("[data-testid=keep-passkey]")
    laptop.wait_for_selector("[data-testid=passkey]")
    assert "Kai" in laptop.inner_text("[data-testid=account-status]")
    credentials = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})[
        "credentials"
    ]
    assert len(credentials) == 1 and credentials[0]["isResidentCredential"]
    ui.screenshots(laptop, screenshot_dir, "account", user_texts=["Kai"])

    # Another device holding the same (synced) passkey signs in without typing a name.
    tablet = open_at(live_server, "/account")
    other_cdp, other = add_authenticator(tablet)
    other_cdp.send(
        "WebAuthn.addCredential", {"authenticatorId": other, "credential": credentials[0]}
    )
    tablet.click("[data-testid=sign-in-passkey]")
    tablet.wait_for_selector("[data-testid=me]")
    assert player_id(tablet) == me

    # The tablet signs out everywhere: the laptop is told, and is nobody until it signs in.
    open_account(tablet)
    tablet.click("[data-testid=sign-out-everywhere]")
    tablet.click("[data-testid=confirm-ok]")
    tablet.wait_for_selector(".toast >> text=ほかのすべての端末からログアウトしました")
    laptop.wait_for_selector(".toast >> text=ログアウトされました。もう一度ログインしてください")
    laptop.wait_for_selector("[data-testid=sign-in]")  # the account page, signed out
    assert laptop.evaluate("() => localStorage.getItem('bodoge.token')") is None
    assert player_id(tablet) == me  # the tablet itself stays signed in, with a new token
    # The laptop signs in again with the passkey, synced back from the tablet (a copy that
    # kept an older signature counter would be refused as a cloned authenticator).
    synced = other_cdp.send("WebAuthn.getCredentials", {"authenticatorId": other})
    cdp.send("WebAuthn.clearCredentials", {"authenticatorId": authenticator})
    cdp.send(
        "WebAuthn.addCredential",
        {"authenticatorId": authenticator, "credential": synced["credentials"][0]},
    )
    laptop.click("[data-testid=sign-in-passkey]")
    laptop.wait_for_selector("[data-testid=me]")
    assert player_id(laptop) == me


def test_sign_ins_are_throttled_in_the_page(make_live_server, open_at) -> None:
    args = list(DEFAULT_ARGS)
    for option in ("--sign-ins-per-hour", "--sign-ins-per-account-hour"):
        at = args.index(option)
        del args[at : at + 2]
    server = make_live_server(args=[*args, "--sign-ins-per-account-hour", "2"])
    page = open_at(server, "/account", lang="en")
    page.fill("[data-testid=sign-in-name]", "someone")
    page.fill("[data-testid=sign-in-password]", "not the password")
    seen = []
    for _ in range(3):
        page.click("[data-testid=sign-in]")
        toast = page.locator(".toast").last
        toast.wait_for()
        seen.append(toast.inner_text().strip())
        page.evaluate("() => document.querySelectorAll('.toast').forEach((t) => t.remove())")
    assert seen == ["Wrong name or password"] * 2 + ["Too many tries; wait a little"]

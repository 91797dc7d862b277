"""The account page's devices in Chromium (issue 27, point 6): two browsers signed in to one
account are listed, this one marked; ending the other closes its socket at once, and that
browser is told it was signed out."""

from __future__ import annotations

from tests.e2e import ui
from tests.e2e.test_accessibility import Audit
from tests.e2e.test_accounts import PASSWORD, open_account, open_at, player_id
from tests.support.live_server import LiveServer

__all__ = ["open_at"]  # the fixture, shared with test_accounts.py


def test_the_account_page_lists_two_devices_and_ends_one(
    live_server: LiveServer, open_at, screenshot_dir
) -> None:
    laptop = open_at(live_server)
    ui.sign_in(laptop, "りん")
    me = player_id(laptop)
    open_account(laptop)
    laptop.fill("[data-testid=account-password]", PASSWORD)
    laptop.click("[data-testid=keep-password]")
    laptop.wait_for_selector("[data-testid=password-save]")
    assert laptop.locator("[data-testid=device]").count() == 1  # the guest's own token

    phone = open_at(live_server, "/account")
    phone.fill("[data-testid=sign-in-name]", "りん")
    phone.fill("[data-testid=sign-in-password]", PASSWORD)
    phone.click("[data-testid=sign-in]")
    phone.wait_for_selector("[data-testid=me]")
    assert player_id(phone) == me

    laptop.goto(f"http://localhost:{live_server.port}/account")
    laptop.wait_for_selector("[data-testid=device] >> nth=1")
    devices = laptop.locator("[data-testid=device]")
    assert devices.count() == 2
    mine = laptop.locator("[data-testid=device][data-this=true]")
    assert mine.count() == 1 and "この端末" in mine.inner_text()
    other = laptop.locator("[data-testid=device][data-this=false]")
    assert "Chrome（Linux）" in other.inner_text() and "127.0.0.1" in other.inner_text()
    assert mine.locator("[data-testid=device-end]").count() == 0
    ui.screenshots(laptop, screenshot_dir, "account-devices", user_texts=["りん"])
    audit = Audit()
    audit.check(laptop, "account, devices")
    audit.assert_clean()

    # Ending the phone's sign-in: its socket closes at once and it is told.
    other.locator("[data-testid=device-end]").click()
    laptop.wait_for_selector(".toast >> text=その端末をログアウトさせました")
    phone.wait_for_selector(".toast >> text=ログアウトされました。もう一度ログインしてください")
    phone.wait_for_function("() => localStorage.getItem('bodoge.token') === null")
    assert laptop.locator("[data-testid=device]").count() == 1
    assert player_id(laptop) == me  # the laptop stays signed in

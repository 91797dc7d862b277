"""The lobby and the waiting room: live tables, bots, languages, and user text kept as text."""

from __future__ import annotations

from tests.e2e import ui

XSS = "<img src=x onerror=alert(1)>"
#: Names have at most 24 characters (docs/protocol.md), too few for the line above.
XSS_NAME = "<svg onload=alert(1)>"

INJECTED_JS = """
() => [...document.querySelectorAll('img, svg')].filter(
  e => e.getAttribute('src') === 'x' || e.hasAttribute('onload')).length
"""


def test_lobby_shows_tables_live_and_speaks_both_languages(open_page, screenshot_dir):
    host, _ = open_page("/")
    ui.sign_in(host, "はなこ")
    guest, _ = open_page("/")
    ui.sign_in(guest, "Mika")
    guest.click("[data-testid=filter-open]")

    table = ui.create_table(host, 3, bots=[(2, "normal")])
    # The guest's lobby shows the new table without a reload, with its free seat.
    card = guest.locator(f"[data-table={table}]")
    card.wait_for()
    assert "はなこ" in card.inner_text()
    # The host is in the waiting room: one person has the table open.
    online = card.locator("[data-testid=table-online]")
    online.wait_for()
    assert online.inner_text().strip() == "1人がいます"
    ui.screenshots(guest, screenshot_dir, "lobby", user_texts=["はなこ", "Mika"])

    # Joining by click lands in the waiting room; the host sees the seat taken live.
    card.locator("[data-testid=join]").click()
    guest.wait_for_selector("[data-testid=seats]")
    host.wait_for_function(
        "() => document.querySelector('[data-testid=seats]').innerText.includes('Mika')"
    )
    start = host.locator("[data-testid=start]")
    assert not start.is_disabled()
    # A passer-by's lobby, in English, counts both people at the (full) table live.
    passer, _ = open_page("/")
    ui.sign_in(passer, "Rin")
    ui.set_lang(passer, "en")
    passer.click("[data-testid=filter-running]")
    passer.wait_for_function(
        "t => document.querySelector(`[data-table=${t}] [data-testid=table-online]`)"
        "?.innerText.trim() === '2 people here'",
        arg=table,
    )
    # The host leaves the waiting room for the lobby: one person is left there.
    room = host.url
    host.goto(room.split("/t/")[0] + "/")
    passer.wait_for_function(
        "t => document.querySelector(`[data-table=${t}] [data-testid=table-online]`)"
        "?.innerText.trim() === '1 person here'",
        arg=table,
    )
    host.goto(room)
    host.wait_for_selector("[data-testid=seats]")
    # The host can take the bot out again and put one back at another level.
    host.click("[data-testid=remove-bot-2]")
    host.wait_for_selector("[data-testid=add-bot-2]")
    assert start.is_disabled()
    host.select_option("[data-testid=bot-level-2]", "expert")
    host.click("[data-testid=add-bot-2]")
    host.wait_for_selector("[data-testid=remove-bot-2]")
    ui.screenshots(host, screenshot_dir, "waiting-room", user_texts=["はなこ", "Mika"])

    # The language choice is remembered by the browser.
    ui.set_lang(guest, "en")
    guest.reload()
    guest.wait_for_selector("[data-testid=seats]")
    assert guest.get_attribute("html", "lang") == "en"
    ui.assert_no_japanese(guest, ["はなこ", "Mika"])


def test_names_and_chat_are_text_never_markup(open_page):
    evil, evil_problems = open_page("/")
    ui.sign_in(evil, XSS_NAME)
    assert evil.inner_text("[data-testid=me]").strip() == XSS_NAME
    table = ui.create_table(evil, 2)

    watcher, watcher_problems = open_page("/")
    ui.sign_in(watcher, "Ken")
    watcher.locator(f"[data-table={table}]").wait_for()
    assert XSS_NAME in watcher.locator(f"[data-table={table}]").inner_text()

    watcher.goto(evil.url)
    watcher.wait_for_selector("[data-testid=seats]")
    assert XSS_NAME in watcher.inner_text("[data-testid=seats]")

    evil.fill("[data-testid=chat-input]", XSS)
    evil.press("[data-testid=chat-input]", "Enter")
    watcher.wait_for_function(
        "t => document.querySelector('[data-testid=chat-lines]').innerText.includes(t)", arg=XSS
    )
    evil.wait_for_function(
        "t => document.querySelector('[data-testid=chat-lines]').innerText.includes(t)", arg=XSS
    )
    for page, problems in ((evil, evil_problems), (watcher, watcher_problems)):
        assert page.evaluate(INJECTED_JS) == 0
        assert problems.dialogs == []

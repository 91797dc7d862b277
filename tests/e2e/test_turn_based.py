"""Two people play a turn-based Tagiron game in two browsers, one in Japanese and one in
English: the mode chosen in the lobby's form and shown in the lobby and the waiting room,
"Your games" and the header's badge telling each whose turn it is, one click to the table.

Here the people answer at once, within their hour per move; whole games over simulated
days, with timeouts, a vacation, notifications and a restart, are in
``tests/e2e/test_turn_based_days.py`` (and in process in ``tests/server/test_turn_based.py``).
"""

from __future__ import annotations

import re

from tests.e2e import ui
from tests.e2e.test_accessibility import Audit


def badge(page: object) -> str | None:
    found = page.locator("[data-testid=turn-badge]")  # type: ignore[attr-defined]
    return found.inner_text() if found.count() else None


def test_two_people_play_a_turn_based_game_with_your_games(open_page, screenshot_dir):
    hana, _ = open_page("/")
    ui.sign_in(hana, "はなこ")
    hana.click("[data-testid=players-2]")
    hana.select_option("[data-testid=turn-based]", "3600")
    # Turn-based, the real-time turn limit and the bots' pace do not apply.
    assert hana.locator("[data-testid=turn-seconds]").count() == 0
    assert hana.locator("[data-testid=bot-pace]").count() == 0
    hana.click("[data-testid=create-table]")
    hana.wait_for_url(re.compile(r".*/t/[A-Za-z0-9_-]+$"))
    hana.wait_for_selector("[data-testid=seats]")
    table = hana.url.rstrip("/").rsplit("/", 1)[1]
    assert "ターン制（1手 1時間）" in hana.locator("[data-testid=field-turn_based]").inner_text()

    # Taro, in English, sees it in the lobby as a turn-based table and sits.
    taro, _ = open_page("/", lang="en")
    ui.sign_in(taro, "Taro")
    card = taro.locator(f"[data-table={table}]")
    card.wait_for()
    assert "Turn-based, 1 hour per move" in card.inner_text()
    taro.goto(taro.url.rstrip("/") + f"/t/{table}")
    taro.click("[data-testid=sit-1]")
    assert (
        "Turn-based (1 hour per move)"
        in taro.locator("[data-testid=field-turn_based]").inner_text()
    )
    hana.locator("[data-testid=start]:not([disabled])").click()
    ui.wait_board(hana)
    ui.wait_board(taro)

    first, second = (hana, taro) if ui.is_my_turn(hana) else (taro, hana)
    # The first player's Your games: this table, waiting for them, with the time left.
    first.click("[data-testid=games-link]")
    first.wait_for_selector("[data-testid=your-turn-list]")
    row = first.locator(f"[data-testid=mygame-{table}]")
    left = row.locator("[data-testid=time-left]").inner_text()
    assert re.search(r"(59|58)", left), left
    first.wait_for_function(
        "() => document.querySelector('[data-testid=turn-badge]')?.textContent === '1'"
    )
    second.click("[data-testid=games-link]")
    second.wait_for_selector("[data-testid=none-your-turn]")
    assert second.locator(f"[data-testid=other-list] [data-testid=mygame-{table}]").count() == 1
    assert badge(second) is None  # never shown to the one not awaited
    ui.screenshots(first, screenshot_dir, "your-games", user_texts=["はなこ", "Taro"])
    audit = Audit()
    audit.check(first, "your games, your turn")
    audit.check(second, "your games, waiting for the other")
    audit.assert_clean()

    # One click back to the table; a question passes the turn, and the badges follow.
    row.click()
    ui.wait_board(first)
    ui.ask_first_card(first)
    ui.wait_move(first, 1)
    first.wait_for_function("() => !document.querySelector('[data-testid=turn-badge]')")
    # The second player comes back to the site later: the badge and the list show it.
    second.reload()
    second.wait_for_function(
        "() => document.querySelector('[data-testid=turn-badge]')?.textContent === '1'"
    )
    second.wait_for_selector(f"[data-testid=your-turn-list] [data-testid=mygame-{table}]")
    second.click(f"[data-testid=mygame-{table}]")
    ui.wait_board(second)
    ui.wait_move(second, 1)

    # The second player names the first player's tiles (read off the first's screen) and
    # wins at once: the game is over, and no table waits for either any more.
    ui.declare(second, ui.my_tiles(first))
    for page in (first, second):
        page.wait_for_selector("[data-testid=result]")
        page.click("[data-testid=games-link]")
        page.wait_for_selector("[data-testid=none-your-turn]")
        assert page.locator(f"[data-testid=mygame-{table}]").count() == 0
        page.wait_for_function("() => !document.querySelector('[data-testid=turn-badge]')")


def test_the_vacation_switch_on_your_games_and_on_ones_own_profile(open_page):
    ken, _ = open_page("/", lang="en")
    ui.sign_in(ken, "Ken")
    ken.click("[data-testid=games-link]")
    ken.wait_for_selector("[data-testid=vacation-left]")
    assert ken.locator("[data-testid=vacation-left]").inner_text() == "30 days left this year"
    ken.fill("[data-testid=vacation-days]", "2")
    ken.click("[data-testid=vacation-start]")
    ken.wait_for_selector("[data-testid=vacation-until]")
    assert ken.locator("[data-testid=vacation-left]").inner_text() == "28 days left this year"
    # One's own profile shows the same switch; someone else's does not.
    me = ken.evaluate("() => window.bodoge.conn.player.id")
    ken.goto(ken.url.split("/games")[0] + f"/p/{me}")
    ken.wait_for_selector("[data-testid=vacation-end]")
    ui.set_lang(ken, "ja")
    assert "休暇中" in ken.locator("[data-testid=vacation-until]").inner_text()
    ken.click("[data-testid=vacation-end]")
    ken.wait_for_selector("[data-testid=vacation-start]")
    # Ended on its first day: that day counts, the day not begun is given back.
    assert ken.locator("[data-testid=vacation-left]").inner_text() == "今年の残り: 29日"
    other, _ = open_page("/")
    ui.sign_in(other, "Mia")
    other.goto(other.url.rstrip("/") + f"/p/{me}")
    other.wait_for_selector("[data-testid=stats-tagiron], .profile-head")
    assert other.locator("[data-testid=vacation-start]").count() == 0

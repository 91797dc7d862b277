"""Two people play a whole 2-player Tagiron game against each other, in two browsers.

The quick path: four questions, a wrong declaration by the first player, then
the second player declares the first player's tiles — read off the first
player's own screen — and wins at once, as the rules say.  On the way: a reload
keeps the view and the memo sheet, English replaces every interface string,
and the replay steps through the finished game.
"""

from __future__ import annotations

from tests.e2e import ui
from tests.e2e.conftest import PHONE


def wrong_guess(truth: list[str], mine: list[str]) -> list[str]:
    """Five tiles in hand order that are possible but not the truth."""
    from bodoge.games.tagiron.tiles import TILE_CODES, sort_hand

    free = [c for c in TILE_CODES if c not in mine or c == "G5"]
    for start in range(len(free) - 4):
        guess = list(sort_hand(free[start : start + 5]))
        if guess != truth:
            return guess
    raise AssertionError("no wrong guess")


def test_two_browsers_play_a_whole_game(open_page, screenshot_dir):
    hana, _ = open_page("/")
    ui.sign_in(hana, "はなこ")
    table = ui.create_table(hana, 2)
    assert hana.locator("[data-testid=start]").is_disabled()

    # Taro follows the invite link, picks a nickname and takes the free seat.
    taro, _ = open_page(f"/t/{table}")
    ui.sign_in(taro, "Taro")
    taro.click("[data-testid=sit-1]")
    hana.locator("[data-testid=start]:not([disabled])").click()
    ui.wait_board(hana)
    ui.wait_board(taro)

    first, second = (hana, taro) if ui.is_my_turn(hana) else (taro, hana)
    assert ui.is_my_turn(first) and not ui.is_my_turn(second)
    assert len(ui.my_tiles(first)) == 5 and len(ui.my_tiles(second)) == 5
    # Each screen shows the opponent's five tiles face down, never their numbers.
    assert second.locator(".tg-screen .tt--back").count() == 5
    assert second.locator(".tg-screen [data-tile]").count() == 0

    for n in range(1, 5):
        asker = first if n % 2 else second
        if n == 3:
            # By keyboard alone: focus a card, Enter opens it, Enter asks.
            card = asker.locator(".qc--live").first.get_attribute("data-card")
            asker.focus(f"[data-key=card-{card}]")
            asker.keyboard.press("Enter")
            asker.wait_for_selector(".qc-ask")
            asker.keyboard.press("Enter")
        else:
            ui.ask_first_card(asker)
        ui.wait_move(hana, n)
        ui.wait_move(taro, n)
    assert hana.locator("[data-testid=log-entry]").count() == 4
    # Every answer is drawn: a number, or a row of small tiles for positions and runs.
    assert hana.locator("[data-testid=log-entry] [data-testid=answer]").count() >= 4

    # Someone else watches from the lobby's running tables: no hidden tile is shown.
    watcher, _ = open_page("/")
    ui.sign_in(watcher, "Ken")
    watcher.click("[data-testid=filter-running]")
    watcher.locator(f"[data-table={table}] a.btn").click()
    ui.wait_move(watcher, 4)
    assert watcher.locator(".tg-screen").count() == 2
    assert watcher.locator(".tg-screen .tt--back").count() == 10
    assert watcher.locator("[data-testid=tagiron] [data-tile]:visible").count() == 0
    assert not watcher.is_visible("[data-testid=my-tiles]")
    assert not watcher.is_visible("[data-testid=declare]")

    ui.screenshots(
        hana,
        screenshot_dir,
        "tagiron-2p",
        user_texts=["はなこ", "Taro"],
        before=lambda p: None,
    )

    # Marks on the memo sheet survive a reload, as do the tiles and the log.
    tiles_before = ui.my_tiles(first)
    first.click("[data-testid=tab-memo]") if first.is_visible("[data-testid=tab-memo]") else None
    cell = first.locator("[data-testid=memo-cell-2-R3]")
    cell.click()  # ✕
    # The grid is one tab stop; arrow keys move inside it, Enter marks.
    first.keyboard.press("ArrowRight")
    first.keyboard.press("ArrowDown")
    first.keyboard.press("Enter")
    assert first.get_attribute("[data-testid=memo-cell-3-B3]", "data-mark") == "x"
    first.locator("[data-testid=memo-cell-4-B7]").click()
    first.locator("[data-testid=memo-cell-4-B7]").click()  # ○
    first.fill("[data-testid=memo-notes]", "赤は多め")
    first.reload()
    ui.wait_board(first)
    ui.wait_move(first, 4)
    assert ui.my_tiles(first) == tiles_before
    assert first.locator("[data-testid=log-entry]").count() == 4
    assert first.get_attribute("[data-testid=memo-cell-2-R3]", "data-mark") == "x"
    assert first.get_attribute("[data-testid=memo-cell-3-B3]", "data-mark") == "x"
    assert first.get_attribute("[data-testid=memo-cell-4-B7]", "data-mark") == "o"
    assert first.input_value("[data-testid=memo-notes]") == "赤は多め"

    # A wrong declaration: both learn it was wrong, and the turn passes on.
    truth_of_first = ui.my_tiles(first)
    truth_of_second = ui.my_tiles(second)
    ui.declare(first, wrong_guess(truth_of_second, truth_of_first))
    ui.wait_move(second, 5)
    for page in (first, second):
        verdict = page.locator("[data-testid=log-entry]").last.locator("[data-testid=verdict]")
        assert "lg--wrong" in page.locator("[data-testid=log-entry]").last.get_attribute("class")
        assert verdict.count() == 1
    assert ui.is_my_turn(second)

    # The second player names the first player's tiles in order and wins at once.
    ui.declare(second, truth_of_first)
    for page in (first, second):
        page.wait_for_selector("[data-testid=result]")
        ui.assert_page_matches_snapshot(page)
    assert second.locator(".tg-result-head h2").inner_text() in ("あなたの勝ち！", "You win!")
    # At the end every tile is revealed: the first player now sees the second's hand.
    revealed = first.eval_on_selector_all(
        ".tg-screen [data-tile]", "els => els.map(e => e.dataset.tile)"
    )
    assert revealed == truth_of_second
    assert first.locator("[data-testid=declare]").count() == 0 or not first.is_visible(
        "[data-testid=declare]"
    )

    ui.screenshots(second, screenshot_dir, "tagiron-end", user_texts=["はなこ", "Taro"])

    # The replay steps through the finished game.
    second.click("[data-testid=replay-link]")
    second.wait_for_selector("[data-testid=replay-page] [data-testid=tagiron]")
    assert second.input_value("[data-testid=replay-slider]") == "6"
    second.click("[data-testid=replay-first]")
    ui.wait_move(second, 0)
    assert second.locator("[data-testid=log-entry]").count() == 0
    second.keyboard.press("ArrowRight")
    second.wait_for_function(
        "() => document.querySelectorAll('[data-testid=log-entry]').length === 1"
    )
    # The replay shows every hand: the game is over.
    assert second.locator(".tg-screen [data-tile]").count() == 10
    second.set_viewport_size(PHONE)
    second.screenshot(path=str(screenshot_dir / "tagiron-replay-phone-ja.png"))

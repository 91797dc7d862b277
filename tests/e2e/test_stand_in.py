"""Bots in the player's place, seen in the browser (issue 14, points 1, 4 and 10).

* The host picks the bots' pace when creating a table, and the waiting room shows it.
* A move the stand-in bot played after a timeout is marked in the log for every seat —
  「時間切れ・代打ち」 for the late player, a neutral 「時間切れ」 for the others — and the
  late player gets a toast. Both games, live, after a reload (the snapshot's
  ``timed_out`` and, in Illustori, the view's ``log_moves``) and in their replays.
* A player who left a running game keeps their name, marked as played by a bot, at the
  table and in the lobby. Both games.
"""

from __future__ import annotations

import re
from typing import Any

from tests.e2e import ui
from tests.e2e.test_illustori import BOARD

Page = Any

LATE = "[data-testid=stand-in]"


def create_by_request(page: Page, game: str, options: dict[str, Any], bots: int) -> str:
    """A table with a 5-second turn limit (the lobby offers 30 s at least), then its page."""
    table = page.evaluate(
        """async ([game, options, bots]) => {
          const ack = await window.bodoge.conn.request({
            type: 'table.create', game, options,
            settings: {turn_seconds: 5, timeout_bot: 'easy', bot_pace: 'slow'},
            bots: Array.from({length: bots}, (_, i) => ({seat: i + 1, level: 'easy'})),
          });
          return ack.table;
        }""",
        [game, options, bots],
    )
    page.goto(re.sub(r"/(t/.*)?$", "", page.url) + f"/t/{table}")
    page.wait_for_selector("[data-testid=seats]")
    return table


def test_the_host_picks_the_bot_pace_and_the_waiting_room_shows_it(open_page):
    page, _ = open_page("/")
    ui.sign_in(page, "はなこ")
    assert page.input_value("[data-testid=bot-pace]") == "normal"  # the default
    page.select_option("[data-testid=bot-pace]", "slow")
    ui.create_table(page, 3, bots=[(1, "expert"), (2, "normal")])
    # The host sees it as the control that changes it (a guest as text: test_room.py).
    pace = "[data-testid=field-edit-bot_pace]"
    chosen = "e => e.selectedOptions[0].textContent"
    assert page.eval_on_selector(pace, chosen) == "ゆっくり（4〜12秒）"
    ui.set_lang(page, "en")
    assert page.eval_on_selector(pace, chosen) == "Slow (4–12 s)"
    ui.set_lang(page, "ja")
    created = page.evaluate("() => window.bodoge.app.shownTable.snap.table.settings.bot_pace")
    assert created == "slow"


def _late_in_tagiron(page: Page) -> None:
    """Wait through one of our turns doing nothing: the stand-in plays it."""
    ui.tagiron_turn(page)
    page.wait_for_selector(f"[data-testid=log-entry] {LATE}", timeout=15_000)


def test_tagiron_stand_in_moves_are_marked_and_a_leaver_keeps_their_name(open_page, screenshot_dir):
    page, _ = open_page("/")
    ui.sign_in(page, "はなこ")
    table = create_by_request(page, "tagiron", {"players": 2}, bots=1)
    page.locator("[data-testid=start]:not([disabled])").click()
    ui.wait_board(page)
    watcher, _ = open_page(f"/t/{table}")
    ui.sign_in(watcher, "みるこ")
    watcher.wait_for_selector("[data-testid=tagiron]")

    _late_in_tagiron(page)
    # The late player: a toast and the personal mark; a watcher: the neutral one.
    page.wait_for_selector(".toast:has-text('時間切れ：代打ちボットがあなたの代わりに打ちました')")
    assert page.inner_text(LATE) == "時間切れ・代打ち"
    watcher.wait_for_selector(LATE)
    assert watcher.inner_text(LATE) == "時間切れ"
    ui.set_lang(page, "en")
    assert page.inner_text(LATE) == "timed out — played for you"
    ui.set_lang(page, "ja")

    # A reload (a snapshot, not the live event) keeps the mark.
    page.reload()
    page.wait_for_selector(LATE)
    assert page.inner_text(LATE) == "時間切れ・代打ち"
    marked = page.locator("[data-testid=log-entry]").filter(has=page.locator(LATE))
    n = int(marked.first.get_attribute("data-n"))

    # はなこ leaves: a bot plays her seat, and everybody still sees her name.
    page.click("[data-testid=leave]")
    page.click("[data-testid=confirm-ok]")
    page.wait_for_url(re.compile(r".*/$"))
    # (Her name plate, and once the bots have finished the game, her line of the result.)
    chips = watcher.locator(".seat-chip[data-seat='0']")
    chips.filter(has_text="ボットが代打ち").first.wait_for()
    for text in chips.all_inner_texts():
        assert "はなこ" in text and "ボット1" not in text
    assert "ボット1" not in watcher.inner_text("[data-testid=tagiron]")

    # The replay of the finished game shows the mark on the same move.
    watcher.wait_for_selector("[data-testid=replay-link]", timeout=60_000)
    if screenshot_dir:
        ui.screenshots(
            watcher,
            screenshot_dir,
            "tagiron-stand-in",
            user_texts=["はなこ", "みるこ"],
            before=lambda p: (
                ui.show_panel(p, "log"),
                p.locator(LATE).first.scroll_into_view_if_needed(),
            ),
        )
    watcher.click("[data-testid=replay-link]")
    watcher.wait_for_selector("[data-testid=replay-page] [data-testid=tagiron]")
    entry = watcher.locator(f"[data-testid=log-entry][data-n='{n}']")
    assert entry.locator(LATE).inner_text() == "時間切れ"


def test_illustori_stand_in_moves_are_marked_and_a_leaver_keeps_their_name(open_page):
    page, _ = open_page("/")
    ui.sign_in(page, "はなこ")
    table = create_by_request(page, "illustori", {"players": 3, "language": "ja"}, bots=1)
    # A second person sits too, so that the game goes on (at the turn limit's pace) after
    # はなこ leaves, long enough to be seen in the lobby.
    other, _ = open_page(f"/t/{table}")
    ui.sign_in(other, "みるこ")
    other.click("[data-testid=sit-2]")
    page.locator("[data-testid=start]:not([disabled])").click()
    page.wait_for_selector(BOARD)
    watcher, _ = open_page("/")
    ui.sign_in(watcher, "みるこの友だち")

    # Doing nothing on our turn (playing a word or voting): the stand-in plays for us, and
    # for みるこ, who does nothing either.
    mine = f"[data-testid=log-entry] {LATE}:text-is('時間切れ・代打ち')"
    page.wait_for_selector(mine, timeout=40_000)
    page.wait_for_selector(".toast:has-text('時間切れ：代打ちボットがあなたの代わりに打ちました')")
    other.wait_for_selector(f"{LATE}:text-is('時間切れ')")  # はなこ's move, or its own
    # A reload (a snapshot, not the live event) keeps the mark, on the same line: the same
    # word (a verdict may complete the line meanwhile), or an exchange.
    marked = page.locator("[data-testid=log-entry]").filter(
        has=page.locator(f"{LATE}:text-is('時間切れ・代打ち')")
    )
    word = re.compile(r"「(.+?)」")
    before = word.search(marked.first.locator(".lg-text").inner_text())
    page.reload()
    page.wait_for_selector(BOARD)
    page.wait_for_selector(mine)
    after = word.search(marked.first.locator(".lg-text").inner_text())
    assert (before and before[1]) == (after and after[1])

    page.click("[data-testid=leave]")
    page.click("[data-testid=confirm-ok]")
    page.wait_for_url(re.compile(r".*/$"))
    # In the lobby's running tables, and at the table, she keeps her name.
    watcher.click("[data-testid=filter-running]")
    card = watcher.locator(f"[data-table='{table}']")
    card.filter(has_text="はなこ").wait_for()
    assert "ボットが代打ち" in card.inner_text()
    watcher.goto(re.sub(r"/$", "", watcher.url) + f"/t/{table}")
    watcher.wait_for_selector(BOARD)
    chip = watcher.locator(".seat-chip[data-seat='0']").first
    chip.filter(has_text="ボットが代打ち").wait_for()
    assert "はなこ" in chip.inner_text()


def test_illustori_replay_marks_the_stand_ins_words(open_page):
    page, _ = open_page("/")
    ui.sign_in(page, "はなこ")
    table = create_by_request(page, "illustori", {"players": 3, "language": "ja"}, bots=2)
    page.locator("[data-testid=start]:not([disabled])").click()
    page.wait_for_selector(BOARD)
    mine = f"[data-testid=log-entry] {LATE}:text-is('時間切れ・代打ち')"
    page.wait_for_selector(mine, timeout=40_000)
    marked = page.locator("[data-testid=log-entry]").filter(has=page.locator(LATE)).first
    text = marked.locator(".lg-text").inner_text()
    # はなこ leaves: the bots finish the game at once, and the replay shows the same mark.
    page.click("[data-testid=leave]")
    page.click("[data-testid=confirm-ok]")
    page.wait_for_url(re.compile(r".*/$"))
    watcher, _ = open_page(f"/t/{table}")
    ui.sign_in(watcher, "みるこ")
    watcher.wait_for_selector("[data-testid=replay-link]", timeout=60_000)
    watcher.click("[data-testid=replay-link]")
    watcher.wait_for_selector(f"[data-testid=replay-page] {BOARD}")
    again = watcher.locator("[data-testid=log-entry]").filter(has=watcher.locator(LATE)).first
    again.wait_for()
    assert again.locator(LATE).inner_text() == "時間切れ"
    # The same word (the leaver's name now reads as played by a bot).
    word = re.compile(r"「(.+?)」")  # an exchange has none: then only "no word" matches
    said, replayed = word.search(text), word.search(again.locator(".lg-text").inner_text())
    assert (said and said[1]) == (replayed and replayed[1])

"""The smaller things of the table, each seen in the browser (issue 14, point 10).

* The waiting room says everyone is there once every seat is filled, and only a game
  in play shows a clock (not the waiting room, not a finished game).
* The "ask this question" buttons open under the card, never over its question.
* A confirmation dialog leaves no "Form submission canceled" warning in the console.
* The replay's pause button shows a pause mark, and the replay has no memo sheet.
* Tagiron's same-colour card uses the corrected wording 「同じ色が連続している…」.
* Illustori: a half-typed word (and the card it names) survives a reload; the OpenMoji
  credit is in the page's language.
* The first visit follows the browser's language (Japanese for any other); a switch is
  remembered.
"""

from __future__ import annotations

from typing import Any

from tests.e2e import ui
from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.test_illustori import BOARD, create_illustori, ja_word, next_heads

Page = Any

FORM_WARNING = "Form submission canceled"


def boxes_overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_tagiron_waiting_room_clock_dialogs_ask_buttons_and_replay(open_page):
    page, _ = open_page("/")
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    ui.sign_in(page, "はなこ")
    ui.create_table(page, 2, bots=[(1, "expert")], assistant=False, turn_seconds=60)

    # Every seat is taken: the room no longer waits for players, and shows no 1:00 yet.
    turn = page.locator("[data-testid=turn]")
    assert turn.inner_text() == "全員そろいました。ゲームを開始できます"
    assert page.inner_text("[data-testid=clock]").strip() == ""
    ui.set_lang(page, "en")
    assert turn.inner_text() == "Everyone is here: you can start the game"
    ui.set_lang(page, "ja")
    page.click("[data-testid=remove-bot-1]")
    page.wait_for_selector("[data-testid=add-bot-1]")
    assert turn.inner_text() == "参加者を待っています"
    page.click("[data-testid=add-bot-1]")
    page.wait_for_selector("[data-testid=remove-bot-1]")

    page.locator("[data-testid=start]:not([disabled])").click()
    ui.wait_board(page)
    assert ui.tagiron_turn(page) == "ask"
    # In play, the turn's clock counts down from 1:00.
    page.wait_for_function(
        "() => /^[01]:\\d\\d$/.test(document.querySelector('[data-testid=clock]').innerText.trim())"
    )

    # The same-colour card reads as seed 000 corrected it, wherever the page shows it.
    wording = page.evaluate(
        "async () => { const m = await import('/static/games/tagiron/cards.js');"
        " const s = await import('/static/games/tagiron/strings.js');"
        " return [m.CARDS.same_colour_runs.ja, s.STRINGS.ja['tg.card.same_colour_runs']]; }"
    )
    assert wording == ["同じ色が連続している数字タイルはどこ？", "同じ色が連続する位置"]

    # The ask buttons open under the chosen card: its question stays readable.
    for viewport in (DESKTOP, PHONE):
        page.set_viewport_size(viewport)
        card = page.locator(".qc--live").first
        card_id = card.get_attribute("data-card")
        card.locator(".qc-face").click()
        ask = page.locator(f".qc[data-card='{card_id}'] .qc-ask")
        ask.wait_for()
        text = page.locator(f".qc[data-card='{card_id}'] .qc-text").bounding_box()
        assert not boxes_overlap(ask.bounding_box(), text), viewport
        page.locator(f".qc[data-card='{card_id}'] .qc-cancel").click()
    page.set_viewport_size(DESKTOP)

    # A confirmation dialog (clearing the memo) closes without a console warning.
    if page.is_visible("[data-testid=tab-memo]"):
        page.click("[data-testid=tab-memo]")
    page.click("[data-key=memo-clear]")
    page.click("[data-testid=confirm-ok]")
    page.wait_for_selector("[data-testid=confirm]", state="detached")
    page.click("[data-key=memo-clear]")
    page.keyboard.press("Enter")  # submitting by keyboard
    page.wait_for_selector("[data-testid=confirm]", state="detached")
    page.evaluate("() => new Promise(r => setTimeout(r, 100))")
    assert not [w for w in warnings if FORM_WARNING in w]

    ui.play_tagiron_to_the_end(page)
    # A finished game keeps no (greyed) clock.
    page.wait_for_function(
        "() => document.querySelector('[data-testid=clock]').innerText.trim() === ''"
    )
    assert page.locator("[data-testid=clock] svg").count() == 0

    # The replay: a pause mark while it plays, and no memo sheet to write on.
    page.click("[data-testid=replay-link]")
    page.wait_for_selector("[data-testid=replay-page] [data-testid=tagiron]")
    page.click("[data-testid=replay-first]")
    page.click("[data-testid=replay-play]")
    play = page.locator("[data-testid=replay-play]")
    assert play.locator("svg[data-icon=pause]").count() == 1
    assert play.get_attribute("aria-label") == "一時停止"
    assert page.locator("[data-testid=memo], [data-testid=tab-memo]").count() == 0
    page.set_viewport_size(PHONE)
    assert page.locator("[data-testid=tab-memo], [data-testid=memo]").count() == 0
    play.click()
    assert play.locator("svg[data-icon=play]").count() == 1


def test_illustori_keeps_a_half_typed_word_and_credits_openmoji_in_japanese(open_page):
    page, _ = open_page("/")
    ui.sign_in(page, "はなこ")
    create_illustori(page, 3, bots=((1, "normal"), (2, "normal")), seed=11)
    page.locator("[data-testid=start]:not([disabled])").click()
    page.wait_for_selector(BOARD)

    credit = page.locator("[data-testid=attribution]")
    assert "ライセンス" in credit.inner_text() and "OpenMoji" in credit.inner_text()
    assert credit.locator("a[href='https://openmoji.org/']").count() == 1
    ui.set_lang(page, "en")
    assert credit.inner_text().startswith("All emojis designed by OpenMoji")
    ui.set_lang(page, "ja")

    # Until this seat names a card: vote OK for the bots' words meanwhile.
    for _ in range(60):
        page.wait_for_function(
            "() => document.querySelector('[data-testid=vote-ok], [data-testid=word-form],"
            " [data-testid=hand] button.ic:not([disabled])')",
            timeout=30_000,
        )
        if page.locator("[data-testid=vote-ok]").count():
            page.click("[data-testid=vote-ok]")
            page.wait_for_selector("[data-testid=vote-ok]", state="detached")
            continue
        break
    first_word = page.locator("[data-testid=word-form]").count() > 0
    if first_word:
        half, card = "つき", None
    else:
        card = page.locator("[data-testid=hand] button.ic:not([disabled])").first
        card_id = card.get_attribute("data-card")
        card.click()
        half = ja_word(next_heads(page))[:2]
    page.fill("[data-testid=word]", half)
    page.reload()
    page.wait_for_selector("[data-testid=word]")
    assert page.input_value("[data-testid=word]") == half
    if not first_word:
        assert page.get_attribute(f"[data-testid=hand-{card_id}]", "aria-pressed") == "true"
    # Sent, the draft is gone: a reload brings no old text back.
    page.fill("[data-testid=word]", "つきよ" if first_word else ja_word(next_heads(page)))
    page.click("[data-testid=send]")
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=word]')"
        " || document.querySelector('[data-testid=word]').value === ''"
    )
    assert page.evaluate("() => Object.keys(localStorage).filter(k => k.endsWith('.draft'))") == []


def test_first_visit_follows_the_browser_language(browser, live_server):
    contexts = []
    try:
        expected_by_locale = {"en-US": "en", "en-GB": "en", "fr-FR": "ja", "ja-JP": "ja"}
        for locale, expected in expected_by_locale.items():
            context = browser.new_context(locale=locale, viewport=DESKTOP)
            contexts.append(context)
            page = context.new_page()
            page.goto(live_server.url)
            page.wait_for_selector("[data-testid=nickname]")
            assert page.get_attribute("html", "lang") == expected, locale
        # English browser: a switch to Japanese is remembered over the browser's language.
        page = contexts[0].pages[0]
        ui.set_lang(page, "ja")
        page.reload()
        page.wait_for_selector("[data-testid=nickname]")
        assert page.get_attribute("html", "lang") == "ja"
        assert "ようこそ" in page.inner_text("main")
    finally:
        for context in contexts:
            context.close()

"""Tagiron explains itself in the browser (issue 14, point 3).

* A rules panel in both languages: the goal, the set-up for 2, 3 and 4 players (this
  table's count marked), a turn, declaring per player count, the memo sheet and the
  legend of the marks on the cards (Σ ↓ ↔ ↕, shared, the choice of a number).
* Every question card explains itself on hover, on keyboard focus and on a long
  press: what it asks, how it is answered and the answer of an example hand — the
  example answers are the engine's (``answers.answer``) for every card.
"""

from __future__ import annotations

from typing import Any

from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.cards import CARDS
from tests.e2e import ui
from tests.e2e.conftest import PHONE

Page = Any
TIP = "[data-testid=card-tip]"

EXAMPLES_JS = """
async () => {
  const m = await import('/static/games/tagiron/explain.js');
  const { CARDS } = await import('/static/games/tagiron/cards.js');
  const out = {};
  for (const size of [5, 4]) {
    const hand = m.EXAMPLE_HANDS[size];
    for (const card of Object.keys(CARDS)) {
      const choice = m.exampleChoice(card, hand);
      out[`${size}:${card}`] = { hand, choice, value: m.answerOf(card, hand, choice) };
    }
  }
  return out;
}
"""


def tip_shown(page: Page) -> bool:
    return page.evaluate(
        "() => document.querySelector('[data-testid=card-tip]')?.matches(':popover-open') ?? false"
    )


def test_example_answers_are_the_engines(open_page):
    page, _ = open_page("/")
    page.wait_for_selector("[data-testid=nickname]")
    examples = page.evaluate(EXAMPLES_JS)
    assert len(examples) == 2 * len(CARDS)
    for key, ex in examples.items():
        card = key.split(":", 1)[1]
        if len(ex["hand"]) == 4 and card in ("mid3_sum", "centre_high_low"):
            continue  # not played with 4 players
        assert ex["value"] == answer(card, ex["hand"], ex["choice"]), key
        if CARDS[card].choices:
            assert ex["choice"] in CARDS[card].choices


def test_rules_panel_and_cards_that_explain_themselves(open_page, screenshot_dir):
    page, _ = open_page("/")
    ui.sign_in(page, "はなこ")
    ui.start_tagiron_against_bots(page, 2)
    assert ui.tagiron_turn(page) == "ask"

    # On a wide screen the rules share the memo's column, closed until asked for.
    toggle = page.locator("[data-testid=panel-toggle-rules]")
    assert toggle.get_attribute("aria-expanded") == "false"
    rules = page.locator("[data-testid=rules]")
    assert not rules.is_visible()
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    assert rules.is_visible()
    # The panels scroll inside the table; the page itself does not (nothing leaks out).
    assert page.evaluate("() => document.scrollingElement.scrollHeight <= innerHeight")
    text = rules.inner_text()
    for words in ("相手の5枚", "後攻", "最後の宣言", "1人1回", "脱落", "共有情報カード", "メモ"):
        assert words in text, words
    here = page.locator(".tg-rules-count.is-here")
    assert here.evaluate_all("els => els.map(e => e.dataset.players)") == ["2", "2"]
    legend = page.locator("[data-testid=legend]")
    assert legend.locator(".qc-kind").all_inner_texts() == ["Σ", "↓", "↔", "↕"]
    assert legend.locator("dd").count() == 6

    # Hover: the tip tells what the card asks and what the example hand answers.
    first = page.locator(".qc[data-card]").first
    card = first.get_attribute("data-card")
    first.hover()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=card-tip]').matches(':popover-open')"
    )
    tip = page.locator(TIP)
    assert tip.get_attribute("data-card") == card
    assert CARDS[card].ja.removeprefix("【共有情報カード】") in tip.inner_text()
    assert tip.locator(".qc-tip-row > .rack [data-tile]").count() == 5
    assert tip.locator("[data-testid=answer]").count() == 1
    tip_box, card_box = tip.bounding_box(), first.bounding_box()
    assert (
        tip_box["y"] + tip_box["height"] <= card_box["y"]
        or tip_box["y"] >= card_box["y"] + card_box["height"]
    )
    page.mouse.move(0, 0)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=card-tip]').matches(':popover-open')"
    )

    # Every card says what it asks to a screen reader too.
    for el in page.locator(".qc[data-card] .qc-face").all():
        described = el.get_attribute("aria-describedby")
        assert page.locator(f"#{described}").text_content().strip()

    # Keyboard: focus shows the tip, Escape hides it without moving the focus.
    page.focus(f"[data-key=card-{card}]")
    assert tip_shown(page)
    ui.screenshots(
        page,
        screenshot_dir,
        "tagiron-card-tip",
        user_texts=["はなこ"],
        before=lambda p: (p.focus(f"[data-key=card-{card}]"), p.locator(TIP).wait_for()),
    )
    page.focus(f"[data-key=card-{card}]")
    page.keyboard.press("Escape")
    assert not tip_shown(page)
    assert page.evaluate("() => document.activeElement.dataset.key") == f"card-{card}"

    ui.screenshots(
        page,
        screenshot_dir,
        "tagiron-rules",
        user_texts=["はなこ"],
        before=lambda p: ui.show_panel(p, "rules"),
    )
    ui.set_lang(page, "en")
    assert "opponent's five tiles" in rules.inner_text()
    ui.assert_no_japanese(page, ["はなこ"])


def test_a_long_press_explains_a_card_on_a_phone(browser, live_server):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, locale="ja-JP")
    try:
        page = context.new_page()
        page.goto(live_server.url)
        ui.sign_in(page, "Hana")
        ui.start_tagiron_against_bots(page, 4, level="easy")
        assert page.locator(".tg-rules-count.is-here").evaluate_all(
            "els => els.map(e => e.dataset.players)"
        ) == ["4", "3-4"]
        # On this seat's turn the bots wait: the cards stay where they are.
        assert ui.tagiron_turn(page) == "ask"
        face = page.locator(".qc[data-card] .qc-face").first
        card = page.locator(".qc[data-card]").first.get_attribute("data-card")
        face.scroll_into_view_if_needed()
        box = face.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        # Touch down, hold, lift: the tip shows and the card is not chosen.
        face.dispatch_event(
            "pointerdown",
            {
                "pointerType": "touch",
                "clientX": x,
                "clientY": y,
                "bubbles": True,
                "isPrimary": True,
            },
        )
        page.wait_for_timeout(700)
        face.dispatch_event("pointerup", {"pointerType": "touch", "bubbles": True})
        face.dispatch_event("click", {"bubbles": True})
        assert tip_shown(page)
        tip = page.locator(TIP)
        assert tip.get_attribute("data-card") == card
        assert tip.locator(".qc-tip-row > .rack [data-tile]").count() == 4  # a 4-player hand
        assert page.locator(".qc-ask").count() == 0
        # A tap elsewhere closes it.
        page.locator("[data-testid=my-tiles]").dispatch_event(
            "pointerdown", {"pointerType": "touch", "bubbles": True}
        )
        assert not tip_shown(page)
        # A short tap still chooses the card.
        page.locator(".qc--live .qc-face").first.tap()
        page.wait_for_selector(".qc-ask")
    finally:
        context.close()

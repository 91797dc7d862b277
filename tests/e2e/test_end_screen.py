"""The end of a game and what lies over the table (issue 34, point 7).

* A place badge ("unranked", "順位なし", "1st") never runs into the player's name.
* Toasts show one at a time in one place, under the header: never over the question
  cards, the hand or the chat's input; a new one replaces the one shown, a click
  dismisses it, and the end of the game takes them away.
* A question card's help, shown on hover, covers neither the cards nor the opponents'
  plates, and goes when the mouse leaves the card.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e import ui
from tests.e2e.conftest import DESKTOP, PHONE

Page = Any

RECT_JS = """
sel => [...document.querySelectorAll(sel)]
  .filter(e => e.checkVisibility({ visibilityProperty: true }))
  .map(e => { const r = e.getBoundingClientRect();
              return [r.left, r.top, r.right, r.bottom]; })
"""


def rects(page: Page, selector: str) -> list[list[float]]:
    return page.evaluate(RECT_JS, selector)


def overlap(a: list[float], b: list[float]) -> float:
    """The area two rectangles (left, top, right, bottom) share."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h)


def toast(page: Page, text: str) -> None:
    page.evaluate("t => import('/static/js/dom.js').then(m => m.toast(t, 'info', 20000))", text)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_end_screen_badges_and_toasts(open_page, lang: str) -> None:
    page, _ = open_page("/", viewport=PHONE, lang=lang)
    ui.sign_in(page, "はなこ")
    ui.start_tagiron_against_bots(page)  # the expert ends the game soon

    # Toasts during play: one at a time, clear of the cards and the hand.
    for viewport in (PHONE, DESKTOP):
        page.set_viewport_size(viewport)
        toast(page, "first")
        toast(page, "second")
        shown = page.locator("[data-testid=toast]:not(.toast--out)")
        assert shown.count() == 1 and shown.inner_text() == "second"
        box = rects(page, "[data-testid=toast]:not(.toast--out)")[0]
        for what in (".qc", "[data-testid=my-tiles]", "[data-testid=chat-input]"):
            for r in rects(page, what):
                assert overlap(box, r) == 0, (viewport, what, box, r)
        shown.click()
        page.wait_for_selector("[data-testid=toast]", state="detached")

    page.set_viewport_size(PHONE)
    toast(page, "said during the game")
    ui.play_tagiron_to_the_end(page)
    page.wait_for_selector("[data-testid=result]")
    # The end of the game takes the toasts of the play away (what the last move said
    # stays: one toast at most, clear of the result).
    page.wait_for_selector("[data-testid=toast] >> text=said during the game", state="detached")
    assert page.locator("[data-testid=toast]:not(.toast--out)").count() <= 1
    for box in rects(page, "[data-testid=toast]:not(.toast--out)"):
        for r in rects(page, "[data-testid=result] .tg-place"):
            assert overlap(box, r) == 0, (box, r)

    # Every badge, the longest word ("unranked") in it, stays clear of the name beside it.
    unranked = page.evaluate(
        "() => import('/static/js/i18n.js').then(m => m.t('tg.result.unranked'))"
    )
    page.eval_on_selector_all(
        ".tg-place .place-badge", "(els, w) => els.forEach(e => e.textContent = w)", unranked
    )
    for viewport in (PHONE, DESKTOP):
        page.set_viewport_size(viewport)
        rows = page.eval_on_selector_all(
            ".tg-place",
            """rows => rows.map(row => {
                 const badge = row.querySelector('.place-badge');
                 const range = document.createRange(); range.selectNodeContents(badge);
                 const name = badge.nextElementSibling.getBoundingClientRect();
                 return [range.getBoundingClientRect().right, name.left];
               })""",
        )
        assert rows
        for text_right, name_left in rows:
            assert text_right <= name_left - 4, (viewport, text_right, name_left)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_card_help_clears_the_plates_and_goes(open_page, lang: str) -> None:
    page, _ = open_page("/", viewport=DESKTOP, lang=lang)
    ui.sign_in(page, "はなこ")
    ui.start_tagiron_against_bots(page, 3, level="easy")
    assert ui.tagiron_turn(page) in ("ask", "pass", "over")
    for card in page.locator(".qc[data-card] .qc-face").all()[:3]:
        card.hover()
        tip = page.locator("[data-testid=card-tip]")
        tip.wait_for(state="visible")
        box = rects(page, "[data-testid=card-tip]")[0]
        for what in (".tg-opps", ".qc"):
            for r in rects(page, what):
                assert overlap(box, r) == 0, (what, box, r)
        page.mouse.move(2, DESKTOP["height"] - 2)
        tip.wait_for(state="hidden", timeout=1500)
    # A card clicked (chosen to ask) has been read: its help stays away while the mouse
    # rests on it, and a new card dealt under the resting mouse does not pop its own up.
    if ui.tagiron_turn(page) == "ask":
        face = page.locator(".qc--live .qc-face").first
        face.hover()
        page.locator("[data-testid=card-tip]").wait_for(state="visible")
        face.click()
        page.wait_for_timeout(500)
        assert not page.is_visible("[data-testid=card-tip]")


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_bits_are_explained_where_they_appear(open_page, lang: str) -> None:
    """Jargon (issue 34, point 5): a card's bits carry their unit and a plain explanation
    in its help and in the rules panel."""
    words = {"ja": ("ビット", "半分"), "en": ("bits", "halves")}[lang]
    page, _ = open_page("/", viewport=DESKTOP, lang=lang)
    ui.sign_in(page, "はなこ")
    ui.start_tagiron_against_bots(page, level="easy", assistant=True)
    assert ui.tagiron_turn(page) == "ask"
    page.wait_for_selector("[data-testid=card-bits]")
    assert words[0] in page.inner_text("[data-testid=card-bits] >> nth=0")
    page.locator(".qc:has([data-testid=card-bits]) .qc-face").first.hover()
    help_text = page.locator("[data-testid=tip-bits]")
    help_text.wait_for(state="visible")
    assert all(w in help_text.inner_text() for w in words)
    ui.show_panel(page, "rules")
    assert all(w in page.inner_text("[data-testid=bits-help]") for w in words)

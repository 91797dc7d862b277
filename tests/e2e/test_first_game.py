"""A guided first game (issue 14, point 3): from the lobby, Tagiron for two against the easy
bot with the assistant on, and a coach that points at the parts of the table as the game
reaches them; skippable, and remembered in the browser."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.e2e import ui
from tests.e2e.test_accessibility import Audit

STATE_JS = "() => JSON.parse(localStorage.getItem('bodoge.firstGame'))"


def coach_step(page: Page, step: str, timeout: float = 30_000) -> None:
    page.wait_for_selector(f"[data-testid=coach][data-step={step}]:not([hidden])", timeout=timeout)


def start_first_game(page: Page) -> str:
    page.click("[data-testid=first-game]")
    ui.wait_board(page)
    return page.url.rstrip("/").rsplit("/", 1)[1]


def test_a_guided_first_game_walks_through_the_table(open_page, screenshot_dir):
    page, _ = open_page("/")
    ui.sign_in(page, "はなこ")
    assert page.inner_text("[data-testid=first-game]").strip() == "はじめての一局"
    table = start_first_game(page)
    shown = page.evaluate("() => window.bodoge.app.shownTable.snap.table")
    assert shown["game"] == "tagiron" and shown["status"] == "playing"
    assert shown["settings"]["assistant"] is True and shown["assistant"] is True
    assert [(s["kind"], s["level"]) for s in shown["seats"]] == [("human", None), ("bot", "easy")]

    # Your tiles first: the coach points at them and takes the focus.
    coach_step(page, "tiles")
    assert page.locator("[data-testid=my-tiles].coach-target").count() == 1
    assert page.evaluate("() => document.activeElement?.dataset.testid") == "coach-next"
    page.click("[data-testid=coach-next]")

    # The question cards, once it is your turn to ask.
    coach_step(page, "cards")
    assert page.locator(".tg-cards.coach-target").count() == 1
    assert "1枚選んで" in page.inner_text("[data-testid=coach]")
    ui.screenshots(page, screenshot_dir, "first-game-coach", user_texts=["はなこ"])
    audit = Audit()
    audit.check(page, "a guided first game, the coach on the question cards")
    audit.assert_clean()
    page.focus("[data-testid=coach-next]")  # the screenshots' language buttons took it
    page.keyboard.press("Enter")

    # The answer in the log once a question is answered, then the memo sheet.
    ui.ask_first_card(page)
    coach_step(page, "log")
    assert page.locator(".tg-log-wrap.coach-target").count() == 1
    page.click("[data-testid=coach-next]")
    coach_step(page, "memo")
    assert page.locator(".tg-memo-wrap.coach-target").count() == 1
    page.click("[data-testid=coach-next]")

    # Declaring, on a later turn of yours; the last step ends the guide.
    if not page.is_visible("[data-testid=coach][data-step=declare]"):
        ui.tagiron_turn(page)
        if page.locator("[data-testid=coach]:not([hidden])").count() == 0:
            ui.ask_first_card(page)
    coach_step(page, "declare")
    assert page.locator("[data-testid=declare].coach-target").count() == 1
    assert page.inner_text("[data-testid=coach-next]").strip() == "わかった"
    page.click("[data-testid=coach-next]")
    page.wait_for_selector("[data-testid=coach]", state="hidden")
    assert page.evaluate(STATE_JS) == {"table": table, "state": "done"}

    # Done is remembered: a reload shows no coach; the lobby offers the guide again.
    page.reload()
    ui.wait_board(page)
    page.wait_for_timeout(500)
    assert page.locator("[data-testid=coach]:not([hidden])").count() == 0
    page.goto(page.url.split("/t/")[0] + "/")
    page.wait_for_selector("[data-testid=first-game]")
    assert "もう一度" in page.inner_text("[data-testid=first-game]")


def test_the_guide_can_be_skipped_and_stays_skipped(open_page):
    page, _ = open_page("/", viewport=ui.PHONE, lang="en")
    ui.sign_in(page, "Mika")
    assert page.inner_text("[data-testid=first-game]").strip() == "First game"
    table = start_first_game(page)
    coach_step(page, "tiles")
    assert "five tiles" in page.inner_text("[data-testid=coach]")
    # On a phone the coach is a sheet at the bottom of the screen.
    assert page.locator("[data-testid=coach].coach--sheet").count() == 1
    page.click("[data-testid=coach-skip]")
    page.wait_for_selector("[data-testid=coach]", state="hidden")
    assert page.evaluate(STATE_JS) == {"table": table, "state": "skipped"}
    assert page.locator(".coach-target").count() == 0
    # The game goes on without it, on this page and after a reload.
    ui.tagiron_turn(page)
    ui.ask_first_card(page)
    ui.wait_move(page, 1)
    page.reload()
    ui.wait_board(page)
    page.wait_for_timeout(500)
    assert page.locator("[data-testid=coach]:not([hidden])").count() == 0


#: The rectangles of the coach's bubble and of what it points at, and the part they share.
OVERLAP_JS = """
() => {
  const rect = sel => { const r = document.querySelector(sel).getBoundingClientRect();
                        return [r.left, r.top, r.right, r.bottom]; };
  const [a, b] = [rect('[data-testid=coach]'), rect('.coach-target')];
  const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  return { bubble: a, target: b, shared: Math.max(0, w) * Math.max(0, h) };
}
"""


def bubble_clear_of_target(page: Page, step: str) -> None:
    coach_step(page, step)
    page.wait_for_timeout(150)  # placed on the next frame
    found = page.evaluate(OVERLAP_JS)
    assert found["shared"] == 0, (step, found)


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("viewport", [ui.DESKTOP, ui.PHONE], ids=["desktop", "phone"])
def test_the_coach_never_covers_what_it_points_at(open_page, lang, viewport):
    """Every step, at desktop and phone width: the bubble and its target share no pixel;
    on a phone a side panel's step points at its tab and leaves the board where it was."""
    page, _ = open_page("/", viewport=viewport, lang=lang)
    ui.sign_in(page, "はなこ")
    start_first_game(page)
    bubble_clear_of_target(page, "tiles")
    page.click("[data-testid=coach-next]")
    bubble_clear_of_target(page, "cards")
    page.click("[data-testid=coach-next]")
    ui.ask_first_card(page)
    selected = "[role=tab][aria-selected=true]"
    tab = page.get_attribute(selected, "data-testid") if viewport == ui.PHONE else None
    for step in ("log", "memo"):
        bubble_clear_of_target(page, step)
        if viewport == ui.PHONE:
            assert page.locator(f"[data-testid=tab-{step}].coach-target").count() == 1
            assert page.get_attribute(selected, "data-testid") == tab, "the coach switched tabs"
        page.click("[data-testid=coach-next]")
    if ui.tagiron_turn(page) == "ask" and not page.is_visible("[data-testid=coach]"):
        ui.ask_first_card(page)
    bubble_clear_of_target(page, "declare")


def test_escape_closes_the_coach(open_page):
    page, _ = open_page("/", viewport=ui.PHONE, lang="en")
    ui.sign_in(page, "Mika")
    table = start_first_game(page)
    coach_step(page, "tiles")
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=coach]", state="hidden")
    assert page.evaluate(STATE_JS) == {"table": table, "state": "skipped"}
    assert page.locator(".coach-target").count() == 0

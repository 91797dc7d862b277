"""Every person's name at the table links to their profile: the seat plates on Tagiron's and
Illustori's boards and the result at the end, without moving the keyboard focus when the board
redraws; a bot's plate links nowhere (a bot has no profile)."""

from __future__ import annotations

from tests.e2e import ui
from tests.e2e.test_illustori import BOARD, create_illustori

MY_LINK = "[data-testid=tagiron] .tg-me-head a.player-link"
ASK_BY_CONNECTION = """async () => {
  const { app, conn } = window.bodoge;
  const shown = app.shownTable;
  const card = shown.snap.view.face_up[0];
  const choice = /where_(\\d)or\\d/.exec(card);
  await conn.request({ type: "move", table: shown.id,
                       move: { type: "ask", card, choice: choice ? Number(choice[1]) : null } });
}"""


def _me(page) -> str:
    """This page's player id, once its connection said hello."""
    return page.wait_for_function("() => window.bodoge?.conn?.player?.id").json_value()


def test_tagiron_plates_and_result_link_to_profiles(open_page, screenshot_dir) -> None:
    page, _ = open_page("/")
    ui.sign_in(page, "たろう")
    me = _me(page)
    ui.start_tagiron_against_bots(page, 2, level="easy")
    link = page.locator(MY_LINK)
    assert link.get_attribute("href") == f"/p/{me}"
    assert link.inner_text() == "たろう"
    assert page.locator("[data-testid=screen-1] .seat-chip").count() == 1
    assert page.locator("[data-testid=screen-1] .seat-chip a").count() == 0  # the bot's
    # The plate keeps its layout: one line, the link inside it.
    chip = page.locator("[data-testid=tagiron] .tg-me-head .seat-chip").bounding_box()
    inside = link.bounding_box()
    assert chip and inside and chip["height"] < 40
    assert (
        chip["x"] <= inside["x"] and inside["x"] + inside["width"] <= chip["x"] + chip["width"] + 1
    )

    # A keyboard user on the name keeps the focus there while the board redraws: the move
    # goes by the connection, so nothing on the page is clicked.
    assert ui.tagiron_turn(page) == "ask"
    n = ui.move_number(page)
    page.locator(MY_LINK).focus()
    page.evaluate(ASK_BY_CONNECTION)
    ui.wait_move(page, n + 1)  # the move redraws the plate (whose turn it is)
    page.wait_for_timeout(200)
    focused = page.evaluate("() => document.activeElement.dataset.key || null")
    assert focused == "seat-name-0"

    ui.play_tagiron_to_the_end(page)
    result = page.locator("[data-testid=result]")
    result.wait_for()
    links = result.locator("a.player-link")
    assert links.count() == 1 and links.first.get_attribute("href") == f"/p/{me}"
    assert links.first.get_attribute("data-key") == "result-name-0"
    ui.screenshots(page, screenshot_dir, "tagiron-name-links", user_texts=["たろう"])
    links.first.click()
    page.wait_for_url(f"**/p/{me}")
    page.wait_for_selector("[data-testid=stats-tagiron]")
    assert "たろう" in page.inner_text("h1")


def test_illustori_seat_list_links_to_profiles(open_page) -> None:
    page, _ = open_page("/")
    ui.sign_in(page, "はなこ")
    me = _me(page)
    create_illustori(page, 3, bots=((1, "normal"), (2, "normal")), seed=11)
    page.locator("[data-testid=start]:not([disabled])").click()
    page.wait_for_selector(BOARD)
    mine = page.locator(f"{BOARD} [data-testid=seat-0] a.player-link")
    assert mine.get_attribute("href") == f"/p/{me}"
    assert page.locator(f"{BOARD} [data-testid=seat-1] a").count() == 0
    mine.click()
    page.wait_for_url(f"**/p/{me}")
    assert "はなこ" in page.inner_text("h1")

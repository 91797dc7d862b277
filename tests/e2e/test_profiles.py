"""Rated games, profiles and leaderboards in Chromium: the host's "rated" choice shows in
the waiting room, the rating moves at the end, names link to profiles, charts draw."""

from __future__ import annotations

from tests.e2e import ui
from tests.e2e.test_accessibility import Audit

PASSWORD = "correct horse battery"


def keep_name(page: object) -> None:
    # the player arrives with the server's welcome, a moment after signing in
    page.wait_for_function("() => window.bodoge?.conn?.player")  # type: ignore[attr-defined]
    status = page.evaluate(  # type: ignore[attr-defined]
        """async (password) => {
          const { conn } = window.bodoge;
          const r = await fetch("/api/account", {method: "POST",
            headers: {"Authorization": `Bearer ${conn.token}`, "Content-Type": "application/json"},
            body: JSON.stringify({name: conn.player.name + Math.random().toString(36).slice(2, 6),
                                  password})});
          return r.status;
        }""",
        PASSWORD,
    )
    assert status == 201


def test_a_rated_game_moves_the_rating_on_the_profile(open_page, screenshot_dir) -> None:
    page, _ = open_page("/")
    ui.sign_in(page, "はなこ")
    keep_name(page)
    page.check("[data-testid=rated]")
    table = ui.create_table(page, 2, bots=[(1, "expert")])
    assert page.is_checked("[data-testid=field-edit-rated]")  # the host's own control
    page.locator("[data-testid=start]:not([disabled])").click()
    ui.wait_board(page)
    ui.play_tagiron_to_the_end(page)

    # The waiting room's seat (and the lobby's) names link to the profile.
    me = page.evaluate("() => window.bodoge.conn.player.id")
    page.goto(page.url.split("/t/")[0] + f"/p/{me}")
    page.wait_for_selector("[data-testid=rating-tagiron]")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.rating-chart')]"
        ".every(i => i.complete && i.naturalWidth > 0)"
    )
    assert "はなこ" in page.inner_text("h1")
    games = page.locator("[data-testid=profile-game]")
    assert games.count() == 1
    assert (
        games.first.locator("[data-testid=replay-link]").get_attribute("href")
        == f"/t/{table}?replay"
    )
    assert page.inner_text("[data-testid=stats-tagiron] td >> nth=0") == "1"
    # The game's own figures, labelled in its strings, in both languages.
    figures = page.locator("[data-testid=figures-tagiron]")
    figures.locator("dt", has_text="質問した回数").wait_for()
    served = page.evaluate(
        "async (id) => (await (await fetch(`/api/players/${id}`)).json()).stats[0].figures", me
    )
    shown = {f["key"]: f["value"] for f in served}
    assert shown["questions"] >= 1
    question_count = figures.locator("[data-testid=figure-questions] dd").inner_text()
    assert question_count == str(shown["questions"])
    ui.set_lang(page, "en")
    figures.locator("dt", has_text="Questions asked").wait_for()
    ui.set_lang(page, "ja")
    ui.screenshots(page, screenshot_dir, "profile", user_texts=["はなこ"])
    audit = Audit()
    audit.check(page, "profile")

    # The leaderboard: nobody with 3 rated games yet, the bots with the anchor.
    page.click("text=ランキングを見る")
    page.wait_for_selector("[data-testid=board]")
    assert "基準" in page.inner_text("[data-testid=board]")
    ui.screenshots(page, screenshot_dir, "leaderboard", user_texts=["はなこ"])
    audit.check(page, "leaderboard")
    audit.assert_clean()

    # The replay link opens the replay.
    page.goto(page.url.split("/leaderboard")[0] + f"/p/{me}")
    page.click("[data-testid=replay-link]")
    page.wait_for_url(f"**/t/{table}?replay")

"""Around a game, in browsers (issue 14, points 6-8): the waiting room shows each game's own
options to everyone, the assistant follows the seats, and after the game a rematch and
"My games"."""

from __future__ import annotations

from tests.e2e import ui
from tests.e2e.test_accessibility import Audit
from tests.e2e.test_illustori import create_illustori
from tests.e2e.test_tagiron_two_players import wrong_guess

ASSIST_FRAMES_JS = "() => window.__assistFrames ?? 0"


def count_assist_frames(page) -> None:
    """Count every `assist` frame the page's WebSocket receives (window.__assistFrames)."""
    page.evaluate("() => { window.__assistFrames = 0; }")

    def on_socket(ws) -> None:
        def on_frame(payload) -> None:
            if '"type":"assist"' in str(payload).replace(" ", ""):
                page.evaluate("() => { window.__assistFrames = (window.__assistFrames ?? 0) + 1; }")

        ws.on("framereceived", on_frame)

    page.on("websocket", on_socket)


def field(page, key: str) -> str:
    return page.inner_text(f"[data-testid=table-fields] [data-testid=field-{key}]").strip()


# The options of the host's selects whose text is wider than the select shows (a
# closed select cannot wrap): its inner width less the padding and the arrow.
CUT_OPTIONS_JS = """() => {
  const pen = document.createElement("canvas").getContext("2d");
  const cut = [];
  for (const el of document.querySelectorAll("select[data-testid^=field-edit-]")) {
    const cs = getComputedStyle(el);
    pen.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
    for (const o of el.options) if (pen.measureText(o.text).width > room) cut.push(o.text);
  }
  return cut;
}"""


def assert_options_readable(page) -> None:
    assert page.locator("select[data-testid^=field-edit-]").count() >= 3
    assert page.evaluate(CUT_OPTIONS_JS) == [], page.viewport_size


def test_the_waiting_room_shows_the_games_own_options_to_everyone(open_page, screenshot_dir):
    host, _ = open_page("/")
    ui.sign_in(host, "はなこ")
    table = create_illustori(
        host, 4, language="en", flags=("ban_same_ends", "vote_limit", "secret_votes", "show_rules")
    )
    # Someone arriving by the invite link sees them before sitting down.
    guest, _ = open_page(f"/t/{table}")
    ui.sign_in(guest, "Mika")
    guest.wait_for_selector("[data-testid=sit-1]")
    guest.wait_for_selector("[data-testid=table-fields] [data-testid=field-language]")
    guest.wait_for_function(
        "() => document.querySelector('[data-testid=field-language]').innerText.includes('英語')"
    )
    assert field(guest, "players") == "4人"
    assert field(guest, "ban_same_ends") == "あり"
    assert field(guest, "ban_used_joints") == "なし"
    assert field(guest, "vote_limit") == "あり"
    assert field(guest, "secret_votes") == "あり"
    labels = guest.inner_text("[data-testid=table-fields]")
    assert "秘密投票" in labels and "投票は25秒まで" in labels
    # Illustori has no assistant: none is listed (it used to show Tagiron's).
    assert guest.locator("[data-testid=field-assistant]").count() == 0
    assert "推理アシスト" not in labels
    ui.screenshots(guest, screenshot_dir, "waiting-room-illustori", user_texts=["はなこ", "Mika"])
    audit = Audit()
    audit.check(guest, "Illustori's waiting room, not seated")
    audit.assert_clean()
    ui.set_lang(guest, "en")
    assert field(guest, "language") == "English" and field(guest, "secret_votes") == "On"
    assert guest.inner_text("[data-testid=field-ban_same_ends]").strip() == "On"


def test_the_assistant_follows_the_seats_and_a_rematch_follows_the_game(open_page, screenshot_dir):
    # One person against a bot: the assistant is on by default, and shows.
    solo, _ = open_page("/")
    ui.sign_in(solo, "Ken")
    ui.create_table(solo, 2, bots=[(1, "easy")])
    assert "あり" in field(solo, "assistant") and "自動" in field(solo, "assistant")
    solo.locator("[data-testid=start]:not([disabled])").click()
    ui.wait_board(solo)
    solo.wait_for_selector("[data-testid=assist-count]")

    # Two people: off by default, for both; the page shows none of it and gets none.
    hana, _ = open_page("/")
    count_assist_frames(hana)
    ui.sign_in(hana, "はなこ")
    table = ui.create_table(hana, 2)
    taro, _ = open_page(f"/t/{table}")
    count_assist_frames(taro)
    ui.sign_in(taro, "Taro")
    taro.wait_for_selector("[data-testid=field-assistant]")
    taro.click("[data-testid=sit-1]")
    for page in (hana, taro):  # everyone sees it turn off as the second person sits
        page.wait_for_function(
            "() => document.querySelector('[data-testid=field-assistant]')"
            ".innerText.includes('なし')"
        )
    ui.screenshots(hana, screenshot_dir, "waiting-room-assistant", user_texts=["はなこ", "Taro"])
    # The host may still turn it on, and back to following the seats; Taro sees both.
    assert taro.locator("[data-testid=field-edit-assistant]").count() == 0
    hana.select_option("[data-testid=field-edit-assistant]", "on")
    taro.wait_for_function(
        "() => document.querySelector('[data-testid=field-assistant]').innerText.trim() === 'あり'"
    )
    hana.select_option("[data-testid=field-edit-assistant]", "auto")
    taro.wait_for_function(
        "() => document.querySelector('[data-testid=field-assistant]').innerText.includes('自動')"
    )
    hana.locator("[data-testid=start]:not([disabled])").click()
    ui.wait_board(hana)
    ui.wait_board(taro)
    first, second = (hana, taro) if ui.is_my_turn(hana) else (taro, hana)
    ui.ask_first_card(first)
    ui.wait_move(second, 1)
    for page in (first, second):
        assert not page.is_visible("[data-testid=assist]")
        assert page.locator(".bits-row, .qc-bits, .mc--p").count() == 0
        assert page.evaluate(ASSIST_FRAMES_JS) == 0

    # The quick end: a wrong declaration, then the second player names the first's tiles.
    truth_of_first, truth_of_second = ui.my_tiles(first), ui.my_tiles(second)
    ui.ask_first_card(second)
    ui.wait_move(first, 2)
    ui.declare(first, wrong_guess(truth_of_second, truth_of_first))
    ui.wait_move(second, 3)
    ui.declare(second, truth_of_first)
    for page in (first, second):
        page.wait_for_selector("[data-testid=result]")
        assert page.evaluate(ASSIST_FRAMES_JS) == 0

    # A rematch: Hana proposes it and lands in a new waiting room, in her own seat.
    hana_seat = 0
    hana.click("[data-testid=rematch]")
    hana.wait_for_url(lambda url: table not in url)
    rematch = hana.url.rstrip("/").rsplit("/", 1)[1]
    hana.wait_for_selector("[data-testid=seats]")
    assert "はなこ" in hana.inner_text(f"[data-testid=seats] [data-seat='{hana_seat}']")
    # Taro is told, and confirms with the same button: he gets his own seat back.
    taro.wait_for_selector("[data-testid=rematch]:has-text('再戦に参加')")
    ui.screenshots(taro, screenshot_dir, "tagiron-rematch", user_texts=["はなこ", "Taro"])
    audit = Audit()
    audit.check(taro, "the end, a rematch proposed")
    taro.click("[data-testid=rematch]")
    taro.wait_for_url(f"**/t/{rematch}")
    taro.wait_for_selector("[data-testid=seats]")
    hana.wait_for_function(
        "() => document.querySelector('[data-testid=seats] [data-seat=\"1\"]')"
        ".innerText.includes('Taro')"
    )
    assert not hana.locator("[data-testid=start]").is_disabled()

    # "My games": the finished game, with its result, date and players, and its replay.
    taro.goto(taro.url.split("/t/")[0] + "/")
    taro.click("[data-testid=filter-finished]")
    card = taro.locator(f"[data-testid=finished-game][data-table={table}]")
    card.wait_for()
    text = card.inner_text()
    assert "はなこ" in text and "Taro" in text
    result = card.locator("[data-testid=finished-result]").inner_text()
    assert result == ("勝ち" if second is taro else "負け")
    assert card.locator("time").get_attribute("datetime")
    ui.screenshots(taro, screenshot_dir, "lobby-finished", user_texts=["はなこ", "Taro", "Ken"])
    audit.check(taro, "the lobby's finished games")
    audit.assert_clean()
    card.locator("[data-testid=finished-replay]").click()
    taro.wait_for_selector("[data-testid=replay-page] [data-testid=tagiron]")


def test_the_host_sets_the_table_in_the_waiting_room(open_page, screenshot_dir):
    hana, _ = open_page("/")
    ui.sign_in(hana, "はなこ")
    table = ui.create_table(hana, 2)
    taro, _ = open_page(f"/t/{table}")
    ui.sign_in(taro, "Taro")
    taro.click("[data-testid=sit-1]")
    hana.wait_for_selector("[data-testid=seats] [data-seat='1'] .seat-chip--human")
    assert field(taro, "bot_pace").startswith("ふつう")
    assert field(taro, "turn_seconds") == "制限なし"
    # Only the host gets controls; the player count is not one (the seats are made for it).
    assert taro.locator("[data-testid^=field-edit-]").count() == 0
    assert hana.locator("[data-testid=field-edit-players]").count() == 0
    for key in ("turn_seconds", "timeout_bot", "assistant", "bot_pace", "rated"):
        assert hana.locator(f"[data-testid=field-edit-{key}]").count() == 1, key
    hana.select_option("[data-testid=field-edit-bot_pace]", "slow")
    shown = "(key) => document.querySelector(`[data-testid=field-${key}]`).innerText.trim()"
    taro.wait_for_function(f"() => ({shown})('bot_pace').startsWith('ゆっくり')")
    hana.select_option("[data-testid=field-edit-turn_seconds]", "120")
    taro.wait_for_function(f"() => ({shown})('turn_seconds') === '120秒'")
    hana.check("[data-testid=field-edit-rated]")
    taro.wait_for_function(f"() => ({shown})('rated') === 'あり'")
    # The host's page shows what the table has now, and keeps the focus on the control.
    assert hana.eval_on_selector("[data-testid=field-edit-turn_seconds]", "e => e.value") == "120"
    assert hana.eval_on_selector("[data-testid=field-edit-bot_pace]", "e => e.value") == "slow"
    assert hana.evaluate("() => document.activeElement?.dataset.testid") == "field-edit-rated"
    # A non-host asking anyway is refused and nothing changes.
    refused = taro.evaluate(
        """async (table) => {
          try {
            await window.bodoge.conn.request(
              { type: "table.settings", table, settings: { bot_pace: "fast" } });
            return "accepted";
          } catch (err) { return err.code; }
        }""",
        table,
    )
    assert refused == "not_host"
    assert field(taro, "bot_pace").startswith("ゆっくり")
    # Every option reads whole, in both languages, at desktop and phone width.
    ui.screenshots(
        hana,
        screenshot_dir,
        "waiting-room-host",
        user_texts=["はなこ", "Taro"],
        before=assert_options_readable,
    )
    audit = Audit()
    audit.check(hana, "the host's waiting room, every setting a control")
    audit.assert_clean()
    # The game runs with them: a 2:00 clock on the first turn.
    hana.locator("[data-testid=start]:not([disabled])").click()
    ui.wait_board(taro)
    taro.wait_for_function(
        "() => /^[12]:\\d\\d$/.test(document.querySelector('.tp-clock-text')?.innerText ?? '')"
    )
    settings = taro.evaluate("() => window.bodoge.app.shownTable.snap.table.settings")
    assert settings["turn_seconds"] == 120 and settings["bot_pace"] == "slow" and settings["rated"]


def test_the_host_sets_illustoris_options_in_the_waiting_room(open_page):
    host, _ = open_page("/")
    ui.sign_in(host, "はなこ")
    table = create_illustori(host, 3)
    guest, _ = open_page(f"/t/{table}")
    ui.sign_in(guest, "Mika")
    guest.click("[data-testid=sit-1]")
    guest.wait_for_selector("[data-testid=field-secret_votes]")
    # The game's own words (its language's name) come with the game's strings, which may
    # arrive after the waiting room's first paint: the field is painted again then.
    guest.wait_for_function(
        "() => document.querySelector('[data-testid=table-fields] [data-testid=field-language]')"
        "?.innerText.includes('日本語')"
    )
    assert field(guest, "secret_votes") == "なし" and "日本語" in field(guest, "language")
    for key in ("ban_same_ends", "ban_used_joints", "vote_limit", "secret_votes"):
        host.check(f"[data-testid=field-edit-{key}]")
        guest.wait_for_function(
            f"() => document.querySelector('[data-testid=field-{key}]').innerText.trim() === 'あり'"
        )
    host.select_option("[data-testid=field-edit-language]", "en")
    guest.wait_for_function(
        "() => document.querySelector('[data-testid=field-language]').innerText.includes('英語')"
    )
    options = guest.evaluate("() => window.bodoge.app.shownTable.snap.table.options")
    assert options["language"] == "en" and options["secret_votes"] and options["vote_limit"]
    assert options["players"] == 3


def test_the_lobby_drops_a_full_table_whose_people_are_gone(open_page):
    """Point 7: the lobby lists only tables one can join or watch."""
    watcher, _ = open_page("/")
    ui.sign_in(watcher, "Ken")
    host, _ = open_page("/")
    ui.sign_in(host, "はなこ")
    table = ui.create_table(host, 2)
    watcher.click("[data-testid=filter-open]")
    card = watcher.locator(f"[data-testid=table-list] [data-table={table}]")
    card.wait_for()  # a free seat: anyone may join
    guest, _ = open_page(f"/t/{table}")
    ui.sign_in(guest, "Taro")
    guest.click("[data-testid=sit-1]")
    host.wait_for_selector("[data-testid=seats] [data-seat='1'] .seat-chip--human")
    # Full, and its people are here to start it: listed (among the tables to watch).
    watcher.click("[data-testid=filter-running]")
    card.wait_for()
    # Both leave the page: nobody can start it, nobody can join it. It goes, live.
    guest.close()
    host.close()
    card.wait_for(state="detached", timeout=20_000)
    for tab in ("open", "running"):
        watcher.click(f"[data-testid=filter-{tab}]")
        assert watcher.locator(f"[data-table={table}]").count() == 0

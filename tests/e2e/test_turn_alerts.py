"""Turn alerts in the browser (issue 14, point 2).

While the tab is hidden and the seat is awaited — a Tagiron turn, an Illustori vote —
the title says 「● あなたの番」 (with the seconds left under 10), the tab's icon gets a
badge, a short sound plays (Web Audio; a mute switch is remembered) and, once the player
allowed it, a desktop notification appears. Seeing the tab again clears them. The page's
visibility and the Notification API are emulated: a test browser has neither a real
desktop nor a way to hide its tab.
"""

from __future__ import annotations

from typing import Any

from tests.e2e import ui
from tests.e2e.test_illustori import BOARD, create_illustori

Page = Any

#: Visibility the test sets, a Notification that records, oscillators counted.
EMULATION_JS = """
(() => {
  let hidden = false;
  Object.defineProperty(Document.prototype, 'visibilityState', {
    configurable: true, get() { return hidden ? 'hidden' : 'visible'; } });
  Object.defineProperty(Document.prototype, 'hidden', {
    configurable: true, get() { return hidden; } });
  window.__setHidden = (value) => {
    hidden = value;
    document.dispatchEvent(new Event('visibilitychange'));
  };
  window.__notes = [];
  const granted = () => localStorage.getItem('test.notify') === 'granted';
  class TestNotification {
    static get permission() { return granted() ? 'granted' : 'default'; }
    static requestPermission() {
      localStorage.setItem('test.notify', 'granted');
      return Promise.resolve('granted');
    }
    constructor(title, options = {}) {
      this.title = title;
      this.body = options.body;
      this.closed = false;
      window.__notes.push(this);
    }
    close() { this.closed = true; }
  }
  window.Notification = TestNotification;
  window.__tones = 0;
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    window.__tones += 1;
    return start.apply(this, args);
  };
})();
"""

ICON_JS = "() => document.querySelector('link[rel=icon]').getAttribute('href')"


def emulate(page: Page) -> None:
    page.context.add_init_script(EMULATION_JS)
    page.reload()


def hide(page: Page, hidden: bool = True) -> None:
    page.evaluate("h => window.__setHidden(h)", hidden)


def alert_state(page: Page) -> dict[str, Any]:
    return page.evaluate(
        "() => ({title: document.title, icon: document.querySelector('link[rel=icon]')"
        ".getAttribute('href'), tones: window.__tones,"
        " notes: window.__notes.map(n => ({title: n.title, body: n.body, closed: n.closed}))})"
    )


def my_next_turn_while_hidden(page: Page) -> None:
    """On this seat's turn (page visible), hide the page and ask: the bot answers and
    asks, and this seat's next turn begins while nobody looks."""
    assert ui.tagiron_turn(page) == "ask"
    hide(page)
    n = ui.move_number(page)
    ui.ask_first_card(page)
    ui.wait_move(page, n + 2)
    page.wait_for_function("() => document.title.startsWith('●')")


def test_tagiron_turn_alerts_title_icon_sound_and_notification(open_page):
    page, _ = open_page("/")
    emulate(page)
    ui.sign_in(page, "はなこ")
    ui.create_table(page, 2, bots=[(1, "expert")], assistant=False, turn_seconds=120)

    # The switches are in the bar from the waiting room on; notifications are asked once.
    sound = page.locator("[data-testid=alert-sound]")
    notify = page.locator("[data-testid=alert-notify]")
    assert sound.get_attribute("aria-pressed") == "true"
    assert notify.get_attribute("aria-pressed") is None
    notify.click()
    page.wait_for_selector("[data-testid=alert-notify][aria-pressed=true]")

    page.locator("[data-testid=start]:not([disabled])").click()
    ui.wait_board(page)
    # A turn that begins while the page is seen alerts nobody.
    assert ui.tagiron_turn(page) == "ask"
    seen = alert_state(page)
    assert seen["title"] == "タギロン · bodoge" and seen["icon"] == "/static/favicon.svg"
    assert seen["tones"] == 0 and seen["notes"] == []
    # Leaving the tab on one's own turn: the title and icon remind, nothing rings.
    hide(page)
    left = alert_state(page)
    assert left["title"] == "● あなたの番 · タギロン · bodoge"
    assert left["icon"] == "/static/favicon-alert.svg"
    assert left["tones"] == 0 and left["notes"] == []
    hide(page, False)

    my_next_turn_while_hidden(page)
    state = alert_state(page)
    assert state["title"] == "● あなたの番 · タギロン · bodoge"
    assert state["icon"] == "/static/favicon-alert.svg"
    assert state["tones"] == 2
    assert state["notes"] == [
        {"title": "あなたの番です（タギロン · bodoge）", "body": "あなたの番です", "closed": False}
    ]
    # Under 10 seconds left, the title counts them.
    page.evaluate(
        "() => { const s = window.bodoge.app.shownTable.snap;"
        " s.deadlines = s.deadlines.map((d, i) => i === s.you"
        " ? new Date(Date.now() + 7500).toISOString() : d); }"
    )
    page.wait_for_function("() => /^● あなたの番（残り[5-8]秒） · /.test(document.title)")
    # Seen again: all cleared.
    hide(page, False)
    state = alert_state(page)
    assert state["title"] == "タギロン · bodoge" and state["icon"] == "/static/favicon.svg"
    assert state["notes"][0]["closed"]

    # Muted (and remembered over a reload): the title still tells, no sound plays.
    page.click("[data-testid=alert-sound]")
    page.wait_for_selector("[data-testid=alert-sound][aria-pressed=false]")
    page.reload()
    ui.wait_board(page)
    assert page.get_attribute("[data-testid=alert-sound]", "aria-pressed") == "false"
    page.click("body")  # a gesture: the page may make sounds again
    my_next_turn_while_hidden(page)
    state = alert_state(page)
    assert state["tones"] == 0
    assert len(state["notes"]) == 1
    ui.set_lang(page, "en")
    assert page.title() == "● Your turn · Tagiron · bodoge"
    hide(page, False)
    assert page.title() == "Tagiron · bodoge"


def test_illustori_vote_alerts_a_hidden_tab(open_page):
    page, _ = open_page("/")
    emulate(page)
    ui.sign_in(page, "はなこ")
    create_illustori(page, 3, bots=((1, "normal"), (2, "normal")), seed=5)
    page.click("body")  # a gesture: the page may make sounds
    hide(page)
    page.locator("[data-testid=start]:not([disabled])").click()
    page.wait_for_selector(BOARD)
    # The bots play; sooner or later this seat must vote (or give the first word, or play).
    page.wait_for_function("() => document.title.startsWith('●')", timeout=30_000)
    state = alert_state(page)
    assert state["title"].startswith("● あなたの番 · イラストリー")
    assert state["icon"] == "/static/favicon-alert.svg" and state["tones"] == 2
    hide(page, False)
    assert not page.title().startswith("●")

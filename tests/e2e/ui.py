"""Driving the web front-end the way a person does: clicks, typing, what is on screen.

Each helper waits for what it needs (Playwright's auto-waiting), so tests read
as a story: sign in, create a table, ask, declare.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tests.e2e.conftest import DESKTOP, PHONE

Page = Any

#: Hiragana, katakana, CJK ideographs and full-width forms.
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")

VISIBLE_TEXT_JS = """
() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    if (!el || !node.textContent.trim()) continue;
    if (el.closest('[data-user], script, style, noscript')) continue;
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    out.push(node.textContent.trim());
  }
  for (const el of document.querySelectorAll('[placeholder], [title], [aria-label]')) {
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    for (const name of ['placeholder', 'title', 'aria-label']) {
      const value = el.getAttribute(name);
      if (value) out.push(value);
    }
  }
  out.push(document.title);
  return out;
}
"""


def sign_in(page: Page, name: str) -> None:
    page.fill("[data-testid=nickname]", name)
    page.click("[data-testid=nickname-ok]")
    page.wait_for_selector("[data-testid=me]")


def set_lang(page: Page, lang: str) -> None:
    page.click(f"[data-testid=lang-{lang}]")
    page.wait_for_selector(f"html[lang={lang}]")


def create_table(
    page: Page,
    players: int,
    *,
    bots: Iterable[tuple[int, str]] = (),
    assistant: bool | None = None,
    turn_seconds: int | None = None,
) -> str:
    """A table made in the lobby's form; ``assistant`` ``None`` leaves it to the seats."""
    page.click(f"[data-testid=players-{players}]")
    page.select_option("[data-testid=turn-seconds]", str(turn_seconds or ""))
    for seat, level in bots:
        page.select_option(f"[data-testid=seat-kind-{seat}]", level)
    mode = {None: "auto", True: "on", False: "off"}[assistant]
    page.select_option("[data-testid=assistant]", mode)
    page.click("[data-testid=create-table]")
    page.wait_for_url(re.compile(r".*/t/[A-Za-z0-9_-]+$"))
    page.wait_for_selector("[data-testid=seats]")
    return page.url.rstrip("/").rsplit("/", 1)[1]


def wait_board(page: Page) -> None:
    page.wait_for_selector("[data-testid=tagiron]")


def move_number(page: Page) -> int:
    return int(page.get_attribute("[data-testid=tagiron]", "data-n") or 0)


def wait_move(page: Page, n: int, timeout: float = 15_000) -> None:
    """Wait until the page has drawn move ``n`` (or a later one)."""
    page.wait_for_function(
        "n => Number(document.querySelector('[data-testid=tagiron]')?.dataset.n) >= n",
        arg=n,
        timeout=timeout,
    )


def is_my_turn(page: Page) -> bool:
    return page.locator(".tp-turn--mine").count() > 0


def my_tiles(page: Page) -> list[str]:
    return page.eval_on_selector_all(
        "[data-testid=my-tiles] [data-tile]", "els => els.map(e => e.dataset.tile)"
    )


def ask_first_card(page: Page, timeout: float | None = None) -> str:
    """Ask the first face-up question (its first number, for a choice card)."""
    card = page.locator(".qc--live").first
    card_id = card.get_attribute("data-card", timeout=timeout)
    page.locator(f".qc--live[data-card='{card_id}'] .qc-face").click(timeout=timeout)
    page.locator(".qc-ask .btn--primary").first.click(timeout=timeout)
    return card_id


def declare(page: Page, tiles: Iterable[str]) -> None:
    page.click("[data-testid=declare]")
    dialog = page.locator("[data-testid=declare-dialog]")
    for code in tiles:
        dialog.locator(
            f".decl-tile[data-code='{code}']:not([disabled]):not(.decl-tile--on)"
        ).first.click()
    dialog.locator("[data-testid=decl-next]").click()
    dialog.locator("[data-testid=decl-ok]").click()
    dialog.wait_for(state="detached")


def visible_strings(page: Page) -> list[str]:
    return page.evaluate(VISIBLE_TEXT_JS)


def assert_no_japanese(page: Page, user_texts: Iterable[str] = ()) -> None:
    """Every visible interface string is English; user names and chat may be anything."""
    texts = sorted(set(user_texts), key=len, reverse=True)
    leftovers = []
    for s in visible_strings(page):
        for u in texts:
            s = s.replace(u, "")
        if JAPANESE.search(s):
            leftovers.append(s)
    assert not leftovers, f"Japanese left in the English page: {leftovers[:10]}"


def screenshots(
    page: Page,
    folder: Path,
    name: str,
    *,
    user_texts: Iterable[str] = (),
    before: Any = None,
) -> list[Path]:
    """``{name}-{ja,en}.png`` and ``{name}-phone-{ja,en}.png``; checks the English pages.

    ``before(page)`` runs after each resize (e.g. to pick the panel a phone shows).
    The page is left in Japanese at desktop size.
    """
    written = []
    for lang in ("ja", "en"):
        set_lang(page, lang)
        for suffix, viewport in (("", DESKTOP), ("-phone", PHONE)):
            page.set_viewport_size(viewport)
            page.evaluate(
                "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
            )
            if before:
                before(page)
            if lang == "en":
                assert_no_japanese(page, user_texts)
            path = folder / f"{name}{suffix}-{lang}.png"
            page.screenshot(path=str(path), animations="disabled")
            written.append(path)
    page.set_viewport_size(DESKTOP)
    set_lang(page, "ja")
    return written


PAGE_AND_SNAPSHOT_JS = """
async () => {
  const { app, conn } = window.bodoge;
  const shown = app.shownTable;
  const keys = ["n", "view", "to_act", "may_act", "deadlines", "clock", "result"];
  const held = JSON.parse(JSON.stringify(Object.fromEntries(keys.map((k) => [k, shown.snap[k]]))));
  const fresh = await conn.request({ type: "table.open", table: shown.id });
  return { held, fresh: Object.fromEntries(keys.map((k) => [k, fresh[k]])) };
}
"""


def assert_page_matches_snapshot(page: Page) -> None:
    """What the page holds — kept current from event frames alone — is a fresh snapshot."""
    both = page.evaluate(PAGE_AND_SNAPSHOT_JS)
    assert both["held"] == both["fresh"]


# --- games against bots, played to a given point ---------------------------------------

TAGIRON_STATE_JS = """
() => {
  if (document.querySelector('[data-testid=result]')) return 'over';
  if (document.querySelector('[data-testid=declare-dialog], dialog[open]')) return 'busy';
  const board = document.querySelector('[data-testid=tagiron]');
  const declare = document.querySelector('[data-testid=declare]');
  if (board?.dataset.phase === 'final_declaration' && declare && !declare.disabled
      && document.querySelector('.tp-turn--mine')) return 'final';
  if (document.querySelector('.qc--live')) return 'ask';
  const pass = document.querySelector('[data-testid=pass]');
  if (pass && !pass.disabled) return 'pass';
  return null;
}
"""


def start_tagiron_against_bots(
    page: Page,
    players: int = 2,
    *,
    level: str = "expert",
    turn_seconds: int | None = None,
    assistant: bool = False,
) -> str:
    """A signed-in page creates a table, fills every other seat with a bot and starts."""
    table = create_table(
        page,
        players,
        bots=[(s, level) for s in range(1, players)],
        assistant=assistant,
        turn_seconds=turn_seconds,
    )
    page.locator("[data-testid=start]:not([disabled])").click()
    wait_board(page)
    return table


def tagiron_turn(page: Page, timeout: float = 30_000) -> str:
    """Wait until the page's player may act or the game is over.

    Returns 'ask', 'final' (a 2-player final declaration), 'pass' or 'over'.
    """
    while True:
        state = page.wait_for_function(TAGIRON_STATE_JS, timeout=timeout).json_value()
        if state != "busy":
            return state
        page.wait_for_timeout(100)


def play_tagiron_to_the_end(page: Page) -> None:
    """Ask the first face-up question on every turn, pass or declare anything when that is
    all there is to do, until the game is over (the bots see to that)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(60):
        state = tagiron_turn(page)
        if state == "over":
            return
        n = move_number(page)
        try:
            if state == "ask":
                ask_first_card(page, timeout=3000)
            elif state == "pass":
                page.click("[data-testid=pass]", timeout=3000)
                page.click("[data-testid=confirm-ok]", timeout=3000)
            elif state == "final":
                page.click("[data-testid=declare]", timeout=3000)
                dialog = page.locator("[data-testid=declare-dialog]")
                for _ in range(5):
                    dialog.locator(".decl-tile:not([disabled]):not(.decl-tile--on)").first.click()
                dialog.locator("[data-testid=decl-next]").click()
                dialog.locator("[data-testid=decl-ok]").click()
        except PlaywrightTimeout:
            continue  # the bots moved (or ended the game) meanwhile: look again
        wait_move(page, n + 1)
    raise AssertionError("the game should be over by now")


def show_panel(page: Page, panel: str) -> None:
    """Bring a side panel into view: its tab under tabs, or open it if it is collapsed."""
    if page.is_visible(f"[data-testid=tab-{panel}]"):
        page.click(f"[data-testid=tab-{panel}]")
    elif page.is_visible(f"[data-testid=panel-toggle-{panel}][aria-expanded=false]"):
        page.click(f"[data-testid=panel-toggle-{panel}]")

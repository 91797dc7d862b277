"""Accessibility in the browser (issue 14, point 9).

* The current axe-core (the npm package ``scripts/install.sh test`` installs into
  ``.test-tools/``, injected into each page), every rule at its default, finds no
  violation at all on every page: the lobby, the waiting room, both games in play and at
  the end, the replay, the account and sign-in pages, a profile, the leaderboard — in
  Japanese and English, at desktop and phone width.
* The keyboard focus lands somewhere sensible after every action (never on
  ``<body>``): asking, declaring, voting, playing a word, taking a seat.
* Every control a finger presses is at least 24×24 CSS pixels, the memo cells on a
  phone included.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

from tests.e2e import ui
from tests.e2e.conftest import DESKTOP, PHONE, ROOT
from tests.e2e.test_illustori import BOARD, create_illustori, ja_word, next_heads, play

Page = Any
#: axe-core as ``scripts/install.sh test`` installs it (``BODOGE_AXE``: another copy).
AXE_JS = Path(
    os.environ.get("BODOGE_AXE", ROOT / ".test-tools" / "node_modules" / "axe-core" / "axe.min.js")
)


@cache
def axe_source() -> str:
    assert AXE_JS.exists(), f"no axe-core at {AXE_JS}: run scripts/install.sh test"
    return AXE_JS.read_text(encoding="utf-8")


#: Every rule at its default. A toast fading out is half transparent for a moment: not the
#: page's contrast.
RUN_AXE_JS = """
() => axe.run({ exclude: [['.toast--out']] }, { resultTypes: ['violations'] })
  .then(r => ({ version: axe.version, violations: r.violations.map(v => ({
    id: v.id, impact: v.impact,
    nodes: v.nodes.slice(0, 4).map(n => [n.target.join(' '), n.html.slice(0, 120)]),
    count: v.nodes.length })) }))
"""


def run_axe(page: Page) -> dict[str, Any]:
    """axe-core's violations on the page as it is (evaluated through the DevTools protocol,
    so a page's Content-Security-Policy does not stand in its way)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_source())
    found: dict[str, Any] = page.evaluate(RUN_AXE_JS)
    return found


#: Controls smaller than 24×24 px, ignoring inline links in running text (WCAG 2.5.8).
SMALL_TARGETS_JS = """
() => [...document.querySelectorAll(
    'button, [role=button], input, select, textarea, a[href], [tabindex="0"]')]
  .filter(el => el.checkVisibility({ visibilityProperty: true }))
  .filter(el => !(el.tagName === 'A' && el.closest('p, li')))
  .filter(el => !el.closest('.sr-only'))
  .map(el => ({ el, r: el.getBoundingClientRect() }))
  .filter(({ r }) => r.width > 0 && (r.width < 23.5 || r.height < 23.5))
  .map(({ el, r }) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`
       + `[${el.dataset.testid ?? el.dataset.key ?? ''}]`
       + ` ${Math.round(r.width)}×${Math.round(r.height)}`)
"""


#: The lowest contrast of the text of the visible elements matching a selector, against
#: the first opaque background behind it (the elements the issue measured by hand).
CONTRAST_JS = """
sel => {
  const rgb = (c) => (c.match(/[\\d.]+/g) ?? []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratios = [];
  for (const el of document.querySelectorAll(sel)) {
    if (!el.checkVisibility({ visibilityProperty: true }) || !el.textContent.trim()) continue;
    const fg = rgb(getComputedStyle(el).color);
    let bg = [255, 255, 255];
    for (let at = el; at; at = at.parentElement) {
      const c = rgb(getComputedStyle(at).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) { bg = c.slice(0, 3); break; }
    }
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    ratios.push((a + 0.05) / (b + 0.05));
  }
  return ratios.length ? Math.min(...ratios) : null;
}
"""


def lowest_contrast(page: Page, selector: str) -> float | None:
    return page.evaluate(CONTRAST_JS, selector)


class Audit:
    """Runs axe on a page in both languages and both widths and gathers what it finds."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def check(self, page: Page, where: str, *, before: Any = None) -> None:
        lang_before = page.get_attribute("html", "lang")
        # Without motion a toast is whole from its first frame: a toast caught fading in is
        # half transparent for a moment, which is not the page's contrast.
        page.emulate_media(reduced_motion="reduce")
        for lang in ("ja", "en"):
            switch_lang(page, lang)
            for width, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
                page.set_viewport_size(viewport)
                page.evaluate(
                    "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
                )
                if before:
                    before(page)
                label = f"{where} ({lang}, {width})"
                results = run_axe(page)
                assert results["version"].startswith("4."), results["version"]
                for v in results["violations"]:
                    self.found.append(
                        f"{label}: {v['id']} ({v['impact']}, {v['count']}×) {v['nodes']}"
                    )
                small = page.evaluate(SMALL_TARGETS_JS)
                self.found.extend(f"{label}: target under 24×24: {s}" for s in small[:6])
        page.set_viewport_size(DESKTOP)
        switch_lang(page, lang_before or "ja")

    def assert_clean(self) -> None:
        assert not self.found, "accessibility problems:\n" + "\n".join(self.found)


def switch_lang(page: Page, lang: str) -> None:
    """The language switch of the header, also while a modal dialog covers it."""
    page.evaluate("l => import('/static/js/i18n.js').then(m => m.setLang(l))", lang)
    page.wait_for_selector(f"html[lang={lang}]")


def focus_on_body(page: Page) -> bool:
    """Whether the focus is lost, a quarter of a second after the page settled."""
    return page.evaluate(
        "() => new Promise(r => setTimeout(() =>"
        " r(!document.activeElement || document.activeElement === document.body), 250))"
    )


def test_tagiron_lobby_waiting_room_play_end_and_replay(open_page):
    audit = Audit()
    page, _ = open_page("/")
    page.wait_for_selector("[data-testid=nickname]")
    audit.check(page, "nickname")
    ui.sign_in(page, "はなこ")
    audit.check(page, "lobby")
    ui.create_table(page, 2, bots=[(1, "expert")], assistant=True, turn_seconds=120)
    audit.check(page, "waiting room")

    # Taking a seat by keyboard (another player) leaves the focus on the page.
    guest, _ = open_page("/")
    ui.sign_in(guest, "Taro")
    host_page_url = page.url
    page.click("[data-testid=remove-bot-1]")
    page.wait_for_selector("[data-testid=add-bot-1]")
    audit.check(page, "waiting room, a free seat")
    # The seat left free, its open table in the lobby, the language switch: AA contrast.
    for selector in (".seat-chip--empty", ".lang-btn:not(.lang-btn--on)"):
        assert lowest_contrast(page, selector) >= 4.5, selector
    guest.wait_for_selector(f"[data-table='{host_page_url.rsplit('/', 1)[1]}']")
    audit.check(guest, "lobby, an open table")
    guest.goto(host_page_url)
    guest.focus("[data-testid=sit-1]")
    guest.keyboard.press("Enter")
    guest.wait_for_selector("[data-testid=seats] [data-seat='1'] .seat-chip--human")
    assert not focus_on_body(guest), "taking a seat dropped the focus"
    audit.check(guest, "waiting room, seated guest")
    guest.click("[data-testid=leave]")
    page.wait_for_selector("[data-testid=add-bot-1]")
    page.focus("[data-testid=add-bot-1]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=remove-bot-1]")
    assert not focus_on_body(page), "adding a bot dropped the focus"

    page.locator("[data-testid=start]:not([disabled])").click()
    ui.wait_board(page)
    assert ui.tagiron_turn(page) == "ask"
    audit.check(page, "tagiron, your turn")

    # Asking by keyboard: the focus stays on the board.
    card = page.locator(".qc--live").first.get_attribute("data-card")
    page.focus(f"[data-key=card-{card}]")
    page.keyboard.press("Enter")
    page.wait_for_selector(".qc-ask")
    audit.check(page, "tagiron, a card chosen", before=lambda p: p.focus(".qc-ask .btn--primary"))
    n = ui.move_number(page)
    page.focus(".qc-ask .btn--primary")
    page.keyboard.press("Enter")
    ui.wait_move(page, n + 1)
    assert not focus_on_body(page), "asking dropped the focus"
    assert page.evaluate("() => !!document.activeElement.closest('[data-testid=tagiron]')")

    # The memo sheet on a phone: every cell at least 24×24.
    page.set_viewport_size(PHONE)
    page.click("[data-testid=tab-memo]")
    sizes = page.eval_on_selector_all(
        "[data-testid^=memo-cell-]",
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })",
    )
    assert sizes
    if min(w for w, _ in sizes) < 24 or min(h for _, h in sizes) < 24:
        audit.found.append(f"memo cells on a phone: {sizes[0]}")
    audit.check(
        page,
        "tagiron, the memo",
        before=lambda p: (
            p.click("[data-testid=tab-memo]") if p.is_visible("[data-testid=tab-memo]") else None
        ),
    )
    audit.check(
        page,
        "tagiron, the rules",
        before=lambda p: ui.show_panel(p, "rules"),
    )
    page.set_viewport_size(DESKTOP)

    # The declaration dialog, opened and closed by keyboard.
    assert ui.tagiron_turn(page) == "ask"
    page.focus("[data-testid=declare]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=declare-dialog]")
    audit.check(page, "tagiron, declaring")
    # Escape on the review step goes back to the picking; on the picking, out.
    dialog = page.locator("[data-testid=declare-dialog]")
    while dialog.locator("[data-testid=decl-next][disabled]").count():
        dialog.locator(".decl-tile:not([disabled]):not(.decl-tile--on)").first.click()
    dialog.locator("[data-testid=decl-next]").click()
    dialog.locator("[data-testid=decl-ok]").wait_for()
    page.keyboard.press("Escape")
    dialog.locator("[data-testid=decl-next]").wait_for()
    assert dialog.locator("[data-testid=decl-ok]").count() == 0
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=declare-dialog]", state="detached")
    assert not focus_on_body(page), "closing the declaration dropped the focus"

    ui.play_tagiron_to_the_end(page)
    audit.check(page, "tagiron, the end")
    page.click("[data-testid=replay-link]")
    page.wait_for_selector("[data-testid=replay-page] [data-testid=tagiron]")
    audit.check(page, "tagiron, replay")

    # A profile (with the game just played) and the leaderboard.
    me = page.evaluate("() => window.bodoge.conn.player.id")
    base = page.url.split("/t/")[0]
    page.goto(f"{base}/p/{me}")
    page.wait_for_selector("[data-testid=profile-game]")
    audit.check(page, "profile")
    page.goto(f"{base}/leaderboard")
    page.wait_for_selector(".board-panel")
    audit.check(page, "leaderboard")
    audit.assert_clean()


def test_illustori_play_and_end(open_page):
    audit = Audit()
    page, _ = open_page("/")
    ui.sign_in(page, "はなこ")
    create_illustori(
        page, 3, bots=((1, "normal"), (2, "normal")), seed=3, flags=("show_rules", "vote_limit")
    )
    page.locator("[data-testid=start]:not([disabled])").click()
    page.wait_for_selector(BOARD)

    seen_vote = seen_turn = False
    for _ in range(300):
        page.wait_for_function(
            "() => { const b = document.querySelector('[data-testid=illustori]');"
            " return b.dataset.phase === 'ended' || document.querySelector("
            "'[data-testid=vote-ok], [data-testid=word-form],"
            " [data-testid=hand] button.ic:not([disabled])'); }",
            timeout=30_000,
        )
        phase = page.get_attribute(BOARD, "data-phase")
        if phase == "ended":
            break
        n = int(page.get_attribute(BOARD, "data-n"))
        if page.locator("[data-testid=vote-ok]").count():
            if not seen_vote:
                audit.check(page, "illustori, voting")
                seen_vote = True
            page.focus("[data-testid=vote-ok]")
            page.keyboard.press("Enter")
            page.wait_for_function(
                "n => Number(document.querySelector('[data-testid=illustori]').dataset.n) > n"
                " || document.querySelector('[data-testid=my-vote]')",
                arg=n,
            )
            assert not focus_on_body(page), "voting dropped the focus"
        elif phase == "first_word":
            page.fill("[data-testid=word]", "つきよ")
            page.click("[data-testid=send]")
        else:
            if not seen_turn:
                assert lowest_contrast(page, "[data-testid=next-heads] .il-head") >= 4.5
                page.locator("[data-testid=hand] button.ic:not([disabled])").first.click()
                page.fill("[data-testid=word]", ja_word(next_heads(page))[:1])
                audit.check(page, "illustori, naming a card")
                page.locator("[data-testid=hand] button.ic--on").click()
                seen_turn = True
                # A word played by keyboard: the focus stays on the board.
                page.focus("[data-testid=hand] button.ic:not([disabled])")
                page.keyboard.press("Enter")
                page.keyboard.type(ja_word(next_heads(page)))
                page.keyboard.press("Enter")
                page.wait_for_function(
                    "n => Number(document.querySelector('[data-testid=illustori]').dataset.n) > n",
                    arg=n,
                )
                assert not focus_on_body(page), "playing a word dropped the focus"
                continue
            play(page, ja_word(next_heads(page)))
        page.wait_for_function(
            "n => Number(document.querySelector('[data-testid=illustori]').dataset.n) > n",
            arg=n,
            timeout=30_000,
        )
    page.wait_for_selector("[data-testid=result]")
    assert seen_vote and seen_turn
    # The game is over: no toast still announces its final round (issue 34, point 7).
    page.wait_for_timeout(300)
    assert page.locator("[data-testid=toast]:not(.toast--out) >> text=最終ラウンド").count() == 0
    # The badges of the chain's joints and the OpenMoji credit: AA contrast.
    for selector in (".il-joint-char", "[data-testid=attribution]"):
        assert lowest_contrast(page, selector) >= 4.5, selector
    audit.check(
        page,
        "illustori, the end",
        before=lambda p: ui.show_panel(p, "rules"),
    )
    page.click("[data-testid=replay-link]")
    page.wait_for_selector("[data-testid=replay-page] [data-testid=illustori]")
    audit.check(page, "illustori, replay")
    audit.assert_clean()

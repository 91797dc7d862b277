"""The assistant's probabilities on the memo sheet: every hidden hand's page, at 2, 3 and 4
players, as percentages in the cells and in their accessible names, in both languages and on a
phone."""

from __future__ import annotations

import re

import pytest

from tests.e2e import ui
from tests.e2e.conftest import DESKTOP, PHONE

CELLS_JS = """
() => [...document.querySelectorAll('[data-testid=memo] .mc')].map((c) => ({
  text: c.textContent,
  label: c.getAttribute('aria-label'),
  p: c.classList.contains('mc--p'),
  fits: c.scrollWidth <= c.clientWidth && c.scrollHeight <= c.clientHeight,
}))
"""

HAS_PERCENT_JS = """
() => [...document.querySelectorAll('[data-testid=memo] .mc--p')]
  .some((c) => /%$/.test(c.textContent))
"""


@pytest.mark.parametrize(
    ("players", "lang", "viewport"),
    [
        (2, "ja", DESKTOP),
        (2, "en", PHONE),
        (3, "en", DESKTOP),
        (3, "ja", PHONE),
        (4, "ja", DESKTOP),
        (4, "en", PHONE),
    ],
)
def test_every_hidden_hand_shows_its_probabilities(
    open_page, players: int, lang: str, viewport: dict[str, int]
) -> None:
    page, _ = open_page("/", viewport=viewport, lang=lang)
    ui.sign_in(page, "メモ" if lang == "ja" else "Memo")
    ui.start_tagiron_against_bots(page, players, level="easy", assistant=True)
    # the bots wait for this seat's move: the view, and so the analysis, holds still
    assert ui.tagiron_turn(page, timeout=60_000) == "ask"
    page.wait_for_selector("[data-testid=assist-count]", state="attached")
    ui.show_panel(page, "memo")
    targets = (["centre"] if players > 2 else []) + [f"s{s}" for s in range(1, players)]
    for key in targets:
        if players > 2:
            page.click(f"[data-testid=memo-target-{key}]")
        # A bot worker process computes them: under a whole test run's load, at 4 players,
        # that once took over the default 15 s.
        page.wait_for_function(HAS_PERCENT_JS, timeout=60_000)
        cells = page.evaluate(CELLS_JS)
        assert len(cells) == 19 * (5 if players < 4 else 4)
        shown = [c for c in cells if c["p"] and c["text"]]
        assert shown, key
        for cell in shown:
            assert re.fullmatch(r"[1-9][0-9]?%", cell["text"]), cell
            # the accessible name begins with the visible text as it is shown
            assert cell["label"].startswith(f"{cell['text']}, "), cell
            assert cell["fits"], cell
        # a cell without a figure still says its probability when it has one (0% or 100%)
        blank = [c for c in cells if c["p"] and not c["text"]]
        assert all(re.search(r"\((0|100)%\)$", c["label"]) for c in blank)
    if lang == "en":
        ui.assert_no_japanese(page, ["Memo"])

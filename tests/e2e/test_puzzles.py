"""Puzzles in the browser: a guest solves one puzzle of each kind and fails another, in
Japanese and in English, from the lobby's link; by keyboard alone; axe finds nothing on the
page, before and after an answer, at desktop and phone width; screenshots for the README."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from bodoge.core.puzzles import MadePuzzle
from bodoge.games.tagiron.puzzle_make import make
from bodoge.server.services.puzzles import records_of
from bodoge.store import open_store, sqlite_url
from tests.e2e import ui
from tests.e2e.test_accessibility import Audit
from tests.support.live_server import LiveServer

Page = Any
KINDS = ("declare", "question", "count", "tile")


@pytest.fixture(scope="module")
def puzzles(live_server: LiveServer) -> dict[str, MadePuzzle]:
    made = make(24, 5).puzzles
    assert min(Counter(p.kind for p in made).values()) >= 2

    async def keep() -> None:
        store = await open_store(sqlite_url(live_server.data))
        try:
            await store.add_puzzles(records_of("tagiron", made, int(time.time() * 1000)))
        finally:
            await store.close()

    # Playwright's own loop runs in this thread: the store is written from another
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, keep()).result()
    return {p.id: p for p in made}


def shown(page: Page, puzzles: dict[str, MadePuzzle], kind: str | None = None) -> MadePuzzle:
    meta = page.wait_for_selector("[data-testid=pz-meta]")
    puzzle = puzzles[meta.get_attribute("data-puzzle")]
    assert kind is None or puzzle.kind == kind
    return puzzle


def option_id(card: str, choice: int | None) -> str:
    return f"option-{card}{'' if choice is None else choice}"


def answer(page: Page, p: MadePuzzle, right: bool) -> None:
    """Answer through the form, rightly or not."""
    s = p.data["solution"]
    if p.kind == "declare":
        tiles = list(s["tiles"])
        if not right:
            hand = p.data["position"]["hand"]
            spare = next(
                t for t in ("R0", "B0", "R1", "B1", "R9", "B9", "R4", "B4") if t not in tiles + hand
            )
            tiles[-1] = spare
        for t in tiles:
            page.click(f"[data-testid=pick-{t}]")
    elif p.kind == "question":
        options = p.data["ask"]["options"]
        chosen = (
            s
            if right
            else next(o for o in options if (o["card"], o["choice"]) != (s["card"], s["choice"]))
        )
        page.check(f"[data-testid={option_id(chosen['card'], chosen['choice'])}]")
    elif p.kind == "count":
        page.fill("[data-testid=pz-count]", str(s["count"] if right else s["high"] + 1))
    else:
        hand = p.data["position"]["hand"]
        spare = next(t for t in ("R0", "B0", "R1", "B1", "R9", "B9") if t not in [s["tile"], *hand])
        page.click(f"[data-testid=pick-{s['tile'] if right else spare}]")
    page.click("[data-testid=pz-submit]")


def verdict(page: Page) -> bool:
    found = page.wait_for_selector("[data-testid=pz-verdict]")
    return found.get_attribute("data-right") == "true"


def rating(page: Page) -> int:
    return int(page.inner_text("[data-testid=pz-rating]"))


def check_explanation(page: Page, p: MadePuzzle) -> None:
    page.wait_for_selector("[data-testid=pz-explain]")
    if p.kind == "question":
        compared = page.locator("[data-testid=pz-compare]")
        assert compared.count() == len(p.data["ask"]["options"])
    else:
        assert page.locator("[data-testid=pz-step]").count() == len(p.data["explanation"]["steps"])


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_guest_solves_and_fails_a_puzzle_of_each_kind(
    open_page: Any, puzzles: dict[str, MadePuzzle], lang: str
) -> None:
    page, _ = open_page("/", lang=lang)
    ui.sign_in(page, "はなこ" if lang == "ja" else "Kai")
    page.click("[data-testid=puzzles-link]")
    page.wait_for_selector("[data-testid=pz-meta]")
    assert page.inner_text("[data-testid=pz-rating]") == "1000"
    for kind in KINDS:
        page.select_option("[data-testid=pz-kind]", kind)
        page.wait_for_url(f"**/puzzles?kind={kind}")
        solved = shown(page, puzzles, kind)
        before = rating(page)
        answer(page, solved, right=True)
        assert verdict(page) is True
        assert rating(page) > before
        assert page.evaluate("document.activeElement.id") == "pz-verdict"
        check_explanation(page, solved)
        if lang == "en":
            ui.assert_no_japanese(page, ["Kai"])
        page.click("[data-testid=pz-another]")
        failed = shown(page, puzzles, kind)
        assert failed.id != solved.id
        before = rating(page)
        answer(page, failed, right=False)
        assert verdict(page) is False
        assert rating(page) < before
        assert page.inner_text("[data-testid=pz-streak]") == "0"
        check_explanation(page, failed)
        if lang == "en":
            ui.assert_no_japanese(page, ["Kai"])
    assert page.inner_text("[data-testid=pz-solved]") == "4 / 8"
    # the daily puzzle, and the profile lists every answer
    page.click("[data-testid=pz-daily]")
    page.wait_for_url("**/puzzles?daily")
    shown(page, puzzles)
    me = page.evaluate("window.bodoge.conn.player.id")
    page.goto(page.url.split("/puzzles")[0] + f"/p/{me}")
    page.wait_for_selector("[data-testid=profile-puzzles]")
    assert page.locator("[data-testid=profile-puzzle]").count() == 8


def test_puzzles_are_solved_by_keyboard_alone(
    open_page: Any, puzzles: dict[str, MadePuzzle]
) -> None:
    page, _ = open_page("/", lang="en")
    ui.sign_in(page, "Kai")

    def tab_to_submit() -> None:
        for _ in range(40):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.dataset.testid") == "pz-submit":
                return
        raise AssertionError("the answer button is not reached by Tab")

    page.goto(page.url.rstrip("/") + "/puzzles?kind=tile")
    p = shown(page, puzzles, "tile")
    page.focus(f"[data-testid=pick-{p.data['solution']['tile']}]")
    page.keyboard.press("Enter")
    assert (
        page.evaluate("document.activeElement.dataset.testid")
        == f"pick-{p.data['solution']['tile']}"
    )
    tab_to_submit()
    page.keyboard.press("Enter")
    assert verdict(page) is True
    assert page.evaluate("document.activeElement.id") == "pz-verdict"

    page.goto(page.url.split("/puzzles")[0] + "/puzzles?kind=question")
    p = shown(page, puzzles, "question")
    s = p.data["solution"]
    page.focus(f"[data-testid={option_id(s['card'], s['choice'])}]")
    page.keyboard.press("Space")
    tab_to_submit()
    page.keyboard.press("Enter")
    assert verdict(page) is True

    page.goto(page.url.split("/puzzles")[0] + "/puzzles?kind=count")
    p = shown(page, puzzles, "count")
    page.focus("[data-testid=pz-count]")
    page.keyboard.type(str(p.data["solution"]["count"]))
    page.keyboard.press("Enter")  # a number field submits its form
    assert verdict(page) is True


def test_the_puzzle_page_is_accessible_before_and_after_an_answer(
    open_page: Any, puzzles: dict[str, MadePuzzle], screenshot_dir: Path
) -> None:
    audit = Audit()
    page, _ = open_page("/", lang="ja")
    ui.sign_in(page, "はなこ")
    for kind in KINDS:
        page.goto(page.url.split("/puzzles")[0].rstrip("/") + f"/puzzles?kind={kind}")
        p = shown(page, puzzles, kind)
        first = next((t for t in p.data["solution"].get("tiles", []) if t != "G5"), None)
        if first:  # a tile chosen: the form half filled in
            page.click(f"[data-testid=pick-{first}]")
        audit.check(page, f"puzzle {kind}")
        if kind in ("declare", "tile"):
            ui.screenshots(page, screenshot_dir, f"puzzle-{kind}", user_texts=["はなこ"])
        if first:
            page.click(f"[data-testid=pick-{first}]")  # taken off again
        answer(page, p, right=kind != "tile")
        verdict(page)
        audit.check(page, f"puzzle {kind}, answered")
        if kind in ("question", "declare"):
            ui.screenshots(page, screenshot_dir, f"puzzle-{kind}-explained", user_texts=["はなこ"])
    me = page.evaluate("window.bodoge.conn.player.id")
    page.goto(page.url.split("/puzzles")[0] + f"/p/{me}")
    page.wait_for_selector("[data-testid=profile-puzzle]")
    audit.check(page, "profile with puzzles")
    audit.assert_clean()

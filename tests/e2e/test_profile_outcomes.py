"""A profile in Chromium counts what its recent-games list says: three rated games ending
Lost, Draw, Lost are no win (the issue's case), in both languages, on a desktop and a phone."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bodoge.games.tagiron.moves import Declare
from bodoge.store import MoveRecord, PlayerRecord, SeatRecord, TableRecord, Timers, open_store
from tests.e2e.conftest import DESKTOP, PHONE
from tests.games.tagiron.helpers import GAME, any_question, new

PLAYER = "p_lostdraw"
#: The elements that reach past the page's right edge.
WIDE_JS = """() => [...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > innerWidth + 1)
  .map((e) => `${e.tagName}.${e.className}`).slice(0, 8)"""


def _lost() -> tuple[int, int, list[tuple[int, object]]]:
    """Seed 2: the first player asks, the second declares right and wins: the first lost."""
    state = new(2, seed=2)
    first = state.first
    moves: list[tuple[int, object]] = [(first, any_question(state))]
    state, _ = GAME.apply(state, first, moves[0][1])
    moves.append((1 - first, Declare(state.hands[first])))
    return 2, first, moves


def _draw() -> tuple[int, int, list[tuple[int, object]]]:
    """Seed 4: both declare right, a draw."""
    state = new(2, seed=4)
    first, second = state.first, 1 - state.first
    return 4, first, [(first, Declare(state.hands[second])), (second, Declare(state.hands[first]))]


async def _store(path: Path) -> None:
    store = await open_store(f"sqlite+aiosqlite:///{path}")
    await store.create_player(PlayerRecord(PLAYER, "リマ", "hash-rima", 0))
    for i, (seed, seat, moves) in enumerate((_lost(), _draw(), _lost())):
        table_id = f"t_outcome{i}"
        seats = [
            SeatRecord(s, "human", PLAYER) if s == seat else SeatRecord(s, "bot", level="easy")
            for s in range(2)
        ]
        record = TableRecord(
            table_id, "tagiron", {"players": 2}, {"rated": True}, seed, "waiting", PLAYER, 1
        )
        await store.create_table(record, seats)
        await store.start_table(table_id, 2, seats, Timers())
        state = GAME.setup(GAME.options({"players": 2}), 2, seed)
        for n, (s, move) in enumerate(moves, start=1):
            state, _ = GAME.apply(state, s, move)
            result = state.result.to_json() if state.result else None
            await store.append_move(
                table_id, MoveRecord(n, s, GAME.move_to_json(move), 10 + n), None, result
            )
    await store.close()


@pytest.mark.parametrize(
    ("lang", "viewport", "words", "columns"),
    [
        ("ja", DESKTOP, ("負け", "引き分け"), ("対局数", "勝ち", "引き分け", "勝率")),
        ("en", PHONE, ("Lost", "Draw"), ("Games", "Wins", "Draws", "Win rate")),
    ],
)
def test_lost_draw_lost_shows_no_win(
    browser,
    make_live_server,
    tmp_path,
    lang: str,
    viewport: dict[str, int],
    words: tuple[str, str],
    columns: tuple[str, str, str, str],
) -> None:
    data = tmp_path / "server-0"  # the data folder of the first server make_live_server makes
    data.mkdir(parents=True)
    # in a thread of its own: the sync Playwright API runs an event loop in this one
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _store(data / "bodoge.sqlite3")).result()
    server = make_live_server()
    context = browser.new_context(viewport=viewport, locale="ja-JP")
    context.add_init_script(
        f"try {{ localStorage.setItem('bodoge.lang', '{lang}'); }} catch (e) {{}}"
    )
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url.rstrip("/") + f"/p/{PLAYER}")
        row = page.locator("[data-testid=stats-tagiron]")
        row.wait_for()
        badges = page.locator("[data-testid=profile-game] .badge--finished").all_inner_texts()
        lost, draw = words
        assert sorted(badges) == sorted([lost, draw, lost])
        # read by the column headings, as a person does
        heads = page.locator(".profile-stats thead th").all_inner_texts()
        cells = dict(zip(heads, row.locator("th, td").all_inner_texts(), strict=True))
        games, wins, draws, rate = columns
        assert (cells[games], cells[wins], cells[draws], cells[rate]) == ("3", "0", "1", "0%")
        # the table fits the page's width (no sideways scrolling on a phone)
        wide = page.evaluate(WIDE_JS)
        assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth"), wide
    finally:
        context.close()
    assert not errors

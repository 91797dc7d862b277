"""Per-game statistics on profiles: counted when a game ends, stored with its result, and
made once for the games of an older store (replayed at the start)."""

from __future__ import annotations

import asyncio
import random
import sqlite3

import httpx
from alembic import command
from sqlalchemy.ext.asyncio import create_async_engine

from bodoge.cli import main
from bodoge.games import registry
from bodoge.games.tagiron.game import TagironGame
from bodoge.games.tagiron.moves import Declare, Pass
from bodoge.server.services.statistics import fill_in
from bodoge.store import (
    MoveRecord,
    PlayerRecord,
    SeatRecord,
    TableRecord,
    Timers,
    open_store,
    sqlite_url,
)
from bodoge.store.upgrade import _config
from tests.games.tagiron.helpers import any_question, new
from tests.server.tagiron_play import history, play_seat
from tests.support.client import Client
from tests.support.live_server import LiveServer

GAME = TagironGame()


def _figures(profile: dict, game: str) -> tuple[int, dict[str, object]]:
    (row,) = [s for s in profile["stats"] if s["game"] == game]
    return row["counted"], {f["key"]: f["value"] for f in row["figures"]}


async def test_a_game_played_through_the_server_counts_on_the_profile(
    live_server: LiveServer,
) -> None:
    eve = await Client.connect(live_server.ws_url, "Eve")
    table = (await eve.ok("table.create", game="tagiron", bots=[{"seat": 1, "level": "easy"}]))[
        "table"
    ]
    await eve.ok("table.open", table=table)
    await eve.ok("table.start", table=table)
    await play_seat(eve, table, random.Random(5), declare=0.3)
    # What the seat did, from the history replayed here.
    hist = await history(live_server.url, table)
    state = GAME.setup(GAME.options(hist["options"]), 2, hist["seed"])
    for m in hist["moves"]:
        state, _ = GAME.apply(state, m["seat"], GAME.move_from_json(m["move"]))
    want = GAME.statistics(state, 0)
    async with httpx.AsyncClient(base_url=live_server.url, timeout=30) as http:
        profile = (await http.get(f"/api/players/{eve.player_id}")).json()
    counted, figures = _figures(profile, "tagiron")
    assert counted == 1
    assert figures == {
        "right": want["right"],
        "questions_to_right": float(want["questions_to_right"]) if want["right"] else None,
        "questions": want["questions"],
    }
    assert [f["label"] for f in profile["stats"][0]["figures"]] == [
        "tg.stat.right",
        "tg.stat.questions_to_right",
        "tg.stat.questions",
    ]
    await eve.close()


def _a_short_game() -> list[tuple[int, object]]:
    """Seed 2, two players: the first asks, the second asks, the first declares right, the
    second passes its final declaration."""
    state = new(2, seed=2)
    first, second = state.first, 1 - state.first
    moves: list[tuple[int, object]] = []
    for seat in (first, second):
        move = any_question(state)
        state, _ = GAME.apply(state, seat, move)
        moves.append((seat, move))
    for seat, move in ((first, Declare(state.hands[second])), (second, Pass())):
        state, _ = GAME.apply(state, seat, move)
        moves.append((seat, move))
    assert state.result is not None
    return moves


async def _older_store(path, player: str, finished: int) -> None:
    """A store as an earlier version left it: finished games, no statistics column."""
    store = await open_store(f"sqlite+aiosqlite:///{path}")
    await store.create_player(PlayerRecord(player, "Old", "hash-old", 0))
    moves = _a_short_game()
    for i in range(finished):
        table_id = f"t_old{i}"
        seats = [SeatRecord(0, "human", player), SeatRecord(1, "bot", level="easy")]
        record = TableRecord(table_id, "tagiron", {"players": 2}, {}, 2, "waiting", player, 1)
        await store.create_table(record, seats)
        await store.start_table(table_id, 2, seats, Timers())
        for n, (seat, move) in enumerate(moves, start=1):
            last = n == len(moves)
            result = {"places": [1, 2], "reason": "final_declaration_wrong", "winners": [0]}
            await store.append_move(
                table_id,
                MoveRecord(n, seat, GAME.move_to_json(move), 10 + n),
                None,
                result if last else None,
            )
    await store.close()
    # Before statistics there were no schema versions either: back to the baseline, then
    # without the statistics column and the version table, an unversioned store.
    engine = create_async_engine(f"sqlite+aiosqlite:///{path}")
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda c: command.downgrade(_config(c), "0001"))
    finally:
        await engine.dispose()
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE tables DROP COLUMN statistics")
        db.execute("DROP TABLE alembic_version")


async def test_an_older_stores_games_are_replayed_once_for_their_statistics(tmp_path) -> None:
    path = tmp_path / "db.sqlite3"
    await _older_store(path, "p_oldtimer", 3)
    store = await open_store(f"sqlite+aiosqlite:///{path}")  # gains the column, empty
    try:
        assert await store.unsummarised_tables() == ["t_old0", "t_old1", "t_old2"]
        assert await fill_in(store, registry()) == 3
        assert await fill_in(store, registry()) == 0  # once
        (bundle,) = await store.played_tables("p_oldtimer", 1)
        assert bundle.table.statistics == [
            {"questions": 1, "right": 1, "questions_to_right": 1},
            {"questions": 1, "right": 0, "questions_to_right": 0},
        ]
    finally:
        await store.close()


async def test_a_server_started_on_an_older_store_fills_in_its_statistics(
    make_live_server, tmp_path
) -> None:
    data = tmp_path / "server-0"  # the data folder of the first server make_live_server makes
    data.mkdir(parents=True)
    await _older_store(data / "bodoge.sqlite3", "p_oldtimer", 2)
    server = make_live_server()
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        for _ in range(100):
            profile = (await http.get("/api/players/p_oldtimer")).json()
            counted, figures = _figures(profile, "tagiron")
            if counted == 2:
                break
            await asyncio.sleep(0.1)
    assert counted == 2
    assert figures == {"right": 2, "questions_to_right": 1.0, "questions": 2}


def test_the_deploy_step_fills_in_an_older_stores_statistics(tmp_path, capsys) -> None:
    """``bodoge db upgrade`` replays the older games once, so no server has to."""
    asyncio.run(_older_store(tmp_path / "bodoge.sqlite3", "p_oldtimer", 3))
    assert main(["db", "--data", str(tmp_path), "upgrade"]) == 0
    assert "statistics of 3 older games filled in" in capsys.readouterr().out

    async def left() -> list[str]:
        store = await open_store(sqlite_url(tmp_path))
        try:
            return await store.unsummarised_tables()
        finally:
            await store.close()

    assert asyncio.run(left()) == []
    assert main(["db", "--data", str(tmp_path), "upgrade"]) == 0
    assert "statistics" not in capsys.readouterr().out  # once

"""Bots at a human pace: think times per pace, and the reaction window before a race.

In-process servers (no sockets) with short paces, so the rules are checked in
seconds: what matters is who waits for what, not the exact figures, which
``bodoge/server/runtime/pace.py`` states and its doctest checks.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from bodoge.bench.moves import pick_move
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.solver import Deduction
from bodoge.games.tagiron.game import TagironGame
from bodoge.server.runtime.config import ServerConfig
from bodoge.server.runtime.pace import PACE_TABLE, PACES, Pace
from bodoge.server.runtime.settings import parse_settings
from bodoge.server.wiring import Server
from bodoge.store import sqlite_url
from tests.server.test_tables import Tab, _tabs

GAME = TagironGame()
#: The reaction window of the tests' normal pace, and its (short) think time.
WINDOW = 1.0
SHORT = {"normal": Pace(default=(0.02, 0.05), reaction_seconds=WINDOW)}


@pytest.fixture
async def make_server(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """Servers that play every game at the given paces (no ``bot_delay``)."""
    servers: list[Server] = []

    async def make(paces: Mapping[str, Pace]) -> Server:
        config = ServerConfig(db_url=sqlite_url(tmp_path), bot_workers=0, paces=paces)
        server = Server(config)
        await server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        await server.stop()


def test_every_pace_has_a_think_time_per_level_and_fast_is_the_old_speed() -> None:
    rng = random.Random(7)
    # The hosts' choices, and the turn-based tables' pace (no host picks it).
    assert set(PACE_TABLE) == {*PACES, "turn"}
    turn = [PACE_TABLE["turn"].think_seconds("expert", rng) for _ in range(200)]
    assert min(turn) >= 60.0 and max(turn) <= 300.0
    for level in ("easy", "normal", "expert", "a level of another game"):
        fast = PACE_TABLE["fast"].think_seconds(level, rng)
        normal = [PACE_TABLE["normal"].think_seconds(level, rng) for _ in range(200)]
        slow = [PACE_TABLE["slow"].think_seconds(level, rng) for _ in range(200)]
        assert fast == 0.5
        assert min(normal) >= 2.0 and max(normal) <= 6.0 and len(set(normal)) > 100
        assert min(slow) >= 4.0 and max(slow) <= 12.0
    assert PACE_TABLE["fast"].reaction_seconds == 0
    assert PACE_TABLE["normal"].reaction_seconds == 5.0
    assert PACE_TABLE["slow"].reaction_seconds == 8.0


def test_the_pace_is_a_table_setting_normal_by_default() -> None:
    assert parse_settings({}, GAME).bot_pace == "normal"
    assert parse_settings({"bot_pace": "slow"}, GAME).to_json()["bot_pace"] == "slow"
    for bad in ("quick", None, 1, ["fast"]):
        with pytest.raises(Exception, match="bot_pace"):
            parse_settings({"bot_pace": bad}, GAME)


def test_bot_delay_overrides_every_pace() -> None:
    config = ServerConfig(db_url="sqlite+aiosqlite://", bot_delay=0.0)
    for pace in PACES:
        assert config.pace(pace).think_seconds("expert", random.Random()) == 0.0
        assert config.pace(pace).reaction_seconds == 0.0
    assert ServerConfig(db_url="x").pace("slow") == PACE_TABLE["slow"]


async def _tagiron(tab: Tab, players: int, bots: str, **settings: Any) -> str:
    created = await tab.ok(
        "table.create",
        game="tagiron",
        options={"players": players},
        settings=settings,
        bots=[{"seat": s, "level": bots} for s in range(1, players)],
    )
    table = created["table"]
    await tab.ok("table.open", table=table)
    await tab.ok("table.start", table=table)
    return table


async def _play_person(tab: Tab, table: str, rng: random.Random) -> dict[str, Any]:
    """Seat 0 asks a random question on each of its turns and never declares."""
    latest = await tab.ok("table.open", table=table)
    asked = -1
    while latest["result"] is None:
        view = latest["view"]
        if view["turn"] == 0 and latest["n"] != asked:
            asked = latest["n"]
            move = pick_move(view, rng)
            assert move is not None
            await tab.ok("move", table=table, move=move)
        n = latest["n"]
        latest = await tab.wait(
            lambda m, n=n: m.get("type") == "event" and m["table"] == table and m["n"] > n, 60
        )
    return latest


async def test_no_bot_declares_sooner_than_the_reaction_window(
    make_server: Callable[..., Any],
) -> None:
    """1 person and 3 expert bots, 4 players: every bot declaration comes at least the
    window after the move that made the bot certain (and after the move before it)."""
    server: Server = await make_server(SHORT)
    (tab,) = await _tabs(server, 1)
    # Deals are random: play until a bot declared because it was certain (not a guess).
    certain = [await _four_player_game(server, tab, seed) for seed in range(3)]
    assert any(certain), "no bot was ever certain: the test proved nothing"


async def _four_player_game(server: Server, tab: Tab, seed: int) -> bool:
    """One game, checked; whether a bot declared once certain."""
    table = await _tagiron(tab, 4, "expert")
    await _play_person(tab, table, random.Random(seed))

    bundle = await server.store.load_table(table)
    options = GAME.options(bundle.table.options)
    state = GAME.setup(options, 4, bundle.table.seed)
    certain_at: dict[int, int] = {}  # bot seat -> when the move that made it certain was stored
    declarations = []
    last_at = bundle.table.started_at
    assert last_at is not None
    for record in bundle.moves:
        move = GAME.move_from_json(record.move)
        if record.seat != 0 and record.move["type"] == "declare":
            declarations.append((record.seat, record.at, last_at, record.actor))
        state, _ = GAME.apply(state, record.seat, move)
        last_at = record.at
        for seat in (1, 2, 3):
            if seat not in certain_at and state.may_declare(seat):
                view = GAME.view(state, seat)
                if Deduction(Position.from_view({**view, "seat": seat})).certain:
                    certain_at[seat] = record.at
    # The expert may also guess before it is certain: a guess races too, and is held as well.
    for seat, at, previous, actor in declarations:
        assert actor == "bot"
        if seat in certain_at:
            assert at - certain_at[seat] >= WINDOW * 1000, (seat, at, certain_at[seat])
        assert at - previous >= WINDOW * 1000, (seat, at, previous)
    return any(seat in certain_at for seat, *_ in declarations)


async def test_bots_alone_and_fast_tables_hold_nothing(make_server: Callable[..., Any]) -> None:
    """The window is for people: at the fast pace a bot declares as soon as it is sure."""
    server: Server = await make_server({**SHORT, "fast": Pace(default=(0.0, 0.0))})
    (tab,) = await _tabs(server, 1)
    table = await _tagiron(tab, 4, "expert", bot_pace="fast")
    await _play_person(tab, table, random.Random(3))
    bundle = await server.store.load_table(table)
    gaps = [
        b.at - a.at
        for a, b in zip(bundle.moves, bundle.moves[1:], strict=False)
        if b.seat != 0 and b.move["type"] == "declare"
    ]
    assert gaps and min(gaps) < WINDOW * 1000


async def test_a_bot_thinks_at_its_tables_pace(make_server: Callable[..., Any]) -> None:
    think = Pace(default=(0.4, 0.6))
    server: Server = await make_server({"normal": think, "fast": Pace()})
    (tab,) = await _tabs(server, 1)
    slow_table = await _tagiron(tab, 2, "normal")
    latest = await _play_person(tab, slow_table, random.Random(5))
    bundle = await server.store.load_table(slow_table)
    times = [bundle.table.started_at, *(m.at for m in bundle.moves)]
    bot_gaps = [b - a for a, b, m in zip(times, times[1:], bundle.moves, strict=False) if m.seat]
    assert latest["result"] is not None and bot_gaps
    assert min(bot_gaps) >= 400, bot_gaps

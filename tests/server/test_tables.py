"""The table machinery in-process: clocks, turn limits, slow clients, store failures, memory.

These drive :class:`~bodoge.server.edge.connection.Connection` with frames directly
(no sockets), on a test game with a rule clock (:mod:`tests.games.relay.game`).
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import json
import weakref
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bodoge.core.values import JSON
from bodoge.server.runtime import settings as settings_module
from bodoge.server.runtime.config import Limits, ServerConfig
from bodoge.server.runtime.table import LiveTable
from bodoge.server.wiring import Server
from bodoge.store import Store, open_store, sqlite_url
from bodoge.store.sql import SqlStore
from tests.games.relay.game import RelayGame
from tests.support.follow import Follower
from tests.support.lobby import gone, shown


class FakeTransport:
    def __init__(self) -> None:
        self.sent: list[dict[str, JSON]] = []
        self.closed_with: int | None = None
        self.stuck = False
        self.arrived = asyncio.Event()
        self.follower = Follower()

    def send_now(self, text: str) -> bool:
        if self.stuck:  # a client that stopped reading: frames queue
            return False
        self.sent.append(self.follower.follow(json.loads(text)))
        self.arrived.set()
        return True

    async def send(self, text: str) -> None:
        if self.stuck:  # a client that stopped reading
            await asyncio.Event().wait()
        self.sent.append(self.follower.follow(json.loads(text)))
        self.arrived.set()

    async def close(self, code: int) -> None:
        self.closed_with = code


class Tab:
    """A connection fed frame by frame."""

    def __init__(self, server: Server) -> None:
        self.transport = FakeTransport()
        self.conn = server.connect(self.transport)
        self._ids = itertools.count(1)
        self.player: dict[str, JSON] = {}

    async def request(self, type: str, **fields: JSON) -> dict[str, JSON]:
        rid = next(self._ids)
        await self.conn.receive(json.dumps({"type": type, "id": rid, **fields}))
        return await self.wait(lambda m: m.get("id") == rid)

    async def ok(self, type: str, **fields: JSON) -> dict[str, JSON]:
        reply = await self.request(type, **fields)
        assert reply["type"] != "error", reply
        return reply

    async def wait(
        self, predicate: Callable[[dict[str, JSON]], bool], timeout: float = 5
    ) -> dict[str, JSON]:
        async def scan() -> dict[str, JSON]:
            while True:
                for message in self.transport.sent:
                    if predicate(message):
                        return message
                self.transport.arrived.clear()
                await self.transport.arrived.wait()

        return await asyncio.wait_for(scan(), timeout)

    def events(self) -> list[dict[str, JSON]]:
        return [m for m in self.transport.sent if m["type"] == "event"]


@pytest.fixture
async def make_server(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """Servers on one data folder; all are stopped afterwards."""
    servers: list[Server] = []

    async def make(store: Store | None = None, **config: JSON) -> Server:
        settings = {
            "db_url": sqlite_url(tmp_path),
            "bot_delay": 0.0,
            "bot_workers": 0,
            "games": {"relay": RelayGame()},
            **config,
        }
        server = Server(ServerConfig(**settings), store=store)
        await server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        await server.stop()


@pytest.fixture
async def server(make_server: Callable[..., Any]) -> Server:
    return await make_server()


async def _tabs(server: Server, count: int) -> list[Tab]:
    tabs = []
    for i in range(count):
        tab = Tab(server)
        tab.player = (await tab.ok("hello", name=f"p{i}"))["player"]
        tabs.append(tab)
    return tabs


async def _relay(server: Server, tabs: list[Tab], **settings: JSON) -> str:
    options = settings.pop("options", {})
    created = await tabs[0].ok(
        "table.create", game="relay", options={"players": len(tabs), **options}, **settings
    )
    table = created["table"]
    for tab in tabs[1:]:
        await tab.ok("table.join", table=table)
    for tab in tabs:
        await tab.ok("table.open", table=table)
    await tabs[0].ok("table.start", table=table)
    return table


async def test_a_rule_clock_makes_the_table_move(server: Server) -> None:
    tabs = await _tabs(server, 3)
    table = await _relay(server, tabs, options={"vote_seconds": 0.3})
    said = await tabs[0].ok("move", table=table, move={"type": "say", "word": "ringo"})
    event = tabs[1].events()[-1]
    assert event["n"] == said["n"] == 1 and event["clock"] is not None
    await tabs[1].ok("move", table=table, move={"type": "vote", "ok": True})
    second = tabs[0].events()[-1]
    assert second["clock"] == event["clock"]  # one vote does not restart the clock
    timed = await tabs[0].wait(lambda m: m.get("type") == "event" and m["n"] == 3)
    assert timed["seat"] is None and timed["events"] == [{"type": "voted", "seat": None}]
    assert timed["clock"] is None and timed["to_act"] == [1]
    bundle = await server.store.load_table(table)
    assert [m.actor for m in bundle.moves] == ["player", "player", "clock"]


async def test_a_single_process_builds_no_publication(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside a cluster nobody hears what a table publishes: nothing is built for it."""
    from bodoge.server.replication import publishing
    from bodoge.server.replication.messages import Published
    from bodoge.server.runtime.reach import LocalReach

    assert isinstance(server.tables.reach, LocalReach)
    built: Counter[str] = Counter()
    facts, publish = publishing.facts_of, publishing.TablePublisher._publish

    def counted_facts(table: LiveTable, seq: int) -> dict[str, JSON]:
        built["facts"] += 1
        return facts(table, seq)

    def counted_publish(
        publisher: publishing.TablePublisher, table: LiveTable, body: Published
    ) -> None:
        built[body.KIND] += 1
        publish(publisher, table, body)

    monkeypatch.setattr(publishing, "facts_of", counted_facts)
    monkeypatch.setattr(publishing.TablePublisher, "_publish", counted_publish)
    tabs = await _tabs(server, 3)
    # Seats change, the game starts, a clock runs (timers change without a move), moves, chat.
    table = await _relay(server, tabs, options={"vote_seconds": 30})
    await tabs[0].ok("move", table=table, move={"type": "say", "word": "ringo"})
    for tab in tabs[1:]:
        await tab.ok("move", table=table, move={"type": "vote", "ok": True})
    await tabs[2].ok("chat", table=table, text="hi")
    await tabs[2].ok("table.close", table=table)
    assert len(tabs[0].events()) == 3
    assert built == {}


async def test_a_late_turn_is_played_by_the_timeout_bot(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings_module, "MIN_TURN_SECONDS", 1)
    tabs = await _tabs(server, 2)
    table = await _relay(server, tabs, settings={"turn_seconds": 1, "timeout_bot": "plain"})
    snapshot = await tabs[0].ok("table.open", table=table)
    assert snapshot["deadlines"][0] is not None and snapshot["deadlines"][1] is None
    late = await tabs[0].wait(lambda m: m.get("type") == "event", timeout=5)
    # played as a stand-in (``Game.stand_in``): relay's says whose seat it stood in for
    assert late["seat"] == 0 and late["events"] == [{"type": "said", "seat": 0, "word": "for0"}]
    bundle = await server.store.load_table(table)
    assert bundle.moves[0].actor == "timeout"
    assert bundle.seats[0].kind == "human"  # the seat is still the player's
    assert late["deadlines"][1] is not None  # and seat 1's turn to vote began
    # Every seat is told the stand-in played it: live, in a snapshot, in a catch-up.
    other = await tabs[1].wait(lambda m: m.get("type") == "event", timeout=5)
    assert late["timed_out"] is True and other["timed_out"] is True
    assert (await tabs[1].ok("table.open", table=table))["timed_out"] == [1]
    await tabs[1].ok("move", table=table, move={"type": "vote", "ok": True})
    caught = await tabs[0].request("table.open", table=table, since=0)
    frames = [m for m in tabs[0].transport.sent if m.get("type") == "event"]
    assert caught["type"] == "ack" and frames[-2]["n"] == 1 and frames[-2]["timed_out"] is True
    assert frames[-1]["n"] == 2 and "timed_out" not in frames[-1]  # a person's move: no mark


async def test_a_move_in_time_cancels_the_timeout(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings_module, "MIN_TURN_SECONDS", 1)
    tabs = await _tabs(server, 2)
    table = await _relay(server, tabs, settings={"turn_seconds": 1, "timeout_bot": "plain"})
    await tabs[0].ok("move", table=table, move={"type": "say", "word": "mine"})
    await tabs[1].ok("move", table=table, move={"type": "vote", "ok": False})
    await asyncio.sleep(0.5)
    bundle = await server.store.load_table(table)
    assert [m.actor for m in bundle.moves] == ["player", "player"]


async def test_a_client_that_stops_reading_is_dropped(make_server: Callable[..., Any]) -> None:
    server = await make_server(limits=Limits(outbox=8))
    fast, slow = await _tabs(server, 2)
    table = await _relay(server, [fast, slow])
    slow.transport.stuck = True
    for i in range(12):
        await fast.ok("chat", table=table, text=f"line {i}")
    await asyncio.sleep(0)
    assert slow.transport.closed_with == 4009
    assert slow.conn.closing
    # The table and the other player are unaffected.
    said = await fast.ok("move", table=table, move={"type": "say", "word": "still here"})
    assert said["n"] == 1


class FlakyStore(SqlStore):
    """Refuses the next ``fail`` moves (by ``actor``, if set), as a full disk would."""

    fail = 0
    actor: str | None = None

    async def append_move(self, table_id: str, move: Any, *args: Any, **kwargs: Any) -> None:
        if self.fail and self.actor in (None, move.actor):
            self.fail -= 1
            raise OSError("disk full")
        await super().append_move(table_id, move, *args, **kwargs)


async def test_a_move_the_store_refuses_changes_nothing(
    make_server: Callable[..., Any], tmp_path: Path
) -> None:
    store = FlakyStore(sqlite_url(tmp_path / "flaky"))
    await store.start()  # the server closes it when it stops
    server = await make_server(store=store)
    tabs = await _tabs(server, 2)
    table = await _relay(server, tabs)
    store.fail = 1
    reply = await tabs[0].request("move", table=table, move={"type": "say", "word": "x"})
    assert reply["code"] == "store_unavailable"  # an I/O error of the store's: try again later
    snapshot = await tabs[0].ok("table.open", table=table)
    assert snapshot["n"] == 0 and snapshot["view"]["words"] == []
    assert tabs[1].events() == []
    again = await tabs[0].ok("move", table=table, move={"type": "say", "word": "y"})
    assert again["n"] == 1


async def test_a_bot_move_the_store_refuses_is_tried_again(
    make_server: Callable[..., Any], tmp_path: Path
) -> None:
    store = FlakyStore(sqlite_url(tmp_path / "flaky"))
    await store.start()
    server = await make_server(store=store)
    (tab,) = await _tabs(server, 1)
    bots = [{"seat": 1, "level": "plain"}]
    created = await tab.ok("table.create", game="relay", options={"players": 2}, bots=bots)
    table = created["table"]
    await tab.ok("table.open", table=table)
    await tab.ok("table.start", table=table)
    store.fail, store.actor = 1, "bot"
    await tab.ok("move", table=table, move={"type": "say", "word": "hi"})
    vote = await tab.wait(lambda m: m.get("type") == "event" and m["n"] == 2, timeout=5)
    assert vote["seat"] == 1 and store.fail == 0


async def test_a_finished_table_leaves_memory_and_comes_back(
    make_server: Callable[..., Any],
) -> None:
    server = await make_server(idle_seconds=0.1)
    tabs = await _tabs(server, 2)
    table = await _relay(server, tabs, options={"rounds": 1})
    await tabs[0].ok("move", table=table, move={"type": "say", "word": "end"})
    await tabs[1].ok("move", table=table, move={"type": "vote", "ok": True})
    assert tabs[0].events()[-1]["result"] is not None
    for tab in tabs:
        await tab.ok("table.close", table=table)
    await asyncio.sleep(0.4)
    assert table not in server.tables.live
    again = await tabs[1].ok("table.open", table=table)
    assert again["n"] == 2 and again["result"]["reason"] == "rounds_played"
    assert again["view"]["secret"] == "secret-1"
    await tabs[1].ok("table.close", table=table)
    # Loaded without anyone opening it (the history endpoint does that): it leaves too.
    await asyncio.sleep(0.4)
    assert table not in server.tables.live
    assert (await server.tables.get(table)).status == "finished"
    await asyncio.sleep(0.4)
    assert table not in server.tables.live


async def test_a_table_nobody_watches_keeps_no_seat_views_and_patches_on_after(
    server: Server,
) -> None:
    # A finished table stays in memory for idle_seconds after its last watcher: the views
    # it patched its seats' frames from were held that long too (8 KiB or so a table).
    tabs = await _tabs(server, 2)
    table = await _relay(server, tabs, options={"rounds": 2})
    await tabs[0].ok("move", table=table, move={"type": "say", "word": "one"})
    live = server.tables.live[table]
    assert live._seen, "a watched table patches from its seats' last views"
    for tab in tabs:
        await tab.ok("table.close", table=table)
    assert not live._seen and not live._told
    for tab in tabs:
        await tab.ok("table.open", table=table)
    await tabs[1].ok("move", table=table, move={"type": "vote", "ok": True})
    await tabs[1].ok("move", table=table, move={"type": "say", "word": "two"})
    for seat, tab in enumerate(tabs):
        followed = tab.events()[-1]
        assert followed["n"] == 3
        snapshot = await tab.ok("table.open", table=table)
        assert followed["view"] == snapshot["view"], f"seat {seat}'s patches went astray"


async def test_a_running_table_nobody_watches_leaves_memory_and_comes_back(
    make_server: Callable[..., Any],
) -> None:
    server = await make_server(unwatched_seconds=0.3)
    tabs = await _tabs(server, 2)
    watcher = Tab(server)
    await watcher.ok("hello", name="lobby")
    await watcher.ok("lobby.subscribe")
    table = await _relay(server, tabs)
    await tabs[0].ok("move", table=table, move={"type": "say", "word": "hi"})
    before = await tabs[1].ok("table.open", table=table)
    await asyncio.sleep(0.5)
    assert table in server.tables.live  # watched
    for tab in tabs:
        await tab.ok("table.close", table=table)
    await asyncio.sleep(0.6)
    assert table not in server.tables.live
    await watcher.wait(lambda m: gone(m, table))
    # Opening it brings it back from its history, exactly as it was, and play goes on.
    again = await tabs[1].ok("table.open", table=table)
    for key in ("n", "view", "to_act", "may_act", "deadlines", "clock", "result"):
        assert again[key] == before[key], key
    await watcher.wait(lambda m: shown(m, table) is not None)
    await tabs[1].ok("move", table=table, move={"type": "vote", "ok": True})


async def test_a_running_table_with_a_timer_or_a_bot_stays(make_server: Callable[..., Any]) -> None:
    server = await make_server(unwatched_seconds=0.2)
    tabs = await _tabs(server, 2)
    table = await _relay(server, tabs, settings={"turn_seconds": 60, "timeout_bot": "plain"})
    for tab in tabs:
        await tab.ok("table.close", table=table)
    await asyncio.sleep(0.5)
    assert table in server.tables.live  # its turn limit must fire even with nobody there


async def test_a_waiting_table_whose_players_are_gone_leaves_the_lobby(
    make_server: Callable[..., Any],
) -> None:
    server = await make_server(waiting_seconds=0.3)
    host, watcher = await _tabs(server, 2)
    await watcher.ok("lobby.subscribe")
    table = (await host.ok("table.create", game="relay", options={"players": 3}))["table"]
    await host.ok("table.open", table=table)
    await watcher.ok("table.open", table=table)  # a spectator does not keep it
    await asyncio.sleep(0.5)
    assert table in server.tables.live  # its host is here
    await host.conn.gone()
    await watcher.wait(lambda m: gone(m, table), timeout=3)
    await watcher.wait(lambda m: m == {"type": "table.removed", "table": table})
    assert await server.store.load_table(table) is None
    assert (await watcher.request("table.open", table=table))["code"] == "unknown_table"


async def test_a_game_nobody_watches_ends_as_abandoned(make_server: Callable[..., Any]) -> None:
    server = await make_server(abandon_seconds=0.4, sweep_seconds=0.1)
    tabs = await _tabs(server, 2)
    table = await _relay(server, tabs)
    await tabs[0].ok("move", table=table, move={"type": "say", "word": "hi"})
    watched = await _relay(server, await _tabs(server, 2))
    for tab in tabs:
        await tab.ok("table.close", table=table)
    await asyncio.sleep(1.0)
    bundle = await server.store.load_table(table)
    assert bundle is not None and bundle.table.status == "finished"
    ended = {"places": [None, None], "reason": "abandoned", "winners": []}
    assert bundle.table.result == ended
    # Its statistics are stored with it (the relay counts nothing): nothing to replay later.
    assert bundle.table.statistics == [{}, {}]
    again = await tabs[0].ok("table.open", table=table)
    assert again["table"]["status"] == "finished" and again["result"] == ended
    assert again["n"] == 1 and again["view"]["words"] == ["hi"]  # stopped where it was
    assert again["to_act"] == [] and not again["may_act"]
    assert (await tabs[0].request("move", table=table, move={"type": "vote", "ok": True}))[
        "code"
    ] == "game_finished"
    # A game someone watches goes on.
    assert (await server.tables.get(watched)).status == "playing"


async def test_a_table_that_leaves_memory_leaves_no_garbage_in_cycles(
    make_server: Callable[..., Any],
) -> None:
    """Freed as soon as it leaves: nothing it held points back at it (the collector is off)."""
    server = await make_server(idle_seconds=0.1)
    tabs = await _tabs(server, 2)
    table_id = await _relay(server, tabs, options={"rounds": 1})
    await tabs[0].ok("move", table=table_id, move={"type": "say", "word": "end"})
    await tabs[1].ok("move", table=table_id, move={"type": "vote", "ok": True})
    gone = weakref.ref(server.tables.live[table_id])
    gc.collect()
    gc.disable()
    try:
        for tab in tabs:
            await tab.ok("table.close", table=table_id)
        for _ in range(20):
            await asyncio.sleep(0.1)
            if gone() is None:
                break
        assert gone() is None, "the table is kept alive by a cycle"
    finally:
        gc.enable()


async def test_visitors_who_left_are_not_kept_in_memory(server: Server) -> None:
    """The player cache holds who is connected or seated at a live table, not every visitor."""
    host, guest = await _tabs(server, 2)
    table = (await host.ok("table.create", game="relay", options={"players": 3}))["table"]
    await guest.ok("table.join", table=table)
    visitors = await _tabs(server, 300)
    assert len(server.players) >= 302
    for tab in [guest, *visitors]:
        await tab.conn.gone()
    del visitors, tab
    await asyncio.sleep(0.1)  # the cancelled writers finish
    gc.collect()
    # The host is connected; the guest has left but is seated at a live table.
    assert len(server.players) == 2
    seats = (await host.ok("table.open", table=table))["table"]["seats"]
    assert seats[1]["player"] == guest.player
    # A visitor coming back with a token is found again in the store.
    again = Tab(server)
    assert (await again.ok("hello", name="p1"))["player"]["name"] == "p1"


async def test_tables_come_back_after_a_restart_with_their_clock(
    make_server: Callable[..., Any],
) -> None:
    server = await make_server()
    tabs = await _tabs(server, 3)
    table = await _relay(server, tabs, options={"vote_seconds": 30})
    await tabs[0].ok("move", table=table, move={"type": "say", "word": "a"})
    before = await tabs[1].ok("table.open", table=table)
    await server.stop()
    again = await make_server()
    tab = Tab(again)
    await tab.ok("hello", token=None, name="new")
    after = await tab.ok("table.open", table=table)
    assert after["clock"] == before["clock"] and after["n"] == 1
    assert after["view"] == {**before["view"], "secret": None, "you": None}


async def test_bots_fill_seats_and_answer_assist(server: Server) -> None:
    (tab,) = await _tabs(server, 1)
    created = await tab.ok(
        "table.create",
        game="relay",
        options={"players": 3, "rounds": 3},
        bots=[{"seat": 1, "level": "plain"}, {"seat": 2, "level": "plain"}],
    )
    table = created["table"]
    await tab.ok("table.open", table=table)
    await tab.ok("table.start", table=table)
    latest = await tab.ok("table.open", table=table)
    while latest["result"] is None:
        if latest["may_act"]:
            voting = latest["view"]["voting"]
            move = {"type": "vote", "ok": True} if voting else {"type": "say", "word": "go"}
            await tab.ok("move", table=table, move=move)
        n = latest["n"]
        latest = await tab.wait(lambda m, n=n: m.get("type") == "event" and m["n"] > n)
    assert latest["n"] == 9  # three rounds of a word and two votes
    bundle = await server.store.load_table(table)
    assert {m.actor for m in bundle.moves if m.seat != 0} == {"bot"}
    assist = await tab.ok("assist", table=table)
    assert assist["analysis"] == {"words_so_far": 3, "seat": 0}


async def test_the_assistant_can_be_turned_off(server: Server) -> None:
    tabs = await _tabs(server, 2)
    table = await _relay(server, tabs, settings={"assistant": False})
    assert (await tabs[0].request("assist", table=table))["code"] == "no_assistant"


async def test_every_client_message_has_a_handler(server: Server) -> None:
    from bodoge.server.edge.connection import HANDLERS, Connection
    from bodoge.server.runtime.protocol import CLIENT_MESSAGES

    handlers = {command.TYPE: handler for command, handler in HANDLERS.items()}
    for kind in CLIENT_MESSAGES:
        if kind not in ("hello", "ping"):
            assert callable(handlers[kind])
            assert handlers[kind].__qualname__.startswith("Connection._")
    assert set(handlers) == set(CLIENT_MESSAGES) - {"hello", "ping"}
    assert Connection._table_command in HANDLERS.values()


async def test_the_store_url_may_be_any_sqlalchemy_async_url(tmp_path: Path) -> None:
    store = await open_store(f"sqlite+aiosqlite:///{tmp_path / 'elsewhere.db'}")
    assert store.is_sqlite
    await store.close()
    assert (tmp_path / "elsewhere.db").exists()


async def test_every_registered_game_can_be_set_up_and_watched(
    make_server: Callable[..., Any],
) -> None:
    """The server needs nothing game-specific: each game starts, and each seat gets its view."""
    from bodoge.games import registry

    server = await make_server(games=registry())
    for game in registry().values():
        count = game.seats(game.options({}))  # the game's default options
        tabs = await _tabs(server, count)
        table = (await tabs[0].ok("table.create", game=game.id))["table"]
        for tab in tabs[1:]:
            await tab.ok("table.join", table=table)
        await tabs[0].ok("table.start", table=table)
        views = [(await tab.ok("table.open", table=table))["view"] for tab in tabs]
        assert all(isinstance(v, dict) for v in views)
        (spectator,) = await _tabs(server, 1)
        watched = await spectator.ok("table.open", table=table)
        assert watched["you"] is None and isinstance(watched["view"], dict)
        assert watched["to_act"] and all(0 <= s < count for s in watched["to_act"])


async def test_the_bot_in_a_leavers_seat_is_a_stand_in_and_a_bot_seat_is_not(
    server: Server,
) -> None:
    """``Game.stand_in`` shapes what the bot plays for a person who left (relay's says
    ``for<seat>``), and leaves a bot seat's own moves alone (``bot<seat>``)."""
    ann, bob = await _tabs(server, 2)
    created = await ann.ok(
        "table.create",
        game="relay",
        options={"players": 3, "rounds": 3},
        settings={"timeout_bot": "plain"},
        bots=[{"seat": 2, "level": "plain"}],
    )
    table = created["table"]
    await bob.ok("table.join", table=table)
    for tab in (ann, bob):
        await tab.ok("table.open", table=table)
    await ann.ok("table.start", table=table)
    await bob.ok("table.leave", table=table)  # a bot plays on in bob's seat
    latest = await ann.ok("table.open", table=table)
    while latest["result"] is None:
        if latest["may_act"]:
            voting = latest["view"]["voting"]
            move = {"type": "vote", "ok": True} if voting else {"type": "say", "word": "go"}
            await ann.ok("move", table=table, move=move)
        n = latest["n"]
        latest = await ann.wait(lambda m, n=n: m.get("type") == "event" and m["n"] > n)
    said = {e["seat"]: e["word"] for m in ann.events() for e in m["events"] if e["type"] == "said"}
    assert said == {0: "go", 1: "for1", 2: "bot2"}

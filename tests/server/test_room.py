"""Around a game: the options a table shows, the assistant's fair default, the rematch,
"My games" and which tables the lobby lists (issue 14, points 6-8)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

import httpx
from starlette.applications import Starlette

from bodoge.core.values import JSON
from bodoge.games import registry
from bodoge.server.edge.api import api_routes
from bodoge.server.wiring import Server
from tests.server.tagiron_play import play_seat
from tests.server.test_tables import Tab, _relay, _tabs, make_server, server
from tests.support.client import Client
from tests.support.live_server import LiveServer
from tests.support.lobby import gone, listing, shown

__all__ = ["make_server", "server"]  # fixtures


async def _play_relay_out(tabs: list[Tab], table: str) -> dict[str, JSON]:
    """Play a 1-round relay to its end: every seat says or votes yes when awaited."""
    latest = await tabs[0].ok("table.open", table=table)
    while latest["result"] is None:
        for tab in tabs:
            snap = await tab.ok("table.open", table=table)
            if snap["may_act"] and snap["result"] is None:
                move = (
                    {"type": "vote", "ok": True}
                    if snap["view"]["voting"]
                    else {"type": "say", "word": "go"}
                )
                await tab.ok("move", table=table, move=move)
        latest = await tabs[0].ok("table.open", table=table)
    return latest


# --- point 6: what a table shows of its options ---------------------------------------


async def test_every_game_declares_the_options_and_settings_a_table_shows(
    live_server: LiveServer,
) -> None:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=20) as http:
        games = {g["id"]: g for g in (await http.get("/api/games")).json()}
    for game in registry().values():
        fields = games[game.id]["fields"]
        keys = [f["key"] for f in fields["options"]]
        # Every declared option is one the game stores, with a label to show.
        assert set(keys) <= set(games[game.id]["defaults"]), game.id
        assert all(
            f["label"] and f["kind"] in ("players", "flag", "choice") for f in fields["options"]
        )
    illustori = games["illustori"]["fields"]
    assert [f["key"] for f in illustori["options"]] == [
        "players",
        "language",
        "ban_same_ends",
        "ban_used_joints",
        "vote_limit",
        "secret_votes",
        "show_rules",
    ]
    # Illustori has no assistant: its tables never show one.
    assert [f["key"] for f in illustori["settings"]] == [
        "turn_based",
        "turn_seconds",
        "timeout_bot",
        "bot_pace",
        "rated",
    ]
    tagiron = games["tagiron"]["fields"]
    assert [f["key"] for f in tagiron["options"]] == ["players"]
    assert [f["key"] for f in tagiron["settings"]] == [
        "turn_based",
        "turn_seconds",
        "timeout_bot",
        "assistant",
        "bot_pace",
        "rated",
    ]


# --- point 8: the assistant's default follows the seats --------------------------------


async def test_the_assistant_is_off_by_default_between_people(server: Server) -> None:
    tabs = await _tabs(server, 2)
    table = await _relay(server, tabs)
    snap = await tabs[0].ok("table.open", table=table)
    assert snap["table"]["settings"]["assistant"] is None and snap["table"]["assistant"] is False
    for tab in tabs:  # nobody gets an analysis: the server computes and sends none
        reply = await tab.request("assist", table=table)
        assert reply["code"] == "no_assistant"
    assert not [m for tab in tabs for m in tab.transport.sent if m["type"] == "assist"]


async def test_the_assistant_is_on_by_default_for_one_person_against_bots(server: Server) -> None:
    (tab,) = await _tabs(server, 1)
    bots = [{"seat": 1, "level": "plain"}, {"seat": 2, "level": "plain"}]
    table = (await tab.ok("table.create", game="relay", options={"players": 3}, bots=bots))["table"]
    waiting = await tab.ok("table.open", table=table)
    assert waiting["table"]["assistant"] is True
    # Seats change the default while the table waits: a second person turns it off.
    await tab.ok("table.remove_bot", table=table, seat=2)
    (other,) = await _tabs(server, 1)
    await other.ok("table.join", table=table)
    seats = await tab.wait(
        lambda m: m["type"] == "table.seats" and m["seats"][2]["kind"] == "human"
    )
    assert seats["assistant"] is False
    await other.ok("table.leave", table=table)
    seats = await tab.wait(
        lambda m: m["type"] == "table.seats" and m["seats"][2]["kind"] == "empty"
    )
    assert seats["assistant"] is True
    await tab.ok("table.add_bot", table=table, seat=2, level="plain")
    await tab.ok("table.start", table=table)
    assert (await tab.ok("assist", table=table))["type"] == "assist"


async def test_the_host_may_set_the_assistant_either_way(server: Server) -> None:
    tabs = await _tabs(server, 2)
    table = await _relay(server, tabs, settings={"assistant": True})
    assert (await tabs[1].ok("assist", table=table))["type"] == "assist"
    (alone,) = await _tabs(server, 1)
    created = await alone.ok(
        "table.create",
        game="relay",
        options={"players": 2},
        settings={"assistant": False},
        bots=[{"seat": 1, "level": "plain"}],
    )
    await alone.ok("table.open", table=created["table"])
    await alone.ok("table.start", table=created["table"])
    assert (await alone.request("assist", table=created["table"]))["code"] == "no_assistant"
    bad = await alone.request("table.create", game="relay", settings={"assistant": "auto"})
    assert bad["code"] == "bad_options"


async def test_the_host_changes_the_assistant_in_the_waiting_room(server: Server) -> None:
    host, guest = await _tabs(server, 2)
    table = (await host.ok("table.create", game="relay", options={"players": 2}))["table"]
    await guest.ok("table.join", table=table)
    for tab in (host, guest):
        await tab.ok("table.open", table=table)
    # Only the host, only while waiting, only valid settings; nothing changes otherwise.
    assert (await guest.request("table.settings", table=table, settings={"assistant": True}))[
        "code"
    ] == "not_host"
    bad = await host.request("table.settings", table=table, settings={"assistant": "yes"})
    assert bad["code"] == "bad_options"
    assert (await host.request("table.settings", table=table))["code"] == "bad_message"
    assert (await server.tables.get(table)).settings.assistant is None
    await host.ok("table.settings", table=table, settings={"assistant": True})
    told = await guest.wait(lambda m: m["type"] == "table" and m["table"]["assistant"] is True)
    assert told["table"]["settings"]["assistant"] is True
    assert told["table"]["settings"]["timeout_bot"] == "plain"  # the others kept
    bundle = await server.store.load_table(table)
    assert bundle is not None and bundle.table.settings["assistant"] is True
    await host.ok("table.start", table=table)
    assert (await guest.ok("assist", table=table))["type"] == "assist"
    late = await host.request("table.settings", table=table, settings={"assistant": False})
    assert late["code"] == "not_waiting"


async def test_the_host_sets_the_table_in_the_waiting_room(
    make_server: Callable[..., Any],
) -> None:
    """Every setting and every option the game shows, not the player count; live for all."""
    server = await make_server(games=None)  # the real games: Illustori's options
    host, guest = await _tabs(server, 2)
    created = await host.ok(
        "table.create",
        game="illustori",
        options={"players": 3, "deck_seed": 7},
        bots=[{"seat": 2, "level": "easy"}],
    )
    table = created["table"]
    await guest.ok("table.join", table=table)
    for tab in (host, guest):
        await tab.ok("table.open", table=table)
    change = {
        "settings": {"turn_seconds": 90, "bot_pace": "slow", "rated": True},
        "options": {
            "language": "en",
            "ban_same_ends": True,
            "ban_used_joints": True,
            "vote_limit": True,
            "secret_votes": True,
            "players": 3,  # unchanged: fine
        },
    }
    # Not the guest; nothing changes.
    refused = await guest.request("table.settings", table=table, **change)
    assert refused["code"] == "not_host"
    # Refused as a whole: a bad value, another player count, an option the table hides.
    for bad in (
        {"options": {"language": "fr", "secret_votes": True}},
        {"options": {"players": 4}},
        {"options": {"deck_seed": 8}},
        {"options": {"colour": "red"}},
        {"settings": {"bot_pace": "brisk"}, "options": {"secret_votes": True}},
        {"settings": {"turn_seconds": 2}},
    ):
        reply = await host.request("table.settings", table=table, **bad)
        assert reply["code"] == "bad_options", bad
    too_many = await host.request("table.settings", table=table, options={"players": 4})
    assert "player count" in too_many["message"]
    live = await server.tables.get(table)
    assert live.options_json["secret_votes"] is False and live.settings.bot_pace == "normal"
    assert (await host.request("table.settings", table=table))["code"] == "bad_message"

    await host.ok("table.settings", table=table, **change)
    told = await guest.wait(lambda m: m["type"] == "table" and m["table"]["settings"]["rated"])
    shown = told["table"]
    assert shown["settings"]["turn_seconds"] == 90 and shown["settings"]["bot_pace"] == "slow"
    assert shown["settings"]["timeout_bot"] == "normal"  # not given: kept
    assert shown["options"]["language"] == "en" and shown["options"]["secret_votes"] is True
    assert shown["options"]["deck_seed"] == 7 and shown["options"]["show_rules"] is True
    assert [s["kind"] for s in shown["seats"]] == ["human", "human", "bot"]  # seats kept
    bundle = await server.store.load_table(table)
    assert bundle is not None
    assert bundle.table.options == shown["options"] and bundle.table.settings == shown["settings"]
    # The game is played with them.
    await host.ok("table.start", table=table)
    snap = await guest.wait(lambda m: m["type"] == "table" and m["view"] is not None)
    assert snap["view"]["options"]["secret_votes"] is True
    assert snap["view"]["options"]["language"] == "en"
    late = await host.request("table.settings", table=table, options={"secret_votes": False})
    assert late["code"] == "not_waiting"


async def test_a_person_leaving_mid_game_does_not_turn_the_assistant_on(server: Server) -> None:
    tabs = await _tabs(server, 2)
    table = await _relay(server, tabs, settings={"timeout_bot": "plain"})
    await tabs[1].ok("table.leave", table=table)  # a bot takes the seat
    assert (await tabs[0].request("assist", table=table))["code"] == "no_assistant"


# --- point 7: the rematch ----------------------------------------------------------------


async def test_a_rematch_keeps_seats_options_and_bots_and_the_others_confirm(
    server: Server,
) -> None:
    tabs = await _tabs(server, 3)
    created = await tabs[0].ok(
        "table.create",
        game="relay",
        options={"players": 4, "rounds": 1},
        settings={"turn_seconds": 60, "timeout_bot": "plain"},
        bots=[{"seat": 3, "level": "plain"}],
    )
    old = created["table"]
    await tabs[1].ok("table.join", table=old, seat=2)
    await tabs[2].ok("table.join", table=old, seat=1)
    for tab in tabs:
        await tab.ok("table.open", table=old)
    early = await tabs[0].request("table.rematch", table=old)
    assert early["code"] == "not_finished"
    await tabs[0].ok("table.start", table=old)
    await _play_relay_out(tabs, old)
    before = await server.tables.get(old)

    # Bob (seat 2) proposes: a new table, Bob in seat 2, the bot in seat 3, a new seed.
    proposed = await tabs[1].ok("table.rematch", table=old)
    new = proposed["table"]
    assert new != old and proposed["seat"] == 2
    told = await tabs[0].wait(lambda m: m["type"] == "table.seats" and m.get("rematch") == new)
    assert told["table"] == old
    rematch = await server.tables.get(new)
    assert rematch.status == "waiting" and rematch.seating.host == tabs[1].player["id"]
    assert rematch.options_json == before.options_json and rematch.settings == before.settings
    assert rematch.seed != before.seed
    assert [s.kind for s in rematch.seats] == ["empty", "empty", "human", "bot"]
    # The others confirm and get their own seats back; nobody else had a say.
    confirmed = await tabs[0].ok("table.rematch", table=old)
    assert confirmed["table"] == new and confirmed["seat"] == 0
    assert (await tabs[2].ok("table.rematch", table=old))["seat"] == 1
    again = await tabs[0].ok("table.rematch", table=old)  # asking twice changes nothing
    assert again["table"] == new and again["seat"] == 0
    assert [s.kind for s in rematch.seats] == ["human", "human", "human", "bot"]
    snap = await tabs[0].ok("table.open", table=old)
    assert snap["table"]["rematch"] == new
    # Only its players propose one.
    (stranger,) = await _tabs(server, 1)
    assert (await stranger.request("table.rematch", table=old))["code"] == "not_seated"


async def test_a_seat_nobody_confirms_stays_free_and_the_table_waits(server: Server) -> None:
    tabs = await _tabs(server, 2)
    old = await _relay(server, tabs, options={"rounds": 1})
    await _play_relay_out(tabs, old)
    new = (await tabs[0].ok("table.rematch", table=old))["table"]
    await tabs[0].ok("table.open", table=new)
    refused = await tabs[0].request("table.start", table=new)
    assert refused["code"] == "not_full"  # Bob did not confirm: the table waits
    (cat,) = await _tabs(server, 1)
    assert (await cat.ok("table.join", table=new))["seat"] == 1  # the seat was freed
    # Bob confirms too late: the rematch is full.
    assert (await tabs[1].request("table.rematch", table=old))["code"] == "table_full"


async def test_a_rematch_everyone_left_is_proposed_again(server: Server) -> None:
    tabs = await _tabs(server, 2)
    old = await _relay(server, tabs, options={"rounds": 1})
    await _play_relay_out(tabs, old)
    first = (await tabs[0].ok("table.rematch", table=old))["table"]
    await tabs[0].ok("table.leave", table=first)  # the only person there: it is deleted
    second = await tabs[1].ok("table.rematch", table=old)
    assert second["table"] != first and second["seat"] == 1


async def test_a_rematch_outlives_a_restart(make_server: Callable[..., Any]) -> None:
    """The link is stored: after a restart the second player joins the same rematch."""
    server = await make_server()
    tabs, tokens = [], []
    for name in ("Ann", "Bob"):
        tab = Tab(server)
        welcome = await tab.ok("hello", token=None, name=name)
        tab.player = welcome["player"]
        tabs.append(tab)
        tokens.append(welcome["token"])
    old = await _relay(server, tabs, options={"rounds": 1})
    await _play_relay_out(tabs, old)
    new = (await tabs[0].ok("table.rematch", table=old))["table"]
    await server.stop()

    again = await make_server()
    bob = Tab(again)
    await bob.ok("hello", token=tokens[1], name=None)
    shown = await bob.ok("table.open", table=old)
    assert shown["table"]["rematch"] == new
    confirmed = await bob.ok("table.rematch", table=old)
    assert confirmed == {"type": "ack", "id": confirmed["id"], "table": new, "seat": 1}
    rematch = await again.tables.get(new)
    assert [s.player for s in rematch.seats] == [tabs[0].player["id"], tabs[1].player["id"]]
    bundle = await again.store.load_table(old)
    assert bundle is not None and bundle.table.rematch == new


# --- point 7: my games -------------------------------------------------------------------


async def test_my_games_lists_a_players_finished_games(live_server: LiveServer) -> None:
    ann = await Client.connect(live_server.ws_url, "Ann")
    bob = await Client.connect(live_server.ws_url, "Bob")
    bots = [{"seat": 1, "level": "easy"}]
    table = (await ann.ok("table.create", game="tagiron", bots=bots))["table"]
    await ann.ok("table.open", table=table)
    await ann.ok("table.start", table=table)
    await play_seat(ann, table, random.Random(5))
    async with httpx.AsyncClient(base_url=live_server.url, timeout=20) as http:
        for _ in range(100):
            mine = await http.get(
                "/api/players/me/games", headers={"Authorization": f"Bearer {ann.token}"}
            )
            if mine.json()["games"]:
                break
            await asyncio.sleep(0.1)
        listed = mine.json()["games"]
        assert [g["id"] for g in listed] == [table]
        game = listed[0]
        assert game["game"] == "tagiron" and game["you"] == 0
        assert game["result"]["reason"] and game["finished_at"] and game["created_at"]
        assert [s["name"] for s in game["seats"]] == ["Ann", None]
        assert [s["kind"] for s in game["seats"]] == ["human", "bot"]
        assert {s["place"] for s in game["seats"]} <= {1, 2, None}
        others = await http.get(
            "/api/players/me/games", headers={"Authorization": f"Bearer {bob.token}"}
        )
        assert others.json() == {"games": []}
        assert (await http.get("/api/players/me/games")).status_code == 401
        wrong = await http.get(
            "/api/players/me/games", headers={"Authorization": "Bearer nonsense"}
        )
        assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "bad_token"
    await ann.close()
    await bob.close()


# --- point 7: the lobby lists only tables one can join or watch --------------------------


async def test_a_full_waiting_table_whose_people_are_gone_is_not_listed(
    make_server: Callable[..., Any],
) -> None:
    server = await make_server()
    host, guest, watcher = await _tabs(server, 3)
    await watcher.ok("lobby.subscribe")
    table = (await host.ok("table.create", game="relay", options={"players": 2}))["table"]
    await watcher.wait(lambda m: shown(m, table) is not None)
    await guest.ok("table.join", table=table)  # full; its people are connected: listed
    await watcher.wait(
        lambda m: (shown(m, table) or {"seats": [{}, {}]})["seats"][1].get("kind") == "human"
    )
    await guest.conn.gone()
    await host.ok("table.open", table=table)
    await host.ok("table.close", table=table)
    assert table in [t["id"] for t in (await watcher.ok("lobby.subscribe"))["tables"]]
    await host.conn.gone()  # nobody left to start it, and no seat to take
    await watcher.wait(lambda m: gone(m, table))
    assert table not in [t["id"] for t in (await watcher.ok("lobby.subscribe"))["tables"]]
    # Someone else opening it (a spectator) does not list it: nobody there may start it.
    back = Tab(server)
    await back.ok("hello", token=None, name="passer-by")
    assert (await back.ok("table.open", table=table))["table"]["status"] == "waiting"
    assert table not in [t["id"] for t in (await watcher.ok("lobby.subscribe"))["tables"]]


async def test_players_leaving_together_are_looked_for_in_one_walk_of_the_tables(
    make_server: Callable[..., Any],
) -> None:
    """Thousands leaving at once (a proxy restarted) must not walk every table once each."""
    server = await make_server()
    tabs = await _tabs(server, 9)
    watcher, *players = tabs
    await watcher.ok("lobby.subscribe")
    full = []
    for host, guest in zip(players[::2], players[1::2], strict=True):
        table = (await host.ok("table.create", game="relay", options={"players": 2}))["table"]
        await guest.ok("table.join", table=table)
        full.append(table)

    walks = 0

    class Counted(dict[str, Any]):
        def values(self) -> Any:
            nonlocal walks
            walks += 1
            return super().values()

    server.tables.live = Counted(server.tables.live)
    await asyncio.gather(*(tab.conn.gone() for tab in players))
    for table in full:  # each full waiting table leaves the lobby: nobody left to start it
        await watcher.wait(lambda m, table=table: gone(m, table))
    # one walk per 50 ms of leavers: on a loaded machine the eight may straddle a boundary,
    # but never a walk each
    assert 1 <= walks < len(players) // 2
    listed = [t["id"] for t in (await watcher.ok("lobby.subscribe"))["tables"]]
    assert not set(full) & set(listed)


async def test_a_running_game_stays_listed_for_watchers(make_server: Callable[..., Any]) -> None:
    server = await make_server()
    host, guest, watcher = await _tabs(server, 3)
    table = await _relay(server, [host, guest])
    for tab in (host, guest):
        await tab.ok("table.close", table=table)
        await tab.conn.gone()
    listed = await watcher.ok("lobby.subscribe")
    assert table in [t["id"] for t in listed["tables"]]


async def test_online_counts_the_people_who_have_a_table_open(server: Server) -> None:
    """The summary's ``online``: each person once however many tabs, seated or watching; the
    lobby follows it as people come and go, and so do a snapshot and the HTTP API."""
    host, second_tab = Tab(server), Tab(server)
    token = (await host.ok("hello", name="host"))["token"]
    await second_tab.ok("hello", token=token)
    guest, spectator, watcher = await _tabs(server, 3)
    await watcher.ok("lobby.subscribe")
    table = (await host.ok("table.create", game="relay", options={"players": 2}))["table"]

    async def lobby_says(online: int) -> None:
        await watcher.wait(
            lambda m: listing(watcher.transport.sent).get(table, {}).get("online") == online
        )

    await lobby_says(0)
    snapshot = await host.ok("table.open", table=table)
    assert snapshot["table"]["online"] == 1  # the one opening it counts
    await lobby_says(1)
    await second_tab.ok("table.open", table=table)
    await guest.ok("table.join", table=table)
    await guest.ok("table.open", table=table)
    await spectator.ok("table.open", table=table)
    await lobby_says(3)
    http = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=Starlette(routes=api_routes(server))), base_url="http://s"
    )
    async with http:
        assert (await http.get(f"/api/tables/{table}")).json()["online"] == 3
        listed = {t["id"]: t for t in (await http.get("/api/tables")).json()["tables"]}
        assert listed[table]["online"] == 3
    assert (await watcher.ok("lobby.subscribe"))["tables"][0]["online"] == 3
    await host.ok("table.start", table=table)  # a running game is listed: watchers count
    await spectator.ok("table.close", table=table)
    await lobby_says(2)
    await host.ok("table.close", table=table)  # the host's other tab still has it open
    await guest.conn.gone()
    await lobby_says(1)
    await second_tab.ok("table.close", table=table)
    await lobby_says(0)
    assert (await watcher.ok("lobby.subscribe"))["tables"][0]["online"] == 0

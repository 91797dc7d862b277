"""Turn-based tables over simulated days (bodoge/server/runtime/turns.py).

In-process servers on a :class:`ManualClock`: a day passes in a call, so whole games run
in seconds.  The people's moves are chosen by the game's own easy bot from their seat's
view (what a person sees), and sent as a person sends them.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from bodoge.games.tagiron.moves import Ask
from bodoge.games.tagiron.stand_in import stand_in
from bodoge.server.runtime.config import Quotas
from bodoge.server.runtime.table import LiveTable
from bodoge.server.runtime.turns import DAY, HOUR
from tests.server.test_tables import Tab
from tests.support.turn_play import (
    Recorder,
    World,
    awaited_people,
    back,
    people,
    play_for,
    play_out,
    settle,
    turn_table,
    view_of,
)

# --- settings ---------------------------------------------------------------------------


async def test_a_turn_based_table_is_chosen_at_creation_and_checked(make_world: Any) -> None:
    world = await make_world()
    ann, bob = await people(world, 2)
    for bad, why in (
        ({"turn_based": 600}, "turn_based"),
        ({"turn_based": True}, "turn_based"),
        ({"turn_based": "86400"}, "turn_based"),
        ({"turn_based": 3600, "turn_seconds": 60}, "turn_seconds"),
        ({"turn_based": 3600, "timeout_bot": None}, "timeout_bot"),
    ):
        refused = await ann.request("table.create", game="tagiron", settings=bad)
        assert refused["type"] == "error" and refused["code"] == "bad_options", refused
        assert why in refused["message"]
    assert not world.s.tables.live  # nothing was made
    made = await ann.ok(
        "table.create", game="tagiron", options={"players": 3}, settings={"turn_based": 12 * HOUR}
    )
    snap = await ann.ok("table.open", table=made["table"])
    assert snap["table"]["settings"]["turn_based"] == 12 * HOUR
    assert snap["table"]["options"] == {"players": 3, "own_turn_declarations": True}
    lobby = await bob.ok("lobby.subscribe")
    listed = next(t for t in lobby["tables"] if t["id"] == made["table"])
    assert listed["settings"]["turn_based"] == 12 * HOUR
    # In the waiting room the host may switch back to real time: the game's rules follow.
    await ann.ok("table.settings", table=made["table"], settings={"turn_based": None})
    assert world.table(made["table"]).options_json == {"players": 3}
    await ann.ok("table.settings", table=made["table"], settings={"turn_based": DAY})
    assert world.table(made["table"]).options_json["own_turn_declarations"] is True
    await bob.ok("table.join", table=made["table"])
    await ann.ok("table.add_bot", table=made["table"], seat=2, level="easy")
    await ann.ok("table.start", table=made["table"])
    # Once started, the mode is fixed.
    late = await ann.request("table.settings", table=made["table"], settings={"turn_based": None})
    assert late["code"] == "not_waiting"
    assert world.table(made["table"]).settings.turn_based == DAY


async def test_a_person_sits_at_a_bounded_number_of_turn_based_tables(make_world: Any) -> None:
    world = await make_world(quotas=Quotas(turn_based_tables_per_player=2))
    ann, bob = await people(world, 2)
    settings = {"turn_based": DAY}
    first = (await ann.ok("table.create", game="tagiron", settings=settings))["table"]
    await ann.ok("table.create", game="illustori", options={"players": 3}, settings=settings)
    third = await ann.request("table.create", game="tagiron", settings=settings)
    assert third["code"] == "too_many_turn_tables"
    # Real-time tables do not count.
    await ann.ok("table.create", game="tagiron")
    # Joining counts too.
    bobs = [(await bob.ok("table.create", game="tagiron", settings=settings))["table"]]
    bobs.append((await bob.ok("table.create", game="tagiron", settings=settings))["table"])
    refused = await bob.request("table.join", table=first)
    assert refused["code"] == "too_many_turn_tables"
    assert world.table(first).seats[1].player is None
    await bob.ok("table.leave", table=bobs[0])
    await bob.ok("table.join", table=first)


# --- whole games ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
async def test_a_whole_turn_based_tagiron_game_over_days(make_world: Any, players: int) -> None:
    """People only (2), and people with a bot (3, 4): moves, a turn run out, a vacation and a
    restart in the middle; declarations only on one's own turn; Your games all along."""
    world = await make_world()
    humans = 2 if players == 2 else players - 1
    tabs = await people(world, humans)
    bots = [{"seat": s, "level": "easy"} for s in range(humans, players)]
    table = await turn_table(world, tabs, "tagiron", players, DAY, bots)
    rng = random.Random(players)
    while not awaited_people(world, table, tabs):  # a bot begins: it plays within minutes
        await settle(world, 6 * 60)
    t = world.table(table)
    began = t.steps[-1].at if t.steps else t.started_at
    (first,) = awaited_people(world, table, tabs)
    assert t.deadlines == {first: began + DAY * 1000}
    assert world.notes.of("your_turn") == [
        ("your_turn", tabs[first].player["id"], table, "tagiron", began + DAY * 1000)
    ]
    # Your games: the awaited person sees it first, with a day left; the others wait.
    mine = await world.get(tabs[first].player["token"], "/api/players/me/tables")
    assert mine["your_turn_count"] == 1
    assert mine["tables"][0]["id"] == table
    assert mine["tables"][0]["seconds_left"] == (began + DAY * 1000 - world.clock.now_ms()) // 1000
    other = (first + 1) % humans
    theirs = await world.get(tabs[other].player["token"], "/api/players/me/tables")
    assert theirs["your_turn_count"] == 0 and theirs["tables"][0]["your_turn"] is False

    if players > 2:
        # Out of turn nobody may declare: no race for whoever looks at their phone first.
        seat = other
        assert view_of(world, table, seat)["may_declare"] is False
        tiles = ["R0", "R1", "B2", "G3", "B4"][: 4 if players == 4 else 5]
        refused = await tabs[seat].request(
            "move", table=table, move={"type": "declare", "tiles": tiles}
        )
        assert refused["code"] == "not_your_turn"

    # The first person does not come back: after a day the stand-in plays for them.
    await settle(world, DAY + 60)
    t = world.table(table)
    late = [st for st in t.steps if st.seat == first]
    assert late[0].actor == "timeout" and late[0].at == began + DAY * 1000

    # The next person goes on vacation for 3 days before their turn comes round.
    while not awaited_people(world, table, tabs):
        await settle(world, 6 * 60)
    t = world.table(table)
    (nxt,) = awaited_people(world, table, tabs)
    if True:
        holiday = await world.send(
            "POST", tabs[nxt].player["token"], "/api/players/me/vacation", days=3
        )
        assert holiday.status_code == 200 and holiday.json()["days_left"] == 27
        # Their turn was running: it runs out during the vacation and is paused, not played.
        before = t.n
        await settle(world, DAY + 60)
        t = world.table(table)
        assert t.n == before, "a vacation pauses the clock"
        until = world.clock.now_ms() - (DAY + 60) * 1000 + 3 * DAY * 1000
        assert abs(t.deadlines[nxt] - (until + DAY * 1000)) < 2000
        await play_for(world, tabs[nxt], table, nxt, rng)
        ended = await world.send("DELETE", tabs[nxt].player["token"], "/api/players/me/vacation")
        assert ended.status_code == 200 and ended.json()["until"] is None
    await settle(world, 10 * 60)

    # A restart in the middle: the deadlines come back as stored.
    kept = dict(world.table(table).deadlines)
    n = world.table(table).n
    await world.restart()
    tabs = await back(world, tabs)
    assert world.table(table).n == n and world.table(table).deadlines == kept

    await play_out(world, table, tabs, rng)
    t = world.table(table)
    assert t.status == "finished" and t.game.result(t.state) is not None
    assert {c[1] for c in world.notes.of("game_ended")} == {tab.player["id"] for tab in tabs}
    done = await world.get(tabs[0].player["token"], "/api/players/me/tables")
    assert all(row["id"] != table for row in done["tables"])


@pytest.mark.parametrize("players", [3, 5])
async def test_a_whole_turn_based_illustori_game_with_votes_over_hours(
    make_world: Any, players: int
) -> None:
    world = await make_world()
    tabs = await people(world, players)
    table = await turn_table(world, tabs, "illustori", players, 12 * HOUR)
    t = world.table(table)
    assert t.options.turn_vote_seconds == 12 * HOUR
    rng = random.Random(players)
    # The first word: the giver has the whole time per move, as any turn.
    giver = next(iter(t.game.to_act(t.state)))
    assert t.deadlines[giver] - world.clock.now_ms() == 12 * HOUR * 1000
    await play_for(world, tabs[giver], table, giver, rng)
    # A play opens a vote limited to the time per move; one voter votes, the others not.
    # (Until then the people may exchange: an easy bot's choices on a random deal may
    # exchange many turns in a row.)
    for _ in range(80):
        t = world.table(table)
        if t.state.phase == "vote":
            break
        (mover,) = awaited_people(world, table, tabs)
        await play_for(world, tabs[mover], table, mover, rng)
    t = world.table(table)
    assert t.state.phase == "vote" and view_of(world, table, 0)["vote_seconds"] == 12 * HOUR
    voters = awaited_people(world, table, tabs)
    await play_for(world, tabs[voters[0]], table, voters[0], rng)
    await settle(world, 11 * HOUR)
    assert world.table(table).state.phase == "vote"  # within the limit it waits
    await settle(world, HOUR + 60)
    t = world.table(table)
    assert t.state.phase != "vote"
    assert t.steps[-1].actor == "clock"  # the vote limit, not a stand-in: missing votes OK
    assert not any(s.actor == "timeout" for s in t.steps)
    # A restart, then everyone plays to the end.
    await world.restart()
    tabs = await back(world, tabs)
    await play_out(world, table, tabs, rng)
    assert world.table(table).status == "finished"


# --- absence and abandonment ------------------------------------------------------------


async def test_a_person_whose_turns_run_out_three_times_is_absent(make_world: Any) -> None:
    world = await make_world()
    ann, bob = await people(world, 2)
    table = await turn_table(world, [ann, bob], "tagiron", 2, HOUR)
    tabs = [ann, bob]
    rng = random.Random(1)
    for _ in range(3):  # Bob never moves; Ann moves at once whenever it is her turn
        t = world.table(table)
        (seat,) = t.game.to_act(t.state)
        if seat == 0:
            await ask_for(world, ann, table, 0, rng)
        await settle(world, HOUR + 60)
    t = world.table(table)
    assert [s.actor for s in t.steps if s.seat == 1][-3:] == ["timeout"] * 3
    # Absent: his next turn is played by the stand-in at once, not after an hour.
    if 0 in t.game.to_act(t.state):
        await ask_for(world, ann, table, 0, rng)
    await settle(world, 1)
    t = world.table(table)
    assert t.game.to_act(t.state) == {0} and t.steps[-1].actor == "timeout"
    your_turns = [c for c in world.notes.of("your_turn") if c[1] == bob.player["id"]]
    n_bob_told = len(your_turns)
    # He comes back: with the table open his turn has its whole time, and his move counts.
    await bob.ok("table.open", table=table)
    await ask_for(world, ann, table, 0, rng)
    t = world.table(table)
    assert t.deadlines[1] - world.clock.now_ms() == HOUR * 1000
    assert (
        len([c for c in world.notes.of("your_turn") if c[1] == bob.player["id"]]) == n_bob_told + 1
    )
    await play_for(world, bob, table, 1, rng)
    assert world.table(table).steps[-1].actor == "player"
    del tabs


async def test_a_table_where_everyone_is_absent_ends_as_abandoned(make_world: Any) -> None:
    world = await make_world()
    ann, bob = await people(world, 2)
    table = await turn_table(world, [ann, bob], "tagiron", 2, HOUR)
    for _ in range(8):
        await settle(world, HOUR + 60)
        if world.table(table).status != "playing":
            break
    t = world.table(table)
    assert t.status == "finished" and t.ended is not None
    assert t.ended["reason"] == "abandoned" and t.ended["places"] == [None, None]
    assert [c[4] for c in world.notes.of("game_ended")] == [None, None]


async def test_a_turn_based_game_nobody_moved_at_for_two_weeks_is_abandoned(
    make_world: Any,
) -> None:
    world = await make_world()
    ann, bob = await people(world, 2)
    table = await turn_table(world, [ann, bob], "tagiron", 2, DAY)
    for tab in (ann, bob):  # both away: nothing runs out, nobody moves
        answer = await world.send("POST", tab.player["token"], "/api/players/me/vacation", days=20)
        assert answer.status_code == 200
    await settle(world, 13 * DAY)
    await world.s.tables.call(table, LiveTable.abandon)
    assert world.table(table).status == "playing"  # nobody watched for days: that is normal
    assert world.table(table).n == 0
    await settle(world, 2 * DAY)
    await world.s.tables.call(table, LiveTable.abandon)
    assert world.table(table).ended == {
        "places": [None, None],
        "reason": "abandoned",
        "winners": [],
    }


# --- the bots' pace ---------------------------------------------------------------------


async def test_bots_at_a_turn_based_table_move_within_minutes(make_world: Any) -> None:
    world = await make_world()
    (ann,) = await people(world, 1)
    bots = [{"seat": 1, "level": "easy"}, {"seat": 2, "level": "easy"}]
    table = await turn_table(world, [ann], "tagiron", 3, HOUR, bots)
    rng = random.Random(3)
    t = world.table(table)
    if 0 in t.game.to_act(t.state):
        await play_for(world, ann, table, 0, rng)
    n = world.table(table).n
    await settle(world, 50)
    await asyncio.sleep(0.2)
    assert world.table(table).n == n, "a bot thinks a minute at least"
    await settle(world, 5 * 60)
    assert world.table(table).n > n, "and at most five"
    bots_of = world.table(table).bots
    assert bots_of.window_seconds() == HOUR  # a race is held a whole time per move


async def test_vacations_are_bounded_and_bad_requests_change_nothing(make_world: Any) -> None:
    world = await make_world()
    (ann,) = await people(world, 1)
    token = ann.player["token"]
    assert await world.get(token, "/api/players/me/vacation") == {
        "until": None,
        "days_left": 30,
        "days_per_year": 30,
    }
    for body in ({"days": 0}, {"days": 31}, {"days": 2.0}, {"days": True}, {"days": "3"}):
        answer = await world.send("POST", token, "/api/players/me/vacation", **body)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_vacation"
    answer = await world.send("POST", token, "/api/players/me/vacation", weeks=1)
    assert answer.status_code == 400
    answer = await world.send("DELETE", token, "/api/players/me/vacation")
    assert answer.json()["error"]["code"] == "bad_vacation"  # none running
    assert (await world.get(token, "/api/players/me/vacation"))["days_left"] == 30
    ok = await world.send("POST", token, "/api/players/me/vacation", days=10)
    assert ok.json()["days_left"] == 20 and ok.json()["until"] is not None
    again = await world.send("POST", token, "/api/players/me/vacation", days=1)
    assert again.status_code == 400
    await settle(world, 3 * DAY + 60)
    ended = await world.send("DELETE", token, "/api/players/me/vacation")
    assert ended.json() == {"until": None, "days_left": 26, "days_per_year": 30}
    nobody = await world.send("GET", "not-a-token", "/api/players/me/tables")
    assert nobody.status_code == 401


async def test_real_time_tables_tell_the_notifier_nothing(make_world: Any) -> None:
    world = await make_world(bot_delay=0.0)
    ann, bob = await people(world, 2)
    table = (await ann.ok("table.create", game="tagiron", settings={"turn_seconds": 60}))["table"]
    await bob.ok("table.join", table=table)
    await ann.ok("table.start", table=table)
    t = world.table(table)
    assert t.deadlines and world.notes.calls == []
    assert t.options_json == {"players": 2}
    # The presence the notifier asks about.
    assert world.s.tables.watching(ann.player["id"], table) is False
    await ann.ok("table.open", table=table)
    assert world.s.tables.watching(ann.player["id"], table) is True


async def test_a_turn_based_waiting_table_waits_days_for_its_people(make_world: Any) -> None:
    """Friends join a game over days at any hour: its waiting table outlives the real-time
    waiting table's half hour (here 0.3 s) when its people are offline."""
    world = await make_world(waiting_seconds=0.3, turn_waiting_seconds=1.5)
    (ann,) = await people(world, 1)
    quick = (await ann.ok("table.create", game="tagiron"))["table"]
    slow = (await ann.ok("table.create", game="tagiron", settings={"turn_based": DAY}))["table"]
    await ann.conn.gone()
    await asyncio.sleep(0.8)
    assert await world.s.store.load_table(quick) is None
    assert (await world.s.store.load_table(slow)) is not None
    await asyncio.sleep(1.5)
    assert await world.s.store.load_table(slow) is None


class Broken(Recorder):
    async def your_turn(
        self, player_id: str, table_id: str, game: str, deadline: int, after: int | None = None
    ) -> None:
        await asyncio.sleep(0)
        raise OSError("the mail server is down")


async def test_a_failing_notifier_holds_up_no_move(make_world: Any) -> None:
    world = await make_world()
    world.notes = Broken()
    world.s.tables.notifier = world.notes
    ann, bob = await people(world, 2)
    table = await turn_table(world, [ann, bob], "tagiron", 2, HOUR)
    rng = random.Random(5)
    for _ in range(4):
        (seat,) = awaited_people(world, table, [ann, bob])
        await ask_for(world, [ann, bob][seat], table, seat, rng)
    assert world.table(table).n == 4


# --- the operator's absence rules (ServerConfig; bodoge serve --absent-after-… options) ---


def told_to(world: World, tab: Tab) -> int:
    return len([c for c in world.notes.of("your_turn") if c[1] == tab.player["id"]])


async def test_absent_after_one_turn_run_out_when_the_operator_says_so(make_world: Any) -> None:
    """``absent_after_timeouts=1``: a single turn run out makes a person absent (the default
    needs three): their next turn is played by the stand-in at once, untold."""
    world = await make_world(absent_after_timeouts=1)
    ann, bob = await people(world, 2)
    table = await turn_table(world, [ann, bob], "tagiron", 2, HOUR)
    rng = random.Random(11)
    t = world.table(table)
    if 0 in t.game.to_act(t.state):
        await ask_for(world, ann, table, 0, rng)
    assert world.table(table).deadlines.keys() == {1}
    told = told_to(world, bob)
    await settle(world, HOUR + 60)  # Bob's turn runs out once
    t = world.table(table)
    assert t.steps[-1].actor == "timeout" and t.steps[-1].seat == 1
    await ask_for(world, ann, table, 0, rng)
    await settle(world, 1)
    t = world.table(table)
    assert t.steps[-1].actor == "timeout" and t.steps[-1].seat == 1, "played at once"
    assert t.game.to_act(t.state) == {0}
    assert told_to(world, bob) == told, "an absent person's turn is not told"
    # He comes back: with the table open his turn has its whole time, and his move counts.
    await bob.ok("table.open", table=table)
    await ask_for(world, ann, table, 0, rng)
    assert world.table(table).deadlines[1] - world.clock.now_ms() == HOUR * 1000
    await play_for(world, bob, table, 1, rng)
    assert world.table(table).steps[-1].actor == "player"


async def ask_for(world: Any, tab: Tab, table: str, seat: int, rng: random.Random) -> None:
    """The person in ``seat`` asks a question: the easy bot's choice, or where it would
    declare, the question a stand-in asks instead.  A declaration may end the game (a right
    one, then the absent rival's final declaration passed) that the test needs going on."""
    t = world.table(table)
    view = t.game.view(t.state, seat)
    move = stand_in(view, seat, t.game.bot("easy").act(view, seat, rng))
    assert isinstance(move, Ask), move
    await tab.ok("move", table=table, move=t.game.move_to_json(move))


@pytest.mark.parametrize("away_days", [2, None])
async def test_absent_after_days_away_when_the_operator_says_so(
    make_world: Any, away_days: int | None
) -> None:
    """``absent_after_seconds`` of two days (no count of turns run out would do: 10): a
    person who ran out of time and has made no move of their own for two days is absent;
    with the default seven days the same person still gets their whole day."""
    rules = {"absent_after_timeouts": 10}
    if away_days is not None:
        rules["absent_after_seconds"] = away_days * DAY
    world = await make_world(**rules)
    ann, bob = await people(world, 2)
    table = await turn_table(world, [ann, bob], "tagiron", 2, DAY)
    rng = random.Random(5)
    t = world.table(table)
    if 0 in t.game.to_act(t.state):
        await ask_for(world, ann, table, 0, rng)
    # Bob's turns run out; Ann moves as soon as it is hers, until two days have passed
    # since the game's first move (the days away count from there: Bob made none).
    for _ in range(4):
        await settle(world, DAY + 60)
        await ask_for(world, ann, table, 0, rng)
        await settle(world, 1)
        t = world.table(table)
        if world.clock.now_ms() - t.steps[0].at >= 2 * DAY * 1000:
            break
    ran_out = [s.actor for s in t.steps if s.seat == 1]
    assert "player" not in ran_out and len(ran_out) < 10
    if away_days is None:  # seven days by default: his turn has its whole day
        assert t.deadlines == {1: world.clock.now_ms() + DAY * 1000 - 1000}
        assert t.steps[-1].seat == 0
    else:  # away two days already: his turn is played at once
        assert t.game.to_act(t.state) == {0} and t.steps[-1].actor == "timeout"
        assert t.steps[-1].seat == 1 and t.steps[-1].at == world.clock.now_ms() - 1000


async def test_a_turn_based_game_is_abandoned_after_the_operators_days(make_world: Any) -> None:
    """``turn_abandon_seconds`` of three days (the default is fourteen)."""
    world = await make_world(turn_abandon_seconds=3 * DAY)
    ann, bob = await people(world, 2)
    table = await turn_table(world, [ann, bob], "tagiron", 2, DAY)
    for tab in (ann, bob):  # both away: nothing runs out, nobody moves
        answer = await world.send("POST", tab.player["token"], "/api/players/me/vacation", days=5)
        assert answer.status_code == 200
    await settle(world, 3 * DAY - 60)
    await world.s.tables.call(table, LiveTable.abandon)
    assert world.table(table).status == "playing"
    await settle(world, 120)
    await world.s.tables.call(table, LiveTable.abandon)
    assert world.table(table).ended == {
        "places": [None, None],
        "reason": "abandoned",
        "winners": [],
    }


async def test_vacation_days_a_year_are_the_operators(make_world: Any) -> None:
    """``vacation_days_per_year=5``: the page is told so, and the sixth day is refused."""
    world = await make_world(vacation_days_per_year=5)
    (ann,) = await people(world, 1)
    token = ann.player["token"]
    path = "/api/players/me/vacation"
    assert await world.get(token, path) == {"until": None, "days_left": 5, "days_per_year": 5}
    too_long = await world.send("POST", token, path, days=6)
    assert too_long.status_code == 400 and "1-5 whole days" in too_long.text
    ok = await world.send("POST", token, path, days=3)
    assert ok.json()["days_left"] == 2 and ok.json()["days_per_year"] == 5
    await settle(world, 3 * DAY + 60)
    assert (await world.get(token, path))["until"] is None
    refused = await world.send("POST", token, path, days=3)
    assert refused.status_code == 400 and "1-2 whole days" in refused.text
    assert (await world.send("POST", token, path, days=2)).status_code == 200
    await settle(world, 2 * DAY + 60)
    spent = await world.send("POST", token, path, days=1)
    assert spent.status_code == 400 and "no vacation days are left" in spent.text
    assert (await world.get(token, path))["days_left"] == 0


async def test_no_vacations_when_the_operator_allows_none(make_world: Any) -> None:
    world = await make_world(vacation_days_per_year=0)
    (ann,) = await people(world, 1)
    token = ann.player["token"]
    answer = await world.send("POST", token, "/api/players/me/vacation", days=1)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_vacation"
    assert await world.get(token, "/api/players/me/vacation") == {
        "until": None,
        "days_left": 0,
        "days_per_year": 0,
    }

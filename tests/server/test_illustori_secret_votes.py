"""With secret voting, nothing the server sends tells anyone who has voted, or how.

Three people play a whole Illustori game with ``secret_votes`` and a turn limit
(so every awaited person has a deadline), each seat's moves chosen by the
engine's own bot from that seat's view, plus a spectator.  Every message each
client received is then checked: during a vote the awaited seats
(``to_act``), the turn deadlines and the mover of each event name at most the
client itself, and no view or event names another voter; the history of the
finished game hides the voters and the exchanged cards too.
"""

from __future__ import annotations

import asyncio
import random

import httpx

from bodoge.games.illustori.game import IllustoriGame
from bodoge.games.illustori.moves import Exchange, FirstWord, IllustoriMove, PlayCard, Vote
from tests.support.client import Client, Message
from tests.support.live_server import LiveServer

GAME = IllustoriGame()


def _about(message: Message, table: str) -> bool:
    where = message.get("table")
    return message.get("type") in ("table", "event") and (
        where == table or (isinstance(where, dict) and where.get("id") == table)
    )


def last_state(client: Client, table: str) -> Message:
    return next(m for m in reversed(client.received) if _about(m, table))


def choose(view: Message, seat: int, rng: random.Random) -> IllustoriMove:
    """A quick player: plain linking words, a few exchanges and ん penalties, mostly OK votes."""
    if view["phase"] == "first_word":
        return FirstWord("つきよ")
    if view["phase"] == "vote":
        return Vote(rng.random() < 0.75)
    hand, head = view["hand"], view["next_heads"][0]
    roll = rng.random()
    if roll < 0.1:
        return Exchange((hand[0],))
    return PlayCard(hand[0], head + ("ん" if roll < 0.15 else "い"))


async def play_to_the_end(clients: list[Client], table: str, seed: int) -> Message:
    """Each seat that may act moves in turn, one move at a time, until the result."""
    rng = random.Random(seed)
    for _ in range(400):
        states = [last_state(c, table) for c in clients]
        if states[0].get("result"):
            return states[0]
        movers = [s for s, m in enumerate(states) if m.get("may_act")]
        assert movers, "nobody may act"
        seat = rng.choice(movers)
        move = choose(states[seat]["view"], seat, rng)
        reply = await clients[seat].ok("move", table=table, move=GAME.move_to_json(move))
        # Everyone has seen the move before anyone looks again.
        for client in clients:
            await client.wait_for(
                lambda m, n=reply["n"]: m.get("type") == "event" and m.get("n") == n
            )
        await asyncio.sleep(0.02)  # well inside the protocol's rate limit
    raise AssertionError("the game did not end in 400 moves")


def leaks(received: list[Message], seat: int | None, table: str) -> list[str]:
    """Every way a message names a voter other than ``seat``."""
    found = []
    for m in received:
        if not _about(m, table) or m.get("view") is None:
            continue
        view = m["view"]
        where = f"{m['type']} n={m.get('n')}"
        if view.get("votes") and ({"voted", "awaited"} & set(view["votes"])):
            found.append(f"{where}: view.votes names voters")
        if view.get("last_vote") and "votes" in view["last_vote"]:
            found.append(f"{where}: last_vote names voters")
        found.extend(f"{where}: {leak}" for leak in log_leaks(view.get("log", [])))
        if view["phase"] == "vote":
            if set(m["to_act"]) - {seat}:
                found.append(f"{where}: to_act {m['to_act']}")
            if set(view["to_act"]) - {seat}:
                found.append(f"{where}: view.to_act {view['to_act']}")
            timed = {s for s, at in enumerate(m["deadlines"]) if at is not None}
            if timed - {seat}:
                found.append(f"{where}: deadlines of {sorted(timed)}")
        if m["type"] == "event":
            for e in m["events"]:
                if e["type"] == "vote_cast":
                    if m["seat"] not in (None, seat):
                        found.append(f"{where}: the voter {m['seat']} is named")
                    if "seat" in e and e["seat"] != seat:
                        found.append(f"{where}: vote_cast names seat {e['seat']}")
                if e["type"] == "vote_resolved" and "votes" in e:
                    found.append(f"{where}: vote_resolved lists the votes")
    return found


def log_leaks(log: list[Message]) -> list[str]:
    """Every way the view's log names a voter or an exchanged card."""
    found = []
    for i, entry in enumerate(log):
        if entry["type"] == "vote_resolved" and "votes" in entry:
            found.append(f"log[{i}] lists the votes")
        if entry["type"] == "cards_exchanged" and "cards" in entry:
            found.append(f"log[{i}] names the exchanged cards")
    return found


async def test_secret_votes_never_tell_who_has_voted(live_server: LiveServer) -> None:
    clients = [await Client.connect(live_server.ws_url, f"secret{s}") for s in range(3)]
    spectator = await Client.connect(live_server.ws_url, "watcher")
    options = {"players": 3, "secret_votes": True, "deck_size": 30}
    settings = {"turn_seconds": 600}
    table = (
        await clients[0].ok("table.create", game="illustori", options=options, settings=settings)
    )["table"]
    for client in clients[1:]:
        await client.ok("table.join", table=table)
    for client in [*clients, spectator]:
        await client.ok("table.open", table=table)
    await clients[0].ok("table.start", table=table)
    for client in [*clients, spectator]:
        await client.wait_for(lambda m: _about(m, table) and m.get("view") is not None)

    final = await play_to_the_end(clients, table, seed=5)
    assert final["result"]["winners"]
    await spectator.wait_for(lambda m: m.get("type") == "event" and m.get("n") == final["n"])

    # The check can fail: one voter had voted while the other was still awaited,
    # so the full list of awaited seats would have told who.
    half_done = [
        m
        for m in clients[0].received
        if _about(m, table)
        and m.get("view")
        and m["view"]["phase"] == "vote"
        and m["view"]["votes"]["cast"] == 1
    ]
    assert half_done, "no vote was ever half cast"
    for seat, client in enumerate(clients):
        assert leaks(client.received, seat, table) == [], f"seat {seat}"
        # A seat's own vote is its own: it does see itself as awaited, with a deadline.
        assert any(
            _about(m, table)
            and m.get("view")
            and m["view"]["phase"] == "vote"
            and seat in m["to_act"]
            for m in client.received
        )
    assert leaks(spectator.received, None, table) == []

    # After the game, the history still hides who voted and what was exchanged.
    async with httpx.AsyncClient(base_url=live_server.url, timeout=20) as http:
        history = (await http.get(f"/api/tables/{table}/history")).json()
    votes = [m for m in history["moves"] if m["move"] is None]
    assert votes and all(m["seat"] is None and m["actor"] is None for m in votes)
    assert not [m for m in history["moves"] if m["move"] and m["move"]["type"] == "vote"]
    for m in history["moves"]:
        if m["move"] and m["move"]["type"] == "exchange":
            assert set(m["move"]) == {"type", "count"}
    # The history's views carry the whole log, as every client's last view does: the
    # same for every seat and the spectator, with the tallies but never who voted.
    log = history["views"][-1]["log"]
    assert not [v for view in history["views"] for v in log_leaks(view["log"])]
    assert [e["type"] for e in log].count("vote_resolved") >= 3
    assert "penalty" in {e["type"] for e in log} and log[-1]["type"] == "game_ended"
    for client in [*clients, spectator]:
        assert last_state(client, table)["view"]["log"] == log
    for client in [*clients, spectator]:
        await client.close()


def test_the_leak_check_catches_a_leak() -> None:
    """A vote message naming the other awaited voter is reported."""
    message = {
        "type": "event",
        "table": "t_x",
        "n": 3,
        "seat": 2,
        "events": [{"type": "vote_cast", "votes_cast": 1, "voters": 2}],
        "view": {"phase": "vote", "to_act": [], "votes": {"cast": 1, "voters": 2}},
        "to_act": [1],
        "deadlines": [None, "2026-01-01T00:00:00.000Z", None],
    }
    assert len(leaks([message], 0, "t_x")) == 3
    assert leaks([message], 1, "t_x") == ["event n=3: the voter 2 is named"]
    # A log that lists the votes, or the cards someone exchanged, is a leak too.
    message["view"]["log"] = [
        {"type": "vote_resolved", "seat": 0, "passed": True, "votes": [{"seat": 1, "ok": True}]},
        {"type": "cards_exchanged", "seat": 1, "count": 1, "cards": [7]},
        {"type": "cards_exchanged", "seat": 1, "count": 1},
    ]
    assert leaks([message], 1, "t_x") == [
        "event n=3: log[0] lists the votes",
        "event n=3: log[1] names the exchanged cards",
        "event n=3: the voter 2 is named",
    ]


def test_public_to_act_hides_voters_only_during_a_secret_vote() -> None:
    state = GAME.setup(GAME.options({"players": 3, "secret_votes": True}), 3, seed=3)
    giver = state.giver
    assert GAME.public_to_act(state, None) == GAME.to_act(state) == {giver}
    for _ in range(30):
        if state.phase == "vote":
            break
        seat = min(GAME.to_act(state))
        move = choose(GAME.view(state, seat), seat, random.Random(0))
        state, _ = GAME.apply(state, seat, move)
    assert state.phase == "vote" and len(GAME.to_act(state)) == 2
    for seat in range(3):
        assert GAME.public_to_act(state, seat) == GAME.to_act(state) & {seat}
    assert GAME.public_to_act(state, None) == frozenset()

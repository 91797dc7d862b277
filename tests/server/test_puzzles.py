"""Puzzles over HTTP against a real server: guests solve and fail them and their ratings
move the right way, a puzzle counts once, bad input is refused precisely and changes
nothing, the daily puzzle stays across restarts, and a first start makes puzzles by itself."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest

from bodoge.core.puzzles import MadePuzzle
from bodoge.games.tagiron.puzzle_make import make
from bodoge.server.services.puzzles import (
    PuzzleSource,
    daily_index,
    newcomer,
    puzzle_mu,
    rate_answer,
    records_of,
    shown,
)
from bodoge.store import PuzzleRecord, open_store, sqlite_url
from tests.support.client import Client
from tests.support.live_server import DEFAULT_ARGS, LiveServer


@pytest.fixture(scope="module")
def made() -> dict[str, MadePuzzle]:
    puzzles = make(10, 5).puzzles
    assert {p.kind for p in puzzles} == {"declare", "question", "count", "tile"}
    return {p.id: p for p in puzzles}


async def _keep(server: LiveServer, puzzles: list[MadePuzzle]) -> None:
    store = await open_store(sqlite_url(server.data))
    try:
        await store.add_puzzles(records_of("tagiron", puzzles, int(time.time() * 1000)))
    finally:
        await store.close()


def right_answer(p: MadePuzzle) -> dict[str, Any]:
    s = p.data["solution"]
    return {
        "declare": lambda: {"tiles": s["tiles"]},
        "question": lambda: {"card": s["card"], "choice": s["choice"]},
        "count": lambda: {"count": s["count"]},
        "tile": lambda: {"tile": s["tile"]},
    }[p.kind]()


def wrong_answer(p: MadePuzzle) -> dict[str, Any]:
    s = p.data["solution"]
    if p.kind == "declare":
        spare = next(t for t in ("R0", "B0", "R9", "B9", "R1") if t not in s["tiles"])
        return {"tiles": [*s["tiles"][:-1], spare]}
    if p.kind == "question":
        return next(o for o in p.data["ask"]["options"] if o != right_answer(p))
    if p.kind == "count":
        return {"count": s["high"] + 1}
    return {"tile": "R0" if s["tile"] != "R0" else "B0"}


class Person:
    def __init__(self, http: httpx.AsyncClient, player_id: str, token: str) -> None:
        self.http = http
        self.id = player_id
        self.headers = {"Authorization": f"Bearer {token}"}

    async def get(self, path: str) -> httpx.Response:
        return await self.http.get(path, headers=self.headers)

    async def answer(self, puzzle: str, answer: Any) -> httpx.Response:
        return await self.http.post(
            f"/api/puzzles/tagiron/{puzzle}/answer", json={"answer": answer}, headers=self.headers
        )


async def _person(server: LiveServer, http: httpx.AsyncClient, name: str) -> Person:
    client = await Client.connect(server.ws_url, name)
    assert client.token is not None
    person = Person(http, client.player_id, client.token)
    await client.close()
    return person


async def test_a_guest_solves_and_fails_puzzles_and_both_ratings_move(
    make_live_server: Any, made: dict[str, MadePuzzle]
) -> None:
    server = make_live_server()
    await _keep(server, list(made.values()))
    async with httpx.AsyncClient(base_url=server.url, timeout=20) as http:
        ann = await _person(server, http, "Ann")
        first = (await ann.get("/api/puzzles/tagiron/next")).json()
        assert first["me"]["rating"] == 1000 and first["me"]["attempts"] == 0
        shown_first = first["puzzle"]
        assert "solution" not in shown_first and "explanation" not in shown_first
        p = made[shown_first["id"]]
        assert shown_first["position"] == p.data["position"]

        solved = (await ann.answer(p.id, right_answer(p))).json()
        assert solved["right"] is True and solved["solution"] == p.data["solution"]
        assert solved["explanation"] == p.data["explanation"]
        assert solved["rating"]["change"] > 0
        assert solved["rating"]["after"] == solved["me"]["rating"] > 1000
        assert solved["puzzle_rating"]["after"] < solved["puzzle_rating"]["before"]
        assert (solved["me"]["streak"], solved["me"]["solved"]) == (1, 1)

        again = await ann.answer(p.id, wrong_answer(p))
        assert again.status_code == 409 and again.json()["error"]["code"] == "already_answered"
        nxt = (await ann.get("/api/puzzles/tagiron/next")).json()
        assert nxt["me"] == solved["me"]  # the second answer changed nothing
        assert nxt["puzzle"]["id"] != p.id  # an answered puzzle never comes again

        q = made[nxt["puzzle"]["id"]]
        failed = (await ann.answer(q.id, wrong_answer(q))).json()
        assert failed["right"] is False and failed["rating"]["change"] < 0
        assert failed["puzzle_rating"]["after"] > failed["puzzle_rating"]["before"]
        assert (failed["me"]["streak"], failed["me"]["best_streak"]) == (0, 1)
        assert failed["me"]["attempts"] == 2

        seen = (await ann.get(f"/api/puzzles/tagiron/{p.id}")).json()
        assert seen["answered"]["right"] is True
        assert seen["answered"]["solution"] == p.data["solution"]
        history = (await http.get(f"/api/players/{ann.id}/puzzles")).json()
        assert [a["puzzle"] for a in history["recent"]] == [q.id, p.id]
        assert [a["right"] for a in history["recent"]] == [False, True]
        assert history["ratings"][0]["attempts"] == 2

        # each kind can be asked for, and is solved with its own shape of answer
        bob = await _person(server, http, "Bob")
        for kind in ("declare", "question", "count", "tile"):
            got = (await bob.get(f"/api/puzzles/tagiron/next?kind={kind}")).json()["puzzle"]
            assert got["kind"] == kind
            assert (await bob.answer(got["id"], right_answer(made[got["id"]]))).json()["right"]
        me = (await bob.get("/api/puzzles/tagiron/next")).json()["me"]
        assert (me["streak"], me["solved"]) == (4, 4)


async def test_bad_requests_are_refused_precisely_and_change_nothing(
    make_live_server: Any, made: dict[str, MadePuzzle]
) -> None:
    server = make_live_server()
    await _keep(server, list(made.values())[:3])
    async with httpx.AsyncClient(base_url=server.url, timeout=20) as http:
        ann = await _person(server, http, "Ann")
        target = next(iter(made))

        async def code(response: httpx.Response, status: int) -> str:
            assert response.status_code == status, response.text
            return str(response.json()["error"]["code"])

        assert await code(await http.get("/api/puzzles/tagiron/next"), 401) == "bad_token"
        assert await code(await ann.get("/api/puzzles/chess/next"), 404) == "unknown_game"
        assert await code(await ann.get("/api/puzzles/tagiron/next?kind=riddle"), 400) == (
            "bad_kind"
        )
        assert await code(await ann.get("/api/puzzles/tagiron/tp0000"), 404) == "unknown_puzzle"
        assert await code(await ann.answer("tp0000", {"count": 3}), 404) == "unknown_puzzle"
        assert await code(await ann.answer(target, {"tiles": 3}), 400) == "bad_answer"
        assert await code(await ann.answer(target, {"count": True}), 400) == "bad_answer"
        bad_body = await http.post(
            f"/api/puzzles/tagiron/{target}/answer",
            content=b'{"answer": ',
            headers={**ann.headers, "Content-Type": "application/json"},
        )
        assert await code(bad_body, 400) == "bad_request"
        extra = await http.post(
            f"/api/puzzles/tagiron/{target}/answer",
            json={"answer": {"count": 3}, "again": 1},
            headers=ann.headers,
        )
        assert await code(extra, 400) == "bad_request"
        assert await code(await http.get("/api/players/p_nobody1/puzzles"), 404) == (
            "unknown_player"
        )
        # none of it was an answer
        assert (await ann.get(f"/api/puzzles/tagiron/{target}")).json()["answered"] is None
        assert (await ann.get("/api/puzzles/tagiron/next")).json()["me"]["attempts"] == 0
        for p in list(made)[:3]:
            assert (await ann.answer(p, right_answer(made[p]))).status_code == 200
        assert await code(await ann.get("/api/puzzles/tagiron/next"), 404) == "no_puzzle"


async def test_the_daily_puzzle_is_everyones_and_stays_after_a_restart(
    make_live_server: Any, made: dict[str, MadePuzzle]
) -> None:
    server = make_live_server()
    puzzles = list(made.values())
    await _keep(server, puzzles[:6])
    async with httpx.AsyncClient(base_url=server.url, timeout=20) as http:
        ann, bob = await _person(server, http, "Ann"), await _person(server, http, "Bob")
        daily = (await ann.get("/api/puzzles/tagiron/daily")).json()
        assert daily["day"] == time.strftime("%Y-%m-%d", time.gmtime())
        assert (await bob.get("/api/puzzles/tagiron/daily")).json()["puzzle"]["id"] == (
            daily["puzzle"]["id"]
        )
        ids = sorted(p.id for p in puzzles[:6])
        assert daily["puzzle"]["id"] == ids[daily_index("tagiron", daily["day"], 6)]
        answered = (
            await ann.answer(daily["puzzle"]["id"], right_answer(made[daily["puzzle"]["id"]]))
        ).json()
        assert answered["right"]
    server.restart()
    await _keep(server, puzzles[6:])  # more puzzles: the day's choice stays
    async with httpx.AsyncClient(base_url=server.url, timeout=20) as http:
        ann.http = http
        again = (await ann.get("/api/puzzles/tagiron/daily")).json()
        assert again["puzzle"]["id"] == daily["puzzle"]["id"]
        assert again["answered"]["daily"] == daily["day"] and again["answered"]["right"]
        history = (await http.get(f"/api/players/{ann.id}/puzzles")).json()
        assert history["recent"][0]["daily"] == daily["day"]


async def test_a_first_start_makes_puzzles_in_the_background(make_live_server: Any) -> None:
    server = make_live_server(args=[*DEFAULT_ARGS, "--initial-puzzles", "2"])
    async with httpx.AsyncClient(base_url=server.url, timeout=20) as http:
        assert (await http.get("/healthz")).status_code == 200
        ann = await _person(server, http, "Ann")
        deadline = time.monotonic() + 180
        while (response := await ann.get("/api/puzzles/tagiron/next")).status_code == 404:
            assert response.json()["error"]["code"] == "no_puzzle"
            assert time.monotonic() < deadline, "no puzzle made"
            await asyncio.sleep(1)
        assert response.status_code == 200


def test_ratings_move_the_right_way() -> None:
    person = newcomer("p_a", "tagiron")
    easy = PuzzleRecord("tpe", "tagiron", "count", 2, {}, puzzle_mu(0.1), 5.0)
    hard = PuzzleRecord("tph", "tagiron", "count", 2, {}, puzzle_mu(0.9), 5.0)
    assert puzzle_mu(0.0) < easy.mu < 25 < hard.mu < puzzle_mu(1.0)
    won_easy, easy_after = rate_answer(person, easy, True, 1)
    won_hard, hard_after = rate_answer(person, hard, True, 1)
    lost_easy, easy_won = rate_answer(person, easy, False, 1)
    lost_hard, _ = rate_answer(person, hard, False, 1)
    assert won_hard.mu > won_easy.mu > person.mu > lost_hard.mu > lost_easy.mu
    assert easy_after.mu < easy.mu < easy_won.mu and hard_after.mu < hard.mu
    assert shown(won_easy.mu) > 1000 > shown(lost_easy.mu)
    assert (won_easy.streak, won_easy.solved, won_easy.attempts) == (1, 1, 1)
    assert (lost_easy.streak, lost_easy.solved, lost_easy.attempts) == (0, 0, 1)
    streak = person
    for right in (True, True, True, False, True):
        streak, _ = rate_answer(streak, easy, right, 1)
    assert (streak.streak, streak.best_streak) == (1, 3)
    assert PuzzleSource(5).batch > 0


def test_the_daily_choice_depends_on_the_day_alone() -> None:
    picks = {daily_index("tagiron", f"2026-12-{d:02d}", 1000) for d in range(1, 29)}
    assert len(picks) > 20
    assert daily_index("tagiron", "2026-12-01", 1000) == daily_index("tagiron", "2026-12-01", 1000)


def test_the_command_makes_puzzles_into_a_store_once(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from bodoge.cli import main

    argv = ["tagiron", "puzzles", "make", "--count", "3", "--seed", "5", "--data", str(tmp_path)]
    assert main([*argv, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert (first["puzzles"], first["stored"]) == (3, 3)
    assert first["per_minute"] > 0 and 0 <= first["ambiguous_share"] <= 1
    assert set(first["kinds"]) == {"declare", "question", "count", "tile"}
    assert main(argv) == 0  # the same seed: the same puzzles, kept once
    assert "3 puzzles (0 new in the store)" in capsys.readouterr().out

    async def count() -> int:
        store = await open_store(sqlite_url(tmp_path))
        try:
            return await store.puzzle_count("tagiron")
        finally:
            await store.close()

    assert asyncio.run(count()) == 3
    assert main(["tagiron", "puzzles", "make", "--count", "0"]) == 2


async def test_an_account_keeps_its_puzzle_rating_on_another_device(
    make_live_server: Any, made: dict[str, MadePuzzle]
) -> None:
    server = make_live_server()
    await _keep(server, list(made.values())[:4])
    async with httpx.AsyncClient(base_url=server.url, timeout=20) as http:
        ann = await _person(server, http, "Ann")
        p = made[(await ann.get("/api/puzzles/tagiron/next")).json()["puzzle"]["id"]]
        me = (await ann.answer(p.id, right_answer(p))).json()["me"]
        kept = await http.post(
            "/api/account",
            json={"name": "ann-puzzles", "password": "a long enough password"},
            headers=ann.headers,
        )
        assert kept.status_code == 201, kept.text
        signed = await http.post(
            "/api/sign-in", json={"name": "ann-puzzles", "password": "a long enough password"}
        )
        assert signed.status_code == 200, signed.text
        phone = Person(http, ann.id, signed.json()["token"])
        elsewhere = (await phone.get("/api/puzzles/tagiron/next")).json()
        assert elsewhere["me"] == me and elsewhere["puzzle"]["id"] != p.id
        again = await phone.answer(p.id, right_answer(p))
        assert again.status_code == 409  # the account answered it, on whichever device

"""The store's puzzles: kept once, the next ones nearest a rating and never one answered, the
daily puzzle chosen once (two stores on one database agree), one answer per person."""

from __future__ import annotations

import asyncio

import pytest

from bodoge.store import (
    Conflict,
    PlayerRecord,
    PuzzlePlayerRecord,
    PuzzleRecord,
    SqlStore,
    open_store,
)


def puzzle(n: int, mu: float = 25.0, game: str = "tagiron") -> PuzzleRecord:
    return PuzzleRecord(f"tp{n:04d}", game, "count", 2, {"n": n, "ask": {}}, mu, 5.0)


def rate(right: bool, player: str = "p_me"):  # type: ignore[no-untyped-def]
    """A stand-in for the service's ratings: one point up or down."""

    def update(before: PuzzlePlayerRecord | None, p: PuzzleRecord):  # type: ignore[no-untyped-def]
        me = before or PuzzlePlayerRecord(player, p.game, 25.0, 8.0)
        step = 1.0 if right else -1.0
        after = PuzzlePlayerRecord(
            me.player,
            p.game,
            me.mu + step,
            me.sigma - 0.1,
            me.attempts + 1,
            me.solved + right,
            me.streak + 1 if right else 0,
            max(me.best_streak, me.streak + right),
            7,
        )
        rated = PuzzleRecord(
            p.id,
            p.game,
            p.kind,
            p.players,
            p.data,
            p.mu - step,
            p.sigma,
            p.plays + 1,
            p.solved + right,
        )
        return me, after, rated

    return update


async def test_puzzles_are_kept_once_and_read_back(store: SqlStore) -> None:
    assert await store.add_puzzles([puzzle(1), puzzle(2)]) == 2
    assert await store.add_puzzles([puzzle(2), puzzle(3)]) == 1
    assert await store.puzzle_count("tagiron") == 3
    assert await store.puzzle_count("illustori") == 0
    found = await store.puzzle("tp0002")
    assert found is not None and found.data == {"n": 2, "ask": {}} and found.mu == 25.0
    assert await store.puzzle("tp9999") is None


async def test_the_next_puzzles_are_the_nearest_not_yet_answered(store: SqlStore) -> None:
    await store.add_puzzles([puzzle(1, 20.0), puzzle(2, 26.0), puzzle(3, 31.0)])
    near = await store.puzzles_near("p_me", "tagiron", 25.0, 2)
    assert [p.id for p in near] == ["tp0002", "tp0001"]
    await store.answer_puzzle("p_me", "tp0002", {"count": 1}, True, 5, None, rate(True))
    near = await store.puzzles_near("p_me", "tagiron", 25.0, 5)
    assert [p.id for p in near] == ["tp0001", "tp0003"]
    assert await store.puzzles_near("p_me", "tagiron", 25.0, 5, kind="declare") == []


async def test_an_answer_counts_once_and_moves_both_ratings(store: SqlStore) -> None:
    await store.add_puzzles([puzzle(1)])
    before, after, rated = await store.answer_puzzle(
        "p_me", "tp0001", {"count": 3}, True, 5, "2026-12-01", rate(True)
    )
    assert (before.mu, after.mu, rated.mu) == (25.0, 26.0, 24.0)
    with pytest.raises(Conflict):
        await store.answer_puzzle("p_me", "tp0001", {"count": 4}, False, 6, None, rate(False))
    with pytest.raises(KeyError):
        await store.answer_puzzle("p_me", "tp0404", {"count": 4}, False, 6, None, rate(False))
    me = await store.puzzle_player("p_me", "tagiron")
    assert me is not None and (me.mu, me.attempts, me.solved, me.streak) == (26.0, 1, 1, 1)
    kept = await store.puzzle("tp0001")
    assert kept is not None and (kept.mu, kept.plays, kept.solved) == (24.0, 1, 1)
    (attempt,) = await store.puzzle_attempts("p_me")
    assert (attempt.puzzle, attempt.right, attempt.day, attempt.kind) == (
        "tp0001",
        True,
        "2026-12-01",
        "count",
    )
    assert await store.puzzle_attempt("p_me", "tp0001") == attempt
    assert await store.puzzle_attempt("p_other", "tp0001") is None
    assert [r.game for r in await store.puzzle_players_of("p_me")] == ["tagiron"]


async def test_the_daily_puzzle_is_chosen_once_for_every_store_and_later_puzzle(
    store_url: str,
) -> None:
    first, second = await open_store(store_url), await open_store(store_url)
    try:
        assert await first.daily_puzzle("tagiron", "2026-12-01", lambda n: 0) is None
        await first.add_puzzles([puzzle(n) for n in range(1, 8)])
        picks = await asyncio.gather(
            first.daily_puzzle("tagiron", "2026-12-01", lambda n: 3),
            second.daily_puzzle("tagiron", "2026-12-01", lambda n: 3),
        )
        assert picks == ["tp0004", "tp0004"]
        await second.add_puzzles([puzzle(0)])  # now the 4th by id is another
        assert await second.daily_puzzle("tagiron", "2026-12-01", lambda n: 3) == "tp0004"
        assert await first.daily_puzzle("tagiron", "2026-12-02", lambda n: 3) == "tp0003"
    finally:
        await first.close()
        await second.close()


async def test_a_removed_guest_takes_their_puzzle_answers_along(store: SqlStore) -> None:
    await store.add_puzzles([puzzle(1)])
    for pid in ("p_guest", "p_stays"):
        await store.create_player(PlayerRecord(pid, pid, f"hash-{pid}", 0))
        await store.answer_puzzle(pid, "tp0001", {"count": 1}, True, 5, None, rate(True, pid))
    assert await store.delete_guests(["p_guest"], None) == 1
    assert await store.puzzle_player("p_guest", "tagiron") is None
    assert await store.puzzle_attempts("p_guest") == []
    assert await store.puzzle_player("p_stays", "tagiron") is not None
    assert len(await store.puzzle_attempts("p_stays")) == 1

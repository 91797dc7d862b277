"""What the store keeps for every process of a cluster: passkey challenges (taken once,
expiring, capped), the players a host removed from a waiting table, and the statistics of a
finished game (written with its result; NULL only until an older game is replayed)."""

from __future__ import annotations

from bodoge.store import ChallengeRecord, MoveRecord, SeatRecord, TableRecord, Timers
from bodoge.store.sql import SqlStore


def _challenge(cid: str, expires_at: int) -> ChallengeRecord:
    return ChallengeRecord(cid, b"\x01" * 32, "sign_in", None, None, "example.org", expires_at)


async def test_challenges_are_taken_once_expire_and_are_capped(store: SqlStore) -> None:
    assert await store.add_challenge(_challenge("c_old", 1_000), now=500, limit=2)
    assert await store.add_challenge(_challenge("c_new", 9_000), now=500, limit=2)
    assert not await store.add_challenge(_challenge("c_many", 9_000), now=500, limit=2)
    # The expired one is swept when the next comes, which makes room.
    assert await store.add_challenge(_challenge("c_late", 9_000), now=2_000, limit=2)
    assert await store.take_challenge("c_old", now=2_000) is None
    assert await store.take_challenge("c_new", now=2_000) == _challenge("c_new", 9_000)
    assert await store.take_challenge("c_new", now=2_000) is None
    assert await store.take_challenge("c_late", now=9_001) is None  # expired: gone too
    assert await store.take_challenge("c_late", now=2_000) is None


async def test_removed_players_are_kept_with_their_table(store: SqlStore) -> None:
    seats = [SeatRecord(0, "human", "p_ann"), SeatRecord(1, "human", "p_bob")]
    record = TableRecord("t_w", "tagiron", {"players": 2}, {}, 1, "waiting", "p_ann", 1)
    await store.create_table(record, seats)
    await store.remove_from_table("t_w", [seats[0], SeatRecord(1)], "p_ann", "p_bob")
    bundle = await store.load_table("t_w")
    assert bundle is not None and bundle.removed == {"p_bob"}
    assert [s.kind for s in bundle.seats] == ["human", "empty"]
    (waiting,) = await store.load_open_tables()
    assert waiting.removed == {"p_bob"}
    await store.delete_table("t_w")
    assert await store.load_table("t_w") is None


async def test_statistics_are_written_with_the_result_or_filled_in_later(store: SqlStore) -> None:
    seats = [SeatRecord(0, "human", "p_ann"), SeatRecord(1, "bot", level="easy")]
    counts = [{"played": 3, "accepted": 2}, {"played": 4, "accepted": 4}]
    result = {"places": [1, 2], "reason": "hand_emptied", "winners": [0]}
    for table_id in ("t_new", "t_old", "t_gone"):
        record = TableRecord(table_id, "illustori", {"players": 2}, {}, 1, "waiting", None, 1)
        await store.create_table(record, seats)
        await store.start_table(table_id, 2, seats, Timers())
    await store.append_move("t_new", MoveRecord(1, 0, {}, 5), None, result, statistics=counts)
    await store.append_move("t_old", MoveRecord(1, 0, {}, 6), None, result)  # as before
    await store.end_table("t_gone", 7, result, [{}, {}])
    assert await store.unsummarised_tables() == ["t_old"]
    await store.save_statistics("t_old", counts)
    assert await store.unsummarised_tables() == []
    for bundle in await store.played_tables("p_ann"):
        want = [{}, {}] if bundle.table.id == "t_gone" else counts
        assert bundle.table.statistics == want

"""Guests in the store — players who left no trace — found and deleted by when they were
last seen, on SQLite and PostgreSQL (see ``conftest.py``)."""

from __future__ import annotations

from bodoge.store import ChatRecord, PlayerRecord, SeatRecord, TableRecord
from bodoge.store.sql import SqlStore


def _player(player_id: str, created_at: int = 1_000) -> PlayerRecord:
    return PlayerRecord(player_id, player_id.upper(), player_id * 16, created_at)


async def test_guests_are_players_without_a_trace_unseen_for_long(store: SqlStore) -> None:
    for player_id in ("p_a", "p_b", "p_c", "p_d", "p_e", "p_f", "p_g"):
        await store.create_player(_player(player_id))
    table = TableRecord("t_1", "tagiron", {}, {}, 1, "waiting", "p_c", 1_000)
    await store.create_table(table, [SeatRecord(0, "human", "p_a"), SeatRecord(1, left="p_b")])
    await store.add_chat(ChatRecord("t_1", 1, "p_d", "D", "hi", 1_000))
    await store.player_seen("p_f", 5_000)
    await store.add_picture_set("d_1", [(b"RIFF", "image/webp")], 1_000, owner="p_g")
    found = await store.guests(seen_before=2_000)
    assert [p.id for p in found] == ["p_e"]  # p_f was seen since
    assert [p.id for p in await store.guests(seen_before=6_000)] == ["p_e", "p_f"]
    assert (await store.players(["p_f"]))["p_f"].seen_at == 5_000
    # Only guests are deleted, and only if still unseen: whatever ids are asked for.
    assert await store.delete_guests(["p_a", "p_b", "p_c", "p_d", "p_e", "p_f"], 2_000) == 1
    left = await store.players(["p_a", "p_b", "p_c", "p_d", "p_e", "p_f"])
    assert sorted(left) == ["p_a", "p_b", "p_c", "p_d", "p_f"]
    assert await store.delete_guests([], 2_000) == 0

"""A retried request gets its first reply again, unless that reply was a transient refusal.

The audit's case: after a process stopped for 10 s, a client resending its move with the same
id got ``table_unavailable`` replayed for two minutes on every process, while the table had
been taken over after 5 s and new ids succeeded.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from bodoge.core.values import JSON
from bodoge.server.services import replies
from bodoge.server.services.replies import RETRY_CODES, RecentReplies, kept_for_retry


class Notes:
    """The cluster's remembered requests, as a dictionary (Redis in a cluster)."""

    def __init__(self) -> None:
        self.notes: dict[tuple[str, str], dict[str, JSON]] = {}

    async def note(
        self, player_id: str, request_id: str, note: dict[str, JSON], seconds: float
    ) -> dict[str, JSON] | None:
        old = self.notes.get((player_id, request_id))
        if old is None:
            self.notes[(player_id, request_id)] = note
        return old

    async def write(
        self, player_id: str, request_id: str, note: dict[str, JSON], seconds: float
    ) -> None:
        self.notes[(player_id, request_id)] = note

    async def forget(self, player_id: str, request_id: str) -> None:
        self.notes.pop((player_id, request_id), None)


@pytest.mark.parametrize(
    "code", ["table_unavailable", "store_unavailable", "internal_error", "table_rate_limited"]
)
def test_a_transient_refusal_is_not_kept_for_a_retry(code: str) -> None:
    assert code in RETRY_CODES
    assert not kept_for_retry({"type": "error", "id": 1, "code": code})


@pytest.mark.parametrize("code", ["not_your_turn", "illegal_move", "seat_taken", "bad_message"])
def test_a_refusal_of_the_request_itself_is_kept(code: str) -> None:
    assert kept_for_retry({"type": "error", "id": 1, "code": code})


async def test_across_the_cluster_a_table_unavailable_is_forgotten_and_the_retry_runs() -> None:
    notes = Notes()
    recent = RecentReplies()

    async def alive(process: str) -> bool:
        return True

    recent.share(notes, "p1", alive)
    move: dict[str, JSON] = {"type": "move", "id": 9, "table": "t_abcd", "move": {"ask": 3}}
    first, new = await recent.start("pl_1", move)
    assert new
    first.set_result({"type": "error", "id": 9, "code": "table_unavailable"})
    await asyncio.sleep(0.05)  # the note's settling runs as a task
    assert notes.notes == {}, "a transient refusal stays noted for every process"
    recent.forget("pl_1", 9, {"type": "error", "id": 9, "code": "table_unavailable"})

    again, new_again = await recent.start("pl_1", move)
    assert new_again, "the retry got the refusal again instead of running"
    again.set_result({"type": "ack", "id": 9})
    await asyncio.sleep(0.05)
    assert notes.notes[("pl_1", "9")]["reply"] == {"type": "ack", "id": 9}


async def test_replies_are_kept_for_their_seconds_and_at_most_their_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [1000.0]
    monkeypatch.setattr(replies, "time", SimpleNamespace(monotonic=lambda: now[0]))
    recent = RecentReplies(seconds=10.0, size=3)

    def ask(n: int) -> bool:
        future, new = recent.begin("pl_1", {"type": "move", "id": n})
        if new:
            future.set_result({"type": "ack", "id": n})
        return new

    assert ask(1)
    now[0] += 5
    assert ask(2) and not ask(1) and not ask(2)  # within its seconds: the first reply again
    now[0] += 5.5
    assert ask(3) and len(recent) == 2  # the first is past its seconds: gone
    assert ask(1), "a request past its seconds runs again"
    assert len(recent) == 3
    assert ask(4) and len(recent) == 3  # at most three: the oldest (2) made room
    assert ask(2) and len(recent) == 3  # and then 3
    assert not ask(2)  # (a request at the bound lets the oldest, 1, go first)
    now[0] += 11
    assert ask(5) and len(recent) == 1

"""The remembered replies (``bodoge/server/services/replies.py``) cost little once answered."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc

from bodoge.core.values import JSON
from bodoge.server.services.replies import RecentReplies

CHAT: dict[str, JSON] = {"type": "chat", "id": 7, "table": "t_ab12", "text": "hi"}


async def test_an_answered_request_is_kept_as_text_that_the_collector_does_not_track() -> None:
    recent = RecentReplies()
    first, new = recent.begin("p_1", CHAT)
    assert new
    first.set_result({"type": "ack", "id": 7, "line": 1})
    await asyncio.sleep(0)  # its done callback
    (entry,) = recent._entries.values()
    assert isinstance(entry[1], str)  # no future, no dict: text
    gc.collect(0)
    assert not gc.is_tracked(entry)  # nothing in it for a pass to walk, or to freeze
    again, repeated = recent.begin("p_1", CHAT)
    assert not repeated and again.result() == {"type": "ack", "id": 7, "line": 1}


async def test_a_retry_while_the_first_is_handled_waits_for_its_reply() -> None:
    recent = RecentReplies()
    first, _ = recent.begin("p_1", CHAT)
    again, repeated = recent.begin("p_1", CHAT)
    assert not repeated and not again.done()
    first.set_result({"type": "ack", "id": 7, "line": 2})
    assert (await again)["line"] == 2


async def test_a_forgotten_request_runs_again() -> None:
    recent = RecentReplies()
    first, _ = recent.begin("p_1", CHAT)
    recent.forget("p_1", 7, {"type": "error", "id": 7, "code": "internal_error"})
    assert first.result()["code"] == "internal_error"
    _, new = recent.begin("p_1", CHAT)
    assert new and len(recent) == 1


MOVE: dict[str, JSON] = {
    "type": "move",
    "table": "t_ab12cd",
    "move": {"kind": "ask", "card": "red_sum", "choice": None},
}


async def test_a_remembered_move_costs_a_few_hundred_bytes() -> None:
    # The request is kept as its hash, not its text: 428 bytes an answered move, where its
    # text kept it at 595 (a server remembers up to 50,000 of them).
    recent = RecentReplies()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(1000, 3000):
            future, _ = recent.begin("p_abcdefgh", {**MOVE, "id": n})
            future.set_result({"type": "ack", "table": "t_ab12cd", "n": n, "id": n})
        await asyncio.sleep(0)  # the done callbacks: each reply kept as text
        per_entry = (tracemalloc.get_traced_memory()[0] - before) / 2000
    finally:
        tracemalloc.stop()
    assert len(recent) == 2000
    assert per_entry < 480, per_entry


async def test_another_request_under_a_remembered_id_runs() -> None:
    recent = RecentReplies()
    first, _ = recent.begin("p_1", CHAT)
    first.set_result({"type": "ack", "id": 7, "line": 1})
    _, new = recent.begin("p_1", {**CHAT, "text": "hello"})  # the client numbered anew
    assert new
    _, new = recent.begin("p_1", {**CHAT, "id": "7"})  # a string is not the number
    assert new
    _, new = recent.begin("p_2", CHAT)  # nor is another player's request
    assert new
    assert len(recent) == 3

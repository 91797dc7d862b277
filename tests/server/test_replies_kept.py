"""The remembered replies (``bodoge/server/services/replies.py``) cost little once answered."""

from __future__ import annotations

import asyncio
import gc

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

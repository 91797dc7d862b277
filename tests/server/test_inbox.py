"""A table's inbox runs commands one at a time, in order, and says how each ended."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bodoge.core.errors import NotYourTurn
from bodoge.server.runtime.inbox import Inbox, TableGone
from bodoge.server.runtime.protocol import ProtocolError


async def test_commands_run_one_at_a_time_in_the_order_they_came() -> None:
    ran: list[str] = []
    quiet: list[int] = []
    inbox = Inbox("t_test", after_each=lambda: quiet.append(len(ran)))
    inbox.start()

    async def slow(name: str) -> str:
        ran.append(f"{name} begins")
        await asyncio.sleep(0.01)
        ran.append(f"{name} ends")
        return name

    results = await asyncio.gather(inbox.call(slow, "a"), inbox.call(slow, "b"))
    assert results == ["a", "b"]
    assert ran == ["a begins", "a ends", "b begins", "b ends"]
    assert quiet == [2, 4]
    inbox.stop()


async def test_a_refusal_reaches_the_caller_and_a_bug_becomes_internal_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    inbox = Inbox("t_test", after_each=lambda: None)
    inbox.start()

    async def refuse() -> None:
        raise NotYourTurn("wait")

    async def fail() -> None:
        raise KeyError("bug")

    async def fine() -> int:
        return 7

    with pytest.raises(NotYourTurn):
        await inbox.call(refuse)
    with caplog.at_level(logging.ERROR), pytest.raises(ProtocolError) as failed:
        await inbox.call(fail)
    assert failed.value.code == "internal_error"
    assert "t_test: fail failed" in caplog.text
    assert await inbox.call(fine) == 7  # the task goes on
    inbox.stop()


async def test_closing_fails_what_is_queued_and_what_comes_after() -> None:
    inbox = Inbox("t_test", after_each=lambda: None)
    inbox.start()
    ran: list[str] = []
    go = asyncio.Event()

    async def close() -> None:
        await go.wait()
        inbox.close()

    async def note(word: str) -> None:
        ran.append(word)

    inbox.post(close)
    queued = asyncio.ensure_future(inbox.call(note, "queued"))
    await asyncio.sleep(0.01)
    assert inbox.queued == 1  # waiting behind close
    go.set()
    with pytest.raises(TableGone):
        await queued
    with pytest.raises(TableGone):
        await inbox.call(note, "late")
    inbox.post(note, "posted")
    await asyncio.sleep(0.01)
    assert ran == []


async def test_a_read_cut_off_by_the_database_is_store_unavailable_not_a_bug(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """PostgreSQL restarting under a read: SQLAlchemy's ``InterfaceError`` ("connection is
    closed"), which the caller answers as ``store_unavailable``, with no traceback logged."""
    from sqlalchemy.exc import InterfaceError

    from bodoge.store import StoreUnavailable

    inbox = Inbox("t_test", after_each=lambda: None)
    inbox.start()

    async def read() -> None:
        raise InterfaceError("SELECT 1", {}, Exception("connection is closed"))

    with caplog.at_level(logging.ERROR), pytest.raises(StoreUnavailable):
        await inbox.call(read)
    assert not caplog.records
    inbox.stop()


async def test_an_idle_inbox_holds_no_task_and_one_comes_with_the_next_command() -> None:
    def tasks() -> list[asyncio.Task[object]]:
        return [t for t in asyncio.all_tasks() if t.get_name() == "table t_idle"]

    inbox = Inbox("t_idle", after_each=lambda: None)
    go = asyncio.Event()

    async def wait() -> str:
        await go.wait()
        return "done"

    async def note(word: str) -> str:
        return word

    waiting = asyncio.ensure_future(inbox.call(wait))
    await asyncio.sleep(0.01)
    assert tasks() == [] and inbox.queued == 1  # not started: commands wait
    inbox.start()
    await asyncio.sleep(0.01)
    assert len(tasks()) == 1 and inbox.running
    later = asyncio.ensure_future(inbox.call(note, "after"))
    await asyncio.sleep(0.01)
    assert len(tasks()) == 1 and inbox.queued == 1  # behind the first, in the same task
    go.set()
    assert await waiting == "done" and await later == "after"
    await asyncio.sleep(0.01)
    assert tasks() == [] and not inbox.running  # idle: nothing held
    assert await inbox.call(note, "again") == "again"
    await asyncio.sleep(0.01)
    assert tasks() == []
    inbox.stop()

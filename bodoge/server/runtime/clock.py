"""The server's clock: what time it is, and waking up at a time.

Every deadline the runtime keeps (turn limits, rule clocks, a turn-based table's days per
move, a bot's think time, the reaction window) reads and waits through the one clock
installed here, so that a test can play a game over simulated days in a second
(:class:`ManualClock`).  The server installs its ``ServerConfig.clock`` when it starts
(``bodoge/server/wiring.py``); the default is the machine's (:class:`SystemClock`).

>>> manual = ManualClock(start_ms=1_000)
>>> fired = []
>>> _ = manual.call_at(61_000, lambda: fired.append(manual.now_ms()))
>>> manual.advance(30), fired
(31000, [])
>>> manual.advance(30), fired
(61000, [61000])
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable
from typing import Protocol


class Wakeup(Protocol):
    """A pending wake-up; ``cancel`` drops it."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """Wall-clock time in milliseconds, and callbacks at such a time."""

    def now_ms(self) -> int: ...

    def call_at(self, at_ms: int, callback: Callable[[], None]) -> Wakeup:
        """Run ``callback`` (on the event loop) once the clock reads ``at_ms``."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The machine's clock and the event loop's timers."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def call_at(self, at_ms: int, callback: Callable[[], None]) -> Wakeup:
        delay = max(0.0, at_ms / 1000 - time.time())
        return asyncio.get_running_loop().call_later(delay, callback)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class _Pending:
    __slots__ = ("callback", "cancelled")

    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that moves only when told (:meth:`advance`): days pass in a test at once.

    Due callbacks run in the order of their times, each when the clock reads its time.
    """

    def __init__(self, start_ms: int | None = None) -> None:
        self._now = time.time_ns() // 1_000_000 if start_ms is None else start_ms
        self._queue: list[tuple[int, int, _Pending]] = []
        self._order = itertools.count()

    def now_ms(self) -> int:
        return self._now

    def call_at(self, at_ms: int, callback: Callable[[], None]) -> Wakeup:
        pending = _Pending(callback)
        heapq.heappush(self._queue, (at_ms, next(self._order), pending))
        return pending

    async def sleep(self, seconds: float) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not done.done():
                done.set_result(None)

        wakeup = self.call_at(self._now + round(seconds * 1000), wake)
        try:
            await done
        finally:
            wakeup.cancel()

    def next_at(self) -> int | None:
        """When the earliest pending wake-up is due (``None``: nothing pending)."""
        while self._queue and self._queue[0][2].cancelled:
            heapq.heappop(self._queue)
        return self._queue[0][0] if self._queue else None

    def advance(self, seconds: float) -> int:
        """Move the clock on by ``seconds``, running each wake-up due on the way; the new time."""
        target = self._now + round(seconds * 1000)
        while (at := self.next_at()) is not None and at <= target:
            _, _, pending = heapq.heappop(self._queue)
            self._now = max(self._now, at)
            pending.callback()
        self._now = target
        return self._now

    async def run_for(
        self, seconds: float, settle: Callable[[], Awaitable[None]] | None = None
    ) -> int:
        """Like :meth:`advance`, but awaiting ``settle`` (by default one pass of the event
        loop) after each wake-up, so that what one wake-up sets off (a move, its next
        deadline) happens before the clock goes on: a table lives through the time as it
        would."""
        settled = settle or _one_pass
        target = self._now + round(seconds * 1000)
        await settled()
        while (at := self.next_at()) is not None and at <= target:
            _, _, pending = heapq.heappop(self._queue)
            self._now = max(self._now, at)
            pending.callback()
            await settled()
        self._now = target
        await settled()
        return self._now


async def _one_pass() -> None:
    await asyncio.sleep(0)


_current: Clock = SystemClock()


def clock() -> Clock:
    """The clock the server runs on."""
    return _current


def use_clock(new: Clock) -> None:
    """Install the server's clock (the wiring, at start; a test, its :class:`ManualClock`)."""
    global _current
    _current = new


def now_ms() -> int:
    return _current.now_ms()

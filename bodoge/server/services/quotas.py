"""Rates by token bucket, per client address or per player, for the quotas of the server.

A visitor may make a few players, tables and uploads in a row (the bucket's
``burst``), then one more each time the bucket has refilled one token
(``per_hour`` tokens an hour).  The defaults are in
:class:`~bodoge.server.runtime.config.Quotas`; ``bodoge serve`` options change them.

>>> clock = iter([0.0, 0.0, 0.0, 1800.0])
>>> buckets = Buckets(per_hour=2, clock=lambda: next(clock))
>>> [buckets.take("10.0.0.5") for _ in range(3)]
[True, True, False]
>>> buckets.take("10.0.0.5")  # half an hour later: one token back
True
>>> Buckets(per_hour=0).take("anyone")  # 0: no limit
True
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger(__name__)

#: Full buckets are forgotten (they hold nothing worth keeping) once this many keys are held.
PRUNE_AT = 4096


class SharedRates(Protocol):
    """The cluster's buckets (``bodoge/cluster/shared.py``): 0 when taken, else seconds."""

    async def take(self, name: str, key: str, per_hour: int, tokens: float = 1.0) -> int: ...


class Buckets:
    """One token bucket per key (an address, a player): ``per_hour`` tokens an hour, all of
    them saved up at most.  Memory stays bounded: a full bucket is the same as none.

    In a cluster (:meth:`share`) the buckets are the cluster's, in Redis, so that a rate
    is not multiplied by the number of processes; :meth:`try_take` takes from them (and
    from this process's own buckets while Redis does not answer).
    """

    def __init__(
        self, per_hour: int, *, clock: Callable[[], float] = time.monotonic, name: str = ""
    ) -> None:
        self.per_hour = per_hour
        self.burst = float(per_hour)
        self.name = name
        self._rate = per_hour / 3600.0
        self._clock = clock
        #: Per key: the tokens it had at the time it was last looked at, and that time.
        self._buckets: dict[str, tuple[float, float]] = {}
        self._shared: SharedRates | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def share(self, shared: SharedRates) -> None:
        """Cluster: count in the cluster's buckets (named :attr:`name`) from now on."""
        self._shared = shared

    async def try_take(self, key: str, tokens: float = 1.0) -> int:
        """Take ``tokens`` (at most the bucket's size) for ``key``: 0 when taken, else the
        whole seconds until they are there (and nothing taken)."""
        if not self.per_hour:
            return 0
        tokens = min(tokens, self.burst)
        if self._shared is not None:
            try:
                return await self._shared.take(self.name, key, self.per_hour, tokens)
            except Exception as exc:  # Redis away: this process counts alone meanwhile
                log.debug("the %s rate falls back on this process: %s", self.name, exc)
        if self.take(key, tokens):
            return 0
        return max(1, self.wait_seconds(key, tokens))

    def _level(self, key: str, now: float) -> float:
        tokens, at = self._buckets.get(key, (self.burst, now))
        return min(self.burst, tokens + (now - at) * self._rate)

    def take(self, key: str, cost: float = 1.0) -> bool:
        """Take ``cost`` tokens for ``key`` if it has them (``False``: over the rate, nothing
        taken)."""
        if not self.per_hour:
            return True
        now = self._clock()
        tokens = self._level(key, now)
        if tokens < cost:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - cost, now)
        if len(self._buckets) > PRUNE_AT:
            self._prune(now)
        return True

    def give_back(self, key: str) -> None:
        """Return the token of something that did not happen after all (a failed write)."""
        if self.per_hour and self._shared is not None:
            task = asyncio.get_running_loop().create_task(self._give_back_shared(key))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        if self.per_hour and key in self._buckets:
            tokens, at = self._buckets[key]
            self._buckets[key] = (min(self.burst, tokens + 1.0), at)

    def wait_seconds(self, key: str, cost: float = 1.0) -> int:
        """Whole seconds until ``key`` has ``cost`` tokens again (for ``Retry-After``)."""
        if not self.per_hour:
            return 0
        missing = cost - self._level(key, self._clock())
        return max(0, int(missing / self._rate) + 1) if missing > 0 else 0

    def _prune(self, now: float) -> None:
        full = [k for k in self._buckets if self._level(k, now) >= self.burst]
        for key in full:
            del self._buckets[key]

    async def _give_back_shared(self, key: str) -> None:
        assert self._shared is not None
        try:
            await self._shared.take(self.name, key, self.per_hour, -1.0)
        except Exception as exc:  # the token is lost until the bucket refills
            log.debug("giving back a %s token failed: %s", self.name, exc)

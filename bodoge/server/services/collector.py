"""The server's garbage-collector policy: short passes, and none over the whole heap in play.

CPython's cyclic collector stops the event loop for the length of each pass, and
a pass costs about a microsecond per container object it walks (on a small,
busy machine).  Left to itself, at 300–500 tables it walks the whole heap (some
300,000 objects: every connection's and table's) several times a minute, a
quarter to half a second each, and its young passes grow long too: they are
triggered by the *net* growth of objects, so while a table replaces each seat's
view after every move (as many objects freed as made) they come seldom and walk
everything made since.  Reference counting frees almost everything the server
makes; the collector is only needed for garbage in reference cycles.  So:

* after start-up, everything loaded (modules, games, restored tables) is frozen
  (``gc.freeze()``): no pass walks it again;
* a young pass runs every :data:`YOUNG_SECONDS` (besides CPython's own), so a
  pass walks only what was made since the last one: a few milliseconds;
* whatever survives a pass is frozen at once, so no later pass walks it again.
  Frozen objects are still freed by reference counting when they die; only
  garbage in cycles stays;
* no pass ever walks the whole heap by itself.  A full pass costs about a
  microsecond per object held — 1 s at 2,000 tables, 8,000 connections — and it
  stops every table and socket for that long, so the policy does not run one
  because the process has grown: it grew because it holds more tables and
  people, and a pass over them would find nothing.  What it would collect —
  frozen garbage in reference cycles — the server does not make: a closed
  connection, a table leaving memory and a finished request leave no cycle
  behind (``tests/server/test_garbage.py``, ``tests/server/test_tables.py``),
  and what lives shorter than a young pass never gets frozen.

A **sweep** (unfreeze, one full pass, freeze again) is still there for an operator
who would rather pay that pause than memory: ``bodoge serve --gc-sweep-above MIB``
sweeps, at most every :data:`CHECK_SECONDS`, when the resident memory is over
that many MiB (and over half as much again as after the last sweep, so a large
server does not sweep over and over).  ``GET /api/stats`` shows the objects
frozen now and what each sweep freed, so a leak shows as frozen objects that
grow while tables and connections do not.

``GET /api/stats`` shows the passes (``gc``) and the sweeps.
"""

from __future__ import annotations

import asyncio
import gc
import os
from pathlib import Path

from bodoge.core.values import JSON

#: Seconds between two young passes of our own.
YOUNG_SECONDS = 0.05
#: With ``--gc-sweep-above``: sweep again only once the resident memory is this multiple of
#: what it was after the last sweep.
SWEEP_GROWTH = 1.5
#: Seconds between two looks at the memory (with ``--gc-sweep-above``).
CHECK_SECONDS = 30.0


def resident_bytes() -> int:
    """This process's resident memory (0 where there is no ``/proc``)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


class Collector:
    """The policy, for one process: :meth:`start` after start-up, :meth:`stop` at the end."""

    def __init__(self) -> None:
        #: Sweep when the resident memory is over this many bytes (``None``: never by itself).
        self.sweep_above: int | None = None
        self.sweeps = 0
        #: Objects the sweeps freed (garbage in cycles that had been frozen).
        self.swept = 0
        #: Objects frozen after the last sweep (or start-up).
        self.frozen = 0
        #: Resident memory after the last sweep (or start-up).
        self.resident = 0
        self._tasks: list[asyncio.Task[None]] = []

    def start(self, sweep_above: int | None = None) -> None:
        """Freeze what start-up loaded; from now on, freeze what survives each pass.

        ``sweep_above``: the resident bytes over which a sweep runs (``None``: no sweep).
        """
        self.sweep_above = sweep_above
        gc.collect()
        gc.freeze()
        self.frozen, self.resident = gc.get_freeze_count(), resident_bytes()
        if self._freeze_survivors not in gc.callbacks:
            gc.callbacks.append(self._freeze_survivors)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._young())]
        if sweep_above is not None:
            self._tasks.append(loop.create_task(self._watch()))

    def stop(self) -> None:
        if self._freeze_survivors in gc.callbacks:
            gc.callbacks.remove(self._freeze_survivors)
        for task in self._tasks:
            task.cancel()
        self._tasks = []

    @staticmethod
    def _freeze_survivors(phase: str, info: dict[str, int]) -> None:
        # The pass is over and its lists are consistent; freezing only relinks them.
        if phase == "stop":
            gc.freeze()

    async def _young(self) -> None:
        while True:
            await asyncio.sleep(YOUNG_SECONDS)
            gc.collect(0)

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            limit = self.sweep_at()
            if limit is not None and self.resident and resident_bytes() >= limit:
                self.sweep()

    def sweep_at(self) -> int | None:
        """The resident memory (bytes) from which the next look sweeps (``None``: none)."""
        if self.sweep_above is None:
            return None
        return max(self.sweep_above, int(SWEEP_GROWTH * self.resident))

    def sweep(self) -> int:
        """One full pass over everything, frozen or not; returns the objects it freed."""
        gc.unfreeze()
        freed = gc.collect()
        gc.freeze()
        self.frozen, self.resident = gc.get_freeze_count(), resident_bytes()
        self.sweeps += 1
        self.swept += freed
        return freed

    def to_json(self, *, frozen: bool = False) -> dict[str, JSON]:
        """The policy's figures; ``frozen``: with the objects frozen now (``None`` without).

        Counting them walks every one (CPython keeps no count): tens of milliseconds of a
        stopped loop at a million, so a monitor polling the stats does not pay it."""
        return {
            "frozen": gc.get_freeze_count() if frozen else None,
            "resident": resident_bytes(),
            "sweep_above": self.sweep_above,
            "sweeps": self.sweeps,
            "swept": self.swept,
            "frozen_after_sweep": self.frozen,
            "resident_after_sweep": self.resident,
        }


#: The process's policy (the collector is per process).
COLLECTOR = Collector()

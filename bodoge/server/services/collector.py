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
* a **sweep** (unfreeze, one full pass, freeze again) collects that: checked
  every :data:`CHECK_SECONDS`, run when the process's resident memory has grown
  to :data:`SWEEP_GROWTH` times what it was after the last sweep, and is over
  :data:`SWEEP_FLOOR` (a server of 500 tables needs less).  It is the one long
  pause left (as long as a full pass), once per such growth: tables and
  connections added, or garbage in cycles piling up.

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
#: Sweep when the resident memory reaches this multiple of what it was after the last sweep
#: (or start-up), and at least :data:`SWEEP_FLOOR` bytes.
SWEEP_GROWTH = 1.5
SWEEP_FLOOR = 256 * 2**20
#: Seconds between two looks at the memory.
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
        self.sweeps = 0
        #: Objects the sweeps freed (garbage in cycles that had been frozen).
        self.swept = 0
        #: Objects frozen after the last sweep (or start-up).
        self.frozen = 0
        #: Resident memory after the last sweep (or start-up).
        self.resident = 0
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Freeze what start-up loaded; from now on, freeze what survives each pass."""
        gc.collect()
        gc.freeze()
        self.frozen, self.resident = gc.get_freeze_count(), resident_bytes()
        if self._freeze_survivors not in gc.callbacks:
            gc.callbacks.append(self._freeze_survivors)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._young()), loop.create_task(self._watch())]

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
            if self.resident and resident_bytes() >= self.sweep_at():
                self.sweep()

    def sweep_at(self) -> int:
        """The resident memory (bytes) from which the next look sweeps."""
        return max(SWEEP_FLOOR, int(SWEEP_GROWTH * self.resident))

    def sweep(self) -> int:
        """One full pass over everything, frozen or not; returns the objects it freed."""
        gc.unfreeze()
        freed = gc.collect()
        gc.freeze()
        self.frozen, self.resident = gc.get_freeze_count(), resident_bytes()
        self.sweeps += 1
        self.swept += freed
        return freed

    def to_json(self) -> dict[str, JSON]:
        return {
            "sweeps": self.sweeps,
            "swept": self.swept,
            "frozen_after_sweep": self.frozen,
            "resident_after_sweep": self.resident,
        }


#: The process's policy (the collector is per process).
COLLECTOR = Collector()

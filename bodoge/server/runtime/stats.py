"""What the server process is doing, for ``GET /api/stats`` and ``bodoge bench server``.

Two parts:

* :data:`GC`, the cyclic garbage collector's passes, timed through ``gc.callbacks``:
  collections, objects freed, total and longest time per generation, and the recent
  long pauses with when they happened.  A pass stops the event loop, so every table
  waits for it: the longest pause is a floor under the latency tail.
* :class:`Counters`, a server's connections, moves and frames sent.

>>> counters = Counters()
>>> counters.connections_open, counters.moves
(0, 0)
>>> sorted(GcPauses().to_json())
['generations', 'histogram', 'long_pauses', 'threshold']
"""

from __future__ import annotations

import gc
import time
from bisect import bisect_left
from collections import Counter as CounterOf
from collections.abc import Callable, Mapping
from typing import Literal

from bodoge.core.values import JSON

#: Pauses at least this long (seconds) are kept one by one, the last :data:`KEPT` of them.
LONG_PAUSE = 0.001
KEPT = 1000
#: The upper bounds (ms) of the pause histogram's buckets; the last bucket is beyond them.
PAUSE_BOUNDS_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500)

#: The upper bounds (ms) of the buckets of moves by the time they took here.
MOVE_BOUNDS_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)

#: When this process started measuring, for the times of the pauses.
STARTED = time.monotonic()


def uptime() -> float:
    """Seconds since this module was loaded (the clock of ``long_pauses``)."""
    return time.monotonic() - STARTED


class GcPauses:
    """Every collection's duration, per generation (install once per process)."""

    def __init__(self) -> None:
        self.collections = [0, 0, 0]
        self.collected = [0, 0, 0]
        self.uncollectable = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self.cpu_seconds = [0.0, 0.0, 0.0]
        self.longest = [0.0, 0.0, 0.0]
        #: ``(uptime, generation, seconds, CPU seconds)`` of the last long pauses, a ring
        #: written in place: a pass may run while :meth:`to_json` reads it.
        self._pauses: list[tuple[float, int, float, float] | None] = [None] * KEPT
        self._written = 0
        self._began = self._began_cpu = 0.0
        #: Every pass counted in a bucket of :data:`PAUSE_BOUNDS_MS`, by its wall-clock time
        #: and by its CPU time (the one a busy machine does not inflate).
        self.wall_buckets = [0] * (len(PAUSE_BOUNDS_MS) + 1)
        self.cpu_buckets = [0] * (len(PAUSE_BOUNDS_MS) + 1)

    def install(self) -> None:
        if self._callback not in gc.callbacks:
            gc.callbacks.append(self._callback)

    def uninstall(self) -> None:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began_cpu = time.thread_time()
            self._began = time.perf_counter()
            return
        took = time.perf_counter() - self._began
        cpu = time.thread_time() - self._began_cpu
        generation = info["generation"]
        self.collections[generation] += 1
        self.collected[generation] += info["collected"]
        self.uncollectable[generation] += info["uncollectable"]
        self.seconds[generation] += took
        self.cpu_seconds[generation] += cpu
        if took > self.longest[generation]:
            self.longest[generation] = took
        self.wall_buckets[bisect_left(PAUSE_BOUNDS_MS, took * 1e3)] += 1
        self.cpu_buckets[bisect_left(PAUSE_BOUNDS_MS, cpu * 1e3)] += 1
        if took >= LONG_PAUSE:
            self._pauses[self._written % KEPT] = (uptime(), generation, took, cpu)
            self._written += 1

    @property
    def long_pauses(self) -> list[tuple[float, int, float, float]]:
        """The last long pauses, oldest first."""
        copied = self._pauses[:]  # one C copy: no pass can run in the middle of it
        return sorted(p for p in copied if p is not None)

    def to_json(self) -> dict[str, JSON]:
        pauses = self.long_pauses
        return {
            "threshold": list(gc.get_threshold()),
            "generations": [
                {
                    "collections": self.collections[g],
                    "collected": self.collected[g],
                    "uncollectable": self.uncollectable[g],
                    "total_ms": round(self.seconds[g] * 1e3, 3),
                    "cpu_ms": round(self.cpu_seconds[g] * 1e3, 3),
                    "longest_ms": round(self.longest[g] * 1e3, 3),
                }
                for g in range(3)
            ],
            "histogram": {
                "bounds_ms": list(PAUSE_BOUNDS_MS),
                "wall": self.wall_buckets[:],
                "cpu": self.cpu_buckets[:],
            },
            "long_pauses": [
                [round(at, 3), g, round(took * 1e3, 3), round(cpu * 1e3, 3)]
                for at, g, took, cpu in pauses
            ],
        }


#: The process's collector (``gc.callbacks`` are per process, like the collector).
GC = GcPauses()


#: Every error code that refuses a request for going past a limit, and its kind: ``quota``
#: (too many, too large) or ``rate`` (too fast).  A new limit's code is added here, and is
#: then counted wherever it is answered (:meth:`Counters.refused`).
REFUSALS: Mapping[str, Literal["quota", "rate"]] = {
    "too_many_connections": "quota",
    "too_large": "quota",
    "too_many_tables": "quota",
    "too_many_turn_tables": "quota",
    "too_many_decks": "quota",
    "too_many_deck_bytes": "quota",
    "too_many_passkeys": "quota",
    "server_full": "quota",
    "upload_too_large": "quota",
    "too_many_pixels": "quota",
    "uploads_busy": "quota",
    "foreign_origin": "quota",
    "unsupported_media_type": "quota",
    "rate_limited": "rate",
    "new_player_rate_limited": "rate",
    "sign_in_rate_limited": "rate",
    "table_rate_limited": "rate",
    "upload_rate_limited": "rate",
    "pixel_rate_limited": "rate",
}
#: The codes of refusals for going too fast (the others are quotas: too many, too large).
RATE_CODES = frozenset(code for code, kind in REFUSALS.items() if kind == "rate")


class Counters:
    """One server's connections, moves and frames, counted as they happen, and the
    requests refused by a quota or a rate (by error code).

    >>> counters = Counters()
    >>> counters.refused("too_many_tables"); counters.refused("table_rate_limited")
    >>> counters.to_json()["quotas"]["refused_by_quota"]
    {'too_many_tables': 1}

    ``on_fanout``, when set, is given each move's seconds from the start of its commit to
    its frames being queued to every connection (the metrics' histogram).

    :meth:`handled` counts each move by the time from its frame being read to its reply
    being queued (after every seat's frame): the server's own share of the time a move
    takes to reach the other seats, once the socket was read.

    >>> counters = Counters(); counters.handled(0.0004); counters.handled(0.03)
    >>> counters.to_json()["move_ms"]["counts"][:7]
    [1, 0, 0, 0, 0, 1, 0]
    """

    def __init__(self) -> None:
        self.connections_open = 0
        self.connections_total = 0
        self.moves = 0
        self.frames_sent = 0
        self.refused_by_quota: CounterOf[str] = CounterOf()
        self.refused_by_rate: CounterOf[str] = CounterOf()
        #: Idle guests and unused decks removed from the store
        #: (bodoge/server/services/housekeeping.py).
        self.guests_removed = 0
        self.decks_removed = 0
        #: Uploaded decks stored since the start, and their bytes.
        self.uploads_stored = 0
        self.upload_bytes_stored = 0
        #: Uploaded decks the store keeps and their bytes (all processes' uploads), as of the
        #: last look: at start, at each upload, each sweep and each ``GET /api/stats``.
        self.decks_kept = 0
        self.deck_bytes_kept = 0
        self.on_fanout: Callable[[float], None] | None = None
        #: Moves by milliseconds from frame read to reply queued (:data:`MOVE_BOUNDS_MS`).
        self.move_buckets = [0] * (len(MOVE_BOUNDS_MS) + 1)

    def handled(self, seconds: float) -> None:
        """Count a move handled in ``seconds`` (frame read to reply queued)."""
        self.move_buckets[bisect_left(MOVE_BOUNDS_MS, seconds * 1e3)] += 1

    def refusals(self) -> dict[tuple[str, str], int]:
        """Every refusal so far by ``(kind, code)``, kind ``quota`` or ``rate`` (for metrics).

        >>> counters = Counters(); counters.refused("server_full")
        >>> counters.refusals()
        {('quota', 'server_full'): 1}
        """
        return {
            **{("quota", code): n for code, n in self.refused_by_quota.items()},
            **{("rate", code): n for code, n in self.refused_by_rate.items()},
        }

    def refused(self, code: str) -> None:
        """Count an error answered with ``code`` if it is a refusal (:data:`REFUSALS`).

        The one place refusals are counted: the server's exits call it with the code of
        every error they answer — a WebSocket's error frame (``Connection.reply_to``), the
        account API's and the uploads' HTTP errors — so a refusal is counted once, by the
        process that answers it, whichever module or process decided it.

        >>> counters = Counters(); counters.refused("bad_name"); counters.refused("rate_limited")
        >>> counters.refusals()
        {('rate', 'rate_limited'): 1}
        """
        kind = REFUSALS.get(code)
        if kind is not None:
            (self.refused_by_rate if kind == "rate" else self.refused_by_quota)[code] += 1

    def to_json(self) -> dict[str, JSON]:
        return {
            "uptime": round(uptime(), 3),
            "connections": {"open": self.connections_open, "total": self.connections_total},
            "moves": self.moves,
            "frames_sent": self.frames_sent,
            "move_ms": {"bounds_ms": list(MOVE_BOUNDS_MS), "counts": self.move_buckets[:]},
            "quotas": {
                "refused_by_quota": dict(self.refused_by_quota),
                "refused_by_rate": dict(self.refused_by_rate),
                "guests_removed": self.guests_removed,
                "decks_removed": self.decks_removed,
                "uploads_stored": self.uploads_stored,
                "upload_bytes_stored": self.upload_bytes_stored,
                "decks_kept": self.decks_kept,
                "deck_bytes_kept": self.deck_bytes_kept,
            },
        }

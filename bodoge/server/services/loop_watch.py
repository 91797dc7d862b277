"""How late the event loop runs, and why: the server's own work, the collector, or a machine
that gave the process no CPU.

Every table and socket of a process waits while its event loop is busy, so the loop's lag
is a floor under every latency the server causes.  A lag alone does not say whose it is: the
loop may have run a long callback (the server's own work), a collector pass, or nothing at
all because the machine's other processes held every core — on a small machine shared with
the load's clients, the usual case.  So each tick of :class:`LoopWatch` splits the time it
came late into

* the main thread's CPU time (``time.thread_time``): work the loop did, of which
* the collector's passes (``GcPauses``) are shown apart, and
* the time the main thread waited for a CPU on the kernel's run queue
  (``/proc/thread-self/schedstat``): time the process was ready but not running.

What is left (neither running nor waiting for a CPU) is waiting for the GIL or for I/O,
which the loop never does on purpose.  A *stall* is a tick at least :data:`STALL_SECONDS`
late; the last :data:`KEPT` stalls are kept with when they happened and that split, so a
stall can be set beside a periodic task's times and the collector's pauses
(``GET /api/stats``: ``loop``).

And *where*: while a tick is overdue by a stall's length, a thread of the watch looks at what
the main thread is running, every :data:`SAMPLE_SECONDS`, and counts the place — the
innermost lines of bodoge's own code on its stack — so a callback that holds the loop names
itself (``stalled_in``).  The thread only reads a clock between looks; it takes a stack only
during a stall, and takes it with :func:`faulthandler.dump_traceback`: one C call that reads
the interpreter's own frames while it holds the GIL.  Walking the main thread's frame objects
from Python (``sys._current_frames()``, then ``f_back``) lets the GIL pass between two steps,
and on Python 3.11 a frame popped meanwhile was once read as another object (a ``cell``),
after which the server stopped answering.
"""

from __future__ import annotations

import asyncio
import faulthandler
import os
import re
import tempfile
import threading
import time
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from types import FrameType
from typing import IO

from bodoge.core.values import JSON
from bodoge.server.runtime.stats import GC, uptime

#: Seconds between two ticks.
TICK_SECONDS = 0.02
#: A tick at least this late is a stall, kept one by one.
STALL_SECONDS = 0.05
#: The stalls kept (the last ones).
KEPT = 500
#: The upper bounds (ms) of the lag histogram's buckets; the last bucket is beyond them.
LAG_BOUNDS_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
#: Seconds between two looks of the sampling thread.
SAMPLE_SECONDS = 0.05
#: The places shown (the most sampled).
PLACES = 12
#: Lines of bodoge's code that name a place (innermost first).
DEPTH = 3

_SCHEDSTAT = "/proc/thread-self/schedstat"


class _Schedstat:
    """One thread's schedstat, kept open: a tick reads it with one ``pread``.

    ``/proc/thread-self`` names the thread that opens it, so each thread opens its own (kept
    in a ``threading.local``), and it is closed with that thread's locals when it ends.
    """

    def __init__(self) -> None:
        self.fd = os.open(_SCHEDSTAT, os.O_RDONLY | os.O_CLOEXEC)

    def __del__(self) -> None:
        os.close(self.fd)


_threads = threading.local()
# A forked child's thread is another thread: it opens its own.
os.register_at_fork(after_in_child=lambda: _threads.__dict__.pop("schedstat", None))


def run_queue_seconds() -> float:
    """Seconds the calling thread has waited on the kernel's run queue (0 without /proc)."""
    try:
        stat: _Schedstat | None = getattr(_threads, "schedstat", None)
        if stat is None:
            stat = _threads.schedstat = _Schedstat()
        return int(os.pread(stat.fd, 128, 0).split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def _gc_seconds() -> float:
    return sum(GC.seconds)


class LoopWatch:
    """The lag of one event loop: :meth:`start` in it, :meth:`stop` at the end.

    ``clock``, ``cpu``, ``queued`` and ``collected`` are the clocks it reads (wall, the main
    thread's CPU, its run-queue wait, the collector's time), all in seconds; tests give
    their own.
    """

    def __init__(
        self,
        tick: float = TICK_SECONDS,
        *,
        clock: Callable[[], float] = time.perf_counter,
        cpu: Callable[[], float] = time.thread_time,
        queued: Callable[[], float] = run_queue_seconds,
        collected: Callable[[], float] = _gc_seconds,
        lags: list[float] | None = None,
    ) -> None:
        self.tick = tick
        #: Every tick's lag in seconds, if given a list (the bench's clients keep them).
        self.lags = lags
        self._clocks = (clock, cpu, queued, collected)
        self.ticks = 0
        #: Every tick's lag counted in a bucket of :data:`LAG_BOUNDS_MS`.
        self.buckets = [0] * (len(LAG_BOUNDS_MS) + 1)
        self.longest = 0.0
        #: Over every stall: seconds late, and of them CPU, collector and run-queue seconds.
        self.stalled = [0.0, 0.0, 0.0, 0.0]
        #: ``(uptime, late, cpu, collector, run queue)`` of the last stalls (seconds), a ring.
        self._stalls: list[tuple[float, float, float, float, float] | None] = [None] * KEPT
        self._written = 0
        self._last = (0.0, 0.0, 0.0, 0.0)
        self._task: asyncio.Task[None] | None = None
        #: Where the main thread was, sampled during stalls: place -> samples.
        self.places: Counter[str] = Counter()
        self._beat = 0.0
        self._sampler: threading.Thread | None = None
        self._stopped = threading.Event()

    def start(self, *, sample: bool = True) -> None:
        """Watch the running loop; ``sample``: with the thread that samples stalls' places."""
        self._last = self._read()
        self._beat = time.perf_counter()
        self._task = asyncio.get_running_loop().create_task(self._run())
        if sample:
            self._stopped.clear()
            main = threading.get_ident()
            self._sampler = threading.Thread(
                target=self._sample, args=(main,), name="loop-watch", daemon=True
            )
            self._sampler.start()

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self._stopped.set()
        if self._sampler is not None:
            self._sampler.join(1)
            self._sampler = None

    def _sample(self, main: int) -> None:
        overdue = self.tick + STALL_SECONDS
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as scratch:
            while not self._stopped.wait(SAMPLE_SECONDS):
                if time.perf_counter() - self._beat < overdue:
                    continue
                lines = stack_of(main, scratch)
                if lines:
                    self.places[place(lines)] += 1

    def _read(self) -> tuple[float, float, float, float]:
        clock, cpu, queued, collected = self._clocks
        return (clock(), cpu(), queued(), collected())

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.tick)
            self._beat = time.perf_counter()
            self.note(self._read())

    def note(self, now: tuple[float, float, float, float]) -> None:
        """One tick: ``now`` is the four clocks read as the loop woke up."""
        wall, cpu, queued, collected = (b - a for a, b in zip(self._last, now, strict=True))
        self._last = now
        late = max(0.0, wall - self.tick)
        self.ticks += 1
        if self.lags is not None:
            self.lags.append(late)
        self.buckets[bisect_left(LAG_BOUNDS_MS, late * 1e3)] += 1
        self.longest = max(self.longest, late)
        if late >= STALL_SECONDS:
            stall = (late, min(cpu, wall), min(collected, wall), min(queued, wall))
            for i, part in enumerate(stall):
                self.stalled[i] += part
            self._stalls[self._written % KEPT] = (uptime() - wall, *stall)
            self._written += 1

    @property
    def stalls(self) -> list[tuple[float, float, float, float, float]]:
        """The last stalls, oldest first."""
        return sorted(s for s in self._stalls[:] if s is not None)

    def to_json(self) -> dict[str, JSON]:
        late, cpu, collector, queued = self.stalled
        return {
            "tick_ms": self.tick * 1e3,
            "ticks": self.ticks,
            "longest_ms": round(self.longest * 1e3, 3),
            "histogram": {"bounds_ms": list(LAG_BOUNDS_MS), "lag": self.buckets[:]},
            "stalled_ms": {
                "late": round(late * 1e3, 3),
                "cpu": round(cpu * 1e3, 3),
                "collector": round(collector * 1e3, 3),
                "run_queue": round(queued * 1e3, 3),
            },
            "stalls": [
                [round(at, 3), *(round(x * 1e3, 3) for x in parts)] for at, *parts in self.stalls
            ],
            # A copy made in one step (the sampling thread may be counting a new place).
            "stalled_in": [
                [where, n] for where, n in Counter(dict.copy(self.places)).most_common(PLACES)
            ],
        }


_THREAD = re.compile(r"^(?:Current thread|Thread) (0x[0-9a-f]+)")
_LINE = re.compile(r'^  File "(.*)", line (\d+)')


def stack_of(thread: int, scratch: IO[str]) -> list[tuple[str, int]]:
    """The ``(file, line)`` pairs on ``thread``'s stack, innermost first, read by
    :func:`faulthandler.dump_traceback` into ``scratch`` (a file the caller keeps).

    >>> import threading, tempfile
    >>> with tempfile.TemporaryFile("w+") as scratch:
    ...     stack = stack_of(threading.get_ident(), scratch)
    >>> stack[0][0] == __file__, any(path.startswith("<doctest") for path, _ in stack)
    (True, True)
    """
    scratch.seek(0)
    scratch.truncate()
    faulthandler.dump_traceback(scratch, all_threads=True)
    scratch.seek(0)
    found: list[tuple[str, int]] = []
    mine = False
    for text in scratch:
        head = _THREAD.match(text)
        if head is not None:
            if mine:
                break
            mine = int(head[1], 16) == thread
        elif mine and (line := _LINE.match(text)) is not None:
            found.append((line[1], int(line[2])))
    return found


def frame_lines(frame: FrameType | None) -> Iterator[tuple[str, int]]:
    """The ``(file, line)`` pairs from ``frame`` outwards (the calling thread's own)."""
    while frame is not None:
        yield frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back


def place(stack: Iterable[tuple[str, int]]) -> str:
    """Where a thread is: the innermost :data:`DEPTH` lines of bodoge's code on its stack
    (``module:line``, innermost first), after the innermost line of all if that is not
    bodoge's (a library's call, a system call).

    >>> import inspect
    >>> place(frame_lines(inspect.currentframe())).startswith("<doctest")
    True
    """
    lines: list[str] = []
    first = True
    for path, number in stack:
        if len(lines) >= DEPTH:
            break
        if "/bodoge/" in path:
            module = path[path.rindex("/bodoge/") + 1 :].removesuffix(".py").replace("/", ".")
            lines.append(f"{module}:{number}")
        elif first:
            lines.append(f"{path.rsplit('/', 1)[-1]}:{number}")
        first = False
    return " < ".join(lines)


#: The server process's loop (one per process, like the collector).
LOOP = LoopWatch()

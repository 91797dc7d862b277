"""``GET /metrics`` (Prometheus) and ``GET /healthz`` of one server process.

Most figures already exist where they are counted — connections and moves in
:class:`bodoge.server.runtime.stats.Counters`, takeovers in the ownership, reconnections in the
bus — so :class:`Metrics` *reads* them at each scrape (:class:`Readings`) instead of
counting a second time on the hot path. Only the two latency histograms are observed as
things happen: the time from a move's arrival to its frames being queued to every
connection of this process (``fanout_seconds``), and each group commit's duration
(``commit_seconds``). They are :class:`LatencyHistogram`, not prometheus_client's
``Histogram``: that one takes a lock per bucket and per sum at each observation, which
cost about 3% of the server's CPU per move; ours is written by one thread only (the
event loop, or the store's writer thread while the loop commits nothing) and read at scrape
time.

Each process is scraped on its own address (not through the load balancer, which would
pick one at random); ``bodoge_process_info`` says which process answered.

>>> moves = iter(range(100, 200))
>>> metrics = Metrics("p1", Readings(connections=lambda: 3, moves=lambda: next(moves)))
>>> metrics.commit_seconds.observe(0.002)
>>> text = metrics.exposition().decode()
>>> "bodoge_connections 3.0" in text, "bodoge_moves_total 100.0" in text
(True, True)
>>> 'bodoge_process_info{process="p1"} 1.0' in text
True
"""

from __future__ import annotations

import asyncio
import bisect
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.process_collector import ProcessCollector
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

#: The latency histograms' buckets (seconds): a move's fan-out is milliseconds when all is
#: well; a commit is under a millisecond on SQLite and a few on PostgreSQL.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
#: Seconds a health probe may take before it counts as failed.
PROBE_TIMEOUT = 2.0

Reading = Callable[[], float]
#: Answers when its service is reachable, raises (or times out) when not.
Probe = Callable[[], Awaitable[Any]]


def _zero() -> float:
    return 0


@dataclass
class Readings:
    """Where each figure is read at scrape time (a server without a cluster reads zeros)."""

    #: WebSockets open on this process.
    connections: Reading = _zero
    #: Live tables this process runs (owns, in a cluster).
    tables_owned: Reading = _zero
    #: Moves committed by this process since it started.
    moves: Reading = _zero
    #: Tables this process took over from a dead process.
    takeovers: Reading = _zero
    #: Times the Redis subscriber connection came back after being lost.
    redis_reconnects: Reading = _zero
    #: Times the database answered again after a failure.
    database_reconnects: Reading = _zero
    #: Requests refused by a quota or a rate, by ``(kind, code)`` (``Counters.refusals``).
    refusals: Callable[[], Mapping[tuple[str, str], float]] = dict
    #: Uploaded decks this process stored, their bytes, and the bytes all decks take.
    uploads: Reading = _zero
    upload_bytes: Reading = _zero
    deck_bytes: Reading = _zero


class LatencyHistogram:
    """A Prometheus histogram observed by **one** thread at a time, without locks.

    Each observation adds one to one bucket and to the sum (the cumulative counts are
    made at scrape time); a scrape from another thread may see an observation half
    made, which the next scrape corrects.

    >>> h = LatencyHistogram("x_seconds", "demo", buckets=(0.01, 0.1))
    >>> for seconds in (0.005, 0.05, 0.5):
    ...     h.observe(seconds)
    >>> [(s.name, s.labels.get("le"), s.value) for s in next(h.collect()).samples]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('x_seconds_bucket', '0.01', 1), ('x_seconds_bucket', '0.1', 2),
     ('x_seconds_bucket', '+Inf', 3), ('x_seconds_count', None, 3),
     ('x_seconds_sum', None, 0.555)]
    """

    def __init__(self, name: str, documentation: str, buckets: tuple[float, ...]) -> None:
        self.name = name
        self.documentation = documentation
        self.bounds = tuple(sorted(buckets))
        self._counts = [0] * (len(self.bounds) + 1)  # the last one: over every bound
        self._sum = 0.0

    def observe(self, seconds: float) -> None:
        self._counts[bisect.bisect_left(self.bounds, seconds)] += 1
        self._sum += seconds

    def collect(self) -> Iterator[Metric]:
        cumulative, buckets = 0, []
        for bound, count in zip((*map(_le, self.bounds), "+Inf"), self._counts, strict=True):
            cumulative += count
            buckets.append((bound, cumulative))
        family = HistogramMetricFamily(self.name, self.documentation)
        family.add_metric([], buckets, round(self._sum, 9))
        yield family


def _le(bound: float) -> str:
    return repr(float(bound))


class _ReadingsCollector:
    """Turns :class:`Readings` into metric families on each scrape."""

    def __init__(self, readings: Readings) -> None:
        self.readings = readings

    def collect(self) -> Iterator[Metric]:
        r = self.readings
        yield GaugeMetricFamily("bodoge_connections", "WebSockets open", value=r.connections())
        yield GaugeMetricFamily(
            "bodoge_tables_owned", "Live tables this process runs", value=r.tables_owned()
        )
        yield CounterMetricFamily(
            "bodoge_moves", "Moves committed by this process (rate() for moves/s)", value=r.moves()
        )
        yield CounterMetricFamily(
            "bodoge_lease_takeovers",
            "Tables taken over from a process whose lease ran out",
            value=r.takeovers(),
        )
        yield CounterMetricFamily(
            "bodoge_redis_reconnects",
            "Times the Redis connection came back after being lost",
            value=r.redis_reconnects(),
        )
        yield CounterMetricFamily(
            "bodoge_database_reconnects",
            "Times the database answered again after failing",
            value=r.database_reconnects(),
        )
        refused = CounterMetricFamily(
            "bodoge_refused",
            "Requests refused by a quota (too many, too large) or a rate (too fast)",
            labels=["kind", "code"],
        )
        for (kind, code), n in sorted(r.refusals().items()):
            refused.add_metric([kind, code], n)
        yield refused
        yield CounterMetricFamily(
            "bodoge_uploads", "Uploaded decks this process stored", value=r.uploads()
        )
        yield CounterMetricFamily(
            "bodoge_upload_bytes", "Bytes of the decks this process stored", value=r.upload_bytes()
        )
        yield GaugeMetricFamily(
            "bodoge_deck_bytes", "Bytes all uploaded decks take in the store", value=r.deck_bytes()
        )


class _ProcessInfo:
    def __init__(self, process: str) -> None:
        self.process = process

    def collect(self) -> Iterator[Metric]:
        info = GaugeMetricFamily(
            "bodoge_process_info", "The process that answered", labels=["process"]
        )
        info.add_metric([self.process], 1)
        yield info


class Metrics:
    """One process's metrics, in a registry of its own (several servers may share a Python)."""

    def __init__(self, process: str, readings: Readings | None = None) -> None:
        self.process = process
        self.readings = readings or Readings()
        self.registry = CollectorRegistry()
        self.fanout_seconds = LatencyHistogram(
            "bodoge_move_fanout_seconds",
            "From a move's arrival to its frames queued to every connection of this process",
            buckets=LATENCY_BUCKETS,
        )
        self.commit_seconds = LatencyHistogram(
            "bodoge_commit_seconds",
            "Duration of each group commit of the store's writer",
            buckets=LATENCY_BUCKETS,
        )
        self.registry.register(self.fanout_seconds)
        self.registry.register(self.commit_seconds)
        self.registry.register(_ProcessInfo(process))
        self.registry.register(_ReadingsCollector(self.readings))
        # CPU seconds, resident memory, open files: from /proc, where there is one.
        ProcessCollector(registry=self.registry)

    def exposition(self) -> bytes:
        """The text format Prometheus scrapes."""
        return generate_latest(self.registry)

    content_type = CONTENT_TYPE_LATEST


async def _probe(probe: Probe, timeout: float) -> dict[str, Any]:
    began = time.perf_counter()
    try:
        found = await asyncio.wait_for(probe(), timeout)
    except TimeoutError:
        return {"ok": False, "error": f"no answer within {timeout} s"}
    except Exception as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    # A probe may tell what it found (the schema's version), beside how long it took.
    told = dict(found) if isinstance(found, Mapping) else {}
    return {"ok": True, "ms": round((time.perf_counter() - began) * 1000, 2), **told}


async def health(
    process: str, probes: Mapping[str, Probe], timeout: float = PROBE_TIMEOUT
) -> tuple[int, dict[str, Any]]:
    """The body and status of ``/healthz``: which process answered, and what it reaches.

    ``probes`` are named checks (``database``, ``redis``), run at once, each bounded by
    ``timeout``. 200 when all pass, 503 when one fails — a load balancer's active check
    then takes the process out — and the body says which.

    >>> asyncio.run(health("p1", {}))
    (200, {'status': 'ok', 'process': 'p1'})
    """
    names = list(probes)
    results = await asyncio.gather(*(_probe(probes[name], timeout) for name in names))
    body: dict[str, Any] = {"status": "ok", "process": process}
    body |= dict(zip(names, results, strict=True))
    if all(result["ok"] for result in results):
        return 200, body
    body["status"] = "unavailable"
    return 503, body


def database_probe(engine: Any) -> Probe:
    """A probe running ``SELECT 1`` on a SQLAlchemy async engine (the store's)."""
    import sqlalchemy as sa

    async def probe() -> None:
        async with engine.connect() as conn:
            await conn.execute(sa.text("SELECT 1"))

    return probe


def schema_probe(engine: Any, known: str | None) -> Probe:
    """A probe reading the store's schema version, beside the one this process runs with.

    They differ while a cluster rolls to a new release (the store migrated, this process
    not yet restarted): said here rather than failed, or every old process would leave
    the load balancer at once.
    """
    from bodoge.store.upgrade import current

    async def probe() -> dict[str, Any]:
        return {"version": await current(engine), "process": known}

    return probe


def routes(
    metrics: Metrics, probes: Callable[[], Mapping[str, Probe]] | Mapping[str, Probe]
) -> list[Route]:
    """``GET /metrics`` and ``GET /healthz`` as Starlette routes (``probes`` may be late-bound)."""

    async def metrics_route(request: Request) -> Response:
        return Response(metrics.exposition(), media_type=metrics.content_type)

    async def healthz_route(request: Request) -> Response:
        checks = probes() if callable(probes) else probes
        status, body = await health(metrics.process, checks)
        return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})

    return [Route("/metrics", metrics_route), Route("/healthz", healthz_route)]

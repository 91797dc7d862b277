"""/metrics parses as Prometheus text with every figure asked for; /healthz tells the truth."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.ext.asyncio import create_async_engine
from starlette.applications import Starlette

from bodoge.cluster.bus import Bus
from bodoge.cluster.namespace import Namespace
from bodoge.server.edge.metrics import Metrics, Readings, database_probe, health, routes
from bodoge.server.runtime.stats import Counters
from bodoge.store import sqlite_url
from tests.support.services import RedisServer


def parse(text: bytes) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """Every sample by name and labels, through Prometheus's own parser."""
    samples: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(text.decode()):
        for sample in family.samples:
            labels = tuple(sorted(sample.labels.items()))
            samples.setdefault(sample.name, {})[labels] = sample.value
    return samples


def test_the_exposition_parses_and_reads_its_sources_at_each_scrape() -> None:
    state = {"connections": 2, "moves": 10}
    readings = Readings(
        connections=lambda: state["connections"],
        tables_owned=lambda: 4,
        moves=lambda: state["moves"],
        takeovers=lambda: 1,
        redis_reconnects=lambda: 2,
        database_reconnects=lambda: 3,
    )
    metrics = Metrics("host-1-abc", readings)
    for seconds in (0.0004, 0.003, 0.003, 0.2):
        metrics.fanout_seconds.observe(seconds)
    metrics.commit_seconds.observe(0.0015)

    first = parse(metrics.exposition())
    assert first["bodoge_process_info"] == {(("process", "host-1-abc"),): 1}
    assert first["bodoge_connections"][()] == 2
    assert first["bodoge_tables_owned"][()] == 4
    assert first["bodoge_moves_total"][()] == 10
    assert first["bodoge_lease_takeovers_total"][()] == 1
    assert first["bodoge_redis_reconnects_total"][()] == 2
    assert first["bodoge_database_reconnects_total"][()] == 3
    fanout = first["bodoge_move_fanout_seconds_bucket"]
    assert fanout[(("le", "0.0005"),)] == 1
    assert fanout[(("le", "0.005"),)] == 3
    assert fanout[(("le", "+Inf"),)] == 4
    assert first["bodoge_move_fanout_seconds_count"][()] == 4
    assert first["bodoge_move_fanout_seconds_sum"][()] == pytest.approx(0.2064)
    assert first["bodoge_commit_seconds_count"][()] == 1
    assert first["process_resident_memory_bytes"][()] > 0

    state |= {"connections": 5, "moves": 17}
    second = parse(metrics.exposition())
    assert second["bodoge_connections"][()] == 5 and second["bodoge_moves_total"][()] == 17
    assert Metrics("other").registry is not metrics.registry  # two servers, no clash


async def test_health_says_which_process_and_what_it_reaches() -> None:
    async def fine() -> None:
        return None

    async def broken() -> None:
        raise ConnectionRefusedError("connection refused")

    async def hung() -> None:
        await asyncio.sleep(30)

    assert await health("p1", {"database": fine}) == (
        200,
        {"status": "ok", "process": "p1", "database": {"ok": True, "ms": pytest.approx(0, abs=50)}},
    )
    status, body = await health("p1", {"database": fine, "redis": broken})
    assert status == 503 and body["status"] == "unavailable"
    assert body["database"]["ok"] and not body["redis"]["ok"]
    assert "connection refused" in body["redis"]["error"]
    loop = asyncio.get_running_loop()
    began = loop.time()
    status, body = await health("p1", {"database": hung, "redis": fine}, timeout=0.2)
    assert status == 503 and body["database"] == {"ok": False, "error": "no answer within 0.2 s"}
    assert loop.time() - began < 1


@pytest.fixture
async def sqlite_engine(tmp_path: object) -> AsyncIterator[object]:
    engine = create_async_engine(sqlite_url(tmp_path))  # type: ignore[arg-type]
    yield engine
    await engine.dispose()


async def test_the_routes_with_real_probes(
    sqlite_engine: object, redis_server: RedisServer, namespace: Namespace
) -> None:
    bus = Bus(redis_server.url, namespace, "p1")
    await bus.start()
    try:
        probes = {"database": database_probe(sqlite_engine), "redis": bus.ping}
        app = Starlette(routes=routes(Metrics("p1", Readings(moves=lambda: 7)), lambda: probes))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            scraped = await client.get("/metrics")
            assert scraped.status_code == 200
            assert scraped.headers["content-type"].startswith("text/plain")
            assert parse(scraped.content)["bodoge_moves_total"][()] == 7

            ok = await client.get("/healthz")
            assert ok.status_code == 200, ok.text
            assert ok.json()["process"] == "p1" and ok.json()["redis"]["ok"]

            redis_server.stop()
            down = await client.get("/healthz")
            assert down.status_code == 503
            assert down.json()["database"]["ok"] and not down.json()["redis"]["ok"]
    finally:
        await bus.close()


def test_the_quota_counters_are_metrics() -> None:
    counters = Counters()
    for code in ("too_many_decks", "upload_rate_limited", "upload_rate_limited"):
        counters.refused(code)
    counters.uploads_stored, counters.upload_bytes_stored, counters.deck_bytes_kept = 2, 900, 5000
    readings = Readings(
        refusals=counters.refusals,
        uploads=lambda: counters.uploads_stored,
        upload_bytes=lambda: counters.upload_bytes_stored,
        deck_bytes=lambda: counters.deck_bytes_kept,
    )
    samples = parse(Metrics("p1", readings).exposition())
    assert samples["bodoge_refused_total"] == {
        (("code", "too_many_decks"), ("kind", "quota")): 1,
        (("code", "upload_rate_limited"), ("kind", "rate")): 2,
    }
    assert samples["bodoge_uploads_total"][()] == 2
    assert samples["bodoge_upload_bytes_total"][()] == 900
    assert samples["bodoge_deck_bytes"][()] == 5000
    assert "bodoge_refused_total" not in parse(Metrics("p2").exposition())

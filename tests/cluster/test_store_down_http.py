"""While PostgreSQL is down, the HTTP reads answer 503 ``store_unavailable``, as writes do.

The audit: ``GET /api/tables/{id}`` answered 500 with a traceback in the log, ``GET /api/stats``
500 too, and ``GET /api/tables/{id}/history`` dropped the connection. After PostgreSQL is back
the same reads answer again, without a restart, and ``bodoge_database_reconnects_total``
counts the writer finding the database again (it counted only the cluster lease's loop, so a
process whose write had just failed showed 0).
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import httpx

from tests.support.client import Client
from tests.support.live_server import DEFAULT_ARGS, LiveServer
from tests.support.services import PostgresServer

#: Reads that need the database (an id no live table has, so the store is asked).
READS = (
    "api/tables/t_gone1234",
    "api/tables/t_gone1234/history",
    "api/tables?status=finished",
    "api/stats",
    "api/players/p_gone1234",
    "api/leaderboard/tagiron",
)


def test_reads_answer_store_unavailable_while_postgresql_is_down(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    postgres_server.execute("CREATE DATABASE store_down")
    args = (*DEFAULT_ARGS, "--db", postgres_server.url("store_down"))
    with LiveServer(tmp_path, args=args) as server:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            before = {path: http.get(path).status_code for path in READS}
            assert all(code in (200, 404) for code in before.values()), before
            postgres_server.stop()
            try:
                refused = asyncio.run(_hello(server.ws_url))
                assert refused["type"] == "error" and refused["code"] == "store_unavailable"
                for path in READS:
                    answer = http.get(path)
                    assert answer.status_code == 503, (path, answer.status_code, answer.text)
                    assert answer.json()["error"]["code"] == "store_unavailable", path
                    assert answer.headers["retry-after"]
            finally:
                postgres_server.start()
            deadline = time.monotonic() + 30
            while (after := {p: http.get(p).status_code for p in READS}) != before:
                assert time.monotonic() < deadline, after
                time.sleep(0.5)
            welcome = asyncio.run(_hello(server.ws_url))
            assert welcome["type"] == "welcome", welcome
            metrics = http.get("metrics").text
            found = re.search(r"^bodoge_database_reconnects_total (\S+)$", metrics, re.M)
            assert found and float(found.group(1)) == 1.0, metrics
        assert "Traceback" not in server.log(), server.log()


async def _hello(ws_url: str) -> dict[str, object]:
    """A new player's ``hello``: a write (the player is stored before the welcome)."""
    client = await Client.connect(ws_url, name=None)
    try:
        return await client.request("hello", name="Ann", token=None)
    finally:
        await client.close()

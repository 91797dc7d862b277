"""Several ``bodoge serve --db postgresql…`` processes started at the same instant, as
``systemctl enable --now bodoge@8001 bodoge@8002 bodoge@8003`` does: on an empty database
and on stores older releases made, every process comes up, again and again.

(Before migrations, 1 to 3 of 3 came up on an empty database: the others died on
``create_all``'s ``UniqueViolationError … pg_type_typname_nsp_index``.)  One migrates under
the advisory lock; the others wait, find the newest version and serve.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.request
from pathlib import Path

import pytest

from bodoge.store.upgrade import head
from tests.support.databases import PG_ADMIN, REDIS, require
from tests.support.live_server import DEFAULT_ARGS, LiveServer
from tests.support.old_stores import load_release

PROCESSES = 3
ROUNDS = 2


def _healthz(server: LiveServer) -> dict[str, object]:
    with urllib.request.urlopen(server.url + "healthz", timeout=10) as response:
        body: dict[str, object] = json.load(response)
        return body


@pytest.mark.parametrize("store", ["empty", "first", "accounts_before", "today"])
async def test_processes_started_together_all_come_up(store: str, tmp_path: Path) -> None:
    require(PG_ADMIN, 5432, "PostgreSQL")
    require(REDIS, 6379, "Redis")
    for round in range(ROUNDS):
        where = tmp_path / f"round{round}"
        where.mkdir()
        async for url in load_release(store, "postgresql", where):
            args = [
                *DEFAULT_ARGS,
                "--db",
                url,
                "--redis",
                REDIS,
                "--redis-namespace",
                f"test:starts:{where.name}:{id(url)}",
                "--facing-clients",
                "--bot-workers",
                "0",
            ]
            servers = [LiveServer(where / f"p{i}", args=args) for i in range(PROCESSES)]
            try:
                started = await asyncio.gather(
                    *(asyncio.to_thread(server.start, 90) for server in servers),
                    return_exceptions=True,
                )
                failed = [str(s)[-2000:] for s in started if isinstance(s, BaseException)]
                assert not failed, f"round {round}: {len(failed)} did not come up:\n{failed[0]}"
                for server in servers:
                    schema = _healthz(server)["schema"]
                    assert isinstance(schema, dict) and schema["ok"]
                    assert (schema["version"], schema["process"]) == (head(), head())
            finally:
                for server in servers:
                    with contextlib.suppress(Exception):
                        await asyncio.to_thread(server.stop)
            for server in servers:
                assert "Traceback" not in server.log(), server.log()

"""Behind the recommended nginx, the rates an hour are each visitor's, not the whole site's.

The audit followed docs/deploy.md, which never named nginx as a trusted proxy: every visitor
was nginx's address, and after 3 new players from one address (``--new-players-per-hour 3``)
another address's first attempts were refused. Now a cluster process will not start without
``--trusted-proxies`` (or ``--facing-clients``), and with it each visitor has their own
budget: here two visitors, told apart by the address nginx adds to ``X-Forwarded-For``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from bodoge.cluster.namespace import Namespace
from tests.support.live_server import DEFAULT_ARGS, LiveServer
from tests.support.services import NginxServer


async def _hello(ws_url: str, visitor: str) -> dict[str, Any]:
    """A new player's hello from ``visitor`` (what nginx forwards for a browser there)."""
    async with connect(ws_url, additional_headers={"X-Forwarded-For": visitor}) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1, "name": "Ann", "token": None}))
        while True:
            reply = json.loads(await ws.recv())
            if reply.get("id") == 1:
                return reply


async def test_each_visitor_has_their_own_rate_behind_nginx(
    tmp_path: Path,
    database_url: str,
    shared_redis: str,
    namespace: Namespace,
    make_nginx: Callable[[list[int]], NginxServer],
) -> None:
    args = [
        *DEFAULT_ARGS,
        *("--db", database_url, "--redis", shared_redis, "--redis-namespace", namespace.prefix),
        *("--trusted-proxies", "127.0.0.1", "--new-players-per-hour", "3"),
        *("--bot-workers", "0"),
    ]
    processes = []
    try:
        for i in range(2):
            server = LiveServer(tmp_path / f"p{i}", args=args)
            processes.append(await asyncio.to_thread(server.start))
        nginx = make_nginx([p.port for p in processes])
        first = [await _hello(nginx.ws_url, "203.0.113.1") for _ in range(4)]
        assert [r["type"] for r in first] == ["welcome"] * 3 + ["error"], first
        assert first[3]["code"] == "new_player_rate_limited"
        other = await _hello(nginx.ws_url, "203.0.113.2")
        assert other["type"] == "welcome", "another visitor shared the first one's budget"
    finally:
        for server in processes:
            await asyncio.to_thread(server.stop)

"""A cluster run's set-up: nginx in front, a PostgreSQL database of its own, moves lost."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path


def start_nginx(
    folder: Path, urls: list[str], connections: int
) -> tuple[subprocess.Popen[bytes], str]:
    """Debian's nginx as the load balancer over the processes at ``urls`` (ws:// …/ws).

    Configured as the cluster tests configure it (:func:`bodoge.cluster.nginx.standalone_config`,
    round-robin, no sticky sessions); returns the process and the ws:// URL clients use.
    """
    import socket

    from bodoge.cluster.nginx import standalone_config

    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.access(nginx, os.X_OK):
        raise RuntimeError("nginx is not installed (apt-get install nginx-light), or use --direct")
    folder.mkdir(parents=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    upstreams = [re.sub(r"^ws://([^/]+)/.*$", r"\1", url) for url in urls]
    config = folder / "nginx.conf"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        operator = f"127.0.0.1:{s.getsockname()[1]}"
    config.write_text(
        standalone_config(
            upstreams, f"127.0.0.1:{port}", str(folder), max(1024, connections), operator
        )
    )
    log = open(folder / "nginx.log", "ab")  # noqa: SIM115 - the child keeps it
    try:
        process = subprocess.Popen(
            [nginx, "-p", str(folder), "-c", str(config), "-e", str(folder / "error.log")],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    finally:
        log.close()
    deadline = time.monotonic() + 20
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            break
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            text = (folder / "error.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"nginx did not start:\n{text}")
        time.sleep(0.05)
    return process, f"ws://127.0.0.1:{port}/ws"


def lost_moves(
    url: str, acked: list[tuple[str, int, int, float]]
) -> tuple[list[tuple[str, int, int]], dict[tuple[str, int], int]]:
    """The acknowledged moves that the database's history does not hold (by table, n and
    seat), and when each stored move was committed (by table and n)."""
    import sqlalchemy as sa
    from sqlalchemy.ext.asyncio import create_async_engine

    async def read() -> list[tuple[str, int, int | None, int]]:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as conn:
                rows = await conn.execute(sa.text("SELECT table_id, n, seat, at FROM moves"))
                return [(str(t), int(n), seat, int(at)) for t, n, seat, at in rows]
        finally:
            await engine.dispose()

    moves = asyncio.run(read())
    kept = {(t, n, seat) for t, n, seat, _ in moves}
    lost = sorted((t, n, seat) for t, n, seat, _ in acked if (t, n, seat) not in kept)
    return lost, {(t, n): at for t, n, _, at in moves}


def sqlalchemy_url(dsn: str, database: str) -> str:
    """The asyncpg URL of ``database`` on the server of ``dsn``.

    >>> sqlalchemy_url("postgresql://u@h:5432/postgres", "b1")
    'postgresql+asyncpg://u@h:5432/b1'
    """
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(dsn)
    return urlunsplit(("postgresql+asyncpg", parts.netloc, f"/{database}", parts.query, ""))


def _admin(dsn: str, sql: str) -> None:
    import asyncpg

    async def run() -> None:
        conn = await asyncpg.connect(dsn, timeout=10)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run())


def make_database(dsn: str) -> str:
    """A new empty database for a cluster run on the PostgreSQL server of ``dsn``."""
    name = f"bodoge_bench_{os.urandom(5).hex()}"
    _admin(dsn, f'CREATE DATABASE "{name}"')
    return name


def drop_database(dsn: str, name: str) -> None:
    try:
        _admin(dsn, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    except Exception as exc:  # the figures are printed anyway
        print(f"  (dropping the bench's database {name} failed: {exc})", file=sys.stderr)

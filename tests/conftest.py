"""Shared fixtures: a real server process (see ``tests/support/live_server.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.live_server import LiveServer


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for the whole session (per xdist worker); tests must not expect it empty."""
    with LiveServer(tmp_path_factory.mktemp("live-server")) as server:
        yield server


@pytest.fixture
def make_live_server(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    """Start servers of one's own (to kill and restart); all are stopped afterwards."""
    servers: list[LiveServer] = []

    def make(**kwargs: object) -> LiveServer:
        server = LiveServer(tmp_path / f"server-{len(servers)}", **kwargs)  # type: ignore[arg-type]
        servers.append(server)
        return server.start()

    yield make
    for server in servers:
        server.stop()

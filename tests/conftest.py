"""Shared fixtures: a real server process (see ``tests/support/live_server.py``), and a check
that every frame the server sent during a test matched the protocol's JSON Schemas."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support import schema
from tests.support.live_server import LiveServer

# Property tests draw the same examples on every run and never fail on time: CI shares two
# cores with browsers and servers, so a deadline would fail a test for the machine's load,
# and a random draw would make a red run impossible to reproduce.
settings.register_profile("bodoge", derandomize=True, deadline=None, database=None)
settings.load_profile("bodoge")


@pytest.fixture(autouse=True)
def frames_match_the_schemas() -> Iterator[None]:
    """Fail a test during which the server sent a frame its schema does not allow.

    Test clients (``tests/support/client.py``) and browser pages (``tests/e2e``) check
    every frame they receive; see ``tests/support/schema.py``.
    """
    schema.take_violations()
    yield
    violations = schema.take_violations()
    assert not violations, "frames that break docs/schema:\n" + "\n".join(violations[:20])


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

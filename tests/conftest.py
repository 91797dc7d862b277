"""Shared fixtures: a real server process (see ``tests/support/live_server.py``), and a check
that every frame the server sent during a test matched the protocol's JSON Schemas."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import settings

from tests.support import http_schema, schema
from tests.support.live_server import LiveServer

#: Fixtures offered to every test: the SMTP server, the push endpoint and the turn-based
#: servers of tests/support/turn_play.py.
pytest_plugins = ["tests.support.turn_play"]

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


def _checked(response: httpx.Response) -> httpx.Response:
    """Validate an answer that was read (a streamed one is left to its reader)."""
    try:
        content = response.content
    except httpx.ResponseNotRead:
        return response
    request = response.request
    content_type = response.headers.get("content-type", "")
    http_schema.check(request.method, request.url.path, response.status_code, content_type, content)
    return response


@pytest.fixture(scope="session", autouse=True)
def http_answers_match_the_schemas() -> Iterator[None]:
    """Check every answer an ``httpx`` client of a test gets against ``docs/schema/http``
    (:mod:`tests.support.http_schema`); ``frames_match_the_schemas`` fails the test."""
    sync_send, async_send = httpx.Client.send, httpx.AsyncClient.send

    def send(self: httpx.Client, request: httpx.Request, **kwargs: object) -> httpx.Response:
        return _checked(sync_send(self, request, **kwargs))  # type: ignore[arg-type]

    async def asend(
        self: httpx.AsyncClient, request: httpx.Request, **kwargs: object
    ) -> httpx.Response:
        return _checked(await async_send(self, request, **kwargs))  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(httpx.Client, "send", send)
        patch.setattr(httpx.AsyncClient, "send", asend)
        yield


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

"""The Starlette application: the server's routes, gathered from a module per concern.

* :mod:`bodoge.server.pages`: ``/``, ``/t/{table_id}`` and the static files (``/static/…``);
* :mod:`bodoge.server.metrics`: ``/metrics`` and ``/healthz``;
* :mod:`bodoge.server.api`: ``/api/stats``, ``/api/games``, ``/api/tables…``;
* :mod:`bodoge.server.account_api`: ``/api/account…``, ``/api/sign-in…``, ``/api/sign-out…``;
* :mod:`bodoge.server.profiles`: ``/api/players/{id}…`` (profiles) and ``/api/leaderboard/{game}``;
* :mod:`bodoge.server.assets`: pictures, ``/api/games/{game}/assets/…`` and ``/api/decks…``;
* :mod:`bodoge.server.websocket`: ``/ws``.

The lifespan starts the :class:`~bodoge.server.service.Server` and stops it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from starlette.applications import Starlette

from bodoge.server.account_api import account_routes
from bodoge.server.api import api_routes
from bodoge.server.assets import asset_routes
from bodoge.server.collector import COLLECTOR
from bodoge.server.config import ServerConfig
from bodoge.server.metrics import routes as metrics_routes
from bodoge.server.pages import page_routes, static_routes
from bodoge.server.profiles import profile_routes
from bodoge.server.service import Server
from bodoge.server.stats import GC
from bodoge.server.websocket import websocket_routes


def create_app(config: ServerConfig, *, on_ready: Callable[[], None] | None = None) -> Starlette:
    server = Server(config)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await server.start()
        app.state.server = server
        # Keep the collector's long passes away from the tables (bodoge/server/collector.py).
        COLLECTOR.start()
        GC.install()
        if on_ready is not None:
            on_ready()
        try:
            yield
        finally:
            COLLECTOR.stop()
            await server.stop()

    routes = [
        *page_routes(),
        *metrics_routes(server.metrics, server.probes),
        *api_routes(server),
        *account_routes(server),
        *profile_routes(server),
        *asset_routes(server),
        *websocket_routes(server),
        *static_routes(server.games.values()),  # last: /static takes every path below it
    ]
    return Starlette(routes=routes, lifespan=lifespan)

"""The Starlette application: the server's routes, gathered from a module per concern.

* :mod:`bodoge.server.edge.pages`: ``/``, ``/t/{table_id}`` and the static files (``/static/…``);
* :mod:`bodoge.server.edge.metrics`: ``/metrics`` and ``/healthz``;
* :mod:`bodoge.server.edge.api`: ``/api/stats``, ``/api/games``, ``/api/tables…``;
* :mod:`bodoge.server.edge.account_api`: ``/api/account…``, ``/api/sign-in…``, ``/api/sign-out…``;
* :mod:`bodoge.server.edge.notify_api`: notifications (``/api/account/notifications``,
  ``/api/account/email``, ``/api/push/subscriptions``), the pages e-mails link to, and the
  installable page's ``/manifest.webmanifest`` and ``/sw.js``;
* :mod:`bodoge.server.edge.profiles`: ``/api/players/{id}…`` (profiles)
  and ``/api/leaderboard/{game}``;
* :mod:`bodoge.server.edge.assets`: pictures, ``/api/games/{game}/assets/…`` and ``/api/decks…``;
* :mod:`bodoge.server.edge.websocket`: ``/ws``;
* :mod:`bodoge.server.edge.sim_clock`: ``/api/test/clock``, on a test server only.

Every answer carries the headers of :mod:`bodoge.server.edge.headers` (the page policy,
``nosniff``, the referrer policy).  Inside them :class:`~bodoge.server.edge.origins.SameOrigin`
refuses what another site's page makes a browser send.  The lifespan starts the
:class:`~bodoge.server.wiring.Server` and stops it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send

from bodoge.server.edge.account_api import account_routes
from bodoge.server.edge.api import api_routes
from bodoge.server.edge.assets import asset_routes
from bodoge.server.edge.headers import EXCEPTION_HANDLERS, MIDDLEWARE
from bodoge.server.edge.metrics import routes as metrics_routes
from bodoge.server.edge.notify_api import notify_routes
from bodoge.server.edge.origins import SameOrigin
from bodoge.server.edge.pages import page_routes, static_routes
from bodoge.server.edge.profiles import profile_routes
from bodoge.server.edge.puzzles_api import puzzle_routes
from bodoge.server.edge.sim_clock import clock_routes
from bodoge.server.edge.turns_api import turn_routes
from bodoge.server.edge.unavailable import StoreUnavailableAnswers
from bodoge.server.edge.websocket import WebSockets, served_here
from bodoge.server.runtime.config import ServerConfig
from bodoge.server.runtime.stats import GC
from bodoge.server.services.collector import COLLECTOR
from bodoge.server.services.loop_watch import LOOP
from bodoge.server.wiring import Server


class App(Starlette):
    """Starlette, with ``/ws`` served by ``sockets`` ahead of its middleware stack.

    A socket waits for its next frame for most of its life, holding every coroutine on the
    stack of that wait: Starlette's error middleware and the security headers pass a socket
    through untouched, so they are not on it (bodoge/server/edge/websocket.py).
    """

    def __init__(self, *, sockets: ASGIApp, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sockets = sockets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if served_here(scope):
            scope["app"] = self
            await self.sockets(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def create_app(config: ServerConfig, *, on_ready: Callable[[], None] | None = None) -> App:
    server = Server(config)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await server.start()
        app.state.server = server
        # Keep the collector's long passes away from the tables
        # (bodoge/server/services/collector.py).
        COLLECTOR.start(config.gc_sweep_above)
        GC.install()
        # How late the loop runs, and whose the lag is (bodoge/server/services/loop_watch.py).
        LOOP.start()
        if on_ready is not None:
            on_ready()
        try:
            yield
        finally:
            COLLECTOR.stop()
            LOOP.stop()
            await server.stop()

    routes = [
        *page_routes(),
        *metrics_routes(server.metrics, server.probes),
        *api_routes(server),
        *account_routes(server),
        *notify_routes(server),
        *profile_routes(server),
        *turn_routes(server),
        *puzzle_routes(server),
        *clock_routes(server),  # none but on a test server (``--test-clock``)
        *asset_routes(server),
        *static_routes(server.games.values()),  # last: /static takes every path below it
    ]
    # Other sites' pages may not change anything here, nor open a WebSocket (origins.py).
    public, refused = config.public_origins, server.counters.refused
    return App(
        # /ws behind the origin check alone (thousands of sockets wait there, each with what
        # is on its stack: not Starlette's middleware, router and wrappers).
        sockets=SameOrigin(WebSockets(server), public=public, refused=refused),
        routes=routes,
        lifespan=lifespan,
        # Outermost first: the 503 of a database gone away gets the page policy's headers too.
        middleware=[
            *MIDDLEWARE,
            Middleware(SameOrigin, public=public, refused=refused),
            Middleware(StoreUnavailableAnswers),
        ],
        exception_handlers=EXCEPTION_HANDLERS,
    )

"""The server as the HTTP routes see it: what a route module may touch, and nothing more.

The routes (:mod:`~bodoge.server.edge.api`, :mod:`~bodoge.server.edge.account_api`,
:mod:`~bodoge.server.edge.assets`, :mod:`~bodoge.server.edge.profiles`,
:mod:`~bodoge.server.edge.websocket`) are given the wiring's
:class:`~bodoge.server.wiring.Server`, which stands above the edge; they name this
protocol instead, so the edge imports nothing above it and the list below is the whole of
what they use.  Read-only properties: the wiring's plain attributes satisfy them.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from bodoge.core.game import Game
from bodoge.core.values import JSON
from bodoge.server.runtime.config import ServerConfig
from bodoge.server.runtime.lobby import Lobby
from bodoge.server.runtime.stats import Counters
from bodoge.server.runtime.tables import Tables
from bodoge.server.services.accounts import Accounts
from bodoge.server.services.bots import BotRunner
from bodoge.server.services.identity import Players
from bodoge.server.services.notify import Notifier
from bodoge.server.services.puzzles import Puzzles
from bodoge.server.services.quotas import Buckets
from bodoge.store import Store

if TYPE_CHECKING:
    from bodoge.server.edge.connection import Connection, Transport


class Server(Protocol):
    """What the routes use of :class:`bodoge.server.wiring.Server`."""

    @property
    def config(self) -> ServerConfig: ...
    @property
    def games(self) -> Mapping[str, Game[Any, Any, Any]]: ...
    @property
    def store(self) -> Store: ...
    @property
    def players(self) -> Players: ...
    @property
    def accounts(self) -> Accounts: ...
    @property
    def tables(self) -> Tables: ...
    @property
    def lobby(self) -> Lobby: ...
    @property
    def bots(self) -> BotRunner: ...
    @property
    def notifier(self) -> Notifier: ...
    @property
    def puzzles(self) -> Puzzles: ...
    @property
    def counters(self) -> Counters: ...
    #: Uploads of picture sets, per player.
    @property
    def uploads(self) -> Buckets: ...
    #: Megapixels of uploaded pictures decoded, per player.
    @property
    def upload_pixels(self) -> Buckets: ...
    #: Reviews worked out, by table, and those being worked out.
    @property
    def reviews(self) -> OrderedDict[str, dict[str, JSON]]: ...
    @property
    def reviews_running(self) -> dict[str, asyncio.Future[dict[str, JSON] | None]]: ...

    async def count_decks(self) -> None: ...

    def connect(
        self, transport: Transport, address: str | None = None, user_agent: str | None = None
    ) -> Connection: ...

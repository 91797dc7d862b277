"""What the table runtime needs of the services around it, as narrow ports the wiring fills
(``bodoge/server/wiring.py``): so the runtime imports nothing above it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from bodoge.core.game import Seat
from bodoge.core.values import JSON
from bodoge.server.runtime.players import Player
from bodoge.store import (
    PictureStore,
    PlayerRecord,
    TableReader,
    TablesStore,
    TableStore,
    TurnStore,
)


class LiveTableStore(TableStore, TableReader, Protocol):
    """What a live table writes (its history, as it happens) and a mirror reads back."""


class RuntimeStore(LiveTableStore, TablesStore, PictureStore, TurnStore, Protocol):
    """What the table runtime needs of the store: its tables', the decks a new one names, and
    turn-based play's vacations and the tables a person sits at (its quota)."""


class BotPort(Protocol):
    """Bots' moves, thought out off the event loop (``services.bots.BotRunner``)."""

    async def act(
        self,
        game_id: str,
        level: str,
        view: Mapping[str, JSON],
        seat: Seat,
        seed: int,
        *,
        stand_in: bool = False,
    ) -> dict[str, JSON] | None: ...


class QuotaPort(Protocol):
    """A rate per key (``services.quotas.Buckets``): the new tables a player may make."""

    async def try_take(self, key: str) -> int:
        """0 if a token was taken, else the seconds until the next one."""
        ...

    def give_back(self, key: str) -> None: ...


class PlayerBook(Protocol):
    """The players held in memory (``services.identity.Players``)."""

    def get(self, player_id: str) -> Player | None: ...

    def remember(self, record: PlayerRecord) -> Player: ...

    def hold(self, player_id: str, name: str) -> Player: ...


class NoQuota:
    """No limit (tests and tools that make tables freely)."""

    async def try_take(self, key: str) -> int:
        return 0

    def give_back(self, key: str) -> None:
        pass

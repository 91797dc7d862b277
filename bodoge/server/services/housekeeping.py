"""What the server removes by itself, now and then: guests who left no trace, and
uploaded decks no table uses; the rated games whose ratings are still to count; and
the statistics of games that finished before statistics were kept (replayed once).

Every ``hello`` without a token makes a player, kept in the store so that the
token works next time.  Most never sit down.  A *guest* — a player with no seat
at any table (nor one they left), hosting none, with no chat line — who has not
said hello for ``Quotas.guest_seconds`` is deleted, unless a connection or a
live table holds them right now; their token then gets ``bad_token`` and the
browser makes a new player, as after a wiped server.

An uploaded deck (a set of pictures) is kept while tables name it: a table
notes the sets its options name when it is created, and each sweep notes those
of every waiting and playing table.  A set no table has named for
``Quotas.deck_unused_seconds`` is deleted; the replay of a table that finished
long ago then shows no pictures.

An account's sign-in unused for ``Quotas.session_seconds`` has expired (its token is
refused already); the sweep deletes it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any, Protocol

from bodoge.core.game import Game
from bodoge.server.runtime.config import ServerConfig
from bodoge.server.runtime.protocol import now_ms
from bodoge.server.runtime.stats import Counters
from bodoge.server.runtime.tables import Tables
from bodoge.server.services.decks import named_sets
from bodoge.server.services.identity import Players
from bodoge.server.services.ratings import Ratings
from bodoge.server.services.statistics import fill_in
from bodoge.store import Store

log = logging.getLogger(__name__)

#: Guests deleted in one go (the next go comes at once while there are more).
BATCH = 500


class Server(Protocol):
    """What the housekeeping uses of :class:`bodoge.server.wiring.Server` (which stands above
    the services, so it is named here by what it offers, not imported)."""

    @property
    def config(self) -> ServerConfig: ...
    @property
    def games(self) -> Mapping[str, Game[Any, Any, Any]]: ...
    @property
    def store(self) -> Store: ...
    @property
    def players(self) -> Players: ...
    @property
    def tables(self) -> Tables: ...
    @property
    def ratings(self) -> Ratings: ...
    @property
    def counters(self) -> Counters: ...

    async def count_decks(self) -> None: ...


async def remove_idle_guests(server: Server) -> int:
    """Delete the guests unseen for ``guest_seconds``; how many were deleted."""
    seconds = server.config.quotas.guest_seconds
    if not seconds:
        return 0
    before = now_ms() - round(seconds * 1000)
    removed = 0
    while True:
        found = await server.store.guests(before, BATCH)
        idle = [p.id for p in found if server.players.get(p.id) is None]
        if idle:
            gone = await server.store.delete_guests(idle, before)
            removed += gone
            server.counters.guests_removed += gone
        if len(found) < BATCH or not idle:
            return removed


async def remove_expired_sessions(server: Server) -> int:
    """Delete the accounts' sign-ins unused for ``session_seconds`` (refused already: the
    store forgets them); how many were deleted."""
    return await server.store.delete_expired_sessions(server.players.used_since())


async def remove_unused_decks(server: Server) -> int:
    """Delete the uploaded decks no table has named for ``deck_unused_seconds``; how many."""
    seconds = server.config.quotas.deck_unused_seconds
    if not seconds:
        return 0
    now = now_ms()
    in_use: set[str] = set()
    for table in server.tables.live.values():
        if table.status != "finished":
            in_use |= named_sets(table.options_json)
    await server.store.use_picture_sets(in_use, now)
    before = now - round(seconds * 1000)
    removed = 0
    while True:
        found = await server.store.unused_picture_sets(before, BATCH)
        unused = [set_id for set_id in found if set_id not in in_use]
        if unused:
            gone = await server.store.delete_picture_sets(unused, before)
            removed += gone
            server.counters.decks_removed += gone
        if len(found) < BATCH or not unused:
            await server.count_decks()
            return removed


async def settle_ratings(server: Server) -> int:
    """Update the ratings of rated games that ended but are not counted yet (the server
    stopped between the two, or the store could not write then): each exactly once."""
    return await server.ratings.settle_pending()


async def fill_statistics(server: Server) -> int:
    """Store the statistics of older games, replayed (see
    :func:`~bodoge.server.services.statistics.fill_in`)."""
    return await fill_in(server.store, server.games)


async def clean_up(server: Server) -> None:
    """Remove idle guests and unused decks, count rated games left pending and fill in
    the statistics of older games, at the start and every ``cleanup_seconds`` while the
    server runs."""
    while True:
        # Decks first: a guest who uploaded is no guest until their decks are gone.
        jobs = (
            settle_ratings,
            fill_statistics,
            remove_unused_decks,
            remove_idle_guests,
            remove_expired_sessions,
        )
        for job in jobs:
            try:
                removed = await job(server)
                if removed:
                    log.info("%s: %d", job.__name__, removed)
            except Exception:
                log.exception("%s failed", job.__name__)
        await asyncio.sleep(server.config.quotas.cleanup_seconds)

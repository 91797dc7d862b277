"""What the server removes by itself, now and then: guests who left no trace.

Every ``hello`` without a token makes a player, kept in the store so that the
token works next time.  Most never sit down.  A *guest* — a player with no seat
at any table (nor one they left), hosting none, with no chat line — who has not
said hello for ``Quotas.guest_seconds`` is deleted, unless a connection or a
live table holds them right now; their token then gets ``bad_token`` and the
browser makes a new player, as after a wiped server.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from bodoge.server.protocol import now_ms

if TYPE_CHECKING:
    from bodoge.server.service import Server

log = logging.getLogger(__name__)

#: Guests deleted in one go (the next go comes at once while there are more).
BATCH = 500


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


async def clean_up(server: Server) -> None:
    """Remove idle guests every ``cleanup_seconds``, for as long as the server runs."""
    while True:
        try:
            removed = await remove_idle_guests(server)
            if removed:
                log.info("removed %d idle guests", removed)
        except Exception:
            log.exception("removing idle guests failed")
        await asyncio.sleep(server.config.quotas.cleanup_seconds)

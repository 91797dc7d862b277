"""When a live table leaves memory: once nobody needs it there, after a while.

A finished table nobody watches, a running one nobody watches with nothing to run (no turn
limit, clock or bot), a waiting one none of whose seated players is connected: the store
has them all, so memory need not.  The table is loaded again, from its history, when
someone opens it.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING

from bodoge.server.runtime.inbox import TableGone

if TYPE_CHECKING:
    from bodoge.server.runtime.table import LiveTable


class Idle:
    """One table's countdown to leaving memory, restarted whenever it is needed again."""

    def __init__(self, table: LiveTable) -> None:
        # Weakly: a table that leaves memory is freed at once, with no cycle through here.
        self._table = weakref.ref(table)
        self._handle: asyncio.TimerHandle | None = None
        #: Loop time since which the table has not been needed in memory.
        self._since: float | None = None

    @property
    def table(self) -> LiveTable:
        table = self._table()
        if table is None:
            raise TableGone(f"{type(self).__name__}: the table left memory")
        return table

    def quiet_seconds(self) -> float | None:
        """How long the table may sit unneeded in memory, or ``None`` while it is needed."""
        table = self.table
        if table.busy:
            return None
        config = table.host.config
        if table.status == "waiting":
            present = any(table.present(s.player) for s in table.seats if s.player)
            if present:
                return None
            # Friends join a game played over days at any hour: its waiting table waits longer.
            if table.settings.turn_based is not None:
                return config.turn_waiting_seconds
            return config.waiting_seconds
        if table.watchers():
            return None
        if table.status == "finished":
            return config.idle_seconds
        return None if self._scheduled() else config.unwatched_seconds

    def _scheduled(self) -> bool:
        """Whether something will move this running table by itself: a timer or a bot."""
        table = self.table
        if table.deadlines or table.clock_deadline is not None:
            return True
        return any(table.seats[s].kind == "bot" for s in table.game.may_act(table.state))

    def note(self) -> None:
        """After each command: start the countdown when the table became unneeded."""
        if self.quiet_seconds() is None:
            self._since = None
        elif self._since is None:
            self._since = asyncio.get_running_loop().time()
            self._wake_in(self.quiet_seconds() or 0.0)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()

    def _wake_in(self, delay: float) -> None:
        self.cancel()
        self._handle = asyncio.get_running_loop().call_later(
            delay, self.table.post, self._leave_if_quiet
        )

    async def _leave_if_quiet(self) -> None:
        self._handle = None
        table = self.table
        quiet = self.quiet_seconds()
        if quiet is None or self._since is None:
            return
        left = self._since + quiet - asyncio.get_running_loop().time()
        if left > 0:  # busy, then quiet again since the countdown began
            self._wake_in(left)
            return
        await table.leave_memory()

"""The bots of one live table: which seat is asked for a move and when, at the table's pace,
and their answers played in the table's task (a race held for the reaction window)."""

from __future__ import annotations

import logging
import random
import weakref
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING

from bodoge.core.errors import GameError
from bodoge.core.game import Move, Seat
from bodoge.core.rng import derive_seed
from bodoge.core.values import JSON
from bodoge.server.runtime.clock import clock
from bodoge.server.runtime.inbox import TableGone
from bodoge.server.runtime.pace import TURN, Pace
from bodoge.server.runtime.protocol import now_ms
from bodoge.store import Fenced
from bodoge.store.records import Actor

if TYPE_CHECKING:
    from bodoge.server.runtime.table import LiveTable

log = logging.getLogger(__name__)

#: The source of bots' think times: the server's own, apart from every game's seed. One for
#: all tables: a generator's state is 2.5 KiB, more than the rest of a table's bots.
THINK_TIMES = random.Random()


class TableBots:
    """Asks a table's bot seats (and the timeout bot of a late seat) for their moves."""

    def __init__(self, table: LiveTable) -> None:
        # Weakly: a table that leaves memory is freed at once, with no cycle through here.
        self._table = weakref.ref(table)
        #: Seat -> move number a bot is thinking about, so each is asked once per move.
        self.asked: dict[Seat, int] = {}
        #: Seat -> move number whose turn limit ran out (its timeout bot asked once).
        self.timeout_asked: dict[Seat, int] = {}

    @property
    def table(self) -> LiveTable:
        table = self._table()
        if table is None:
            raise TableGone(f"{type(self).__name__}: the table left memory")
        return table

    def ask(self) -> None:
        """Ask every bot seat that may act now (awaited seats first) for its move."""
        table = self.table
        if table.status != "playing":
            return
        to_act = table.game.to_act(table.state)
        may_act = table.game.may_act(table.state)
        for seat in sorted(may_act, key=lambda s: (s not in to_act, s)):
            s = table.seats[seat]
            if s.kind == "bot" and self.asked.get(seat) != table.n:
                self.asked[seat] = table.n
                self.think(seat, s.level, "bot")

    def time_out(self, seat: Seat) -> None:
        """The seat's turn limit ran out: its timeout bot plays for it (once per move)."""
        table = self.table
        if self.timeout_asked.get(seat) != table.n:
            self.timeout_asked[seat] = table.n
            self.think(seat, table.settings.timeout_bot, "timeout")

    def think(self, seat: Seat, level: str | None, actor: Actor) -> None:
        table = self.table
        if level is None:
            return
        view = table.game.view(table.state, seat)
        n = table.n
        # A late turn's bot, or the bot in the seat of a person who left, stands in for a
        # person: it keeps the table going and wins them nothing (``Game.stand_in``).
        stand_in = actor == "timeout" or table.seats[seat].left is not None
        seed = derive_seed(table.seed, "bot", n, seat)
        # A late turn is played at once; a bot seat thinks at the table's pace.  The think
        # time comes from the server's own random source, never from the game's seed.  Out of
        # turn, where the reaction window holds a race anyway, a bot thinks at once: so it is
        # not asked again and again while the table moves faster than it thinks.
        delay = 0.0
        awaited = seat in table.game.to_act(table.state)
        if actor == "bot" and (awaited or not self.holds_races()):
            delay = self.pace().think_seconds(level, THINK_TIMES)

        async def think() -> None:
            try:
                if delay:
                    await clock().sleep(delay)
                    if table.n != n:
                        return  # the table moved on meanwhile; the bot has been asked again
                move = await table.host.bot_move(
                    table.game.id, level, view, seat, seed, stand_in=stand_in
                )
            except Exception:
                log.exception("table %s: the %s bot for seat %d failed", table.id, level, seat)
                return
            table.post(self.answer, seat, n, move, actor)

        table.host.spawn(think())

    async def answer(
        self, seat: Seat, n: int, data: Mapping[str, JSON] | None, actor: Actor
    ) -> None:
        """A bot's answer, in the table's task: played unless the table moved on."""
        table = self.table
        if table.status != "playing" or table.n != n:
            return  # the table moved on while the bot thought; it has been asked again
        kind = table.seats[seat].kind
        if (actor == "bot") != (kind == "bot"):
            return  # the seat changed hands meanwhile
        if data is None:
            if seat in table.game.to_act(table.state):
                log.error("table %s: the bot for seat %d passed its turn", table.id, seat)
            return
        try:
            move = table.game.move_from_json(data)
            if seat not in table.game.may_act(table.state):
                return
            if actor == "bot" and (wait := self.reaction_wait(seat, move)) > 0:
                # A race a person may be about to win: hold it (the table may move on).
                at = now_ms() + round(wait * 1000)
                clock().call_at(at, partial(table.post, self.answer, seat, n, data, actor))
                return
            await table.commit(seat, move, actor)
        except GameError as exc:
            log.error("table %s: bot move %r for seat %d refused: %s", table.id, data, seat, exc)
        except Fenced:  # another process runs the table now: it is being let go
            pass
        except Exception:
            # The store failed: nothing changed, so ask again in a moment rather than stall.
            log.exception("table %s: storing a bot move failed", table.id)
            self.asked.pop(seat, None)
            self.timeout_asked.pop(seat, None)
            table.retry_soon()

    def pace(self) -> Pace:
        """The table's pace: its ``bot_pace``, or at a turn-based table the ``turn`` pace."""
        settings = self.table.settings
        return self.table.host.config.pace(TURN if settings.turn_based else settings.bot_pace)

    def window_seconds(self) -> float:
        """The reaction window: at a turn-based table a whole time per move, so that a
        person who looks at the game once within their time is never beaten to a race."""
        turn_based = self.table.settings.turn_based
        if turn_based is not None and self.table.host.config.bot_delay is None:
            return float(turn_based)
        return self.pace().reaction_seconds

    def holds_races(self) -> bool:
        """Whether bots hold races for a reaction window here: a person sits, the pace has one."""
        return self.window_seconds() > 0 and bool(self.table.seating.humans())

    def reaction_wait(self, seat: Seat, move: Move) -> float:
        """Seconds a bot still holds ``move``: the reaction window after the last move.

        Only a contested move (``Game.contested``) at a table where a person sits
        is held.  The window runs from the last move — the one that made the bot
        sure, or a later one — so nobody is beaten to it sooner than the window
        after what made it sure.  When the table moves on meanwhile, the held
        answer is dropped, the bot (asked again) comes up with it again, and the
        window starts again: a bot wins a race out of turn only when the table
        has been quiet for the window, and in turn always (the table waits for it).
        """
        table = self.table
        if not self.holds_races() or not table.game.contested(table.state, seat, move):
            return 0.0
        last = table.steps[-1].at if table.steps else table.started_at or 0
        return (last + self.window_seconds() * 1000 - now_ms()) / 1000

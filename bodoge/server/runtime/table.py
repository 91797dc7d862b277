"""One live table: its seats, its game and the one task that changes them.

Every change to a table (a seat taken, a move, a timer running out, a bot's
answer, a tab opening it) is a command queued to the table's task, its
:class:`~bodoge.server.runtime.inbox.Inbox`, which runs them one at a time.  So moves
are applied strictly in order, a move is numbered ``n`` only once it is
committed, and the messages a change causes go out, in order, before the task
looks at the next command.

A command writes to the store first and changes memory only once the write
is committed: when the store refuses, the table is as it was.  What the table
shows is :class:`~bodoge.server.runtime.shown.ShownTable`'s; its bots are
:class:`~bodoge.server.runtime.table_bots.TableBots`; when it leaves memory is
:mod:`bodoge.server.runtime.idle`'s.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Collection, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from bodoge.core.errors import GameError, GameFinished, NotYourTurn
from bodoge.core.game import EndReason, Game, Move, Result, Seat
from bodoge.core.values import JSON
from bodoge.server.runtime import render
from bodoge.server.runtime.fanout import Subscriber
from bodoge.server.runtime.idle import Idle
from bodoge.server.runtime.notify import Final, Standing
from bodoge.server.runtime.protocol import ProtocolError, now_ms
from bodoge.server.runtime.render import Step
from bodoge.server.runtime.settings import changed_options, parse_settings
from bodoge.server.runtime.shown import Reply, ShownHost, ShownTable, send
from bodoge.server.runtime.table_bots import TableBots
from bodoge.server.runtime.timers import Alarm, next_clock_deadline, next_deadlines
from bodoge.server.runtime.turns import absent_seats
from bodoge.store import (
    Fenced,
    MoveRecord,
    SeatRecord,
    StoreUnavailable,
    TableRecord,
    Timers,
)
from bodoge.store.records import Actor, TableStatus

if TYPE_CHECKING:
    from bodoge.server.runtime.notify import TurnNotifier
    from bodoge.server.runtime.players import Player
    from bodoge.server.runtime.ports import LiveTableStore
    from bodoge.server.runtime.reach import Publisher
    from bodoge.server.runtime.stats import Counters

__all__ = ["MOVED", "LiveTable", "Reply", "TableHost", "seat_statistics"]

log = logging.getLogger(__name__)

#: The close code of a table's watchers when another process took the table (cluster).
MOVED = 1012


def seat_statistics(game: Game[Any, Any, Any], state: Any, seats: int) -> list[dict[str, int]]:
    """Every seat's counts in the game as ``state`` has it."""
    return [game.statistics(state, seat) for seat in range(seats)]


class TableHost(ShownHost, Protocol):
    """What a live table needs of the server around it
    (:class:`~bodoge.server.runtime.tables.Tables`).

    A table reads its limits from ``config``, writes its history to ``store``
    and counts its moves in ``counters``; everything else it asks of the server
    is one of these methods.
    """

    @property
    def store(self) -> LiveTableStore: ...

    @property
    def counters(self) -> Counters: ...

    @property
    def publisher(self) -> Publisher:
        """Who hears what the table changed (in one process, nobody)."""
        ...

    def player(self, player_id: str) -> Player | None:
        """The player, if something (a connection, a table) holds it in memory."""

    def online(self, player_id: str) -> bool:
        """Whether the player is connected to this server (any page, not only the table's)."""

    def show_in_lobby(self, table: LiveTable) -> None:
        """The table's summary changed: the lobby shows it again (drops it once finished)."""

    def remove_from_lobby(self, table_id: str) -> None:
        """The lobby stops showing the table (deleted, or out of memory while it runs)."""

    def forget(self, table: LiveTable) -> None:
        """The table left memory: whoever needs it again loads it from the store."""

    async def bot_move(
        self,
        game_id: str,
        level: str,
        view: Mapping[str, JSON],
        seat: Seat,
        seed: int,
        *,
        stand_in: bool = False,
    ) -> dict[str, JSON] | None:
        """A bot's move for ``seat`` (``None``: it has none), thought out off the event loop;
        a ``stand_in`` plays for an absent person only what ``Game.stand_in`` lets it."""

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a background job (a bot thinking) that the table's task does not wait for."""

    def known(self, player_id: str, name: str) -> Player:
        """A player another process told of, held in memory while the table holds it."""

    def rated_game_ended(self, table_id: str) -> None:
        """A rated game's result is stored: update the ratings (once, whatever happens)."""

    @property
    def notifier(self) -> TurnNotifier:
        """Who tells people of their turns at turn-based tables (``runtime/notify.py``)."""
        ...

    async def away_until(self, player_ids: Collection[str], now: int) -> dict[str, int]:
        """Of these players, those on vacation at ``now``: until when."""
        ...

    async def check_turn_based_quota(self, player_id: str) -> None:
        """Refuse (``too_many_turn_tables``) a player who already sits at as many open
        turn-based tables as one may."""
        ...

    async def rematch(self, table: LiveTable, player_id: str, seat: Seat) -> str:
        """A new waiting table like ``table`` (game, options, settings, its bots in their
        seats; a new seed), the player in ``seat``: its id."""


class LiveTable(ShownTable):
    """A table this process runs.  Use :meth:`call` (or :meth:`post`) for everything that
    changes it."""

    host: TableHost

    def __init__(
        self,
        host: TableHost,
        game: Game[Any, Any, Any],
        record: TableRecord,
        seats: Sequence[SeatRecord],
    ) -> None:
        super().__init__(host, game, record, seats)
        #: Since when nobody has watched this running game (ms), as the store has it.
        self.watched_at: int | None = record.unwatched_at
        self._alarm = Alarm(lambda: self.post(self._on_alarm))
        self.bots = TableBots(self)
        self.idle = Idle(self)
        #: Who watches the table through each other process (a cluster's mirrors), as they
        #: last said: the players connected there, and how many tabs.
        self._remote_players: dict[str, frozenset[str]] = {}
        self._remote_watchers: dict[str, int] = {}
        #: The ``online`` the lobby and the mirrors were last told.
        self._online_told = 0
        #: Taken over (cluster): until this fires, who has the table open through the other
        #: processes may not be known yet (see :meth:`await_presence`).
        self._presence_due: asyncio.TimerHandle | None = None

    # --- the task ---------------------------------------------------------------

    def start(self) -> None:
        super().start()
        # Resume timers and bots; for a finished table this starts its idle countdown.
        self.post(self._resume)

    async def _resume(self) -> None:
        self.host.publisher.facts_changed(self, notify=False)  # mirrors learn who runs it
        if self.status == "playing":
            self._arm()
            self.bots.ask()
            await self._watched()

    def _after_each(self) -> None:
        self.idle.note()

    # --- leaving memory (bodoge.server.runtime.idle says when) -------------------------

    @property
    def busy(self) -> bool:
        """Whether commands are queued (or the table has left memory already)."""
        return bool(self._inbox.queued) or self._inbox.closed

    @property
    def at_work(self) -> bool:
        """Whether a command is running or queued (a test clock waits until none is)."""
        return self._inbox.running or bool(self._inbox.queued)

    async def leave_memory(self) -> None:
        """Nobody needs the table here: a waiting one is deleted, the others stay stored."""
        if self.status == "waiting":
            await self._delete()
            return
        if self.status == "playing":
            self.host.remove_from_lobby(self.id)
        self._close()

    async def _delete(self) -> None:
        """A waiting table nobody will play any more: gone from the store and the lobby."""
        await self.host.store.delete_table(self.id)
        self.audience.send_all({"type": "table.removed", "table": self.id})
        self.host.publisher.removed(self)
        self.host.remove_from_lobby(self.id)
        self._close()

    def _close(self) -> None:
        """Leave memory: the store keeps the table; pending callers look it up again."""
        self._presence_known_now()
        self._alarm.close()
        self.idle.cancel()
        self.host.forget(self)
        self._inbox.close()

    async def let_go(self) -> None:
        """Another process runs this table now (cluster): leave memory, drop its watchers.

        They reconnect (close 1012) and open the table again where it runs.
        """
        for sub, _ in self.audience:
            sub.kick(MOVED, flush=True)
        self._close()

    def stop(self) -> None:
        """Shut down with the server (the store keeps everything)."""
        self._presence_known_now()
        self._inbox.stop()
        self._alarm.cancel()
        self.idle.cancel()

    # --- who is where, here and through other processes ---------------------------------

    def present(self, player_id: str | None) -> bool:
        """Whether the player has the table open, here or (cluster) through another process."""
        if player_id is None:
            return False
        if self.audience.present(player_id):
            return True
        return any(player_id in players for players in self._remote_players.values())

    def watchers(self) -> int:
        """Tabs that have the table open, here and (cluster) through other processes."""
        return len(self.audience) + sum(self._remote_watchers.values())

    def online(self) -> int:
        """People who have the table open, here and (cluster) through other processes."""
        if not self._remote_players:
            return self.audience.people
        people = set(self.audience.player_ids())
        for players in self._remote_players.values():
            people |= players
        return len(people)

    @property
    def listed(self) -> bool:
        """Whether the lobby lists the table: only one somebody can join or watch.

        A running game may be watched; a waiting table while a seat is free (anyone
        may join and start it) or one of its people is connected to start it.  A full
        waiting table whose people are all gone is not listed (it is deleted after
        ``waiting_seconds``), nor is a finished one.
        """
        if self.status == "playing":
            return True
        if self.status != "waiting":
            return False
        # ``present``: through any process of a cluster, whichever runs the table.
        return (
            not self.seating.full
            or self._presence_due is not None
            or any(
                self.present(s.player) or self.host.online(s.player) for s in self.seats if s.player
            )
        )

    def await_presence(self, seconds: float) -> None:
        """This process has just taken the table over (cluster): the processes its people
        have it open through tell it so within moments (their mirrors answer its first
        publication).  Until then, or ``seconds``, a full waiting table stays listed, rather
        than leave every lobby and come back."""
        if self.status == "waiting" and self._presence_due is None:
            loop = asyncio.get_running_loop()
            self._presence_due = loop.call_later(seconds, self.post, self._presence_known)

    async def _presence_known(self) -> None:
        self._presence_due = None
        if self.status == "waiting":
            self.host.show_in_lobby(self)  # or off the list, if nobody came

    def _presence_known_now(self) -> None:
        if self._presence_due is not None:
            self._presence_due.cancel()
            self._presence_due = None

    def _seats_changed(self) -> None:
        self._summary = None
        self._online_told = self.online()
        self.audience.send_all(self._seats_message())
        self.host.show_in_lobby(self)
        self.host.publisher.facts_changed(self, notify=True)

    def _online_changed(self) -> None:
        """Someone opened or closed the table: the lobby and the mirrors learn how many people
        have it open now (a seated player's coming or going told it already)."""
        online = self.online()
        if online == self._online_told:
            return
        self._online_told = online
        if self.listed:
            self.host.show_in_lobby(self)
        self.host.publisher.facts_changed(self, notify=False)

    def _facts_changed(self) -> None:
        """Timers changed without a move: the mirrors learn them (the next move's frame tells
        its facts that differ from the last move's, which differ from these too)."""
        self.host.publisher.facts_changed(self, notify=False)

    async def remote_watch(self, process: str, players: frozenset[str], watchers: int) -> None:
        """Another process's mirror says who watches the table there."""
        before = {s.player for s in self.seats if s.player and self.present(s.player)}
        if watchers:
            self._remote_players[process] = players
            self._remote_watchers[process] = watchers
        else:
            self._remote_players.pop(process, None)
            self._remote_watchers.pop(process, None)
        after = {s.player for s in self.seats if s.player and self.present(s.player)}
        if before != after:
            self._seats_changed()
        await self._watched()

    async def forget_processes(self, live: frozenset[str]) -> None:
        """Processes no longer in the cluster watch nothing (their presence is dropped)."""
        gone = [p for p in self._remote_watchers if p not in live]
        for process in gone:
            await self.remote_watch(process, frozenset(), 0)

    @property
    def remote_processes(self) -> set[str]:
        return set(self._remote_watchers)

    # --- connections ------------------------------------------------------------------

    async def adopt(self, subs: list[Subscriber], since: int, chat_since: int) -> None:
        """Connections that watched this table through a mirror here (this process has just
        taken it over): they watch it directly now, after the events they had not seen."""
        limits = self.host.config.limits
        arrived = False
        for sub in subs:
            seat = self.seat_of(sub.player_id) if sub.player_id else None
            if since > self.n or self.n - since > limits.catch_up:
                send(sub, self.snapshot(seat))
            elif since < self.n:
                for frame in render.catch_up(
                    self.game, self.id, self.replay(), since, seat, len(self.seats)
                ):
                    send(sub, frame)
            for line in self.chat.since(chat_since):
                send(sub, line.to_json(self.id))
            arrived = self.audience.add(sub, seat) or arrived
        if arrived:
            self._seats_changed()
        await self._watched()

    async def refresh_seats(self) -> None:
        """Show the seats again (a seated player renamed themselves)."""
        self._seats_changed()

    # --- a game nobody comes back to ------------------------------------------------------
    async def _watched(self) -> None:
        """Keep the store's record of since when nobody has watched this running game."""
        self._online_changed()
        if self.status != "playing":
            return
        unwatched = None if self.watchers() else now_ms()
        if (unwatched is None) != (self.watched_at is None):
            try:
                await self.host.store.set_unwatched(self.id, unwatched)
            except Fenced:  # another process runs the table now: it is being let go
                return
            except StoreUnavailable as exc:  # bookkeeping only: tried again at the next change
                log.warning("table %s: storing when it was last watched failed: %s", self.id, exc)
                return
            except Exception:  # bookkeeping only: tried again at the next change
                log.exception("table %s: storing when it was last watched failed", self.id)
                return
            self.watched_at = unwatched

    async def abandon(self) -> None:
        """End a running game nobody has watched for ``abandon_seconds``: recorded as abandoned.

        Nobody places: ``{"places": [null, …], "reason": "abandoned", "winners": []}``.
        """
        if self.status != "playing":
            return
        if self.settings.turn_based is not None:
            # Days unwatched are a turn-based game's way: it is abandoned only once no person
            # has moved for turn_abandon_seconds.
            moved = [st.at for st in self.steps if st.actor == "player"]
            since = moved[-1] if moved else self.started_at or 0
            if now_ms() - since < self.host.config.turn_abandon_seconds * 1000:
                return
        elif self.watchers():
            return
        await self._end_abandoned()

    async def _end_abandoned(self) -> None:
        now = now_ms()
        ended = Result((None,) * len(self.seats), EndReason.ABANDONED).to_json()
        counts = seat_statistics(self.game, self.state, len(self.seats))
        await self.host.store.end_table(self.id, now, ended, counts)
        self.status, self.finished_at, self.ended = "finished", now, ended
        self.deadlines, self.clock, self.clock_deadline = {}, None, None
        self._alarm.cancel()
        self._facts_changed()
        self._seats_changed()
        self._notify_end(ended)

    async def join(self, player_id: str, seat: Seat | None, reply: Reply) -> None:
        self._need_status("waiting")
        if player_id in self.removed:
            raise ProtocolError("removed", "the host removed you from this table")
        if self.settings.turn_based is not None and self.seat_of(player_id) is None:
            await self.host.check_turn_based_quota(player_id)
        seating, seat = self.seating.join(player_id, seat)
        await self.host.store.save_seats(self.id, seating.seats, seating.host)
        player = self.host.player(player_id)  # held by the connection that asks
        if player is not None:
            self.people[player_id] = player
        self.seating = seating
        self.audience.reseat(player_id, seat)
        self._seats_changed()
        reply({"type": "ack", "table": self.id, "seat": seat})

    async def leave(self, player_id: str, reply: Reply) -> None:
        seat = self.seating.need_seated(player_id)
        if self.status == "finished":
            raise ProtocolError("not_playing", "the game is over")
        if self.status == "waiting":
            seating = self.seating.leave(player_id)
            if not seating.humans():
                await self._delete()
                reply({"type": "ack", "table": self.id})
                return
            await self.host.store.save_seats(self.id, seating.seats, seating.host)
            self.seating = seating
            self.audience.reseat(player_id, None)
            self._seats_changed()
            reply({"type": "ack", "table": self.id})
            return
        # A running game: a bot takes the seat so that the others can finish.
        level = self.settings.timeout_bot
        if level is None:
            raise ProtocolError("no_bot", f"{self.game.id} has no bot to take your seat")
        seating = self.seating.bot_takes_over(player_id, level)
        await self.host.store.save_seats(self.id, seating.seats, seating.host)
        self.seating = seating
        if self.deadlines.pop(seat, None) is not None:  # bots have no turn limit
            timers = Timers(_deadlines_record(self.deadlines), self.clock_deadline)
            await self.host.store.set_timers(self.id, timers)
            self._facts_changed()
        for sub in self.audience.reseat(player_id, None):
            send(sub, self.snapshot(None))
        self._seats_changed()
        self._arm()
        self.bots.ask()
        reply({"type": "ack", "table": self.id})

    async def configure(
        self,
        player_id: str,
        raw: Mapping[str, JSON] | None,
        reply: Reply,
        raw_options: Mapping[str, JSON] | None = None,
    ) -> None:
        """The host changes settings and game options before the game (those not given stay
        as they are; the seats, and so the player count, too); every tab gets a fresh
        ``table`` snapshot, the lobby the new summary."""
        self._need_status("waiting")
        self.seating.need_seated(player_id)
        if self.seating.host != player_id:
            raise ProtocolError("not_host", "only the host changes the table's settings")
        # Both are checked before either is stored: a refusal changes nothing.
        merged = {**self.settings.to_json(), **(raw or {})}
        if (raw or {}).get("turn_based") is not None and "turn_seconds" not in (raw or {}):
            merged["turn_seconds"] = None  # a time per move replaces the turn limit
        settings = parse_settings(merged, self.game)
        options = changed_options(self.game, self.options_json, raw_options or {})
        options = self.game.turn_based_options(options, settings.turn_based)
        if settings.turn_based is not None and self.settings.turn_based is None:
            for s in self.seats:  # everyone seated now sits at one more turn-based table
                if s.kind == "human" and s.player is not None:
                    await self.host.check_turn_based_quota(s.player)
        if self.game.seats(options) != len(self.seats):  # a game whose seats follow options
            raise ProtocolError("bad_options", "the change would not fit the seats")
        options_json = self.game.options_json(options)
        if settings != self.settings or options_json != self.options_json:
            await self.host.store.save_settings(
                self.id,
                settings.to_json(),
                options_json if options_json != self.options_json else None,
            )
            self.settings, self._summary = settings, None
            self.options, self.options_json = options, options_json
            for sub, seat in self.audience:
                send(sub, self.snapshot(seat))
            self.host.show_in_lobby(self)
            self.host.publisher.facts_changed(self, notify=False)  # mirrors' tabs too
        reply({"type": "ack", "table": self.id})

    async def add_bot(self, player_id: str, seat: Seat, level: str, reply: Reply) -> None:
        self._need_status("waiting")
        self.seating.need_seated(player_id)
        seating = self.seating.add_bot(seat, level)
        if level not in self.game.bot_levels:
            raise ProtocolError("bad_options", f"{self.game.id} has no bot level {level[:40]!r}")
        await self.host.store.save_seats(self.id, seating.seats, seating.host)
        self.seating = seating
        self._seats_changed()
        reply({"type": "ack", "table": self.id, "seat": seat})

    async def remove_player(self, player_id: str, seat: Seat, reply: Reply) -> None:
        """Before the game, the host frees another person's seat; that person may not sit
        at this table again."""
        self._need_status("waiting")
        self.seating.need_seated(player_id)
        seating, removed = self.seating.remove(player_id, seat)
        await self.host.store.remove_from_table(self.id, seating.seats, seating.host, removed)
        self.seating = seating
        self.removed.add(removed)
        self.audience.reseat(removed, None)  # its tabs watch on; table.seats tells them
        self._seats_changed()
        reply({"type": "ack", "table": self.id, "seat": seat})

    async def remove_bot(self, player_id: str, seat: Seat, reply: Reply) -> None:
        self._need_status("waiting")
        self.seating.need_seated(player_id)
        seating = self.seating.remove_bot(seat)
        await self.host.store.save_seats(self.id, seating.seats, seating.host)
        self.seating = seating
        self._seats_changed()
        reply({"type": "ack", "table": self.id, "seat": seat})

    async def begin(self, player_id: str, reply: Reply) -> None:
        self._need_status("waiting")
        self.seating.need_seated(player_id)
        if not self.seating.full:
            raise ProtocolError("not_full", "every seat must be taken first")
        state = self.game.setup(self.options, len(self.seats), self.seed)
        now = now_ms()
        deadlines = next_deadlines(
            {},
            before=(),
            after=self.game.to_act(state),
            actor=None,
            humans=self._humans(),
            now=now,
            turn_ms=self._turn_ms(),
        )
        notify: dict[Seat, tuple[int, int | None]] = {}
        if self.settings.turn_based is not None:
            deadlines, notify = await self._turn_based_deadlines({}, deadlines, now)
        clock = self.game.clock(state)
        clock_deadline = next_clock_deadline(None, clock, None, now)
        await self.host.store.start_table(
            self.id, now, self.seats, Timers(_deadlines_record(deadlines), clock_deadline)
        )
        self.state, self.status, self.started_at = state, "playing", now
        self.deadlines, self.clock, self.clock_deadline = deadlines, clock, clock_deadline
        for sub, seat in self.audience:
            send(sub, self.snapshot(seat))
        self._seats_changed()
        self._arm()
        self.bots.ask()
        await self._watched()
        self._notify_turns(notify)
        reply({"type": "ack", "table": self.id})

    async def move(self, player_id: str, data: Mapping[str, JSON], reply: Reply) -> None:
        if self.status == "finished":
            raise GameFinished("the game is over")
        self._need_status("playing")
        seat = self.seating.need_seated(player_id)
        move = self.game.move_from_json(data)
        if seat not in self.game.may_act(self.state):
            raise NotYourTurn("it is not your turn")
        n = await self.commit(seat, move, "player")
        reply({"type": "ack", "table": self.id, "n": n})

    async def say(self, player_id: str, name: str, text: str, reply: Reply) -> None:
        line = self.chat.next_line(player_id, name, text, now_ms())
        await self.host.store.add_chat(line.record(self.id))
        self.chat.add(line)
        self.audience.send_all(line.to_json(self.id))
        self.host.publisher.chatted(self, line)
        reply({"type": "ack", "table": self.id, "line": line.line})

    async def rematch_for(self, player_id: str, gone: str | None) -> tuple[str, Seat, bool]:
        """The rematch of this finished game for one of its players: ``(table, the player's
        seat here, whether it was made now)``.

        The first player to ask makes it (:meth:`TableHost.rematch`); everyone watching is
        told (``table.seats``), and the others confirm by asking too, which seats them.
        ``gone`` is a rematch found deleted (everyone left it): a new one is made.
        """
        if self.status != "finished":
            raise ProtocolError("not_finished", "a rematch follows a finished game")
        seat = self.seating.need_seated(player_id)
        if self.rematch is not None and self.rematch != gone:
            return self.rematch, seat, False
        rematch = await self.host.rematch(self, player_id, seat)
        # Should this write fail, the new table is left to the waiting tables' lifetime and
        # the next to ask makes another: only a stored link is ever shown.
        await self.host.store.set_rematch(self.id, rematch)
        self.rematch = rematch
        self._seats_changed()
        return self.rematch, seat, True

    # --- checks -----------------------------------------------------------------
    def _need_status(self, status: TableStatus) -> None:
        if self.status != status:
            if status == "waiting":
                raise ProtocolError("not_waiting", "the game has already started")
            raise ProtocolError("not_playing", f"the game is {self.status}, not running")

    def _humans(self) -> set[Seat]:
        return self.seating.humans()

    def _turn_ms(self) -> int | None:
        seconds = self.settings.turn_seconds_in_force
        return None if seconds is None else round(seconds * 1000)

    # --- turn-based tables (bodoge/server/runtime/turns.py) ------------------------------
    async def _turn_based_deadlines(
        self,
        old: Mapping[Seat, int],
        deadlines: dict[Seat, int],
        now: int,
        steps: Sequence[Step] | None = None,
    ) -> tuple[dict[Seat, int], dict[Seat, tuple[int, int | None]]]:
        """A turn-based table's deadlines after a move, and the turns to tell people of (the
        deadline, and the end of the person's vacation or ``None``).

        A turn that begins now (a deadline that was not running) is the person's whole time
        per move, unless they are absent and do not have the table open (the stand-in plays
        it at once) or on vacation (their time runs from the vacation's end, and they are
        told of it then).
        """
        turn_ms = self._turn_ms() or 0
        for seat, at in deadlines.items():
            if at <= now:
                # A voter whose vote ran out at the same time as the vote's limit, and who is
                # awaited next for their own turn: that turn is a new one, not the spent one.
                deadlines[seat] = now + turn_ms
        begun = {seat for seat, at in deadlines.items() if old.get(seat) != at}
        if not begun:
            return deadlines, {}
        absent = self._absent(self.steps if steps is None else steps, self._humans(), now)
        players = {seat: self.seats[seat].player for seat in begun}
        away = await self.host.away_until([p for p in players.values() if p], now)
        notify: dict[Seat, tuple[int, int | None]] = {}
        for seat in sorted(begun):
            player = players[seat]
            if seat in absent and not self.present(player):
                deadlines[seat] = now
            elif player in away:
                deadlines[seat] = away[player] + turn_ms
                notify[seat] = (deadlines[seat], away[player])
            elif player is not None:
                notify[seat] = (deadlines[seat], None)
        return deadlines, notify

    def _everyone_absent(self, actor: Actor) -> bool:
        """Whether a stand-in's move left every person at a turn-based table absent."""
        if self.settings.turn_based is None or actor != "timeout" or self.status != "playing":
            return False
        humans = self._humans()
        return bool(humans) and self._absent(self.steps, humans, now_ms()) >= humans

    def _absent(self, steps: Sequence[Step], humans: set[Seat], now: int) -> frozenset[Seat]:
        """The absent seats, by the operator's rules (``ServerConfig.absent_after_*``)."""
        config = self.host.config
        return absent_seats(
            steps,
            humans,
            now,
            timeouts=config.absent_after_timeouts,
            away_ms=round(config.absent_after_seconds * 1000),
        )

    async def retell_turns(self) -> None:
        """Tell the notifier again of the turns running, as when they began: after a restart
        or when this process took the table over.

        The process that began a turn commits the move first and tells its notifier after
        (off the move's path), so it may die in between and the turn would go untold.  The
        notifier stores one notification per turn (its key names the turn by its deadline):
        a turn told before is not told twice.  A turn is told again only with the deadline
        it began with (one a vacation paused since is left alone) and while it runs; to
        someone on vacation now, when the vacation ends, as when it began.
        """
        if self.status != "playing" or self.settings.turn_based is None:
            return
        now = now_ms()
        if self.steps:
            began = self.steps[-1].deadlines
            if began is None:  # stored before moves kept their timers
                return
        else:
            turn_ms = self._turn_ms() or 0
            began = {seat: (self.started_at or 0) + turn_ms for seat in self.deadlines}
        turns = {
            seat: at
            for seat, at in self.deadlines.items()
            if began.get(seat) == at and at > now and self.seats[seat].player is not None
        }
        if not turns:
            return
        players = {seat: self.seats[seat].player for seat in turns}
        try:
            away = await self.host.away_until([p for p in players.values() if p], now)
        except Exception:
            log.exception("table %s: reading vacations failed", self.id)
            return
        self._notify_turns({s: (at, away.get(players[s] or "")) for s, at in turns.items()})

    def _notify_turns(self, turns: Mapping[Seat, tuple[int, int | None]]) -> None:
        notifier = self.host.notifier
        for seat, (deadline, after) in sorted(turns.items()):
            player = self.seats[seat].player
            if player is None:
                continue
            if after is None:
                self._tell(notifier.your_turn(player, self.id, self.game.id, deadline))
            else:
                self._tell(notifier.your_turn(player, self.id, self.game.id, deadline, after=after))

    def _notify_end(self, ended: Mapping[str, JSON]) -> None:
        if self.settings.turn_based is None:
            return
        places = ended.get("places")
        standings: list[Standing] = []
        for s in self.seats:
            person = s.player if s.kind == "human" else s.left
            known = self.people.get(person) if person else None
            place = places[s.seat] if isinstance(places, list) and s.seat < len(places) else None
            standings.append(
                Standing(
                    (known.name if known else "?") if person else None,
                    place if isinstance(place, int) and not isinstance(place, bool) else None,
                )
            )
        final = Final(tuple(standings), ended.get("reason") == EndReason.ABANDONED)
        notifier = self.host.notifier
        for s in self.seats:
            person = s.player if s.kind == "human" else s.left
            if person is not None:
                self._tell(notifier.game_ended(person, self.id, self.game.id, s.seat, final))

    def _tell(self, call: Coroutine[Any, Any, None]) -> None:
        async def tell() -> None:
            try:
                await call
            except Exception:  # a notification never fails a move
                log.exception("table %s: a notification failed", self.id)

        self.host.spawn(tell())

    # --- moves ------------------------------------------------------------------
    async def commit(self, seat: Seat | None, move: Move, actor: Actor) -> int:
        """Apply, store, then announce one move; raises and changes nothing if it is refused."""
        began = time.perf_counter()
        game, before = self.game, self.state
        state, events = game.apply(before, seat, move)
        n, now = self.n + 1, now_ms()
        result = game.result(state)
        if result is None:
            deadlines = next_deadlines(
                self.deadlines,
                before=game.to_act(before),
                after=game.to_act(state),
                actor=seat,
                humans=self._humans(),
                now=now,
                turn_ms=self._turn_ms(),
            )
            clock = game.clock(state)
            clock_deadline = next_clock_deadline(self.clock, clock, self.clock_deadline, now)
        else:
            deadlines, clock, clock_deadline = {}, None, None
        notify: dict[Seat, tuple[int, int | None]] = {}
        if self.settings.turn_based is not None and deadlines:
            steps = [*self.steps, Step(n, seat, move, now, actor)]
            deadlines, notify = await self._turn_based_deadlines(
                self.deadlines, deadlines, now, steps
            )
        timers = Timers(_deadlines_record(deadlines), clock_deadline)
        record = MoveRecord(n, seat, game.move_to_json(move), now, actor, timers)
        changed = deadlines != self.deadlines or clock_deadline != self.clock_deadline
        await self.host.store.append_move(
            self.id,
            record,
            timers if changed else None,
            result.to_json() if result else None,
            rated=self.settings.rated,
            statistics=seat_statistics(game, state, len(self.seats)) if result else None,
        )
        self.host.counters.moves += 1
        step = Step(n, seat, move, now, actor, deadlines, clock_deadline)
        self.steps.append(step)
        self.state = state
        self.deadlines, self.clock, self.clock_deadline = deadlines, clock, clock_deadline
        self._summary = None
        self._announce(step, before, events)
        self.host.publisher.moved(self, record)
        if (observe := self.host.counters.on_fanout) is not None:
            observe(time.perf_counter() - began)
        if result is not None:
            self.status, self.finished_at = "finished", now
            self._alarm.cancel()
            self._seats_changed()
            if self.settings.rated:
                self.host.rated_game_ended(self.id)
            self._notify_end(result.to_json())
        elif self._everyone_absent(actor):
            await self._end_abandoned()
        else:
            self._arm()
            self.bots.ask()
            self._notify_turns(notify)
        return n

    # --- timers -------------------------------------------------------------------
    def _arm(self) -> None:
        if self.status != "playing":
            self._alarm.cancel()
            return
        pending = [
            at for s, at in self.deadlines.items() if self.bots.timeout_asked.get(s) != self.n
        ]
        if self.clock_deadline is not None:
            pending.append(self.clock_deadline)
        self._alarm.set(min(pending) if pending else None)

    async def _on_alarm(self) -> None:
        if self.status != "playing":
            return
        now = now_ms()
        if (
            self.clock is not None
            and self.clock_deadline is not None
            and self.clock_deadline <= now
        ):
            try:
                await self.commit(None, self.clock.move, "clock")
            except GameError:
                log.exception("table %s: the clock's move was refused", self.id)
                self.clock_deadline = None
                self._facts_changed()
                self._arm()
            except Fenced:  # another process runs the table now: it is being let go
                pass
            except Exception:
                log.exception("table %s: storing the clock's move failed", self.id)
                self.retry_soon()
            return
        due = [seat for seat, at in sorted(self.deadlines.items()) if at <= now]
        if due and self.settings.turn_based is not None:
            due = await self._past_vacations(due, now)
        for seat in due:
            self.bots.time_out(seat)
        self._arm()

    async def _past_vacations(self, due: list[Seat], now: int) -> list[Seat]:
        """Of the seats whose time ran out, those not on vacation: a vacation that began
        during a turn pauses it, and the turn gets its whole time from the vacation's end."""
        players = {seat: self.seats[seat].player for seat in due}
        try:
            away = await self.host.away_until([p for p in players.values() if p], now)
        except Exception:
            log.exception("table %s: reading vacations failed", self.id)
            return due
        paused = {seat: away[p] for seat, p in players.items() if p in away}
        if not paused:
            return due
        deadlines = dict(self.deadlines)
        turn_ms = self._turn_ms() or 0
        for seat, until in paused.items():
            deadlines[seat] = until + turn_ms
        try:
            await self.host.store.set_timers(
                self.id, Timers(_deadlines_record(deadlines), self.clock_deadline)
            )
        except Fenced:
            return []
        except Exception:
            log.exception("table %s: storing a paused turn failed", self.id)
            return due
        self.deadlines = deadlines
        self._facts_changed()
        return [seat for seat in due if seat not in paused]

    def retry_soon(self, seconds: float = 1.0) -> None:
        asyncio.get_running_loop().call_later(seconds, self.post, self._resume)


def _deadlines_record(deadlines: Mapping[Seat, int]) -> dict[str, int]:
    return {str(s): at for s, at in deadlines.items()}

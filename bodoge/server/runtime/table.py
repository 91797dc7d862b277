"""One live table: its seats, its game and the one task that changes them.

Every change to a table (a seat taken, a move, a timer running out, a bot's
answer, a tab opening it) is a command queued to the table's task, its
:class:`~bodoge.server.runtime.inbox.Inbox`, which runs them one at a time.  So moves
are applied strictly in order, a move is numbered ``n`` only once it is
committed, and the messages a change causes go out, in order, before the task
looks at the next command.

A command writes to the store first and changes memory only once the write
is committed: when the store refuses, the table is as it was.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from bodoge.core.errors import GameError, GameFinished, NotYourTurn
from bodoge.core.game import Clock, EndReason, Event, Game, Move, Result, Seat
from bodoge.core.rng import derive_seed
from bodoge.core.values import JSON
from bodoge.server.runtime import render
from bodoge.server.runtime.chat import Chat, ChatLine
from bodoge.server.runtime.fanout import Audience, Subscriber
from bodoge.server.runtime.inbox import Args, Inbox, R
from bodoge.server.runtime.pace import Pace
from bodoge.server.runtime.protocol import ProtocolError, encode, iso, now_ms
from bodoge.server.runtime.render import Facts, Step
from bodoge.server.runtime.seating import Seating
from bodoge.server.runtime.settings import (
    TableSettings,
    assistant_on,
    changed_options,
    parse_settings,
    settings_from_json,
)
from bodoge.server.runtime.timers import Alarm, next_clock_deadline, next_deadlines
from bodoge.server.services.statistics import seat_statistics
from bodoge.store import (
    Fenced,
    MoveRecord,
    PlayerRecord,
    SeatRecord,
    Store,
    StoreUnavailable,
    TableBundle,
    TableRecord,
    Timers,
)
from bodoge.store.records import Actor, TableStatus

if TYPE_CHECKING:
    from bodoge.server.runtime.config import ServerConfig
    from bodoge.server.runtime.stats import Counters
    from bodoge.server.services.identity import Player

log = logging.getLogger(__name__)

Reply = Callable[[dict[str, JSON]], None]
#: The close code of a table's watchers when another process took the table (cluster).
MOVED = 1012


class TableHost(Protocol):
    """What a live table needs of the server around it
    (:class:`~bodoge.server.runtime.tables.Tables`).

    A table reads its limits from ``config``, writes its history to ``store``
    and counts its moves in ``counters``; everything else it asks of the server
    is one of these methods.
    """

    @property
    def config(self) -> ServerConfig: ...

    @property
    def store(self) -> Store: ...

    @property
    def counters(self) -> Counters: ...

    def player(self, player_id: str) -> Player | None:
        """The player, if something (a connection, a table) holds it in memory."""

    def remember(self, record: PlayerRecord) -> Player:
        """The stored player, held in memory from now on while the table holds it."""

    def online(self, player_id: str) -> bool:
        """Whether the player is connected to this server (any page, not only the table's)."""

    def show_in_lobby(self, table: LiveTable) -> None:
        """The table's summary changed: the lobby shows it again (drops it once finished)."""

    def remove_from_lobby(self, table_id: str) -> None:
        """The lobby stops showing the table (deleted, or out of memory while it runs)."""

    def forget(self, table: LiveTable) -> None:
        """The table left memory: whoever needs it again loads it from the store."""

    async def bot_move(
        self, game_id: str, level: str, view: Mapping[str, JSON], seat: Seat, seed: int
    ) -> dict[str, JSON] | None:
        """A bot's move for ``seat`` (``None``: it has none), thought out off the event loop."""

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a background job (a bot thinking) that the table's task does not wait for."""

    @property
    def publishes(self) -> bool:
        """Whether anyone hears :meth:`publish` (a cluster): else tables build nothing for it."""

    def publish(self, table_id: str, message: dict[str, JSON]) -> None:
        """Tell the cluster's replicas of the table what changed (nothing outside a cluster)."""

    def known(self, player_id: str, name: str) -> Player:
        """A player another process told of, held in memory while the table holds it."""

    def rated_game_ended(self, table_id: str) -> None:
        """A rated game's result is stored: update the ratings (once, whatever happens)."""

    async def rematch(self, table: LiveTable, player_id: str, seat: Seat) -> str:
        """A new waiting table like ``table`` (game, options, settings, its bots in their
        seats; a new seed), the player in ``seat``: its id."""


class LiveTable:
    """A table in memory.  Use :meth:`call` (or :meth:`post`) for everything that changes it."""

    def __init__(
        self, host: TableHost, game: Game, record: TableRecord, seats: Sequence[SeatRecord]
    ) -> None:
        self.host = host
        self.game = game
        self.id = record.id
        self.options = game.options(record.options)
        self.options_json = game.options_json(self.options)
        self.settings: TableSettings = settings_from_json(record.settings)
        self.seed = record.seed
        self._summary: dict[str, JSON] | None = None
        self._status: TableStatus = record.status
        #: How the table ended when the game itself did not end (an abandoned game).
        self.ended: JSON = record.result
        #: Since when nobody has watched this running game (ms), as the store has it.
        self.watched_at: int | None = record.unwatched_at
        self.created_at = record.created_at
        self.started_at = record.started_at
        self.finished_at = record.finished_at
        self._seating = Seating(tuple(seats), record.host)
        self.state: Any = None
        self.steps: list[Step] = []
        #: Per watched seat, its view after the last move: what the next patch starts from.
        self._seen: dict[Seat | None, JSON] = {}
        #: Per watched seat, the facts its last event frame told (cleared when facts change
        #: without a move, so that the next frame tells them all).
        self._told: dict[Seat | None, Facts] = {}
        self.deadlines: dict[Seat, int] = {}
        self.clock: Clock | None = None
        self.clock_deadline: int | None = None
        #: The players of the seats (and those who left a running game), held so that
        #: their names stay known while nobody of them is connected.
        self.people: dict[str, Player] = {}
        #: Players the host removed before the game: they may not sit here again (the store
        #: keeps them with the table, so a restart or another process of a cluster knows).
        self.removed: set[str] = set()
        self.chat = Chat(host.config.limits.chat_backlog)
        self.audience = Audience()
        self._inbox = Inbox(self.id, after_each=self._note_quiet)
        self._alarm = Alarm(lambda: self.post(self._on_alarm))
        #: Seat -> move number a bot is thinking about, so each is asked once per move.
        self._bot_asked: dict[Seat, int] = {}
        self._timeout_asked: dict[Seat, int] = {}
        #: The source of bots' think times: the server's own, apart from the game's seed.
        self._think_rng = random.Random()
        self._idle_handle: asyncio.TimerHandle | None = None
        #: Loop time since which the table has not been needed in memory (see _quiet_seconds).
        self._quiet_since: float | None = None
        #: Cluster: who watches the table through each other process (their replicas), as
        #: they last said: the players connected there, and how many tabs.
        self._remote_players: dict[str, frozenset[str]] = {}
        self._remote_watchers: dict[str, int] = {}
        #: Cluster: publications on the table's channel so far (replicas find gaps by it).
        self.seq = 0
        #: The table of the rematch a player proposed once this game was over (stored: a
        #: restart, or the table leaving memory, does not make a second one).
        self.rematch: str | None = record.rematch

    # What the summary shows: setting any of these drops the cached summary, so a
    # snapshot sent right after a change can never show the table as it was.

    @property
    def status(self) -> TableStatus:
        return self._status

    @status.setter
    def status(self, value: TableStatus) -> None:
        self._status, self._summary = value, None

    @property
    def seating(self) -> Seating:
        return self._seating

    @seating.setter
    def seating(self, value: Seating) -> None:
        self._seating, self._summary = value, None

    @property
    def seats(self) -> tuple[SeatRecord, ...]:
        return self._seating.seats

    # --- bringing a table back ------------------------------------------------

    @classmethod
    def restore(cls, host: TableHost, game: Game, bundle: TableBundle) -> LiveTable:
        """The table exactly as stored: its moves replayed, its timers as they were."""
        table = cls(host, game, bundle.table, bundle.seats)
        table.people = {r.id: host.remember(r) for r in bundle.players.values()}
        table.removed = set(bundle.removed)
        lines = (ChatLine.from_record(r) for r in bundle.chat)
        table.chat = Chat(host.config.limits.chat_backlog, lines, bundle.chat_count)
        if table.status != "waiting":
            table.steps = [
                Step(r.n, r.seat, game.move_from_json(r.move), r.at, r.actor) for r in bundle.moves
            ]
            moves = [(step.seat, step.move) for step in table.steps]
            table.state = game.replay(table.options, len(table.seats), table.seed, moves)
            if table.status == "playing":
                table.deadlines = {int(s): at for s, at in bundle.table.deadlines.items()}
                table.clock = game.clock(table.state)
                if table.clock is not None:
                    table.clock_deadline = bundle.table.clock_deadline or now_ms() + round(
                        table.clock.seconds * 1000
                    )
        return table

    # --- the task ---------------------------------------------------------------

    def start(self) -> None:
        self._inbox.start()
        # Resume timers and bots; for a finished table this starts its idle countdown.
        self.post(self._resume)

    async def _resume(self) -> None:
        self._publish_table(notify=False)  # replicas learn who runs the table now
        if self.status == "playing":
            self._arm()
            self._ask_bots()
            await self._watched()

    async def call(self, command: Callable[[*Args], Awaitable[R]], *args: *Args) -> R:
        """Run ``command(*args)`` in the table's task and return its result."""
        return await self._inbox.call(command, *args)

    def post(self, command: Callable[[*Args], Awaitable[object]], *args: *Args) -> None:
        """Queue ``command(*args)`` without waiting for it."""
        self._inbox.post(command, *args)

    # --- leaving memory when nobody needs the table there -----------------------------

    def _quiet_seconds(self) -> float | None:
        """How long the table may sit unneeded in memory, or ``None`` while it is needed.

        A finished table nobody watches, a running one nobody watches with nothing
        to run (no turn limit, clock or bot), a waiting one none of whose seated
        players is connected: the store has them all, so memory need not.
        """
        if self._inbox.queued or self._inbox.closed:
            return None
        config = self.host.config
        if self.status == "waiting":
            present = any(self.present(s.player) for s in self.seats if s.player)
            return None if present else config.waiting_seconds
        if self.watchers():
            return None
        if self.status == "finished":
            return config.idle_seconds
        return None if self._scheduled() else config.unwatched_seconds

    def _scheduled(self) -> bool:
        """Whether something will move this running table by itself: a timer or a bot."""
        if self.deadlines or self.clock_deadline is not None:
            return True
        return any(self.seats[s].kind == "bot" for s in self.game.may_act(self.state))

    def _note_quiet(self) -> None:
        if self._quiet_seconds() is None:
            self._quiet_since = None
        elif self._quiet_since is None:
            self._quiet_since = asyncio.get_running_loop().time()
            self._wake_when_quiet(self._quiet_seconds() or 0.0)

    def _wake_when_quiet(self, delay: float) -> None:
        if self._idle_handle is not None:
            self._idle_handle.cancel()
        self._idle_handle = asyncio.get_running_loop().call_later(
            delay, self.post, self._leave_if_quiet
        )

    async def _leave_if_quiet(self) -> None:
        self._idle_handle = None
        quiet = self._quiet_seconds()
        if quiet is None or self._quiet_since is None:
            return
        left = self._quiet_since + quiet - asyncio.get_running_loop().time()
        if left > 0:  # busy, then quiet again since the countdown began
            self._wake_when_quiet(left)
            return
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
        self._publish("removed")
        self.host.remove_from_lobby(self.id)
        self._close()

    def _close(self) -> None:
        """Leave memory: the store keeps the table; pending callers look it up again."""
        self._alarm.close()
        if self._idle_handle is not None:
            self._idle_handle.cancel()
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
        self._inbox.stop()
        self._alarm.cancel()
        if self._idle_handle is not None:
            self._idle_handle.cancel()

    # --- who is where -------------------------------------------------------------

    def seat_of(self, player_id: str) -> Seat | None:
        return self.seating.seat_of(player_id)

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

    def _seat_json(self, s: SeatRecord) -> dict[str, JSON]:
        player = self.people.get(s.player) if s.player else None
        data: dict[str, JSON] = {
            "seat": s.seat,
            "kind": s.kind,
            "player": player.to_json() if player else None,
            "level": s.level,
            "connected": s.kind == "bot" or self.present(s.player),
        }
        if s.left:
            left = self.people.get(s.left)
            data["left"] = {"id": s.left, "name": left.name if left else "?"}
        return data

    def seats_json(self) -> list[dict[str, JSON]]:
        return [self._seat_json(s) for s in self.seats]

    def summary(self) -> dict[str, JSON]:
        """The table as the lobby and every snapshot show it (cached until it changes)."""
        if self._summary is None:
            self._summary = {
                "id": self.id,
                "game": self.game.id,
                "options": self.options_json,
                "settings": self.settings.to_json(),
                # Whether the assistant answers now (its setting may leave it to the seats).
                "assistant": self.assistant,
                "status": self.status,
                "host": self.seating.host,
                "created_at": iso(self.created_at),
                "seats": self.seats_json(),
                "n": len(self.steps),
                "rematch": self.rematch,
            }
        return self._summary

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
        return not self.seating.full or any(
            self.audience.present(s.player) or self.host.online(s.player)
            for s in self.seats
            if s.player
        )

    @property
    def assistant(self) -> bool:
        """Whether seated players may ask the game's assistant (``settings.assistant_on``)."""
        return self.game.has_assistant and assistant_on(self.settings, self.seats)

    def _seats_changed(self) -> None:
        self._summary = None
        self.audience.send_all(self._seats_message())
        self.host.show_in_lobby(self)
        self._publish_table(notify=True)

    def _seats_message(self) -> dict[str, JSON]:
        return {
            "type": "table.seats",
            "table": self.id,
            "seats": self.seats_json(),
            "status": self.status,
            "assistant": self.assistant,
            "rematch": self.rematch,
        }

    # --- what a seat sees (rendered by bodoge.server.runtime.render) ---------------------------

    @property
    def n(self) -> int:
        return len(self.steps)

    def clocks(self) -> render.Clocks:
        return render.Clocks(len(self.seats), self.deadlines, self.clock_deadline)

    def replay(self) -> Iterator[tuple[Any, Step | None, tuple[Event, ...]]]:
        """The table's states from its first one (see :func:`render.replay`)."""
        return render.replay(self.game, self.options, len(self.seats), self.seed, self.steps)

    def snapshot(self, seat: Seat | None) -> dict[str, JSON]:
        return render.snapshot(
            self.game,
            render.Shared(self.game, self.state, self.clocks(), self.ended),
            seat,
            table=self.summary(),
            n=self.n,
            chat=self.chat.to_json(self.id),
            seat_view=self._seen.get(seat),
            steps=self.steps,
        )

    def history(self, seat: Seat | None) -> dict[str, JSON]:
        """A finished game's moves, events and views for ``seat`` (``None``: a spectator)."""
        return render.history(
            self.game,
            self.replay(),
            seat,
            table=self.summary(),
            seed=self.seed,
            options=self.options_json,
            ended=self.ended,
        )

    def _facts_changed(self) -> None:
        """Timers changed without a move: every seat's next frame tells every fact."""
        self._told.clear()
        self._publish_table(notify=False)

    # --- the cluster: what replicas on other processes are told (replication/replica.py)

    @property
    def publishes(self) -> bool:
        """Whether this table tells replicas what changed: only an owner in a cluster does,
        so a single process builds no publication (facts, a move's record) at all."""
        return self.host.publishes

    def _publish(self, kind: str, **fields: JSON) -> None:
        if not self.publishes:
            return
        self.seq += 1
        # The number last: the facts' own ``seq`` (the one before this publication) must not
        # stand for it, or every reader would see a gap after each change of the facts.
        self.host.publish(self.id, {"kind": kind, "table": self.id, **fields, "seq": self.seq})

    def _publish_table(self, *, notify: bool) -> None:
        if self.publishes:
            self._publish("table", notify=notify, **self.facts())

    def facts(self) -> dict[str, JSON]:
        """The table's public facts as replicas take them: seats, settings and options,
        people, status, timers, the rematch.

        ``present`` is every seated player who has the table open anywhere in the cluster:
        presence is added up here, at the owner.
        """
        people = {s.player for s in self.seats if s.player} | {s.left for s in self.seats if s.left}
        return {
            "seats": [[s.seat, s.kind, s.player, s.level, s.left] for s in self.seats],
            "host": self.seating.host,
            "settings": self.settings.to_json(),
            "options": self.options_json,
            "rematch": self.rematch,
            "people": {p: self.people[p].name for p in sorted(people) if p in self.people},
            "present": sorted(p for p in people if self.present(p)),
            "status": self.status,
            "ended": self.ended,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "deadlines": _deadlines_record(self.deadlines),
            "clock_deadline": self.clock_deadline,
            "n": self.n,
            "chat": self.chat.count,
            "seq": self.seq,
        }

    async def remote_watch(
        self, process: str, players: frozenset[str], watchers: int
    ) -> dict[str, JSON]:
        """Another process's replica says who watches the table there; the facts in reply."""
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
        return self.facts()

    async def forget_processes(self, live: frozenset[str]) -> None:
        """Processes no longer in the cluster watch nothing (their presence is dropped)."""
        gone = [p for p in self._remote_watchers if p not in live]
        for process in gone:
            await self.remote_watch(process, frozenset(), 0)

    @property
    def remote_processes(self) -> set[str]:
        return set(self._remote_watchers)

    def _announce(self, step: Step, before: Any, events: list[Event]) -> None:
        """Send every watched seat its frame of ``step``: events, view patch, changed facts."""
        game, state = self.game, self.state
        shared = render.Shared(game, state, self.clocks(), self.ended)
        seen: dict[Seat | None, JSON] = {}
        told: dict[Seat | None, Facts] = {}

        def frame(seat: Seat | None) -> dict[str, JSON]:
            old = self._seen[seat] if seat in self._seen else game.view(before, seat)
            new = seen[seat] = game.view(state, seat)
            observed = render.observed(game, events, seat)
            mover, _ = game.public_move(state, step.seat, step.move, seat)
            facts = told[seat] = shared.facts(seat)
            ops = render.patch(old, new, observed)
            return render.event(self.id, step, mover, observed, ops, facts, self._told.get(seat))

        self.audience.send_each(frame)
        self._seen, self._told = seen, told

    # --- commands from connections --------------------------------------------------

    async def open(
        self,
        sub: Subscriber,
        player_id: str,
        since: int | None,
        chat_since: int | None,
        reply: Reply,
    ) -> None:
        seat = self.seat_of(player_id)
        arrived = self.audience.add(sub, seat)
        if arrived and seat is not None:
            self._presence_changed()
        await self._watched()
        limits = self.host.config.limits
        if since is None or not 0 <= since <= self.n or self.n - since > limits.catch_up:
            reply(self.snapshot(seat))
            return
        if since < self.n:
            for frame in render.catch_up(
                self.game, self.id, self.replay(), since, seat, self.clocks()
            ):
                _send(sub, frame)
        if chat_since is not None:
            for line in self.chat.since(chat_since):
                _send(sub, line.to_json(self.id))
        _send(sub, self._seats_message())
        reply({"type": "ack", "table": self.id, "n": self.n, "you": seat})

    def _presence_changed(self) -> None:
        """A seated player came or went (their first tab opened, their last closed)."""
        self._seats_changed()

    async def adopt(self, subs: list[Subscriber], since: int, chat_since: int) -> None:
        """Connections that watched this table through a replica here (this process has just
        taken it over): they watch it directly now, after the events they had not seen."""
        limits = self.host.config.limits
        arrived = False
        for sub in subs:
            seat = self.seat_of(sub.player_id) if sub.player_id else None
            if since > self.n or self.n - since > limits.catch_up:
                _send(sub, self.snapshot(seat))
            elif since < self.n:
                for frame in render.catch_up(
                    self.game, self.id, self.replay(), since, seat, self.clocks()
                ):
                    _send(sub, frame)
            for line in self.chat.since(chat_since):
                _send(sub, line.to_json(self.id))
            arrived = self.audience.add(sub, seat) or arrived
        if arrived:
            self._seats_changed()
        await self._watched()

    async def refresh_seats(self) -> None:
        """Show the seats again (a seated player renamed themselves)."""
        self._seats_changed()

    async def close(self, sub: Subscriber) -> None:
        if sub not in self.audience:
            return
        seat = self.audience.seat(sub)
        left = self.audience.remove(sub)
        if left and seat is not None:
            self._presence_changed()
        await self._watched()

    # --- a game nobody comes back to ------------------------------------------------------

    async def _watched(self) -> None:
        """Keep the store's record of since when nobody has watched this running game."""
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
        if self.status != "playing" or self.watchers():
            return
        now = now_ms()
        ended = Result((None,) * len(self.seats), EndReason.ABANDONED).to_json()
        counts = seat_statistics(self.game, self.state, len(self.seats))
        await self.host.store.end_table(self.id, now, ended, counts)
        self.status, self.finished_at, self.ended = "finished", now, ended
        self.deadlines, self.clock, self.clock_deadline = {}, None, None
        self._alarm.cancel()
        self._facts_changed()
        self._seats_changed()

    async def join(self, player_id: str, seat: Seat | None, reply: Reply) -> None:
        self._need_status("waiting")
        if player_id in self.removed:
            raise ProtocolError("removed", "the host removed you from this table")
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
            _send(sub, self.snapshot(None))
        self._seats_changed()
        self._arm()
        self._ask_bots()
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
        settings = parse_settings({**self.settings.to_json(), **(raw or {})}, self.game)
        options = changed_options(self.game, self.options_json, raw_options or {})
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
                _send(sub, self.snapshot(seat))
            self.host.show_in_lobby(self)
            self._publish_table(notify=False)  # replicas send their tabs the snapshot too
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
        clock = self.game.clock(state)
        clock_deadline = next_clock_deadline(None, clock, None, now)
        await self.host.store.start_table(
            self.id, now, self.seats, Timers(_deadlines_record(deadlines), clock_deadline)
        )
        self.state, self.status, self.started_at = state, "playing", now
        self.deadlines, self.clock, self.clock_deadline = deadlines, clock, clock_deadline
        for sub, seat in self.audience:
            _send(sub, self.snapshot(seat))
        self._seats_changed()
        self._arm()
        self._ask_bots()
        await self._watched()
        reply({"type": "ack", "table": self.id})

    async def move(self, player_id: str, data: Mapping[str, JSON], reply: Reply) -> None:
        if self.status == "finished":
            raise GameFinished("the game is over")
        self._need_status("playing")
        seat = self.seating.need_seated(player_id)
        move = self.game.move_from_json(data)
        if seat not in self.game.may_act(self.state):
            raise NotYourTurn("it is not your turn")
        n = await self._commit(seat, move, "player")
        reply({"type": "ack", "table": self.id, "n": n})

    async def say(self, player_id: str, name: str, text: str, reply: Reply) -> None:
        line = self.chat.next_line(player_id, name, text, now_ms())
        await self.host.store.add_chat(line.record(self.id))
        self.chat.add(line)
        self.audience.send_all(line.to_json(self.id))
        if self.publishes:
            self._publish(
                "chat", line=line.line, player=line.player, name=line.name, text=text, at=line.at
            )
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

    async def view_for_assist(self, player_id: str) -> tuple[int, Seat, dict[str, JSON]]:
        if not self.assistant:
            raise ProtocolError("no_assistant", "the assistant is off at this table")
        seat = self.seating.need_seated(player_id)
        if self.state is None:
            raise ProtocolError("not_playing", "the game has not started")
        return self.n, seat, self.game.view(self.state, seat)

    # --- checks -----------------------------------------------------------------

    def _need_status(self, status: TableStatus) -> None:
        if self.status != status:
            if status == "waiting":
                raise ProtocolError("not_waiting", "the game has already started")
            raise ProtocolError("not_playing", f"the game is {self.status}, not running")

    def _humans(self) -> set[Seat]:
        return self.seating.humans()

    def _turn_ms(self) -> int | None:
        seconds = self.settings.turn_seconds
        return None if seconds is None else round(seconds * 1000)

    # --- moves ------------------------------------------------------------------

    async def _commit(self, seat: Seat | None, move: Move, actor: Actor) -> int:
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
        record = MoveRecord(n, seat, game.move_to_json(move), now, actor)
        changed = deadlines != self.deadlines or clock_deadline != self.clock_deadline
        await self.host.store.append_move(
            self.id,
            record,
            Timers(_deadlines_record(deadlines), clock_deadline) if changed else None,
            result.to_json() if result else None,
            rated=self.settings.rated,
            statistics=seat_statistics(game, state, len(self.seats)) if result else None,
        )
        self.host.counters.moves += 1
        step = Step(n, seat, move, now, actor)
        self.steps.append(step)
        self.state = state
        self.deadlines, self.clock, self.clock_deadline = deadlines, clock, clock_deadline
        self._summary = None
        self._announce(step, before, events)
        if self.publishes:
            self._publish(
                "move",
                n=n,
                seat=seat,
                move=record.move,
                at=now,
                actor=actor,
                deadlines=_deadlines_record(deadlines),
                clock_deadline=clock_deadline,
            )
        if (observe := self.host.counters.on_fanout) is not None:
            observe(time.perf_counter() - began)
        if result is not None:
            self.status, self.finished_at = "finished", now
            self._alarm.cancel()
            self._seats_changed()
            if self.settings.rated:
                self.host.rated_game_ended(self.id)
        else:
            self._arm()
            self._ask_bots()
        return n

    # --- timers -------------------------------------------------------------------

    def _arm(self) -> None:
        if self.status != "playing":
            self._alarm.cancel()
            return
        pending = [at for s, at in self.deadlines.items() if self._timeout_asked.get(s) != self.n]
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
                await self._commit(None, self.clock.move, "clock")
            except GameError:
                log.exception("table %s: the clock's move was refused", self.id)
                self.clock_deadline = None
                self._facts_changed()
                self._arm()
            except Fenced:  # another process runs the table now: it is being let go
                pass
            except Exception:
                log.exception("table %s: storing the clock's move failed", self.id)
                self._retry_soon()
            return
        for seat, at in sorted(self.deadlines.items()):
            if at <= now and self._timeout_asked.get(seat) != self.n:
                self._timeout_asked[seat] = self.n
                self._think(seat, self.settings.timeout_bot, "timeout")
        self._arm()

    # --- bots ---------------------------------------------------------------------

    def _ask_bots(self) -> None:
        """Ask every bot seat that may act now (awaited seats first) for its move."""
        if self.status != "playing":
            return
        to_act = self.game.to_act(self.state)
        may_act = self.game.may_act(self.state)
        for seat in sorted(may_act, key=lambda s: (s not in to_act, s)):
            s = self.seats[seat]
            if s.kind == "bot" and self._bot_asked.get(seat) != self.n:
                self._bot_asked[seat] = self.n
                self._think(seat, s.level, "bot")

    def _think(self, seat: Seat, level: str | None, actor: Actor) -> None:
        if level is None:
            return
        view = self.game.view(self.state, seat)
        n = self.n
        seed = derive_seed(self.seed, "bot", n, seat)
        # A late turn is played at once; a bot seat thinks at the table's pace.  The think
        # time comes from the server's own random source, never from the game's seed.  Out of
        # turn, where the reaction window holds a race anyway, a bot thinks at once: so it is
        # not asked again and again while the table moves faster than it thinks.
        delay = 0.0
        awaited = seat in self.game.to_act(self.state)
        if actor == "bot" and (awaited or not self._holds_races()):
            delay = self._pace().think_seconds(level, self._think_rng)

        async def think() -> None:
            try:
                if delay:
                    await asyncio.sleep(delay)
                    if self.n != n:
                        return  # the table moved on meanwhile; the bot has been asked again
                move = await self.host.bot_move(self.game.id, level, view, seat, seed)
            except Exception:
                log.exception("table %s: the %s bot for seat %d failed", self.id, level, seat)
                return
            self.post(self._bot_move, seat, n, move, actor)

        self.host.spawn(think())

    async def _bot_move(
        self, seat: Seat, n: int, data: Mapping[str, JSON] | None, actor: Actor
    ) -> None:
        if self.status != "playing" or self.n != n:
            return  # the table moved on while the bot thought; it has been asked again
        kind = self.seats[seat].kind
        if (actor == "bot") != (kind == "bot"):
            return  # the seat changed hands meanwhile
        if data is None:
            if seat in self.game.to_act(self.state):
                log.error("table %s: the bot for seat %d passed its turn", self.id, seat)
            return
        try:
            move = self.game.move_from_json(data)
            if seat not in self.game.may_act(self.state):
                return
            if actor == "bot" and (wait := self._reaction_wait(seat, move)) > 0:
                # A race a person may be about to win: hold it (the table may move on).
                loop = asyncio.get_running_loop()
                loop.call_later(wait, self.post, self._bot_move, seat, n, data, actor)
                return
            await self._commit(seat, move, actor)
        except GameError as exc:
            log.error("table %s: bot move %r for seat %d refused: %s", self.id, data, seat, exc)
        except Fenced:  # another process runs the table now: it is being let go
            pass
        except Exception:
            # The store failed: nothing changed, so ask again in a moment rather than stall.
            log.exception("table %s: storing a bot move failed", self.id)
            self._bot_asked.pop(seat, None)
            self._timeout_asked.pop(seat, None)
            self._retry_soon()

    def _pace(self) -> Pace:
        return self.host.config.pace(self.settings.bot_pace)

    def _holds_races(self) -> bool:
        """Whether bots hold races for a reaction window here: a person sits, the pace has one."""
        return self._pace().reaction_seconds > 0 and bool(self._humans())

    def _reaction_wait(self, seat: Seat, move: Move) -> float:
        """Seconds a bot still holds ``move``: the reaction window after the last move.

        Only a contested move (``Game.contested``) at a table where a person sits
        is held.  The window runs from the last move — the one that made the bot
        sure, or a later one — so nobody is beaten to it sooner than the window
        after what made it sure.  When the table moves on meanwhile, the held
        answer is dropped, the bot (asked again) comes up with it again, and the
        window starts again: a bot wins a race out of turn only when the table
        has been quiet for the window, and in turn always (the table waits for it).
        """
        if not self._holds_races() or not self.game.contested(self.state, seat, move):
            return 0.0
        last = self.steps[-1].at if self.steps else self.started_at or 0
        return (last + self._pace().reaction_seconds * 1000 - now_ms()) / 1000

    def _retry_soon(self, seconds: float = 1.0) -> None:
        asyncio.get_running_loop().call_later(seconds, self.post, self._resume)


def _deadlines_record(deadlines: Mapping[Seat, int]) -> dict[str, int]:
    return {str(s): at for s, at in deadlines.items()}


def _send(sub: Subscriber, message: Mapping[str, JSON]) -> None:
    sub.send_text(encode(message))

"""What every table a connection can open shares: its public state, its audience, and what
each seat sees of it (rendered by :mod:`bodoge.server.runtime.render`).

:class:`~bodoge.server.runtime.table.LiveTable` (a table this process runs) and, in a
cluster, the mirror of a table another process runs
(``bodoge.server.replication.mirror.Mirror``) are both one of these: they differ in how they
change (commands and timers here; the owner's publications there), not in what they show.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol, Self

from bodoge.core.game import Clock, Event, Game, Seat
from bodoge.core.values import JSON
from bodoge.server.runtime import render
from bodoge.server.runtime.chat import Chat, ChatLine
from bodoge.server.runtime.fanout import Audience, Subscriber
from bodoge.server.runtime.inbox import Args, Inbox, R
from bodoge.server.runtime.protocol import ProtocolError, encode, iso, now_ms
from bodoge.server.runtime.render import Facts, Step
from bodoge.server.runtime.seating import Seating
from bodoge.server.runtime.settings import TableSettings, assistant_on, settings_from_json
from bodoge.store import MoveRecord, PlayerRecord, SeatRecord, TableBundle, TableRecord, Timers
from bodoge.store.records import TableStatus

if TYPE_CHECKING:
    from bodoge.server.runtime.config import ServerConfig
    from bodoge.server.runtime.players import Player

Reply = Callable[[dict[str, JSON]], None]


class ShownHost(Protocol):
    """What a shown table needs of the server around it: limits, and its players held."""

    @property
    def config(self) -> ServerConfig: ...

    def remember(self, record: PlayerRecord) -> Player:
        """The stored player, held in memory from now on while the table holds it."""
        ...


class ShownTable:
    """A table's public state and who watches it; use :meth:`call` (or :meth:`post`) for
    everything that changes it, in its own task."""

    def __init__(
        self,
        host: ShownHost,
        game: Game[Any, Any, Any],
        record: TableRecord,
        seats: Sequence[SeatRecord],
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
        self.created_at = record.created_at
        self.started_at = record.started_at
        self.finished_at = record.finished_at
        self._seating = Seating(tuple(seats), record.host)
        self.state: Any = None
        self.steps: list[Step] = []
        #: Per watched seat, its view after the last move: what the next patch starts from.
        self._seen: dict[Seat | None, JSON] = {}
        #: Per watched seat, the facts of the last move as it sees them: the next frame tells
        #: those that differ (a seat not watched then works them out from the last step).
        self._told: dict[Seat | None, Facts] = {}
        self.deadlines: dict[Seat, int] = {}
        self.clock: Clock[Any] | None = None
        self.clock_deadline: int | None = None
        #: The players of the seats (and those who left a running game), held so that
        #: their names stay known while nobody of them is connected.
        self.people: dict[str, Player] = {}
        #: Players the host removed before the game: they may not sit here again (the store
        #: keeps them with the table, so a restart or another process of a cluster knows).
        self.removed: set[str] = set()
        self.chat = Chat(host.config.limits.chat_backlog)
        self.audience = Audience()
        self._inbox = Inbox(self.id, after_each=self._after_each)
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
    def restore(cls, host: ShownHost, game: Game[Any, Any, Any], bundle: TableBundle) -> Self:
        """The table exactly as stored: its moves replayed, its timers as they were."""
        table = cls(host, game, bundle.table, bundle.seats)
        table.people = {r.id: host.remember(r) for r in bundle.players.values()}
        table.removed = set(bundle.removed)
        lines = (ChatLine.from_record(r) for r in bundle.chat)
        table.chat = Chat(host.config.limits.chat_backlog, lines, bundle.chat_count)
        if table.status != "waiting":
            table.steps = [step_of(game, r) for r in bundle.moves]
            last = bundle.moves[-1] if bundle.moves else None
            if last is not None and last.timers is None:
                # Stored before moves kept their timers: the last move's are the table's.
                record = bundle.table
                timers = Timers(dict(record.deadlines), record.clock_deadline)
                table.steps[-1] = step_of(game, replace(last, timers=timers))
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

    # --- what each kind of table does its own way -----------------------------------------

    def present(self, player_id: str | None) -> bool:
        """Whether the player has the table open."""
        return player_id is not None and self.audience.present(player_id)

    def watchers(self) -> int:
        """Tabs that have the table open."""
        return len(self.audience)

    def online(self) -> int:
        """People who have the table open (the summary's ``online``), each once."""
        return self.audience.people

    def _seats_changed(self) -> None:
        self._summary = None
        self.audience.send_all(self._seats_message())

    def _presence_changed(self) -> None:
        """A seated player came or went (their first tab opened, their last closed)."""
        self._seats_changed()

    async def _watched(self) -> None:
        """Someone opened or closed the table."""

    def _after_each(self) -> None:
        """The table's task ran a command."""

    # --- the task ---------------------------------------------------------------

    def start(self) -> None:
        self._inbox.start()

    async def call(self, command: Callable[[*Args], Awaitable[R]], *args: *Args) -> R:
        """Run ``command(*args)`` in the table's task and return its result."""
        return await self._inbox.call(command, *args)

    def post(self, command: Callable[[*Args], Awaitable[object]], *args: *Args) -> None:
        """Queue ``command(*args)`` without waiting for it."""
        self._inbox.post(command, *args)

    @property
    def closed(self) -> bool:
        return self._inbox.closed

    # --- who is where -------------------------------------------------------------

    def seat_of(self, player_id: str) -> Seat | None:
        return self.seating.seat_of(player_id)

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
        online = self.online()
        if self._summary is None or self._summary["online"] != online:
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
                "online": online,
            }
        return self._summary

    @property
    def assistant(self) -> bool:
        """Whether seated players may ask the game's assistant (``settings.assistant_on``)."""
        return self.game.has_assistant and assistant_on(self.settings, self.seats)

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

    def _announce(self, step: Step, before: Any, events: list[Event]) -> None:
        """Send every watched seat its frame of ``step`` (the last of :attr:`steps`): events,
        view patch, and the facts that differ from the previous move's."""
        game, state, seats = self.game, self.state, len(self.seats)
        shared = render.Shared(game, state, render.Clocks.of(step, seats), self.ended)
        seen: dict[Seat | None, JSON] = {}
        told: dict[Seat | None, Facts] = {}
        previous: render.Shared | None = None

        def facts_before(seat: Seat | None) -> Facts | None:
            nonlocal previous
            if step.n == 1:
                return None
            if seat in self._told:
                return self._told[seat]
            if previous is None:
                previous = render.Shared(game, before, render.Clocks.of(self.steps[-2], seats))
            return previous.facts(seat)

        def frame(seat: Seat | None) -> dict[str, JSON]:
            old = self._seen[seat] if seat in self._seen else game.view(before, seat)
            new = seen[seat] = game.view(state, seat)
            observed = render.observed(game, events, seat)
            mover, _ = game.public_move(state, step.seat, step.move, seat)
            facts = told[seat] = shared.facts(seat)
            ops = render.patch(old, new, observed)
            return render.event(self.id, step, mover, observed, ops, facts, facts_before(seat))

        self.audience.send_each(frame)
        self._seen, self._told = seen, told

    async def view_for_assist(self, player_id: str) -> tuple[int, Seat, dict[str, JSON]]:
        if not self.assistant:
            raise ProtocolError("no_assistant", "the assistant is off at this table")
        seat = self.seating.need_seated(player_id)
        if self.state is None:
            raise ProtocolError("not_playing", "the game has not started")
        return self.n, seat, self.game.view(self.state, seat)

    # --- connections ----------------------------------------------------------------

    async def unwatch(self, sub: Subscriber) -> None:
        """``sub`` closes the table (run in its task)."""
        await self.call(self.close, sub)

    def unwatch_soon(self, sub: Subscriber) -> None:
        """``sub`` is gone: it closes the table (queued to its task)."""
        self.post(self.close, sub)

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
                self.game, self.id, self.replay(), since, seat, len(self.seats)
            ):
                send(sub, frame)
        if chat_since is not None:
            for line in self.chat.since(chat_since):
                send(sub, line.to_json(self.id))
        send(sub, self._seats_message())
        reply({"type": "ack", "table": self.id, "n": self.n, "you": seat})

    async def close(self, sub: Subscriber) -> None:
        if sub not in self.audience:
            return
        seat = self.audience.seat(sub)
        left = self.audience.remove(sub)
        if left and seat is not None:
            self._presence_changed()
        if not self.audience:
            # Nobody left to patch: a finished table keeps its seats' last views no longer
            # than its watchers (it may stay in memory for idle_seconds after them), and
            # whoever opens it next gets a snapshot; a next move works out the old views.
            self._seen, self._told = {}, {}
        await self._watched()


def send(sub: Subscriber, message: Mapping[str, JSON]) -> None:
    sub.send_text(encode(message))


def step_of(game: Game[Any, Any, Any], record: MoveRecord) -> Step:
    """A stored move as the table keeps it, with the timers it left running."""
    timers = record.timers
    return Step(
        record.n,
        record.seat,
        game.move_from_json(record.move),
        record.at,
        record.actor,
        None if timers is None else {int(s): at for s, at in timers.deadlines.items()},
        None if timers is None else timers.clock_deadline,
    )

"""A mirror: a table another process runs, as this process's connections see it (cluster).

It is kept current by what the owner publishes (:meth:`Mirror.receive`: each committed move,
which it applies with the game's pure rules to get the same state and events; each chat
line; the table's public facts) and caught up from the database after a gap, a new owner
or a reconnection to Redis (:meth:`Mirror.resync`).  It renders every frame for its own
connections with the same seat renderer as the owner (it is a
:class:`~bodoge.server.runtime.shown.ShownTable`): no rendered frame and no hidden view ever
crosses the bus.  It never writes to the store, runs no timer and asks no bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from bodoge.core.game import Seat
from bodoge.core.values import JSON
from bodoge.server.replication.messages import (
    ChatPublished,
    FactsPublished,
    MovePublished,
    Publication,
    Published,
    RemovedPublished,
)
from bodoge.server.runtime.chat import ChatLine
from bodoge.server.runtime.fanout import Subscriber
from bodoge.server.runtime.inbox import TableGone
from bodoge.server.runtime.render import Step
from bodoge.server.runtime.seating import Seating
from bodoge.server.runtime.settings import settings_from_json
from bodoge.server.runtime.shown import ShownTable, send
from bodoge.server.runtime.table import TableHost
from bodoge.store import SeatRecord, TableBundle, Timers

if TYPE_CHECKING:
    from bodoge.cluster.bus import Subscription
    from bodoge.server.replication.mirrors import Mirrors

log = logging.getLogger(__name__)

#: Seconds a forwarded command's reply waits for the mirror to show the change.
SHOWN_WITHIN = 2.0


class Mirror(ShownTable):
    """A table another process owns, as this process's connections see it (read-only here)."""

    host: TableHost
    manager: Mirrors
    subscription: Subscription | None = None
    owner: str | None = None
    epoch: int | None = None
    last_seq: int | None = None
    #: Seated players connected anywhere, as the owner last said.
    present_ids: frozenset[str] = frozenset()
    #: People with the table open anywhere, as the owner last said (``None``: not said yet),
    #: and those here it had been told of then.
    online_told: int | None = None
    people_counted: frozenset[str] = frozenset()

    def follow(self, manager: Mirrors, owner: str | None, subscription: Subscription) -> None:
        """Start following the owner's publications (``subscription``) for ``manager``."""
        self.manager = manager
        self.owner = owner
        self.subscription = subscription
        self.presence_dirty = False
        self.presence_task: asyncio.Task[None] | None = None
        self.stale = False
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        #: The people here when the owner was last asked to count them.
        self._people_told: frozenset[str] = frozenset()

    def present(self, player_id: str | None) -> bool:
        return player_id is not None and (
            player_id in self.present_ids or self.audience.present(player_id)
        )

    def online(self) -> int:
        # The owner adds up every process's people; those who came or went here since it was
        # told are counted here meanwhile (the snapshot of a tab opening here counts its own).
        if self.online_told is None:
            return self.audience.people
        here = frozenset(self.audience.player_ids())
        came, went = here - self.people_counted, self.people_counted - here
        return max(0, self.online_told + len(came) - len(went))

    def _presence_changed(self) -> None:
        self.manager.report_presence(self)

    async def _watched(self) -> None:
        # A spectator's first tab here changes the table's ``online`` too: the owner counts.
        people = frozenset(self.audience.player_ids())
        if people != self._people_told:
            self._people_told = people
            self.manager.report_presence(self)

    def _close(self) -> None:
        self._inbox.close()
        self.manager.dropped(self)

    def stop(self) -> None:
        self._inbox.stop()

    # --- connections --------------------------------------------------------------------

    async def close(self, sub: Subscriber) -> None:
        await super().close(sub)
        self.manager.report_presence(self)

    async def hand_over(self) -> tuple[list[Subscriber], int, int]:
        """This process owns the table now: the connections, and the move and chat line
        they have seen; the mirror is closed."""
        subs = [sub for sub, _ in self.audience]
        self._close()
        return subs, self.n, self.chat.count

    # --- what the owner publishes -------------------------------------------------------

    async def receive(self, publication: Publication) -> None:
        """One publication of the owner, in order (run in the mirror's task)."""
        seq, epoch = publication.seq, publication.epoch
        if publication.owner is not None:
            self.owner = publication.owner
        fresh = epoch != self.epoch
        gap = self.last_seq is not None and seq > self.last_seq + 1
        if fresh or gap or self.stale:
            if fresh and self.epoch is not None:
                log.info("table %s: owned by %s at epoch %s now", self.id, self.owner, epoch)
            self.epoch = epoch
            if (fresh and self.last_seq is not None) or gap or self.stale:
                await self.resync()
            if fresh:
                self.manager.report_presence(self)  # the new owner learns who watches here
        self.last_seq = seq
        await _RECEIVE[type(publication.body)](self, publication.body)
        self._settle_waiters()

    async def _receive_move(self, m: MovePublished) -> None:
        if m.n <= self.n:
            return  # the database had it already
        if m.n > self.n + 1 or self.state is None:
            await self.resync()
            if m.n <= self.n:
                return
        self._apply_move(m)

    async def _receive_chat(self, m: ChatPublished) -> None:
        if m.line <= self.chat.count:
            return
        if m.line > self.chat.count + 1:
            await self.resync()
            if m.line <= self.chat.count:
                return
        self._add_chat(ChatLine(m.line, m.player, m.name, m.text, m.at))

    async def _receive_facts(self, m: FactsPublished) -> None:
        self.apply_facts({**m.facts, "notify": m.notify}, from_owner=True)

    async def _receive_removed(self, m: RemovedPublished) -> None:
        self.audience.send_all({"type": "table.removed", "table": self.id})
        self._close()

    def _add_chat(self, line: ChatLine) -> None:
        self.chat.add(line)
        self.audience.send_all(line.to_json(self.id))

    def _apply_move(self, m: MovePublished) -> None:
        game = self.game
        move = game.move_from_json(m.move)
        before = self.state
        state, events = game.apply(before, m.seat, move)
        self.deadlines = _deadlines(m.deadlines)
        step = Step(m.n, m.seat, move, m.at, m.actor, self.deadlines, m.clock_deadline)
        self.steps.append(step)
        self.state = state
        result = game.result(state)
        self.clock = None if result is not None else game.clock(state)
        self.clock_deadline = m.clock_deadline
        self._summary = None
        self._announce(step, before, events)
        if result is not None:
            self.status, self.finished_at = "finished", step.at

    def take_online(self, facts: Mapping[str, JSON]) -> None:
        """The owner's count of the people who have the table open (its facts' ``online``)."""
        online = facts.get("online")
        if isinstance(online, int) and not isinstance(online, bool) and online >= 0:
            self.online_told = online

    def apply_facts(self, facts: Mapping[str, JSON], *, from_owner: bool) -> None:
        """The table's public facts (seats, settings, people, status, timers, the rematch) as
        the owner or the store has them; a seat change moves this process's connections to
        their new seat, new settings send each a snapshot."""
        seats = tuple(SeatRecord(*row) for row in facts["seats"])
        settings = facts.get("settings")
        # The host changed them (waiting room): every tab gets a fresh snapshot, as the
        # owner's tabs do.
        new_settings = settings_from_json(settings) if isinstance(settings, dict) else None
        configured = new_settings is not None and new_settings != self.settings
        if new_settings is not None and configured:
            self.settings, self._summary = new_settings, None
        options = facts.get("options")
        if isinstance(options, dict) and options != self.options_json:
            self.options = self.game.options(options)
            self.options_json, self._summary = self.game.options_json(self.options), None
            configured = True
        if "rematch" in facts:
            rematch = facts["rematch"]
            self.rematch = rematch if isinstance(rematch, str) else None
        people = facts.get("people") or {}
        assert isinstance(people, dict)
        for player_id, name in people.items():
            self.people[player_id] = self.host.known(player_id, str(name))
        if from_owner:
            present = facts.get("present") or []
            assert isinstance(present, list)
            self.present_ids = frozenset(str(p) for p in present)
            self.take_online(facts)
        status = facts["status"]
        changed = (seats, facts.get("host"), status) != (self.seats, self.seating.host, self.status)
        self.seating = Seating(seats, facts.get("host"))
        deadlines = _deadlines(facts.get("deadlines"))
        clock_deadline = facts.get("clock_deadline")
        clock_deadline = clock_deadline if isinstance(clock_deadline, int) else None
        ended = facts.get("ended")
        self.status = status
        self.ended = ended
        self.started_at = facts.get("started_at")
        self.finished_at = facts.get("finished_at")
        self.deadlines, self.clock_deadline = deadlines, clock_deadline
        started = self.state is None and status != "waiting"
        if started:
            self.state = self.game.setup(self.options, len(self.seats), self.seed)
        if self.state is not None:
            done = self.game.result(self.state) is not None or status != "playing"
            self.clock = None if done else self.game.clock(self.state)
        moved: list[Subscriber] = []
        for player_id in {sub.player_id for sub, _ in self.audience if sub.player_id}:
            seat = self.seat_of(player_id)
            if any(s.player_id == player_id and at != seat for s, at in self.audience):
                moved += self.audience.reseat(player_id, seat)
        for sub, seat in self.audience:
            if configured or (self.state is not None and (started or sub in moved)):
                send(sub, self.snapshot(seat))
        if facts.get("notify") or moved or (changed and not from_owner):
            self._seats_changed()
        else:
            self._summary = None

    # --- catching up from the database ------------------------------------------------------
    async def resync(self) -> None:
        """Bring the mirror up to the database (a gap, a new owner, Redis reconnected)."""
        try:
            bundle = await self.host.store.load_table(
                self.id, chat=self.host.config.limits.chat_backlog
            )
        except Exception as exc:  # the database is away: try again in a moment
            log.warning("table %s: the mirror cannot catch up now: %s", self.id, exc)
            self._stale_retry()
            return
        if bundle is None:  # deleted meanwhile
            self.audience.send_all({"type": "table.removed", "table": self.id})
            self._close()
            return
        self.catch_up(bundle)

    def catch_up(self, bundle: TableBundle) -> None:
        """Apply what the store has that the mirror has not shown yet, in order."""
        record = bundle.table
        self.stale = False
        facts: dict[str, JSON] = {
            "seats": [[s.seat, s.kind, s.player, s.level, s.left] for s in bundle.seats],
            "host": record.host,
            "settings": record.settings,
            "options": record.options,
            "rematch": record.rematch,
            "people": {p.id: p.name for p in bundle.players.values()},
            "status": record.status,
            "ended": record.result,
            "started_at": record.started_at,
            "finished_at": record.finished_at,
            "deadlines": record.deadlines,
            "clock_deadline": record.clock_deadline,
        }
        missed = [r for r in bundle.moves if r.n > self.n]
        if self.state is None and record.status != "waiting":
            # The start was missed: set the game up first, then its moves.
            self.apply_facts(
                {**facts, "status": "playing", "ended": None, "deadlines": {}}, from_owner=False
            )
        for r in missed:
            if r.n != self.n + 1:
                break
            timers = r.timers
            if timers is None:  # stored before moves kept their timers: the last has the table's
                last = r.n == len(bundle.moves)
                timers = Timers(dict(record.deadlines) if last else {}, record.clock_deadline)
            self._apply_move(
                MovePublished(
                    r.n,
                    r.seat,
                    r.move,
                    r.at,
                    r.actor,
                    dict(timers.deadlines),
                    timers.clock_deadline,
                )
            )
        for c in bundle.chat:
            if c.line == self.chat.count + 1:
                self._add_chat(ChatLine.from_record(c))
        self.apply_facts(facts, from_owner=False)
        self._settle_waiters()

    def _stale_retry(self) -> None:
        self.stale = True
        asyncio.get_running_loop().call_later(1.0, self.post, self._retry_resync)

    async def _retry_resync(self) -> None:
        if self.stale and not self.closed:
            await self.resync()

    # --- waiting until a change is shown ---------------------------------------------------
    async def shown(self, epoch: int | None, seq: int, timeout: float = SHOWN_WITHIN) -> None:
        """Wait until the mirror has taken publication ``seq`` of ``epoch`` (or time is up)."""
        if self.closed or epoch != self.epoch or (self.last_seq or 0) >= seq:
            if epoch != self.epoch and not self.closed:
                # Another epoch than the one the mirror follows: catch up from the store.
                with contextlib.suppress(TableGone):
                    await self.call(self.resync)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((seq, future))
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            log.info(
                "table %s: publication %d not seen in %.1f s; catching up", self.id, seq, timeout
            )
            with contextlib.suppress(TableGone):
                await self.call(self.resync)

    def _settle_waiters(self) -> None:
        seen = self.last_seq or 0
        waiting = []
        for seq, future in self._waiters:
            if seq <= seen or self.closed:
                if not future.done():
                    future.set_result(None)
            else:
                waiting.append((seq, future))
        self._waiters = waiting


_RECEIVE: dict[type[Published], Callable[[Mirror, Any], Awaitable[None]]] = {
    MovePublished: Mirror._receive_move,
    ChatPublished: Mirror._receive_chat,
    FactsPublished: Mirror._receive_facts,
    RemovedPublished: Mirror._receive_removed,
}


def _deadlines(raw: object) -> dict[Seat, int]:
    if not isinstance(raw, dict):
        return {}
    return {int(s): int(at) for s, at in raw.items()}

"""Tables another process runs, watched and played through this one (cluster mode).

In a cluster one process owns each live table (``bodoge/cluster/ownership.py``) and is the
only one that changes it. Any other process can still serve any player of it:

* **Replicas.** A process whose connections open a table it does not own keeps a
  :class:`Replica`: the table as its history made it, loaded from the database, kept
  current by what the owner publishes on ``{ns}:table:{id}`` — each committed move (the
  move as stored, which the replica applies with the game's pure rules to get the same
  state and events), each chat line, and the table's public facts (seats, people, status,
  timers, who is connected). The replica renders every frame for its own connections with
  the same seat renderer as the owner (:mod:`bodoge.server.runtime.render`, through
  :class:`~bodoge.server.runtime.table.LiveTable`, which it extends): no rendered frame and no
  hidden view ever crosses the bus.
* **Gaps.** Publications carry the owner's epoch and a sequence number. A replica that
  sees a new epoch (another process took the table over) or a gap in the numbers — or
  whose bus reconnected to Redis — catches up from the database, which has every
  committed move: its connections get every missed event, in order.
* **Commands.** A command for a table owned elsewhere (move, join, leave, chat, …) is sent
  as data to the owner's process channel (``Bus.request``) and run there exactly as if
  its own connection had sent it; the reply (an ``ack``, or an error with its code) comes
  back and goes to the client — after the replica has shown the change the command made.
  An owner that is gone is waited for while the table is taken over.
* **Presence.** Each replica tells the owner which players have the table open through
  this process (``watch``); the owner adds it up, so seats show connected wherever their
  player is connected, and a table watched anywhere stays in its owner's memory.
* **Promotion.** When this process takes a table over (its owner died) or claims it, the
  connections that watched its replica are handed to the live table, with the events they
  had not seen yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import orjson

from bodoge.cluster.bus import BusError, NoReply, Refused, RemoteError, Subscription
from bodoge.cluster.tasks import cancel_and_wait
from bodoge.core.errors import GameError
from bodoge.core.game import Game, Seat
from bodoge.core.values import JSON
from bodoge.server.runtime import commands
from bodoge.server.runtime.chat import ChatLine
from bodoge.server.runtime.commands import TableCommand
from bodoge.server.runtime.fanout import Subscriber
from bodoge.server.runtime.inbox import TableGone
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.runtime.render import Step
from bodoge.server.runtime.seating import Seating
from bodoge.server.runtime.settings import settings_from_json
from bodoge.server.runtime.table import LiveTable, Reply
from bodoge.store import SeatRecord, StoreUnavailable, TableBundle, TableRecord

if TYPE_CHECKING:
    from bodoge.cluster.service import ClusterService
    from bodoge.server.runtime.tables import Tables
    from bodoge.server.services.identity import Player

log = logging.getLogger(__name__)

#: Seconds a forwarded command waits for a new owner when its owner is gone.
PATIENCE = 8.0
#: Seconds a forwarded command's reply waits for the replica to show the change.
SHOWN_WITHIN = 2.0


class RefusedThere(GameError):
    """The owner refused a forwarded command: its error code and message, passed on."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class OwnedElsewhere(ProtocolError):
    """Another live process runs the table (``owner``); ``table_unavailable`` to old callers."""

    def __init__(self, table_id: str, owner: str | None) -> None:
        super().__init__("table_unavailable", "another server process runs this table")
        self.table_id = table_id
        self.owner = owner


class Replica(LiveTable):
    """A table another process owns, as this process's connections see it (read-only here).

    It never writes to the store, runs no timer and asks no bot: it changes only by what
    the owner publishes (:meth:`receive`) and by what the database holds (:meth:`resync`).
    """

    manager: Replicas
    _present_ids: frozenset[str] = frozenset()
    subscription: Subscription | None = None
    owner: str | None = None
    epoch: int | None = None
    last_seq: int | None = None

    def _setup_replica(self, manager: Replicas, owner: str | None) -> None:
        self.manager = manager
        self.owner = owner
        #: Seated players connected anywhere, as the owner last said.
        self._present_ids: frozenset[str] = frozenset()
        self.presence_dirty = False
        self.presence_task: asyncio.Task[None] | None = None
        self.stale = False
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []

    # --- what a replica never does ------------------------------------------------------

    def start(self) -> None:
        self._inbox.start()

    def _arm(self) -> None:
        pass

    def _ask_bots(self) -> None:
        pass

    async def _watched(self) -> None:
        pass

    @property
    def publishes(self) -> bool:
        return False  # the owner tells; a replica only listens

    def _quiet_seconds(self) -> float | None:
        return None

    def present(self, player_id: str | None) -> bool:
        return player_id is not None and (
            player_id in self._present_ids or self.audience.present(player_id)
        )

    def watchers(self) -> int:
        return len(self.audience)

    def _seats_changed(self) -> None:
        self._summary = None
        self.audience.send_all(self._seats_message())

    def _presence_changed(self) -> None:
        self.manager.report_presence(self)

    def _close(self) -> None:
        self._inbox.close()
        self.manager.dropped(self)

    @property
    def closed(self) -> bool:
        return self._inbox.closed

    # --- connections --------------------------------------------------------------------

    async def close(self, sub: Subscriber) -> None:
        await super().close(sub)
        self.manager.report_presence(self)

    async def hand_over(self) -> tuple[list[Subscriber], int, int]:
        """This process owns the table now: the connections, and the move and chat line
        they have seen; the replica is closed."""
        subs = [sub for sub, _ in self.audience]
        self._close()
        return subs, self.n, self.chat.count

    # --- what the owner publishes -------------------------------------------------------

    async def receive(self, message: dict[str, JSON]) -> None:
        """One publication of the owner, in order (run in the replica's task)."""
        seq, epoch = message.get("seq"), message.get("epoch")
        if isinstance(message.get("owner"), str):
            self.owner = str(message["owner"])
        assert isinstance(seq, int)
        fresh = epoch != self.epoch
        gap = self.last_seq is not None and seq > self.last_seq + 1
        if fresh or gap or self.stale:
            if fresh and self.epoch is not None:
                log.info("table %s: owned by %s at epoch %s now", self.id, self.owner, epoch)
            self.epoch = epoch if isinstance(epoch, int) else None
            if (fresh and self.last_seq is not None) or gap or self.stale:
                await self.resync()
            if fresh:
                self.manager.report_presence(self)  # the new owner learns who watches here
        self.last_seq = seq
        kind = message.get("kind")
        if kind == "move":
            await self._receive_move(message)
        elif kind == "chat":
            await self._receive_chat(message)
        elif kind == "table":
            self.apply_facts(message, from_owner=True)
        elif kind == "removed":
            self.audience.send_all({"type": "table.removed", "table": self.id})
            self._close()
        self._settle_waiters()

    async def _receive_move(self, m: Mapping[str, JSON]) -> None:
        n = m["n"]
        assert isinstance(n, int)
        if n <= self.n:
            return  # the database had it already
        if n > self.n + 1 or self.state is None:
            await self.resync()
            if n <= self.n:
                return
        self._apply_move(m)

    async def _receive_chat(self, m: Mapping[str, JSON]) -> None:
        line = m["line"]
        assert isinstance(line, int)
        if line <= self.chat.count:
            return
        if line > self.chat.count + 1:
            await self.resync()
            if line <= self.chat.count:
                return
        self._add_chat(ChatLine(line, str(m["player"]), str(m["name"]), str(m["text"]), m["at"]))  # type: ignore[arg-type]

    def _add_chat(self, line: ChatLine) -> None:
        self.chat.add(line)
        self.audience.send_all(line.to_json(self.id))

    def _apply_move(self, m: Mapping[str, JSON]) -> None:
        game = self.game
        seat = m["seat"]
        move = game.move_from_json(m["move"])  # type: ignore[arg-type]
        before = self.state
        state, events = game.apply(before, seat, move)  # type: ignore[arg-type]
        step = Step(int(m["n"]), seat, move, int(m["at"]), str(m["actor"]))  # type: ignore[arg-type]
        self.steps.append(step)
        self.state = state
        result = game.result(state)
        self.deadlines = _deadlines(m.get("deadlines"))
        self.clock = None if result is not None else game.clock(state)
        clock_deadline = m.get("clock_deadline")
        self.clock_deadline = clock_deadline if isinstance(clock_deadline, int) else None
        self._summary = None
        self._announce(step, before, events)
        if result is not None:
            self.status, self.finished_at = "finished", step.at

    def apply_facts(self, facts: Mapping[str, JSON], *, from_owner: bool) -> None:
        """The table's public facts (seats, settings, people, status, timers, the rematch) as
        the owner or the store has them; a seat change moves this process's connections to
        their new seat, new settings send each a snapshot."""
        seats = tuple(SeatRecord(*row) for row in facts["seats"])  # type: ignore[union-attr,misc]
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
            self._present_ids = frozenset(str(p) for p in present)
        status = facts["status"]
        changed = (seats, facts.get("host"), status) != (self.seats, self.seating.host, self.status)
        self.seating = Seating(seats, facts.get("host"))  # type: ignore[arg-type]
        deadlines = _deadlines(facts.get("deadlines"))
        clock_deadline = facts.get("clock_deadline")
        clock_deadline = clock_deadline if isinstance(clock_deadline, int) else None
        ended = facts.get("ended")
        if (deadlines, clock_deadline, ended) != (self.deadlines, self.clock_deadline, self.ended):
            self._told.clear()
        self.status = status  # type: ignore[assignment]
        self.ended = ended
        self.started_at = facts.get("started_at")  # type: ignore[assignment]
        self.finished_at = facts.get("finished_at")  # type: ignore[assignment]
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
                sub.send_text(_encode(self.snapshot(seat)))
        if facts.get("notify") or moved or (changed and not from_owner):
            self._seats_changed()
        else:
            self._summary = None

    # --- catching up from the database ------------------------------------------------------

    async def resync(self) -> None:
        """Bring the replica up to the database (a gap, a new owner, Redis reconnected)."""
        try:
            bundle = await self.host.store.load_table(
                self.id, chat=self.host.config.limits.chat_backlog
            )
        except Exception as exc:  # the database is away: try again in a moment
            log.warning("table %s: the replica cannot catch up now: %s", self.id, exc)
            self._stale_retry()
            return
        if bundle is None:  # deleted meanwhile
            self.audience.send_all({"type": "table.removed", "table": self.id})
            self._close()
            return
        self.catch_up(bundle)

    def catch_up(self, bundle: TableBundle) -> None:
        """Apply what the store has that the replica has not shown yet, in order."""
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
            "deadlines": record.deadlines,  # type: ignore[dict-item]
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
            self._apply_move(
                {
                    "n": r.n,
                    "seat": r.seat,
                    "move": r.move,
                    "at": r.at,
                    "actor": r.actor,
                    "deadlines": record.deadlines if r.n == len(bundle.moves) else {},  # type: ignore[dict-item]
                    "clock_deadline": record.clock_deadline,
                }
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
        """Wait until the replica has taken publication ``seq`` of ``epoch`` (or time is up)."""
        if self.closed or epoch != self.epoch or (self.last_seq or 0) >= seq:
            if epoch != self.epoch and not self.closed:
                # Another epoch than the one the replica follows: catch up from the store.
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


def _deadlines(raw: object) -> dict[Seat, int]:
    if not isinstance(raw, dict):
        return {}
    return {int(s): int(at) for s, at in raw.items()}


def _encode(message: Mapping[str, JSON]) -> str:
    from bodoge.server.runtime.protocol import encode

    return encode(message)


class Replicas:
    """This process's replicas, forwarded commands, and the owner's end of both."""

    def __init__(self, tables: Tables, cluster: ClusterService) -> None:
        self.tables = tables
        self.cluster = cluster
        self.bus = cluster.bus
        self.process = cluster.process
        self.replicas: dict[str, Replica] = {}
        self._loading: dict[str, asyncio.Task[Replica]] = {}
        self._buffers: dict[str, list[dict[str, JSON]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Extra request handlers by ``op`` (the lobby's).
        self.ops: dict[str, Callable[[dict[str, JSON]], Awaitable[JSON]]] = {}

    async def start(self) -> None:
        self.ops["create"] = self._run_create
        self.bus.serve(self._serve)
        self.bus.add_reconnect_hook(self._reconnected)
        self.tables.spawn(self._forget_dead_processes())

    async def close(self) -> None:
        """Stop every replica and what runs for them (the server is stopping)."""
        for replica in list(self.replicas.values()):
            replica.stop()
        await cancel_and_wait(self._tasks)

    def get(self, table_id: str) -> Replica | None:
        return self.replicas.get(table_id)

    # --- replicas ------------------------------------------------------------------------

    async def replica(self, table_id: str, owner: str | None) -> Replica:
        """The replica of ``table_id`` (loaded and subscribed if there is none yet)."""
        replica = self.replicas.get(table_id)
        if replica is not None and not replica.closed:
            return replica
        loading = self._loading.get(table_id)
        if loading is None:
            loading = self._loading[table_id] = asyncio.create_task(self._load(table_id, owner))
            loading.add_done_callback(lambda _: self._loading.pop(table_id, None))
        return await asyncio.shield(loading)

    async def _load(self, table_id: str, owner: str | None) -> Replica:
        buffer: list[dict[str, JSON]] = []
        self._buffers[table_id] = buffer

        async def deliver(data: bytes) -> None:
            message = orjson.loads(data)
            replica = self.replicas.get(table_id)
            if replica is not None and replica.subscription is subscription:
                replica.post(replica.receive, message)
            elif self._buffers.get(table_id) is buffer:
                buffer.append(message)

        subscription = await self.bus.subscribe(self.cluster.namespace.table(table_id), deliver)
        try:
            limits = self.tables.config.limits
            bundle = await self.tables.store.load_table(table_id, chat=limits.chat_backlog)
            game = None if bundle is None else self.tables.games.get(bundle.table.game)
            if bundle is None or game is None:
                raise ProtocolError("unknown_table", "no such table")
            replica = _restore(self.tables, game, bundle)
        except BaseException:
            self._buffers.pop(table_id, None)
            await subscription.cancel()
            raise
        replica._setup_replica(self, owner)
        replica.subscription = subscription
        self.replicas[table_id] = replica
        self._buffers.pop(table_id, None)
        replica.start()
        for message in buffer:
            replica.post(replica.receive, message)
        self.report_presence(replica)
        return replica

    def dropped(self, replica: Replica) -> None:
        """A replica closed: it stops listening to its table's channel."""
        if self.replicas.get(replica.id) is replica:
            del self.replicas[replica.id]
        subscription, replica.subscription = replica.subscription, None
        if subscription is not None:
            self.tables.spawn(subscription.cancel())

    async def watch(
        self,
        table_id: str,
        owner: str | None,
        command: Callable[..., Awaitable[Any]],
        *args: Any,
    ) -> Any:
        """Run ``command(replica, *args)`` (opening, closing) in the replica's task."""
        for _ in range(5):
            replica = await self.replica(table_id, owner)
            try:
                return await replica.call(command, replica, *args)
            except TableGone:
                continue
        raise ProtocolError("internal_error", "the table kept moving; try again")

    async def promote(self, table: LiveTable) -> None:
        """This process runs ``table`` now: its replica's connections watch the live table."""
        replica = self.replicas.get(table.id)
        if replica is None:
            return
        try:
            subs, since, chat_since = await replica.call(replica.hand_over)
        except TableGone:
            return
        try:
            await table.call(table.adopt, subs, since, chat_since)
        except TableGone:
            for sub in subs:
                sub.kick(1012, flush=True)

    # --- presence: who watches through this process -------------------------------------------

    def report_presence(self, replica: Replica) -> None:
        """Tell the owner (soon) who has the table open here."""
        replica.presence_dirty = True
        if replica.presence_task is None or replica.presence_task.done():
            replica.presence_task = asyncio.create_task(self._presence(replica))
            self._tasks.add(replica.presence_task)
            replica.presence_task.add_done_callback(self._tasks.discard)

    async def _presence(self, replica: Replica) -> None:
        failures = 0
        while replica.presence_dirty:
            replica.presence_dirty = False
            players = sorted({sub.player_id for sub, _ in replica.audience if sub.player_id})
            watchers = 0 if replica.closed else len(replica.audience)
            call: dict[str, JSON] = {
                "op": "watch",
                "table": replica.id,
                "process": self.process,
                "players": players,  # type: ignore[dict-item]
                "watchers": watchers,
            }
            try:
                answer = await self.ask_owner(replica.id, replica.owner, call)
            except Exception as exc:  # the owner or the database away: again in a moment
                if replica.closed or getattr(exc, "code", "") == "unknown_table":
                    break
                failures += 1
                log.info("table %s: telling its owner who watches failed: %s", replica.id, exc)
                replica.presence_dirty = True
                await asyncio.sleep(min(2.0, 0.2 * failures))
                continue
            if answer is None:  # this process runs the table now
                break
            if not replica.closed:
                replica.post(_apply_owner_facts, replica, answer)
        if not replica.closed and not len(replica.audience):
            replica.post(_close_if_unwatched, replica)

    # --- commands ---------------------------------------------------------------------------

    async def command(
        self,
        command: TableCommand,
        player: Player,
        here: Callable[[], Awaitable[Any]],
        reply: Reply,
    ) -> None:
        """A table command from a connection here: run here if this process runs the table
        (or can claim it), else on its owner; the reply goes to ``reply`` either way."""
        table_id = command.table
        replica = self.replicas.get(table_id)
        owner = replica.owner if replica is not None else None
        call: dict[str, JSON] = {
            "op": "command",
            "table": table_id,
            "player": player.id,
            "name": player.name,
            "request": commands.to_json(command),
        }
        answer = await self.ask_owner(table_id, owner, call, here=here)
        if answer is None:  # run here, and answered already
            return
        assert isinstance(answer, dict)
        await self._shown(table_id, answer)
        message = answer.get("reply")
        reply(message if isinstance(message, dict) else {"type": "ack", "table": table_id})

    async def rematch(
        self, table_id: str, player: Player, gone: str | None
    ) -> tuple[str, Seat, bool]:
        """:meth:`LiveTable.rematch_for` of a finished table, run where the table runs."""
        made: list[tuple[str, Seat, bool]] = []

        async def here() -> None:
            made.append(await self.tables.call(table_id, LiveTable.rematch_for, player.id, gone))

        replica = self.replicas.get(table_id)
        call: dict[str, JSON] = {
            "op": "rematch",
            "table": table_id,
            "player": player.id,
            "name": player.name,
            "gone": gone,
        }
        answer = await self.ask_owner(table_id, replica.owner if replica else None, call, here=here)
        if answer is None:
            return made[0]
        assert isinstance(answer, dict)
        await self._shown(table_id, answer)  # the replica shows the rematch before the reply
        return str(answer["rematch"]), int(answer["seat"]), bool(answer["made"])  # type: ignore[arg-type]

    async def _shown(self, table_id: str, answer: dict[str, JSON]) -> None:
        """Wait until the replica here shows what the owner had published when it answered."""
        replica = self.replicas.get(table_id)
        seq, epoch = answer.get("seq"), answer.get("epoch")
        if replica is not None and isinstance(seq, int):
            await replica.shown(epoch if isinstance(epoch, int) else None, seq)

    async def ask_owner(
        self,
        table_id: str,
        owner: str | None,
        call: dict[str, JSON],
        *,
        here: Callable[[], Awaitable[Any]] | None = None,
    ) -> JSON:
        """Send ``call`` to the table's owner; ``None`` if this process runs the table.

        With no owner known, the table is looked up (and claimed if nobody live runs it, so
        that ``here`` runs it). An owner that is gone is waited for, up to :data:`PATIENCE`
        seconds, while another process takes the table over.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PATIENCE
        while True:
            if owner is None or owner == self.process:
                try:
                    if here is None:
                        await self.promote(await self.tables.get(table_id))
                    else:
                        await here()
                    return None
                except OwnedElsewhere as elsewhere:
                    owner = elsewhere.owner
                    if owner is None:  # its owner just let it go, or its lease ran out
                        if loop.time() > deadline:
                            raise
                        await asyncio.sleep(0.1)
                        continue
            try:
                return await self.bus.request(owner, call)
            except RemoteError as refusal:
                error = refusal.error if isinstance(refusal.error, dict) else {}
                code = str(error.get("code", "internal_error"))
                if code == "moved":
                    moved_to = error.get("owner")
                    owner = moved_to if isinstance(moved_to, str) and moved_to != owner else None
                    if loop.time() < deadline:
                        await asyncio.sleep(0.05)
                        continue
                    raise ProtocolError(
                        "table_unavailable", "the table is changing hands"
                    ) from None
                message = str(error.get("message", "refused"))
                if code in _PROTOCOL_CODES:
                    raise ProtocolError(code, message) from None
                raise RefusedThere(code, message) from None
            except NoReply as silence:
                if silence.reason != "nobody listens" or loop.time() > deadline:
                    raise ProtocolError(
                        "table_unavailable",
                        "the server process running this table did not answer; try again",
                    ) from None
            except BusError:
                if loop.time() > deadline:
                    raise ProtocolError(
                        "table_unavailable", "the cluster's message bus is away; try again"
                    ) from None
            # The owner is gone (or Redis is): wait a little for the takeover, look again.
            await asyncio.sleep(0.25)
            owner = None

    # --- new tables spread over the processes ------------------------------------------------

    async def create_on(
        self, process: str, record: TableRecord, seats: list[SeatRecord], player: Player
    ) -> bool:
        """Have ``process`` store and run a new table; False if it is gone (make it here).

        Other failures (its store refused, no answer in time) are the creation's.
        """
        call: dict[str, JSON] = {
            "op": "create",
            "record": {
                "id": record.id,
                "game": record.game,
                "options": record.options,  # type: ignore[dict-item]
                "settings": record.settings,  # type: ignore[dict-item]
                "seed": record.seed,
                "host": record.host,
                "created_at": record.created_at,
            },
            "seats": [[s.seat, s.kind, s.player, s.level, s.left] for s in seats],  # type: ignore[dict-item]
            "player": player.id,
            "name": player.name,
        }
        loads = self.cluster.ownership.loads
        try:
            answer = await self.bus.request(process, call)
        except NoReply as silence:
            if silence.reason == "nobody listens":
                loads.pop(process, None)
                return False
            raise ProtocolError(
                "table_unavailable", "the server process making the table did not answer"
            ) from None
        except RemoteError as refusal:
            error = refusal.error if isinstance(refusal.error, dict) else {}
            code = str(error.get("code", "internal_error"))
            message = str(error.get("message", "refused"))
            if code in _PROTOCOL_CODES:
                raise ProtocolError(code, message) from None
            raise RefusedThere(code, message) from None
        except BusError:
            return False  # Redis away: nobody else can be asked, so here
        load = answer.get("load") if isinstance(answer, dict) else None
        loads[process] = load if isinstance(load, int) else loads.get(process, 0) + 1
        return True

    async def _run_create(self, call: dict[str, JSON]) -> JSON:
        raw = call.get("record")
        rows = call.get("seats")
        if not isinstance(raw, dict) or not isinstance(rows, list):
            raise Refused({"code": "bad_message", "message": "no table"})
        record = TableRecord(
            id=str(raw["id"]),
            game=str(raw["game"]),
            options=raw["options"],  # type: ignore[arg-type]
            settings=raw["settings"],  # type: ignore[arg-type]
            seed=int(raw["seed"]),  # type: ignore[arg-type]
            status="waiting",
            host=str(raw["host"]),
            created_at=int(raw["created_at"]),  # type: ignore[arg-type]
        )
        if record.game not in self.tables.games:
            raise Refused({"code": "unknown_game", "message": f"no game {record.game[:40]!r}"})
        seats = [SeatRecord(*row) for row in rows]  # type: ignore[misc]
        player = self.tables.known(str(call.get("player")), str(call.get("name")))
        await self.tables.start_new(record, seats, player)
        return {"table": record.id, "load": len(self.cluster.ownership.held)}

    # --- the owner's end ------------------------------------------------------------------------

    async def _serve(self, call: dict[str, JSON]) -> JSON:
        op = call.get("op")
        try:
            if op in self.ops:
                return await self.ops[str(op)](call)
            table_id = call.get("table")
            if not isinstance(table_id, str):
                raise Refused({"code": "bad_message", "message": "no table"})
            if op == "command":
                return await self._run_command(table_id, call)
            if op == "rematch":
                return await self._run_rematch(table_id, call)
            if op == "watch":
                players = call.get("players") or []
                assert isinstance(players, list)
                watchers = call.get("watchers")
                if not watchers and table_id not in self.tables.live:
                    return {}  # nobody watches there, and the table is not loaded here
                facts = await self.tables.call(
                    table_id,
                    LiveTable.remote_watch,
                    str(call.get("process")),
                    frozenset(str(p) for p in players),
                    watchers if isinstance(watchers, int) else 0,
                )
                return {**facts, "epoch": self.cluster.ownership.held.get(table_id)}
            raise Refused({"code": "bad_message", "message": f"unknown op {op!r}"})
        except OwnedElsewhere as elsewhere:
            raise Refused({"code": "moved", "owner": elsewhere.owner}) from None
        except (ProtocolError, GameError) as exc:
            raise Refused({"code": exc.code, "message": str(exc)[:300]}) from None
        except TableGone:
            raise Refused({"code": "moved", "owner": None}) from None
        except StoreUnavailable:
            raise Refused(
                {"code": "store_unavailable", "message": "the server cannot store anything now"}
            ) from None

    async def _run_command(self, table_id: str, call: dict[str, JSON]) -> JSON:
        player_id, name = str(call.get("player")), str(call.get("name"))
        request = call.get("request")
        if not isinstance(request, dict):
            raise Refused({"code": "bad_message", "message": "no request"})
        player = self.tables.players.get(player_id)
        if player is None:  # held while the command runs, then by the table if it seats them
            player = self.tables.known(player_id, name)
        try:
            command = commands.from_json(request)
        except (ValueError, TypeError):
            raise Refused({"code": "bad_message", "message": "not a table command"}) from None
        replies: list[dict[str, JSON]] = []
        await self.tables.call(table_id, commands.run, command, player, replies.append)
        table = self.tables.live.get(table_id)
        epoch = self.cluster.ownership.held.get(table_id)
        return {
            "reply": replies[-1] if replies else {"type": "ack", "table": table_id},
            "seq": table.seq if table is not None else 0,
            "epoch": epoch,
        }

    async def _run_rematch(self, table_id: str, call: dict[str, JSON]) -> JSON:
        player_id, gone = str(call.get("player")), call.get("gone")
        # Held while the rematch is made (its host), then by the new table.
        self.tables.known(player_id, str(call.get("name")))
        rematch, seat, made = await self.tables.call(
            table_id, LiveTable.rematch_for, player_id, gone if isinstance(gone, str) else None
        )
        table = self.tables.live.get(table_id)
        return {
            "rematch": rematch,
            "seat": seat,
            "made": made,
            "seq": table.seq if table is not None else 0,
            "epoch": self.cluster.ownership.held.get(table_id),
        }

    # --- Redis came back, processes went ------------------------------------------------

    async def _reconnected(self) -> None:
        """Publications were lost while Redis was away: every replica catches up."""
        for replica in list(self.replicas.values()):
            replica.post(replica.resync)
            self.report_presence(replica)

    async def _forget_dead_processes(self) -> None:
        """The owner drops the presence of processes whose lease ran out (killed)."""
        ownership = self.cluster.ownership
        while True:
            await asyncio.sleep(max(0.5, ownership.lease / 2))
            tables = [t for t in self.tables.live.values() if t.remote_processes]
            if not tables:
                continue
            try:
                live = frozenset(await ownership.live_processes())
            except Exception:
                continue
            for table in tables:
                if table.remote_processes - live:
                    table.post(table.forget_processes, live)


_PROTOCOL_CODES: frozenset[str] = frozenset()


def _init_codes() -> None:
    from bodoge.server.runtime.protocol import ERRORS

    global _PROTOCOL_CODES
    _PROTOCOL_CODES = frozenset(ERRORS)


_init_codes()


def _restore(tables: Tables, game: Game, bundle: TableBundle) -> Replica:
    replica = Replica.restore(tables, game, bundle)
    assert isinstance(replica, Replica)
    return replica


async def _apply_owner_facts(replica: Replica, facts: JSON) -> None:
    """The owner's answer to ``watch``: its facts, unless publications since told newer ones."""
    if not isinstance(facts, dict) or replica.closed:
        return
    seq, epoch = facts.get("seq"), facts.get("epoch")
    if replica.last_seq is None and isinstance(seq, int) and isinstance(epoch, int):
        # Nothing heard on the channel yet: the numbers go on from the owner's, so that a
        # publication lost before the first one that arrives is a gap too.
        replica.last_seq, replica.epoch = seq, epoch
    older = (
        replica.epoch is not None
        and epoch == replica.epoch
        and isinstance(seq, int)
        and seq < (replica.last_seq or 0)
    )
    if older:  # only who is connected is news
        present = facts.get("present") or []
        assert isinstance(present, list)
        if frozenset(str(p) for p in present) != replica._present_ids:
            replica._present_ids = frozenset(str(p) for p in present)
            replica._seats_changed()
        return
    replica.apply_facts(facts, from_owner=True)


async def _close_if_unwatched(replica: Replica) -> None:
    if not len(replica.audience) and not replica.closed:
        replica._close()

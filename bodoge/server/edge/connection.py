"""One WebSocket (one browser tab): limits, identity and the requests it may make.

Frames are read and answered one at a time, in order.  Outgoing messages go
through a bounded queue drained by a writer task, so a slow or dead client
never holds up a table: when its queue is full it is dropped (close 4009) and
must reconnect and resync.  The transport is anything that can send a text
frame and close, which keeps this module free of Starlette.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from bodoge.core.errors import GameError
from bodoge.core.values import JSON
from bodoge.server.edge.requests import (
    Assist,
    CloseTable,
    Command,
    CreateTable,
    Hello,
    LobbySubscribe,
    LobbyUnsubscribe,
    OpenTable,
    Rematch,
    Rename,
    Request,
    parse_command,
)
from bodoge.server.runtime.commands import TABLE_COMMANDS, Join, TableCommand
from bodoge.server.runtime.config import Limits
from bodoge.server.runtime.inbox import TableGone
from bodoge.server.runtime.lobby import Lobby
from bodoge.server.runtime.players import Player
from bodoge.server.runtime.protocol import ProtocolError, encode, now_ms
from bodoge.server.runtime.reach import Reach
from bodoge.server.runtime.stats import Counters
from bodoge.server.runtime.table import Reply
from bodoge.server.runtime.tables import Tables
from bodoge.server.services.devices import device
from bodoge.server.services.identity import Players, hash_token
from bodoge.server.services.quotas import Buckets
from bodoge.server.services.replies import (
    REMEMBERED,
    RETRY_WAIT_SECONDS,
    RecentReplies,
    kept_for_retry,
)
from bodoge.store import Store, StoreUnavailable, is_unavailable

if TYPE_CHECKING:
    from bodoge.server.edge.admission import Admission
    from bodoge.server.services.accounts import Sockets

log = logging.getLogger(__name__)

#: The commands a table runs (in a cluster, its owner does, whichever process was asked).
_TABLE_COMMAND_TYPES = frozenset(TABLE_COMMANDS.values())

Frame = str | bytes | None


class Transport(Protocol):
    def send_now(self, text: str) -> bool:
        """Send at once if the socket takes it now, without waiting; ``False``: it did not."""
        ...

    async def send(self, text: str) -> None: ...

    async def close(self, code: int) -> None: ...


class Assistant(Protocol):
    """The games' assistants (``services.bots.BotRunner``)."""

    async def assist(
        self, game_id: str, view: dict[str, JSON], seat: int
    ) -> dict[str, JSON] | None: ...


@dataclass(frozen=True, slots=True)
class Desk:
    """What connections work with, built once by the wiring: a connection reaches into
    nothing else (no ``Server``)."""

    limits: Limits
    store: Store
    players: Players
    admission: Admission
    sockets: Sockets
    recent: RecentReplies
    new_players: Buckets
    counters: Counters
    lobby: Lobby
    tables: Tables
    assistant: Assistant
    #: A player's new name shows at their tables, on every process.
    renamed: Callable[[Player], None]

    @property
    def reach(self) -> Reach:
        return self.tables.reach


class Connection:
    """One client connection: feed it frames with :meth:`run` (or :meth:`receive`)."""

    # Thousands are held at once: no per-instance dict.
    __slots__ = (
        "__weakref__",
        "_admitted",
        "_closer",
        "_gone",
        "_outbox",
        "_refilled",
        "_request",
        "_retry",
        "_strikes",
        "_tokens",
        "_writer",
        "address",
        "closing",
        "desk",
        "device",
        "limits",
        "opened",
        "player",
        "token_hash",
        "transport",
    )

    def __init__(
        self,
        desk: Desk,
        transport: Transport,
        address: str | None = None,
        user_agent: str | None = None,
    ) -> None:
        self.desk = desk
        self.transport = transport
        #: The client's address, counted against ``connections_per_address``.
        self.address = address
        #: Where it comes from, noted for an account's sign-in when it says hello.
        self.device = device(address, user_agent)
        self.limits = desk.limits
        self.player: Player | None = None
        #: The SHA-256 of the token this connection said hello with (signing out ends it).
        self.token_hash: str | None = None
        self.opened: set[str] = set()
        self.closing = False
        # The frames not sent yet, and the task sending them: both only while there are
        # some.  Most connections are idle most of the time (a player thinking, a lobby
        # watcher), and a queue and a task waiting on it for each would be most of what an
        # idle connection costs (about 3 KiB, a dozen objects the collector tracks).
        self._outbox: deque[str] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._closer: asyncio.Task[None] | None = None
        self._tokens = float(self.limits.burst)
        self._refilled = time.monotonic()
        self._strikes = 0
        self._admitted = False
        self._gone = False
        #: The remembered reply of the state-changing request being handled, and its id.
        self._retry: tuple[asyncio.Future[dict[str, JSON]], JSON] | None = None
        #: The request being handled, when its table's owner is to answer a retry of it.
        self._request: Mapping[str, JSON] | None = None

    @property
    def player_id(self) -> str | None:
        return self.player.id if self.player else None

    # --- sending ---------------------------------------------------------------

    def send_text(self, text: str) -> None:
        """Queue a frame; a client too far behind is dropped, never waited for."""
        if self.closing:
            return
        outbox = self._outbox
        if outbox is None:
            # Nothing queued before it: a socket ready now takes it now, with no writer task.
            if self.transport.send_now(text):
                return
            outbox = self._outbox = deque()
        elif len(outbox) >= self.limits.outbox:
            log.info("dropping a slow client (player %s)", self.player_id)
            self.kick(4009)
            return
        outbox.append(text)
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write())

    def send(self, message: dict[str, JSON]) -> None:
        self.send_text(encode(message))

    def reply_to(self, req: Request | None, request_id: JSON = None) -> Reply:
        rid = req.id if req is not None else request_id

        def reply(message: dict[str, JSON]) -> None:
            if message.get("type") == "error":  # every error frame passes here: count refusals
                self.desk.counters.refused(str(message.get("code")))
            message = message if rid is None else {**message, "id": rid}
            if self._retry is not None and not self._retry[0].done():
                self._retry[0].set_result(message)
            self.send(message)

        return reply

    def error(self, req: Request | None, code: str, message: str, request_id: JSON = None) -> None:
        reply = self.reply_to(req, request_id)
        reply({"type": "error", "code": code, "message": message[:300]})

    async def _write(self) -> None:
        """Send what is queued, then end (the next frame starts a new writer)."""
        outbox = self._outbox
        try:
            while outbox:
                await self.transport.send(outbox.popleft())
        except asyncio.CancelledError:
            raise
        except Exception:  # the socket is gone; the reader will notice
            self.closing = True
        finally:
            if self._writer is asyncio.current_task():
                self._writer = None
            if self._outbox is outbox and not outbox:
                self._outbox = None

    def kick(self, code: int, *, flush: bool = False) -> None:
        """Close the connection from the server's side (flood, too slow).

        With ``flush``, what is already queued (the errors that explain why) goes out first.
        """
        if self.closing:
            return
        self.closing = True
        writer = self._writer
        if writer is not None and not flush:
            # Let go of it: a cancelled task keeps its CancelledError, whose traceback holds
            # the writer's frame and so this connection (a cycle only the collector frees).
            self._writer = self._outbox = None
            writer.cancel()
        # Flushing, the writer sends what is queued (nothing more: the connection is closing).
        self._closer = asyncio.create_task(self._close_transport(code, writer if flush else None))

    async def _close_transport(self, code: int, writer: asyncio.Task[None] | None) -> None:
        if writer is not None:
            try:
                await asyncio.wait_for(asyncio.shield(writer), 5)
            except (TimeoutError, asyncio.CancelledError):
                writer.cancel()
            except Exception:
                pass
        try:
            await self.transport.close(code)
        except Exception:
            log.debug("closing a connection failed", exc_info=True)

    # --- the read loop -----------------------------------------------------------

    async def run(self, receive: Callable[[], Awaitable[Frame]]) -> None:
        """Serve one connection until the client goes (``receive`` returns ``None``)."""
        if self.address is not None:
            if self.desk.admission.enter_address(self.address):
                self._admitted = True
            else:
                self._refuse_crowd("too many connections from your address")
        try:
            while not self.closing:
                frame = await receive()
                if frame is None:
                    break
                await self.receive(frame)
        finally:
            if self._closer is not None:  # send the close frame before the socket goes
                await self._closer
            await self.gone()

    async def receive(self, frame: str | bytes) -> None:
        """Handle one frame from the client."""
        if not self._allow():
            self._strikes += 1
            if self._strikes > self.limits.strikes:
                self.kick(4008, flush=True)
            else:
                self.error(None, "rate_limited", "too many messages; this one was dropped")
            return
        self._strikes = 0
        if isinstance(frame, bytes):
            self.error(None, "bad_json", "send JSON in text frames")
            return
        if len(frame) > self.limits.message_bytes // 4 and (
            len(frame.encode("utf-8", "surrogatepass")) > self.limits.message_bytes
        ):
            self.error(None, "too_large", f"messages are at most {self.limits.message_bytes} bytes")
            return
        req: Request | None = None
        read = time.perf_counter()
        try:
            req = Request.parse(frame)
            await self._dispatch(req)
            if req.type == "move":  # its reply is queued, after every seat's frame
                self.desk.counters.handled(time.perf_counter() - read)
        except ProtocolError as exc:
            self.error(req, exc.code, str(exc), exc.request_id)
        except GameError as exc:
            self.error(req, exc.code, str(exc))
        except TableGone:
            self.error(req, "internal_error", "the table moved; try again")
        except Exception as exc:
            if is_unavailable(exc):  # a write refused, or a read cut off as the database went
                log.warning("request %s: the store cannot be reached", req.type if req else "?")
                self.error(
                    req, "store_unavailable", "the server cannot store anything now; try later"
                )
            else:
                log.exception("request %s failed", req.type if req else "?")
                self.error(req, "internal_error", "the server failed; nothing changed")
        finally:
            self._settle_retry()

    def _settle_retry(self) -> None:
        """Keep the reply for a retry, unless the request failed in a way worth retrying."""
        if self._retry is None:
            return
        future, request_id = self._retry
        self._retry = None
        failed = not future.done() or not kept_for_retry(future.result())
        if failed and self.player is not None:
            self.desk.recent.forget(
                self.player.id,
                request_id,
                {"type": "error", "id": request_id, "code": "internal_error", "message": "retry"},
            )

    def _allow(self) -> bool:
        now = time.monotonic()
        self._tokens = min(
            float(self.limits.burst), self._tokens + (now - self._refilled) * self.limits.rate
        )
        self._refilled = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True

    async def gone(self) -> None:
        """The client left: close its tables (marking it disconnected) and its lobby."""
        if self._gone:
            return
        self._gone = self.closing = True
        # Let go of the writer: a cancelled task keeps its CancelledError, whose traceback
        # holds the writer's frame and so this connection (a cycle only the collector frees).
        writer, self._writer, self._outbox = self._writer, None, None
        if writer is not None:
            writer.cancel()
        if self._admitted and self.address is not None:
            self.desk.admission.leave_address(self.address)
        self._admitted = False
        if self.player is not None:
            self.desk.admission.leave_player(self.player.id)
            self.desk.sockets.leave(self.player.id, self)
        self.desk.lobby.unsubscribe(self)
        tables, reach = self.desk.tables, self.desk.reach
        for table_id in self.opened:
            table = reach.watched(table_id)
            if table is not None:
                table.unwatch_soon(self)
        if self.player is not None and not self.desk.admission.online(self.player.id):
            # Gone from the server: a full waiting table of theirs may leave the lobby.
            tables.player_gone(self.player.id, self.opened)
        self.opened.clear()

    # --- requests ---------------------------------------------------------------------

    async def _dispatch(self, req: Request) -> None:
        if req.type == "ping":
            self.reply_to(req)({"type": "pong"})
            return
        if req.type == "hello":
            if self.player is not None:
                raise ProtocolError("bad_message", "hello comes once per connection")
            hello = parse_command(req, self.limits.chat_chars)
            assert isinstance(hello, Hello)
            await self._hello(hello, self.reply_to(req))
            return
        if self.player is None:
            raise ProtocolError("need_hello", "say hello first")
        command = parse_command(req, self.limits.chat_chars)
        handler = HANDLERS[type(command)]
        self._request = None
        if req.id is not None and req.type in REMEMBERED:
            if type(command) in _TABLE_COMMAND_TYPES and self.desk.reach.replies_at_owner:
                # The table's owner answers a retry from any process (a cluster): nothing
                # to note in Redis before the command runs; a retry here is found here.
                reply, new = self.desk.recent.begin(self.player.id, req.data)
                self._request = req.data
            else:
                reply, new = await self.desk.recent.start(self.player.id, req.data)
            if not new:  # a retry: the first reply again, nothing run twice
                try:
                    self.send(await asyncio.wait_for(asyncio.shield(reply), RETRY_WAIT_SECONDS))
                except TimeoutError:
                    raise ProtocolError(
                        "internal_error", "still working on it; try again"
                    ) from None
                return
            self._retry = (reply, req.id)
        await handler(self, command, self.player, self.reply_to(req))

    def _refuse_crowd(self, message: str, reply: Reply | None = None) -> None:
        (reply or self.reply_to(None))(
            {"type": "error", "code": "too_many_connections", "message": message}
        )
        self.kick(4029, flush=True)

    async def _hello(self, hello: Hello, reply: Reply) -> None:
        players = self.desk.players
        token, name = hello.token, hello.name
        if token is not None:
            player = await players.by_token(token, self.device)
            if not self.desk.admission.enter_player(player.id):
                self._refuse_crowd("too many connections for this player", reply)
                return
            try:
                if name is not None:
                    await players.rename(player, name)
            except BaseException:
                self.desk.admission.leave_player(player.id)
                raise
            await self._seen(player)
        else:
            new_players = self.desk.new_players
            wait = 0 if self.address is None else await new_players.try_take(self.address)
            if wait:
                raise ProtocolError(
                    "new_player_rate_limited",
                    f"too many new players from your address; the next one in {wait} s",
                )
            try:
                player, token = await players.create(name)
            except BaseException:
                if self.address is not None:
                    new_players.give_back(self.address)
                raise
            self.desk.admission.enter_player(player.id)
        self.player = player
        self.token_hash = hash_token(str(token))
        self.desk.sockets.enter(player.id, self)
        reply({"type": "welcome", "player": player.to_json(), "token": token})

    async def _seen(self, player: Player) -> None:
        """Note that the player came back (an idle guest is removed, one seen is not)."""
        try:
            await self.desk.store.player_seen(player.id, now_ms())
        except StoreUnavailable as exc:  # bookkeeping: the next hello notes it
            log.warning("noting that player %s came back failed: %s", player.id, exc)
        except Exception:
            log.warning("noting that player %s came back failed", player.id, exc_info=True)

    async def _rename(self, command: Rename, player: Player, reply: Reply) -> None:
        await self.desk.players.rename(player, command.name)
        self.desk.renamed(player)
        reply({"type": "welcome", "player": player.to_json()})

    async def _lobby_subscribe(self, command: LobbySubscribe, player: Player, reply: Reply) -> None:
        tables = self.desk.tables.open_tables()
        reply(self.desk.lobby.subscribe(self, tables))

    async def _lobby_unsubscribe(
        self, command: LobbyUnsubscribe, player: Player, reply: Reply
    ) -> None:
        self.desk.lobby.unsubscribe(self)
        reply({"type": "ack"})

    async def _table_create(self, command: CreateTable, player: Player, reply: Reply) -> None:
        await self.desk.tables.create(
            player, command.game, command.options, command.settings, command.bots, reply
        )

    async def _table_command(self, command: TableCommand, player: Player, reply: Reply) -> None:
        """A command that changes a table: run in its task, wherever that runs."""
        await self.desk.reach.command(command, player, reply, self._request)

    async def _table_rematch(self, command: Rematch, player: Player, reply: Reply) -> None:
        """Propose the rematch of a finished table, or confirm one: two steps, each run by
        the process that runs its table (the finished one, then the rematch)."""
        reach, gone = self.desk.reach, None
        for _ in range(2):
            table_id, seat, made = await reach.rematch(command.table, player, gone)
            if made:
                break
            # Confirming another player's proposal: the same seat there, else a free one.
            joined: list[dict[str, JSON]] = []
            try:
                try:
                    await reach.command(Join(table_id, seat), player, joined.append)
                except ProtocolError as exc:
                    if exc.code == "seat_taken":
                        await reach.command(Join(table_id, None), player, joined.append)
                    elif exc.code != "already_seated":
                        raise
            except ProtocolError as exc:
                if exc.code != "unknown_table":
                    raise
                gone = table_id  # everyone left the rematch: propose a new one
                continue
            joined_seat = joined[0].get("seat") if joined else None
            if isinstance(joined_seat, int):
                seat = joined_seat
            else:
                seat = (await reach.peek(table_id)).seat_of(player.id) or 0
            break
        reply({"type": "ack", "table": table_id, "seat": seat})

    async def _table_open(self, command: OpenTable, player: Player, reply: Reply) -> None:
        await self.desk.reach.open(
            command.table, self, player.id, command.since, command.chat_since, reply
        )
        self.opened.add(command.table)

    async def _table_close(self, command: CloseTable, player: Player, reply: Reply) -> None:
        table_id = command.table
        if table_id in self.opened:
            self.opened.discard(table_id)
            table = self.desk.reach.watched(table_id)
            if table is not None:
                with contextlib.suppress(TableGone):
                    await table.unwatch(self)
        reply({"type": "ack", "table": table_id})

    async def _assist(self, command: Assist, player: Player, reply: Reply) -> None:
        table_id = command.table
        game_id, n, seat, view = await self.desk.reach.assist_view(table_id, player.id)
        analysis = await self.desk.assistant.assist(game_id, view, seat)
        if analysis is None:
            raise ProtocolError("no_assistant", f"{game_id} has no assistant")
        reply({"type": "assist", "table": table_id, "n": n, "analysis": analysis})


C = TypeVar("C")
Handler = Callable[[Connection, C, Player, Reply], Awaitable[None]]

#: The handler of each command a client may send once it said ``hello`` (``ping`` and
#: ``hello`` themselves are answered before: they need no player).  ``parse_command``
#: refuses any other type, so every command that gets this far has a handler here.
HANDLERS: dict[type[Command], Handler[Any]] = {
    Rename: Connection._rename,
    LobbySubscribe: Connection._lobby_subscribe,
    LobbyUnsubscribe: Connection._lobby_unsubscribe,
    CreateTable: Connection._table_create,
    Rematch: Connection._table_rematch,
    OpenTable: Connection._table_open,
    CloseTable: Connection._table_close,
    Assist: Connection._assist,
    **dict.fromkeys(_TABLE_COMMAND_TYPES, Connection._table_command),
}

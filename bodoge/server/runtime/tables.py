"""Every live table, by id: made here, brought back from the store, dropped when done.

A table stays in memory while it is needed there: watched, or with a timer or a
bot to run.  Otherwise it leaves memory after a while (see
``LiveTable._quiet_seconds``) and is loaded again, from its history, when
someone opens it.

What differs in a cluster is :attr:`Tables.reach`'s (:mod:`bodoge.server.runtime.reach`):
there a process runs only the tables it owns — it claims each table it makes or loads,
releases it when it leaves memory, lets go of those another process claimed
(:meth:`Tables.let_go`) and loads those it took over from a dead process
(:meth:`Tables.take_over`).  A table another live process runs raises
:class:`~bodoge.server.runtime.reach.OwnedElsewhere` here.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping, Sequence
from functools import partial
from typing import Any

from bodoge.core.errors import BadOptions
from bodoge.core.game import Game, Seat
from bodoge.core.values import JSON, is_whole
from bodoge.server.runtime.config import ServerConfig
from bodoge.server.runtime.inbox import Args, R, TableGone
from bodoge.server.runtime.lobby import Lobby
from bodoge.server.runtime.notify import NoNotifier, TurnNotifier
from bodoge.server.runtime.players import Player, new_id
from bodoge.server.runtime.ports import BotPort, NoQuota, PlayerBook, QuotaPort, RuntimeStore
from bodoge.server.runtime.protocol import TABLE_ID, ProtocolError, now_ms
from bodoge.server.runtime.reach import LocalReach, Reach
from bodoge.server.runtime.settings import TableSettings, parse_settings
from bodoge.server.runtime.shown import ShownTable
from bodoge.server.runtime.stats import Counters
from bodoge.server.runtime.table import LiveTable, Reply
from bodoge.store import PlayerRecord, SeatRecord, TableBundle, TableRecord

log = logging.getLogger(__name__)

# Seeds travel to browsers as JSON numbers (replays): keep them exact in JavaScript.
MAX_SEED = 2**53
#: Players who left the server within this many seconds are looked for at their waiting
#: tables together (:meth:`Tables.player_gone`).
GONE_SECONDS = 0.05


class Tables:
    def __init__(
        self,
        config: ServerConfig,
        store: RuntimeStore,
        players: PlayerBook,
        bots: BotPort,
        lobby: Lobby,
        games: Mapping[str, Game[Any, Any, Any]],
        counters: Counters | None = None,
        online: Callable[[str], bool] | None = None,
        created: QuotaPort | None = None,
        decks_named: Callable[[Mapping[str, JSON]], Collection[str]] | None = None,
    ) -> None:
        self.config = config
        self._online = online
        self.store = store
        self.players = players
        self.bots = bots
        self.lobby = lobby
        self.games = games
        self.counters = counters or Counters()
        self.live: dict[str, LiveTable] = {}
        #: Where tables run and how they are reached: this process alone until the wiring
        #: sets the cluster's (once, at start-up).
        self.reach: Reach = LocalReach(self)
        #: The uploaded decks a new table's options name (they are kept while it is open).
        self._decks_named = decks_named
        self._loading: dict[str, asyncio.Task[LiveTable | None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        #: Tables each player may create an hour, and the tables being created right now
        #: (counted with the waiting ones a player hosts, so two tabs cannot both pass).
        self.created: QuotaPort = created or NoQuota()
        #: Told the id of each rated table whose game ended (the server's ratings).
        self.on_rated_end: Callable[[str], None] | None = None
        self._creating: Counter[str] = Counter()
        #: Who tells people of their turns at turn-based tables; the wiring may replace it.
        self.notifier: TurnNotifier = NoNotifier()
        #: Players who left the server lately, each with the tables they had open.
        self._gone: dict[str, Collection[str]] = {}
        self._gone_handle: asyncio.TimerHandle | None = None

    # --- what a live table asks of the server (TableHost) -------------------------------

    def player(self, player_id: str) -> Player | None:
        return self.players.get(player_id)

    def remember(self, record: PlayerRecord) -> Player:
        return self.players.remember(record)

    def online(self, player_id: str) -> bool:
        return self._online is not None and self._online(player_id)

    def show_in_lobby(self, table: LiveTable) -> None:
        self.lobby.changed(table)

    def remove_from_lobby(self, table_id: str) -> None:
        self.lobby.removed(table_id)

    def forget(self, table: LiveTable) -> None:
        if self.live.get(table.id) is table:
            del self.live[table.id]
            self.reach.released(table)

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
        return await self.bots.act(game_id, level, view, seat, seed, stand_in=stand_in)

    @property
    def publisher(self) -> Reach:
        return self.reach

    def known(self, player_id: str, name: str) -> Player:
        return self.players.hold(player_id, name)

    def _taken(self, table: LiveTable) -> None:
        """A stored table runs here from now on: in a cluster, people may have it open
        through other processes, which have yet to tell this one.  One the lobby lists (as
        its last owner said) keeps its place meanwhile."""
        if self.reach.presence_grace and table.id in self.lobby.remote:
            table.await_presence(self.reach.presence_grace)

    def _started(self, table: LiveTable) -> None:
        """A table brought back from the store (a restart, a takeover) runs again."""
        table.start()
        table.post(table.retell_turns)
        self.reach.started(table)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a background job (a bot thinking, the sweep), cancelled by :meth:`close`."""
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def away_until(self, player_ids: Collection[str], now: int) -> dict[str, int]:
        return await self.store.away_until(player_ids, now)

    def watching(self, player_id: str, table_id: str) -> bool:
        """Whether the person has the table open now (the notifier's :class:`Presence`): as
        this process knows it, which for a table it runs includes other processes' tabs."""
        table = self.live.get(table_id)
        return table is not None and table.present(player_id)

    async def turn_based_tables(self, player_id: str) -> int:
        """The open turn-based tables at which the player sits."""
        bundles = await self.store.open_tables_of(player_id)
        return sum(1 for b in bundles if b.table.settings.get("turn_based") is not None)

    async def check_turn_based_quota(self, player_id: str) -> None:
        cap = self.config.quotas.turn_based_tables_per_player
        if cap and await self.turn_based_tables(player_id) >= cap:
            raise ProtocolError(
                "too_many_turn_tables",
                f"you sit at {cap} turn-based tables: finish or leave one first",
            )

    def rated_game_ended(self, table_id: str) -> None:
        if self.on_rated_end is not None:
            self.on_rated_end(table_id)

    # --- tables ---------------------------------------------------------------------------

    async def restore_open(self) -> int:
        """Bring back every waiting and playing table after a (re)start."""
        bundles = await self.store.load_open_tables(chat=self.config.limits.chat_backlog)
        for bundle in await self.reach.claim_many(bundles):
            game = self.games.get(bundle.table.game)
            if game is None:
                log.error("table %s: game %s is not installed", bundle.table.id, bundle.table.game)
                continue
            try:
                table = LiveTable.restore(self, game, bundle)
            except Exception:
                log.exception("table %s cannot be brought back", bundle.table.id)
                continue
            self.live[table.id] = table
            self._taken(table)
            self._started(table)
        return len(self.live)

    async def get(self, table_id: str) -> LiveTable:
        """The live table, loading a finished one from the store; else ``unknown_table``."""
        table = self.live.get(table_id)
        if table is not None:
            return table
        if not TABLE_ID.fullmatch(table_id):
            raise ProtocolError("unknown_table", "no such table")
        loading = self._loading.get(table_id)
        if loading is None:
            loading = self._loading[table_id] = asyncio.create_task(self._load(table_id))
            loading.add_done_callback(lambda _: self._loading.pop(table_id, None))
        table = await asyncio.shield(loading)
        if table is None:
            raise ProtocolError("unknown_table", "no such table")
        return table

    async def peek(self, table_id: str) -> ShownTable:
        """A table to read (the HTTP API): live here, or (cluster) as the store has it."""
        return await self.reach.peek(table_id)

    async def load(self, table_id: str) -> TableBundle | None:
        """The stored table, if it is one of an installed game."""
        bundle = await self.store.load_table(table_id, chat=self.config.limits.chat_backlog)
        if bundle is None or bundle.table.game not in self.games:
            return None
        return bundle

    async def _load(self, table_id: str) -> LiveTable | None:
        bundle = await self.reach.load_to_run(table_id, partial(self.load, table_id))
        if bundle is None or table_id in self.live:  # gone, or made or restored meanwhile
            return self.live.get(table_id)
        table = LiveTable.restore(self, self.games[bundle.table.game], bundle)
        self.live[table_id] = table
        self._taken(table)
        self._started(table)
        if table.status != "finished":  # a running table back from the store
            self.lobby.changed(table)
        return table

    async def call(
        self, table_id: str, command: Callable[[LiveTable, *Args], Awaitable[R]], *args: *Args
    ) -> R:
        """Run ``command(table, *args)`` in the table's task (finding the table again if it left).

        ``command`` is one of :class:`LiveTable`'s methods, named through the class
        (``LiveTable.join``): the table it runs on is looked up here, and looked up
        again if it left memory meanwhile.
        """
        for _ in range(5):
            table = await self.get(table_id)
            try:
                return await table.call(command, table, *args)
            except TableGone:
                continue
        raise ProtocolError("internal_error", "the table kept moving; try again")

    async def sweep(self) -> None:
        """End every running game nobody has watched for ``abandon_seconds``, now and then."""
        config = self.config
        while True:
            try:
                before = now_ms() - round(config.abandon_seconds * 1000)
                for table_id in await self.store.unwatched_tables(before):
                    try:
                        await self.call(table_id, LiveTable.abandon)
                    except ProtocolError as exc:
                        if exc.code != "table_unavailable":
                            raise
                        # Cluster: another process runs it, and its own sweep ends it.
            except Exception:
                log.exception("looking for abandoned games failed")
            await asyncio.sleep(config.sweep_seconds)

    def player_gone(self, player_id: str, opened: Collection[str]) -> None:
        """``player_id`` left the server: a full waiting table of theirs may leave the lobby
        (not those in ``opened``, the tables they had open, whose leaving tells them).

        The players who leave within :data:`GONE_SECONDS` are looked for together, in one
        walk of the live tables: thousands leaving at once (a proxy restarted, a network
        cut) would otherwise walk every table once each, holding the loop for seconds.
        """
        self._gone[player_id] = frozenset(opened)
        if self._gone_handle is None:
            loop = asyncio.get_running_loop()
            self._gone_handle = loop.call_later(GONE_SECONDS, self._look_for_gone)

    def _look_for_gone(self) -> None:
        self._gone_handle = None
        gone, self._gone = self._gone, {}
        for table in list(self.live.values()):
            if table.status != "waiting":
                continue
            for seat in table.seats:
                opened = gone.get(seat.player) if seat.player is not None else None
                if opened is not None and table.id not in opened:
                    table.post(table.refresh_seats)
                    break

    def hosted_waiting(self, player_id: str) -> int:
        """How many waiting tables ``player_id`` hosts (they are all in memory)."""
        return sum(
            1 for t in self.live.values() if t.status == "waiting" and t.seating.host == player_id
        )

    def open_tables(self) -> list[LiveTable]:
        """The tables the lobby lists (:attr:`LiveTable.listed`)."""
        return [t for t in self.live.values() if t.listed]

    async def create(
        self,
        player: Player,
        game_id: str,
        raw_options: Mapping[str, JSON] | None,
        raw_settings: Mapping[str, JSON] | None,
        raw_bots: object,
        reply: Reply,
    ) -> None:
        game = self.games.get(game_id)
        if game is None:
            raise ProtocolError("unknown_game", f"no game {game_id[:40]!r}")
        options = game.options(raw_options or {})
        count = game.seats(options)
        if not game.min_seats <= count <= game.max_seats:
            raise BadOptions(f"{game.id} is for {game.min_seats}-{game.max_seats} players")
        settings = parse_settings(raw_settings, game)
        options = game.turn_based_options(options, settings.turn_based)
        bots = _bot_list(raw_bots, count, game)
        table_id = await self._open_new(player, game, options, settings, 0, bots)
        reply({"type": "ack", "table": table_id})

    async def rematch(self, table: LiveTable, player_id: str, seat: Seat) -> str:
        player = self.player(player_id)
        if player is None:  # the connection asking holds the player
            raise ProtocolError("not_seated", "you are not connected")
        # Bots that sat from the start sit again (they confirm at once); a seat a bot
        # took over from a player who left is free.
        kept = [s for s in table.seats if s.kind == "bot" and not s.left]
        bots = [(s.seat, s.level) for s in kept if s.level is not None]
        made = await self._open_new(player, table.game, table.options, table.settings, seat, bots)
        if table.settings.turn_based is not None:
            # The others of a game over days are told where to play the next one.
            for s in table.seats:
                person = s.player if s.kind == "human" else s.left
                if person is not None and person != player_id:
                    table._tell(self.notifier.invited(person, made, table.game.id, player_id))
        return made

    async def _open_new(
        self,
        player: Player,
        game: Game[Any, Any, Any],
        options: Any,
        settings: TableSettings,
        seat: Seat,
        bots: Sequence[tuple[Seat, str]],
    ) -> str:
        """A new waiting table, the player in ``seat`` and hosting it, within their quotas:
        its id. In a cluster another process may run it (:meth:`_placement`)."""
        if settings.turn_based is not None:
            await self.check_turn_based_quota(player.id)
        cap = self.config.quotas.waiting_tables_per_player
        hosted = await self.reach.hosted_waiting(player.id) if cap else 0
        if cap and hosted + self._creating[player.id] >= cap:
            raise ProtocolError(
                "too_many_tables", f"you host {cap} waiting tables: start or leave one first"
            )
        seats = [SeatRecord(s) for s in range(game.seats(options))]
        seats[seat] = SeatRecord(seat, "human", player.id)
        for at, level in bots:
            seats[at] = SeatRecord(at, "bot", level=level)
        record = TableRecord(
            id=new_id("t_"),
            game=game.id,
            options=game.options_json(options),
            settings=settings.to_json(),
            seed=secrets.randbelow(MAX_SEED),
            status="waiting",
            host=player.id,
            created_at=now_ms(),
        )
        self._creating[player.id] += 1
        try:
            wait = await self.created.try_take(player.id)
            if wait:
                raise ProtocolError(
                    "table_rate_limited", f"too many new tables; the next one in {wait} s"
                )
            try:
                await self.reach.place(record, seats, player)
            except BaseException:
                self.created.give_back(player.id)
                raise
        finally:
            self._creating[player.id] -= 1
            if self._creating[player.id] <= 0:
                del self._creating[player.id]
        return record.id

    async def start_new(self, record: TableRecord, seats: list[SeatRecord], player: Player) -> None:
        """Store a new table and run it here (this process picked, or was picked)."""
        await self.reach.insert(record, seats)
        named = self._decks_named(record.options) if self._decks_named else ()
        if named:  # an uploaded deck a table names is kept (bodoge/server/services/housekeeping.py)
            try:
                await self.store.use_picture_sets(named, record.created_at)
            except Exception:  # the sweep notes it too, while the table is open
                log.warning("table %s: noting the decks it uses failed", record.id, exc_info=True)
        table = LiveTable(self, self.games[record.game], record, seats)
        table.people[player.id] = player
        self.live[table.id] = table
        table.start()
        self.lobby.changed(table)

    def let_go(self, table_ids: set[str]) -> None:
        """Another process claimed these tables: they leave memory here (cluster)."""
        for table_id in table_ids:
            table = self.live.get(table_id)
            if table is not None:
                table.post(table.let_go)

    async def take_over(self, table_ids: set[str]) -> None:
        """Run the tables this process claimed from a dead one: timers and bots resume."""
        for table_id in sorted(table_ids):
            if table_id in self.live:
                continue
            try:
                bundle = await self.store.load_table(table_id, chat=self.config.limits.chat_backlog)
                if bundle is None or table_id in self.live:
                    continue
                game = self.games.get(bundle.table.game)
                if game is None:
                    log.error("table %s: game %s is not installed", table_id, bundle.table.game)
                    continue
                table = LiveTable.restore(self, game, bundle)
            except Exception:
                log.exception("table %s cannot be taken over", table_id)
                continue
            self.live[table_id] = table
            self._taken(table)
            self._started(table)
            if table.status != "finished":
                self.lobby.changed(table)

    async def close(self) -> None:
        if self._gone_handle is not None:
            self._gone_handle.cancel()
            self._gone_handle = None
        for table in list(self.live.values()):
            table.stop()
        await self.reach.close()
        for task in list(self._tasks):
            task.cancel()
        self.live.clear()


def _bot_list(raw: object, count: int, game: Game[Any, Any, Any]) -> list[tuple[int, str]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ProtocolError("bad_message", "bots is a list of {seat, level}")
    bots: dict[int, str] = {}
    for item in raw:
        if not isinstance(item, dict) or set(item) != {"seat", "level"}:
            raise ProtocolError("bad_message", "each bot is {seat, level}")
        seat, level = item["seat"], item["level"]
        # A seat that is no whole number (true, 1.0, "1") or a level that is no string is
        # a malformed field, as for every other request; a number out of range is a seat.
        if not is_whole(seat) or not isinstance(level, str):
            raise ProtocolError("bad_message", "each bot is {seat: whole number, level: text}")
        if not 1 <= seat < count:
            raise ProtocolError("bad_seat", f"bots sit in seats 1-{count - 1}")
        if seat in bots:
            raise ProtocolError("bad_seat", f"two bots for seat {seat}")
        if level not in game.bot_levels:
            raise ProtocolError("bad_options", f"{game.id} has no bot level {level[:40]!r}")
        bots[seat] = level
    return sorted(bots.items())

"""Every live table, by id: made here, brought back from the store, dropped when done.

A table stays in memory while it is needed there: watched, or with a timer or a
bot to run.  Otherwise it leaves memory after a while (see
``LiveTable._quiet_seconds``) and is loaded again, from its history, when
someone opens it.

In a cluster (``cluster`` set) a process runs only the tables it owns: it claims each
table it makes or loads, releases it when it leaves memory, lets go of those another
process claimed (:meth:`Tables.let_go`) and loads those it took over from a dead
process (:meth:`Tables.take_over`).  A table another live process runs raises
:class:`~bodoge.server.replication.replica.OwnedElsewhere` here: the connection then
watches it through a
replica and sends its commands to the owner (:mod:`bodoge.server.replication.replica`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bodoge.core.errors import BadOptions
from bodoge.core.game import Game, Seat
from bodoge.core.values import JSON, is_whole
from bodoge.server.edge.pictures import named_sets
from bodoge.server.runtime.config import ServerConfig
from bodoge.server.runtime.inbox import Args, R, TableGone
from bodoge.server.runtime.lobby import Lobby
from bodoge.server.runtime.protocol import TABLE_ID, ProtocolError, now_ms
from bodoge.server.runtime.settings import TableSettings, parse_settings
from bodoge.server.runtime.stats import Counters
from bodoge.server.runtime.table import LiveTable, Reply
from bodoge.server.services.bots import BotRunner
from bodoge.server.services.identity import Player, Players, new_id
from bodoge.server.services.quotas import Buckets
from bodoge.store import PlayerRecord, SeatRecord, Store, TableRecord

if TYPE_CHECKING:
    from bodoge.cluster.service import ClusterService
    from bodoge.server.replication.replica import Replicas

log = logging.getLogger(__name__)

# Seeds travel to browsers as JSON numbers (replays): keep them exact in JavaScript.
MAX_SEED = 2**53


class Tables:
    def __init__(
        self,
        config: ServerConfig,
        store: Store,
        players: Players,
        bots: BotRunner,
        lobby: Lobby,
        games: Mapping[str, Game],
        counters: Counters | None = None,
        cluster: ClusterService | None = None,
        online: Callable[[str], bool] | None = None,
    ) -> None:
        self.config = config
        self._online = online
        self.store = store
        self.players = players
        self.bots = bots
        self.lobby = lobby
        self.games = games
        self.counters = counters or Counters()
        self.cluster = cluster
        self.live: dict[str, LiveTable] = {}
        #: Cluster: the tables other processes run that connections here watch.
        self.replicas: Replicas | None = None
        self._loading: dict[str, asyncio.Task[LiveTable | None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        #: Tables each player may create an hour, and the tables being created right now
        #: (counted with the waiting ones a player hosts, so two tabs cannot both pass).
        self.created = Buckets(config.quotas.tables_per_hour, name="tables")
        #: Told the id of each rated table whose game ended (the server's ratings).
        self.on_rated_end: Callable[[str], None] | None = None
        self._creating: Counter[str] = Counter()

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
            if self.cluster is not None:  # the claim it ran under, not one made since
                epoch = self.cluster.ownership.held.get(table.id)
                if epoch is not None:
                    self.spawn(self.cluster.release(table.id, epoch))

    async def bot_move(
        self, game_id: str, level: str, view: Mapping[str, JSON], seat: Seat, seed: int
    ) -> dict[str, JSON] | None:
        return await self.bots.act(game_id, level, view, seat, seed)

    @property
    def publishes(self) -> bool:
        return self.cluster is not None

    def publish(self, table_id: str, message: dict[str, JSON]) -> None:
        cluster = self.cluster
        if cluster is None:
            return
        epoch = cluster.ownership.held.get(table_id)
        if epoch is not None:
            cluster.publish_soon(
                cluster.namespace.table(table_id),
                {**message, "owner": cluster.process, "epoch": epoch},
            )

    def known(self, player_id: str, name: str) -> Player:
        return self.players.hold(player_id, name)

    def watched(self, table_id: str) -> LiveTable | None:
        """The table a connection here watches: live here, or a replica (cluster)."""
        table = self.live.get(table_id)
        if table is None and self.replicas is not None:
            table = self.replicas.get(table_id)
        return table

    def _started(self, table: LiveTable) -> None:
        """A table now runs here: a replica's connections (cluster) watch it directly."""
        table.start()
        if self.replicas is not None and self.replicas.get(table.id) is not None:
            self.spawn(self.replicas.promote(table))

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a background job (a bot thinking, the sweep), cancelled by :meth:`close`."""
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def rated_game_ended(self, table_id: str) -> None:
        if self.on_rated_end is not None:
            self.on_rated_end(table_id)

    # --- tables ---------------------------------------------------------------------------

    async def restore_open(self) -> int:
        """Bring back every waiting and playing table after a (re)start."""
        bundles = await self.store.load_open_tables(chat=self.config.limits.chat_backlog)
        if self.cluster is not None:  # only those no other live process runs
            mine = await self.cluster.claim_many([b.table.id for b in bundles])
            bundles = [b for b in bundles if b.table.id in mine and b.table.id not in self.live]
        for bundle in bundles:
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

    async def peek(self, table_id: str) -> LiveTable:
        """A table to read (the HTTP API): live here, its replica, or as the store has it.

        In a cluster a table another process runs is read from the store: its history and
        seats are the owner's (who is connected is not).
        """
        from bodoge.server.replication.replica import OwnedElsewhere

        try:
            return await self.get(table_id)
        except OwnedElsewhere:
            watched = self.watched(table_id)
            if watched is not None:
                return watched
            bundle = await self.store.load_table(table_id, chat=self.config.limits.chat_backlog)
            if bundle is None or bundle.table.game not in self.games:
                raise ProtocolError("unknown_table", "no such table") from None
            return LiveTable.restore(self, self.games[bundle.table.game], bundle)

    async def _load(self, table_id: str) -> LiveTable | None:
        bundle = await self.store.load_table(table_id, chat=self.config.limits.chat_backlog)
        if bundle is None or bundle.table.game not in self.games:
            return None
        if table_id in self.live:  # made or restored meanwhile
            return self.live[table_id]
        if self.cluster is not None:
            if not await self.cluster.claim(table_id):
                from bodoge.server.replication.replica import OwnedElsewhere

                owner = await self.cluster.ownership.owner_of(table_id)
                raise OwnedElsewhere(table_id, owner)
            if table_id in self.live:
                return self.live[table_id]
            # Claimed after the load: what the previous owner wrote meanwhile is read again.
            bundle = await self.store.load_table(table_id, chat=self.config.limits.chat_backlog)
            if bundle is None or table_id in self.live:
                return self.live.get(table_id)
        table = LiveTable.restore(self, self.games[bundle.table.game], bundle)
        self.live[table_id] = table
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
        return await self._open_new(player, table.game, table.options, table.settings, seat, bots)

    async def _open_new(
        self,
        player: Player,
        game: Game,
        options: Any,
        settings: TableSettings,
        seat: Seat,
        bots: Sequence[tuple[Seat, str]],
    ) -> str:
        """A new waiting table, the player in ``seat`` and hosting it, within their quotas:
        its id. In a cluster another process may run it (:meth:`_placement`)."""
        cap = self.config.quotas.waiting_tables_per_player
        hosted = await self._hosted_waiting(player.id) if cap else 0
        if cap and hosted + self._creating[player.id] >= cap:
            self.counters.refused("too_many_tables")
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
                self.counters.refused("table_rate_limited")
                raise ProtocolError(
                    "table_rate_limited", f"too many new tables; the next one in {wait} s"
                )
            try:
                await self._place(record, seats, player)
            except BaseException:
                self.created.give_back(player.id)
                raise
        finally:
            self._creating[player.id] -= 1
            if self._creating[player.id] <= 0:
                del self._creating[player.id]
        return record.id

    async def _hosted_waiting(self, player_id: str) -> int:
        """The waiting tables a player hosts: all in memory here, or (cluster) in the store."""
        if self.cluster is None:
            return self.hosted_waiting(player_id)
        return await self.store.waiting_tables_hosted(player_id)

    async def _place(self, record: TableRecord, seats: list[SeatRecord], player: Player) -> None:
        """Run the new table here, or (cluster) on the process :meth:`_placement` picks."""
        target = self._placement()
        replicas = self.replicas
        if target is not None and replicas is not None:
            placed = await replicas.create_on(target, record, seats, player)
            if placed:
                return
        await self.start_new(record, seats, player)

    def _placement(self) -> str | None:
        """Cluster: the process a new table should run on, if not this one.

        The process with the fewest tables (as the lease rows said at the last orphan scan,
        plus what this process sent each since), when it has fewer than this one: so a
        cluster stays even whatever the load balancer does with the hosts' connections.
        """
        if self.cluster is None:
            return None
        ownership = self.cluster.ownership
        mine = len(ownership.held)
        loads = {p: n for p, n in ownership.loads.items() if p != self.cluster.process}
        if not loads:
            return None
        target = min(loads, key=lambda p: (loads[p], p))
        return target if loads[target] < mine else None

    async def start_new(self, record: TableRecord, seats: list[SeatRecord], player: Player) -> None:
        """Store a new table and run it here (this process picked, or was picked)."""
        await self._insert(record, seats)
        named = named_sets(record.options)
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

    async def _insert(self, record: TableRecord, seats: list[SeatRecord]) -> None:
        """Store a new table; in a cluster, claim it too (its insert passes the fence)."""
        if self.cluster is None:
            await self.store.create_table(record, seats)
            return
        with self.cluster.creating(record.id):
            await self.store.create_table(record, seats)
            if not await self.cluster.claim(record.id):
                raise ProtocolError("internal_error", "the new table could not be claimed")

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
            self._started(table)
            if table.status != "finished":
                self.lobby.changed(table)

    async def close(self) -> None:
        for table in list(self.live.values()):
            table.stop()
        if self.replicas is not None:
            await self.replicas.close()
        for task in list(self._tasks):
            task.cancel()
        self.live.clear()


def _bot_list(raw: object, count: int, game: Game) -> list[tuple[int, str]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ProtocolError("bad_message", "bots is a list of {seat, level}")
    bots: dict[int, str] = {}
    for item in raw:
        if not isinstance(item, dict) or set(item) != {"seat", "level"}:
            raise ProtocolError("bad_message", "each bot is {seat, level}")
        seat, level = item["seat"], item["level"]
        if not is_whole(seat) or not 1 <= seat < count:
            raise ProtocolError("bad_seat", f"bots sit in seats 1-{count - 1}")
        if seat in bots:
            raise ProtocolError("bad_seat", f"two bots for seat {seat}")
        if level not in game.bot_levels:
            raise ProtocolError("bad_options", f"{game.id} has no bot level {str(level)[:40]!r}")
        bots[seat] = level
    return sorted(bots.items())

"""The server's parts wired together, independent of the web framework.

>>> from bodoge.server.runtime.config import ServerConfig
>>> server = Server(ServerConfig(db_url="sqlite+aiosqlite:///:memory:"))
>>> server.config.limits.outbox
256
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Mapping

from bodoge.cluster.namespace import Namespace
from bodoge.cluster.ownership import new_process_id
from bodoge.cluster.service import ClusterService
from bodoge.core.values import JSON
from bodoge.games import registry
from bodoge.server.edge.admission import Admission
from bodoge.server.edge.connection import Connection, Desk, Transport
from bodoge.server.edge.metrics import (
    Metrics,
    Probe,
    Readings,
    database_probe,
    schema_probe,
)
from bodoge.server.replication.cluster_reach import ClusterReach
from bodoge.server.replication.lobby_link import LobbyLink
from bodoge.server.runtime.clock import SystemClock, use_clock
from bodoge.server.runtime.config import ServerConfig
from bodoge.server.runtime.lobby import Lobby
from bodoge.server.runtime.stats import Counters
from bodoge.server.runtime.tables import Tables
from bodoge.server.services.accounts import Accounts, Sockets
from bodoge.server.services.bots import BotRunner
from bodoge.server.services.decks import named_sets
from bodoge.server.services.housekeeping import clean_up
from bodoge.server.services.identity import Player, Players
from bodoge.server.services.mail import Mailer, SmtpSettings
from bodoge.server.services.notify import Notifier, NotifyTimes
from bodoge.server.services.puzzles import Puzzles, PuzzleSource
from bodoge.server.services.quotas import Buckets
from bodoge.server.services.ratings import Ratings
from bodoge.server.services.replies import RecentReplies, Retries
from bodoge.store import Store, open_store

log = logging.getLogger(__name__)


class Server:
    """Store, players, lobby, tables and bots; :meth:`start` brings every table back."""

    def __init__(self, config: ServerConfig, store: Store | None = None) -> None:
        self.config = config
        # Every deadline and "now" of the server reads this clock (a test's, or the machine's).
        use_clock(config.clock if config.clock is not None else SystemClock())
        self.games = dict(config.games) if config.games is not None else registry()
        self._given_store = store
        limits = config.limits
        self.admission = Admission(limits.connections_per_address, limits.connections_per_player)
        self.recent = RecentReplies(limits.retry_seconds)
        #: The live WebSockets of each player (signing out closes them).
        self.sockets = Sockets()
        self._stopped = False
        self.counters = Counters()
        #: New players each client address may make an hour.
        self.new_players = Buckets(config.quotas.new_players_per_hour, name="new_players")
        #: New tables each player may make an hour.
        self.new_tables = Buckets(config.quotas.tables_per_hour, name="tables")
        #: Uploads (of a custom deck) each client address may make an hour.
        self.uploads = Buckets(config.quotas.uploads_per_hour, name="uploads")
        #: Megapixels of uploaded pictures decoded, per player.
        self.upload_pixels = Buckets(config.quotas.megapixels_per_player_hour, name="pixels")
        #: This process's name in ``/healthz``, ``/metrics`` and (in a cluster) the lease.
        self.process = new_process_id()
        counters = self.counters
        self.metrics = Metrics(
            self.process,
            Readings(
                connections=lambda: counters.connections_open,
                tables_owned=self._tables_owned,
                moves=lambda: counters.moves,
                refusals=counters.refusals,
                uploads=lambda: counters.uploads_stored,
                upload_bytes=lambda: counters.upload_bytes_stored,
                deck_bytes=lambda: counters.deck_bytes_kept,
                takeovers=lambda: self.cluster.takeovers if self.cluster else 0,
                redis_reconnects=lambda: self.cluster.redis_reconnects if self.cluster else 0,
                database_reconnects=self._database_reconnects,
            ),
        )
        #: Cluster mode (``config.redis_url``): the bus, the lease and the owned tables.
        self.cluster: ClusterService | None = None
        #: The lobby joined to the other processes' (cluster mode).
        self.lobby_link: LobbyLink | None = None
        self.counters.on_fanout = self.metrics.fanout_seconds.observe
        #: Finished tables' reviews, by table id, the most recently asked last.
        self.reviews: OrderedDict[str, dict[str, JSON]] = OrderedDict()
        #: Reviews being worked out, by table id (visitors asking at once share one).
        self.reviews_running: dict[str, asyncio.Future[dict[str, JSON] | None]] = {}
        self._desk: Desk | None = None

    def _database_reconnects(self) -> int:
        """The store's writer finding the database again, and the cluster lease's loop."""
        store = getattr(self, "store", None)
        found = getattr(store, "reconnects", 0)
        return int(found) + (self.cluster.database_reconnects if self.cluster else 0)

    async def start(self) -> None:
        self.store = self._given_store or await open_store(self.config.db_url)
        if hasattr(self.store, "on_commit"):
            self.store.on_commit = self.metrics.commit_seconds.observe
        self.players = Players(
            self.store,
            self.config.limits.name_chars,
            session_seconds=self.config.quotas.session_seconds,
        )
        quotas = self.config.quotas
        self.accounts = Accounts(
            self.store,
            self.players,
            sign_ins_per_hour=quotas.sign_ins_per_hour,
            sign_ins_per_account_hour=quotas.sign_ins_per_account_hour,
            sign_in_brake_per_hour=quotas.sign_in_brake_per_account_hour,
            on_sign_out=self._signed_out,
        )
        self.bots = BotRunner(self.config.bot_workers, self.games, self.config.bot_timeout)
        self.lobby = Lobby()
        self.tables = Tables(
            self.config,
            self.store,
            self.players,
            self.bots,
            self.lobby,
            self.games,
            self.counters,
            online=self.admission.online,
            created=self.new_tables,
            decks_named=named_sets,
        )
        self.ratings = Ratings(self.store, self.games)
        self.puzzles = Puzzles(self.store, self.games)
        self.tables.on_rated_end = self._rated_game_ended
        #: E-mail and Web Push: the turn-based tables' TurnNotifier
        #: (bodoge/server/runtime/notify.py) and the account page's settings.
        self.notifier = self._notifier()
        self.tables.notifier = self.notifier
        await self.notifier.start()
        if self.config.redis_url is not None:
            await self._join_cluster()
            assert self.cluster is not None
            # The table commands this process runs as their tables' owner, remembered apart
            # from the requests its own connections send (which it may forward elsewhere).
            owned = RecentReplies(self.config.limits.retry_seconds)
            reach = ClusterReach(self.tables, self.cluster, owned, Retries())
            self.tables.reach = reach  # chosen once: every table here runs under it
            await reach.start()
            self.lobby_link = LobbyLink(self.lobby, self.tables, self.cluster)
            reach.owner.lobby_asked = self.lobby_link.listening
            await self.lobby_link.start()
        await self.tables.restore_open()
        await self.count_decks()
        self.tables.spawn(self.tables.sweep())
        # (and rated games that ended just before a crash: they count, once)
        self.tables.spawn(clean_up(self))
        self.bots.warm_up()
        if self.config.initial_puzzles > 0:
            self.tables.spawn(self._first_puzzles())

    async def _first_puzzles(self) -> None:
        """The first puzzles of each game that makes some and has none (a first start)."""
        try:
            await self.puzzles.fill(
                self.bots.make_puzzles, PuzzleSource(self.config.initial_puzzles)
            )
        except asyncio.CancelledError:
            raise
        except Exception:  # the next start tries again; the rest of the server runs on
            log.warning("making the first puzzles failed", exc_info=True)

    def _notifier(self) -> Notifier:
        config = self.config
        smtp = SmtpSettings.parse(config.smtp_url) if config.smtp_url else None
        site = config.site_url or next(iter(config.public_origins), "http://localhost:8000")
        contact = config.push_contact or f"mailto:{smtp.sender if smtp else 'bodoge@localhost'}"
        grace = round(config.notify_grace_seconds * 1000)
        return Notifier(
            self.store,
            site=site,
            process=self.process,
            titles={game_id: game.title for game_id, game in self.games.items()},
            watching=self.tables.watching,
            is_account=self.store.account,
            mailer=Mailer(smtp) if smtp else None,
            push=config.web_push,
            contact=contact,
            times=NotifyTimes(grace_ms=grace, poll_seconds=config.notify_poll_seconds),
            turn_running=self.store.turn_running,
            local_push=config.test_hooks,
        )

    def _rated_game_ended(self, table_id: str) -> None:
        self.tables.spawn(self._settle(table_id))

    async def _settle(self, table_id: str) -> None:
        try:
            await self.ratings.settle(table_id)
        except Exception:  # still pending: settled at the next start or housekeeping pass
            log.warning("updating the ratings of %s failed", table_id, exc_info=True)

    async def count_decks(self) -> None:
        """Look at how many uploaded decks the store keeps, and their bytes (for the stats)."""
        counters = self.counters
        counters.decks_kept, counters.deck_bytes_kept = await self.store.picture_usage()

    async def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        await self.tables.close()  # and with them the sweep
        if hasattr(self, "notifier"):
            await self.notifier.stop()  # what it had not sent waits in the outbox
        self.lobby.close()
        if self.cluster is not None:
            await self.cluster.stop()  # the others take this process's running tables over
        await self.bots.close()
        await self.store.close()

    async def _join_cluster(self) -> None:
        """Start this process's end of the cluster; the store's writer fences its commits."""
        engine = getattr(self.store, "engine", None)
        if engine is None or not hasattr(self.store, "fence"):
            raise TypeError("cluster mode needs the SQL store on PostgreSQL")
        config = self.config
        assert config.redis_url is not None
        self.cluster = ClusterService(
            engine,
            config.redis_url,
            Namespace.for_database(config.db_url, config.redis_namespace),
            self.process,
            lease=config.lease_seconds,
            on_lost=self._lost,
            on_orphans=self._orphans,
            on_departed=self._departed,
        )
        await self.cluster.start()
        self.cluster.on_renamed = self._renamed_elsewhere
        self.cluster.on_signed_out = self._signed_out_elsewhere
        self.store.fence = self.cluster
        # Rates and retried requests are the cluster's: a visitor may land on any process.
        shared = self.cluster.shared
        rates = (self.new_players, self.uploads, self.upload_pixels, self.new_tables)
        for buckets in (*rates, *self.accounts.buckets):
            buckets.share(shared)
        self.recent.share(shared, self.process, self.cluster.alive)

    def _signed_out(self, player_id: str, token_hashes: set[str] | None) -> None:
        """Tokens ended here: their sockets close here, and on every other process."""
        self.sockets.signed_out(player_id, token_hashes)
        if self.cluster is not None:
            self.cluster.signed_out(player_id, token_hashes)

    def _signed_out_elsewhere(self, player_id: str, token_hashes: set[str] | None) -> None:
        # Another process ended them: forget them here too, or a cached token would still
        # name the player on this process.
        if token_hashes is None:
            self.players.forget_player_tokens(player_id)
        else:
            self.players.forget_tokens(token_hashes)
        self.sockets.signed_out(player_id, token_hashes)

    def renamed(self, player: Player) -> None:
        """A player's new name shows at the tables they sit at, on every process."""
        self.renamed_here(player)
        if self.cluster is not None:
            self.cluster.renamed(player.id, player.name)

    def _renamed_elsewhere(self, player_id: str, name: str) -> None:
        player = self.players.get(player_id)
        if player is not None and player.name != name:
            player.name = name
            self.renamed_here(player)

    def renamed_here(self, player: Player) -> None:
        for table in list(self.tables.live.values()):
            if any(player.id in (s.player, s.left) for s in table.seats):
                table.post(table.refresh_seats)

    async def _lost(self, table_ids: set[str]) -> None:
        self.tables.let_go(table_ids)

    async def _orphans(self, claims: dict[str, int]) -> None:
        self.tables.spawn(self.tables.take_over(set(claims)))

    async def _departed(self, processes: set[str]) -> None:
        """Processes died or left: the ratings of games that ended on them just before, left
        pending, are settled now rather than at the next housekeeping pass (every process
        hears it; the store settles each game exactly once)."""
        self.tables.spawn(self.ratings.settle_pending())

    def _tables_owned(self) -> int:
        tables = getattr(self, "tables", None)
        return 0 if tables is None else len(tables.live)

    def probes(self) -> Mapping[str, Probe]:
        """What ``/healthz`` checks: the database (when the store has an engine to ask), Redis."""
        engine = getattr(self.store, "engine", None) if hasattr(self, "store") else None
        probes = {} if engine is None else {"database": database_probe(engine)}
        version = getattr(self.store, "schema_version", None) if engine is not None else None
        if version is not None:
            probes["schema"] = schema_probe(engine, version)
        if self.cluster is not None:
            probes["redis"] = self.cluster.ping_redis
        return probes

    def connect(
        self, transport: Transport, address: str | None = None, user_agent: str | None = None
    ) -> Connection:
        if self._desk is None:
            self._desk = Desk(
                limits=self.config.limits,
                store=self.store,
                players=self.players,
                admission=self.admission,
                sockets=self.sockets,
                recent=self.recent,
                new_players=self.new_players,
                counters=self.counters,
                lobby=self.lobby,
                tables=self.tables,
                assistant=self.bots,
                renamed=self.renamed,
            )
        return Connection(self._desk, transport, address, user_agent)

"""The server's settings and the limits it enforces on every connection."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bodoge.core.game import Game
from bodoge.server.runtime.clock import Clock
from bodoge.server.runtime.pace import DEFAULT_PACE, PACE_TABLE, Pace, fixed
from bodoge.server.runtime.turns import (
    ABANDON_AFTER_DAYS,
    ABSENT_AFTER_DAYS,
    ABSENT_AFTER_TIMEOUTS,
    VACATION_DAYS_PER_YEAR,
)


@dataclass(frozen=True)
class Limits:
    """What one connection may do.  ``docs/protocol.md`` states the same numbers."""

    #: Largest frame answered with ``too_large`` (the connection stays open).
    message_bytes: int = 16 * 1024
    #: Largest frame the WebSocket layer reads at all (beyond it: close 1009).
    frame_bytes: int = 1024 * 1024
    #: Messages per second a connection may send, and the burst it may save up.
    rate: float = 20.0
    burst: int = 40
    #: Messages dropped as ``rate_limited`` in a row before the connection is closed (4008).
    strikes: int = 40
    #: Messages waiting to go out before a slow client is dropped (4009).
    outbox: int = 256
    name_chars: int = 24
    chat_chars: int = 300
    #: Chat lines kept in memory and sent in a ``table`` snapshot.
    chat_backlog: int = 100
    #: The most missed events replayed on ``table.open`` with ``since``; beyond: a snapshot.
    catch_up: int = 1000
    #: Connections open at once from one client address and for one player (0: no limit);
    #: beyond them a new connection is closed with code 4029.
    connections_per_address: int = 64
    connections_per_player: int = 16
    #: Seconds a reply to a state-changing request is kept for a retry with the same id.
    retry_seconds: float = 600.0


DAY = 86400.0


@dataclass(frozen=True)
class Quotas:
    """What visitors may make, so that nobody fills the server (0: no limit).

    Rates are token buckets (:mod:`bodoge.server.services.quotas`): ``N`` per hour,
    all ``N`` at once
    at most.  The README lists them with their ``bodoge serve`` options.
    """

    #: New players (``hello`` without a token) per client address and hour.
    new_players_per_hour: int = 30
    #: Seconds after which a guest who never sat at a table, hosted one, chatted or uploaded,
    #: and has not been seen since, is removed from the store.
    guest_seconds: float = 30 * DAY
    #: Seconds after which an account's sign-in (a device) not used since expires: its token
    #: gets ``bad_token`` and the store forgets it.  A guest's token never expires.
    session_seconds: float = 180 * DAY
    #: Password sign-ins (and accounts made; passkey sign-ins begun, counted apart) per client
    #: address and hour; password sign-ins per account name and address and hour; and per
    #: account name and hour from any address but the account's usual ones (the brake)
    #: (bodoge/server/services/accounts.py).
    sign_ins_per_hour: int = 30
    sign_ins_per_account_hour: int = 10
    sign_in_brake_per_account_hour: int = 30
    #: Waiting tables one player may host at once, and tables a player may create an hour.
    waiting_tables_per_player: int = 5
    tables_per_hour: int = 60
    #: Open (waiting or running) turn-based tables one player may sit at at once.
    turn_based_tables_per_player: int = 20
    #: Uploads of pictures (``POST /api/decks``) per client address and hour.
    uploads_per_hour: int = 20
    #: Megapixels the pictures of one upload may decode to, and one player's uploads an hour
    #: (read from the pictures' headers before any is decoded; bodoge/server/edge/decoding.py).
    upload_megapixels: int = 250
    megapixels_per_player_hour: int = 1000
    #: Uploaded decks one player may keep, and their bytes (as stored, redrawn as WebP).
    decks_per_player: int = 20
    deck_bytes_per_player: int = 100 * 2**20
    #: Bytes of uploaded pictures the whole server keeps.
    deck_bytes_total: int = 4 * 2**30
    #: Seconds after which an uploaded deck no table has named is deleted.
    deck_unused_seconds: float = 30 * DAY
    #: How often the store is searched for idle guests and unused decks to remove.
    cleanup_seconds: float = 3600.0


@dataclass(frozen=True)
class ServerConfig:
    #: SQLAlchemy async URL of the store.
    db_url: str
    #: Seconds every bot waits before it moves, whatever its table's pace, and no move is
    #: held for a reaction window (tests, benchmarks); ``None``: each table's pace decides.
    bot_delay: float | None = None
    #: The think times and reaction window of each pace (:mod:`bodoge.server.runtime.pace`).
    paces: Mapping[str, Pace] = field(default_factory=lambda: dict(PACE_TABLE))
    #: Processes that run bots and the assistant (0: threads of the server process).
    bot_workers: int = 1
    #: Seconds a bot or the assistant may think before its answer is dropped.
    bot_timeout: float = 60.0
    #: Seconds a finished table nobody watches stays in memory.
    idle_seconds: float = 30.0
    #: Seconds a running table nobody watches, with no turn limit, clock or bot to run,
    #: stays in memory; it comes back from the store when someone opens it.
    unwatched_seconds: float = 600.0
    #: Seconds a waiting table stays in the lobby once none of its seated players is
    #: connected; then it is deleted, as when they all leave.
    waiting_seconds: float = 1800.0
    #: The same for a turn-based table, whose people come and go over days.
    turn_waiting_seconds: float = 7 * DAY
    #: Seconds a running game may go unwatched by anyone before it ends as abandoned,
    #: and how often the store is searched for such games.
    abandon_seconds: float = 86400.0
    #: Seconds a turn-based game may go without a move by any person before it ends as
    #: abandoned (nobody watching is no sign of that there: people come back days later).
    turn_abandon_seconds: float = ABANDON_AFTER_DAYS * DAY
    #: When a person at a turn-based table is *absent* (the stand-in plays their turns at
    #: once while they do not have the table open): after this many of their turns in a row
    #: ran out, or once they ran out of time and made no move of their own for this many
    #: seconds (bodoge/server/runtime/turns.py).
    absent_after_timeouts: int = ABSENT_AFTER_TIMEOUTS
    absent_after_seconds: float = ABSENT_AFTER_DAYS * DAY
    #: Days of vacation from turn-based games a person may take in a calendar year (0: none).
    vacation_days_per_year: int = VACATION_DAYS_PER_YEAR
    sweep_seconds: float = 60.0
    limits: Limits = field(default_factory=Limits)
    quotas: Quotas = field(default_factory=Quotas)
    #: Cluster mode (PostgreSQL only): the Redis URL the cluster's processes share, and the
    #: namespace of its channels (``None``: derived from ``db_url``).
    redis_url: str | None = None
    redis_namespace: str | None = None
    #: Seconds a process's lease lasts: how soon another takes its tables over if it dies.
    lease_seconds: float = 5.0
    #: The origins browsers reach the server at behind a proxy (``https://games.example.org``),
    #: accepted besides a request's own (bodoge/server/edge/origins.py).
    public_origins: tuple[str, ...] = ()
    #: Resident bytes over which the collector sweeps (one full pass: a pause as long as the
    #: heap is big; ``bodoge/server/services/collector.py``); ``None``: it never does.
    gc_sweep_above: int | None = None
    #: The server's clock (:mod:`bodoge.server.runtime.clock`); ``None``: the machine's.
    #: Tests pass a ``ManualClock`` to play turn-based games over simulated days.
    clock: Clock | None = None
    #: Puzzles the server makes of each game that has none, in the background, when it
    #: starts (``bodoge serve --initial-puzzles``; 0: none, as in tests).
    initial_puzzles: int = 0
    #: The games to offer; ``None``: every registered game.
    games: Mapping[str, Game[Any, Any, Any]] | None = None
    #: Notifications (bodoge/server/services/notify.py): where e-mail goes out (``None``:
    #: no e-mail), the address the links of e-mails open (``None``: the first public origin,
    #: else the server's own URL), whether Web Push is sent, and who runs the server, for
    #: the push services (``mailto:`` or ``https:``; ``None``: the mail sender's address).
    smtp_url: str | None = None
    site_url: str | None = None
    web_push: bool = True
    push_contact: str | None = None
    #: Seconds from a table's "your turn" to its notification (a person who opens the table
    #: meanwhile is not told), and how often the outbox is read.
    notify_grace_seconds: float = 30.0
    notify_poll_seconds: float = 5.0
    #: Tests only (``bodoge serve --test-clock``, on a loopback address): ``clock`` is a
    #: ``ManualClock`` that ``POST /api/test/clock`` moves on (bodoge/server/edge/sim_clock.py),
    #: and Web Push goes to loopback endpoints too (a test's push service on this machine).
    test_hooks: bool = False

    def pace(self, name: str) -> Pace:
        """The pace a table's bots play at: ``bot_delay`` overrides every table's choice."""
        if self.bot_delay is not None:
            return fixed(self.bot_delay)
        return self.paces.get(name) or self.paces[DEFAULT_PACE]

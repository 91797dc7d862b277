"""The store's ports: what each part of the server needs of the store, one Protocol each.

A part of the server asks for the narrowest port that does (a live table for
:class:`TableStore`: 11 methods, not all of :class:`Store`'s); :class:`Store` is their
union, which :class:`~bodoge.store.sql.SqlStore` implements.  A test may pass anything
that has a port's methods.

Writes are acknowledged only once committed: when an ``await`` on a write returns, the
data survives a crash of the process.  A write that breaks a uniqueness rule raises
:class:`~bodoge.store.base.Conflict`, one the database cannot make now
:class:`~bodoge.store.base.StoreUnavailable`, and, in a cluster, one of a table this
process no longer owns :class:`~bodoge.store.base.Fenced`; none of them changes anything.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

from bodoge.core.values import JSON
from bodoge.store.notifications import NotifySettings, OutboxItem, PushSubscription
from bodoge.store.records import (
    AccountRecord,
    ChallengeRecord,
    ChatRecord,
    MoveRecord,
    PasskeyRecord,
    PictureSetRecord,
    PlayerRecord,
    PuzzleAttemptRecord,
    PuzzlePlayerRecord,
    PuzzleRecord,
    RatingRecord,
    SeatRecord,
    SessionRecord,
    Sighting,
    TableBundle,
    TableRecord,
    Timers,
    VacationRecord,
)


class TableStore(Protocol):
    """What a live table writes (:mod:`bodoge.server.runtime.table`): its seats, settings,
    start, moves, timers, chat and end, each stored before the table changes in memory."""

    @abstractmethod
    async def save_seats(
        self, table_id: str, seats: Iterable[SeatRecord], host: str | None
    ) -> None:
        """Replace the seats of a table (and its host)."""

    @abstractmethod
    async def remove_from_table(
        self, table_id: str, seats: Iterable[SeatRecord], host: str | None, player: str
    ) -> None:
        """Replace the seats of a waiting table, ``player`` removed by its host, and keep
        ``player`` among those it removed (:attr:`TableBundle.removed`), in one transaction."""

    @abstractmethod
    async def save_settings(
        self,
        table_id: str,
        settings: Mapping[str, object],
        options: Mapping[str, object] | None = None,
    ) -> None:
        """A waiting table's settings, and its game options unless ``None``, changed by
        its host."""

    @abstractmethod
    async def start_table(
        self, table_id: str, started_at: int, seats: Iterable[SeatRecord], timers: Timers
    ) -> None: ...

    @abstractmethod
    async def append_move(
        self,
        table_id: str,
        move: MoveRecord,
        timers: Timers | None = None,
        result: Mapping[str, object] | None = None,
        rated: bool = False,
        statistics: Sequence[Mapping[str, int]] | None = None,
    ) -> None:
        """Store move ``move.n``; ``timers``: the timers it leaves, if they changed;
        ``result`` finishes the table (and stops its timers) with the seats'
        ``statistics`` and, if ``rated``, leaves its ratings to update
        (:meth:`pending_ratings`) in the same transaction.

        Raises :class:`Conflict` if the table already has a move ``n``.
        """

    @abstractmethod
    async def set_timers(self, table_id: str, timers: Timers) -> None: ...

    @abstractmethod
    async def set_unwatched(self, table_id: str, since: int | None) -> None:
        """Since when nobody has watched the running table (``None``: someone does)."""

    @abstractmethod
    async def set_rematch(self, table_id: str, rematch: str) -> None:
        """The rematch (a table id) a player of the finished table proposed."""

    @abstractmethod
    async def end_table(
        self,
        table_id: str,
        at: int,
        result: Mapping[str, object],
        statistics: Sequence[Mapping[str, int]] | None = None,
    ) -> None:
        """Finish a running table without a move (an abandoned game), stopping its timers."""

    @abstractmethod
    async def add_chat(self, line: ChatRecord) -> None: ...

    @abstractmethod
    async def delete_table(self, table_id: str) -> None: ...


class TableReader(Protocol):
    """A table read back by its id, with its history."""

    @abstractmethod
    async def load_table(self, table_id: str, *, chat: int = 100) -> TableBundle | None:
        """A table with all its moves and its last ``chat`` lines, or ``None``."""


class TablesStore(TableReader, Protocol):
    """What the tables of a process need (:mod:`bodoge.server.runtime.tables`): new tables,
    those to bring back after a restart, and the questions about all of them."""

    @abstractmethod
    async def create_table(self, table: TableRecord, seats: Iterable[SeatRecord]) -> None: ...

    @abstractmethod
    async def load_open_tables(self, *, chat: int = 100) -> list[TableBundle]:
        """Every waiting or playing table, to bring back after a restart."""

    @abstractmethod
    async def unwatched_tables(self, before: int) -> list[str]:
        """The running tables nobody has watched since before ``before``."""

    @abstractmethod
    async def waiting_tables_hosted(self, player_id: str) -> int:
        """How many waiting tables ``player_id`` hosts (a cluster's processes together)."""


class HistoryStore(Protocol):
    """The finished tables, for the lists of games played (:mod:`bodoge.server.edge.api`,
    :mod:`bodoge.server.edge.profiles`)."""

    @abstractmethod
    async def finished_tables(self, limit: int = 50) -> list[TableRecord]:
        """The most recently finished tables, newest first."""

    @abstractmethod
    async def played_tables(self, player_id: str, limit: int = 50) -> list[TableBundle]:
        """The finished tables at which ``player_id`` held a seat (to the end, or until a
        bot took it over), newest first: each with its seats and players, without its
        moves or chat."""


class StatisticsStore(TableReader, Protocol):
    """Statistics of finished tables made afterwards
    (:mod:`bodoge.server.services.statistics`)."""

    @abstractmethod
    async def unsummarised_tables(self, limit: int = 100) -> list[str]:
        """Finished tables without statistics (finished before they were kept), oldest first."""

    @abstractmethod
    async def save_statistics(self, table_id: str, statistics: Sequence[Mapping[str, int]]) -> None:
        """The statistics of a finished table made afterwards, from its replayed game."""


class PlayerStore(Protocol):
    """Players: made, found by token, named, seen (:mod:`bodoge.server.services.identity`)."""

    @abstractmethod
    async def create_player(self, player: PlayerRecord) -> None: ...

    @abstractmethod
    async def player_by_token_hash(
        self, token_hash: str, used_since: int = 0
    ) -> PlayerRecord | None:
        """The player of a guest's token, or of a sign-in of the account's generation last
        seen at ``used_since`` or later (an older one has expired: nobody)."""

    @abstractmethod
    async def players(self, ids: Iterable[str]) -> dict[str, PlayerRecord]: ...

    @abstractmethod
    async def rename_player(self, player_id: str, name: str) -> None: ...

    @abstractmethod
    async def player_seen(self, player_id: str, at: int) -> None:
        """The player said hello at ``at``."""


class GuestStore(Protocol):
    """Guests who left no trace, to forget (:mod:`bodoge.server.services.housekeeping`)."""

    @abstractmethod
    async def guests(self, seen_before: int, limit: int = 1000) -> list[PlayerRecord]:
        """Players not seen since before ``seen_before`` who are guests: no seat at any
        table (nor left one), hosting none, no chat line, no uploaded picture set."""

    @abstractmethod
    async def delete_guests(self, ids: Iterable[str], seen_before: int | None) -> int:
        """Delete those of ``ids`` who are still guests unseen since before ``seen_before``
        (``None``: whenever seen); how many were deleted."""


class AccountStore(Protocol):
    """Accounts, sign-ins, passkeys and their challenges
    (:mod:`bodoge.server.services.accounts`)."""

    @abstractmethod
    async def account(self, player_id: str) -> AccountRecord | None:
        """The player's account (``None``: a guest, or no such player)."""

    @abstractmethod
    async def account_by_key(self, key: str) -> AccountRecord | None: ...

    @abstractmethod
    async def make_account(
        self,
        player_id: str,
        name: str,
        key: str,
        password_hash: str | None,
        first: Sighting | None = None,
    ) -> None:
        """The guest keeps their name: the token they began with becomes the account's first
        sign-in, seen as ``first`` (``None``: when the player was made, from nowhere known),
        and the hash of no token takes its place.  Raises :class:`Conflict` if the key is
        taken."""

    @abstractmethod
    async def set_password(self, player_id: str, password_hash: str | None) -> None: ...

    @abstractmethod
    async def add_session(
        self, token_hash: str, player_id: str, generation: int, seen: Sighting
    ) -> None:
        """A new sign-in of the account, of its current generation, begun as ``seen`` says."""

    @abstractmethod
    async def sessions(self, player_id: str, used_since: int) -> list[SessionRecord]:
        """The account's sign-ins of its generation seen at ``used_since`` or later, the
        most recently seen first."""

    @abstractmethod
    async def session_seen(self, token_hash: str, seen: Sighting) -> None:
        """The sign-in was used (at ``seen.at``, from its address, in its browser)."""

    @abstractmethod
    async def delete_expired_sessions(self, used_before: int) -> int:
        """Delete every sign-in last seen before ``used_before``; how many there were."""

    @abstractmethod
    async def end_session(self, token_hash: str, replacement: str) -> None:
        """The token no longer names anyone: its sign-in is deleted, or, if it is the token
        the player began with, ``replacement`` (the hash of no token) takes its place."""

    @abstractmethod
    async def end_sessions(self, player_id: str, generation: int, replacement: str) -> None:
        """Sign out everywhere: the account moves to ``generation`` (older sign-ins are
        deleted) and ``replacement`` takes the place of the token it began with."""

    @abstractmethod
    async def add_passkey(self, passkey: PasskeyRecord) -> None:
        """Raises :class:`Conflict` if the credential id is known."""

    @abstractmethod
    async def passkey(self, credential_id: str) -> PasskeyRecord | None: ...

    @abstractmethod
    async def passkeys(self, player_id: str) -> list[PasskeyRecord]:
        """The account's passkeys, oldest first."""

    @abstractmethod
    async def use_passkey(self, credential_id: str, sign_count: int, at: int) -> None: ...

    @abstractmethod
    async def delete_passkey(self, player_id: str, credential_id: str) -> None: ...

    @abstractmethod
    async def note_address(self, player_id: str, address: str, at: int, keep: int) -> None:
        """The account signed in (or was made) from ``address`` at ``at``; only the
        ``keep`` most recent addresses of the account are kept."""

    @abstractmethod
    async def knows_address(self, key: str, address: str, since: int) -> bool:
        """Whether the account of ``key`` was noted at ``address`` at or after ``since``."""

    @abstractmethod
    async def add_challenge(self, challenge: ChallengeRecord, now: int, limit: int) -> bool:
        """Keep a passkey ceremony's challenge (and forget those expired by ``now``);
        ``False``, keeping nothing, if ``limit`` live ones are kept already."""

    @abstractmethod
    async def take_challenge(self, challenge_id: str, now: int) -> ChallengeRecord | None:
        """The challenge, deleted in the same transaction, so that only one request (on any
        process) ever gets it; ``None`` if there is none, or it expired by ``now``."""


class RatingStore(Protocol):
    """Ratings (:mod:`bodoge.server.services.ratings`, the profiles and leaderboards)."""

    @abstractmethod
    async def pending_ratings(self) -> list[str]:
        """The rated tables that finished and whose ratings are not updated yet."""

    @abstractmethod
    async def settle_ratings(
        self,
        table_id: str,
        game: str,
        players: Sequence[str],
        update: Callable[[dict[str, RatingRecord]], list[RatingRecord]],
    ) -> bool:
        """In one transaction: take the table off the pending list, read the ratings of
        ``players`` for ``game``, and store what ``update`` makes of them (and each as a
        point of history).  ``False``, with nothing changed, if the table was not pending
        (its ratings are updated already): a game counts exactly once."""

    @abstractmethod
    async def ratings_of(self, player: str) -> list[RatingRecord]:
        """A player's rating in every game they played rated."""

    @abstractmethod
    async def rating_history(self, player: str, game: str, limit: int = 200) -> list[RatingRecord]:
        """The player's rating after each of their last ``limit`` rated games, oldest first."""

    @abstractmethod
    async def leaderboard(self, game: str, min_games: int, limit: int = 100) -> list[RatingRecord]:
        """The players (not bots) with at least ``min_games`` rated games, best first
        (by μ − 3σ)."""

    @abstractmethod
    async def bot_ratings(self, game: str) -> list[RatingRecord]:
        """The ratings of the game's bot levels (``bot:<level>``) that games moved."""


class PuzzleStore(Protocol):
    """Puzzles (:mod:`bodoge.server.services.puzzles`): those a game made, each person's
    answers and puzzle rating, and each day's daily puzzle."""

    @abstractmethod
    async def add_puzzles(self, puzzles: Sequence[PuzzleRecord]) -> int:
        """Keep new puzzles (one already kept, by id, is left as it is); how many were new."""

    @abstractmethod
    async def puzzle_count(self, game: str) -> int: ...

    @abstractmethod
    async def puzzle(self, puzzle_id: str) -> PuzzleRecord | None: ...

    @abstractmethod
    async def puzzles_near(
        self, player: str, game: str, mu: float, limit: int, kind: str | None = None
    ) -> list[PuzzleRecord]:
        """Up to ``limit`` puzzles ``player`` has not answered, rated nearest ``mu`` first."""

    @abstractmethod
    async def daily_puzzle(self, game: str, day: str, choose: Callable[[int], int]) -> str | None:
        """The daily puzzle of ``day``: the one kept for it, or else the ``choose(n)``-th of
        the game's ``n`` puzzles by id, kept in the same transaction (so every process and
        every later call gets the same); ``None`` while the game has no puzzle."""

    @abstractmethod
    async def puzzle_player(self, player: str, game: str) -> PuzzlePlayerRecord | None: ...

    @abstractmethod
    async def puzzle_players_of(self, player: str) -> list[PuzzlePlayerRecord]:
        """A person's puzzle rating in every game they answered puzzles of."""

    @abstractmethod
    async def puzzle_attempt(self, player: str, puzzle_id: str) -> PuzzleAttemptRecord | None: ...

    @abstractmethod
    async def puzzle_attempts(self, player: str, limit: int = 50) -> list[PuzzleAttemptRecord]:
        """A person's last answers, the newest first."""

    @abstractmethod
    async def answer_puzzle(
        self,
        player: str,
        puzzle_id: str,
        answer: JSON,
        right: bool,
        at: int,
        day: str | None,
        rate: Callable[
            [PuzzlePlayerRecord | None, PuzzleRecord],
            tuple[PuzzlePlayerRecord, PuzzlePlayerRecord, PuzzleRecord],
        ],
    ) -> tuple[PuzzlePlayerRecord, PuzzlePlayerRecord, PuzzleRecord]:
        """In one transaction: read the person's and the puzzle's ratings, store what
        ``rate`` makes of them and the answer.  Raises :class:`KeyError` for an unknown
        puzzle and :class:`Conflict` if the person answered it already (nothing changes)."""


class PictureStore(Protocol):
    """Uploaded picture sets (:mod:`bodoge.server.edge.assets`, the housekeeping)."""

    @abstractmethod
    async def add_picture_set(
        self,
        set_id: str,
        pictures: Sequence[tuple[bytes, str]],
        created_at: int,
        owner: str | None = None,
    ) -> None:
        """Store a set of uploaded pictures ``(content, media type)``, numbered from 0,
        uploaded by the player ``owner``.

        Raises :class:`Conflict` if the set id is taken.
        """

    @abstractmethod
    async def picture_usage(self, owner: str | None = None) -> tuple[int, int]:
        """How many picture sets ``owner`` uploaded and their bytes (``None``: everyone's)."""

    @abstractmethod
    async def use_picture_sets(self, set_ids: Iterable[str], at: int) -> None:
        """A table named these sets at ``at`` (ids of no set are ignored)."""

    @abstractmethod
    async def unused_picture_sets(self, before: int, limit: int = 1000) -> list[str]:
        """Sets no table has named since before ``before`` (nor made since)."""

    @abstractmethod
    async def picture_sets(self, owner: str | None = None) -> list[PictureSetRecord]:
        """Every uploaded set (or ``owner``'s), oldest first."""

    @abstractmethod
    async def delete_picture_sets(self, set_ids: Iterable[str], unused_before: int | None) -> int:
        """Delete those of the sets still unused since before ``unused_before`` (``None``:
        whether used or not); how many."""

    @abstractmethod
    async def picture_set_size(self, set_id: str) -> int:
        """How many pictures the set holds (0: no such set)."""

    @abstractmethod
    async def picture(self, set_id: str, n: int) -> tuple[bytes, str] | None:
        """Picture ``n`` of a set as ``(content, media type)``, or ``None``."""


class TurnStore(Protocol):
    """Turn-based play (:mod:`bodoge.server.runtime.turns`): vacations, and the open tables
    a player sits at (``GET /api/players/me/tables``, the quota of turn-based tables)."""

    @abstractmethod
    async def vacation(self, player_id: str) -> VacationRecord | None:
        """The player's vacation record, if they ever took one."""

    @abstractmethod
    async def set_vacation(self, vacation: VacationRecord) -> None:
        """Store a player's vacation (begun, ended, or the year's count renewed)."""

    @abstractmethod
    async def away_until(self, player_ids: Iterable[str], now: int) -> dict[str, int]:
        """Of these players, those on vacation at ``now``: until when."""

    @abstractmethod
    async def open_tables_of(self, player_id: str) -> list[TableBundle]:
        """The waiting and running tables where ``player_id`` holds a seat, oldest first,
        each with its seats and players (no moves, no chat)."""


class NotifyStore(Protocol):
    """What notifications keep (:mod:`bodoge.server.services.notify`): choices, addresses,
    Web Push subscriptions, the server's secrets and the outbox, claimed row by row."""

    @abstractmethod
    async def notify_settings(self, player_id: str) -> NotifySettings | None:
        """A person's choices (``None``: never saved, the defaults hold)."""

    @abstractmethod
    async def save_notify_settings(self, settings: NotifySettings, at: int) -> None:
        """Replace a person's choices."""

    @abstractmethod
    async def verify_email(self, player_id: str, email: str, at: int) -> bool:
        """Mark the address verified if it is still the person's; whether it was."""

    @abstractmethod
    async def unsubscribe_email(self, player_id: str, email: str, at: int) -> bool:
        """Turn every kind of e-mail off (if ``email`` is still the person's) and drop the
        e-mails waiting; whether the address was theirs."""

    @abstractmethod
    async def add_push_subscription(self, sub: PushSubscription, limit: int) -> None:
        """Keep (or replace) a browser's subscription; a person keeps the newest ``limit``."""

    @abstractmethod
    async def remove_push_subscription(self, endpoint: str, player_id: str | None) -> bool:
        """Forget a subscription (``player_id``: only if it is theirs); whether one was."""

    @abstractmethod
    async def replace_push_subscription(self, old: str, sub: PushSubscription, limit: int) -> bool:
        """In one transaction: forget the subscription ``old`` of ``sub.player`` and keep
        ``sub`` (a browser's push service renewed its subscription); nothing changes unless
        ``old`` was the person's.  Whether it was."""

    @abstractmethod
    async def push_subscriptions(self, player_id: str) -> list[PushSubscription]:
        """A person's browsers' subscriptions, oldest first."""

    @abstractmethod
    async def secret(self, name: str, make: Callable[[], str], at: int) -> str:
        """The secret ``name``, made by ``make`` and kept if there was none (every process
        gets the same)."""

    @abstractmethod
    async def enqueue(self, items: Sequence[OutboxItem]) -> int:
        """Add notifications to send; one whose key is there already is not added again.
        How many were added."""

    @abstractmethod
    async def claim_due(
        self,
        now: int,
        until: int,
        by: str,
        limit: int,
        channels: Sequence[str],
        owner_first_ms: int | None = None,
    ) -> list[OutboxItem]:
        """Claim for ``by`` until ``until`` up to ``limit`` unsent items of ``channels`` due by
        ``now`` that nobody holds; each goes to one claimer only.  ``owner_first_ms``: an
        item of a table another process owns (``tables.owner``) is left to that process
        until it has been due this long."""

    @abstractmethod
    async def digests_due(self, older_than: int, now: int) -> list[str]:
        """The people whose oldest unsent digest item is from ``older_than`` or before."""

    @abstractmethod
    async def claim_digest(self, player_id: str, now: int, until: int, by: str) -> list[OutboxItem]:
        """Claim every unsent digest item of a person that nobody holds."""

    @abstractmethod
    async def outbox_sent(self, keys: Sequence[str], by: str, at: int) -> None:
        """Items ``by`` claimed were sent."""

    @abstractmethod
    async def outbox_retry(
        self, keys: Sequence[str], by: str, due_at: int | None, error: str, at: int
    ) -> None:
        """Items ``by`` claimed failed: due again at ``due_at`` (``None``: given up)."""

    @abstractmethod
    async def prune_outbox(self, sent_before: int) -> int:
        """Forget items sent before a time; how many."""

    @abstractmethod
    async def outbox_hasten(self, player_id: str, kind: str, due_at: int) -> int:
        """Make the player's unsent mail and push items of ``kind`` due later than
        ``due_at`` due at ``due_at`` (a vacation ended early); how many."""

    @abstractmethod
    async def turn_running(self, table_id: str, player_id: str, deadline: int) -> bool:
        """Whether the player's turn that runs out at ``deadline`` still runs at the table
        (the table plays and a seat of theirs has that deadline), as the store has it."""


class Store(
    TableStore,
    TurnStore,
    TablesStore,
    HistoryStore,
    StatisticsStore,
    PlayerStore,
    GuestStore,
    AccountStore,
    RatingStore,
    PuzzleStore,
    PictureStore,
    NotifyStore,
    Protocol,
):
    """Durable history of players and tables: every port, and closing."""

    @abstractmethod
    async def close(self) -> None:
        """Finish pending writes and release the database."""

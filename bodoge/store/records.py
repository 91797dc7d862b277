"""What the store keeps, as plain frozen records (no ORM objects leave the store).

Times are integer milliseconds since the Unix epoch (UTC), the same on every
database.  JSON fields hold what the game's ``options_json`` and
``move_to_json`` produced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bodoge.core.values import JSON

SeatKind = Literal["empty", "human", "bot"]
TableStatus = Literal["waiting", "playing", "finished"]
#: Who made a stored move: the seat's player, its bot, the timeout bot or the table's clock.
Actor = Literal["player", "bot", "timeout", "clock"]


@dataclass(frozen=True)
class PlayerRecord:
    """A visitor: the token itself is never stored, only its hash."""

    id: str
    name: str
    token_hash: str
    created_at: int
    #: When the player last said hello (ms); ``None``: not since they were created.
    seen_at: int | None = None


@dataclass(frozen=True)
class AccountRecord:
    """A player who kept their name: the account name as typed, its unique key, the argon2
    hash of their password (``None``: passkeys only) and the generation of their sign-ins."""

    player: PlayerRecord
    name: str
    key: str
    password_hash: str | None
    generation: int


@dataclass(frozen=True)
class Sighting:
    """A token seen in use: when (ms), from which client address, in which browser on which
    system (``""``: unknown)."""

    at: int
    address: str = ""
    browser: str = ""
    system: str = ""


@dataclass(frozen=True)
class SessionRecord:
    """A sign-in of an account (one device): its token's hash, when it began, and when and
    where it was last seen (``seen``; its ``at`` is ``created_at`` if never since)."""

    token_hash: str
    player: str
    generation: int
    created_at: int
    seen: Sighting


@dataclass(frozen=True)
class PasskeyRecord:
    """A WebAuthn credential of an account: its id (base64url) and public key (COSE)."""

    id: str
    player: str
    public_key: bytes
    sign_count: int
    name: str
    created_at: int
    used_at: int | None = None


@dataclass(frozen=True)
class RatingRecord:
    """A rating for one game: of a player, or of a bot level (``bot:<level>``)."""

    player: str
    game: str
    mu: float
    sigma: float
    games: int
    #: When it last changed (ms): the end of a rated game.
    at: int
    #: The table whose end made it (history points only).
    table_id: str | None = None


@dataclass(frozen=True)
class ChallengeRecord:
    """A passkey ceremony begun: its random challenge, what it is for (``register`` or
    ``sign_in``), the player and account name it registers for, the site, and when it
    expires (ms)."""

    id: str
    challenge: bytes
    purpose: str
    player: str | None
    name: str | None
    rp_id: str
    expires_at: int


@dataclass(frozen=True)
class PictureSetRecord:
    """An uploaded set of pictures (a deck), without its pictures."""

    id: str
    size: int
    created_at: int
    #: The player who uploaded it (``None``: uploaded before uploads needed a player).
    owner: str | None
    bytes: int
    #: When a table last named it (ms).
    used_at: int | None


@dataclass(frozen=True)
class SeatRecord:
    """One seat.  ``left`` is the player a bot replaced after they left a running game."""

    seat: int
    kind: SeatKind = "empty"
    player: str | None = None
    level: str | None = None
    left: str | None = None


@dataclass(frozen=True)
class TableRecord:
    id: str
    game: str
    options: dict[str, JSON]
    settings: dict[str, JSON]
    seed: int
    status: TableStatus
    host: str | None
    created_at: int
    started_at: int | None = None
    finished_at: int | None = None
    result: dict[str, JSON] | None = None
    #: Turn deadlines (ms) per seat, as JSON keys: ``{"1": 1764500000000}``.
    deadlines: dict[str, int] = field(default_factory=dict)
    #: When the game's rule-level clock runs out (ms), if one is running.
    clock_deadline: int | None = None
    #: Since when nobody has watched the running game (ms); ``None`` while someone does.
    unwatched_at: int | None = None
    #: The table of the rematch a player of this finished game proposed, if any.
    rematch: str | None = None
    #: A finished game's counts per seat (``Game.statistics``); ``None``: not made yet.
    statistics: list[dict[str, int]] | None = None


@dataclass(frozen=True)
class Timers:
    """A table's running timers: turn deadlines per seat (JSON keys) and the rule clock (ms)."""

    deadlines: dict[str, int] = field(default_factory=dict)
    clock_deadline: int | None = None


@dataclass(frozen=True)
class MoveRecord:
    """Move ``n`` (counted from 1) of a table: unique per table."""

    n: int
    seat: int | None
    move: dict[str, JSON]
    at: int
    actor: Actor = "player"
    #: The timers the move left running, exactly as its frames told them: a catch-up tells
    #: each move's own, never the table's current ones.  ``None``: a move stored before
    #: moves kept their timers (revision 0005).
    timers: Timers | None = None


@dataclass(frozen=True)
class ChatRecord:
    """Chat line ``line`` (counted from 1) of a table, with the name as it was then."""

    table_id: str
    line: int
    player: str
    name: str
    text: str
    at: int


@dataclass(frozen=True)
class TableBundle:
    """Everything needed to bring a table back: the record, seats, moves and recent chat."""

    table: TableRecord
    seats: tuple[SeatRecord, ...]
    moves: tuple[MoveRecord, ...]
    chat: tuple[ChatRecord, ...]
    chat_count: int
    players: dict[str, PlayerRecord]
    #: Players the host removed from the table before its game (they may not sit again).
    removed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class VacationRecord:
    """A player's vacation from turn-based games: it runs until ``until`` (ms; ``None`` or a
    time past: none now), and ``days_used`` of the calendar year ``year`` (UTC) are spent."""

    player: str
    until: int | None
    year: int
    days_used: int


@dataclass(frozen=True)
class PuzzleRecord:
    """A puzzle a game made (``data`` is the game's, solution included) and its rating."""

    id: str
    game: str
    kind: str
    players: int
    data: dict[str, JSON]
    mu: float
    sigma: float
    plays: int = 0
    solved: int = 0
    created_at: int = 0


@dataclass(frozen=True)
class PuzzlePlayerRecord:
    """A person's puzzle rating for one game, and their streak of puzzles solved in a row."""

    player: str
    game: str
    mu: float
    sigma: float
    attempts: int = 0
    solved: int = 0
    streak: int = 0
    best_streak: int = 0
    updated_at: int = 0


@dataclass(frozen=True)
class PuzzleAttemptRecord:
    """A person's one answer to a puzzle, with the puzzle's kind and player count."""

    player: str
    puzzle: str
    game: str
    kind: str
    players: int
    right: bool
    mu_before: float
    mu: float
    at: int
    day: str | None = None

"""Table settings: how the table runs a game, as opposed to the game's own options.

Examples on the real games are in ``tests/server/test_game_examples.py``: the server
names no game.

The assistant (a game's, see ``Game.assist``) is on, off, or ``None``: it follows
the seats, on only for one person playing against bots (:func:`assistant_on`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bodoge.core.game import Game
from bodoge.core.values import JSON, is_whole
from bodoge.server.runtime.pace import DEFAULT_PACE, PACES
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.runtime.turns import MOVE_SECONDS
from bodoge.store import SeatRecord

MIN_TURN_SECONDS = 5
MAX_TURN_SECONDS = 3600
_KEYS = frozenset({"turn_seconds", "timeout_bot", "assistant", "bot_pace", "rated", "turn_based"})


@dataclass(frozen=True)
class TableSettings:
    #: Per-turn time limit; when it runs out the ``timeout_bot`` plays that move.
    turn_seconds: float | None = None
    #: The bot level that plays timed-out turns and replaces players who leave.
    timeout_bot: str | None = None
    #: Whether seated players may ask the game's assistant for an analysis;
    #: ``None`` (the default): only when one person plays against bots.
    assistant: bool | None = None
    #: How fast the table's bots play (:mod:`bodoge.server.runtime.pace`): fast, normal or slow.
    bot_pace: str = DEFAULT_PACE
    #: Whether the game's end updates the players' ratings (bodoge/server/services/ratings.py).
    rated: bool = False
    #: A turn-based table's time per move in seconds (:mod:`bodoge.server.runtime.turns`),
    #: one of ``MOVE_SECONDS``; ``None``: real time.  Fixed once the game starts.
    turn_based: int | None = None

    @property
    def turn_seconds_in_force(self) -> float | None:
        """The limit of each turn: a turn-based table's time per move, or the turn limit."""
        return self.turn_based if self.turn_based is not None else self.turn_seconds

    def to_json(self) -> dict[str, Any]:
        return {
            "turn_based": self.turn_based,
            "turn_seconds": self.turn_seconds,
            "timeout_bot": self.timeout_bot,
            "assistant": self.assistant,
            "bot_pace": self.bot_pace,
            "rated": self.rated,
        }


def default_bot(game: Game[Any, Any, Any]) -> str | None:
    """The middle bot level: neither a pushover nor a wall."""
    levels = list(game.bot_levels)
    return levels[len(levels) // 2] if levels else None


def parse_settings(raw: Mapping[str, Any] | None, game: Game[Any, Any, Any]) -> TableSettings:
    """Settings from a client, strictly checked; raises ``bad_options``."""
    raw = dict(raw or {})
    unknown = set(raw) - _KEYS
    if unknown:
        raise ProtocolError("bad_options", f"unknown setting {sorted(unknown)[0][:40]!r}")
    seconds = raw.get("turn_seconds")
    if seconds is not None and (
        not is_whole(seconds) or not MIN_TURN_SECONDS <= seconds <= MAX_TURN_SECONDS
    ):
        raise ProtocolError(
            "bad_options",
            f"turn_seconds is null or {MIN_TURN_SECONDS}-{MAX_TURN_SECONDS} whole seconds",
        )
    bot = raw.get("timeout_bot", default_bot(game))
    if bot is not None and bot not in game.bot_levels:
        raise ProtocolError("bad_options", f"{game.id} has no bot level {str(bot)[:40]!r}")
    if seconds is not None and bot is None:
        raise ProtocolError("bad_options", "a turn limit needs a timeout_bot to play late turns")
    assistant = raw.get("assistant")
    if assistant is not None and not isinstance(assistant, bool):
        raise ProtocolError("bad_options", "assistant is true, false or null (by the seats)")
    if not game.has_assistant:
        assistant = False
    pace = raw.get("bot_pace", DEFAULT_PACE)
    if pace not in PACES:
        raise ProtocolError("bad_options", f"bot_pace is one of {', '.join(PACES)}")
    rated = raw.get("rated", False)
    if not isinstance(rated, bool):
        raise ProtocolError("bad_options", "rated is true or false")
    turn_based = raw.get("turn_based")
    if turn_based is not None:
        if not is_whole(turn_based) or turn_based not in MOVE_SECONDS:
            raise ProtocolError(
                "bad_options",
                "turn_based is null (real time) or a time per move in seconds: "
                + ", ".join(str(s) for s in MOVE_SECONDS),
            )
        if seconds is not None:
            raise ProtocolError(
                "bad_options", "a turn-based table has its time per move, not a turn_seconds"
            )
        if bot is None:
            raise ProtocolError("bad_options", "a turn-based table needs a timeout_bot")
    return TableSettings(seconds, bot, assistant, pace, rated, turn_based)


def settings_from_json(data: Mapping[str, Any]) -> TableSettings:
    """Stored settings (already checked when the table was made)."""
    return TableSettings(
        turn_seconds=data.get("turn_seconds"),
        timeout_bot=data.get("timeout_bot"),
        # Tables stored before the default followed the seats had it on.
        assistant=_stored_assistant(data.get("assistant", True)),
        bot_pace=data.get("bot_pace", DEFAULT_PACE),
        rated=bool(data.get("rated", False)),
        turn_based=data.get("turn_based"),
    )


def _stored_assistant(value: Any) -> bool | None:
    return None if value is None else bool(value)


def people(seats: Sequence[SeatRecord]) -> int:
    """How many people sit (or sat, before a bot took their seat) at a table."""
    return sum(1 for s in seats if s.kind == "human" or s.left is not None)


def assistant_on(settings: TableSettings, seats: Sequence[SeatRecord]) -> bool:
    """Whether the assistant answers at this table.

    Left to the seats (``None``), it is on only while exactly one person sits
    (or sat) at the table: a person alone against bots may learn with it, but
    between people it would play for whoever looks at it.  Once the game has
    started the seats of people who left still count, so it never changes
    mid-game.

    >>> alone = [SeatRecord(0, "human", "p_a"), SeatRecord(1, "bot", level="easy")]
    >>> two = [SeatRecord(0, "human", "p_a"), SeatRecord(1, "human", "p_b")]
    >>> auto = TableSettings()
    >>> on = TableSettings(assistant=True)
    >>> assistant_on(auto, alone), assistant_on(auto, two), assistant_on(on, two)
    (True, False, True)
    """
    if settings.assistant is not None:
        return settings.assistant
    return people(seats) == 1


#: The table settings every page shows, for the games they apply to (see ``fields``).
SETTING_FIELDS: tuple[dict[str, JSON], ...] = (
    # Real time (null) or a time per move (seconds): the first thing a table says of itself.
    {
        "key": "turn_based",
        "kind": "move_time",
        "label": "lobby.mode",
        "choices": [None, *MOVE_SECONDS],
    },
    {"key": "turn_seconds", "kind": "seconds", "label": "lobby.turn_timer"},
    {"key": "timeout_bot", "kind": "bot", "label": "lobby.timeout_bot"},
    {"key": "assistant", "kind": "assistant", "label": "lobby.assistant"},
    # A choice's value reads as the string ``{values}{value}`` (``pace.fast``).
    {
        "key": "bot_pace",
        "kind": "choice",
        "label": "lobby.bot_pace",
        "values": "pace.",
        "choices": list(PACES),
    },
    {"key": "rated", "kind": "flag", "label": "lobby.rated"},
)


def fields(game: Game[Any, Any, Any]) -> list[dict[str, JSON]]:
    """The settings a table of ``game`` shows: a turn limit and its bot only with bots,
    the assistant only where the game has one."""
    shown: list[dict[str, JSON]] = []
    for f in SETTING_FIELDS:
        if (
            f["key"] in ("turn_seconds", "timeout_bot", "bot_pace", "turn_based")
            and not game.bot_levels
        ):
            continue
        if f["key"] == "assistant" and not game.has_assistant:
            continue
        shown.append(dict(f))
    return shown


def changed_options(
    game: Game[Any, Any, Any], stored: Mapping[str, JSON], raw: Mapping[str, JSON]
) -> Any:
    """A waiting table's options after its host changed ``raw`` (the others kept): the
    options the game declares (``Game.option_fields``), checked as ``table.create``
    checks them; raises ``bad_options``.

    The player count is not among them: the seats, some of them taken, are made for it.
    Options a table does not show (a deck of pictures, say) stay as the table was made.
    """
    declared = {f.key: f for f in game.option_fields}
    for key, value in raw.items():
        if key in stored and stored[key] == value:
            continue  # unchanged: nothing to refuse
        field = declared.get(key)
        if field is not None and field.kind == "players":
            raise ProtocolError(
                "bad_options",
                f"the player count is fixed once the table is made ({stored.get(key)}):"
                f" make a new table for {str(value)[:10]}",
            )
        if field is None and key in stored:
            shown = key[:40]
            raise ProtocolError(
                "bad_options", f"option {shown!r} cannot change once the table is made"
            )
    return game.options({**stored, **raw})

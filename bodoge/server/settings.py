"""Table settings: how the table runs a game, as opposed to the game's own options.

>>> from bodoge.games import get
>>> s = parse_settings({"turn_seconds": 60}, get("tagiron"))
>>> s.to_json()
{'turn_seconds': 60, 'timeout_bot': 'normal', 'assistant': True, 'bot_pace': 'normal'}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bodoge.core.game import Game
from bodoge.core.values import is_whole
from bodoge.server.pace import DEFAULT_PACE, PACES
from bodoge.server.protocol import ProtocolError

MIN_TURN_SECONDS = 5
MAX_TURN_SECONDS = 3600
_KEYS = frozenset({"turn_seconds", "timeout_bot", "assistant", "bot_pace"})


@dataclass(frozen=True)
class TableSettings:
    #: Per-turn time limit; when it runs out the ``timeout_bot`` plays that move.
    turn_seconds: float | None = None
    #: The bot level that plays timed-out turns and replaces players who leave.
    timeout_bot: str | None = None
    #: Whether seated players may ask the game's assistant for an analysis.
    assistant: bool = True
    #: How fast the table's bots play (:mod:`bodoge.server.pace`): fast, normal or slow.
    bot_pace: str = DEFAULT_PACE

    def to_json(self) -> dict[str, Any]:
        return {
            "turn_seconds": self.turn_seconds,
            "timeout_bot": self.timeout_bot,
            "assistant": self.assistant,
            "bot_pace": self.bot_pace,
        }


def default_bot(game: Game) -> str | None:
    """The middle bot level: neither a pushover nor a wall."""
    levels = list(game.bot_levels)
    return levels[len(levels) // 2] if levels else None


def parse_settings(raw: Mapping[str, Any] | None, game: Game) -> TableSettings:
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
    assistant = raw.get("assistant", True)
    if not isinstance(assistant, bool):
        raise ProtocolError("bad_options", "assistant is true or false")
    pace = raw.get("bot_pace", DEFAULT_PACE)
    if pace not in PACES:
        raise ProtocolError("bad_options", f"bot_pace is one of {', '.join(PACES)}")
    return TableSettings(seconds, bot, assistant, pace)


def settings_from_json(data: Mapping[str, Any]) -> TableSettings:
    """Stored settings (already checked when the table was made)."""
    return TableSettings(
        turn_seconds=data.get("turn_seconds"),
        timeout_bot=data.get("timeout_bot"),
        assistant=bool(data.get("assistant", True)),
        bot_pace=data.get("bot_pace", DEFAULT_PACE),
    )

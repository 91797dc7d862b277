"""Illustori table options: the variants Board Game Arena offers, plus the deck.

>>> o = parse_options({"players": 5, "ban_same_ends": True})
>>> (o.players, o.language, o.ban_same_ends, o.deck_size, hand_size(o.players))
(5, 'ja', True, 60, 5)
>>> parse_options(options_to_json(o)) == o
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from bodoge.core.errors import BadOptions
from bodoge.core.values import is_whole

MIN_PLAYERS = 3
MAX_PLAYERS = 8
LANGUAGES = ("ja", "en")
MIN_DECK = 30
MAX_DECK = 200
# The deck seed travels to browsers as a JSON number: keep it exact in JavaScript.
MAX_DECK_SEED = 2**53 - 1
VOTE_SECONDS = 25
CUSTOM_DECK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def hand_size(players: int) -> int:
    """Cards dealt to each player: 5, or 4 with 7 or 8 players.

    >>> [hand_size(n) for n in range(3, 9)]
    [5, 5, 5, 5, 4, 4]
    """
    return 4 if players >= 7 else 5


def min_deck_size(players: int) -> int:
    """The fewest cards that deal every hand and still turn up the first card.

    >>> min_deck_size(8), min_deck_size(6)
    (33, 31)
    """
    return players * hand_size(players) + 1


@dataclass(frozen=True)
class IllustoriOptions:
    """Validated options; build them with :func:`parse_options`."""

    players: int = 4
    language: str = "ja"
    ban_same_ends: bool = False
    ban_used_joints: bool = False
    vote_limit: bool = False
    secret_votes: bool = False
    show_rules: bool = True
    deck_size: int = 60
    deck_seed: int | None = None
    custom_deck: str | None = None
    #: A turn-based table's vote limit in seconds (``Game.turn_based_options``: the table's
    #: time per move), missing votes OK when it runs out; it replaces ``vote_limit``'s 25 s.
    turn_vote_seconds: int | None = None

    @property
    def vote_seconds(self) -> int | None:
        """How long a vote may run, if it has a limit at all."""
        if self.turn_vote_seconds is not None:
            return self.turn_vote_seconds
        return VOTE_SECONDS if self.vote_limit else None


#: The longest turn-based vote limit: three days, the longest time per move.
MAX_TURN_VOTE_SECONDS = 3 * 86400
_KEYS = tuple(f.name for f in fields(IllustoriOptions))
_FLAGS = ("ban_same_ends", "ban_used_joints", "vote_limit", "secret_votes", "show_rules")


def _int(key: str, value: Any, low: int, high: int) -> int:
    # bool is an int in Python, but true is not a number of players.
    if not is_whole(value):
        raise BadOptions(f"option {key} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise BadOptions(f"option {key} must be between {low} and {high}, not {value}")
    return value


def parse_options(raw: Mapping[str, Any] | None = None) -> IllustoriOptions:
    """Options from a table's settings, strictly checked, with defaults filled in.

    >>> parse_options({"language": "fr"})
    Traceback (most recent call last):
    ...
    bodoge.core.errors.BadOptions: option language must be one of ja, en, not 'fr'
    """
    raw = dict(raw or {})
    if not all(isinstance(k, str) for k in raw):
        raise BadOptions("option names must be strings")
    unknown = sorted(set(raw) - set(_KEYS))
    if unknown:
        raise BadOptions(f"unknown option(s): {', '.join(unknown)}")
    values: dict[str, Any] = {}
    if "players" in raw:
        values["players"] = _int("players", raw["players"], MIN_PLAYERS, MAX_PLAYERS)
    if "language" in raw:
        if raw["language"] not in LANGUAGES:
            raise BadOptions(
                f"option language must be one of {', '.join(LANGUAGES)}, not {raw['language']!r}"
            )
        values["language"] = raw["language"]
    for flag in _FLAGS:
        if flag in raw:
            if not isinstance(raw[flag], bool):
                raise BadOptions(f"option {flag} must be true or false, not {raw[flag]!r}")
            values[flag] = raw[flag]
    if "deck_size" in raw:
        values["deck_size"] = _int("deck_size", raw["deck_size"], MIN_DECK, MAX_DECK)
    if raw.get("deck_seed") is not None:
        values["deck_seed"] = _int("deck_seed", raw["deck_seed"], 0, MAX_DECK_SEED)
    if raw.get("custom_deck") is not None:
        deck = raw["custom_deck"]
        if not isinstance(deck, str) or not CUSTOM_DECK_ID.fullmatch(deck):
            raise BadOptions(
                "option custom_deck must be a deck id of 1-64 letters, digits, '.', '_' or '-'"
                f", not {deck!r}"
            )
        values["custom_deck"] = deck
    if raw.get("turn_vote_seconds") is not None:
        values["turn_vote_seconds"] = _int(
            "turn_vote_seconds", raw["turn_vote_seconds"], 60, MAX_TURN_VOTE_SECONDS
        )
    options = IllustoriOptions(**values)
    if options.deck_seed is not None and options.custom_deck is not None:
        # A custom deck's pictures are uploaded images, so no seed draws them.
        raise BadOptions("options deck_seed and custom_deck cannot both be set")
    needed = min_deck_size(options.players)
    if options.deck_size < needed:
        raise BadOptions(
            f"a deck of {options.deck_size} cards is too small for {options.players} players"
            f" (at least {needed})"
        )
    return options


def options_to_json(options: IllustoriOptions) -> dict[str, Any]:
    """Options as stored and shown: every key, defaults included — but ``turn_vote_seconds``
    only at a turn-based table, so that a real-time table's options read as they always did."""
    shown = {key: getattr(options, key) for key in _KEYS}
    if options.turn_vote_seconds is None:
        del shown["turn_vote_seconds"]
    return shown

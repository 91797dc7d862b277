"""Illustori moves and their JSON form.

Every move is a small frozen dataclass; its JSON form carries a ``type``.

>>> move_from_json({"type": "play", "card": 7, "word": "つきよ"})
PlayCard(card=7, word='つきよ', head=None, tail=None)
>>> move_to_json(Exchange((3, 9)))
{'type': 'exchange', 'cards': [3, 9]}
>>> move_from_json(move_to_json(Vote(ok=False)))
Vote(ok=False)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bodoge.core.errors import BadMove
from bodoge.core.game import Move
from bodoge.core.values import is_whole


@dataclass(frozen=True)
class FirstWord(Move):
    """The first-word giver names the card turned up from the deck.

    ``head`` and ``tail`` are the first and last kana when the word does not
    begin or end with kana itself (a word in kanji, say).
    """

    word: str
    head: str | None = None
    tail: str | None = None


@dataclass(frozen=True)
class PlayCard(Move):
    """Play a hand card with a word that continues the chain."""

    card: int
    word: str
    head: str | None = None
    tail: str | None = None


@dataclass(frozen=True)
class Exchange(Move):
    """Swap one or more hand cards for cards from the deck (the whole turn)."""

    cards: tuple[int, ...]


@dataclass(frozen=True)
class Vote(Move):
    """Judge the word on the table: OK (``True``) or NG (``False``)."""

    ok: bool


@dataclass(frozen=True)
class VoteTimeout(Move):
    """Sent by the table (seat ``None``) when the vote limit runs out: missing votes are OK."""


IllustoriMove = FirstWord | PlayCard | Exchange | Vote | VoteTimeout

_TYPES: dict[str, type[Move]] = {
    "first_word": FirstWord,
    "play": PlayCard,
    "exchange": Exchange,
    "vote": Vote,
    "vote_timeout": VoteTimeout,
}
_NAMES = {cls: name for name, cls in _TYPES.items()}
_FIELDS: dict[str, tuple[set[str], set[str]]] = {
    # type: (required keys, optional keys)
    "first_word": ({"word"}, {"head", "tail"}),
    "play": ({"card", "word"}, {"head", "tail"}),
    "exchange": ({"cards"}, set()),
    "vote": ({"ok"}, set()),
    "vote_timeout": (set(), set()),
}


def _card(value: Any) -> int:
    if not is_whole(value):
        raise BadMove(f"a card is a number, not {value!r}")
    return value


def _text(key: str, value: Any, *, optional: bool) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise BadMove(f"{key} must be text, not {value!r}")
    return value


def move_from_json(data: Mapping[str, Any]) -> IllustoriMove:
    """Parse a move sent by a client; raises ``BadMove`` for any other shape.

    >>> move_from_json({"type": "exchange", "cards": []})
    Exchange(cards=())
    >>> move_from_json({"type": "vote", "ok": "yes"})
    Traceback (most recent call last):
    ...
    bodoge.core.errors.BadMove: ok must be true or false, not 'yes'
    """
    if not isinstance(data, Mapping):
        raise BadMove("a move is a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _TYPES:
        raise BadMove(f"unknown move type {kind!r}")
    required, optional = _FIELDS[kind]
    keys = set(data) - {"type"}
    if missing := required - keys:
        raise BadMove(f"{kind} move lacks {', '.join(sorted(missing))}")
    if extra := keys - required - optional:
        raise BadMove(f"{kind} move has unknown field(s) {', '.join(sorted(map(str, extra)))}")
    if kind == "vote":
        if not isinstance(data["ok"], bool):
            raise BadMove(f"ok must be true or false, not {data['ok']!r}")
        return Vote(ok=data["ok"])
    if kind == "vote_timeout":
        return VoteTimeout()
    if kind == "exchange":
        cards = data["cards"]
        if not isinstance(cards, list | tuple):
            raise BadMove(f"cards must be a list of card numbers, not {cards!r}")
        return Exchange(tuple(_card(c) for c in cards))
    word = _text("word", data["word"], optional=False)
    head = _text("head", data.get("head"), optional=True)
    tail = _text("tail", data.get("tail"), optional=True)
    assert word is not None
    if kind == "first_word":
        return FirstWord(word, head, tail)
    return PlayCard(_card(data["card"]), word, head, tail)


def move_to_json(move: Move) -> dict[str, Any]:
    """The stored form of a move; :func:`move_from_json` reads it back unchanged."""
    name = _NAMES.get(type(move))
    if name is None:
        raise BadMove(f"not an Illustori move: {move!r}")
    data: dict[str, Any] = {"type": name}
    if isinstance(move, Vote):
        data["ok"] = move.ok
    elif isinstance(move, Exchange):
        data["cards"] = list(move.cards)
    elif isinstance(move, FirstWord | PlayCard):
        if isinstance(move, PlayCard):
            data["card"] = move.card
        data["word"] = move.word
        if move.head is not None:
            data["head"] = move.head
        if move.tail is not None:
            data["tail"] = move.tail
    return data

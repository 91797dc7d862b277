"""What one seat knows: its tiles, the face-up cards and the public log.

A :class:`Position` is read from a seat's view (what a bot gets) or from the
JSON a person writes for ``bodoge tagiron solve``; both use the log shape of
the view, and ``"type"`` may be left out of question entries::

    {"players": 2, "seat": 0, "hand": ["R1", "B1", "R3", "B8", "R9"],
     "face_up": ["red_sum", "where_0"],
     "log": [{"seat": 0, "card": "where_1or2", "choice": 2, "answers": {"1": [3]}}]}

Answers are keyed by the answering seat (as strings in JSON, or ints).
Malformed input raises :class:`PositionError` naming the offending part.

>>> p = Position.from_json({"players": 2, "seat": 0, "hand": ["R9", "R1", "B1", "R3", "B8"],
...     "log": [{"seat": 0, "card": "red_sum", "answers": {"1": 13}}]})
>>> p.hand, p.log[0].describe(1)
(('R1', 'B1', 'R3', 'B8', 'R9'), 'log entry 1 (red_sum by seat 0)')
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bodoge.core.values import JSON
from bodoge.games.tagiron.cards import CARDS, answering_seats, cards_for
from bodoge.games.tagiron.options import hand_size
from bodoge.games.tagiron.tiles import is_possible_set, is_tile, sort_hand


class PositionError(ValueError):
    """A position that is malformed or that no arrangement of the tiles fits."""


@dataclass(frozen=True)
class Question:
    seat: int
    card: str
    choice: int | None
    answers: tuple[tuple[int, JSON], ...]

    def describe(self, number: int) -> str:
        choice = f" {self.choice}" if self.choice is not None else ""
        return f"log entry {number} ({self.card}{choice} by seat {self.seat})"

    def to_json(self) -> dict[str, JSON]:
        return {
            "type": "question",
            "seat": self.seat,
            "card": self.card,
            "choice": self.choice,
            "answers": {str(s): a for s, a in self.answers},
        }


@dataclass(frozen=True)
class Declaration:
    seat: int
    right: bool
    #: The tiles named, when this seat heard them (its own, or any in 2 players).
    tiles: tuple[str, ...] | None = None

    def describe(self, number: int) -> str:
        return f"log entry {number} (declaration by seat {self.seat})"

    def to_json(self) -> dict[str, JSON]:
        data: dict[str, JSON] = {"type": "declaration", "seat": self.seat, "right": self.right}
        if self.tiles is not None:
            data["tiles"] = list(self.tiles)
        return data


@dataclass(frozen=True)
class Passing:
    seat: int

    def describe(self, number: int) -> str:
        return f"log entry {number} (pass by seat {self.seat})"

    def to_json(self) -> dict[str, JSON]:
        return {"type": "pass", "seat": self.seat}


LogItem = Question | Declaration | Passing


@dataclass(frozen=True)
class Position:
    players: int
    seat: int
    hand: tuple[str, ...]
    face_up: tuple[str, ...] = ()
    log: tuple[LogItem, ...] = field(default=())

    @property
    def others(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.players) if s != self.seat)

    @property
    def k(self) -> int:
        return hand_size(self.players)

    def to_json(self) -> dict[str, JSON]:
        return {
            "players": self.players,
            "seat": self.seat,
            "hand": list(self.hand),
            "face_up": list(self.face_up),
            "log": [e.to_json() for e in self.log],
        }

    @classmethod
    def from_view(cls, view: Mapping[str, JSON]) -> Position:
        """The position of the seat whose view this is (a bot's input)."""
        # A view names the viewer's seat ``you`` (as every game's view does); a position, ``seat``.
        data = {k: view[k] for k in ("players", "hand", "face_up", "log")}
        return cls.from_json({**data, "seat": view["you"]}, strict=False)

    @classmethod
    def from_json(cls, data: JSON, *, strict: bool = True) -> Position:
        """Parse and check a position; ``strict`` also checks the cards' history."""
        if not isinstance(data, Mapping):
            raise PositionError("a position is a JSON object")
        unknown = set(data) - {"players", "seat", "hand", "face_up", "log"}
        if strict and unknown:
            raise PositionError(f"unknown field {sorted(unknown)[0]!r}")
        players = data.get("players")
        if type(players) is not int or players not in (2, 3, 4):
            raise PositionError("players must be 2, 3 or 4")
        seat = _seat(data.get("seat", 0), players, "seat")
        hand = _tiles(data.get("hand"), hand_size(players), "hand")
        face_up = _face_up(data.get("face_up", []), players)
        raw_log = data.get("log", [])
        if not isinstance(raw_log, list):
            raise PositionError("log must be a list")
        log = tuple(_entry(raw, i, players) for i, raw in enumerate(raw_log, start=1))
        if strict:
            _check_asked_once(log, face_up)
        return cls(players, seat, hand, tuple(face_up), log)


def _face_up(face_up: JSON, players: int) -> list[str]:
    deck = cards_for(players)
    if not isinstance(face_up, list) or not all(isinstance(c, str) for c in face_up):
        raise PositionError("face_up must be a list of card ids")
    for card in face_up:
        if card not in deck:
            raise PositionError(f"face_up: no question card {card!r} with {players} players")
    if len(set(face_up)) != len(face_up):
        raise PositionError("face_up names a card twice")
    return face_up


def _check_asked_once(log: Sequence[LogItem], face_up: Sequence[str]) -> None:
    """A card is asked at most once, and an asked card is no longer face up."""
    asked: dict[str, int] = {}
    for i, entry in enumerate(log, start=1):
        if isinstance(entry, Question):
            if entry.card in asked:
                raise PositionError(
                    f"{entry.describe(i)}: {entry.card} was already asked "
                    f"in log entry {asked[entry.card]}"
                )
            asked[entry.card] = i
    for card in face_up:
        if card in asked:
            raise PositionError(
                f"face_up: {card} was asked in log entry {asked[card]}, so it cannot be face up"
            )


def _seat(value: JSON, players: int, where: str) -> int:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if type(value) is not int or not 0 <= value < players:
        raise PositionError(f"{where}: a seat is a number from 0 to {players - 1}")
    return value


def _tiles(value: JSON, size: int, where: str) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or len(value) != size:
        raise PositionError(f"{where}: give exactly {size} tile codes")
    bad = [t for t in value if not is_tile(t)]
    if bad:
        raise PositionError(f"{where}: no such tile {bad[0]!r} (codes are R0..R9, B0..B9, G5)")
    if not is_possible_set(value):
        raise PositionError(f"{where}: a tile is named more often than it exists")
    return sort_hand(value)


def _entry(raw: JSON, number: int, players: int) -> LogItem:
    where = f"log entry {number}"
    if not isinstance(raw, Mapping):
        raise PositionError(f"{where}: an entry is a JSON object")
    kind = raw.get("type", "question" if "card" in raw else None)
    if "seat" not in raw:
        raise PositionError(f"{where}: the entry needs a seat")
    seat = _seat(raw["seat"], players, where)
    if kind == "pass":
        return Passing(seat)
    if kind == "declaration":
        return _declaration(raw, seat, players, where)
    if kind != "question":
        raise PositionError(f"{where}: unknown entry type {kind!r}")
    return _question(raw, seat, number, players, where)


def _declaration(raw: Mapping[str, JSON], seat: int, players: int, where: str) -> Declaration:
    right = raw.get("right")
    if not isinstance(right, bool):
        raise PositionError(f"{where}: a declaration needs right: true or false")
    tiles = raw.get("tiles")
    if tiles is not None:
        tiles = _tiles(tiles, hand_size(players), where)
        if players == 2 and list(raw["tiles"]) != list(tiles):
            raise PositionError(f"{where}: name the tiles in hand order")
    return Declaration(seat, right, tiles)


def _question(
    raw: Mapping[str, JSON], seat: int, number: int, players: int, where: str
) -> Question:
    card = raw.get("card")
    if card not in cards_for(players):
        raise PositionError(f"{where}: no question card {card!r} with {players} players")
    choice = raw.get("choice")
    choices = CARDS[card].choices
    if choices is None and choice is not None:
        raise PositionError(f"{where}: {card} takes no choice")
    if choices is not None and (type(choice) is not int or choice not in choices):
        raise PositionError(f"{where}: {card} needs a choice of {choices[0]} or {choices[1]}")
    described = Question(seat, card, choice, ()).describe(number)
    answers = _answers(raw.get("answers"), players, described)
    expected = answering_seats(players, seat, card)
    missing = [s for s in expected if s not in answers]
    extra = [s for s in answers if s not in expected]
    if missing:
        raise PositionError(f"{described}: no answer from seat {missing[0]}")
    if extra:
        raise PositionError(f"{described}: seat {extra[0]} does not answer this question")
    return Question(seat, card, choice, tuple((s, answers[s]) for s in expected))


def _answers(answers: JSON, players: int, described: str) -> dict[int, JSON]:
    """The answers of a question entry, by seat."""
    if not isinstance(answers, Mapping):
        raise PositionError(f"{described}: answers must be an object keyed by seat")
    given: dict[int, JSON] = {}
    for key, value in answers.items():
        s = _seat(key, players, f"{described}: answer key {key!r}")
        if s in given:
            raise PositionError(f"{described}: two answers from seat {s}")
        given[s] = value
    return given


def dumps(value: JSON) -> str:
    """An answer as it is written in JSON (for messages)."""
    return json.dumps(value, ensure_ascii=False)


def parse_tiles(text: str | Sequence[str], size: int, *, ordered: bool) -> tuple[str, ...]:
    """Tiles from ``"R1 B1 R3 B8 R9"`` (or a list), checked; hand order if ``ordered``.

    >>> parse_tiles("r1, b1 g5 G5 b9", 5, ordered=True)
    ('R1', 'B1', 'G5', 'G5', 'B9')
    """
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    items = [t.strip().upper() for t in items]
    tiles = _tiles(items, size, "tiles")
    if ordered and tuple(items) != tiles:
        raise PositionError("name the tiles in hand order, smallest first, red before blue")
    return tiles

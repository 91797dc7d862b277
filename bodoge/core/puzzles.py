"""The puzzle contract: short problems a game makes from its own positions, one right answer each.

A game that offers puzzles returns a :class:`PuzzleBook` from ``Game.puzzles()``.  The
server stores what :meth:`PuzzleBook.make` returns, shows people only
:meth:`PuzzleBook.public` of it (never the solution, never how the position came about),
and asks :meth:`PuzzleBook.judge` whether an answer is right.  Rating, the daily puzzle
and history are the server's and the same for every game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from bodoge.core.values import JSON


class PuzzleAnswerError(ValueError):
    """An answer that is not of the shape the puzzle asks for (nothing is recorded)."""


@dataclass(frozen=True)
class MadePuzzle:
    """One puzzle as made: ``data`` holds all of it, the solution and explanation too."""

    id: str
    kind: str
    players: int
    #: From 0 (easy) to 1 (hard): the generator's estimate, the puzzle's starting rating.
    difficulty: float
    data: dict[str, JSON]


@dataclass(frozen=True)
class Verdict:
    right: bool
    solution: dict[str, JSON]
    explanation: dict[str, JSON]


@dataclass
class MakeReport:
    """What one run of the generator did: its puzzles and how many positions it turned down."""

    puzzles: list[MadePuzzle] = field(default_factory=list)
    games: int = 0
    #: Positions looked at for a kind, by kind.
    considered: dict[str, int] = field(default_factory=dict)
    #: Of those, turned down because more than one answer could be right, by kind.
    ambiguous: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


Progress = Callable[[int, int], None]


class PuzzleBook(ABC):
    """A game's puzzles: how they are made, shown and judged (pure: no store, no server)."""

    kinds: ClassVar[Sequence[str]]

    @abstractmethod
    def make(
        self, count: int, seed: int, *, jobs: int = 1, progress: Progress | None = None
    ) -> MakeReport:
        """``count`` puzzles (fewer only if the games ran out), the same for the same seed."""

    @abstractmethod
    def public(self, data: Mapping[str, JSON]) -> dict[str, JSON]:
        """What a solver is shown of a puzzle: nothing that gives away the answer."""

    @abstractmethod
    def judge(self, data: Mapping[str, JSON], answer: JSON) -> Verdict:
        """Whether ``answer`` is right; raises :class:`PuzzleAnswerError` for a malformed one."""

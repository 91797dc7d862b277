"""Puzzles: the next one for a person, the daily puzzle, answers and the ratings they move.

A game makes its puzzles (``Game.puzzles()``, :mod:`bodoge.core.puzzles`); this service
keeps them in the store, shows people only their public part, and rates people and
puzzles as lichess rates its puzzles, here with OpenSkill (Plackett–Luce, as the games'
ratings, :mod:`.ratings`): each answer is a game between the person and the puzzle, won
by the person if the answer is right.  So a right answer moves the person's μ up and the
puzzle's down, a wrong one the other way, and a hard puzzle solved moves the person more.

* A puzzle starts at the rating its generator's difficulty says (μ from
  ``MU - SPREAD`` for the easiest to ``MU + SPREAD`` for the hardest, σ :data:`PUZZLE_SIGMA`).
* A person's puzzle rating starts as a newcomer's (μ 25, σ 25/3); the page shows
  ``1000 + 40 (μ - 25)``: μ itself, so that it moves as the answer said (the games' rating
  shows the cautious μ - 3σ, which can rise after a wrong answer as σ shrinks).
* The streak counts right answers in a row; a wrong one ends it.
* Guests play too (a guest is a player with a token); their ratings go with them when an
  idle guest is removed, an account keeps them.
* The daily puzzle of a day (UTC) is chosen from the date alone among the puzzles there
  are, then kept in the store, so it is the same for everyone, on every process, after a
  restart, and however many puzzles are made later.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from openskill.models import PlackettLuce

from bodoge.core.game import Game
from bodoge.core.puzzles import MadePuzzle, PuzzleAnswerError, PuzzleBook
from bodoge.core.values import JSON
from bodoge.server.services.ratings import MU, OFFSET, SCALE, SIGMA
from bodoge.store import (
    Conflict,
    PuzzleAttemptRecord,
    PuzzlePlayerRecord,
    PuzzleRecord,
    PuzzleStore,
)

log = logging.getLogger(__name__)

#: A new puzzle's σ: its generator's estimate is worth some games already.
PUZZLE_SIGMA = 5.0
#: How far from μ 25 the easiest and the hardest puzzles start.
SPREAD = 8.0
#: Puzzles near a person's rating among which the next one is drawn (not always the same).
NEAR = 5

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


class PuzzleError(Exception):
    """A request about puzzles that is refused: an HTTP status, a code and a message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def puzzle_mu(difficulty: float) -> float:
    """A new puzzle's μ from its generator's difficulty (0 easy … 1 hard)."""
    return MU + SPREAD * (2 * min(1.0, max(0.0, difficulty)) - 1)


def shown(mu: float) -> int:
    """The one number a page shows of a puzzle rating (a person's or a puzzle's).

    >>> shown(25.0), shown(30.0)
    (1000, 1200)
    """
    return round(OFFSET + SCALE * (mu - MU))


def records_of(game: str, made: Sequence[MadePuzzle], now_ms: int) -> list[PuzzleRecord]:
    return [
        PuzzleRecord(
            p.id,
            game,
            p.kind,
            p.players,
            p.data,
            puzzle_mu(p.difficulty),
            PUZZLE_SIGMA,
            0,
            0,
            now_ms,
        )
        for p in made
    ]


def rate_answer(
    person: PuzzlePlayerRecord, puzzle: PuzzleRecord, right: bool, at: int
) -> tuple[PuzzlePlayerRecord, PuzzleRecord]:
    """The person's and the puzzle's ratings after one answer."""
    teams = [
        [_MODEL.rating(mu=person.mu, sigma=person.sigma)],
        [_MODEL.rating(mu=puzzle.mu, sigma=puzzle.sigma)],
    ]
    (p,), (q,) = _MODEL.rate(teams, ranks=[1.0, 2.0] if right else [2.0, 1.0])
    streak = person.streak + 1 if right else 0
    after = PuzzlePlayerRecord(
        person.player,
        person.game,
        p.mu,
        p.sigma,
        person.attempts + 1,
        person.solved + int(right),
        streak,
        max(person.best_streak, streak),
        at,
    )
    rated = PuzzleRecord(
        puzzle.id,
        puzzle.game,
        puzzle.kind,
        puzzle.players,
        puzzle.data,
        q.mu,
        q.sigma,
        puzzle.plays + 1,
        puzzle.solved + int(right),
        puzzle.created_at,
    )
    return after, rated


def newcomer(player: str, game: str) -> PuzzlePlayerRecord:
    return PuzzlePlayerRecord(player, game, MU, SIGMA)


def day_of(seconds: float) -> str:
    """The day (UTC) of a moment, as the daily puzzle is keyed: ``2026-12-01``."""
    return datetime.fromtimestamp(seconds, UTC).date().isoformat()


def daily_index(game: str, day: str, count: int) -> int:
    """Which of ``count`` puzzles (by id) is ``day``'s: from the game and the date alone."""
    digest = hashlib.sha256(f"{game}\x1f{day}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count


def rating_json(r: PuzzlePlayerRecord) -> dict[str, JSON]:
    return {
        "game": r.game,
        "rating": shown(r.mu),
        "mu": round(r.mu, 4),
        "sigma": round(r.sigma, 4),
        "attempts": r.attempts,
        "solved": r.solved,
        "streak": r.streak,
        "best_streak": r.best_streak,
    }


def attempt_json(a: PuzzleAttemptRecord) -> dict[str, JSON]:
    return {
        "puzzle": a.puzzle,
        "game": a.game,
        "kind": a.kind,
        "players": a.players,
        "right": a.right,
        "rating": shown(a.mu),
        "change": shown(a.mu) - shown(a.mu_before),
        "daily": a.day,
        "at": a.at,
    }


@dataclass(frozen=True)
class PuzzleSource:
    """What the server makes an initial set of puzzles with: how many, and from which seed."""

    count: int
    seed: int = 1
    #: Puzzles made per job of the worker (the server stops between two).
    batch: int = 6


class Puzzles:
    """The puzzles of every game that makes them, for the HTTP routes."""

    def __init__(
        self,
        store: PuzzleStore,
        games: Mapping[str, Game[Any, Any, Any]],
        clock: Callable[[], float] = time.time,
        draw: random.Random | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.books: dict[str, PuzzleBook] = {}
        for game_id, game in games.items():
            book = game.puzzles()
            if book is not None:
                self.books[game_id] = book
        self._draw = draw or random.Random()

    def book(self, game: str) -> PuzzleBook:
        found = self.books.get(game)
        if found is None:
            raise PuzzleError(404, "unknown_game", f"no game {game!r} with puzzles")
        return found

    def _public(self, p: PuzzleRecord) -> dict[str, JSON]:
        return {
            "id": p.id,
            "game": p.game,
            **self.book(p.game).public(p.data),
            "rating": shown(p.mu),
            "plays": p.plays,
            "solved": p.solved,
        }

    async def me(self, player: str, game: str) -> dict[str, JSON]:
        self.book(game)
        found = await self.store.puzzle_player(player, game)
        return rating_json(found or newcomer(player, game))

    async def next(self, player: str, game: str, kind: str | None = None) -> dict[str, JSON]:
        """A puzzle the person has not answered, rated near them (one of the nearest few)."""
        book = self.book(game)
        if kind is not None and kind not in book.kinds:
            raise PuzzleError(400, "bad_kind", f"kind is one of {', '.join(book.kinds)}")
        me = await self.store.puzzle_player(player, game) or newcomer(player, game)
        near = await self.store.puzzles_near(player, game, me.mu, NEAR, kind)
        if not near:
            raise PuzzleError(404, "no_puzzle", "no puzzle left to solve here; come back later")
        return {"puzzle": self._public(self._draw.choice(near)), "me": rating_json(me)}

    async def puzzle(self, player: str, puzzle_id: str) -> dict[str, JSON]:
        """One puzzle by id (a link), with the person's answer if they gave one."""
        p = await self._find(puzzle_id)
        done = await self.store.puzzle_attempt(player, puzzle_id)
        me = await self.store.puzzle_player(player, p.game) or newcomer(player, p.game)
        return {
            "puzzle": self._public(p),
            "me": rating_json(me),
            "answered": self._answered(p, done),
        }

    async def daily(self, player: str, game: str) -> dict[str, JSON]:
        self.book(game)
        day = day_of(self.clock())
        puzzle_id = await self.store.daily_puzzle(game, day, lambda n: daily_index(game, day, n))
        if puzzle_id is None:
            raise PuzzleError(404, "no_puzzle", "no puzzle yet; the server is making some")
        return {"day": day, **(await self.puzzle(player, puzzle_id))}

    def _answered(self, p: PuzzleRecord, done: PuzzleAttemptRecord | None) -> JSON:
        """A puzzle answered already: how it went, and now the solution may be shown."""
        if done is None:
            return None
        data = p.data
        return {
            **attempt_json(done),
            "solution": data.get("solution"),
            "explanation": data.get("explanation"),
        }

    async def _find(self, puzzle_id: str) -> PuzzleRecord:
        found = await self.store.puzzle(puzzle_id) if _plausible_id(puzzle_id) else None
        if found is None or found.game not in self.books:
            raise PuzzleError(404, "unknown_puzzle", "no such puzzle")
        return found

    async def answer(self, player: str, puzzle_id: str, answer: JSON) -> dict[str, JSON]:
        """Judge and record a person's one answer to a puzzle; both ratings move."""
        p = await self._find(puzzle_id)
        try:
            verdict = self.book(p.game).judge(p.data, answer)
        except PuzzleAnswerError as exc:
            raise PuzzleError(400, "bad_answer", str(exc)) from None
        now = self.clock()
        day = day_of(now)
        chosen = await self.store.daily_puzzle(p.game, day, lambda n: daily_index(p.game, day, n))
        at = int(now * 1000)

        def rate(
            person: PuzzlePlayerRecord | None, puzzle: PuzzleRecord
        ) -> tuple[PuzzlePlayerRecord, PuzzlePlayerRecord, PuzzleRecord]:
            before = person or newcomer(player, puzzle.game)
            return (before, *rate_answer(before, puzzle, verdict.right, at))

        try:
            before, after, rated = await self.store.answer_puzzle(
                player, p.id, answer, verdict.right, at, day if chosen == p.id else None, rate
            )
        except Conflict:
            raise PuzzleError(409, "already_answered", "you answered this puzzle already") from None
        except KeyError:  # removed meanwhile
            raise PuzzleError(404, "unknown_puzzle", "no such puzzle") from None
        return {
            "right": verdict.right,
            "solution": verdict.solution,
            "explanation": verdict.explanation,
            "rating": {
                "before": shown(before.mu),
                "after": shown(after.mu),
                "change": shown(after.mu) - shown(before.mu),
            },
            "puzzle_rating": {"before": shown(p.mu), "after": shown(rated.mu)},
            "me": rating_json(after),
        }

    async def history(self, player: str, limit: int = 20) -> dict[str, JSON]:
        """A person's puzzle ratings and last answers, for the profile."""
        ratings = await self.store.puzzle_players_of(player)
        recent = await self.store.puzzle_attempts(player, limit)
        return {
            "ratings": [rating_json(r) for r in ratings],
            "recent": [attempt_json(a) for a in recent],
        }

    async def fill(self, runner: Callable[[str, int, int], Any], source: PuzzleSource) -> int:
        """Make the first puzzles of each game that has none, a batch at a time in a worker
        (``runner(game, count, seed)``, awaited), so that the server answers meanwhile."""
        made = 0
        for game in self.books:
            if await self.store.puzzle_count(game):
                continue
            batches = -(-source.count // source.batch)
            for i in range(batches):
                count = min(source.batch, source.count - i * source.batch)
                puzzles = await runner(game, count, source.seed * 1_000_003 + i)
                made += await self.store.add_puzzles(
                    records_of(game, puzzles, int(self.clock() * 1000))
                )
                await asyncio.sleep(0)
            log.info("made %d %s puzzles", made, game)
        return made


def _plausible_id(puzzle_id: str) -> bool:
    return 1 <= len(puzzle_id) <= 32 and puzzle_id.isascii() and puzzle_id.isalnum()

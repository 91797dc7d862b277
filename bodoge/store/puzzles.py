"""Puzzles: the ones a game made, each person's answers and puzzle rating, the daily puzzle.

An answer is one transaction that reads both ratings, has them computed and writes them
with the answer, keyed by (person, puzzle): a puzzle counts once per person, however
many processes or retries meet it.  The daily puzzle of a day is chosen once, in a
transaction that keeps it (the first process to ask chooses; the others read it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa

from bodoge.store import schema
from bodoge.store.base import Conflict
from bodoge.store.engine import SqlEngine
from bodoge.store.records import (
    PuzzleAttemptRecord,
    PuzzlePlayerRecord,
    PuzzleRecord,
)
from bodoge.store.transactions import Runner
from bodoge.store.writes import dumps

#: Given the person's rating (``None``: none yet) and the puzzle's: the person's before (a
#: newcomer's default if none), the person's after and the puzzle's after.
RatePuzzle = Callable[
    [PuzzlePlayerRecord | None, PuzzleRecord],
    tuple[PuzzlePlayerRecord, PuzzlePlayerRecord, PuzzleRecord],
]

_PUZZLE_COLUMNS = "id, game, kind, players, data, mu, sigma, plays, solved, created_at"
_PLAYER_COLUMNS = "player, game, mu, sigma, attempts, solved, streak, best_streak, updated_at"


class PuzzleQueries(SqlEngine):
    """:class:`~bodoge.store.ports.PuzzleStore`."""

    async def add_puzzles(self, puzzles: Sequence[PuzzleRecord]) -> int:
        if not puzzles:
            return 0
        return await self._transaction(_add, list(puzzles))

    async def puzzle_count(self, game: str) -> int:
        c = schema.puzzles.c
        async with self.engine.connect() as conn:
            query = sa.select(sa.func.count()).select_from(schema.puzzles).where(c.game == game)
            return int((await conn.execute(query)).scalar_one())

    async def puzzle(self, puzzle_id: str) -> PuzzleRecord | None:
        query = schema.puzzles.select().where(schema.puzzles.c.id == puzzle_id)
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return _puzzle(row) if row else None

    async def puzzles_near(
        self, player: str, game: str, mu: float, limit: int, kind: str | None = None
    ) -> list[PuzzleRecord]:
        c, a = schema.puzzles.c, schema.puzzle_attempts.c
        answered = sa.select(a.puzzle).where(a.player == player).scalar_subquery()
        query = schema.puzzles.select().where(c.game == game, c.id.not_in(answered))
        if kind is not None:
            query = query.where(c.kind == kind)
        query = query.order_by(sa.func.abs(c.mu - mu), c.id).limit(limit)
        async with self.engine.connect() as conn:
            return [_puzzle(row) for row in await conn.execute(query)]

    async def daily_puzzle(self, game: str, day: str, choose: Callable[[int], int]) -> str | None:
        return await self._transaction(_daily, game, day, choose)

    async def puzzle_player(self, player: str, game: str) -> PuzzlePlayerRecord | None:
        c = schema.puzzle_players.c
        query = schema.puzzle_players.select().where(c.player == player, c.game == game)
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return _player(tuple(row)) if row else None

    async def puzzle_players_of(self, player: str) -> list[PuzzlePlayerRecord]:
        c = schema.puzzle_players.c
        query = schema.puzzle_players.select().where(c.player == player).order_by(c.game)
        async with self.engine.connect() as conn:
            return [_player(tuple(row)) for row in await conn.execute(query)]

    async def puzzle_attempt(self, player: str, puzzle_id: str) -> PuzzleAttemptRecord | None:
        found = await self._attempts(player, 1, puzzle_id)
        return found[0] if found else None

    async def puzzle_attempts(self, player: str, limit: int = 50) -> list[PuzzleAttemptRecord]:
        return await self._attempts(player, limit, None)

    async def _attempts(
        self, player: str, limit: int, puzzle_id: str | None
    ) -> list[PuzzleAttemptRecord]:
        a, p = schema.puzzle_attempts.c, schema.puzzles.c
        query = (
            sa.select(
                a.player,
                a.puzzle,
                a.game,
                p.kind,
                p.players,
                a.correct,
                a.mu_before,
                a.mu,
                a.at,
                a.day,
            )
            .join(schema.puzzles, p.id == a.puzzle)
            .where(a.player == player)
            .order_by(a.at.desc(), a.puzzle)
            .limit(limit)
        )
        if puzzle_id is not None:
            query = query.where(a.puzzle == puzzle_id)
        async with self.engine.connect() as conn:
            rows = await conn.execute(query)
            return [
                PuzzleAttemptRecord(
                    r.player,
                    r.puzzle,
                    r.game,
                    r.kind,
                    r.players,
                    bool(r.correct),
                    r.mu_before,
                    r.mu,
                    r.at,
                    r.day,
                )
                for r in rows
            ]

    async def answer_puzzle(
        self,
        player: str,
        puzzle_id: str,
        answer: Any,
        right: bool,
        at: int,
        day: str | None,
        rate: RatePuzzle,
    ) -> tuple[PuzzlePlayerRecord, PuzzlePlayerRecord, PuzzleRecord]:
        """Record an answer and both new ratings: (person before, person after, puzzle after).

        Raises :class:`KeyError` for an unknown puzzle and :class:`Conflict` if this
        person answered it already; neither changes anything.
        """
        args = (player, puzzle_id, answer, right, at, day, rate)
        return await self._transaction(_answer, *args)


def _puzzle(row: Any) -> PuzzleRecord:
    data = row.data
    if isinstance(data, str):  # read through plain SQL
        data = json.loads(data)
    return PuzzleRecord(
        row.id,
        row.game,
        row.kind,
        row.players,
        data,
        row.mu,
        row.sigma,
        row.plays,
        row.solved,
        row.created_at,
    )


def _player(row: tuple[Any, ...]) -> PuzzlePlayerRecord:
    return PuzzlePlayerRecord(*row)


def _add(run: Runner, puzzles: list[PuzzleRecord]) -> int:
    added = 0
    for p in puzzles:
        _, n = run(
            f"INSERT INTO puzzles ({_PUZZLE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (id) DO NOTHING",
            (
                p.id,
                p.game,
                p.kind,
                p.players,
                dumps(p.data),
                p.mu,
                p.sigma,
                p.plays,
                p.solved,
                p.created_at,
            ),
        )
        added += max(0, n)
    return added


def _daily(run: Runner, game: str, day: str, choose: Callable[[int], int]) -> str | None:
    rows, _ = run("SELECT puzzle FROM puzzle_days WHERE game = ? AND day = ?", (game, day))
    if rows:
        return str(rows[0][0])
    (count,), _ = run("SELECT COUNT(*) FROM puzzles WHERE game = ?", (game,))
    if not count[0]:
        return None
    index = choose(int(count[0]))
    rows, _ = run(
        "SELECT id FROM puzzles WHERE game = ? ORDER BY id LIMIT 1 OFFSET ?", (game, index)
    )
    puzzle = str(rows[0][0])
    # Another process may have chosen since the SELECT above (PostgreSQL): its choice stays.
    run(
        "INSERT INTO puzzle_days (game, day, puzzle) VALUES (?, ?, ?)"
        " ON CONFLICT (game, day) DO NOTHING",
        (game, day, puzzle),
    )
    rows, _ = run("SELECT puzzle FROM puzzle_days WHERE game = ? AND day = ?", (game, day))
    return str(rows[0][0])


def _answer(
    run: Runner,
    player: str,
    puzzle_id: str,
    answer: Any,
    right: bool,
    at: int,
    day: str | None,
    rate: RatePuzzle,
) -> tuple[PuzzlePlayerRecord, PuzzlePlayerRecord, PuzzleRecord]:
    rows, _ = run(f"SELECT {_PUZZLE_COLUMNS} FROM puzzles WHERE id = ?", (puzzle_id,))
    if not rows:
        raise KeyError(puzzle_id)
    puzzle = _puzzle(_Row(_PUZZLE_COLUMNS, rows[0]))
    done, _ = run(
        "SELECT 1 FROM puzzle_attempts WHERE player = ? AND puzzle = ?", (player, puzzle_id)
    )
    if done:
        raise Conflict(f"{player} answered {puzzle_id} already")
    rows, _ = run(
        f"SELECT {_PLAYER_COLUMNS} FROM puzzle_players WHERE player = ? AND game = ?",
        (player, puzzle.game),
    )
    before, person, rated = rate(_player(tuple(rows[0])) if rows else None, puzzle)
    run(
        "INSERT INTO puzzle_attempts"
        " (player, puzzle, game, answer, correct, mu_before, mu, day, at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            player,
            puzzle_id,
            puzzle.game,
            dumps(answer),
            right,
            before.mu,
            person.mu,
            day,
            at,
        ),
    )
    run(
        f"INSERT INTO puzzle_players ({_PLAYER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (player, game) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
        " attempts = excluded.attempts, solved = excluded.solved, streak = excluded.streak,"
        " best_streak = excluded.best_streak, updated_at = excluded.updated_at",
        (
            person.player,
            person.game,
            person.mu,
            person.sigma,
            person.attempts,
            person.solved,
            person.streak,
            person.best_streak,
            person.updated_at,
        ),
    )
    run(
        "UPDATE puzzles SET mu = ?, sigma = ?, plays = ?, solved = ? WHERE id = ?",
        (rated.mu, rated.sigma, rated.plays, rated.solved, puzzle_id),
    )
    return before, person, rated


class _Row:
    """A plain row read by name, as SQLAlchemy's rows are."""

    def __init__(self, columns: str, values: Sequence[Any]) -> None:
        for name, value in zip(columns.split(", "), values, strict=True):
            setattr(self, name, value)

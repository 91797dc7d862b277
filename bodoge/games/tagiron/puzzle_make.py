"""Making Tagiron puzzles: positions of bot games, one right answer each, proved by the solver.

``bodoge tagiron puzzles make`` plays bot games (2, 3 and 4 players in turn) and looks at
every moment through each seat's eyes — its tiles, the face-up cards, the public log, as
:func:`~bodoge.games.tagiron.review.known` leaves them — for four kinds of puzzle:

* ``declare``: the first moment a seat is certain (exactly one hand fits): name it;
* ``question``: the seat's turn, and one face-up question is better than every other by
  at least :data:`QUESTION_MARGIN` questions of the review's value
  (:mod:`~bodoge.games.tagiron.review_value`): pick it;
* ``count``: how many hands still fit (right within :func:`tolerance`);
* ``tile``: which tile is certain at a position of the hidden hand, before the whole
  hand is.

A moment that looked like a puzzle of a kind but has more than one right answer (a seat
that could name its likeliest hand, with another still fitting; no question clearly the
best) is turned down and counted as ambiguous.  Everything is drawn from the seed, so the
same seed makes the same puzzles.  A puzzle's data holds its solution, its explanation
(:mod:`.puzzle_explain`) and where it came from; :meth:`~.puzzles.TagironPuzzles.public`
is all a solver sees.
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
import random
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from bodoge.core.puzzles import MadePuzzle, MakeReport, Progress
from bodoge.core.rng import derive_seed, rng
from bodoge.core.values import JSON
from bodoge.games.tagiron.ai.position import Position, Question
from bodoge.games.tagiron.ai.situation import Situation
from bodoge.games.tagiron.ai.solver import Deduction, Variant, face_up_variants
from bodoge.games.tagiron.puzzle_explain import (
    count_explanation,
    declare_explanation,
    question_explanation,
    tile_explanation,
)
from bodoge.games.tagiron.puzzles import COUNT_TOLERANCE, KINDS, tolerance
from bodoge.games.tagiron.review import known, seat_views
from bodoge.games.tagiron.review_value import Worth, worths
from bodoge.games.tagiron.selfplay import play_game

T = TypeVar("T")

#: The bots whose games the puzzles come from.
LEVELS = "normal"
#: How much better than every other the best face-up question must be, in questions of
#: the review's value: fifteen times the review's tie (0.02), and above the least it ever
#: calls a mistake (half the best's gain, measured against at least 0.25 questions).
QUESTION_MARGIN = 0.3
#: ... and the fewest questions offered (with two, a coin would be right half the time).
QUESTION_OPTIONS = 3
#: With 4 players and more worlds than this the splits of each answer take seconds.
QUESTION_WORLDS = 100_000
#: How many hands a ``count`` puzzle may leave: more is guesswork, fewer is a declaration.
COUNT_RANGE = (3, 100)
#: A declaration looks close once this few hands are left; a ``declare`` puzzle needs one.
CLOSE = 4


def players_of(game: int) -> int:
    """The player count of the generator's ``game``-th game: 2, 3, 4, 2, …"""
    return 2 + game % 3


@dataclass
class GameFinds:
    """The puzzles found in one game, and the moments looked at and turned down."""

    puzzles: list[MadePuzzle] = field(default_factory=list)
    considered: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    ambiguous: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))


@dataclass(frozen=True)
class Moment:
    seat: int
    move: int
    view: Mapping[str, JSON]
    deduction: Deduction

    @property
    def position(self) -> Position:
        return self.deduction.position


def game_puzzles(game: int, seed: int) -> GameFinds:
    """The puzzles of the generator's ``game``-th game (at most one of each kind)."""
    players = players_of(game)
    game_seed = derive_seed(seed, "puzzle game", game)
    record = play_game(players, [LEVELS] * players, game_seed)
    views = seat_views(players, game_seed, record.moves)
    pick = rng(seed, "puzzle picks", game)
    finds = GameFinds()
    moments = list(_moments(views, players))
    source = {"seed": game_seed, "levels": [LEVELS] * players}
    makers = (_declare, _question, _count, _tile)
    for kind, make in zip(KINDS, makers, strict=True):
        puzzle = make(moments, pick, finds)
        if puzzle is not None:
            moment, ask, solution, difficulty = puzzle
            finds.puzzles.append(_made(kind, moment, ask, solution, difficulty, source))
    return finds


def _moments(views: Sequence[Sequence[Mapping[str, JSON]]], players: int) -> Iterator[Moment]:
    """Each seat's moments while the game ran and before it declared (one deduction each)."""
    for seat in range(players):
        for t, view in enumerate(views[seat][:-1]):
            seen = known(view, seat)
            if seen["phase"] == "ended" or not seen["log"]:
                continue
            if any(e.get("type") == "declaration" and e["seat"] == seat for e in seen["log"]):
                break
            position = Position.from_view({**seen, "you": seat})
            yield Moment(seat, t, seen, Deduction(position))


Found = tuple[Moment, dict[str, JSON], dict[str, JSON], float]


def _declare(moments: Sequence[Moment], pick: random.Random, finds: GameFinds) -> Found | None:
    """The first moment some seat was certain (the last entry brought it there).

    Counted: each seat's close moments (:data:`CLOSE` hands or fewer) up to that one;
    turned down as ambiguous: those at which more than one hand still fitted.
    """
    found: list[Found] = []
    for seat in sorted({m.seat for m in moments}):
        for m in (m for m in moments if m.seat == seat):
            if m.deduction.candidate_count > CLOSE:
                continue
            finds.considered["declare"] += 1
            if not m.deduction.certain:
                finds.ambiguous["declare"] += 1
                continue
            if _questions(m.position) >= 2:
                tiles = list(m.deduction.best()[0])
                found.append((m, {}, {"tiles": tiles}, _declare_difficulty(m)))
            break
    return _choose(found, pick)


def _question(moments: Sequence[Moment], pick: random.Random, finds: GameFinds) -> Found | None:
    """A turn of a seat in which one face-up question is clearly the best."""
    turns = [
        m
        for m in moments
        if m.view["turn"] == m.seat
        and m.view["may_ask"]
        and not m.deduction.certain
        and len(face_up_variants(m.view["face_up"])) >= QUESTION_OPTIONS
        and (m.position.players < 4 or m.deduction.worlds <= QUESTION_WORLDS)
    ]
    _shuffle(turns, pick)
    for m in turns:
        finds.considered["question"] += 1
        worth = worths(Situation(m.view, m.seat, m.deduction))
        best, margin = _clear_best(worth)
        if best is None:
            finds.ambiguous["question"] += 1
            continue
        options = face_up_variants(m.view["face_up"])
        ask = {"options": [{"card": c, "choice": ch} for c, ch in options]}
        solution = {"card": best[0], "choice": best[1]}
        return m, ask, solution, _question_difficulty(m, len(options), margin)
    return None


def _clear_best(worth: Mapping[Variant, Worth]) -> tuple[Variant | None, float]:
    """The best question if it tells something and beats every other by the margin."""
    ranked = sorted(worth, key=lambda v: -worth[v].value)
    best, second = worth[ranked[0]], worth[ranked[1]]
    margin = best.value - second.value
    if not best.informative or margin < QUESTION_MARGIN:
        return None, margin
    return ranked[0], margin


def _count(moments: Sequence[Moment], pick: random.Random, finds: GameFinds) -> Found | None:
    fitting = [
        m for m in moments if COUNT_RANGE[0] <= m.deduction.candidate_count <= COUNT_RANGE[1]
    ]
    finds.considered["count"] += len(fitting)
    chosen = _choose(fitting, pick)
    if chosen is None:
        return None
    n = chosen.deduction.candidate_count
    solution: dict[str, JSON] = {"count": n, "low": n - tolerance(n), "high": n + tolerance(n)}
    difficulty = 0.1 + 0.1 * math.log2(n) + 0.05 * (chosen.position.players - 2)
    return chosen, {"tolerance": COUNT_TOLERANCE}, solution, _clamp(difficulty)


def _tile(moments: Sequence[Moment], pick: random.Random, finds: GameFinds) -> Found | None:
    """A moment, before the seat is certain, at which one position of the hidden hand is."""
    found: list[tuple[Moment, int, str]] = []
    for m in moments:
        if m.deduction.certain:
            continue
        slots = m.deduction.slot_probabilities()
        sure = [(i, t) for i, p in enumerate(slots) for t, q in p.items() if q > 1 - 1e-9]
        if sure:
            finds.considered["tile"] += 1
            slot, tile = _choose(sure, pick) or sure[0]
            found.append((m, slot, tile))
    chosen = _choose(found, pick)
    if chosen is None:
        return None
    m, slot, tile = chosen
    n = m.deduction.candidate_count
    difficulty = 0.25 + 0.08 * math.log2(n) + 0.05 * (m.position.players - 2)
    return m, {"slot": slot + 1}, {"tile": tile}, _clamp(difficulty)


def _declare_difficulty(m: Moment) -> float:
    before = Deduction(_prefix(m.position, len(m.position.log) - 1)).candidate_count
    questions = _questions(m.position)
    players = m.position.players
    return _clamp(0.1 + 0.04 * questions + 0.1 * math.log10(before) + 0.08 * (players - 2))


def _question_difficulty(m: Moment, options: int, margin: float) -> float:
    players = m.position.players
    return _clamp(0.55 + 0.04 * (options - 4) - 0.25 * min(margin, 1.5) + 0.06 * (players - 2))


def _clamp(x: float) -> float:
    return round(min(1.0, max(0.0, x)), 4)


def _questions(position: Position) -> int:
    return sum(isinstance(e, Question) for e in position.log)


def _prefix(position: Position, entries: int) -> Position:
    return Position(
        position.players, position.seat, position.hand, position.face_up, position.log[:entries]
    )


def _shuffle(items: list[Moment], pick: random.Random) -> None:
    pick.shuffle(items)


def _choose(items: Sequence[T], pick: random.Random) -> T | None:
    return pick.choice(list(items)) if items else None


def _made(
    kind: str,
    m: Moment,
    ask: dict[str, JSON],
    solution: dict[str, JSON],
    difficulty: float,
    source: dict[str, JSON],
) -> MadePuzzle:
    position = m.position.to_json()
    public = {"kind": kind, "players": m.position.players, "position": position, "ask": ask}
    digest = hashlib.sha256(json.dumps(public, sort_keys=True).encode()).hexdigest()
    explain = {
        "declare": lambda: declare_explanation(m.position),
        "question": lambda: question_explanation(m.view, m.seat, m.deduction),
        "count": lambda: count_explanation(m.position),
        "tile": lambda: tile_explanation(m.position, int(ask["slot"]) - 1),
    }[kind]()
    data: dict[str, JSON] = {
        **public,
        "solution": solution,
        "explanation": explain,
        "difficulty": difficulty,
        "source": {**source, "move": m.move, "seat": m.seat},
    }
    return MadePuzzle(f"tp{digest[:14]}", kind, m.position.players, difficulty, data)


def _many(args: tuple[int, list[int]]) -> list[GameFinds]:
    seed, games = args
    return [game_puzzles(g, seed) for g in games]


def _finds(seed: int, jobs: int) -> Iterator[GameFinds]:
    """Every game's finds, in game order (so the same seed makes the same puzzles)."""
    game = 0
    if jobs <= 1:
        while True:
            yield game_puzzles(game, seed)
            game += 1
    batch = 2
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        while True:
            chunks = [
                (seed, list(range(game + i * batch, game + (i + 1) * batch)))
                for i in range(jobs * 2)
            ]
            game += jobs * 2 * batch
            for finds in pool.imap(_many, chunks):
                yield from finds


def make(count: int, seed: int, *, jobs: int = 1, progress: Progress | None = None) -> MakeReport:
    """``count`` puzzles from the seed's games, in game order, each kept once."""
    report = MakeReport(considered=dict.fromkeys(KINDS, 0), ambiguous=dict.fromkeys(KINDS, 0))
    started = time.perf_counter()
    seen: set[str] = set()
    if count > 0:
        for finds in _finds(seed, jobs):
            report.games += 1
            for kind in KINDS:
                report.considered[kind] += finds.considered[kind]
                report.ambiguous[kind] += finds.ambiguous[kind]
            for p in finds.puzzles:
                if p.id not in seen and len(report.puzzles) < count:
                    seen.add(p.id)
                    report.puzzles.append(p)
            if progress:
                progress(len(report.puzzles), count)
            if len(report.puzzles) >= count:
                break
    report.seconds = time.perf_counter() - started
    return report

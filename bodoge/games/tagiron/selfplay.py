"""Bots playing Tagiron against each other, and a solo measure of questioning.

Games go through :class:`~bodoge.games.tagiron.game.TagironGame` exactly as on
a table: each bot sees only its seat's view.  With 3–4 players every seat that
may declare is asked after each move (in a seeded random order) before the
seat whose turn it is, as the server does.

>>> r = play_game(2, ["normal", "easy"], seed=4)
>>> r.places in [(1, 2), (2, 1), (1, 1)] and r.questions > 0
True
>>> lo, hi = wilson(55, 100)
>>> round(lo, 3), round(hi, 3)
(0.452, 0.644)
"""

from __future__ import annotations

import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from bodoge.core.errors import GameError
from bodoge.core.game import Move
from bodoge.core.rng import derive_seed, rng
from bodoge.core.values import JSON
from bodoge.games.tagiron.ai.bots import TagironBot, make_bot
from bodoge.games.tagiron.ai.duel import DuelExpert
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.situation import Situation
from bodoge.games.tagiron.ai.solver import Deduction, face_up_variants
from bodoge.games.tagiron.events import Asked, Declared
from bodoge.games.tagiron.game import TagironGame
from bodoge.games.tagiron.moves import Ask, Declare, TagironMove
from bodoge.games.tagiron.rules import questions
from bodoge.games.tagiron.state import TagironState

GAME = TagironGame()
MAX_MOVES = 400


class BotError(AssertionError):
    """A bot made an illegal move, stalled, or declared wrongly while certain."""


@dataclass(frozen=True)
class GameRecord:
    seed: int
    levels: tuple[str, ...]
    places: tuple[int | None, ...]
    reason: str
    questions: int
    #: Seat of each declaration and whether it was right.
    declarations: tuple[tuple[int, bool], ...] = ()
    #: Per seat, the seconds each time its bot was consulted (on its turn or not);
    #: timings, so not part of what makes two records of one game equal.
    decisions: tuple[tuple[float, ...], ...] = field(default=(), compare=False)
    #: Every move, with its seat: the game's history (with the seed), for a review.
    moves: tuple[tuple[int, Move], ...] = field(default=(), compare=False)


def play_game(
    players: int,
    levels: Sequence[str],
    seed: int,
    *,
    check_certainty: bool = False,
    shared: dict | None = None,
) -> GameRecord:
    """One whole game between bots of the given levels (by seat).

    With ``check_certainty``, every declaration made while the declarer's own
    deduction was certain must be right (raises :class:`BotError` otherwise).
    ``shared`` (a dict) collects the bots' deductions, for the game's review.
    """
    state = GAME.setup(GAME.options({"players": players}), players, seed)
    bots = [make_bot(level) for level in levels]
    for bot in bots:
        bot.shared = shared
    rngs = [rng(seed, "bot", s) for s in range(players)]
    order_rng = rng(seed, "consult")
    decisions: list[list[float]] = [[] for _ in range(players)]
    moves: list[tuple[int, Move]] = []
    for _ in range(MAX_MOVES):
        if state.result is not None:
            break
        state = _step(state, bots, rngs, order_rng, check_certainty, decisions, moves)
    else:
        raise BotError(f"game {seed} ran past {MAX_MOVES} moves")
    assert state.result is not None
    return GameRecord(
        seed=seed,
        levels=tuple(levels),
        places=state.result.places,
        reason=state.result.reason,
        questions=sum(isinstance(e, Asked) for e in state.log),
        declarations=tuple((e.seat, e.right) for e in state.log if isinstance(e, Declared)),
        decisions=tuple(map(tuple, decisions)),
        moves=tuple(moves),
    )


def _step(
    state: TagironState,
    bots: Sequence[TagironBot],
    rngs: Sequence[random.Random],
    order_rng: random.Random,
    check_certainty: bool,
    decisions: list[list[float]],
    moves: list[tuple[int, Move]],
) -> TagironState:
    turn = state.turn
    others = sorted(s for s in GAME.may_act(state) if s != turn)
    order_rng.shuffle(others)
    for seat in [*others, turn]:
        if seat is None:
            continue
        view = GAME.view(state, seat)
        started = time.perf_counter()
        move = bots[seat].act(view, seat, rngs[seat])
        decisions[seat].append(time.perf_counter() - started)
        if move is None:
            if seat == turn:
                raise BotError(f"{bots[seat].level} bot in seat {seat} did nothing on its turn")
            continue
        certain = False
        if check_certainty and isinstance(move, Declare):
            certain = Deduction(Position.from_view(view)).certain
        try:
            state, _ = GAME.apply(state, seat, move)
        except GameError as exc:
            raise BotError(f"{bots[seat].level} bot in seat {seat} played {move}: {exc}") from exc
        moves.append((seat, move))
        if certain:
            declared = state.log[-1]
            assert isinstance(move, Declare) and isinstance(declared, Declared)
            if not declared.right:
                raise BotError(f"seat {seat} declared {move.tiles} wrongly while certain")
        return state
    raise BotError("nobody moved")


def seat_rotation(levels: Sequence[str], game_number: int) -> tuple[str, ...]:
    """The levels rotated so that over ``len(levels)`` games each sits in every seat."""
    shift = game_number % len(levels)
    return tuple(levels[shift:]) + tuple(levels[:shift])


# --- solo questioning ---------------------------------------------------------------


def solo_questions(level: str, seed: int) -> int:
    """Questions one 2-player asker needs until the opponent's hand is certain.

    Only one seat asks, from six face-up cards refilled from the deck; its
    opponent never asks.  ``level`` is ``random``/``easy``, ``normal`` or
    ``expert`` (its best question, knowing it asks alone: no card leaves the
    table on the opponent's turns and nobody hears a shared card's answer).
    If the cards run out first, the count is the number asked plus one (no
    more could be asked).  The same seed gives every level the same deal and
    deck, so levels compare on paired deals.
    """
    state = GAME.setup(GAME.options({"players": 2}), 2, seed)
    seat = state.turn
    assert seat is not None  # a 2-player game starts in play, someone to ask
    duel = DuelExpert(alone=True) if level == "expert" else None
    bot = None if level in ("random", "easy", "expert") else make_bot(level)
    choose = rng(seed, "solo")
    asked = 0
    while True:
        view = GAME.view(state, seat)
        deduction = Deduction(Position.from_view(view))
        if deduction.certain:
            return asked
        if not state.face_up:
            return asked + 1
        move: TagironMove | None
        if duel is not None:
            move = duel.best_question(Situation(view, seat, deduction), choose)
        elif bot is None:
            move = choose.choice(questions(state))
        else:
            move = bot.act(view, seat, choose)
            if not isinstance(move, Ask):  # a guess is not a question: ask the best one
                bits = deduction.question_bits(face_up_variants(state.face_up))
                card, choice = max(bits, key=bits.__getitem__)
                move = Ask(card, choice)
        state, _ = GAME.apply(state, seat, move)
        asked += 1
        # the opponent passes its turn without asking: hand the turn back
        state = _replace_turn(state, seat)


def _replace_turn(state: TagironState, seat: int) -> TagironState:
    return replace(state, turn=seat) if state.phase == "play" else state


# --- statistics ------------------------------------------------------------------------


def wilson(successes: float, trials: float, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    """Results by level over many games."""

    players: int
    levels: tuple[str, ...]
    games: int = 0
    questions: int = 0
    draws: int = 0
    #: per distinct level: games won (place 1 alone in 2 players / first place)
    wins: dict[str, float] = field(default_factory=dict)
    seats: dict[str, int] = field(default_factory=dict)
    #: per ordered pair of levels: (ahead, behind) counts over seat pairs
    ahead: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    places: dict[str, list[int]] = field(default_factory=dict)
    #: per distinct level: seconds of every consultation of its bots
    decisions: dict[str, list[float]] = field(default_factory=dict)

    def add(self, record: GameRecord) -> None:
        self.games += 1
        self.questions += record.questions
        places = [p if p is not None else record_worst(record) for p in record.places]
        firsts = [s for s, p in enumerate(record.places) if p == 1]
        if len(firsts) != 1:
            self.draws += 1 if self.players == 2 else 0
        for s, level in enumerate(record.levels):
            self.seats[level] = self.seats.get(level, 0) + 1
            self.places.setdefault(level, []).append(places[s])
            if record.decisions:
                self.decisions.setdefault(level, []).extend(record.decisions[s])
            if firsts == [s]:
                self.wins[level] = self.wins.get(level, 0) + 1
            for t, other in enumerate(record.levels):
                if t == s or other == level:
                    continue
                cell = self.ahead.setdefault((level, other), [0, 0])
                if places[s] < places[t]:
                    cell[0] += 1
                elif places[s] > places[t]:
                    cell[1] += 1


def decision_times(seconds: Sequence[float]) -> tuple[float, float, float]:
    """Median, 90th percentile and maximum of decision times.

    >>> decision_times([0.001 * i for i in range(1, 11)])
    (0.0055, 0.0091, 0.01)
    """
    if len(seconds) < 2:
        only = seconds[0] if seconds else 0.0
        return only, only, only
    return (
        round(statistics.median(seconds), 12),
        round(statistics.quantiles(seconds, n=10, method="inclusive")[-1], 12),
        max(seconds),
    )


def record_worst(record: GameRecord) -> int:
    """Unplaced seats (eliminated, or left when the cards ran out) count as last."""
    return len(record.places) + 1


def _play_many(args: tuple[int, tuple[str, ...], int, list[int]]) -> list[GameRecord]:
    players, levels, seed, numbers = args
    return [
        play_game(players, seat_rotation(levels, i), derive_seed(seed, "game", i)) for i in numbers
    ]


def run_games(
    players: int,
    levels: Sequence[str],
    games: int,
    seed: int,
    *,
    jobs: int = 1,
    progress: Callable[[GameRecord], None] | None = None,
) -> Iterable[GameRecord]:
    """Play ``games`` games, seats rotated, optionally over several processes."""
    levels = tuple(levels)
    numbers = list(range(games))
    if jobs <= 1:
        for i in numbers:
            record = play_game(players, seat_rotation(levels, i), derive_seed(seed, "game", i))
            if progress:
                progress(record)
            yield record
        return
    batches = [(players, levels, seed, numbers[i : i + 4]) for i in range(0, games, 4)]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for batch in pool.imap_unordered(_play_many, batches):
            for record in batch:
                if progress:
                    progress(record)
                yield record


def _solo_many(args: tuple[tuple[str, ...], int, list[int]]) -> list[tuple[int, ...]]:
    levels, seed, numbers = args
    return [
        tuple(solo_questions(level, derive_seed(seed, "solo", i)) for level in levels)
        for i in numbers
    ]


def run_solo_paired(
    levels: Sequence[str],
    games: int,
    seed: int,
    *,
    jobs: int = 1,
) -> Iterable[tuple[int, ...]]:
    """Per deal, the questions each level needs asking alone (the same deals for all)."""
    numbers = list(range(games))
    batches = [(tuple(levels), seed, numbers[i : i + 10]) for i in range(0, games, 10)]
    if jobs <= 1:
        for batch in map(_solo_many, batches):
            yield from batch
        return
    pool = multiprocessing.get_context("fork").Pool(jobs)
    try:
        for batch in pool.imap_unordered(_solo_many, batches):
            yield from batch
    finally:
        pool.close()


def run_solo(
    level: str,
    games: int,
    seed: int,
    *,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> Iterable[int]:
    for (count,) in run_solo_paired((level,), games, seed, jobs=jobs):
        if progress:
            progress(count)
        yield count


@dataclass(frozen=True)
class SoloSummary:
    """Levels asking alone on the same deals: each one's mean, and each against the first.

    >>> s = SoloSummary.of(("normal", "expert"), [(5, 4), (4, 4), (6, 5), (3, 3)])
    >>> s.means, s.differences[0][0]
    ((4.5, 4.0), -0.5)
    """

    levels: tuple[str, ...]
    deals: int
    means: tuple[float, ...]
    #: Half-widths of the 95% intervals of the means.
    halves: tuple[float, ...]
    #: For each level after the first: the mean paired difference to the first, and its 95% CI.
    differences: tuple[tuple[float, float, float], ...]

    @classmethod
    def of(cls, levels: Sequence[str], rows: Sequence[Sequence[int]]) -> SoloSummary:
        n = len(rows)
        columns = list(zip(*rows, strict=True))
        means = tuple(sum(c) / n for c in columns)
        halves = tuple(_half_width(c) for c in columns)
        differences = []
        for c in columns[1:]:
            d = [b - a for a, b in zip(columns[0], c, strict=True)]
            mean, half = sum(d) / n, _half_width(d)
            differences.append((mean, mean - half, mean + half))
        return cls(tuple(levels), n, means, halves, tuple(differences))


def _half_width(values: Sequence[float], z: float = 1.96) -> float:
    """Half the width of the normal 95% interval of a mean."""
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return z * math.sqrt(var / n)


# --- reviews ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewedGame:
    """A selfplay game and each seat's review score (see :mod:`.review`)."""

    record: GameRecord
    scores: tuple[int, ...]
    #: Seconds the review of the whole game took.
    seconds: float
    #: Per seat: its questions' accuracy, the share of the most information on offer
    #: they gathered, missed chances, hasty declarations.
    parts: tuple[tuple[float, float, int, int], ...] = ()
    #: Processor seconds the review took (the wall-clock ``seconds`` grow with the load
    #: of a shared machine; these do not).
    cpu_seconds: float = 0.0
    #: Each seat's whole review (``SeatReview.to_json``), to study the scores offline.
    seats: tuple[dict[str, JSON], ...] = field(default=(), compare=False)


def review_record(record: GameRecord, shared: dict | None = None) -> ReviewedGame:
    """Review a selfplay game, reusing the deductions its bots made (``shared``)."""
    from bodoge.games.tagiron.ai.bots import position_key
    from bodoge.games.tagiron.review import review_game

    known = shared if shared is not None else {}

    def deduce(position: Position) -> Deduction:
        key = position_key(position)
        found = known.get(key)
        if found is None:
            found = known[key] = Deduction(position)
        return found

    started, cpu = time.perf_counter(), time.process_time()
    review = review_game(len(record.levels), record.seed, record.moves, deduce=deduce)
    seconds = time.perf_counter() - started
    cpu_seconds = time.process_time() - cpu
    parts = tuple((s.accuracy, s.share, len(s.missed), s.hasty) for s in review.seats)
    scores = tuple(s.score for s in review.seats)
    seats = tuple(s.to_json() for s in review.seats)
    return ReviewedGame(record, scores, seconds, parts, cpu_seconds, seats)


def _review_many(args: tuple[int, tuple[str, ...], int, list[int]]) -> list[ReviewedGame]:
    players, levels, seed, numbers = args
    out = []
    for i in numbers:
        shared: dict = {}
        record = play_game(
            players, seat_rotation(levels, i), derive_seed(seed, "game", i), shared=shared
        )
        out.append(review_record(record, shared))
    return out


def run_reviews(
    players: int, levels: Sequence[str], games: int, seed: int, *, jobs: int = 1
) -> Iterable[ReviewedGame]:
    """Play ``games`` games as :func:`run_games` does and review each (in the workers)."""
    levels = tuple(levels)
    batches = [
        (players, levels, seed, list(range(i, min(games, i + 4)))) for i in range(0, games, 4)
    ]
    if jobs <= 1:
        for batch in batches:
            yield from _review_many(batch)
        return
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for done in pool.imap_unordered(_review_many, batches):
            yield from done


@dataclass
class ScoreTally:
    """Review scores by level: the mean and its 95% interval."""

    levels: tuple[str, ...]
    scores: dict[str, list[int]] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)
    #: Per game, each level's mean score in it (the levels of one game are paired).
    games: list[dict[str, float]] = field(default_factory=list)
    #: Per level: the accuracy of the questions, the share of the most information,
    #: missed chances and hasty declarations of each of its seats.
    parts: dict[str, list[tuple[float, float, int, int]]] = field(default_factory=dict)

    def add(self, reviewed: ReviewedGame) -> None:
        self.seconds.append(reviewed.seconds)
        self.cpu_seconds.append(reviewed.cpu_seconds)
        by_level: dict[str, list[int]] = {}
        for level, score in zip(reviewed.record.levels, reviewed.scores, strict=True):
            self.scores.setdefault(level, []).append(score)
            by_level.setdefault(level, []).append(score)
        self.games.append({level: sum(v) / len(v) for level, v in by_level.items()})
        for level, part in zip(reviewed.record.levels, reviewed.parts, strict=True):
            self.parts.setdefault(level, []).append(part)

    def breakdown(self, level: str) -> tuple[float, float, float, float]:
        """``level``'s mean accuracy, share of the most information, missed chances and
        hasty declarations a game."""
        parts = self.parts[level]
        accuracy, share, missed, hasty = (sum(p[i] for p in parts) / len(parts) for i in range(4))
        return accuracy, share, missed, hasty

    def difference(self, level: str, other: str) -> tuple[float, float, float]:
        """``level``'s score minus ``other``'s in the same games: mean and 95% interval."""
        d = [g[level] - g[other] for g in self.games if level in g and other in g]
        mean, half = sum(d) / len(d), _half_width(d)
        return mean, mean - half, mean + half

    def mean(self, level: str) -> tuple[float, float]:
        """The mean score of ``level`` and the half-width of its 95% interval."""
        values = self.scores[level]
        return sum(values) / len(values), _half_width(values)

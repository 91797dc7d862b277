"""The review of a finished Tagiron game: every question and declaration weighed, per seat.

Like a chess engine's analysis, but exact: after the game, each seat's play is
judged *from what that seat knew at each moment* — its own tiles, the face-up
cards and every answer and declaration it had heard — never from the hidden
tiles.  :func:`review_seat` reads nothing but one seat's own views (what the
server sent it, :func:`known` strips what the end revealed), so the review is
honest by construction; :func:`review_history` replays a game's history (as
``GET /api/tables/{id}/history`` returns it) to make each seat's views.

What is judged (the thresholds are the constants below, explained in
``docs/solver.md``, "Game review"):

* **a question**, as a chess engine judges a move by the loss in its own
  evaluation: by the value the strongest player, the expert bot, chooses by
  (:mod:`.review_value`), in questions — how much nearer to certainty it brings
  the asker, less what it brings the rivals (with 3–4 players an average
  rival's chance to be certain too and its bits, from every answer it hears;
  with 2 players what the asker's own answer tells and the cards left to the
  opponent).  Its *loss* is the best face-up question's value less its own;
  against what the best question would have gained it is *good* up to ``1 -``
  :data:`GOOD_SHARE` of that (or within :data:`TIE`), an *inaccuracy* up to
  ``1 -`` :data:`MISTAKE_SHARE`, beyond that a *mistake*.  Its bits, the most
  bits any face-up question offered and the candidates it left are reported
  too, and what a card picked at random would have lost then (``par``);
* **a declaration**: the chance, at that moment, of the tiles named.  A
  wrong one is a *mistake* (hasty) when it cost something and the expert, in
  the seat's place, would not have taken it: with 3–4 players
  (:meth:`~bodoge.games.tagiron.ai.group.GroupExpert.should_declare`, which
  weighs the race: which rivals are certain, who asks next), with 2 players
  (:meth:`~bodoge.games.tagiron.ai.duel.DuelExpert.would_declare`, against
  the best question by value: what the opponent likely knows, what a wrong
  guess still rules out).  A guess that costs nothing (the 2-player final
  declaration, the last turns once no question can be asked) is never a
  mistake;
* **a missed chance**: a move made while the seat could declare and was certain
  (with 3–4 players: or past the expert's threshold) and did not — its own
  question or pass, or another seat's move, except the first move by another
  seat once it could: that seat may simply have been quicker.

The **score** of a seat (0–100) is its questions' *accuracy* — 1 less the
questions of value they lost over what cards picked at random would have
lost at the same moments (:func:`stake`: :data:`PAR_FACTOR` times, so that the
expert's choice scores 100% and a random card's 50% on average at every table),
in percent — less
:data:`MISSED_COST` points per missed chance (times its chance) and
:data:`HASTY_COST` per hasty wrong declaration; :attr:`SeatReview.summary` says
it in one line.  Were nothing charged, the accuracy would be the share of the
most information on offer its questions gathered (:attr:`SeatReview.share`,
still reported).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bodoge.core.game import Seat
from bodoge.core.values import JSON
from bodoge.games.tagiron.ai.duel import DuelExpert
from bodoge.games.tagiron.ai.group import GroupExpert
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.rivals import told_by_my_answers
from bodoge.games.tagiron.ai.situation import Situation
from bodoge.games.tagiron.ai.solver import Deduction, Variant
from bodoge.games.tagiron.game import TagironGame
from bodoge.games.tagiron.review_missed import (
    MISSED_COST,
    REACTION_SECONDS,
    MissedChance,
    Moment,
    missed_chances,
)
from bodoge.games.tagiron.review_value import RATE, Worth, best_of, loss_of, worths
from bodoge.games.tagiron.state import TagironState
from bodoge.games.tagiron.tiles import sort_hand

#: A question within this many questions of value of the best is as good as the best
#: (about 0.05 bits).
TIE = 0.02
#: A question losing at most ``1 -`` this share of what the best question would have
#: gained its asker is good ...
GOOD_SHARE = 0.85
#: ... at most ``1 -`` this share an inaccuracy, more a mistake.
MISTAKE_SHARE = 0.5
#: The bands are measured against what the best question would have gained, but never
#: against less than this (questions): where no question tells anything, losing a
#: hundredth of a question to the opponent is not a mistake.
MIN_STAKE = 0.25
#: Points off the score for each hasty wrong declaration.
HASTY_COST = 10
#: The score's yardstick for a question, by players: this many times what a face-up card
#: picked at random (the easy bot's question) would lose against the best.  Twice would
#: make a random card score 50% on average if a question could score below 0; it scores
#: 0 at worst, so the yardstick is shortened until the easy bot's questions average 50%
#: — measured by ``bodoge tagiron selfplay --review`` (docs/solver.md, "Figures"): with
#: more players a random card's losses are more lopsided (more cards that tell nothing,
#: or hand the rivals the race), and more is cut off at 0.
PAR_FACTOR: dict[int, float] = {2: 2.0, 3: 1.75, 4: 1.75}
#: The yardstick is never less than this (questions): where every card is nearly as
#: good, a hair's loss is not half a score.
PAR_FLOOR = 0.05

Mark = str  # "best" | "good" | "inaccuracy" | "mistake"

GAME = TagironGame()


def question_mark(loss: float, scale: float) -> Mark:
    """How a question that lost ``loss`` questions of value against the best one compares,
    when the best one would have gained its asker ``scale`` (never less than
    :data:`MIN_STAKE`: the bands never have zero width).

    >>> question_mark(0.0, 2.0), question_mark(0.2, 2.0), question_mark(0.8, 2.0)
    ('best', 'good', 'inaccuracy')
    >>> question_mark(1.0, 1.0), question_mark(0.0, 0.0), question_mark(0.03, 0.0)
    ('mistake', 'best', 'good')
    """
    scale = max(scale, MIN_STAKE)
    if loss <= 1e-9:
        return "best"
    if loss <= TIE or loss <= (1 - GOOD_SHARE) * scale:
        return "good"
    if loss <= (1 - MISTAKE_SHARE) * scale:
        return "inaccuracy"
    return "mistake"


def stake(loss: float, par: float, players: int = 2) -> float:
    """What was at stake in a question, for the score: :data:`PAR_FACTOR` times what a
    card picked at random would have lost (``par``; at least :data:`PAR_FLOOR`), or the
    loss if more.  So the expert's choice scores 100%, a random card's 50% on average,
    at every table.

    >>> stake(0.5, 2.0), stake(0.7, 0.1), stake(0.0, 0.0), stake(0.0, 1.0, 4)
    (4.0, 0.7, 0.05, 1.75)
    """
    return max(PAR_FACTOR[players] * par, PAR_FLOOR, loss)


def par_loss(worth: Mapping[Variant, Worth], best: Worth) -> float:
    """What a face-up card picked at random, and a random choice on it, loses against
    ``best`` on average: the easy bot's question.

    >>> from bodoge.games.tagiron.review_value import Worth
    >>> w = {("red_sum", None): Worth(2.0, 0.0, 0.0), ("where_0", None): Worth(1.0, 0.0, 0.0),
    ...      ("where_5", None): Worth(0.0, 0.0, 0.0)}
    >>> round(par_loss(w, w["red_sum", None]), 4)  # each card alike: (0 + 0.27 + 0.53) / 3
    0.2667
    """
    cards: dict[str, list[float]] = {}
    for (card, _), w in worth.items():
        cards.setdefault(card, []).append(loss_of(w, best))
    return sum(sum(x) / len(x) for x in cards.values()) / len(cards)


@dataclass(frozen=True)
class QuestionReview:
    """A question a seat asked: move ``n`` (from 1), from the moment before it."""

    n: int
    card: str
    choice: int | None
    #: Expected bits about the target (exact), the bits this seat's own answer told the
    #: others about its hand, and the chance its answers left the seat certain.
    bits: float
    told: float
    settle: float
    #: Its worth in questions (:mod:`.review_value`): the questions to certainty it
    #: saved the asker in expectation, those it saved the rivals, and the difference.
    gain: float
    given: float
    value: float
    #: The best face-up question then (the one asked if it is as good, else the first
    #: of equals in face-up order), and the same of it.
    best: Variant
    best_bits: float
    best_told: float
    best_settle: float
    best_gain: float
    best_value: float
    #: The most bits any face-up question then was expected to give.
    most_bits: float
    #: Candidates for the target before the question and once its answers were heard.
    before: int
    after: int
    #: Questions of value lost against the best (0 for the best).
    loss: float
    mark: Mark
    #: What a face-up card picked at random would have lost on average (the score's
    #: yardstick, :func:`stake`), and the players at the table.
    par: float = 0.0
    players: int = 2

    @property
    def stake(self) -> float:
        return stake(self.loss, self.par, self.players)

    def to_json(self) -> dict[str, JSON]:
        return {
            "n": self.n,
            "card": self.card,
            "choice": self.choice,
            "bits": round(self.bits, 4),
            "told": round(self.told, 4),
            "settle": round(self.settle, 4),
            "gain": round(self.gain, 4),
            "given": round(self.given, 4),
            "value": round(self.value, 4),
            "best": {"card": self.best[0], "choice": self.best[1]},
            "best_bits": round(self.best_bits, 4),
            "best_told": round(self.best_told, 4),
            "best_settle": round(self.best_settle, 4),
            "best_gain": round(self.best_gain, 4),
            "best_value": round(self.best_value, 4),
            "most_bits": round(self.most_bits, 4),
            "loss": round(self.loss, 4),
            "par": round(self.par, 4),
            "stake": round(self.stake, 4),
            "before": self.before,
            "after": self.after,
            "mark": self.mark,
        }


@dataclass(frozen=True)
class DeclarationReview:
    """A declaration: the chance of the tiles named then, and whether it was a mistake."""

    n: int
    tiles: tuple[str, ...]
    probability: float
    right: bool
    #: Nothing to lose: no question could be asked any more (or a 2-player final guess).
    free: bool
    #: With 3–4 players: whether the expert would have declared then too.
    expert_would: bool | None
    mark: Mark | None

    def to_json(self) -> dict[str, JSON]:
        return {
            "n": self.n,
            "tiles": list(self.tiles),
            "probability": round(self.probability, 6),
            "right": self.right,
            "free": self.free,
            "expert_would": self.expert_would,
            "mark": self.mark,
        }


@dataclass(frozen=True)
class SeatReview:
    seat: Seat
    #: Candidates for the target at each moment (index ``t``: after ``t`` moves), as
    #: this seat counted them; ``None`` once it has declared with 3–4 players.
    candidates: tuple[int | None, ...]
    questions: tuple[QuestionReview, ...]
    declarations: tuple[DeclarationReview, ...]
    missed: tuple[MissedChance, ...]

    @property
    def bits(self) -> float:
        """Bits its questions were expected to gather."""
        return sum(q.bits for q in self.questions)

    @property
    def most_bits(self) -> float:
        """Bits the most informative question at each of those moments would have gathered."""
        return sum(q.most_bits for q in self.questions)

    @property
    def share(self) -> float:
        """The share of the most information on offer its questions gathered (1 if none)."""
        most = self.most_bits
        return 1.0 if most <= 1e-12 else min(1.0, self.bits / most)

    @property
    def loss(self) -> float:
        """Questions of value its questions lost against the best ones."""
        return sum(q.loss for q in self.questions)

    @property
    def par(self) -> float:
        """Questions of value cards picked at random would have lost at the same moments."""
        return sum(q.par for q in self.questions)

    @property
    def stake(self) -> float:
        """Questions of value at stake: twice what cards picked at random would have lost
        (or the loss, where that was more; see :func:`stake`)."""
        return sum(q.stake for q in self.questions)

    @property
    def accuracy(self) -> float:
        """Its questions' accuracy: 1 less the value they lost over the value at stake (1 if
        no question was asked)."""
        at_stake = self.stake
        return 1.0 if at_stake <= 1e-12 else max(0.0, 1.0 - self.loss / at_stake)

    @property
    def hasty(self) -> int:
        return sum(d.mark == "mistake" for d in self.declarations)

    @property
    def missed_cost(self) -> float:
        """Points its missed chances cost: each :data:`MISSED_COST` times its chance."""
        return sum(m.cost for m in self.missed)

    @property
    def score(self) -> int:
        raw = 100 * self.accuracy - self.missed_cost - HASTY_COST * self.hasty
        return max(0, round(raw))

    def marks(self) -> dict[str, int]:
        counts = dict.fromkeys(("best", "good", "inaccuracy", "mistake"), 0)
        for q in self.questions:
            counts[q.mark] += 1
        return counts

    @property
    def summary(self) -> str:
        """The score explained in one line (English; the page has its own words)."""
        asked = len(self.questions)
        parts = [
            f"questions {100 * self.accuracy:.0f}% accurate "
            f"({self.loss:.2f} questions of value lost against the best, where cards picked "
            f"at random would have lost {self.par:.2f}, in {asked} "
            f"question{'s' if asked != 1 else ''})"
            if asked
            else "no question asked"
        ]
        parts.extend(missed_words(self.missed))
        parts.append(_count(self.hasty, "hasty wrong declaration", "hasty wrong declarations"))
        return f"score {self.score}: " + ", ".join(parts)

    def to_json(self) -> dict[str, JSON]:
        return {
            "seat": self.seat,
            "score": self.score,
            "accuracy": round(self.accuracy, 6),
            "loss": round(self.loss, 4),
            "stake": round(self.stake, 4),
            "par": round(self.par, 4),
            "share": round(self.share, 6),
            "bits": round(self.bits, 4),
            "most_bits": round(self.most_bits, 4),
            "summary": self.summary,
            "marks": self.marks(),
            "hasty": self.hasty,
            "missed_cost": round(self.missed_cost, 3),
            "candidates": list(self.candidates),
            "questions": [q.to_json() for q in self.questions],
            "declarations": [d.to_json() for d in self.declarations],
            "missed": [m.to_json() for m in self.missed],
        }


def missed_words(missed: Sequence[MissedChance]) -> list[str]:
    """The missed chances in words: certainties apart from gambles, with their odds.

    >>> missed_words([])
    ['no missed declarations when certain']
    >>> missed_words([MissedChance(5, 1.0, True, 4, "own_turn"),
    ...               MissedChance(9, 0.5, False, 8, "waited")])
    ['1 missed declaration when certain', '1 gamble the expert would take not taken (50%)']
    """
    certain = [m for m in missed if m.certain]
    gambles = [m for m in missed if not m.certain]
    one, many = "missed declaration when certain", "missed declarations when certain"
    words = [_count(len(certain), one, many)]
    if gambles:
        low = round(100 * min(m.probability for m in gambles))
        high = round(100 * max(m.probability for m in gambles))
        odds = f"{low}%" if low == high else f"{low}–{high}%"
        one, many = "gamble the expert would take", "gambles the expert would take"
        words.append(f"{_count(len(gambles), one, many)} not taken ({odds})")
    return words


def _count(n: int, one: str, many: str) -> str:
    return f"no {many}" if n == 0 else f"1 {one}" if n == 1 else f"{n} {many}"


@dataclass(frozen=True)
class GameReview:
    players: int
    seats: tuple[SeatReview, ...]

    def to_json(self) -> dict[str, JSON]:
        return {
            "game": "tagiron",
            "players": self.players,
            "thresholds": thresholds(self.players),
            "seats": [s.to_json() for s in self.seats],
        }


def thresholds(players: int) -> dict[str, JSON]:
    """The constants the judgements of a ``players``-seat game use, for tools and the
    page's legend."""
    return {
        "unit": "questions",
        "bits_per_question": RATE,
        "tie": TIE,
        "good_share": GOOD_SHARE,
        "mistake_share": MISTAKE_SHARE,
        "min_stake": MIN_STAKE,
        "par_factor": PAR_FACTOR[players],
        "par_floor": PAR_FLOOR,
        "missed_cost": MISSED_COST,
        "hasty_cost": HASTY_COST,
        "reaction_seconds": REACTION_SECONDS,
    }


# --- one seat, from its own views ------------------------------------------------------------


def known(view: Mapping[str, JSON], seat: Seat) -> dict[str, JSON]:
    """``view`` without what the end revealed: what ``seat`` knew while the game ran.

    Drops the revealed hands and, with 3–4 players, the tiles other seats
    declared (a seat hears only its own declaration until the end).
    """
    out = dict(view)
    out["revealed"] = None
    if view["players"] > 2:
        log = []
        for entry in view["log"]:
            if entry.get("type") == "declaration" and entry["seat"] != seat:
                entry = {k: v for k, v in entry.items() if k != "tiles"}
            log.append(entry)
        out["log"] = log
    return out


Deduce = Callable[[Position], Deduction]


def review_seat(
    views: Sequence[Mapping[str, JSON]],
    seat: Seat,
    *,
    deduce: Deduce = Deduction,
    times: Sequence[float | None] | None = None,
) -> SeatReview:
    """Judge ``seat``'s play from its own views: ``views[t]`` after ``t`` moves.

    Only what :func:`known` leaves of each view is read, so nothing the seat
    did not know at a moment can reach a judgement of it.  ``times[i]``: when
    move ``i + 1`` was made, in seconds (a history's ``at``), if known: with 3–4
    players a chance to declare counts only if the seat had time to take it
    (:mod:`.review_missed`).
    """
    seen = [known(v, seat) for v in views]
    players = seen[0]["players"]
    memo: dict[int, Deduction] = {}

    def deduction(t: int) -> Deduction:
        if t not in memo:
            memo[t] = deduce(Position.from_view({**seen[t], "you": seat}))
        return memo[t]

    expert_memo: dict[int, bool] = {}

    def expert_declares(t: int) -> bool:
        """Whether the expert, in this seat's place, would name the likeliest target now."""
        if t not in expert_memo:
            s = Situation(seen[t], seat, deduction(t))
            if players > 2:
                expert_memo[t] = bool(GroupExpert().should_declare(s))
            elif s.deduction.certain or not s.may_ask:
                expert_memo[t] = True
            else:  # against the question it would ask by its greedy value
                values = question_values(s, s.deduction.question_bits(s.variants))
                best = max(values, key=lambda v: round(values[v], 9))  # as best_of: equals by order
                expert_memo[t] = DuelExpert().would_declare(s, best)
        return expert_memo[t]

    candidates: list[int | None] = []
    questions: list[QuestionReview] = []
    declarations: list[DeclarationReview] = []
    moments: list[Moment] = []
    done = False  # with 3–4 players, once this seat has declared
    for t, view in enumerate(seen):
        candidates.append(None if done else deduction(t).candidate_count)
        if t + 1 >= len(seen):
            break
        entry = _new_entry(view, seen[t + 1]) or {}  # {}: no entry added, so nobody's
        mine = bool(entry) and entry["seat"] == seat
        kind = entry.get("type", "question") if entry else None
        if done:
            continue
        d = deduction(t)
        if mine and kind == "question":
            questions.append(_question(t, seat, seen[t], entry, d, deduction(t + 1)))
        elif mine and kind == "declaration":
            declarations.append(_declaration(t, view, entry, d, seat, expert_declares))
            if players > 2:
                done = True
        should = bool(
            view["may_declare"]
            and not (mine and kind == "declaration")
            and (d.certain if players == 2 else expert_declares(t))
        )
        p = d.best()[1] if should else 0.0
        mover = entry["seat"] if entry else None
        moments.append(Moment(t, should, p, d.certain, mover, kind))
    missed = missed_chances(players, seat, moments, times)
    return SeatReview(seat, tuple(candidates), tuple(questions), tuple(declarations), tuple(missed))


def _question(
    t: int,
    seat: Seat,
    view: Mapping[str, JSON],
    entry: Mapping[str, JSON],
    d: Deduction,
    after: Deduction,
) -> QuestionReview:
    """The review of the question asked from the moment after ``t`` moves."""
    variant: Variant = (entry["card"], entry.get("choice"))
    situation = Situation(view, seat, d)
    worth = worths(situation)
    told = told_by_my_answers(d.position, situation.variants)
    best = best_of(worth)
    mine, top = worth[variant], worth[best]
    loss = loss_of(mine, top)
    if loss <= 1e-9:
        best, top = variant, mine  # as good as the best: no better question to show
    return QuestionReview(
        n=t + 1,
        card=variant[0],
        choice=variant[1],
        bits=mine.bits,
        told=told[variant],
        settle=mine.settle,
        gain=mine.gain,
        given=mine.given,
        value=mine.value,
        best=best,
        best_bits=top.bits,
        best_told=told[best],
        best_settle=top.settle,
        best_gain=top.gain,
        best_value=top.value,
        most_bits=max(w.bits for w in worth.values()),
        before=d.candidate_count,
        after=after.candidate_count,
        loss=loss,
        mark=question_mark(loss, top.gain),
        par=par_loss(worth, worth[best_of(worth)]),
        players=situation.players,
    )


def question_values(s: Situation, bits: Mapping[Variant, float]) -> dict[Variant, float]:
    """Each face-up question's value as the expert weighs it when it chooses one greedily:
    its ``bits`` about the target less the expert's charges, in bits.

    With 3–4 players the charge is what this seat's own answer tells the rivals
    (:meth:`GroupExpert.charges`); with 2 players it is that and what the
    opponent's best next question is then worth (:meth:`DuelExpert.charges`).
    Both read nothing but this seat's view.
    """
    expert = DuelExpert() if s.players == 2 else GroupExpert()
    charges = expert.charges(s)
    return {v: b - charges[v] for v, b in bits.items()}


def _new_entry(before: Mapping[str, JSON], after: Mapping[str, JSON]) -> dict[str, JSON] | None:
    """The log entry a move added (every Tagiron move adds exactly one)."""
    log_before, log_after = before["log"], after["log"]
    return dict(log_after[len(log_before)]) if len(log_after) > len(log_before) else None


def _declaration(
    t: int,
    view: Mapping[str, JSON],
    entry: Mapping[str, JSON],
    d: Deduction,
    seat: Seat,
    expert_declares: Callable[[int], bool],
) -> DeclarationReview:
    tiles = tuple(entry["tiles"])
    p = _chance_of(d, tiles)
    right = bool(entry["right"])
    my_turn = view["turn"] == seat
    free = my_turn and not view["may_ask"]  # the final guess, or the last turns
    expert = expert_declares(t)
    mark = "mistake" if not right and not free and not d.certain and not expert else None
    return DeclarationReview(t + 1, tiles, p, right, free, expert, mark)


def _chance_of(d: Deduction, tiles: Sequence[str]) -> float:
    key = sort_hand(tiles)
    for candidate in d.ranked():
        if candidate.tiles == key:
            return candidate.probability
    return 0.0


# --- a whole game ------------------------------------------------------------------------


def seat_views(
    players: int, seed: int, moves: Sequence[tuple[Seat | None, Any]]
) -> list[list[dict[str, JSON]]]:
    """Each seat's views after ``t`` moves, for ``t`` from 0, replaying the game."""
    options = GAME.options({"players": players})
    return views_from(GAME.setup(options, players, seed), moves)


def views_from(
    state: TagironState, moves: Sequence[tuple[Seat | None, Any]]
) -> list[list[dict[str, JSON]]]:
    """Each seat's views from ``state`` on, as the moves are applied."""
    views = [[GAME.view(state, s)] for s in range(state.players)]
    for seat, move in moves:
        state, _ = GAME.apply(state, seat, move)
        for s in range(state.players):
            views[s].append(GAME.view(state, s))
    return views


def review_game(
    players: int,
    seed: int,
    moves: Sequence[tuple[Seat | None, Any]],
    *,
    deduce: Deduce = Deduction,
    times: Sequence[float | None] | None = None,
) -> GameReview:
    """Every seat's review of a game given by its options, seed and moves (``times``:
    when each move was made, in seconds, if known)."""
    views = seat_views(players, seed, moves)
    return GameReview(
        players,
        tuple(review_seat(views[s], s, deduce=deduce, times=times) for s in range(players)),
    )


class HistoryError(ValueError):
    """A history file that is not a Tagiron game's history."""


class UnfinishedError(HistoryError):
    """A history of a game that has not ended: there is nothing to review yet."""


@dataclass(frozen=True)
class History:
    """What a review reads of a history: players, seed, moves and when each was made."""

    players: int
    seed: int
    moves: list[tuple[Seat | None, Any]]
    #: Seconds since the epoch of each move (``None`` where the history has no ``at``).
    times: list[float | None]


def parse_history(data: JSON) -> History:
    """Players, seed, moves and times of a history as ``GET /api/tables/{id}/history``
    returns it."""
    if not isinstance(data, Mapping):
        raise HistoryError("a history is a JSON object")
    table = data.get("table")
    if isinstance(table, Mapping) and table.get("game", "tagiron") != "tagiron":
        raise HistoryError(f"not a Tagiron game but {table.get('game')!r}")
    seed, options, raw = data.get("seed"), data.get("options"), data.get("moves")
    if type(seed) is not int:
        raise HistoryError("the history has no seed")
    if not isinstance(raw, list):
        raise HistoryError("the history has no list of moves")
    try:
        players = GAME.options(options).players
    except Exception as exc:
        raise HistoryError(f"options: {exc}") from None
    moves: list[tuple[Seat | None, Any]] = []
    times: list[float | None] = []
    for i, item in enumerate(raw, start=1):
        if not isinstance(item, Mapping) or "move" not in item or item.get("move") is None:
            raise HistoryError(f"move {i}: a move is an object with a seat and a move")
        seat = item.get("seat")
        if type(seat) is not int:
            raise HistoryError(f"move {i}: no seat")
        try:
            moves.append((seat, GAME.move_from_json(item["move"])))
        except Exception as exc:
            raise HistoryError(f"move {i}: {exc}") from None
        times.append(_seconds(item.get("at"), i))
    return History(players, seed, moves, times)


def _seconds(at: JSON, i: int) -> float | None:
    """A move's ``at`` (ISO 8601) in seconds since the epoch; ``None`` if it has none."""
    if at is None:
        return None
    if not isinstance(at, str):
        raise HistoryError(f"move {i}: 'at' is a time like 2026-01-01T12:00:00.000Z")
    try:
        when = datetime.fromisoformat(at)
    except ValueError:
        raise HistoryError(f"move {i}: 'at' is a time like 2026-01-01T12:00:00.000Z") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


def review_history(
    data: JSON, *, deduce: Deduce = Deduction, unfinished: bool = False
) -> GameReview:
    """The review of a history (raises :class:`HistoryError` for one that does not replay,
    and :class:`UnfinishedError` for a game that has not ended unless ``unfinished``: a
    table that was abandoned is still reviewed on the server)."""
    history = parse_history(data)
    try:
        views = seat_views(history.players, history.seed, history.moves)
    except Exception as exc:
        raise HistoryError(f"the moves do not replay: {exc}") from None
    last = views[0][-1]
    if not unfinished and last["phase"] != "ended":
        count = len(history.moves)
        raise UnfinishedError(
            f"the game has not ended (the history stops after {count} "
            f"move{'s' if count != 1 else ''}, in the {last['phase']} phase): "
            "only a finished game can be reviewed"
        )
    return GameReview(
        history.players,
        tuple(
            review_seat(views[s], s, deduce=deduce, times=history.times)
            for s in range(history.players)
        ),
    )

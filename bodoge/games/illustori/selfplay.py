"""Bots playing Illustori against each other: a check that the rules and the bots hold together.

Games go through :class:`~bodoge.games.illustori.game.IllustoriGame` exactly
as at a table: each bot sees only its seat's view, every move goes through
``apply``, and a move the rules refuse is an error (:class:`BotError`).
During a vote the voters are asked in a seeded random order.  With the vote
limit on, the bots simply vote (in time): no clock runs here.

:class:`GameRecord` counts what happened in one game — and what the bots
said: each word, whether it is a dictionary word or a natural phrase
(:func:`.lexicon.wording`) and how it relates to its card
(:func:`.words.relation`); :class:`Tally` sums many, and
:func:`summary_rows` says it in words for the command line, with the share of
natural words, the number of different words and a sample of them.

>>> record = play_game({"players": 4}, seed=3)
>>> record.finished, record.turns > 0, record.winners >= 1
(True, True, True)
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bodoge.core.errors import GameError
from bodoge.core.rng import derive_seed, rng
from bodoge.games.illustori.cards import card
from bodoge.games.illustori.events import (
    CardPlayed,
    CardsExchanged,
    DeckReshuffled,
    FinalRound,
    FirstWordGiven,
    GameEnded,
    IllustoriEnd,
    Penalty,
    VoteResolved,
)
from bodoge.games.illustori.game import IllustoriGame
from bodoge.games.illustori.lexicon import wording
from bodoge.games.illustori.moves import Exchange, PlayCard
from bodoge.games.illustori.words import relation

__all__ = [
    "GAME",
    "BotError",
    "GameRecord",
    "Tally",
    "play_game",
    "run_games",
    "summary_rows",
    "word_rows",
]

GAME = IllustoriGame()
#: A game still running after this many moves is given up (and counted as unfinished).
MAX_MOVES = 5000


class BotError(AssertionError):
    """A bot made a move the rules refused, or did nothing when it had to act."""


@dataclass
class GameRecord:
    """What happened in one game."""

    seed: int
    players: int
    finished: bool = False
    moves: int = 0
    turns: int = 0
    plays: int = 0
    passed: int = 0
    failed: int = 0
    penalties: Counter[str] = field(default_factory=Counter)
    exchanges: int = 0
    exchanged_cards: int = 0
    reshuffles: int = 0
    final_round: bool = False
    #: The game ended because no word joined the chain for three rounds.
    stalled: bool = False
    winners: int = 0
    #: Words (first word included) by how they relate to their card: ``apt``,
    #: ``loose`` or ``""``; empty for uploaded decks, whose pictures have no names.
    relations: Counter[str] = field(default_factory=Counter)
    #: Words by what they are: ``word`` (in the dictionary), ``phrase`` (a
    #: natural phrase) or ``""`` (neither).
    wordings: Counter[str] = field(default_factory=Counter)
    #: Every word given, in order (the first word too).
    said: list[str] = field(default_factory=list)

    @property
    def words(self) -> int:
        """How many words were given (the first word too)."""
        return len(self.said)


def play_game(
    options: Mapping[str, Any],
    seed: int,
    levels: Sequence[str] = ("normal",),
    *,
    max_moves: int = MAX_MOVES,
) -> GameRecord:
    """One game between bots; seat ``s`` plays ``levels[s % len(levels)]``.

    Raises :class:`BotError` if a bot's move is refused or a bot awaited does nothing.
    """
    opts = GAME.options(options)
    players = GAME.seats(opts)
    state = GAME.setup(opts, players, seed)
    bots = [GAME.bot(levels[s % len(levels)]) for s in range(players)]
    rngs = [rng(seed, "bot", s) for s in range(players)]
    order = rng(seed, "order")
    record = GameRecord(seed, players)
    deck_seed = state.deck_seed
    language = opts.language
    while GAME.result(state) is None:
        if record.moves >= max_moves:
            return record
        awaited = sorted(GAME.to_act(state))
        seat = awaited[0] if len(awaited) == 1 else order.choice(awaited)
        view = GAME.view(state, seat)
        move = bots[seat].act(view, seat, rngs[seat])
        if move is None:
            raise BotError(f"seat {seat} ({bots[seat].level}) did nothing in phase {state.phase}")
        try:
            state, events = GAME.apply(state, seat, move)
        except GameError as exc:
            raise BotError(f"seat {seat} ({bots[seat].level}) played {move!r}: {exc}") from exc
        record.moves += 1
        if isinstance(move, PlayCard | Exchange):
            record.turns += 1
        for event in events:
            _count(record, event, deck_seed, language)
    record.finished = True
    return record


def _count(record: GameRecord, event: object, deck_seed: int | None, language: str) -> None:
    if isinstance(event, FirstWordGiven | CardPlayed):
        record.said.append(event.word)
        record.wordings[wording(event.word, language)] += 1
        if isinstance(event, CardPlayed):
            record.plays += 1
        if deck_seed is not None:
            record.relations[relation(card(deck_seed, event.card), event.word, language)] += 1
    elif isinstance(event, VoteResolved):
        if event.passed:
            record.passed += 1
        else:
            record.failed += 1
    elif isinstance(event, Penalty):
        record.penalties[event.reason] += 1
    elif isinstance(event, CardsExchanged):
        record.exchanges += 1
        record.exchanged_cards += len(event.cards)
    elif isinstance(event, DeckReshuffled):
        record.reshuffles += 1
    elif isinstance(event, FinalRound):
        record.final_round = True
    elif isinstance(event, GameEnded):
        record.winners = len(event.result.winners)
        record.stalled = event.result.reason == IllustoriEnd.STALLED


def run_games(
    options: Mapping[str, Any],
    games: int,
    seed: int,
    levels: Sequence[str] = ("normal",),
    *,
    max_moves: int = MAX_MOVES,
) -> Iterator[GameRecord]:
    """Play ``games`` games; game ``i`` uses the table seed ``derive_seed(seed, "game", i)``."""
    for i in range(games):
        yield play_game(options, derive_seed(seed, "game", i), levels, max_moves=max_moves)


@dataclass
class Tally:
    """Many games summed up."""

    records: list[GameRecord] = field(default_factory=list)

    def add(self, record: GameRecord) -> None:
        self.records.append(record)

    @property
    def games(self) -> int:
        return len(self.records)

    def total(self, key: Callable[[GameRecord], float]) -> float:
        return sum(key(r) for r in self.records)


def _spread(values: Sequence[float]) -> str:
    if not values:
        return "-"
    return (
        f"mean {statistics.fmean(values):.1f}, median {statistics.median(values):g}, "
        f"max {max(values):g}"
    )


def _rate(count: float, out_of: float) -> str:
    return f"{count:g} ({100 * count / out_of:.1f}%)" if out_of else f"{count:g}"


def summary_rows(tally: Tally) -> list[tuple[str, str]]:
    """The figures of a run as (what, how much) rows, for a table on the terminal."""
    done = [r for r in tally.records if r.finished]
    games = tally.games
    plays = tally.total(lambda r: r.plays)
    turns = tally.total(lambda r: r.turns)
    votes = tally.total(lambda r: r.passed + r.failed)
    penalty = Counter[str]()
    for r in tally.records:
        penalty.update(r.penalties)
    winners = Counter(r.winners for r in done)
    rows = [
        ("games", f"{games} ({len(done)} finished, {games - len(done)} given up)"),
        ("turns per game", _spread([r.turns for r in done])),
        ("moves per game", _spread([r.moves for r in done])),
        ("cards played", f"{plays:g} ({plays / games:.1f} a game)" if games else "0"),
        ("votes passed", _rate(tally.total(lambda r: r.passed), votes)),
        ("votes failed", _rate(tally.total(lambda r: r.failed), votes)),
        ("ん penalties", _rate(penalty["ends_with_n"], plays)),
        ("same-ends penalties", _rate(penalty["same_ends"], plays)),
        ("used-joint penalties", _rate(penalty["banned_joint"], plays)),
        ("exchanges (of turns)", _rate(tally.total(lambda r: r.exchanges), turns)),
        ("cards exchanged", f"{tally.total(lambda r: r.exchanged_cards):g}"),
        ("reshuffles", f"{tally.total(lambda r: r.reshuffles):g} in "
                       f"{sum(1 for r in tally.records if r.reshuffles)} games"),
        ("final rounds", _rate(sum(1 for r in tally.records if r.final_round), games)),
        ("stalled (3 rounds without a word)",
         _rate(sum(1 for r in tally.records if r.stalled), games)),
        ("winners per game", ", ".join(f"{n}: {winners[n]}" for n in sorted(winners)) or "-"),
    ]  # fmt: skip
    return rows + word_rows(tally)


#: How many words :func:`word_rows` shows as a sample, and how many of the most said.
SAMPLE = 12
MOST = 8


def word_rows(tally: Tally, sample: int = SAMPLE) -> list[tuple[str, str]]:
    """What the bots said: how natural, how varied, how apt, and a sample.

    >>> tally = Tally()
    >>> tally.add(play_game({"players": 3}, seed=3))
    >>> rows = dict(word_rows(tally))
    >>> list(rows)[:2]
    ['dictionary words or natural phrases', 'different words']
    """
    words = tally.total(lambda r: r.words)
    wordings = Counter[str]()
    relations = Counter[str]()
    for r in tally.records:
        wordings.update(r.wordings)
        relations.update(r.relations)
    natural = wordings["word"] + wordings["phrase"]
    different = sorted({w for r in tally.records for w in r.said})
    rows = [
        (
            "dictionary words or natural phrases",
            f"{_rate(natural, words)}: {wordings['word']:g} words, {wordings['phrase']:g} phrases",
        ),
        ("different words", f"{len(different):g} of {words:g} given"),
    ]
    # The words said most often: a bot that leans on a few plain words (移動, ride)
    # shows here first.
    said = Counter(w for r in tally.records for w in r.said)
    rows.append(("said most", ", ".join(f"{w} ×{n}" for w, n in said.most_common(MOST))))
    judged = sum(relations.values())
    if judged:
        rows.append(
            (
                "words about their card",
                f"apt {_rate(relations['apt'], judged)}, loose {_rate(relations['loose'], judged)}"
                f", unrelated {_rate(relations[''], judged)}",
            )
        )
    shown = random.Random(len(different)).sample(different, min(sample, len(different)))
    rows.append(("a sample", "、".join(shown) if shown and not shown[0].isascii() else
                 ", ".join(shown)))  # fmt: skip
    return rows

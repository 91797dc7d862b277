"""The review's rate, measured: how many bits a question is worth on the way to certainty.

The review (:mod:`.review_value`) counts a seat that is not yet certain as
``1 + H / RATE`` questions from certainty, ``H`` the bits it lacks.  This
fits ``RATE`` to the normal bots' own play: at every question a normal bot
asks before it is certain, ``H`` then and the questions it went on to ask
until certain (this one included), fitted by least squares through
``1 + H / rate``.  ``bodoge tagiron selfplay --rate`` prints it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from bodoge.core.rng import derive_seed
from bodoge.games.tagiron.ai.bots import position_key
from bodoge.games.tagiron.ai.histograms import entropy
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.solver import Deduction
from bodoge.games.tagiron.moves import Ask
from bodoge.games.tagiron.review import known, seat_views
from bodoge.games.tagiron.selfplay import play_game


@dataclass(frozen=True)
class RateFit:
    players: int
    games: int
    #: (bits lacking, questions the seat still asked until certain), one per question.
    points: tuple[tuple[float, int], ...]

    @property
    def rate(self) -> float:
        """Bits a question, fitted by least squares through ``1 + H / rate``."""
        num = sum((left - 1) * h for h, left in self.points)
        den = sum(h * h for h, _ in self.points)
        return den / num if num > 0 else float("inf")

    def error(self, rate: float) -> float:
        """The mean of (questions asked − ``1 + H / rate``)."""
        return sum(left - 1 - h / rate for h, left in self.points) / len(self.points)

    def bins(self, width: float = 2.0) -> Iterator[tuple[float, int, float, float]]:
        """By ``H`` in bins of ``width``: the bin's start, positions, mean questions asked
        and the fitted model's mean."""
        rate = self.rate
        groups: dict[int, list[tuple[float, int]]] = {}
        for h, left in self.points:
            groups.setdefault(int(h // width), []).append((h, left))
        for b in sorted(groups):
            rows = groups[b]
            asked = sum(left for _, left in rows) / len(rows)
            model = sum(1 + h / rate for h, _ in rows) / len(rows)
            yield b * width, len(rows), asked, model


def fit_rate(players: int, games: int, seed: int = 1) -> RateFit:
    """Play ``games`` all-normal games and fit the rate on every seat that became certain."""
    points: list[tuple[float, int]] = []
    for i in range(games):
        game_seed = derive_seed(seed, "rate", i)
        shared: dict = {}
        record = play_game(players, ["normal"] * players, game_seed, shared=shared)
        views = seat_views(players, game_seed, record.moves)
        for seat in range(players):
            lacking: list[float] = []
            certain = False
            for t, (mover, move) in enumerate(record.moves):
                position = Position.from_view({**known(views[seat][t], seat), "you": seat})
                d = shared.get(position_key(position)) or Deduction(position)
                if d.certain:
                    certain = True
                    break
                if mover == seat and isinstance(move, Ask):
                    lacking.append(entropy(d.set_weights))
            if certain:
                points.extend((h, len(lacking) - k) for k, h in enumerate(lacking))
    return RateFit(players, games, tuple(points))

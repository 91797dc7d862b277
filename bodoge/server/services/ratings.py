"""Ratings per game with OpenSkill (Plackett–Luce): who is strong, and how sure we are.

A *rated* table (the host's ``rated`` setting) updates, once its game ends, the
rating of every seat for that game:

* a person is rated by their player id — a guest at a rated table counts as a newcomer
  (the default rating) and keeps nothing: only accounts keep ratings, so a rating
  follows a name that can sign in again;
* a person who left mid-game (a bot played on for them) is rated at the place their
  seat finished;
* bots are rated too, one rating per game and level (``bot:normal``), so a person alone
  against bots sees where they stand; the game's strongest level (Tagiron's ``expert``)
  is the **anchor**: a fixed rating (μ 25, σ 2) that games never move.

Places come from the game's result: equal places are ties (Tagiron's draws, Illustori's
shared wins), and seats left unranked (``None``: Tagiron's players who never declared
right when the cards ran out) share the place after the last ranked one.

One number is shown: the ordinal μ − 3σ, scaled as ``1000 + 40 (μ − 3σ)`` (a newcomer
shows 1000), with a provisional mark while σ is above 5.

>>> new = rate([Seat("p_a", DEFAULT), Seat("p_b", DEFAULT)], [1, 2])
>>> [round(r.mu, 3) for r in new], [round(r.sigma, 3) for r in new]
([27.635, 22.365], [8.066, 8.066])
>>> shown(DEFAULT), provisional(DEFAULT)
(1000, True)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from bodoge.core.game import Game
from bodoge.store import RatingRecord, SeatRecord, Store

log = logging.getLogger(__name__)

MU = 25.0
SIGMA = MU / 3
#: The anchor's fixed rating: the strongest bot level of a game never moves.
ANCHOR_MU = 25.0
ANCHOR_SIGMA = 2.0
#: Above this σ a rating is provisional (a few games more and it settles).
PROVISIONAL_SIGMA = 5.0
SCALE, OFFSET = 40.0, 1000.0

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    games: int = 0

    def to_json(self) -> dict[str, float | int | bool]:
        return {
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "games": self.games,
            "rating": shown(self),
            "provisional": provisional(self),
        }


DEFAULT = Rating(MU, SIGMA)
ANCHOR = Rating(ANCHOR_MU, ANCHOR_SIGMA)


@dataclass(frozen=True)
class Seat:
    """One rated seat: its rating key (a player id, ``bot:<level>``) and its rating now.
    ``fixed``: the anchor, or a guest — rated against, never stored."""

    key: str
    rating: Rating
    fixed: bool = False


def shown(rating: Rating) -> int:
    """The one number a page shows: the ordinal μ − 3σ, scaled."""
    return round(OFFSET + SCALE * (rating.mu - 3 * rating.sigma))


def provisional(rating: Rating) -> bool:
    return rating.sigma > PROVISIONAL_SIGMA


def bot_key(level: str) -> str:
    return f"bot:{level}"


def anchor_level(bot_levels: Sequence[str]) -> str | None:
    """The anchor of a game: its strongest bot level (levels go weakest first)."""
    return bot_levels[-1] if bot_levels else None


def ranks(places: Sequence[int | None]) -> list[int]:
    """Places as OpenSkill ranks: unranked seats share the place after the last one.

    >>> ranks([2, None, 1, None])
    [2, 3, 1, 3]
    """
    last = max((p for p in places if p is not None), default=0)
    return [p if p is not None else last + 1 for p in places]


def rate(seats: Sequence[Seat], places: Sequence[int | None]) -> list[Rating]:
    """Every seat's rating after a game it finished at ``places`` (one per seat, 1 = first).

    Fixed seats come back unchanged; the others count one game more.
    """
    if len(seats) != len(places) or len(seats) < 2:
        raise ValueError("a rated game needs a place for each of at least two seats")
    teams = [[_MODEL.rating(mu=s.rating.mu, sigma=s.rating.sigma)] for s in seats]
    after = _MODEL.rate(teams, ranks=[float(r) for r in ranks(places)])
    new = []
    for seat, (player,) in zip(seats, after, strict=True):
        if seat.fixed:
            new.append(seat.rating)
        else:
            new.append(Rating(player.mu, player.sigma, seat.rating.games + 1))
    return new


class Ratings:
    """Updates the ratings of rated tables once their game ended, exactly once each.

    The store writes a rated table's result and its place on the pending list in one
    transaction; :meth:`settle` takes it off the list in the transaction that updates
    the ratings.  So a crash between the two leaves it pending, and :meth:`settle_pending`
    (at start-up, and with the housekeeping) finishes the job; a table settled already is
    never counted again.
    """

    def __init__(self, store: Store, games: Mapping[str, Game]) -> None:
        self.store = store
        self.games = games
        self._lock = asyncio.Lock()

    async def settle_pending(self) -> int:
        """Settle every pending table; how many were settled now."""
        done = 0
        for table_id in await self.store.pending_ratings():
            try:
                done += await self.settle(table_id)
            except Exception:  # kept pending: the next pass tries again
                log.warning("updating the ratings of %s failed", table_id, exc_info=True)
        return done

    async def settle(self, table_id: str) -> bool:
        """Update the ratings of the finished rated table (``False``: done already)."""
        async with self._lock:
            bundle = await self.store.load_table(table_id, chat=0)
            places = (bundle.table.result or {}).get("places") if bundle else None
            game = self.games.get(bundle.table.game) if bundle else None
            if bundle is None or game is None or not isinstance(places, list):
                # Nothing to rate (an unknown game, no result): off the list all the same.
                return await self.store.settle_ratings(table_id, "", [], lambda current: [])
            keys = [_key(s) for s in bundle.seats]
            guests = {
                k
                for k in keys
                if k is not None
                and not k.startswith("bot:")
                and await self.store.account(k) is None
            }
            level = anchor_level(game.bot_levels)
            anchor = bot_key(level) if level else None
            # A bot level in several seats would play against itself: it is not moved.
            doubled = {k for k in keys if k and k.startswith("bot:") and keys.count(k) > 1}
            at = bundle.table.finished_at or 0
            seated = [(k, p) for k, p in zip(keys, places, strict=False) if k is not None]

            def update(current: dict[str, RatingRecord]) -> list[RatingRecord]:
                seats = []
                for key, _ in seated:
                    if key == anchor:
                        seats.append(Seat(key, ANCHOR, fixed=True))
                    elif key in guests:
                        seats.append(Seat(key, DEFAULT, fixed=True))
                    else:
                        held = current.get(key)
                        rating = Rating(held.mu, held.sigma, held.games) if held else DEFAULT
                        seats.append(Seat(key, rating, fixed=key in doubled))
                if len(seats) < 2:
                    return []
                after = rate(seats, [p for _, p in seated])
                return [
                    RatingRecord(seat.key, bundle.table.game, new.mu, new.sigma, new.games, at)
                    for seat, new in zip(seats, after, strict=True)
                    if not seat.fixed
                ]

            wanted = [k for k, _ in seated if k not in guests and k != anchor]
            return await self.store.settle_ratings(table_id, bundle.table.game, wanted, update)


def _key(seat: SeatRecord) -> str | None:
    """Whose rating a seat moves: its person (also one who left: a bot played on for
    them), or its bot level."""
    if seat.kind == "human":
        return seat.player
    if seat.left is not None:
        return seat.left
    if seat.kind == "bot" and seat.level:
        return bot_key(seat.level)
    return None

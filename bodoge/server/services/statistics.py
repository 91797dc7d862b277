"""Per-game statistics of players for their profiles: what each seat did in a finished
game (``Game.statistics``), kept with the table, and added up per player and game.

A profile counts up to ``STATS_GAMES`` finished games; replaying them all on each view
would cost some 3.5 ms of the event loop per Illustori game (0.4 ms per Tagiron game),
0.7 s for a profile of 200 Illustori games, besides reading every move.  So the counts
are made once, when the game ends, from the state the table holds anyway, and stored
with the result in the same transaction (``tables.statistics``).  Tables that finished
before the column came have none: :func:`fill_in` replays them once and stores what it
finds — in ``bodoge db upgrade`` (the deploy step, before any server serves), or else in
the server's first housekeeping pass, each replay in a worker thread so that a store of
many older games does not hold the event loop for minutes (about 5 ms a game).  Finding
that there is nothing to fill in reads an index of the tables without statistics
(``tables_unsummarised``), not every finished table.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from bodoge.core.game import Game
from bodoge.core.values import JSON
from bodoge.server.runtime.table import seat_statistics
from bodoge.store import StatisticsStore, TableBundle

log = logging.getLogger(__name__)

#: Tables replayed per query when filling in the statistics of older games.
BATCH = 50


def replayed_statistics(game: Game, bundle: TableBundle) -> list[dict[str, int]]:
    """The counts of a stored table, from its game replayed (no moves: nothing done)."""
    options = game.options(bundle.table.options)
    moves = [(m.seat, game.move_from_json(m.move)) for m in bundle.moves]
    if not moves:
        return []
    state = game.replay(options, len(bundle.seats), bundle.table.seed, moves)
    return seat_statistics(game, state, len(bundle.seats))


async def fill_in(store: StatisticsStore, games: Mapping[str, Game]) -> int:
    """Store the statistics of every finished table that has none; how many were filled.

    A table whose game is unknown here or cannot be replayed gets an empty list: it is
    looked at once, not at every start."""
    filled = 0
    while ids := await store.unsummarised_tables(BATCH):
        for table_id in ids:
            bundle = await store.load_table(table_id, chat=0)
            if bundle is None:
                continue
            game = games.get(bundle.table.game)
            counts: list[dict[str, int]] = []
            if game is not None:
                try:
                    counts = await asyncio.to_thread(replayed_statistics, game, bundle)
                except Exception:
                    log.warning("replaying %s for its statistics failed", table_id, exc_info=True)
            await store.save_statistics(table_id, counts)
            filled += 1
    return filled


#: A seat's outcome of a finished game, as its profile counts it.
WON, DRAW, LOST, ABANDONED = "won", "draw", "lost", "abandoned"


def outcome(result: Mapping[str, JSON] | None, seat: int) -> str:
    """How a finished game ended for ``seat``, from its stored result alone.

    A game nobody played to its end (no result, or the table's ``abandoned``) is neither
    won nor lost.  A draw is a game nobody won, or everybody did (a 2-player Tagiron draw
    gives both seats place 1; an Illustori table may stall with every hand alike): it is
    no win.  Otherwise a seat in first place won — shared or not (Illustori's shared wins)
    — and any other seat lost, ranked, unranked or eliminated alike.

    >>> [outcome({"places": p, "reason": "x"}, 0) for p in ([1, 2], [2, 1], [1, 1], [None, None])]
    ['won', 'lost', 'draw', 'draw']
    >>> outcome({"places": [1, 1, 2], "reason": "hand_emptied"}, 1), outcome(None, 0)
    ('won', 'abandoned')
    >>> outcome({"places": [None, None], "reason": "abandoned", "winners": []}, 0)
    'abandoned'
    """
    places = (result or {}).get("places")
    if not isinstance(places, list) or not places or (result or {}).get("reason") == ABANDONED:
        return ABANDONED
    winners = sum(1 for p in places if p == 1)
    if winners in (0, len(places)):
        return DRAW
    return WON if seat < len(places) and places[seat] == 1 else LOST


def add_up(totals: dict[str, int], counts: Mapping[str, int]) -> None:
    for key, value in counts.items():
        totals[key] = totals.get(key, 0) + int(value)


def figures(game: Game | None, totals: Mapping[str, int]) -> list[dict[str, JSON]]:
    """What a profile shows of a player's summed counts, as the game declares it."""
    if game is None:
        return []
    shown: list[dict[str, JSON]] = []
    for field in game.stat_fields:
        value = field.value(totals)
        shown.append(
            {**field.to_json(), "value": round(value, 4) if isinstance(value, float) else value}
        )
    return shown

"""Profiles and leaderboards over HTTP: a player's ratings (with their history drawn as
SVG by the server), recent games and statistics per game; the best rated players of a game.

What a profile shows is public: the name, whether it is an account, the ratings, the
finished games (the same anyone could open from the lobby's finished list, with the names
of their seats) and counts made from them.  Nothing else about a player leaves the server:
no token, no password or passkey, no account name (it may differ from the shown name),
nothing about running or waiting tables.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bodoge.core.game import Game
from bodoge.core.values import JSON
from bodoge.server.edge.api import played_game
from bodoge.server.edge.assets import error, picture_headers
from bodoge.server.services.ratings import ANCHOR, Rating, anchor_level, bot_key, shown
from bodoge.server.services.statistics import ABANDONED, DRAW, LOST, WON, add_up, figures, outcome
from bodoge.store import RatingRecord, TableBundle

if TYPE_CHECKING:
    from bodoge.server.edge.ports import Server

PLAYER_ID = re.compile(r"p_[a-z0-9]{4,30}")
GAME_ID = re.compile(r"[a-z0-9_]{1,64}")
#: Games listed on a profile, and games its statistics count (the most recent ones).
RECENT_GAMES = 20
STATS_GAMES = 200
#: Rated games a player needs to be on a leaderboard (``?min_games=`` changes it).
MIN_GAMES = 3
LEADERBOARD = 100


def profile_routes(server: Server) -> list[BaseRoute]:
    return [
        Route("/api/players/{player_id}", partial(profile, server)),
        Route("/api/players/{player_id}/ratings/{game}.svg", partial(rating_chart, server)),
        Route("/api/leaderboard/{game}", partial(leaderboard, server)),
    ]


def rating_json(record: RatingRecord) -> dict[str, JSON]:
    return {"game": record.game, **Rating(record.mu, record.sigma, record.games).to_json()}


async def profile(server: Server, request: Request) -> Response:
    player_id = request.path_params["player_id"]
    if player_id == "me" or not PLAYER_ID.fullmatch(player_id):
        return error(404, "unknown_player", "no such player")
    found = (await server.store.players([player_id])).get(player_id)
    if found is None:
        return error(404, "unknown_player", "no such player")
    account = await server.store.account(player_id)
    ratings = await server.store.ratings_of(player_id)
    bundles = await server.store.played_tables(player_id, STATS_GAMES)
    return JSONResponse(
        {
            "player": {"id": found.id, "name": found.name},
            "account": account is not None,
            "ratings": [rating_json(r) for r in ratings],
            "stats": stats(bundles, player_id, server.games),
            "games": [played_game(b, player_id) for b in bundles[:RECENT_GAMES]],
        }
    )


def stats(
    bundles: list[TableBundle], player_id: str, games: Mapping[str, Game] | None = None
) -> list[dict[str, JSON]]:
    """Per game: games finished; wins, draws, losses and abandoned games (by
    :func:`~bodoge.server.services.statistics.outcome`, as the recent-games list names
    them); the win rate over the games played to an end; places; games left before the
    end (a bot finished them); rated games; and the game's own figures
    (``Game.stat_fields``) from the seat's counts in the ``counted`` games that have them."""
    by_game: dict[str, dict[str, JSON]] = {}
    totals: dict[str, dict[str, int]] = {}
    for bundle in bundles:
        record = bundle.table
        seat = next(s for s in bundle.seats if player_id in (s.player, s.left))
        places = (record.result or {}).get("places")
        place = places[seat.seat] if isinstance(places, list) and seat.seat < len(places) else None
        row = by_game.setdefault(
            record.game,
            {
                "game": record.game,
                "games": 0,
                "wins": 0,
                "draws": 0,
                "losses": 0,
                "abandoned": 0,
                "win_rate": None,
                "places": {},
                "left": 0,
                "rated": 0,
                "counted": 0,
            },
        )
        row["games"] = int(row["games"]) + 1
        ended = outcome(record.result, seat.seat)
        tally = {WON: "wins", DRAW: "draws", LOST: "losses", ABANDONED: "abandoned"}[ended]
        row[tally] = int(row[tally]) + 1
        if ended != ABANDONED:  # an abandoned game placed nobody
            counts = row["places"]
            assert isinstance(counts, dict)
            label = str(place) if place is not None else "unranked"
            counts[label] = int(counts.get(label, 0)) + 1
        if seat.left == player_id:
            row["left"] = int(row["left"]) + 1
        if record.settings.get("rated"):
            row["rated"] = int(row["rated"]) + 1
        held = record.statistics or []
        if seat.seat < len(held):
            row["counted"] = int(row["counted"]) + 1
            add_up(totals.setdefault(record.game, {}), held[seat.seat])
    for game, row in by_game.items():
        decided = int(row["games"]) - int(row["abandoned"])
        row["win_rate"] = round(int(row["wins"]) / decided, 4) if decided else None
        row["places"] = dict(sorted(row["places"].items()))
        row["figures"] = figures((games or {}).get(game), totals.get(game, {}))
    return [by_game[g] for g in sorted(by_game)]


async def rating_chart(server: Server, request: Request) -> Response:
    player_id, game = request.path_params["player_id"], request.path_params["game"]
    if not PLAYER_ID.fullmatch(player_id) or not GAME_ID.fullmatch(game):
        return error(404, "unknown_player", "no such player")
    points = await server.store.rating_history(player_id, game)
    headers = {**picture_headers("image/svg+xml"), "Cache-Control": "no-cache"}
    svg = chart_svg([shown(Rating(p.mu, p.sigma)) for p in points])
    return Response(svg, media_type="image/svg+xml", headers=headers)


#: The chart's size (viewBox units) and margins.
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 320, 120, 40, 8, 10, 16


def chart_svg(values: list[int]) -> str:
    """A rating's history as a small SVG line chart: one point per rated game, the first
    and last values and the range on the left.  Only numbers: no words to translate.

    >>> svg = chart_svg([1000, 1040, 1020])
    >>> svg.count("<circle"), "points=" in svg, ">1040<" in svg
    (3, True, True)
    >>> "<polyline" in chart_svg([])
    False
    """
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}"'
        f' width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="10">',
        f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}"'
        f' height="{HEIGHT - TOP - BOTTOM}" fill="#f7f5f0" stroke="#e2ded5"/>',
    ]
    if values:
        low, high = min(values), max(values)
        if high - low < 20:
            middle = (high + low) / 2
            low, high = round(middle - 10), round(middle + 10)
        span_x = WIDTH - LEFT - RIGHT - 8
        span_y = HEIGHT - TOP - BOTTOM - 8

        def x(i: int) -> float:
            return LEFT + 4 + (span_x * i / (len(values) - 1) if len(values) > 1 else span_x / 2)

        def y(v: int) -> float:
            return TOP + 4 + span_y * (high - v) / (high - low)

        coords = [(round(x(i), 1), round(y(v), 1)) for i, v in enumerate(values)]
        for value in (high, low):
            parts.append(
                f'<text x="{LEFT - 4}" y="{round(y(value) + 3, 1)}" text-anchor="end"'
                f' fill="#56606b">{value}</text>'
            )
        points = " ".join(f"{a},{b}" for a, b in coords)
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="#0f6e66" stroke-width="2"'
            ' stroke-linejoin="round"/>'
        )
        parts.extend(f'<circle cx="{a}" cy="{b}" r="2.5" fill="#0f6e66"/>' for a, b in coords)
        parts.append(
            f'<text x="{coords[-1][0]}" y="{HEIGHT - 3}" text-anchor="end" fill="#1d2329"'
            f' font-weight="bold">{values[-1]}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


async def leaderboard(server: Server, request: Request) -> Response:
    game = request.path_params["game"]
    found = server.games.get(game)
    if found is None:
        return error(404, "unknown_game", "no such game")
    raw = request.query_params.get("min_games", str(MIN_GAMES))
    if not raw.isdigit() or int(raw) > 10_000:
        return error(400, "bad_request", "min_games is a whole number")
    least = int(raw)
    rows = await server.store.leaderboard(game, least, LEADERBOARD)
    names = await server.store.players([r.player for r in rows])
    players: list[JSON] = []
    for rank, r in enumerate((r for r in rows if r.player in names), start=1):
        person = {"id": r.player, "name": names[r.player].name}
        players.append({"rank": rank, "player": person, **rating_json(r)})
    bots: list[JSON] = []
    held = {r.player: r for r in await server.store.bot_ratings(game)}
    anchor = anchor_level(found.bot_levels)
    for level in found.bot_levels:
        record = held.get(bot_key(level))
        if level == anchor:
            bots.append({"level": level, "game": game, "anchor": True, **ANCHOR.to_json()})
        elif record is not None:
            bots.append({"level": level, "anchor": False, **rating_json(record)})
    return JSONResponse({"game": game, "min_games": least, "players": players, "bots": bots})

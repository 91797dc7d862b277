"""The HTTP API: counters, the games offered, the tables, finished games' histories and reviews.

Everything here reads; every change goes through the WebSocket
(:mod:`bodoge.server.edge.websocket`).  Errors are ``{"error": {"code", "message"}}``.
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bodoge.core.values import JSON
from bodoge.server.edge.account_api import request_device
from bodoge.server.edge.assets import error as http_error
from bodoge.server.runtime import settings
from bodoge.server.runtime.protocol import TABLE_ID, ProtocolError, iso
from bodoge.server.runtime.shown import ShownTable
from bodoge.server.runtime.stats import GC
from bodoge.server.services.collector import COLLECTOR
from bodoge.server.services.loop_watch import LOOP
from bodoge.store import TableBundle

if TYPE_CHECKING:
    from bodoge.server.edge.ports import Server

log = logging.getLogger(__name__)


def api_routes(server: Server) -> list[BaseRoute]:
    """The routes, bound to ``server``."""
    return [
        Route("/api/stats", partial(stats, server)),
        Route("/api/games", partial(games, server)),
        Route("/api/tables", partial(table_list, server)),
        Route("/api/tables/{table_id}", partial(table_summary, server)),
        Route("/api/tables/{table_id}/history", partial(history, server)),
        Route("/api/tables/{table_id}/review", partial(review, server)),
        Route("/api/players/me/games", partial(my_games, server)),
    ]


async def stats(server: Server, request: Request) -> Response:
    await server.count_decks()
    frozen = request.query_params.get("frozen") == "1"
    collector = {**GC.to_json(), **COLLECTOR.to_json(frozen=frozen)}
    live = len(server.tables.live)
    lobby = server.lobby.to_json()
    return JSONResponse(
        {
            **server.counters.to_json(),
            "tables": live,
            "gc": collector,
            "loop": LOOP.to_json(),
            "lobby": lobby,
        }
    )


async def games(server: Server, request: Request) -> Response:
    return JSONResponse(
        [
            {
                "id": g.id,
                "title": dict(g.title),
                "min_seats": g.min_seats,
                "max_seats": g.max_seats,
                "bot_levels": list(g.bot_levels),
                "defaults": g.options_json(g.options({})),
                # What a table shows of its options and settings (the waiting room).
                "fields": {
                    "options": [f.to_json() for f in g.option_fields],
                    "settings": settings.fields(g),
                },
            }
            for g in server.games.values()
        ]
    )


async def table_list(server: Server, request: Request) -> Response:
    status = request.query_params.get("status", "open")
    if status == "open":
        # The lobby's list: in a cluster, the tables every process runs.
        return JSONResponse({"tables": server.lobby.listing(server.tables.open_tables())})
    if status == "finished":
        records = await server.store.finished_tables(50)
        return JSONResponse(
            {
                "tables": [
                    {
                        "id": r.id,
                        "game": r.game,
                        "options": r.options,
                        "status": r.status,
                        "created_at": iso(r.created_at),
                        "finished_at": iso(r.finished_at),
                        "result": r.result,
                    }
                    for r in records
                ]
            }
        )
    return http_error(400, "bad_request", "status is open or finished")


async def _table(server: Server, request: Request) -> ShownTable | Response:
    table_id = request.path_params["table_id"]
    if not TABLE_ID.fullmatch(table_id):
        return http_error(404, "unknown_table", "no such table")
    try:
        return await server.tables.peek(table_id)
    except ProtocolError as exc:
        if exc.code == "table_unavailable":  # another process of the cluster runs it
            return http_error(503, exc.code, str(exc))
        return http_error(404, "unknown_table", "no such table")


async def table_summary(server: Server, request: Request) -> Response:
    table = await _table(server, request)
    if isinstance(table, Response):
        return table
    return JSONResponse(table.summary())


async def _finished_table(server: Server, request: Request, shown: str) -> ShownTable | Response:
    """The request's table if its game is over (what is ``shown`` only then), else an error."""
    table = await _table(server, request)
    if isinstance(table, ShownTable) and table.status != "finished":
        return http_error(409, "not_finished", f"the {shown} is shown once the game is over")
    return table


async def history(server: Server, request: Request) -> Response:
    table = await _finished_table(server, request, "history")
    if isinstance(table, Response):
        return table
    raw = request.query_params.get("seat")
    seat: int | None = None
    if raw is not None:
        if not raw.isdigit() or int(raw) >= len(table.seats):
            return http_error(400, "bad_seat", "no such seat at this table")
        seat = int(raw)
        # A seat's history holds what only that seat saw (its hand, its secret
        # votes): only the player holding the seat may read it.
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        try:
            bearer = token if scheme == "Bearer" else None
            player = await server.players.by_token(bearer, request_device(request))
        except ProtocolError:
            return http_error(403, "not_seated", "send the seat's token to see its history")
        if table.seat_of(player.id) != seat:
            return http_error(403, "not_seated", "only the seat's own player sees its history")
    return JSONResponse(table.history(seat))


#: Finished games' reviews kept (a finished game never changes, so neither does its review).
REVIEWS_KEPT = 64


async def review(server: Server, request: Request) -> Response:
    """A finished game's review, for every seat (the game's ``review``; worked out once)."""
    table = await _finished_table(server, request, "review")
    if isinstance(table, Response):
        return table
    kept = server.reviews
    found = kept.get(table.id)
    if found is not None:
        kept.move_to_end(table.id)
        return JSONResponse(found)
    # Visitors asking at once share one computation.
    running = server.reviews_running.get(table.id)
    if running is None:
        history = table.history(None)
        wanted = {k: history[k] for k in ("table", "seed", "options", "moves")}
        running = asyncio.ensure_future(server.bots.review(table.game.id, wanted))
        server.reviews_running[table.id] = running
        running.add_done_callback(lambda _: server.reviews_running.pop(table.id, None))
    try:
        found = await asyncio.shield(running)
    except Exception:
        log.exception("the review of table %s failed", table.id)
        return http_error(500, "internal_error", "the review failed")
    if found is None:
        return http_error(404, "no_review", f"{table.game.id} has no game review")
    kept[table.id] = found
    while len(kept) > REVIEWS_KEPT:
        kept.popitem(last=False)
    return JSONResponse(found)


#: The most finished games ``/api/players/me/games`` lists.
MY_GAMES = 50


async def my_games(server: Server, request: Request) -> Response:
    """The finished games of the player whose token comes in ``Authorization: Bearer``."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme != "Bearer" or not token:
        return http_error(401, "bad_token", "send your token as Authorization: Bearer")
    try:
        player = await server.players.by_token(token, request_device(request))
    except ProtocolError:
        return http_error(401, "bad_token", "no player has this token")
    bundles = await server.store.played_tables(player.id, MY_GAMES)
    games = [played_game(bundle, player.id) for bundle in bundles]
    return JSONResponse({"games": games})


def played_game(bundle: TableBundle, player_id: str) -> dict[str, JSON]:
    """A finished game as ``/api/players/me/games`` and a profile list it: ``you`` is the
    seat ``player_id`` held, each seat its name (a person's; a bot's is its level, a seat
    left mid-game names the person who left) and place."""
    record, names = bundle.table, bundle.players
    you = next(s.seat for s in bundle.seats if player_id in (s.player, s.left))
    places = (record.result or {}).get("places") or []
    if not isinstance(places, list):
        places = []
    seats: list[JSON] = []
    for s in bundle.seats:
        person = s.player if s.kind == "human" else s.left
        seats.append(
            {
                "seat": s.seat,
                "kind": s.kind,
                "name": names[person].name if person in names else None,
                "player": person if person in names else None,
                "level": s.level,
                "left": s.left is not None,
                "place": places[s.seat]
                if isinstance(places, list) and s.seat < len(places)
                else None,
            }
        )
    return {
        "id": record.id,
        "game": record.game,
        "options": record.options,
        "rated": bool(record.settings.get("rated", False)),
        "created_at": iso(record.created_at),
        "finished_at": iso(record.finished_at),
        "result": record.result,
        "you": you,
        "seats": seats,
    }

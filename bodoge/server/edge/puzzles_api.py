"""Puzzles over HTTP: the next puzzle for me, the daily puzzle, one puzzle, an answer, and a
player's puzzle ratings and answers (their profile).

Every route but the profile's names its player by ``Authorization: Bearer`` (a guest's
token too: guests play).  A puzzle is shown without its solution and without the game it
came from; the solution and the explanation come with the answer, or with the puzzle once
it was answered.  Errors are ``{"error": {"code", "message"}}`` and change nothing.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bodoge.server.edge.account_api import request_device
from bodoge.server.edge.assets import error
from bodoge.server.edge.profiles import PLAYER_ID
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.services.puzzles import PuzzleError
from bodoge.store import StoreUnavailable

if TYPE_CHECKING:
    from bodoge.server.edge.ports import Server

#: The largest answer body (a declaration is five tile codes).
MAX_BODY = 4096
#: Answers a profile lists.
RECENT = 20


def puzzle_routes(server: Server) -> list[BaseRoute]:
    def route(method: str, path: str, handler: Callable[..., Awaitable[Any]]) -> Route:
        async def endpoint(request: Request) -> Response:
            try:
                return JSONResponse(await handler(server, request))
            except PuzzleError as exc:
                return error(exc.status, exc.code, str(exc))
            except StoreUnavailable:
                return error(503, "store_unavailable", "the server cannot store anything now")

        return Route(path, endpoint, methods=[method])

    return [
        route("GET", "/api/puzzles/{game}/next", next_puzzle),
        route("GET", "/api/puzzles/{game}/daily", daily),
        route("GET", "/api/puzzles/{game}/{puzzle_id}", one),
        route("POST", "/api/puzzles/{game}/{puzzle_id}/answer", answer),
        route("GET", "/api/players/{player_id}/puzzles", history),
    ]


async def _me(server: Server, request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    try:
        player = await server.players.by_token(
            token if scheme == "Bearer" else "", request_device(request)
        )
    except ProtocolError:
        raise PuzzleError(401, "bad_token", "send your token: Authorization: Bearer") from None
    return player.id


async def next_puzzle(server: Server, request: Request) -> dict[str, Any]:
    me = await _me(server, request)
    kind = request.query_params.get("kind")
    return await server.puzzles.next(me, request.path_params["game"], kind)


async def daily(server: Server, request: Request) -> dict[str, Any]:
    me = await _me(server, request)
    return await server.puzzles.daily(me, request.path_params["game"])


async def one(server: Server, request: Request) -> dict[str, Any]:
    me = await _me(server, request)
    found = await server.puzzles.puzzle(me, request.path_params["puzzle_id"])
    if found["puzzle"]["game"] != request.path_params["game"]:
        raise PuzzleError(404, "unknown_puzzle", "no such puzzle")
    return found


async def answer(server: Server, request: Request) -> dict[str, Any]:
    me = await _me(server, request)
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise PuzzleError(413, "too_large", f"send at most {MAX_BODY} bytes")
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        raise PuzzleError(400, "bad_request", 'send a JSON object: {"answer": …}') from None
    if not isinstance(body, dict) or set(body) != {"answer"}:
        raise PuzzleError(400, "bad_request", 'send a JSON object: {"answer": …}')
    game, puzzle_id = request.path_params["game"], request.path_params["puzzle_id"]
    server.puzzles.book(game)
    found = await server.store.puzzle(puzzle_id)
    if found is not None and found.game != game:
        raise PuzzleError(404, "unknown_puzzle", "no such puzzle")
    return await server.puzzles.answer(me, puzzle_id, body["answer"])


async def history(server: Server, request: Request) -> dict[str, Any]:
    player_id = request.path_params["player_id"]
    if not PLAYER_ID.fullmatch(player_id):
        raise PuzzleError(404, "unknown_player", "no such player")
    if not await server.store.players([player_id]):
        raise PuzzleError(404, "unknown_player", "no such player")
    return await server.puzzles.history(player_id, RECENT)

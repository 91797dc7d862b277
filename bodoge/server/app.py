"""The Starlette application: HTTP endpoints, static files and the ``/ws`` WebSocket."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from bodoge.server.assets import asset_routes
from bodoge.server.assets import error as http_error
from bodoge.server.collector import COLLECTOR
from bodoge.server.config import ServerConfig
from bodoge.server.connection import Frame
from bodoge.server.protocol import TABLE_ID, ProtocolError, iso
from bodoge.server.service import Server
from bodoge.server.stats import GC, Counters
from bodoge.server.table import LiveTable

WEB_STATIC = Path(__file__).resolve().parent.parent / "web" / "static"

# Shown only while the front-end is not installed.
FALLBACK_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bodoge</title></head>
<body><h1>bodoge</h1><p>The server is running, but the web front-end is not installed.
See <code>docs/protocol.md</code> to write a client.</p></body></html>
"""

HTML_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": "object-src 'none'; base-uri 'self'; frame-ancestors 'self'",
}


class AssetFiles(StaticFiles):
    """Static files whose folder may appear later (or never): 404 until it exists."""

    async def check_config(self) -> None:
        if self.directory is not None and not Path(self.directory).is_dir():
            raise HTTPException(404)


class StarletteTransport:
    def __init__(self, websocket: WebSocket, counters: Counters) -> None:
        self.websocket = websocket
        self.counters = counters

    async def send(self, text: str) -> None:
        self.counters.frames_sent += 1
        await self.websocket.send_text(text)

    async def close(self, code: int) -> None:
        await self.websocket.close(code)


def game_web_dir(game: object) -> Path:
    """A game's browser assets: the ``web`` folder beside the module defining it."""
    return Path(inspect.getfile(type(game))).resolve().parent / "web"


def create_app(config: ServerConfig, *, on_ready: Callable[[], None] | None = None) -> Starlette:
    server = Server(config)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await server.start()
        app.state.server = server
        # Keep the collector's long passes away from the tables (bodoge/server/collector.py).
        COLLECTOR.start()
        GC.install()
        if on_ready is not None:
            on_ready()
        try:
            yield
        finally:
            COLLECTOR.stop()
            await server.stop()

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def stats(request: Request) -> Response:
        collector = {**GC.to_json(), **COLLECTOR.to_json()}
        live = len(server.tables.live)
        return JSONResponse({**server.counters.to_json(), "tables": live, "gc": collector})

    async def index(request: Request) -> Response:
        page = WEB_STATIC / "index.html"
        if page.is_file():
            return FileResponse(page, headers=HTML_HEADERS)
        return HTMLResponse(FALLBACK_PAGE, headers=HTML_HEADERS)

    async def games(request: Request) -> Response:
        return JSONResponse(
            [
                {
                    "id": g.id,
                    "title": dict(g.title),
                    "min_seats": g.min_seats,
                    "max_seats": g.max_seats,
                    "bot_levels": list(g.bot_levels),
                    "defaults": g.options_json(g.options({})),
                }
                for g in server.games.values()
            ]
        )

    async def table_list(request: Request) -> Response:
        status = request.query_params.get("status", "open")
        if status == "open":
            tables = [t.summary() for t in server.tables.open_tables()]
            return JSONResponse({"tables": sorted(tables, key=lambda t: t["created_at"])})
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

    async def _table(request: Request) -> LiveTable | Response:
        table_id = request.path_params["table_id"]
        if not TABLE_ID.fullmatch(table_id):
            return http_error(404, "unknown_table", "no such table")
        try:
            return await server.tables.get(table_id)
        except ProtocolError:
            return http_error(404, "unknown_table", "no such table")

    async def table_summary(request: Request) -> Response:
        table = await _table(request)
        if isinstance(table, Response):
            return table
        return JSONResponse(table.summary())

    async def history(request: Request) -> Response:
        table = await _table(request)
        if isinstance(table, Response):
            return table
        if table.status != "finished":
            return http_error(409, "not_finished", "the history is shown once the game is over")
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
                player = await server.players.by_token(token if scheme == "Bearer" else None)
            except ProtocolError:
                return http_error(403, "not_seated", "send the seat's token to see its history")
            if table.seat_of(player.id) != seat:
                return http_error(403, "not_seated", "only the seat's own player sees its history")
        return JSONResponse(table.history(seat))

    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        address = websocket.client.host if websocket.client else None
        counters = server.counters
        connection = server.connect(StarletteTransport(websocket, counters), address)
        counters.connections_open += 1
        counters.connections_total += 1

        async def receive() -> Frame:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return None
            text = message.get("text")
            return text if text is not None else message.get("bytes") or b""

        try:
            await connection.run(receive)
        finally:
            counters.connections_open -= 1

    routes: list[BaseRoute] = [
        Route("/", index),
        Route("/t/{table_id}", index),
        Route("/healthz", healthz),
        Route("/api/stats", stats),
        Route("/api/games", games),
        Route("/api/tables", table_list),
        Route("/api/tables/{table_id}", table_summary),
        Route("/api/tables/{table_id}/history", history),
        *asset_routes(server),
        WebSocketRoute("/ws", ws),
    ]
    for game in server.games.values():
        routes.append(
            Mount(
                f"/static/games/{game.id}",
                AssetFiles(directory=game_web_dir(game), check_dir=False),
            )
        )
    routes.append(Mount("/static", AssetFiles(directory=WEB_STATIC, check_dir=False)))
    return Starlette(routes=routes, lifespan=lifespan)

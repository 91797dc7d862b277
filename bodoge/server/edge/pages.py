"""The pages and static files: the one HTML page, the front-end's files and each game's.

* ``GET /``, ``/t/{table_id}``, ``/account``, ``/p/{player}``, ``/leaderboard`` and
  ``/games`` serve ``web/static/index.html`` (the front-end routes in the browser), or a
  short page saying it is not installed (its policy and other headers: ``edge/headers.py``);
* ``/static/…`` serves ``bodoge/web/static``, and ``/static/games/{game}/…``
  the ``web`` folder beside each game's module.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from bodoge.core.game import Game

WEB_STATIC = Path(__file__).resolve().parents[2] / "web" / "static"

# Shown only while the front-end is not installed.
FALLBACK_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bodoge</title></head>
<body><h1>bodoge</h1><p>The server is running, but the web front-end is not installed.
See <code>docs/protocol.md</code> to write a client.</p></body></html>
"""


class AssetFiles(StaticFiles):
    """Static files whose folder may appear later (or never): 404 until it exists."""

    async def check_config(self) -> None:
        if self.directory is not None and not Path(self.directory).is_dir():
            raise HTTPException(404)


def game_web_dir(game: object) -> Path:
    """A game's browser assets: the ``web`` folder beside the module defining it."""
    return Path(inspect.getfile(type(game))).resolve().parent / "web"


async def index(request: Request) -> Response:
    page = WEB_STATIC / "index.html"
    if page.is_file():
        return FileResponse(page)
    return HTMLResponse(FALLBACK_PAGE)


def page_routes() -> list[BaseRoute]:
    return [
        Route("/", index),
        Route("/t/{table_id}", index),
        Route("/account", index),
        Route("/p/{player_id}", index),
        Route("/leaderboard", index),
        Route("/games", index),
        Route("/puzzles", index),
    ]


def static_routes(games: Iterable[Game]) -> list[BaseRoute]:
    """The static files, each game's before the front-end's (whose mount takes the rest)."""
    routes: list[BaseRoute] = [
        Mount(
            f"/static/games/{game.id}",
            AssetFiles(directory=game_web_dir(game), check_dir=False),
        )
        for game in games
    ]
    routes.append(Mount("/static", AssetFiles(directory=WEB_STATIC, check_dir=False)))
    return routes

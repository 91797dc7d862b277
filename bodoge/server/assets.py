"""HTTP routes for pictures: game files drawn on the fly, and uploaded decks.

* ``GET /api/games/{game}/assets/{path}`` serves ``game.asset(path)`` (card art,
  say), cached for long: the same path always gives the same bytes.
* ``POST /api/decks`` takes a multipart upload of PNG, JPEG or WebP pictures,
  checks each and redraws it as WebP (:mod:`bodoge.games.illustori.custom_deck`;
  the checks know nothing of any game's rules), stores them under a new random
  deck id and answers ``{"deck": id, "count": n}``.
* ``GET /api/decks/{deck}/{n}`` serves card ``n`` of an uploaded deck: picture
  ``n`` mod the deck's size, so a deck of fewer pictures than a table has
  cards shows them again.

Everything served here is an image or JSON that no page may run: SVG and
pictures get ``X-Content-Type-Options: nosniff`` and a Content-Security-Policy
that forbids scripts.  Errors are ``{"error": {"code", "message"}}``.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bodoge.server.protocol import now_ms
from bodoge.store import Conflict

if TYPE_CHECKING:
    from bodoge.server.service import Server

#: The largest upload (all pictures of one deck together).  The web page
#: shrinks big photos before sending, so a full deck stays well under it.
MAX_UPLOAD_BYTES = 48 * 1024 * 1024
#: Card numbers served from an uploaded deck (a table has at most 200 cards).
MAX_CARD = 200
CACHE = "public, max-age=604800, immutable"
#: No script, no fetch, no frame: an SVG opened on its own cannot run anything.
PICTURE_CSP = "default-src 'none'; style-src 'unsafe-inline'"

DECK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
NUMBER = re.compile(r"0|[1-9][0-9]{0,5}")


class UploadTooLarge(Exception):
    pass


def error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def picture_headers(media_type: str) -> dict[str, str]:
    headers = {"Cache-Control": CACHE, "X-Content-Type-Options": "nosniff"}
    if media_type.startswith("image/"):
        headers["Content-Security-Policy"] = PICTURE_CSP
    return headers


def asset_routes(server: Server) -> list[BaseRoute]:
    """The routes, bound to ``server`` (its store is read when a request comes)."""

    async def game_asset(request: Request) -> Response:
        game = server.games.get(request.path_params["game"])
        if game is None:
            return error(404, "unknown_game", "no such game")
        found = await run_in_threadpool(game.asset, request.path_params["path"])
        if found is None:
            return error(404, "not_found", "no such file")
        content, media_type = found
        return Response(content, media_type=media_type, headers=picture_headers(media_type))

    async def upload_deck(request: Request) -> Response:
        from bodoge.games.illustori.custom_deck import MAX_IMAGES, CustomDeckError, custom_deck

        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            return error(400, "bad_upload", "send the pictures as multipart/form-data")
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_UPLOAD_BYTES:
            return _too_large()
        parser = MultiPartParser(
            request.headers,
            _limited(request.stream(), MAX_UPLOAD_BYTES),
            max_files=MAX_IMAGES + 1,
            max_fields=0,
        )
        try:
            form = await parser.parse()
        except UploadTooLarge:
            return _too_large()
        except MultiPartException as exc:
            return error(400, "bad_upload", f"the upload could not be read: {exc.message}")
        uploads: list[tuple[str | None, bytes]] = []
        try:
            for _, value in form.multi_items():
                if isinstance(value, str):
                    return error(400, "bad_upload", "only picture files may be sent")
                uploads.append((value.filename, await value.read()))
        finally:
            await form.close()
        try:
            pictures = await run_in_threadpool(custom_deck, uploads)
        except CustomDeckError as exc:
            return error(400, exc.code, str(exc))
        rows = [(p.data, p.media_type) for p in pictures]
        for _ in range(3):  # a clash of 80 random bits will not happen; still, never overwrite
            deck_id = "d" + secrets.token_hex(10)
            try:
                await server.store.add_deck(deck_id, rows, now_ms())
            except Conflict:
                continue
            return JSONResponse({"deck": deck_id, "count": len(rows)}, status_code=201)
        return error(500, "internal_error", "no deck id was free")

    async def deck_picture(request: Request) -> Response:
        deck_id, raw = request.path_params["deck"], request.path_params["n"]
        if not DECK_ID.fullmatch(deck_id) or not NUMBER.fullmatch(raw) or int(raw) >= MAX_CARD:
            return error(404, "not_found", "no such picture")
        count = await server.store.deck_count(deck_id)
        found = await server.store.deck_picture(deck_id, int(raw) % count) if count else None
        if found is None:
            return error(404, "not_found", "no such picture")
        content, media_type = found
        return Response(content, media_type=media_type, headers=picture_headers(media_type))

    return [
        Route("/api/games/{game}/assets/{path:path}", game_asset),
        Route("/api/decks", upload_deck, methods=["POST"]),
        Route("/api/decks/{deck}/{n}", deck_picture),
    ]


def _too_large() -> JSONResponse:
    return error(413, "upload_too_large", f"an upload is at most {MAX_UPLOAD_BYTES // 2**20} MB")


async def _limited(stream: AsyncIterator[bytes], limit: int) -> Any:
    """The request body, stopped with :class:`UploadTooLarge` once it passes ``limit`` bytes."""
    size = 0
    async for chunk in stream:
        size += len(chunk)
        if size > limit:
            raise UploadTooLarge
        yield chunk

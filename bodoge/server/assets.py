"""HTTP routes for pictures: game files drawn on the fly, and uploaded picture sets.

* ``GET /api/games/{game}/assets/{path}`` serves ``game.asset(path)`` (card art,
  say), cached for long: the same path always gives the same bytes.
* ``POST /api/decks`` takes a multipart upload of PNG, JPEG or WebP pictures,
  checks each and redraws it as WebP (:mod:`bodoge.server.pictures`), stores
  them as a set under a new random id and answers ``{"deck": id, "count": n}``
  (the protocol calls an uploaded set a deck).
* ``GET /api/decks/{deck}/{n}`` serves picture ``n`` mod the set's size, so a
  game may number more cards than the set has pictures: they come round again.

No game is named here: a game's options name a set by its id, and its page
shows the pictures.

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

from bodoge.server.pictures import MAX_PICTURES, PictureError, clean_pictures
from bodoge.server.protocol import now_ms
from bodoge.store import Conflict

if TYPE_CHECKING:
    from bodoge.server.service import Server

#: The largest upload (all pictures of one set together).  A page should
#: shrink big photos before sending, so that a full set stays well under it.
MAX_UPLOAD_BYTES = 48 * 1024 * 1024
#: Picture numbers served are below this: enough for the largest deck a game shows
#: with uploaded pictures (200 cards), and a bounded number of URLs for each set.
MAX_NUMBER = 200
CACHE = "public, max-age=604800, immutable"
#: No script, no fetch, no frame: an SVG opened on its own cannot run anything.
PICTURE_CSP = "default-src 'none'; style-src 'unsafe-inline'"

SET_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
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

    async def upload_pictures(request: Request) -> Response:
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            return error(400, "bad_upload", "send the pictures as multipart/form-data")
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_UPLOAD_BYTES:
            return _too_large()
        parser = MultiPartParser(
            request.headers,
            _limited(request.stream(), MAX_UPLOAD_BYTES),
            max_files=MAX_PICTURES + 1,
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
            pictures = await run_in_threadpool(clean_pictures, uploads)
        except PictureError as exc:
            return error(400, exc.code, str(exc))
        rows = [(p.data, p.media_type) for p in pictures]
        for _ in range(3):  # a clash of 80 random bits will not happen; still, never overwrite
            set_id = "d" + secrets.token_hex(10)
            try:
                await server.store.add_picture_set(set_id, rows, now_ms())
            except Conflict:
                continue
            return JSONResponse({"deck": set_id, "count": len(rows)}, status_code=201)
        return error(500, "internal_error", "no deck id was free")

    async def picture(request: Request) -> Response:
        set_id, raw = request.path_params["deck"], request.path_params["n"]
        if not SET_ID.fullmatch(set_id) or not NUMBER.fullmatch(raw) or int(raw) >= MAX_NUMBER:
            return error(404, "not_found", "no such picture")
        size = await server.store.picture_set_size(set_id)
        found = await server.store.picture(set_id, int(raw) % size) if size else None
        if found is None:
            return error(404, "not_found", "no such picture")
        content, media_type = found
        return Response(content, media_type=media_type, headers=picture_headers(media_type))

    return [
        Route("/api/games/{game}/assets/{path:path}", game_asset),
        Route("/api/decks", upload_pictures, methods=["POST"]),
        Route("/api/decks/{deck}/{n}", picture),
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

"""HTTP routes for pictures: game files drawn on the fly, and uploaded picture sets.

* ``GET /api/games/{game}/assets/{path}`` serves ``game.asset(path)`` (card art,
  say), cached for long: the same path always gives the same bytes.
* ``POST /api/decks`` takes a multipart upload of PNG, JPEG or WebP pictures,
  checks each and redraws it as WebP (:mod:`bodoge.server.edge.pictures`), stores
  them as a set under a new random id and answers ``{"deck": id, "count": n}``
  (the protocol calls an uploaded set a deck).  Only a player may upload: their
  token comes in ``Authorization: Bearer``, a header another site cannot make a
  browser send.  Uploads count against quotas (:class:`~bodoge.server.runtime.config.Quotas`):
  per client address an hour, decks and bytes per player, and bytes for the server.
* ``GET /api/decks/{deck}/{n}`` serves picture ``n`` mod the set's size, so a
  game may number more cards than the set has pictures: they come round again.

No game is named here: a game's options name a set by its id, and its page
shows the pictures.

Everything served here is an image or JSON that no page may run: SVG and
pictures get ``X-Content-Type-Options: nosniff`` and a Content-Security-Policy
that forbids scripts.  Errors are ``{"error": {"code", "message"}}``.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING, BinaryIO

from starlette.concurrency import run_in_threadpool
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bodoge.server.edge.decoding import BUSY_RETRY, Busy, Decoder
from bodoge.server.edge.pictures import MAX_PICTURES, Picture, PictureError, TooManyPixels
from bodoge.server.runtime.protocol import ProtocolError, now_ms
from bodoge.server.services.decks import SET_ID
from bodoge.store import Conflict, StoreUnavailable

if TYPE_CHECKING:
    from bodoge.server.edge.ports import Server

#: The largest upload (all pictures of one set together).  A page should
#: shrink big photos before sending, so that a full set stays well under it.
MAX_UPLOAD_BYTES = 48 * 1024 * 1024
#: Picture numbers served are below this: enough for the largest deck a game shows
#: with uploaded pictures (200 cards), and a bounded number of URLs for each set.
MAX_NUMBER = 200
CACHE = "public, max-age=604800, immutable"
#: No script, no fetch, no frame: an SVG opened on its own cannot run anything.
PICTURE_CSP = "default-src 'none'; style-src 'unsafe-inline'"

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

    uploads = server.uploads
    # Pictures are decoded a few at a time, off the event loop, within budgets (decoding.py).
    decoder = Decoder()
    # One upload at a time between a player's quotas being checked and the set stored, so
    # that two uploads at once cannot both pass them.
    storing = asyncio.Lock()

    async def upload_pictures(request: Request) -> Response:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        try:
            player = await server.players.by_token(token if scheme == "Bearer" else None)
        except ProtocolError:
            return error(401, "bad_token", "send your token: Authorization: Bearer <token>")
        address = request.client.host if request.client else ""
        wait = await uploads.try_take(address)
        if wait:
            return refused(
                429,
                "upload_rate_limited",
                f"too many uploads from your address; the next one in {wait} s",
                headers={"Retry-After": str(wait)},
            )
        full = await _over_quota(player.id, 0)  # before reading 48 MB for nothing
        if full is not None:
            return full
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            return error(400, "bad_upload", "send the pictures as multipart/form-data")
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_UPLOAD_BYTES:
            return refused(*TOO_LARGE)
        try:
            async with decoder.turn():
                return await _read_and_store(request, player.id)
        except Busy:
            return refused(
                503,
                "uploads_busy",
                "the server is busy with other uploads; try again in a few seconds",
                headers={"Retry-After": str(BUSY_RETRY)},
            )

    async def _read_and_store(request: Request, player_id: str) -> Response:
        parser = MultiPartParser(
            request.headers,
            _limited(request.stream(), MAX_UPLOAD_BYTES),
            max_files=MAX_PICTURES + 1,
            max_fields=0,
        )
        try:
            form = await parser.parse()
        except UploadTooLarge:
            return refused(*TOO_LARGE)
        except MultiPartException as exc:
            return error(400, "bad_upload", f"the upload could not be read: {exc.message}")
        try:
            files: list[tuple[str | None, BinaryIO]] = []
            for _, value in form.multi_items():
                if isinstance(value, str):
                    return error(400, "bad_upload", "only picture files may be sent")
                files.append((value.filename, value.file))
            # What the pictures will cost, from their headers, before any is decoded.
            q = server.config.quotas
            try:
                pixels = await decoder.measure(files, q.upload_megapixels * 1_000_000)
            except TooManyPixels as exc:
                return refused(413, exc.code, str(exc))
            except PictureError as exc:
                return error(400, exc.code, str(exc))
            wait = await server.upload_pixels.try_take(player_id, pixels / 1_000_000)
            if wait:
                return refused(
                    429,
                    "pixel_rate_limited",
                    f"your uploads hold too many pixels for now; the next one in {wait} s",
                    headers={"Retry-After": str(wait)},
                )
            try:
                pictures = await decoder.clean(files)
            except PictureError as exc:
                return error(400, exc.code, str(exc))
        finally:
            await form.close()
        return await _store(pictures, player_id)

    async def _store(pictures: tuple[Picture, ...], player_id: str) -> Response:
        rows = [(p.data, p.media_type) for p in pictures]
        size = sum(len(p.data) for p in pictures)
        async with storing:
            full = await _over_quota(player_id, size)
            if full is not None:
                return full
            for _ in range(3):  # a clash of 80 random bits will not happen; still, never overwrite
                set_id = "d" + secrets.token_hex(10)
                try:
                    await server.store.add_picture_set(set_id, rows, now_ms(), player_id)
                except Conflict:
                    continue
                except StoreUnavailable:
                    return error(
                        503, "store_unavailable", "the server cannot store pictures now; try later"
                    )
                counters = server.counters
                counters.uploads_stored += 1
                counters.upload_bytes_stored += size
                counters.decks_kept += 1
                counters.deck_bytes_kept += size
                return JSONResponse({"deck": set_id, "count": len(rows)}, status_code=201)
        return error(500, "internal_error", "no deck id was free")

    def refused(
        status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> JSONResponse:
        """An upload refused for a limit (a rate, a quota, a size): counted by its code."""
        server.counters.refused(code)
        response = error(status, code, message)
        response.headers.update(headers or {})
        return response

    async def _over_quota(player_id: str, adding: int) -> JSONResponse | None:
        """The refusal if one more set of ``adding`` bytes would pass a quota."""
        q = server.config.quotas
        count, used = await server.store.picture_usage(player_id)
        if q.decks_per_player and count + 1 > q.decks_per_player:
            return refused(
                403,
                "too_many_decks",
                f"you keep {count} uploaded decks, as many as one may"
                f" ({q.decks_per_player}); unused ones are deleted after a while",
            )
        if q.deck_bytes_per_player and used + max(adding, 1) > q.deck_bytes_per_player:
            return refused(
                403,
                "too_many_deck_bytes",
                f"your uploaded decks would pass {_mb(q.deck_bytes_per_player)} in all",
            )
        if q.deck_bytes_total:
            _, total = await server.store.picture_usage()
            if total + max(adding, 1) > q.deck_bytes_total:
                return refused(
                    507, "server_full", "this server keeps no more uploaded pictures for now"
                )
        return None

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


def _mb(size: int) -> str:
    """
    >>> _mb(100 * 2**20)
    '100 MB'
    """
    return f"{size / 2**20:g} MB"


TOO_LARGE = (413, "upload_too_large", f"an upload is at most {MAX_UPLOAD_BYTES // 2**20} MB")


async def _limited(stream: AsyncIterator[bytes], limit: int) -> AsyncGenerator[bytes, None]:
    """The request body, stopped with :class:`UploadTooLarge` once it passes ``limit`` bytes."""
    size = 0
    async for chunk in stream:
        size += len(chunk)
        if size > limit:
            raise UploadTooLarge
        yield chunk

"""Every HTTP request that meets a database gone away answers 503 ``store_unavailable``.

The WebSocket's requests already do (``Connection``); without this, an HTTP read that met a
restarting PostgreSQL (a table, the statistics, a history) answered 500 with a traceback in the
log, or dropped the connection. One middleware, so no endpoint can forget it.
"""

from __future__ import annotations

import logging

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bodoge.store import is_unavailable

log = logging.getLogger(__name__)

BODY = orjson.dumps(
    {
        "error": {
            "code": "store_unavailable",
            "message": "the server cannot reach its database now; try again in a moment",
        }
    }
)


class StoreUnavailableAnswers:
    """ASGI middleware: an exception that :func:`is_unavailable` recognises becomes a 503."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as exc:
            if not is_unavailable(exc) or started:
                raise
            log.warning("%s %s: the store cannot be reached", scope["method"], scope["path"])
            await send(
                {
                    "type": "http.response.start",
                    "status": 503,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(BODY)).encode()),
                        (b"retry-after", b"5"),
                        (b"x-content-type-options", b"nosniff"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": BODY})

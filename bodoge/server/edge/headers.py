"""The headers every HTTP answer carries: the page policy, ``nosniff``, the referrer policy.

:class:`SecurityHeaders` is a plain ASGI middleware around every route, so that no answer
goes without them — a page, a script, JSON, a picture, a 404 of the router, a 405 — and
:func:`server_error` gives them to the 500 that Starlette's outermost layer sends when a
route raises.  A route that set its own ``Content-Security-Policy`` keeps it (pictures:
``assets.PICTURE_CSP``); every other answer gets :data:`PAGE_POLICY`.

The page policy allows nothing but the server's own files: no inline script or style (the
front-end has none; setting ``element.style`` from a script is not inline style), no
``eval``, no plugin, no ``<base>`` elsewhere, no framing by another site.  ``connect-src
'self'`` covers the page's WebSocket on the same host (``ws:``/``wss:``, CSP Level 3).
``tests/e2e/conftest.py`` fails every browser test on a violation.
"""

from __future__ import annotations

from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The policy of the page (and of any answer that sets none of its own).
PAGE_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'self'",
    )
)

#: Headers every answer carries, whatever its route set.
ALWAYS = {
    # A script or style sheet must be served as one: no answer is guessed into another type.
    "X-Content-Type-Options": "nosniff",
    # A table's address (``/t/…``) stays on this site.
    "Referrer-Policy": "same-origin",
}
_ALWAYS_RAW = [(k.lower().encode(), v.encode()) for k, v in ALWAYS.items()]
_POLICY = b"content-security-policy"


class SecurityHeaders:
    """Adds :data:`ALWAYS`, and :data:`PAGE_POLICY` where the route set no policy."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = secured(list(message.get("headers", ())))
            await send(message)

        await self.app(scope, receive, send_secured)


def secured(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``headers`` with :data:`ALWAYS` (replacing a route's) and a policy if none was set."""
    names = {k for k, _ in _ALWAYS_RAW}
    kept = [(k, v) for k, v in headers if k.lower() not in names]
    if not any(k.lower() == _POLICY for k, _ in kept):
        kept.append((_POLICY, PAGE_POLICY.encode()))
    return [*kept, *_ALWAYS_RAW]


async def server_error(request: Request, exc: Exception) -> Response:
    """The 500 of a route that raised: sent outside every middleware, so secured here."""
    response = JSONResponse(
        {"error": {"code": "internal_error", "message": "the server failed; try again"}},
        status_code=500,
    )
    response.headers.update({**ALWAYS, "Content-Security-Policy": PAGE_POLICY})
    return response


#: What :func:`~bodoge.server.edge.app.create_app` gives Starlette.
MIDDLEWARE = [Middleware(SecurityHeaders)]
EXCEPTION_HANDLERS = {500: server_error}

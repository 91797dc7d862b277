"""Requests another site's page makes a browser send: refused before any route runs.

A page of any site can make its visitors' browsers send requests here: a form, or a
``fetch`` with a "simple" content type (``text/plain``, a form's), goes without asking
the server first (no CORS preflight), and a WebSocket may be opened to any server. The
answers stay unread by that page, but what the request does is done: a sign-in tried with
a wrong password spends the throttle of the account it names. So, for every request that
may change something (any method but ``GET``, ``HEAD`` and ``OPTIONS``) and every
WebSocket handshake:

* **Origin.** A browser names the page's origin in ``Origin`` (always, for those
  requests); it must be the server's own — the origin of the request itself (its scheme,
  the one a trusted proxy forwarded included, its ``Host``) — or one of the configured
  public origins (``--public-origin``, the address browsers see behind a proxy). Any
  other, and ``null`` (a sandboxed frame, a file), is refused: ``403 foreign_origin``, and
  a WebSocket handshake gets HTTP 403. A request without ``Origin`` comes from a program,
  not a page (browsers always send one here): it is let through, since it can only spend
  what its own sender could spend anyway.
* **Content type.** A request with a body must say ``Content-Type: application/json``
  (``multipart/form-data`` for ``POST /api/decks``, an upload of files), and a request
  without one may say nothing else: ``415 unsupported_media_type``. A JSON request from
  another site needs a preflight, which this server never answers with a yes.
* **One exception**: ``POST /unsubscribe/{token}``, an e-mail's one-click unsubscribe
  (RFC 8058), comes as a form from a mail program or from anywhere; the signed token is
  its authority (``edge/notify_api.py``).

Both refusals change nothing and are counted by code in ``GET /api/stats``.

>>> same_origin("https://Games.Example.org:443", "https://games.example.org")
True
>>> same_origin("http://games.example.org:8000", "http://games.example.org")
False
>>> same_origin("null", "null")
False
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from starlette.responses import JSONResponse

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Methods that change nothing: never checked.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
JSON_TYPE = "application/json"
#: The one route that takes files, and what it takes.
UPLOADS = ("POST", "/api/decks", "multipart/form-data")
#: The one-click unsubscribe of an e-mail (RFC 8058): a mail program (or the page's button)
#: posts a form from anywhere.  The signed token in the path is the whole authority, so a
#: page of another site can do nothing with it that its holder could not.
ONE_CLICK = "/unsubscribe/"
FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_WEB_SCHEMES = {"ws": "http", "wss": "https"}


def normal_origin(text: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an origin (``None``: not an http(s) origin)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    if parts.query or parts.fragment or parts.username or parts.password:
        return None
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[scheme]


def same_origin(a: str, b: str) -> bool:
    """Whether two origins are one (scheme, host and port; a default port or none alike)."""
    first = normal_origin(a)
    return first is not None and first == normal_origin(b)


def check_public_origin(text: str) -> str:
    """A ``--public-origin`` value, or :class:`ValueError`.

    >>> check_public_origin("https://games.example.org/")
    'https://games.example.org'
    >>> check_public_origin("games.example.org")
    Traceback (most recent call last):
    ...
    ValueError: an origin is a scheme and a host (and a port): https://games.example.org
    """
    if normal_origin(text) is None:
        raise ValueError("an origin is a scheme and a host (and a port): https://games.example.org")
    return text.strip().rstrip("/")


def own_origin(scope: Scope) -> str:
    """The origin a request was sent to: its scheme (``ws`` as ``http``) and ``Host``."""
    scheme = str(scope.get("scheme", "http"))
    scheme = _WEB_SCHEMES.get(scheme, scheme)
    host = _header(scope, b"host")
    if not host:
        server = scope.get("server") or ("", None)
        host = f"{server[0]}:{server[1]}" if server[1] else str(server[0])
    return f"{scheme}://{host}"


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


class SameOrigin:
    """The ASGI middleware that refuses other sites' requests (see the module's text)."""

    def __init__(
        self, app: App, *, public: Sequence[str] = (), refused: Callable[[str], None]
    ) -> None:
        self.app = app
        self.public = tuple(public)
        self.refused = refused

    def allowed(self, scope: Scope, origin: str) -> bool:
        return any(same_origin(origin, o) for o in (own_origin(scope), *self.public))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "websocket":
            origin = _header(scope, b"origin")
            if origin is not None and not self.allowed(scope, origin):
                self.refused("foreign_origin")
                await receive()  # the handshake's websocket.connect
                await send({"type": "websocket.close", "code": 1008})  # HTTP 403
                return
        elif kind == "http" and scope["method"] not in SAFE_METHODS:
            refusal = self._refusal(scope)
            if refusal is not None:
                status, code, message = refusal
                self.refused(code)
                body = {"error": {"code": code, "message": message}}
                await JSONResponse(body, status_code=status)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        declared = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
        if scope["method"] == "POST" and str(scope["path"]).startswith(ONE_CLICK):
            if declared and declared not in FORM_TYPES:
                return 415, "unsupported_media_type", "send a form (List-Unsubscribe=One-Click)"
            return None
        origin = _header(scope, b"origin")
        if origin is not None and not self.allowed(scope, origin):
            return 403, "foreign_origin", "requests from another site's pages are refused"
        method, path, upload_type = UPLOADS
        wanted = upload_type if (scope["method"], scope["path"]) == (method, path) else JSON_TYPE
        length = _header(scope, b"content-length")
        has_body = _header(scope, b"transfer-encoding") is not None or (
            length is not None and length.strip() not in ("", "0")
        )
        if (declared or has_body) and declared != wanted:
            return 415, "unsupported_media_type", f"send Content-Type: {wanted}"
        return None

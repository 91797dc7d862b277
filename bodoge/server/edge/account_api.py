"""HTTP routes of accounts (:mod:`bodoge.server.services.accounts`): keep a name, sign in and out,
passwords and passkeys.

Every request is JSON; a player's requests carry their token in ``Authorization: Bearer``
(a header, not a cookie, so another site cannot make a browser send them).  Answers are
JSON, errors ``{"error": {"code", "message"}}`` (429 with ``Retry-After``), and a refused
request changes nothing.  A passkey is bound to the host name the page was opened on: the
origin WebAuthn checks is this request's (scheme, host and port), as the browser saw it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bodoge.server.edge.assets import error
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.services.accounts import AccountError, Accounts, Origin
from bodoge.server.services.devices import Device, device
from bodoge.server.services.identity import Player
from bodoge.store import StoreUnavailable

if TYPE_CHECKING:
    from bodoge.server.edge.ports import Server

#: The largest JSON body an account request may send (a passkey's answer is ~1-2 KB).
MAX_BODY = 16 * 1024

#: What a handler answers: JSON (sent with its route's status) or a whole response.
Answer = dict[str, Any] | Response


@dataclass(frozen=True)
class Call:
    """One account request as its handler gets it: read, its player checked."""

    server: Server
    request: Request
    #: The JSON object sent (``{}`` for a route that reads no body).
    body: dict[str, Any]
    #: The player of the bearer token (``None`` for a route that needs none).
    player: Player | None

    @property
    def me(self) -> Player:
        assert self.player is not None, "a route that needs a player"
        return self.player

    @property
    def accounts(self) -> Accounts:
        return self.server.accounts

    def get(self, key: str) -> Any:
        return self.body.get(key)

    @property
    def token(self) -> str:
        return _bearer(self.request)

    @property
    def address(self) -> str:
        return self.request.client.host if self.request.client else ""

    @property
    def device(self) -> Device:
        return request_device(self.request)

    @property
    def origin(self) -> Origin:
        # The page's own origin as its browser named it (SameOrigin let only the server's
        # through): behind a proxy it is the public one, which the request's URL is not.
        sent = self.request.headers.get("origin")
        if sent is not None:
            parts = urlsplit(sent)
            return Origin(sent, parts.hostname or "")
        url = self.request.url
        return Origin(f"{url.scheme}://{url.netloc}", url.hostname or "")


Handler = Callable[[Call], Awaitable[Answer]]


def adapted(
    server: Server,
    method: str,
    path: str,
    handler: Handler,
    *,
    player: bool = True,
    body: bool = False,
    status: int = 200,
) -> Route:
    """A route whose handler takes a :class:`Call` (its body read, its player checked) and
    answers JSON; :class:`Refused` and the store's unavailability become error answers."""

    async def endpoint(request: Request) -> Response:
        return await _answer(server, request, handler, player, body, status)

    return Route(path, endpoint, methods=[method])


def account_routes(server: Server) -> list[BaseRoute]:
    s = server
    return [
        adapted(s, "GET", "/api/account", describe),
        adapted(s, "POST", "/api/account", keep_name, body=True, status=201),
        adapted(s, "POST", "/api/account/password", change_password, body=True),
        adapted(s, "DELETE", "/api/account/password", remove_password),
        adapted(s, "POST", "/api/account/passkeys/options", passkey_options, body=True),
        adapted(s, "POST", "/api/account/passkeys", add_passkey, body=True, status=201),
        adapted(s, "DELETE", "/api/account/passkeys/{passkey}", remove_passkey),
        adapted(s, "DELETE", "/api/account/devices/{device}", end_device),
        adapted(s, "POST", "/api/sign-in", sign_in, player=False, body=True),
        adapted(s, "POST", "/api/sign-in/passkey/options", sign_in_options, player=False),
        adapted(s, "POST", "/api/sign-in/passkey", sign_in_passkey, player=False, body=True),
        adapted(s, "POST", "/api/sign-out", sign_out),
        adapted(s, "POST", "/api/sign-out/everywhere", sign_out_everywhere),
    ]


class _Refused(Exception):
    def __init__(self, response: Response, code: str) -> None:
        self.response = response
        self.code = code


def _refused(status: int, code: str, message: str) -> _Refused:
    return _Refused(error(status, code, message), code)


def refused(status: int, code: str, message: str) -> Exception:
    """The error a handler raises to answer ``status`` with ``code`` (changing nothing)."""
    return _refused(status, code, message)


async def _answer(
    server: Server, request: Request, handler: Handler, player: bool, body: bool, status: int
) -> Response:
    """The one adapter between HTTP and :class:`Accounts`: read the body, check the
    player, run the handler, and turn what it answers or raises into a response."""
    try:
        call = Call(
            server,
            request,
            await _body(request) if body else {},
            await _player(server, request) if player else None,
        )
        answer = await handler(call)
    except _Refused as exc:
        server.counters.refused(exc.code)
        return exc.response
    except AccountError as exc:
        server.counters.refused(exc.code)  # counted if it is a refusal (a rate, a quota)
        response = error(exc.status, exc.code, str(exc))
        if exc.retry is not None:
            response.headers["Retry-After"] = str(exc.retry)
        return response
    except StoreUnavailable:
        return error(503, "store_unavailable", "the server cannot store anything now; try later")
    return answer if isinstance(answer, Response) else JSONResponse(answer, status_code=status)


def request_device(request: Request) -> Device:
    """Where an HTTP request comes from: its client address (uvicorn's, through the trusted
    proxies) and the browser its ``User-Agent`` names."""
    address = request.client.host if request.client else ""
    return device(address, request.headers.get("user-agent"))


def _bearer(request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token if scheme == "Bearer" else ""


async def _player(server: Server, request: Request) -> Player:
    try:
        return await server.players.by_token(_bearer(request), request_device(request))
    except ProtocolError:
        raise _refused(401, "bad_token", "send your token: Authorization: Bearer") from None


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise _refused(413, "too_large", f"send at most {MAX_BODY} bytes")
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        raise _refused(400, "bad_request", "send a JSON object") from None
    if not isinstance(body, dict):
        raise _refused(400, "bad_request", "send a JSON object")
    return body


def _signed_in(player: Player, token: str) -> Answer:
    return {"player": player.to_json(), "token": token}


# --- the routes: each says what it does, the adapter does the rest -------------------------


async def describe(call: Call) -> Answer:
    return await call.accounts.describe(call.me, call.token)


async def keep_name(call: Call) -> Answer:
    await call.accounts.keep_name(call.me, call.device, call.get("name"), call.get("password"))
    return await describe(call)


async def change_password(call: Call) -> Answer:
    await call.accounts.change_password(call.me, call.get("old"), call.get("new"))
    return await describe(call)


async def remove_password(call: Call) -> Answer:
    await call.accounts.remove_password(call.me)
    return await describe(call)


async def passkey_options(call: Call) -> Answer:
    return await call.accounts.registration_options(call.me, call.origin, call.get("name"))


async def add_passkey(call: Call) -> Answer:
    challenge, credential = call.get("challenge"), call.get("credential")
    label = call.get("label")
    await call.accounts.register(call.me, call.origin, challenge, credential, label, call.device)
    return await describe(call)


async def remove_passkey(call: Call) -> Answer:
    await call.accounts.remove_passkey(call.me, call.request.path_params["passkey"])
    return await describe(call)


async def end_device(call: Call) -> Answer:
    await call.accounts.end_device(call.me, call.token, call.request.path_params["device"])
    return await describe(call)


async def sign_in(call: Call) -> Answer:
    device, name, password = call.device, call.get("name"), call.get("password")
    return _signed_in(*await call.accounts.sign_in(device, name, password))


async def sign_in_options(call: Call) -> Answer:
    return await call.accounts.authentication_options(call.address, call.origin)


async def sign_in_passkey(call: Call) -> Answer:
    challenge, credential = call.get("challenge"), call.get("credential")
    found = await call.accounts.authenticate(call.origin, challenge, credential, call.device)
    return _signed_in(*found)


async def sign_out(call: Call) -> Answer:
    await call.accounts.sign_out(call.me, call.token)
    return Response(status_code=204)


async def sign_out_everywhere(call: Call) -> Answer:
    return _signed_in(call.me, await call.accounts.sign_out_everywhere(call.me, call.device))

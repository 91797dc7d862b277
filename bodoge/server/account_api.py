"""HTTP routes of accounts (:mod:`bodoge.server.accounts`): keep a name, sign in and out,
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
from functools import partial
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bodoge.server.accounts import AccountError, Origin
from bodoge.server.assets import error
from bodoge.server.identity import Player
from bodoge.server.protocol import ProtocolError
from bodoge.store import StoreUnavailable

if TYPE_CHECKING:
    from bodoge.server.service import Server

#: The largest JSON body an account request may send (a passkey's answer is ~1-2 KB).
MAX_BODY = 16 * 1024

Handler = Callable[["Server", Request], Awaitable[Response]]


def account_routes(server: Server) -> list[BaseRoute]:
    def route(path: str, handler: Handler, method: str) -> Route:
        return Route(path, partial(_guarded, handler, server), methods=[method])

    return [
        route("/api/account", describe, "GET"),
        route("/api/account", keep_name, "POST"),
        route("/api/account/password", change_password, "POST"),
        route("/api/account/password", remove_password, "DELETE"),
        route("/api/account/passkeys/options", passkey_options, "POST"),
        route("/api/account/passkeys", add_passkey, "POST"),
        route("/api/account/passkeys/{passkey}", remove_passkey, "DELETE"),
        route("/api/sign-in", sign_in, "POST"),
        route("/api/sign-in/passkey/options", sign_in_options, "POST"),
        route("/api/sign-in/passkey", sign_in_passkey, "POST"),
        route("/api/sign-out", sign_out, "POST"),
        route("/api/sign-out/everywhere", sign_out_everywhere, "POST"),
    ]


class _Refused(Exception):
    def __init__(self, response: Response) -> None:
        self.response = response


async def _guarded(handler: Handler, server: Server, request: Request) -> Response:
    try:
        return await handler(server, request)
    except _Refused as exc:
        return exc.response
    except AccountError as exc:
        response = error(exc.status, exc.code, str(exc))
        if exc.retry is not None:
            response.headers["Retry-After"] = str(exc.retry)
        return response
    except StoreUnavailable:
        return error(503, "store_unavailable", "the server cannot store anything now; try later")


def _token(request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token if scheme == "Bearer" else ""


async def _player(server: Server, request: Request) -> Player:
    try:
        return await server.players.by_token(_token(request))
    except ProtocolError:
        raise _Refused(error(401, "bad_token", "send your token: Authorization: Bearer")) from None


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise _Refused(error(413, "too_large", f"send at most {MAX_BODY} bytes"))
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        raise _Refused(error(400, "bad_request", "send a JSON object")) from None
    if not isinstance(body, dict):
        raise _Refused(error(400, "bad_request", "send a JSON object"))
    return body


def _address(request: Request) -> str:
    return request.client.host if request.client else ""


def _origin(request: Request) -> Origin:
    url = request.url
    host = url.hostname or ""
    return Origin(f"{url.scheme}://{url.netloc}", host)


def _signed_in(player: Player, token: str) -> Response:
    return JSONResponse({"player": player.to_json(), "token": token})


async def describe(server: Server, request: Request) -> Response:
    player = await _player(server, request)
    return JSONResponse(await server.accounts.describe(player))


async def keep_name(server: Server, request: Request) -> Response:
    player = await _player(server, request)
    body = await _body(request)
    accounts = server.accounts
    await accounts.keep_name(player, _address(request), body.get("name"), body.get("password"))
    return JSONResponse(await accounts.describe(player), status_code=201)


async def change_password(server: Server, request: Request) -> Response:
    player = await _player(server, request)
    body = await _body(request)
    await server.accounts.change_password(player, body.get("old"), body.get("new"))
    return JSONResponse(await server.accounts.describe(player))


async def remove_password(server: Server, request: Request) -> Response:
    player = await _player(server, request)
    await server.accounts.remove_password(player)
    return JSONResponse(await server.accounts.describe(player))


async def passkey_options(server: Server, request: Request) -> Response:
    player = await _player(server, request)
    body = await _body(request)
    options = await server.accounts.registration_options(player, _origin(request), body.get("name"))
    return JSONResponse(options)


async def add_passkey(server: Server, request: Request) -> Response:
    player = await _player(server, request)
    body = await _body(request)
    await server.accounts.register(
        player, _origin(request), body.get("challenge"), body.get("credential"), body.get("label")
    )
    return JSONResponse(await server.accounts.describe(player), status_code=201)


async def remove_passkey(server: Server, request: Request) -> Response:
    player = await _player(server, request)
    await server.accounts.remove_passkey(player, request.path_params["passkey"])
    return JSONResponse(await server.accounts.describe(player))


async def sign_in(server: Server, request: Request) -> Response:
    body = await _body(request)
    player, token = await server.accounts.sign_in(
        _address(request), body.get("name"), body.get("password")
    )
    return _signed_in(player, token)


async def sign_in_options(server: Server, request: Request) -> Response:
    options = await server.accounts.authentication_options(_address(request), _origin(request))
    return JSONResponse(options)


async def sign_in_passkey(server: Server, request: Request) -> Response:
    body = await _body(request)
    player, token = await server.accounts.authenticate(
        _origin(request), body.get("challenge"), body.get("credential")
    )
    return _signed_in(player, token)


async def sign_out(server: Server, request: Request) -> Response:
    player = await _player(server, request)
    await server.accounts.sign_out(player, _token(request))
    return Response(status_code=204)


async def sign_out_everywhere(server: Server, request: Request) -> Response:
    player = await _player(server, request)
    token = await server.accounts.sign_out_everywhere(player)
    return _signed_in(player, token)

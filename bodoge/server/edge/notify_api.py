"""HTTP routes of notifications (:mod:`bodoge.server.services.notify`), and the installable
page's files.

JSON, through the account API's adapter (a bearer token, errors as ``error.json``):

* ``GET /api/account/notifications``: the e-mail address, what is wanted, the server's
  Web Push key and how many of the person's browsers are subscribed;
* ``POST /api/account/notifications``: the choices (``my_turn``, ``game_ended``,
  ``invited``, ``digest``: booleans; ``lang``: ``ja`` or ``en``);
* ``POST /api/account/email`` (``{"email", "lang"}``, accounts only): keep an address and
  send it a verification link; ``DELETE /api/account/email``: forget it;
* ``POST /api/push/subscriptions`` (a browser's ``PushSubscription`` as JSON, and
  ``lang``), ``DELETE /api/push/subscriptions`` (``{"endpoint"}``): any player's devices;
  ``POST /api/push/subscriptions/replace`` (the new subscription and ``old_endpoint``): the
  service worker's answer to a push service renewing a subscription.

Pages that e-mails link to, working without signing in (the token is the proof):

* ``GET /verify-email/{token}``: verifies the address the link was sent to;
* ``GET /unsubscribe/{token}``: a page with one button; ``POST /unsubscribe/{token}``: the
  button, and the one-click unsubscribe of RFC 8058 that mail programs send
  (``List-Unsubscribe=One-Click``, form-encoded, from anywhere: ``edge/origins.py`` lets it
  through).  A ``GET`` changes nothing, since link checkers open every link of a mail.

The installable page: ``/manifest.webmanifest`` and the service worker ``/sw.js`` (served
from the root, so that it controls every page of the site).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from bodoge.server.edge.account_api import Answer, Call, adapted
from bodoge.server.edge.pages import WEB_STATIC
from bodoge.server.services.notify_texts import page

if TYPE_CHECKING:
    from bodoge.server.edge.ports import Server


async def describe(call: Call) -> Answer:
    return await call.server.notifier.describe(call.me.id)


async def set_choices(call: Call) -> Answer:
    await call.server.notifier.set_choices(call.me.id, call.body)
    return await describe(call)


async def set_email(call: Call) -> Answer:
    await call.server.notifier.set_email(call.me.id, call.get("email"), call.get("lang"))
    return await describe(call)


async def remove_email(call: Call) -> Answer:
    await call.server.notifier.remove_email(call.me.id)
    return await describe(call)


async def add_push(call: Call) -> Answer:
    await call.server.notifier.add_push(call.me.id, call.body)
    return await describe(call)


async def replace_push(call: Call) -> Answer:
    await call.server.notifier.replace_push(call.me.id, call.body)
    return await describe(call)


async def remove_push(call: Call) -> Answer:
    await call.server.notifier.remove_push(call.me.id, call.get("endpoint"))
    return await describe(call)


def browser_lang(request: Request) -> str:
    """The first of ``Accept-Language``'s languages we write in (Japanese if none): the page
    of a link too damaged to say its own.

    >>> from starlette.requests import Request
    >>> asked = [(b"accept-language", b"fr, en-GB;q=0.8")]
    >>> browser_lang(Request({"type": "http", "headers": asked}))
    'en'
    """
    for part in request.headers.get("accept-language", "").split(","):
        base = part.split(";")[0].strip().lower().split("-")[0]
        if base in ("ja", "en"):
            return base
    return "ja"


def _bad_link(request: Request) -> Response:
    return HTMLResponse(page(browser_lang(request), "bad_link_title", "bad_link"), status_code=400)


def notify_routes(server: Server) -> list[BaseRoute]:
    async def verify(request: Request) -> Response:
        token = request.path_params["token"]
        lang, done = await server.notifier.verify(token, browser_lang(request))
        if done:
            return HTMLResponse(page(lang, "verified_title", "verified"))
        return HTMLResponse(page(lang, "bad_link_title", "bad_link"), status_code=400)

    async def unsubscribe(request: Request) -> Response:
        token = request.path_params["token"]
        if request.method == "GET":
            found = server.notifier.unsubscribe_link(token)
            if found is None:
                return _bad_link(request)
            lang, email = found
            form = f"/unsubscribe/{token}"
            shown = page(lang, "unsubscribe_title", "unsubscribe", email=email, form=form)
            return HTMLResponse(shown)
        done = await server.notifier.unsubscribe(token)
        if done is None:
            return _bad_link(request)
        lang, email = done
        return HTMLResponse(page(lang, "unsubscribed_title", "unsubscribed", email=email))

    s = server
    return [
        adapted(s, "GET", "/api/account/notifications", describe),
        adapted(s, "POST", "/api/account/notifications", set_choices, body=True),
        adapted(s, "POST", "/api/account/email", set_email, body=True),
        adapted(s, "DELETE", "/api/account/email", remove_email),
        adapted(s, "POST", "/api/push/subscriptions", add_push, body=True, status=201),
        adapted(s, "DELETE", "/api/push/subscriptions", remove_push, body=True),
        adapted(s, "POST", "/api/push/subscriptions/replace", replace_push, body=True),
        Route("/verify-email/{token}", verify, methods=["GET"]),
        Route("/unsubscribe/{token}", unsubscribe, methods=["GET", "POST"]),
        Route("/sw.js", service_worker, methods=["GET"]),
        Route("/manifest.webmanifest", manifest, methods=["GET"]),
    ]


async def service_worker(request: Request) -> Response:
    # Checked for updates on every visit (browsers cap a worker's cache at a day anyway).
    return FileResponse(
        WEB_STATIC / "sw.js",
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache"},
    )


async def manifest(request: Request) -> Response:
    return FileResponse(
        WEB_STATIC / "manifest.webmanifest",
        media_type="application/manifest+json",
        headers={"Cache-Control": "no-cache"},
    )

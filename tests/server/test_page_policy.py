"""Every HTTP answer carries the page policy's headers (bodoge/server/edge/headers.py):
``nosniff`` and the referrer policy always, the page's Content-Security-Policy unless the
route set its own (pictures) — pages, scripts, style sheets, JSON, errors, 404s, 405s, 500s."""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bodoge.server.edge.assets import PICTURE_CSP
from bodoge.server.edge.headers import EXCEPTION_HANDLERS, MIDDLEWARE, PAGE_POLICY
from bodoge.server.edge.unavailable import StoreUnavailableAnswers
from bodoge.store import StoreUnavailable
from tests.support.live_server import LiveServer

#: (method, path, status) of one answer of each kind.
ANSWERS = [
    ("GET", "/", 200),  # the page
    ("GET", "/t/t_anything1", 200),
    ("GET", "/account", 200),
    ("GET", "/static/js/main.js", 200),  # a script
    ("GET", "/static/css/app.css", 200),  # a style sheet
    ("GET", "/static/games/tagiron/table.js", 200),  # a game's script
    ("GET", "/static/games/tagiron/tagiron.css", 200),
    ("GET", "/static/favicon.svg", 200),
    ("GET", "/api/games", 200),  # JSON
    ("GET", "/api/stats", 200),
    ("GET", "/api/tables", 200),
    ("GET", "/healthz", 200),
    ("GET", "/metrics", 200),
    ("GET", "/api/account", 401),  # a JSON error: no token
    ("GET", "/api/tables/t_nosuchtab", 404),  # a JSON error of a route
    ("GET", "/no/such/page", 404),  # the router's 404
    ("GET", "/static/no/such/file.js", 404),  # the static files' 404
    ("GET", "/api/sign-in", 405),  # the router's 405
    ("POST", "/api/sign-in", 400),
]


def assert_secured(response: httpx.Response, policy: str = PAGE_POLICY) -> None:
    what = f"{response.request.method} {response.request.url.path}"
    assert response.headers.get("x-content-type-options") == "nosniff", what
    assert response.headers.get("referrer-policy") == "same-origin", what
    assert response.headers.get_list("content-security-policy") == [policy], what
    assert response.headers.get_list("x-content-type-options") == ["nosniff"], what


@pytest.fixture
async def http(live_server: LiveServer):
    async with httpx.AsyncClient(base_url=live_server.url, timeout=20) as client:
        yield client


@pytest.mark.parametrize(("method", "path", "status"), ANSWERS)
async def test_every_kind_of_answer_carries_the_headers(
    http: httpx.AsyncClient, method: str, path: str, status: int
) -> None:
    json = {"Content-Type": "application/json"}
    body, headers = (b"[]", json) if method == "POST" else (None, {})
    response = await http.request(method, path, content=body, headers=headers)
    assert response.status_code == status, (path, response.text[:200])
    assert_secured(response)


async def test_other_sites_refused_answers_carry_the_headers(http: httpx.AsyncClient) -> None:
    """The refusals of edge/origins.py, which answer before any route, are secured too."""
    untyped = await http.post("/api/sign-in", content=b"{}", headers={"Content-Type": "text/plain"})
    assert untyped.status_code == 415
    assert_secured(untyped)
    foreign = await http.post("/api/sign-in", json={}, headers={"Origin": "https://evil.example"})
    assert foreign.status_code == 403
    assert_secured(foreign)


async def test_the_page_policy_forbids_inline_script_and_style(http: httpx.AsyncClient) -> None:
    policy = dict(
        part.strip().split(" ", 1)
        for part in (await http.get("/")).headers["content-security-policy"].split(";")
    )
    assert policy["default-src"] == policy["script-src"] == policy["style-src"] == "'self'"
    assert policy["object-src"] == "'none'" and policy["base-uri"] == "'self'"
    assert policy["frame-ancestors"] == "'self'" and policy["connect-src"] == "'self'"
    assert "unsafe" not in ";".join(policy.values())


async def test_pictures_keep_their_own_policy(http: httpx.AsyncClient) -> None:
    response = await http.get("/api/games/illustori/assets/cards/7/3.svg")
    assert response.status_code == 200
    assert_secured(response, PICTURE_CSP)


async def test_a_route_that_fails_answers_500_with_the_headers() -> None:
    async def fails(request: Request) -> Response:
        raise RuntimeError("a bug")

    app = Starlette(
        routes=[Route("/fails", fails)],
        middleware=MIDDLEWARE,
        exception_handlers=EXCEPTION_HANDLERS,
    )
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/fails")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "internal_error"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"
    assert response.headers["content-security-policy"] == PAGE_POLICY


async def test_a_database_gone_away_answers_503_with_the_headers() -> None:
    async def reads(request: Request) -> Response:
        raise StoreUnavailable("the database went away")

    app = Starlette(
        routes=[Route("/reads", reads)],
        middleware=[*MIDDLEWARE, Middleware(StoreUnavailableAnswers)],  # as create_app
        exception_handlers=EXCEPTION_HANDLERS,
    )
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/reads")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "store_unavailable"
    assert_secured(response)

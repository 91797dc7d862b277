"""Illustori's pictures over HTTP: generated card art, and uploaded decks.

* ``GET /api/games/illustori/assets/cards/{seed}/{n}.svg`` is exactly the
  engine's card, served as an image no page can run, cached for long; any
  other path (a leading zero, a card past the largest deck, a path out of the
  folder) is a 404;
* ``POST /api/decks`` accepts PNG pictures (re-encoded as WebP) and refuses an
  SVG, a text file, form fields and anything but multipart, with a clear
  error; ``GET /api/decks/{id}/{n}`` serves the re-encoded pictures.
"""

from __future__ import annotations

import asyncio
import io
import json

import httpx
import pytest
from PIL import Image

from bodoge.games.illustori.art import card_svg
from bodoge.games.illustori.cards import card
from bodoge.server.edge.assets import MAX_UPLOAD_BYTES, UploadTooLarge, _limited
from tests.support.client import Client
from tests.support.live_server import LiveServer

SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'"


@pytest.fixture
async def http(live_server: LiveServer):
    """An HTTP client that sends a new player's token, as uploads need."""
    uploader = await Client.connect(live_server.ws_url, "Uploader")
    headers = {"Authorization": f"Bearer {uploader.token}"}
    async with httpx.AsyncClient(base_url=live_server.url, timeout=30, headers=headers) as client:
        yield client
    await uploader.close()


def png(colour: str, size: tuple[int, int] = (40, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return buffer.getvalue()


async def test_card_art_is_the_engines_card_served_safely(http: httpx.AsyncClient) -> None:
    response = await http.get("/api/games/illustori/assets/cards/7/3.svg")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert response.content == card_svg(card(7, 3)).encode()
    assert response.headers["content-security-policy"] == SVG_CSP
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "max-age=604800" in response.headers["cache-control"]
    top = await http.get("/api/games/illustori/assets/cards/9007199254740991/199.svg")
    assert top.status_code == 200 and top.content.startswith(b"<svg")


async def test_alt_texts_name_every_card_in_both_languages(http: httpx.AsyncClient) -> None:
    response = await http.get("/api/games/illustori/assets/cards/7/alt-30.json")
    assert response.status_code == 200
    alt = response.json()
    assert alt["ja"][3] == card(7, 3).alt("ja") and alt["en"][29] == card(7, 29).alt("en")
    assert len(alt["ja"]) == len(alt["en"]) == 30


@pytest.mark.parametrize(
    "path",
    [
        "cards/7/007.svg",
        "cards/07/7.svg",
        "cards/7/200.svg",
        "cards/7/-1.svg",
        "cards/9007199254740992/0.svg",
        "cards/7/1.png",
        "cards/7/1.svg/",
        "cards/7/alt-0.json",
        "cards/7/alt-201.json",
        "cards/x/1.svg",
        "..%2F..%2Fpyproject.toml",
        "",
    ],
)
async def test_any_other_asset_path_is_not_found(http: httpx.AsyncClient, path: str) -> None:
    response = await http.get(f"/api/games/illustori/assets/{path}")
    assert response.status_code == 404
    if response.headers.get("content-type", "").startswith("application/json"):
        assert response.json()["error"]["code"] in ("not_found", "unknown_game")


async def test_games_without_assets_and_unknown_games_are_not_found(
    http: httpx.AsyncClient,
) -> None:
    assert (await http.get("/api/games/tagiron/assets/cards/7/1.svg")).status_code == 404
    unknown = await http.get("/api/games/chess/assets/cards/7/1.svg")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_game"


async def test_a_png_deck_is_stored_re_encoded_and_served(http: httpx.AsyncClient) -> None:
    files = [
        ("files", ("sun.png", png("orange", (1600, 800)), "image/png")),
        ("files", ("sea.png", png("blue"), "image/png")),
    ]
    response = await http.post("/api/decks", files=files)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["count"] == 2 and body["deck"][0].isalnum()
    first = await http.get(f"/api/decks/{body['deck']}/0")
    assert first.status_code == 200
    assert first.headers["content-type"] == "image/webp"
    assert first.headers["x-content-type-options"] == "nosniff"
    picture = Image.open(io.BytesIO(first.content))
    assert picture.format == "WEBP" and picture.size == (768, 384)
    # A table's deck may hold more cards than pictures: they come round again.
    again = await http.get(f"/api/decks/{body['deck']}/2")
    assert again.content == first.content
    second = await http.get(f"/api/decks/{body['deck']}/1")
    assert Image.open(io.BytesIO(second.content)).size == (40, 30)
    for bad in ("01", "200", "-1", "x"):
        assert (await http.get(f"/api/decks/{body['deck']}/{bad}")).status_code == 404
    assert (await http.get("/api/decks/dnosuchdeck/0")).status_code == 404


async def test_the_deck_id_makes_a_valid_table_option(
    http: httpx.AsyncClient, live_server: LiveServer
) -> None:
    response = await http.post("/api/decks", files=[("files", ("a.png", png("red"), "image/png"))])
    deck = response.json()["deck"]
    ann = await Client.connect(live_server.ws_url, "Ann")
    options = {"players": 3, "custom_deck": deck, "deck_size": 30}
    reply = await ann.ok("table.create", game="illustori", options=options)
    assert reply["table"]
    await ann.close()


@pytest.mark.parametrize(
    ("name", "content", "kind", "code"),
    [
        (
            "cat.svg",
            b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>",
            "image/svg+xml",
            "not_an_image",
        ),
        ("notes.txt", b"hello", "text/plain", "not_an_image"),
        ("cat.png", b"GIF89a" + b"\0" * 20, "image/png", "not_an_image"),
        ("cat.jpg", png("red"), "image/jpeg", "wrong_extension"),
    ],
)
async def test_anything_but_a_picture_is_refused(
    http: httpx.AsyncClient, name: str, content: bytes, kind: str, code: str
) -> None:
    files = [("files", ("ok.png", png("green"), "image/png")), ("files", (name, content, kind))]
    response = await http.post("/api/decks", files=files)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code and name in error["message"]


async def test_uploads_must_be_picture_files_in_multipart(http: httpx.AsyncClient) -> None:
    as_json = await http.post("/api/decks", json={"files": []})
    assert as_json.status_code == 415
    assert as_json.json()["error"]["code"] == "unsupported_media_type"
    field = await http.post("/api/decks", data={"name": "x"}, files=[("f", ("a.png", png("red")))])
    assert field.status_code == 400 and field.json()["error"]["code"] == "bad_upload"
    empty = await http.post("/api/decks", data={}, files=[("f", ("", b""))])
    assert empty.status_code == 400


async def test_a_declared_oversized_upload_is_refused_before_reading(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    # A raw request: the client announces more bytes than allowed and sends none.
    reader, writer = await asyncio.open_connection(live_server.host, live_server.port)
    writer.write(
        (
            "POST /api/decks HTTP/1.1\r\nHost: test\r\n"
            f"Authorization: {http.headers['authorization']}\r\n"
            "Content-Type: multipart/form-data; boundary=x\r\n"
            f"Content-Length: {MAX_UPLOAD_BYTES + 1}\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    writer.close()
    assert head.startswith(b"HTTP/1.1 413")


async def test_a_stream_longer_than_the_limit_is_cut_off() -> None:
    async def body():
        for _ in range(5):
            yield b"x" * 10

    assert [c async for c in _limited(body(), 50)] == [b"x" * 10] * 5
    with pytest.raises(UploadTooLarge):
        _ = [c async for c in _limited(body(), 49)]


def test_error_bodies_are_json_objects_with_code_and_message() -> None:
    from bodoge.server.edge.assets import error

    response = error(400, "bad_upload", "nope")
    assert json.loads(response.body) == {"error": {"code": "bad_upload", "message": "nope"}}

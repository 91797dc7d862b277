"""``bodoge admin``: the operator lists and removes uploaded decks and guests, on the store
of a running server (a subprocess, as the operator would run it)."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable

import httpx
from PIL import Image

from bodoge.cli import build_parser
from bodoge.server.cli import quotas_of
from bodoge.server.runtime.config import DAY, Quotas
from tests.support.client import Client
from tests.support.live_server import DEFAULT_ARGS, ROOT, LiveServer


def _admin(server: LiveServer, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "bodoge", "admin", "--data", str(server.data), *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), "olive").save(buffer, "PNG")
    return buffer.getvalue()


async def test_decks_and_guests_are_listed_and_removed(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server(args=DEFAULT_ARGS)
    ann = await Client.connect(server.ws_url, "Ann")
    bob = await Client.connect(server.ws_url, "Bob")  # a guest: never sits down
    await ann.ok("table.create", game="tagiron")
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        headers = {"Authorization": f"Bearer {ann.token}"}
        files = [("files", ("a.png", _png(), "image/png"))]
        decks = [
            (await http.post("/api/decks", files=files, headers=headers)).json()["deck"]
            for _ in range(2)
        ]
        listed = _admin(server, "decks")
        assert listed.returncode == 0, listed.stderr
        assert all(deck in listed.stdout for deck in decks) and "2 decks" in listed.stdout
        assert ann.player_id in listed.stdout
        mine = _admin(server, "decks", "--owner", bob.player_id)
        assert "0 decks" in mine.stdout
        removed = _admin(server, "remove-deck", decks[0])
        assert removed.returncode == 0 and "removed 1 of 1" in removed.stdout
        assert (await http.get(f"/api/decks/{decks[0]}/0")).status_code == 404
        assert (await http.get(f"/api/decks/{decks[1]}/0")).status_code == 200
        assert _admin(server, "remove-deck", decks[0]).returncode == 1  # gone already

    guests = _admin(server, "guests")
    assert bob.player_id in guests.stdout and ann.player_id not in guests.stdout
    assert "0 guests" in _admin(server, "guests", "--idle-days", "1").stdout
    # Ann hosts a table and keeps a deck: no guest, so she stays whatever is asked.
    refused = _admin(server, "remove-guest", ann.player_id)
    assert refused.returncode == 1 and "removed 0 of 1" in refused.stdout
    assert _admin(server, "remove-guest", bob.player_id).returncode == 0
    assert bob.player_id not in _admin(server, "guests").stdout
    await bob.close()
    back = await Client.connect(server.ws_url, name=None)
    assert (await back.request("hello", token=bob.token))["code"] == "bad_token"
    assert (await back.request("hello", token=ann.token))["type"] == "welcome"
    for client in (ann, back):
        await client.close()


def test_every_quota_is_a_serve_option() -> None:
    args = build_parser().parse_args(["serve"])
    assert quotas_of(args) == Quotas()
    options = (
        "--new-players-per-hour 1 --guest-idle-days 2 --cleanup-every 3"
        " --waiting-tables-per-player 4 --tables-per-hour 5 --uploads-per-hour 6"
        " --decks-per-player 7 --deck-mb-per-player 8 --deck-mb-total 9 --deck-unused-days 10"
    )
    quotas = quotas_of(build_parser().parse_args(["serve", *options.split()]))
    assert quotas == Quotas(
        new_players_per_hour=1,
        guest_seconds=2 * DAY,
        cleanup_seconds=3,
        waiting_tables_per_player=4,
        tables_per_hour=5,
        uploads_per_hour=6,
        decks_per_player=7,
        deck_bytes_per_player=8 * 2**20,
        deck_bytes_total=9 * 2**20,
        deck_unused_seconds=10 * DAY,
    )

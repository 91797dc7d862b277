"""Sessions a person can see and end (issue 27, point 6): an account's page lists its
signed-in devices — browser, system, client address, first and last use, this one marked —
and ends any other (its sockets close at once); a sign-in unused for ``--session-days``
expires, noted at most every few minutes; a guest's token never expires."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.services.accounts import Accounts
from bodoge.server.services.devices import Device, device
from bodoge.server.services.housekeeping import remove_expired_sessions
from bodoge.server.services.identity import NOTE_EVERY_MS, Players, hash_token
from bodoge.store import SqlStore, open_store, sqlite_url
from tests.server.test_accounts import PASSWORD, People, bearer, unique
from tests.support.client import Client, ServerError
from tests.support.live_server import LiveServer

FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"
SAFARI_IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15"
    " (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
)
DAY_MS = 86_400_000


@pytest.fixture
async def http(live_server: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=20) as client:
        yield client


@pytest.fixture
async def people(live_server: LiveServer, http: httpx.AsyncClient) -> AsyncIterator[People]:
    found = People(live_server, http)
    yield found
    await found.close()


def as_browser(agent: str) -> dict[str, str]:
    return {"User-Agent": agent}


# --- the account page's list, and ending a device -----------------------------------------


async def test_the_account_lists_its_devices_and_ends_another(people: People) -> None:
    http = people.http
    ann = await people.guest("Ann")
    name = unique("Ann")
    made = await http.post(
        "/api/account",
        json={"name": name, "password": PASSWORD},
        headers={**bearer(ann.token), **as_browser(FIREFOX_WINDOWS)},
    )
    assert made.status_code == 201, made.text
    signed = await http.post(
        "/api/sign-in",
        json={"name": name, "password": PASSWORD},
        headers=as_browser(SAFARI_IPHONE),
    )
    phone_token = signed.json()["token"]
    phone = await people.connect(phone_token)

    listed = await http.get("/api/account", headers=bearer(ann.token))
    devices = listed.json()["account"]["devices"]
    assert [(d["browser"], d["system"], d["this"]) for d in devices] == [
        ("Safari", "iPhone", False),  # the most recently used first
        ("Firefox", "Windows", True),
    ]
    for d in devices:
        assert d["address"] == "127.0.0.1" and d["first_seen"] <= d["last_seen"]
        assert len(d["id"]) == 16 and set(d["id"]) <= set("0123456789abcdef")
    assert hash_token(phone_token) not in str(devices)  # the store's key stays there
    # The phone sees the same list, with itself marked.
    seen_by_phone = (await http.get("/api/account", headers=bearer(phone_token))).json()
    assert [d["this"] for d in seen_by_phone["account"]["devices"]] == [True, False]

    # Ending the phone: its socket closes at once, its token names nobody.
    phone_id = devices[0]["id"]
    ended = await http.delete(f"/api/account/devices/{phone_id}", headers=bearer(ann.token))
    assert ended.status_code == 200, ended.text
    assert [d["this"] for d in ended.json()["account"]["devices"]] == [True]
    assert await phone.closed == 4001
    assert (await http.get("/api/account", headers=bearer(phone_token))).status_code == 401
    with pytest.raises(ServerError, match="bad_token"):
        await Client.connect(people.server.ws_url, None, token=phone_token)
    assert not ann.closed.done()


async def test_ending_a_device_refuses_this_one_an_unknown_one_and_guests(
    people: People,
) -> None:
    http = people.http
    bea, _ = await people.account("Bea")
    mine = (await http.get("/api/account", headers=bearer(bea.token))).json()
    this_id = mine["account"]["devices"][0]["id"]
    for device_id_, status, code in [
        (this_id, 409, "this_device"),
        ("0123456789abcdef", 404, "unknown_device"),
    ]:
        refused = await http.delete(f"/api/account/devices/{device_id_}", headers=bearer(bea.token))
        assert (refused.status_code, refused.json()["error"]["code"]) == (status, code)
    after = (await http.get("/api/account", headers=bearer(bea.token))).json()
    assert after == mine | {"account": after["account"]} and len(after["account"]["devices"]) == 1
    guest = await people.guest("Cid")
    refused = await http.delete(f"/api/account/devices/{this_id}", headers=bearer(guest.token))
    assert refused.json()["error"]["code"] == "not_an_account"
    assert not bea.closed.done()


# --- expiry, with an injected clock ---------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now

    def days(self, days: float) -> None:
        self.now += round(days * DAY_MS)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqlStore]:
    opened = await open_store(sqlite_url(tmp_path))
    yield opened
    await opened.close()


async def test_a_sign_in_unused_for_the_limit_expires(store: SqlStore) -> None:
    clock = Clock()
    players = Players(store, session_seconds=180 * 86400, clock=clock)
    accounts = Accounts(store, players, wall=clock)
    dee, first = await players.create("Dee")
    await accounts.keep_name(dee, Device("198.51.100.1", "Firefox", "Windows"), "Dee", PASSWORD)
    held, phone = await accounts.sign_in(
        Device("198.51.100.2", "Safari", "iPhone"), "dee", PASSWORD
    )
    eve, guest = await players.create("Eve")  # a guest: never expires

    clock.days(179)
    assert await players.by_token(first, Device("203.0.113.9", "Firefox", "Windows")) is dee
    clock.days(2)  # the laptop was used 2 days ago, the phone 181 days ago
    assert await players.by_token(first) is dee
    with pytest.raises(ProtocolError, match="unknown token"):
        await players.by_token(phone)  # though this process still holds the player
    listed = await accounts.devices(dee, first)
    assert [(d["browser"], d["address"], d["this"]) for d in listed] == [
        ("Firefox", "203.0.113.9", True)
    ]
    clock.days(1000)
    assert await players.by_token(guest) is eve
    with pytest.raises(ProtocolError, match="unknown token"):
        await players.by_token(first)
    # The sweep forgets what expired: both sign-ins, not the guest.
    assert held is dee
    sweeping = SimpleNamespace(store=store, players=players)  # what the hourly sweep uses
    assert await remove_expired_sessions(sweeping) == 2  # type: ignore[arg-type]
    assert await store.sessions(dee.id, 0) == []
    assert await players.by_token(guest) is eve


async def test_a_fresh_process_refuses_an_expired_sign_in_too(store: SqlStore) -> None:
    clock = Clock()
    players = Players(store, session_seconds=30 * 86400, clock=clock)
    accounts = Accounts(store, players, wall=clock)
    fay, first = await players.create("Fay")
    await accounts.keep_name(fay, Device(), "Fay", PASSWORD)
    clock.days(31)
    other = Players(store, session_seconds=30 * 86400, clock=clock)  # another process
    with pytest.raises(ProtocolError, match="unknown token"):
        await other.by_token(first)
    longer = Players(store, session_seconds=60 * 86400, clock=clock)  # a longer limit
    assert (await longer.by_token(first)).id == fay.id


async def test_a_sign_in_is_noted_at_most_every_few_minutes(store: SqlStore) -> None:
    clock = Clock()
    players = Players(store, clock=clock)
    accounts = Accounts(store, players, wall=clock)
    gus, first = await players.create("Gus")
    await accounts.keep_name(gus, Device("198.51.100.1", "Firefox", "Windows"), "Gus", PASSWORD)
    began = clock.now
    writes: list[str] = []
    noting = store.session_seen

    async def counted(token_hash: str, seen: object) -> None:
        writes.append(token_hash)
        await noting(token_hash, seen)  # type: ignore[arg-type]

    store.session_seen = counted  # type: ignore[method-assign]
    elsewhere = Device("203.0.113.5", "Chrome", "Android")
    for _ in range(50):  # a busy minute: requests every second
        clock.now += 1000
        assert await players.by_token(first, elsewhere) is gus
    assert writes == []
    (only,) = await store.sessions(gus.id, 0)
    assert (only.seen.at, only.seen.address) == (began, "198.51.100.1")
    clock.now = began + NOTE_EVERY_MS
    await players.by_token(first, elsewhere)
    assert writes == [hash_token(first)]
    (only,) = await store.sessions(gus.id, 0)
    assert only.created_at == 1_800_000_000_000
    assert (only.seen.at, only.seen.address, only.seen.browser, only.seen.system) == (
        began + NOTE_EVERY_MS,
        "203.0.113.5",
        "Chrome",
        "Android",
    )


# --- what a User-Agent names ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("agent", "browser", "system"),
    [
        (FIREFOX_WINDOWS, "Firefox", "Windows"),
        (SAFARI_IPHONE, "Safari", "iPhone"),
        (
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko)"
            " Chrome/131.0.0.0 Mobile Safari/537.36",
            "Chrome",
            "Android",
        ),
        (
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML,"
            " like Gecko) Version/18.1 Safari/605.1.15",
            "Safari",
            "macOS",
        ),
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)"
            " HeadlessChrome/131.0.0.0 Safari/537.36",
            "Chrome",
            "Linux",
        ),
        (
            "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko)"
            " Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0",
            "Opera",
            "ChromeOS",
        ),
        ("curl/8.5.0", "curl", ""),
        ("", "", ""),
        ("Mozilla/5.0", "", ""),
        ("\u202e\x00" + "x" * 5000, "", ""),
    ],
)
def test_a_user_agent_names_a_browser_and_a_system(agent: str, browser: str, system: str) -> None:
    assert device("192.0.2.1", agent) == Device("192.0.2.1", browser, system)

"""Accounts through the HTTP API: keep a name, sign in and out, passwords, passkeys, throttling."""

from __future__ import annotations

import random
import statistics
import time

import httpx
import pytest

from bodoge.server.accounts import account_key
from bodoge.store import PlayerRecord, open_store
from tests.server.tagiron_play import play_seat
from tests.support.authenticator import Authenticator
from tests.support.client import Client, ServerError
from tests.support.live_server import DEFAULT_ARGS, LiveServer

PASSWORD = "correct horse battery"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
async def http(live_server: LiveServer):
    async with httpx.AsyncClient(base_url=live_server.url, timeout=30) as client:
        yield client


def unique(prefix: str) -> str:
    return f"{prefix}{random.randrange(10**6)}"


async def guest(live_server: LiveServer, name: str) -> Client:
    return await Client.connect(live_server.ws_url, name)


async def keep(http: httpx.AsyncClient, token: str, name: str, password: str = PASSWORD):
    return await http.post(
        "/api/account", json={"name": name, "password": password}, headers=bearer(token)
    )


# --- names -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Hana", "hana"),
        ("Ｈａｎａ", "HANA"),
        ("ｶﾅ", "カナ"),
        ("Straße", "STRASSE"),
        ("a  b", "A b"),
    ],
)
def test_names_that_read_the_same_share_a_key(a: str, b: str) -> None:
    assert account_key(a)[1] == account_key(b)[1]


@pytest.mark.parametrize(
    "name",
    [
        "ha\u200bna",
        "\u202ehana",
        "ha\u2066na",
        "ha\u200dna",
        "👩\u200d💻",
        "ha\u00adna",
        "\u3164",
        "ha\u2003na",
        "",
    ],
    ids=repr,
)
def test_invisible_and_direction_changing_names_are_refused(name: str) -> None:
    with pytest.raises(Exception) as refused:
        account_key(name)
    assert getattr(refused.value, "code", None) == "bad_account_name"


async def test_a_guest_keeps_their_name_and_signs_in_elsewhere(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    ann = await guest(live_server, "Ann")
    name = unique("Ann")
    described = await http.get("/api/account", headers=bearer(ann.token))
    assert described.json() == {"player": ann.player, "account": None}
    made = await keep(http, ann.token, name)
    assert made.status_code == 201, made.text
    assert made.json()["account"] == {"name": name, "password": True, "passkeys": []}
    # Another device: the same player (same id), a token of its own.
    signed = await http.post("/api/sign-in", json={"name": name.upper(), "password": PASSWORD})
    assert signed.status_code == 200, signed.text
    assert signed.json()["player"]["id"] == ann.player_id
    other = await Client.connect(live_server.ws_url, None, token=signed.json()["token"])
    assert other.player_id == ann.player_id and other.token != ann.token
    # The name is taken, in any case or width; a second account is refused.
    taken = await keep(http, (await guest(live_server, "Bob")).token, name.lower())
    assert (taken.status_code, taken.json()["error"]["code"]) == (409, "name_taken")
    again = await keep(http, ann.token, unique("Ann"))
    assert again.json()["error"]["code"] == "already_an_account"
    for client in (ann, other):
        await client.close()


async def test_bad_requests_change_nothing(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    cat = await guest(live_server, "Cat")
    for body, code in [
        ({"name": "ca\u202et", "password": PASSWORD}, "bad_account_name"),
        ({"name": unique("Cat"), "password": "short"}, "bad_password"),
        ({"name": unique("Cat"), "password": 12345678}, "bad_password"),
    ]:
        refused = await http.post("/api/account", json=body, headers=bearer(cat.token))
        assert (refused.status_code, refused.json()["error"]["code"]) == (400, code)
    bad = await http.post("/api/account", content=b"[1]", headers=bearer(cat.token))
    assert bad.json()["error"]["code"] == "bad_request"
    nobody = await http.post("/api/account", json={"name": "x", "password": PASSWORD})
    assert (nobody.status_code, nobody.json()["error"]["code"]) == (401, "bad_token")
    assert (await http.get("/api/account", headers=bearer(cat.token))).json()["account"] is None
    await cat.close()


async def test_wrong_passwords_and_unknown_names_look_the_same(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    dan = await guest(live_server, "Dan")
    name = unique("Dan")
    assert (await keep(http, dan.token, name)).status_code == 201
    replies, times = {}, {"wrong": [], "unknown": []}
    for _ in range(5):
        for kind, who in (("wrong", name), ("unknown", unique("nobody"))):
            start = time.perf_counter()
            reply = await http.post("/api/sign-in", json={"name": who, "password": "not it at all"})
            times[kind].append(time.perf_counter() - start)
            replies[kind] = (reply.status_code, reply.json())
    assert (
        replies["wrong"]
        == replies["unknown"]
        == (
            401,
            {
                "error": {
                    "code": "sign_in_failed",
                    "message": "no account has this name and password",
                }
            },
        )
    )
    # Both check a password hash (a dummy one for an unknown name): similar times.
    wrong, unknown = statistics.median(times["wrong"]), statistics.median(times["unknown"])
    assert 0.4 < wrong / unknown < 2.5, (wrong, unknown)
    await dan.close()


async def test_changing_the_password_needs_the_old_one(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    eve = await guest(live_server, "Eve")
    name = unique("Eve")
    await keep(http, eve.token, name)
    wrong = await http.post(
        "/api/account/password",
        json={"old": "not the one", "new": "a new password"},
        headers=bearer(eve.token),
    )
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (403, "wrong_password")
    changed = await http.post(
        "/api/account/password",
        json={"old": PASSWORD, "new": "a new password"},
        headers=bearer(eve.token),
    )
    assert changed.status_code == 200, changed.text
    old = await http.post("/api/sign-in", json={"name": name, "password": PASSWORD})
    new = await http.post("/api/sign-in", json={"name": name, "password": "a new password"})
    assert (old.status_code, new.status_code) == (401, 200)
    # Passkeys only needs a passkey first.
    only = await http.delete("/api/account/password", headers=bearer(eve.token))
    assert (only.status_code, only.json()["error"]["code"]) == (409, "last_sign_in")
    await eve.close()


async def test_signing_out_ends_one_token_and_closes_its_sockets(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    fay = await guest(live_server, "Fay")
    name = unique("Fay")
    await keep(http, fay.token, name)
    phone_token = (
        await http.post("/api/sign-in", json={"name": name, "password": PASSWORD})
    ).json()["token"]
    phone = await Client.connect(live_server.ws_url, None, token=phone_token)
    out = await http.post("/api/sign-out", headers=bearer(phone_token))
    assert out.status_code == 204
    assert await phone.closed == 4001
    with pytest.raises(ServerError, match="bad_token"):
        await Client.connect(live_server.ws_url, None, token=phone_token)
    assert (await http.get("/api/account", headers=bearer(phone_token))).status_code == 401
    # The laptop's token (the guest's first one) still works.
    assert (await http.get("/api/account", headers=bearer(fay.token))).status_code == 200
    assert not fay.closed.done()
    # Signing out the first token ends it too.
    assert (await http.post("/api/sign-out", headers=bearer(fay.token))).status_code == 204
    assert await fay.closed == 4001
    with pytest.raises(ServerError, match="bad_token"):
        await Client.connect(live_server.ws_url, None, token=fay.token)
    # A guest cannot sign out: nothing would bring them back.
    gil = await guest(live_server, "Gil")
    refused = await http.post("/api/sign-out", headers=bearer(gil.token))
    assert refused.json()["error"]["code"] == "not_an_account"
    await gil.close()


async def test_signing_out_everywhere_ends_every_older_token(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    hal = await guest(live_server, "Hal")
    name = unique("Hal")
    await keep(http, hal.token, name)
    tokens = [
        (await http.post("/api/sign-in", json={"name": name, "password": PASSWORD})).json()["token"]
        for _ in range(2)
    ]
    sockets = [await Client.connect(live_server.ws_url, None, token=t) for t in tokens]
    everywhere = await http.post("/api/sign-out/everywhere", headers=bearer(tokens[0]))
    assert everywhere.status_code == 200, everywhere.text
    fresh = everywhere.json()["token"]
    assert [await s.closed for s in (hal, *sockets)] == [4001, 4001, 4001]
    for old in (hal.token, *tokens):
        assert (await http.get("/api/account", headers=bearer(old))).status_code == 401
    back = await Client.connect(live_server.ws_url, None, token=fresh)
    assert back.player_id == hal.player_id
    # A sign-in after it works as before.
    again = await http.post("/api/sign-in", json={"name": name, "password": PASSWORD})
    assert (
        await http.get("/api/account", headers=bearer(again.json()["token"]))
    ).status_code == 200
    await back.close()


# --- passkeys ----------------------------------------------------------------------------


async def test_a_guest_keeps_their_name_with_a_passkey(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    origin = live_server.url.rstrip("/")
    key = Authenticator()
    ivy = await guest(live_server, "Ivy")
    name = unique("Ivy")
    options = await http.post(
        "/api/account/passkeys/options", json={"name": name}, headers=bearer(ivy.token)
    )
    assert options.status_code == 200, options.text
    public = options.json()["publicKey"]
    assert public["rp"]["id"] == "127.0.0.1" and public["user"]["name"] == name
    assert public["authenticatorSelection"]["residentKey"] == "required"
    made = await http.post(
        "/api/account/passkeys",
        json={
            "challenge": options.json()["challenge"],
            "credential": key.create(public, origin),
            "label": "laptop",
        },
        headers=bearer(ivy.token),
    )
    assert made.status_code == 201, made.text
    account = made.json()["account"]
    assert account["name"] == name and account["password"] is False
    assert [k["name"] for k in account["passkeys"]] == ["laptop"]
    # On another device: the passkey names the account, no name typed.
    ask = (await http.post("/api/sign-in/passkey/options")).json()
    assert "allowCredentials" not in ask["publicKey"] or not ask["publicKey"]["allowCredentials"]
    answer = key.get(ask["publicKey"], origin)
    signed = await http.post(
        "/api/sign-in/passkey", json={"challenge": ask["challenge"], "credential": answer}
    )
    assert signed.status_code == 200, signed.text
    assert signed.json()["player"]["id"] == ivy.player_id
    # A challenge is used once; an answer for another site is refused.
    replay = await http.post(
        "/api/sign-in/passkey", json={"challenge": ask["challenge"], "credential": answer}
    )
    assert replay.json()["error"]["code"] == "bad_challenge"
    ask = (await http.post("/api/sign-in/passkey/options")).json()
    forged = key.get(ask["publicKey"], "http://evil.example")
    refused = await http.post(
        "/api/sign-in/passkey", json={"challenge": ask["challenge"], "credential": forged}
    )
    assert (refused.status_code, refused.json()["error"]["code"]) == (401, "sign_in_failed")
    # The only way in cannot be removed; with a password it can.
    passkey_id = account["passkeys"][0]["id"]
    last = await http.delete(f"/api/account/passkeys/{passkey_id}", headers=bearer(ivy.token))
    assert (last.status_code, last.json()["error"]["code"]) == (409, "last_sign_in")
    await http.post("/api/account/password", json={"new": PASSWORD}, headers=bearer(ivy.token))
    gone = await http.delete(f"/api/account/passkeys/{passkey_id}", headers=bearer(ivy.token))
    assert gone.status_code == 200 and gone.json()["account"]["passkeys"] == []
    ask = (await http.post("/api/sign-in/passkey/options")).json()
    removed = await http.post(
        "/api/sign-in/passkey",
        json={"challenge": ask["challenge"], "credential": key.get(ask["publicKey"], origin)},
    )
    assert removed.json()["error"]["code"] == "sign_in_failed"
    await ivy.close()


async def test_an_account_adds_a_second_passkey(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    origin = live_server.url.rstrip("/")
    jo = await guest(live_server, "Jo")
    await keep(http, jo.token, unique("Jo"))
    keys = Authenticator()
    for label in ("phone", "laptop"):
        options = (
            await http.post("/api/account/passkeys/options", json={}, headers=bearer(jo.token))
        ).json()
        excluded = options["publicKey"].get("excludeCredentials", [])
        assert len(excluded) == len(keys.credentials)
        added = await http.post(
            "/api/account/passkeys",
            json={
                "challenge": options["challenge"],
                "credential": keys.create(options["publicKey"], origin),
                "label": label,
            },
            headers=bearer(jo.token),
        )
        assert added.status_code == 201, added.text
    assert [k["name"] for k in added.json()["account"]["passkeys"]] == ["phone", "laptop"]
    # Someone else's options cannot register a passkey for Jo.
    kim = await guest(live_server, "Kim")
    options = (
        await http.post(
            "/api/account/passkeys/options", json={"name": unique("Kim")}, headers=bearer(kim.token)
        )
    ).json()
    stolen = await http.post(
        "/api/account/passkeys",
        json={
            "challenge": options["challenge"],
            "credential": keys.create(options["publicKey"], origin),
        },
        headers=bearer(jo.token),
    )
    assert stolen.json()["error"]["code"] == "bad_challenge"
    for client in (jo, kim):
        await client.close()


# --- a guest upgraded mid-game -----------------------------------------------------------


async def test_a_guest_upgraded_mid_game_keeps_their_seat(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    lea = await guest(live_server, "Lea")
    bots = [{"seat": 1, "level": "easy"}]
    table = (await lea.ok("table.create", game="tagiron", bots=bots))["table"]
    await lea.ok("table.open", table=table)
    await lea.ok("table.start", table=table)
    name = unique("Lea")
    assert (await keep(http, lea.token, name)).status_code == 201
    # Sign in on a phone mid-game: the same seat is theirs there.
    token = (await http.post("/api/sign-in", json={"name": name, "password": PASSWORD})).json()[
        "token"
    ]
    phone = await Client.connect(live_server.ws_url, None, token=token)
    snapshot = await phone.ok("table.open", table=table)
    assert snapshot["you"] == 0
    last = await play_seat(phone, table, random.Random(5))
    assert last.get("result") is not None or last.get("type") in ("table", "event")
    summary = (await http.get(f"/api/tables/{table}")).json()
    assert summary["seats"][0]["player"]["id"] == lea.player_id
    for client in (lea, phone):
        await client.close()


# --- throttling --------------------------------------------------------------------------


def _without_sign_in_limits() -> list[str]:
    args = list(DEFAULT_ARGS)
    for option in ("--sign-ins-per-hour", "--sign-ins-per-account-hour"):
        at = args.index(option)
        del args[at : at + 2]
    return args


async def test_sign_ins_are_throttled_per_account_and_per_address(make_live_server) -> None:
    server = make_live_server(
        args=[
            *_without_sign_in_limits(),
            "--sign-ins-per-hour",
            "8",
            "--sign-ins-per-account-hour",
            "3",
        ]
    )
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        mo = await guest(server, "Mo")
        await keep(http, mo.token, "Mo")  # one of the address's 8

        async def codes(name: str, times: int) -> list[str]:
            found = []
            for _ in range(times):
                reply = await http.post(
                    "/api/sign-in", json={"name": name, "password": "wrong one!"}
                )
                found.append(reply.json()["error"]["code"])
                if reply.status_code == 429:
                    assert int(reply.headers["retry-after"]) > 0
            return found

        # Per account, existing or not, the same: three tries, then wait.
        limited = ["sign_in_failed"] * 3 + ["sign_in_rate_limited"]
        assert await codes("MO", 4) == limited
        assert await codes("nobody-here", 4) == limited
        # The right password waits too, then the address runs out for every name.
        right = await http.post("/api/sign-in", json={"name": "Mo", "password": PASSWORD})
        assert right.json()["error"]["code"] == "sign_in_rate_limited"
        assert await codes("someone-else", 2) == ["sign_in_failed", "sign_in_rate_limited"]
        await mo.close()


async def test_accounts_are_never_removed_as_idle_guests(tmp_path) -> None:
    store = await open_store(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        for pid in ("p_guest", "p_kept"):
            await store.create_player(PlayerRecord(pid, pid, f"hash-{pid}", 0))
        await store.make_account("p_kept", "Kept", "kept", None)
        assert [p.id for p in await store.guests(10**12)] == ["p_guest"]
        assert await store.delete_guests(["p_guest", "p_kept"], None) == 1
        assert (await store.account("p_kept")).name == "Kept"  # type: ignore[union-attr]
    finally:
        await store.close()

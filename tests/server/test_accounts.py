"""Accounts through the HTTP API: keep a name, sign in and out, passwords, passkeys, throttling."""

from __future__ import annotations

import random
import statistics
import time

import httpx
import pytest

from bodoge.server.services.accounts import account_key
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


async def keep(http: httpx.AsyncClient, token: str, name: str, password: str = PASSWORD):
    return await http.post(
        "/api/account", json={"name": name, "password": password}, headers=bearer(token)
    )


class People:
    """The set-ups of these tests: guests, accounts and passkeys on one server, every
    connection closed at the end."""

    def __init__(self, server: LiveServer, http: httpx.AsyncClient) -> None:
        self.server = server
        self.http = http
        self.origin = server.url.rstrip("/")
        self.clients: list[Client] = []
        #: The passkey options :meth:`add_passkey` last answered.
        self.last_options: dict = {}

    async def guest(self, name: str) -> Client:
        client = await Client.connect(self.server.ws_url, name)
        self.clients.append(client)
        return client

    async def connect(self, token: str) -> Client:
        client = await Client.connect(self.server.ws_url, None, token=token)
        self.clients.append(client)
        return client

    async def account(self, name: str) -> tuple[Client, str]:
        """A guest who kept a fresh account name (``name`` and a number) with PASSWORD."""
        client = await self.guest(name)
        kept = unique(name)
        made = await keep(self.http, client.token, kept)
        assert made.status_code == 201, made.text
        return client, kept

    async def sign_in(self, name: str, password: str = PASSWORD) -> httpx.Response:
        return await self.http.post("/api/sign-in", json={"name": name, "password": password})

    async def add_passkey(
        self, token: str, key: Authenticator, label: str | None = None, **options: object
    ) -> httpx.Response:
        """Ask for options (``options``: the body, a guest's ``name``) and answer them."""
        asked = await self.http.post(
            "/api/account/passkeys/options", json=options, headers=bearer(token)
        )
        assert asked.status_code == 200, asked.text
        public = self.last_options = asked.json()["publicKey"]
        body = {
            "challenge": asked.json()["challenge"],
            "credential": key.create(public, self.origin),
        }
        if label is not None:
            body["label"] = label
        return await self.http.post("/api/account/passkeys", json=body, headers=bearer(token))

    async def close(self) -> None:
        for client in self.clients:
            await client.close()


@pytest.fixture
async def people(live_server: LiveServer, http: httpx.AsyncClient):
    found = People(live_server, http)
    yield found
    await found.close()


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


async def test_a_guest_keeps_their_name_and_signs_in_elsewhere(people: People) -> None:
    http = people.http
    ann = await people.guest("Ann")
    name = unique("Ann")
    described = await http.get("/api/account", headers=bearer(ann.token))
    assert described.json() == {"player": ann.player, "account": None}
    made = await keep(http, ann.token, name)
    assert made.status_code == 201, made.text
    account = made.json()["account"]
    devices = account.pop("devices")
    assert account == {"name": name, "password": True, "passkeys": [], "session_days": 180}
    # The token the guest began with is the account's first sign-in: this device.
    assert [(d["this"], d["browser"]) for d in devices] == [(True, "python-httpx")]
    # Another device: the same player (same id), a token of its own.
    signed = await people.sign_in(name.upper())
    assert signed.status_code == 200, signed.text
    assert signed.json()["player"]["id"] == ann.player_id
    other = await people.connect(signed.json()["token"])
    assert other.player_id == ann.player_id and other.token != ann.token
    # The name is taken, in any case or width; a second account is refused.
    taken = await keep(http, (await people.guest("Bob")).token, name.lower())
    assert (taken.status_code, taken.json()["error"]["code"]) == (409, "name_taken")
    again = await keep(http, ann.token, unique("Ann"))
    assert again.json()["error"]["code"] == "already_an_account"


async def test_bad_requests_change_nothing(people: People) -> None:
    http = people.http
    cat = await people.guest("Cat")
    for body, code in [
        ({"name": "ca\u202et", "password": PASSWORD}, "bad_account_name"),
        ({"name": unique("Cat"), "password": "short"}, "bad_password"),
        ({"name": unique("Cat"), "password": 12345678}, "bad_password"),
    ]:
        refused = await http.post("/api/account", json=body, headers=bearer(cat.token))
        assert (refused.status_code, refused.json()["error"]["code"]) == (400, code)
    json_type = {**bearer(cat.token), "Content-Type": "application/json"}
    bad = await http.post("/api/account", content=b"[1]", headers=json_type)
    assert bad.json()["error"]["code"] == "bad_request"
    untyped = await http.post("/api/account", content=b"[1]", headers=bearer(cat.token))
    assert untyped.json()["error"]["code"] == "unsupported_media_type"
    nobody = await http.post("/api/account", json={"name": "x", "password": PASSWORD})
    assert (nobody.status_code, nobody.json()["error"]["code"]) == (401, "bad_token")
    assert (await http.get("/api/account", headers=bearer(cat.token))).json()["account"] is None


async def test_wrong_passwords_and_unknown_names_look_the_same(people: People) -> None:
    _, name = await people.account("Dan")
    replies, times = {}, {"wrong": [], "unknown": []}
    for _ in range(5):
        for kind, who in (("wrong", name), ("unknown", unique("nobody"))):
            start = time.perf_counter()
            reply = await people.sign_in(who, "not it at all")
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


async def test_changing_the_password_needs_the_old_one(people: People) -> None:
    http = people.http
    eve, name = await people.account("Eve")
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
    old = await people.sign_in(name)
    new = await people.sign_in(name, "a new password")
    assert (old.status_code, new.status_code) == (401, 200)
    # Passkeys only needs a passkey first.
    only = await http.delete("/api/account/password", headers=bearer(eve.token))
    assert (only.status_code, only.json()["error"]["code"]) == (409, "last_sign_in")


async def test_signing_out_ends_one_token_and_closes_its_sockets(people: People) -> None:
    http, ws_url = people.http, people.server.ws_url
    fay, name = await people.account("Fay")
    phone_token = (await people.sign_in(name)).json()["token"]
    phone = await people.connect(phone_token)
    out = await http.post("/api/sign-out", headers=bearer(phone_token))
    assert out.status_code == 204
    assert await phone.closed == 4001
    with pytest.raises(ServerError, match="bad_token"):
        await Client.connect(ws_url, None, token=phone_token)
    assert (await http.get("/api/account", headers=bearer(phone_token))).status_code == 401
    # The laptop's token (the guest's first one) still works.
    assert (await http.get("/api/account", headers=bearer(fay.token))).status_code == 200
    assert not fay.closed.done()
    # Signing out the first token ends it too.
    assert (await http.post("/api/sign-out", headers=bearer(fay.token))).status_code == 204
    assert await fay.closed == 4001
    with pytest.raises(ServerError, match="bad_token"):
        await Client.connect(ws_url, None, token=fay.token)
    # A guest cannot sign out: nothing would bring them back.
    gil = await people.guest("Gil")
    refused = await http.post("/api/sign-out", headers=bearer(gil.token))
    assert refused.json()["error"]["code"] == "not_an_account"


async def test_signing_out_everywhere_ends_every_older_token(people: People) -> None:
    http = people.http
    hal, name = await people.account("Hal")
    tokens = [(await people.sign_in(name)).json()["token"] for _ in range(2)]
    sockets = [await people.connect(t) for t in tokens]
    everywhere = await http.post("/api/sign-out/everywhere", headers=bearer(tokens[0]))
    assert everywhere.status_code == 200, everywhere.text
    fresh = everywhere.json()["token"]
    assert [await s.closed for s in (hal, *sockets)] == [4001, 4001, 4001]
    for old in (hal.token, *tokens):
        assert (await http.get("/api/account", headers=bearer(old))).status_code == 401
    back = await people.connect(fresh)
    assert back.player_id == hal.player_id
    # A sign-in after it works as before.
    again = await people.sign_in(name)
    assert (
        await http.get("/api/account", headers=bearer(again.json()["token"]))
    ).status_code == 200


# --- passkeys ----------------------------------------------------------------------------


async def test_a_guest_keeps_their_name_with_a_passkey(people: People) -> None:
    http, origin = people.http, people.origin
    key = Authenticator()
    ivy = await people.guest("Ivy")
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


async def test_an_account_adds_a_second_passkey(people: People) -> None:
    jo, _ = await people.account("Jo")
    keys = Authenticator()
    for label in ("phone", "laptop"):
        added = await people.add_passkey(jo.token, keys, label)
        assert added.status_code == 201, added.text
        # Each asked with the passkeys made before excluded.
        excluded = people.last_options.get("excludeCredentials", [])
        assert len(excluded) == len(keys.credentials) - 1
    assert [k["name"] for k in added.json()["account"]["passkeys"]] == ["phone", "laptop"]
    # Someone else's options cannot register a passkey for Jo.
    kim = await people.guest("Kim")
    options = (
        await people.http.post(
            "/api/account/passkeys/options", json={"name": unique("Kim")}, headers=bearer(kim.token)
        )
    ).json()
    stolen = await people.http.post(
        "/api/account/passkeys",
        json={
            "challenge": options["challenge"],
            "credential": keys.create(options["publicKey"], people.origin),
        },
        headers=bearer(jo.token),
    )
    assert stolen.json()["error"]["code"] == "bad_challenge"


# --- a guest upgraded mid-game -----------------------------------------------------------


async def test_a_guest_upgraded_mid_game_keeps_their_seat(people: People) -> None:
    http = people.http
    lea = await people.guest("Lea")
    bots = [{"seat": 1, "level": "easy"}]
    table = (await lea.ok("table.create", game="tagiron", bots=bots))["table"]
    await lea.ok("table.open", table=table)
    await lea.ok("table.start", table=table)
    name = unique("Lea")
    assert (await keep(http, lea.token, name)).status_code == 201
    # Sign in on a phone mid-game: the same seat is theirs there.
    phone = await people.connect((await people.sign_in(name)).json()["token"])
    snapshot = await phone.ok("table.open", table=table)
    assert snapshot["you"] == 0
    last = await play_seat(phone, table, random.Random(5))
    assert last.get("result") is not None or last.get("type") in ("table", "event")
    summary = (await http.get(f"/api/tables/{table}")).json()
    assert summary["seats"][0]["player"]["id"] == lea.player_id


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
        people = People(server, http)
        mo = await people.guest("Mo")
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
        await people.close()


def _from(address: str) -> dict[str, str]:
    """A request from ``address``, as the trusted proxy in front of the server says."""
    return {"X-Forwarded-For": address}


async def test_nobody_elsewhere_locks_the_owner_out(make_live_server) -> None:
    """The audit's attack: ten wrong passwords for a known name from another address, then
    the owner signs in at once.  A guess spread over many addresses meets the account's
    brake, which the owner's usual address and passkeys pass."""
    server = make_live_server(
        args=[
            *_without_brake(_without_sign_in_limits()),
            *("--sign-ins-per-hour", "30", "--sign-ins-per-account-hour", "10"),
            *("--sign-in-brake-per-account-hour", "15", "--trusted-proxies", "127.0.0.0/8"),
        ]
    )
    home, attacker = "198.51.100.7", "203.0.113.66"
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        people = People(server, http)
        try:
            owner = await people.guest("Owner")
            name = unique("Owner")
            made = await http.post(
                "/api/account",
                json={"name": name, "password": PASSWORD},
                headers={**bearer(owner.token), **_from(home)},
            )
            assert made.status_code == 201, made.text
            key = Authenticator()
            assert (await people.add_passkey(owner.token, key)).status_code == 201

            async def sign_in(password: str, address: str) -> httpx.Response:
                body = {"name": name, "password": password}
                return await http.post("/api/sign-in", json=body, headers=_from(address))

            wrong = [await sign_in("not the password", attacker) for _ in range(11)]
            codes = [r.json()["error"]["code"] for r in wrong]
            assert codes == ["sign_in_failed"] * 10 + ["sign_in_rate_limited"]
            # The owner, at home, is let in at once: the attacker spent only their own tries.
            assert (await sign_in(PASSWORD, home)).status_code == 200
            # Many addresses together empty the account's brake (15: the ten above, five more) ...
            for n in range(5):
                refused = await sign_in("not the password", f"203.0.113.{n + 1}")
                assert refused.json()["error"]["code"] == "sign_in_failed"
            braked = await sign_in(PASSWORD, "192.0.2.200")
            assert braked.status_code == 429, braked.text
            assert braked.json()["error"]["code"] == "sign_in_rate_limited"
            # ... and an unknown name tried as often gets the very same answers.
            nobody = unique("nobody")
            for n in range(15):
                tried = await http.post(
                    "/api/sign-in",
                    json={"name": nobody, "password": "not the password"},
                    headers=_from(f"203.0.113.{n % 5 + 1}" if n >= 10 else attacker),
                )
                assert tried.json()["error"]["code"] == "sign_in_failed"
            unknown = await http.post(
                "/api/sign-in",
                json={"name": nobody, "password": PASSWORD},
                headers=_from("192.0.2.200"),
            )
            assert unknown.status_code == 429
            assert unknown.json()["error"]["code"] == "sign_in_rate_limited"
            # ... but the owner's usual address still signs in, and so does any passkey.
            assert (await sign_in(PASSWORD, home)).status_code == 200
            ask = await http.post("/api/sign-in/passkey/options", headers=_from("192.0.2.200"))
            assert ask.status_code == 200, ask.text
            answer = key.get(ask.json()["publicKey"], people.origin)
            signed = await http.post(
                "/api/sign-in/passkey",
                json={"challenge": ask.json()["challenge"], "credential": answer},
                headers=_from("192.0.2.200"),
            )
            assert signed.status_code == 200, signed.text
            assert signed.json()["player"]["id"] == owner.player_id
            # Signed in there, it is one of the owner's addresses now: the brake lets it by.
            assert (await sign_in(PASSWORD, "192.0.2.200")).status_code == 200
        finally:
            await people.close()


def _without_brake(args: list[str]) -> list[str]:
    at = args.index("--sign-in-brake-per-account-hour")
    return args[:at] + args[at + 2 :]


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

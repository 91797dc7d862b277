"""Turn-based servers on a simulated clock, and the real parts their notifications reach.

The parts: an SMTP server (aiosmtpd) that keeps what it receives, a Web Push endpoint that
keeps the encrypted messages it is sent, a browser's subscription keys that decrypt them
(RFC 8291, with ``http_ece``), a clock for a notifier run by hand.

The servers: :class:`World`, in-process servers on one data folder and one
:class:`~bodoge.server.runtime.clock.ManualClock` (a day passes in a call; a restart keeps
both), whose tables tell a :class:`Recorder`; :class:`Mailed`, a world whose tables tell the
server's own notifier, sending through the test's SMTP server.

Fixtures (``tests/conftest.py`` offers them to every test): ``smtp``, ``push``,
``make_world`` and ``make_mailed`` (each stops what it made).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import http_ece
import httpx
import pytest
import sqlalchemy as sa
from aiosmtpd.controller import Controller
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from starlette.applications import Starlette

from bodoge.core.game import Game
from bodoge.core.values import JSON
from bodoge.games.illustori.game import IllustoriGame
from bodoge.games.tagiron.game import TagironGame
from bodoge.server.edge.account_api import account_routes
from bodoge.server.edge.notify_api import notify_routes
from bodoge.server.edge.turns_api import turn_routes
from bodoge.server.runtime.clock import ManualClock, SystemClock, use_clock
from bodoge.server.runtime.config import ServerConfig
from bodoge.server.runtime.notify import Final
from bodoge.server.runtime.table import LiveTable
from bodoge.server.runtime.turns import DAY
from bodoge.server.wiring import Server
from bodoge.store import sqlite_url
from tests.server.test_tables import Tab

ORIGIN = "http://testserver"
SITE = "https://games.example.org"
#: The notifier's grace in a :class:`Mailed` world (simulated seconds).
GRACE = 30
GAMES: dict[str, Game[Any, Any, Any]] = {"tagiron": TagironGame(), "illustori": IllustoriGame()}


# --- mail and push ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class MailSink:
    """aiosmtpd's handler: every message received, parsed; ``refuse`` answers DATA with that
    SMTP reply instead (``"451 …"``: try later; ``"550 …"``: never)."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.refuse: str | None = None
        self.envelopes: list[tuple[str, list[str]]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refuse is not None:
            return self.refuse
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        parsed = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        self.messages.append(parsed)
        return "250 OK"


class SmtpServer:
    """An SMTP server on a free port of this machine, in a thread of its own."""

    def __init__(self) -> None:
        self.sink = MailSink()
        self.port = free_port()
        self.controller = Controller(self.sink, hostname="127.0.0.1", port=self.port)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}?from=bodoge@games.example.org"

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()


def parts(message: EmailMessage) -> tuple[str, str]:
    """The plain-text and HTML bodies of a message."""
    text = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass
class BrowserKeys:
    """What a browser makes when it subscribes: a P-256 key pair and an auth secret."""

    private: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        raw = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(raw)

    def subscription(self, endpoint: str) -> dict[str, Any]:
        return {"endpoint": endpoint, "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)}}

    def decrypt(self, body: bytes) -> Any:
        """The JSON a push carried, decrypted as the browser would (RFC 8291, aes128gcm)."""
        plain = http_ece.decrypt(
            body, private_key=self.private, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class PushService:
    """A push service's endpoint on this machine: keeps each message; answers ``status``
    (201 by default: accepted; 410: the subscription is gone; 500: try later)."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.status = 201
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                service.received.append(Received(self.path, headers, body))
                self.send_response(service.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def endpoint(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/push/{name}"

    def __enter__(self) -> PushService:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class Clock:
    """The notifier's clock (ms), moved by the test."""

    def __init__(self, now: int = 1_800_000_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += round(seconds * 1000)


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    with SmtpServer() as server:
        yield server


@pytest.fixture
def push() -> Iterator[PushService]:
    with PushService() as service:
        yield service


# --- turn-based servers -----------------------------------------------------------------


class Recorder:
    """A :class:`~bodoge.server.runtime.notify.TurnNotifier` that notes every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    async def your_turn(
        self, player_id: str, table_id: str, game: str, deadline: int, after: int | None = None
    ) -> None:
        # A turn begun during a vacation also notes when the vacation ends.
        extra = () if after is None else (after,)
        self.calls.append(("your_turn", player_id, table_id, game, deadline, *extra))

    async def game_ended(
        self, player_id: str, table_id: str, game: str, seat: int, final: Final
    ) -> None:
        self.calls.append(("game_ended", player_id, table_id, game, final.place(seat), final))

    async def invited(self, player_id: str, table_id: str, game: str, by: str) -> None:
        self.calls.append(("invited", player_id, table_id, game, by))

    def of(self, kind: str) -> list[tuple[Any, ...]]:
        return [c for c in self.calls if c[0] == kind]


class Thinking:
    """The bots' port, counting the moves being worked out (a test waits for them)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.busy = 0

    async def act(self, *args: Any, **kwargs: Any) -> Any:
        self.busy += 1
        try:
            return await self.inner.act(*args, **kwargs)
        finally:
            self.busy -= 1


class World:
    """Servers on one data folder and one simulated clock; a restart keeps both."""

    def __init__(self, tmp_path: Path, **config: Any) -> None:
        self.clock = ManualClock(start_ms=1_800_000_000_000)
        self.tmp_path = tmp_path
        self.config = config
        self.server: Server | None = None
        self.notes = Recorder()

    async def start(self) -> Server:
        config = ServerConfig(
            db_url=sqlite_url(self.tmp_path),
            bot_workers=0,
            clock=self.clock,
            games=GAMES,
            **self.config,
        )
        self.server = Server(config)
        await self.server.start()
        self.server.tables.notifier = self.notes
        self.thinking = Thinking(self.server.tables.bots)
        self.server.tables.bots = self.thinking
        return self.server

    async def quiet(self) -> None:
        """Until nothing is left to do now: no bot computing a move, no command queued."""
        calm = 0
        for _ in range(2000):
            await asyncio.sleep(0.005)
            busy = self.thinking.busy or any(t.at_work for t in self.s.tables.live.values())
            calm = 0 if busy else calm + 1
            if calm >= 3:
                return
        raise AssertionError("the server never went quiet")

    async def restart(self) -> Server:
        assert self.server is not None
        await self.server.stop()
        return await self.start()

    @property
    def s(self) -> Server:
        assert self.server is not None
        return self.server

    def table(self, table_id: str) -> LiveTable:
        return self.s.tables.live[table_id]

    def http(self) -> httpx.AsyncClient:
        app = Starlette(routes=turn_routes(self.s))
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=ORIGIN)

    async def get(self, token: str, path: str) -> Any:
        async with self.http() as http:
            answer = await http.get(path, headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 200, answer.text
        return answer.json()

    async def send(self, method: str, token: str, path: str, **body: JSON) -> httpx.Response:
        async with self.http() as http:
            return await http.request(
                method,
                path,
                headers={"Authorization": f"Bearer {token}"},
                **({"json": body} if body else {}),
            )


@asynccontextmanager
async def started(new: Callable[..., World]) -> AsyncIterator[Callable[..., Any]]:
    """A maker of started worlds (``new(**config)``, then started); on the way out, every
    world it made is stopped and the process's clock is the system's again."""
    worlds: list[World] = []

    async def make(**config: Any) -> World:
        world = new(**config)
        await world.start()
        worlds.append(world)
        return world

    yield make
    for world in worlds:
        if world.server is not None:
            await world.server.stop()
    use_clock(SystemClock())


@pytest.fixture
async def make_world(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    async with started(partial(World, tmp_path)) as make:
        yield make


async def people(world: World, count: int) -> list[Tab]:
    tabs = []
    for i in range(count):
        tab = Tab(world.s)
        hello = await tab.ok("hello", name=f"p{i}")
        tab.player = {**hello["player"], "token": hello["token"]}
        tabs.append(tab)
    return tabs


async def back(world: World, tabs: list[Tab]) -> list[Tab]:
    """The same people, connected again to a restarted server."""
    again = []
    for old in tabs:
        tab = Tab(world.s)
        await tab.ok("hello", token=old.player["token"])
        tab.player = old.player
        again.append(tab)
    return again


async def turn_table(
    world: World,
    tabs: list[Tab],
    game: str,
    players: int,
    move_seconds: int = DAY,
    bots: list[dict[str, JSON]] | None = None,
) -> str:
    created = await tabs[0].ok(
        "table.create",
        game=game,
        options={"players": players},
        settings={"turn_based": move_seconds},
        bots=bots or [],
    )
    table = created["table"]
    for tab in tabs[1:]:
        await tab.ok("table.join", table=table)
    await tabs[0].ok("table.start", table=table)
    return table


async def settle(world: World, seconds: float = 0.0) -> None:
    await world.clock.run_for(seconds, world.quiet)


def view_of(world: World, table: str, seat: int) -> dict[str, JSON]:
    t = world.table(table)
    return t.game.view(t.state, seat)


async def play_for(world: World, tab: Tab, table: str, seat: int, rng: random.Random) -> int:
    """The move the person in ``seat`` makes (chosen by the game's easy bot from their view)."""
    t = world.table(table)
    move = t.game.bot("easy").act(view_of(world, table, seat), seat, rng)
    assert move is not None
    reply = await tab.ok("move", table=table, move=t.game.move_to_json(move))
    return int(reply["n"])


def awaited_people(world: World, table: str, tabs: list[Tab]) -> list[int]:
    t = world.table(table)
    return sorted(s for s in t.game.to_act(t.state) if s < len(tabs))


async def play_out(world: World, table: str, tabs: list[Tab], rng: random.Random) -> None:
    """Everyone moves when awaited (bots in minutes) until the game ends."""
    for _ in range(2000):
        t = world.table(table)
        if t.status != "playing":
            return
        due = awaited_people(world, table, tabs)
        if due:
            for seat in due:
                if world.table(table).status == "playing" and seat in t.game.to_act(t.state):
                    await play_for(world, tabs[seat], table, seat, rng)
        else:
            await settle(world, 6 * 60)  # the bots' minutes
    raise AssertionError("the game did not end")


# --- servers that notify ----------------------------------------------------------------


#: The subjects of the e-mails a turn-based game sends, by language and kind.
SUBJECTS = {
    ("ja", "turn"): "{game}であなたの番です",
    ("en", "turn"): "Your turn in {game}",
    ("ja", "ended"): "{game}の対局が終わりました",
    ("en", "ended"): "Your game of {game} has ended",
}


TITLES = {g: game.title for g, game in GAMES.items()}


class Mailed(World):
    """A :class:`World` whose tables tell the server's own notifier (not a recorder)."""

    def __init__(self, tmp_path: Path, smtp: SmtpServer, **config: Any) -> None:
        super().__init__(
            tmp_path,
            smtp_url=smtp.url,
            site_url=SITE,
            notify_grace_seconds=GRACE,
            # Only the simulated clock's wake-ups may send in time: a poll would hide a
            # notifier that waits on the machine's clock.
            notify_poll_seconds=3600,
            **config,
        )
        self.smtp = smtp
        #: Fails the notifier's next outbox write (a process dying between a move and its
        #: notification, as far as the notification goes).
        self.lose_next = False

    async def start(self) -> Server:
        server = await super().start()
        server.tables.notifier = server.notifier
        server.notifier.local_push = True  # the push endpoint is on this machine
        store, world = server.notifier.store, self

        class Losing:
            def __getattr__(self, name: str) -> Any:
                return getattr(store, name)

            async def enqueue(self, items: Any) -> int:
                if world.lose_next:
                    world.lose_next = False
                    raise ConnectionError("the process died before its notification")
                return await store.enqueue(items)

        server.notifier.store = Losing()  # type: ignore[assignment]
        return server

    def app(self) -> httpx.AsyncClient:
        s = self.s
        app = Starlette(routes=[*account_routes(s), *notify_routes(s), *turn_routes(s)])
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=ORIGIN)

    async def outbox(self) -> list[dict[str, Any]]:
        engine = self.s.store.engine  # type: ignore[attr-defined]
        async with engine.connect() as conn:
            rows = await conn.execute(
                sa.text("SELECT key, player, channel, kind, sent_at, error FROM notify_outbox")
            )
            return [dict(r._mapping) for r in rows]

    def mails(self, to: str, kind: str = "turn") -> list[Any]:
        found = []
        for m in self.smtp.sink.messages:
            if m["To"] != to:
                continue
            subject = str(m["Subject"])
            if any(
                subject == text.format(game=t)
                for (_, k), text in SUBJECTS.items()
                if k == kind
                for titles in TITLES.values()
                for t in titles.values()
            ):
                found.append(m)
        return found


@pytest.fixture
async def make_mailed(tmp_path: Path, smtp: SmtpServer) -> AsyncIterator[Callable[..., Any]]:
    async with started(partial(Mailed, tmp_path, smtp)) as make:
        yield make


async def until(check: Callable[[], Any], what: str, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not await check():
        assert loop.time() < end, what
        await asyncio.sleep(0.01)

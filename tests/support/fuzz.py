"""The protocol fuzzer's machinery: a raw client that checks every frame, and the invariants.

``tests/server/test_protocol_fuzz.py`` drives it with hypothesis (the frames come from
:mod:`tests.support.fuzz_messages`).  Nothing here trusts the server: every frame is parsed
with a strict JSON parser, every reply is matched to the request it answers, and a refused
request is checked to have changed nothing anyone else can see.

* :class:`Conn` — one raw WebSocket.  Requests on a connection are answered one after
  another, in order, so the replies (``welcome``, ``pong``, ``ack``, ``error``, ``lobby``,
  ``assist`` and ``table`` with an id) are matched to the pending requests first in, first
  out; the other frames (pushes) are kept for the "nothing changed" windows.
* :func:`expect_for` — what the server must do with a frame, decided the way the server
  reads one (size, JSON, id, type, fields), so that an id is echoed exactly when it should be.
* :class:`Fuzzer` — the world: a live server with a few tables in play, several connections,
  what is known about every table, and :meth:`Fuzzer.send_frames`, which sends one action's
  frames and checks the invariants afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import json
import math
import pkgutil
import re
import sys
import time
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bodoge.core.errors import GameError
from bodoge.core.values import JSON
from bodoge.games import registry
from bodoge.server.runtime.config import Limits
from bodoge.server.runtime.protocol import CLIENT_MESSAGES, CLOSE_CODES, ERRORS, SERVER_MESSAGES
from bodoge.server.services.replies import REMEMBERED
from tests.support.jsonpatch import PatchError, apply_patch
from tests.support.live_server import LiveServer

Message = dict[str, JSON]

LIMITS = Limits()
#: Frames the server answers with ``too_large``.
LIMIT = LIMITS.message_bytes
#: Close codes a connection may end with: the documented ones, a normal close, 1009.
ALLOWED_CLOSE = frozenset(CLOSE_CODES) | {1000, 1001, 1009}
#: Errors about a frame that could not be read as a request: they never carry an id.
NO_ID_CODES = frozenset({"rate_limited", "bad_json", "too_large"})
#: Server messages that only ever answer a request (``table`` may be either).
REPLIES = frozenset({"welcome", "pong", "ack", "error", "lobby", "assist"})
#: Requests that change something once accepted; the server answers a repeat of one
#: (same id, same fields, same player) with its first reply and changes nothing.
STATEFUL = REMEMBERED
#: What ``table`` and ``event`` frames tell besides the view (an event only when it changed).
FACTS = ("to_act", "may_act", "deadlines", "clock", "result")
#: Seconds a request may take before "no reply" is a failure.
REPLY_SECONDS = 20.0
#: The assistant may think for a while (the server gives it up to a minute).
ASSIST_SECONDS = 70.0
#: Pace of an ordinary connection, safely under the server's 20/s with bursts of 40.
RATE, BURST = 18.0, 36.0
#: Log lines that mean the server failed.
BAD_LOG = re.compile(r"Traceback|^(ERROR|CRITICAL)\b", re.M)


def error_codes() -> frozenset[str]:
    """Every documented error code: the server's and every game's (``GameError.code``)."""
    for game in registry().values():
        package = type(game).__module__.rsplit(".", 1)[0]
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
            if info.name == "errors":
                importlib.import_module(f"{package}.{info.name}")

    def codes(cls: type[GameError]) -> set[str]:
        found = {cls.code}
        for sub in cls.__subclasses__():
            found |= codes(sub)
        return found

    return frozenset(ERRORS) | frozenset(codes(GameError))


ERROR_CODES = error_codes()


# --- JSON both ways ----------------------------------------------------------------------


@dataclass(frozen=True)
class Literal:
    """JSON text written as is: ``NaN``, ``1e400``, a number of 5000 digits."""

    text: str


@dataclass(frozen=True)
class Pairs:
    """An object written with exactly these keys in this order, duplicates included."""

    items: tuple[tuple[str, JSON], ...]


def dump(value: JSON, *, ascii: bool = False) -> str:
    """``value`` as JSON text, with :class:`Literal` and :class:`Pairs` written as they are.

    Floats that are not finite come out as the ``NaN``/``Infinity`` literals Python's json
    writes; strings holding a lone surrogate are always escaped (a text frame must be UTF-8).
    """
    if isinstance(value, Literal):
        return value.text
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, str):
        return _dump_str(value, ascii)
    if isinstance(value, Pairs | dict):
        items = value.items if isinstance(value, Pairs) else value.items()
        inner = ",".join(f"{_dump_str(str(k), ascii)}:{dump(v, ascii=ascii)}" for k, v in items)
        return "{" + inner + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(dump(v, ascii=ascii) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as JSON")


def _dump_str(text: str, ascii: bool) -> str:
    if not ascii and _utf8(text):
        return json.dumps(text, ensure_ascii=False)
    return json.dumps(text)


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _refuse_constant(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not a finite number")
    return value


def _whole(text: str) -> int:
    value = int(text)
    if abs(value) > sys.float_info.max:
        raise ValueError(f"{text[:20]}... is too large for a double")
    return value


def strict_loads(text: str | bytes) -> JSON:
    """JSON as the protocol has it: no ``NaN``/``Infinity``, no number (whole or not) too
    large for a double."""
    return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite, parse_int=_whole)


def _encodable(data: JSON) -> bool:
    try:
        json.dumps(data, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return False
    return True


class _NoId:
    def __repr__(self) -> str:
        return "NOID"


#: "The server must not echo an id."
NOID: Any = _NoId()


#: The largest integer a JavaScript client reads exactly.
MAX_SAFE_INTEGER = 2**53 - 1


def good_id(value: JSON) -> bool:
    """An id the server echoes: a string of up to 64 characters, or a safe whole number."""
    if isinstance(value, str):
        return len(value) <= 64
    return type(value) is int and abs(value) <= MAX_SAFE_INTEGER


def same_id(a: JSON, b: JSON) -> bool:
    """Exactly the same id: same JSON kind (``1`` is not ``1.0``), same value."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return repr(a) == repr(b)
    return a == b


@dataclass(frozen=True)
class Expect:
    """What the server must do with one frame, decided as the server reads it."""

    #: The id the reply must carry, or :data:`NOID`.
    echo: JSON = NOID
    #: If set, the reply must be an ``error`` with one of these codes (or ``rate_limited``).
    codes: frozenset[str] | None = None
    #: The reply must be an ``error`` (any code).
    must_fail: bool = False
    #: The request's type, once the frame reads as a request.
    kind: str | None = None
    #: The request as the server reads it.
    data: Message | None = None


def expect_for(frame: str | bytes) -> Expect:
    """What the server must answer to ``frame``, before it looks at the fields' values."""
    if isinstance(frame, bytes):
        return Expect(codes=frozenset({"bad_json"}))
    if len(frame.encode("utf-8", "surrogatepass")) > LIMIT:
        return Expect(codes=frozenset({"too_large"}))
    try:
        data = strict_loads(frame)
    except (ValueError, RecursionError):
        return Expect(codes=frozenset({"bad_json"}))
    if not isinstance(data, dict) or not _encodable(data):
        return Expect(codes=frozenset({"bad_json"}))
    rid = data.get("id")
    if rid is not None and not good_id(rid):
        return Expect(codes=frozenset({"bad_message"}))
    echo = NOID if rid is None else rid
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_MESSAGES:
        return Expect(echo, codes=frozenset({"bad_message"}))
    if set(data) - CLIENT_MESSAGES[kind] - {"type", "id"}:
        return Expect(echo, codes=frozenset({"bad_message"}), kind=kind, data=data)
    return Expect(echo, kind=kind, data=data)


def short(text: str | bytes, limit: int = 300) -> str:
    shown = repr(text[:limit])
    return shown + (f"... ({len(text)} chars)" if len(text) > limit else "")


# --- one connection -------------------------------------------------------------------------


@dataclass(eq=False)
class Pending:
    """A frame sent and the reply it is waiting for."""

    frame: str | bytes
    expect: Expect
    future: asyncio.Future[Message | None]
    sent_at: float = field(default_factory=time.monotonic)
    reply: Message | None = None


class Conn:
    """One raw WebSocket whose every frame from the server is checked."""

    def __init__(self, fuzz: Fuzzer, role: str, ws: ClientConnection) -> None:
        self.fuzz = fuzz
        self.role = role
        self.ws = ws
        #: Every message received, with whether it was a reply.
        self.messages: list[tuple[Message, bool]] = []
        self.pending: deque[Pending] = deque()
        self.player: Message | None = None
        self.token: str | None = None
        self.close_code: int | None = None
        self.closed = asyncio.Event()
        #: A close we caused (a frame beyond 1 MiB, a flood, our own close).
        self.close_expected = False
        #: Tables this tab has open (for a reconnection to reopen them).
        self.opened: set[str] = set()
        #: This tab's copy of each table: ``n``, ``view``, ``you`` and the facts.
        self.states: dict[str, Message] = {}
        self._tokens, self._stamp = BURST, time.monotonic()
        self._reader = asyncio.create_task(self._read())

    def __repr__(self) -> str:
        return f"<{self.role}>"

    @property
    def player_id(self) -> str | None:
        return self.player["id"] if self.player else None

    @property
    def open(self) -> bool:
        return not self.closed.is_set()

    # --- pacing: stay under the server's rate limit unless a test means to flood ----------

    def _refill(self) -> None:
        now = time.monotonic()
        self._tokens = min(BURST, self._tokens + (now - self._stamp) * RATE)
        self._stamp = now

    async def _pace(self) -> None:
        while True:
            self._refill()
            if self._tokens >= 1.0:
                return
            await asyncio.sleep((1.0 - self._tokens) / RATE)

    # --- sending ---------------------------------------------------------------------------

    async def send(
        self, frame: str | bytes, expect: Expect | None = None, *, pace: bool = True
    ) -> Pending:
        """Send one frame; its reply will be matched to the returned :class:`Pending`."""
        if pace:
            await self._pace()
        self._refill()
        self._tokens -= 1.0
        expect = expect or self.fuzz.expect(self, frame)
        pending = Pending(frame, expect, asyncio.get_running_loop().create_future())
        if not self.open:
            pending.future.set_result(None)
            return pending
        self.pending.append(pending)
        self.fuzz.trace_line(self, "->", frame)
        # If it is closed, the reader sees the close and settles every pending request.
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(frame)
        return pending

    async def wait(self, pending: Pending, timeout: float = REPLY_SECONDS) -> Message | None:
        """The reply to ``pending`` (``None``: the connection closed first)."""
        try:
            return await asyncio.wait_for(asyncio.shield(pending.future), timeout)
        except TimeoutError:
            self.fuzz.fail(f"{self.role}: no reply within {timeout:.0f}s to {short(pending.frame)}")
            return None

    async def request(self, message: Message, *, pace: bool = True) -> Message | None:
        """Send ``message`` with a fresh id and wait for its reply."""
        frame = dump({**message, "id": self.fuzz.new_id()})
        return await self.wait(await self.send(frame, pace=pace))

    async def ok(self, message: Message) -> Message:
        """Like :meth:`request`, for the fuzzer's own set-up: anything but success is a bug."""
        reply = await self.request(message)
        if reply is None or reply["type"] == "error":
            raise AssertionError(f"{self.role}: {message} failed: {reply}")
        return reply

    async def close(self) -> None:
        self.close_expected = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 10)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.closed.wait(), 10)

    # --- receiving ----------------------------------------------------------------------------

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                self._receive(frame)
        except ConnectionClosed:
            pass
        except Exception as exc:  # a bug here must not go unnoticed
            self.fuzz.fail(f"{self.role}: the reader failed: {exc!r}")
        finally:
            code = self.ws.close_code
            self.close_code = 1006 if code is None else code
            self.fuzz.trace_line(self, "<-", f"(closed {self.close_code} {self.ws.close_reason!r})")
            if self.close_code not in ALLOWED_CLOSE:
                self.fuzz.fail(f"{self.role}: closed with undocumented code {self.close_code}")
            elif not self.close_expected:
                self.fuzz.note(f"closed unasked with {self.close_code}", self.role)
            self.fuzz.expect_late_work()
            self.closed.set()
            while self.pending:
                pending = self.pending.popleft()
                if not pending.future.done():
                    pending.future.set_result(None)

    def _receive(self, frame: str | bytes) -> None:
        fuzz = self.fuzz
        fuzz.trace_line(self, "<-", frame)
        if isinstance(frame, bytes):
            fuzz.fail(f"{self.role}: the server sent a binary frame {short(frame)}")
            return
        try:
            message = strict_loads(frame)
        except (ValueError, RecursionError) as exc:
            fuzz.fail(
                f"{self.role}: the server sent a frame that is not JSON ({exc}): {short(frame)}"
            )
            try:  # read it leniently to keep the bookkeeping going
                message = json.loads(frame)
            except ValueError:
                return
        if not isinstance(message, dict) or message.get("type") not in SERVER_MESSAGES:
            fuzz.fail(f"{self.role}: not a server message: {short(frame)}")
            return
        kind = message["type"]
        if kind == "error":
            code = message.get("code")
            if code not in ERROR_CODES:
                fuzz.fail(f"{self.role}: undocumented error code {code!r}: {short(frame)}")
            if not isinstance(message.get("message"), str):
                fuzz.fail(f"{self.role}: an error without a message: {short(frame)}")
        head = self.pending[0] if self.pending else None
        is_reply = kind in REPLIES or (
            kind == "table"
            and (
                "id" in message
                or (
                    head is not None
                    and head.expect.kind == "table.open"
                    and head.expect.echo is NOID
                )
            )
        )
        self.messages.append((message, is_reply))
        fuzz.learn(self, message)
        if not is_reply:
            return
        if head is None:
            fuzz.fail(f"{self.role}: a reply nobody asked for: {short(frame)}")
            return
        self.pending.popleft()
        head.reply = message
        fuzz.check_reply(self, head, message)
        if not head.future.done():
            head.future.set_result(message)

    def pushes_since(self, mark: int) -> list[Message]:
        return [m for m, is_reply in self.messages[mark:] if not is_reply]


# --- the world ----------------------------------------------------------------------------


@dataclass
class TableInfo:
    """What the fuzzer knows of a table, from every message any connection received."""

    id: str
    game: str | None = None
    seats: list[Message] = field(default_factory=list)
    status: str | None = None
    settings: Message = field(default_factory=dict)
    n: int = 0

    def humans(self) -> dict[str, int]:
        return {
            s["player"]["id"]: s["seat"]
            for s in self.seats
            if s.get("kind") == "human" and s.get("player")
        }

    def bot_seat(self, seat: JSON) -> bool:
        return (
            isinstance(seat, int)
            and 0 <= seat < len(self.seats)
            and self.seats[seat].get("kind") == "bot"
        )


def seating(seats: JSON, status: JSON) -> JSON:
    """Who sits where and the status, without names or connection marks."""
    return status, tuple(
        (
            s.get("seat"),
            s.get("kind"),
            (s.get("player") or {}).get("id"),
            s.get("level"),
            (s.get("left") or {}).get("id"),
        )
        for s in seats or ()
        if isinstance(s, dict)
    )


def table_id_of(message: Message) -> str | None:
    table = message.get("table")
    if isinstance(table, dict):
        table = table.get("id")
    return table if isinstance(table, str) else None


#: Roles: who sits where.  ``A``/``A2`` are two tabs of one player; ``S`` watches every table
#: and the lobby; ``N`` starts each example anonymous; ``O`` is the fuzzer's own observer
#: (never fuzzed) whose snapshots tell whether a refused request changed a table.
FUZZED_ROLES = ("A", "A2", "B", "C", "D", "S", "N")
NAMES = {"A": "Ann", "B": "Bob", "C": "Cat", "D": "Dan", "S": "Sue", "O": "Observer"}


class Fuzzer:
    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.conns: dict[str, Conn] = {}
        self.tokens: dict[str, str] = {}  # role -> token of the role's own player
        self.violations: list[str] = []
        self.notes: Counter[str] = Counter()
        self.note_examples: dict[str, str] = {}
        self.stats: Counter[str] = Counter()
        self.trace: deque[str] = deque(maxlen=60)
        self.tables: dict[str, TableInfo] = {}
        self.fixed: dict[str, str] = {}  # "T2", "T4", "IL", "W" -> table id
        self.created: dict[str, None] = {}  # tables the examples made, oldest first
        self.dead: set[str] = set()
        self.views: dict[tuple[str, str], Message] = {}  # (player id, table) -> state message
        self.sent: deque[tuple[Conn, Pending]] = deque(maxlen=40)
        self._ids = itertools.count(1)
        self._log_offset = 0
        self._snapshots: dict[str, tuple[Conn, int, Message]] = {}
        #: Each table's seating when the current window opened (see :meth:`marks`).
        self._seating_before: dict[str, JSON] = {}
        #: Until then, work the server does after a reply may still arrive: a closed tab's
        #: "disconnected", a rename's fresh seats.
        self._async_until = 0.0
        self._started = time.monotonic()

    # --- bookkeeping --------------------------------------------------------------------------

    def new_id(self) -> int:
        return next(self._ids)

    def fresh_id(self, form: str) -> JSON:
        """A request id never used before, in one of several JSON forms."""
        n = self.new_id()
        return {
            "int": n,
            "str": f"r{n}",
            "negative": -n,
            "unicode": f"ид-{n}-🎲",
            "long": f"{n:064d}",
            "safe": MAX_SAFE_INTEGER - n,
            # Not ids the server echoes: a float, an integer JavaScript cannot hold.
            "float": n + 0.5,
            "whole_float": float(n),
            "big": 2**53 + n,
        }.get(form, n)

    def fail(self, message: str) -> None:
        self.violations.append(message)

    def note(self, what: str, frame: str | bytes) -> None:
        """Something worth a line in the report that breaks no invariant (with an example)."""
        if not self.notes[what]:
            self.note_examples[what] = short(frame, 200)
        self.notes[what] += 1

    def trace_line(self, conn: Conn, arrow: str, frame: str | bytes) -> None:
        stamp = time.monotonic() - self._started
        self.trace.append(f"{stamp:8.3f} {conn.role:>3} {arrow} {short(frame, 200)}")

    def table(self, table_id: str) -> TableInfo:
        info = self.tables.get(table_id)
        if info is None:
            info = self.tables[table_id] = TableInfo(table_id)
        return info

    def expect(self, conn: Conn, frame: str | bytes) -> Expect:
        """:func:`expect_for`, plus what the connection's identity decides."""
        expect = expect_for(frame)
        if expect.codes is None and expect.kind is not None:
            if conn.player is None and expect.kind not in ("hello", "ping"):
                return Expect(
                    expect.echo, frozenset({"need_hello"}), True, expect.kind, expect.data
                )
            if conn.player is not None and expect.kind == "hello":
                return Expect(
                    expect.echo, frozenset({"bad_message"}), True, expect.kind, expect.data
                )
        return expect

    def learn(self, conn: Conn, message: Message) -> None:
        """Keep what a message tells about tables and views."""
        kind = message["type"]
        table_id = table_id_of(message)
        if table_id in self.tables and kind in ("table", "table.seats"):
            info = self.tables[table_id]
            self._seating_before.setdefault(table_id, seating(info.seats, info.status))
        try:
            if kind == "table":
                self._summary(message.get("table"))
            elif kind == "lobby.update" or kind == "lobby":
                for summary in message.get("tables") or []:
                    self._summary(summary)
            elif kind == "table.seats":
                info = self.table(message["table"])
                info.seats, info.status = message["seats"], message["status"]
            elif kind == "table.removed":
                self.table(message["table"]).status = "deleted"
                self.dead.add(message["table"])
            elif kind == "event":
                info = self.table(message["table"])
                info.n = max(info.n, message["n"])
                if message.get("result") is not None:
                    info.status = "finished"
            elif kind == "welcome" and "token" in message:
                conn.player, conn.token = message["player"], message["token"]
        except (KeyError, TypeError, AttributeError) as exc:
            self.fail(f"{conn.role}: a {kind} message of the wrong shape ({exc!r}): {message}")
            return
        if kind == "table" and message.get("view") is not None:
            summary = message.get("table") or {}
            if summary.get("status") == "waiting":
                self.fail(
                    f"{conn.role}: a table snapshot with a view says status waiting: "
                    f"{short(json.dumps(summary))}"
                )
        self._follow(conn, message)

    def _follow(self, conn: Conn, message: Message) -> None:
        """Keep each tab's copy of its tables (``n``, the view, the facts) from its frames:
        a ``table`` snapshot sets it, an ``event`` patches the view and updates the facts it
        carries.  A patch that does not apply is a failure."""
        kind = message["type"]
        if kind == "table" and isinstance(message.get("table"), dict):
            table_id = message["table"].get("id")
            state = {key: message.get(key) for key in ("n", "view", "you", *FACTS)}
        elif kind == "event" and message.get("table") in conn.states:
            table_id = message["table"]
            state = dict(conn.states[table_id])
            if message.get("n") != state["n"] + 1:  # a gap, or a catch-up: lost until a snapshot
                del conn.states[table_id]
                return
            try:
                if "view" in message:  # whole views, as the protocol once had it
                    state["view"] = message["view"]
                elif state["view"] is not None or message.get("patch"):
                    state["view"] = apply_patch(
                        state["view"], message.get("patch"), message.get("events")
                    )
            except PatchError as exc:
                self.fail(f"{conn.role}: move {message.get('n')}'s patch does not apply ({exc})")
                del conn.states[table_id]
                return
            state["n"] = message["n"]
            state.update({key: message[key] for key in FACTS if key in message})
        else:
            return
        if not isinstance(table_id, str):
            return
        conn.states[table_id] = state
        if conn.player_id and state["view"] is not None and state.get("you") is not None:
            self.views[(conn.player_id, table_id)] = state

    def _summary(self, summary: JSON) -> None:
        if not isinstance(summary, dict):
            raise TypeError("a table summary is an object")
        info = self.table(summary["id"])
        info.game, info.seats, info.status = summary["game"], summary["seats"], summary["status"]
        info.settings, info.n = summary.get("settings") or {}, summary["n"]

    def check_reply(self, conn: Conn, pending: Pending, reply: Message) -> None:
        """The reply answers its request: the right id, and an error where one is due."""
        expect = pending.expect
        what = f"{conn.role}: {short(pending.frame)} got {short(json.dumps(reply))}"
        is_error = reply["type"] == "error"
        code = reply.get("code")
        if is_error and code in NO_ID_CODES:
            if "id" in reply:
                self.fail(f"{what}: a {code} error carries an id")
            if code == "bad_json" and expect.codes is None:
                self.note("bad_json for a frame Python's json module reads", pending.frame)
            if code == "too_large" and "too_large" not in (expect.codes or ()):
                self.fail(f"{what}: too_large for a frame of at most {LIMIT} bytes")
            if code == "rate_limited":
                self.stats["rate_limited"] += 1
                return
        elif expect.echo is NOID:
            if "id" in reply:
                self.fail(f"{what}: the reply carries an id the request did not have")
        elif "id" not in reply or not same_id(reply["id"], expect.echo):
            self.fail(f"{what}: the reply does not echo the id {expect.echo!r}")
        if expect.codes is not None and (not is_error or code not in expect.codes):
            self.fail(f"{what}: expected an error {sorted(expect.codes)}")
        elif expect.must_fail and not is_error:
            self.fail(f"{what}: this request must be refused")
        if is_error and code == "internal_error":
            self.fail(f"{what}: the server failed (internal_error)")
        table = (expect.data or {}).get("table")
        if not is_error and isinstance(table, str):
            if expect.kind == "table.open":
                conn.opened.add(table)
            elif expect.kind == "table.close":
                conn.opened.discard(table)
        self.stats[f"{expect.kind or '?'} -> {code if is_error else reply['type']}"] += 1

    # --- connections --------------------------------------------------------------------------

    async def connect(self, role: str, *, hello: bool = True) -> Conn:
        ws = await connect(
            self.server.ws_url,
            compression=None,
            max_size=None,
            open_timeout=20,
            ping_interval=None,
        )
        conn = Conn(self, role, ws)
        old = self.conns.get(role)
        self.conns[role] = conn
        if old is not None and old.open:
            await old.close()
        token = self.tokens.get(role)
        if hello and (token is not None or role in NAMES):
            welcome = await conn.ok(
                {"type": "hello", "token": token, "name": NAMES.get(role)}
                if token is None
                else {"type": "hello", "token": token}
            )
            self.tokens.setdefault(role, welcome["token"])
        return conn

    def open_conns(self) -> list[Conn]:
        return [c for c in self.conns.values() if c.open]

    async def barrier(self, skip: Conn | None = None) -> None:
        """Every connection (but ``skip``) has received what was sent to it before now.

        A change's messages are queued to every connection before its reply goes out, so a
        ``pong`` on each connection comes after all of them.
        """
        conns = [c for c in self.open_conns() if c is not skip]
        await asyncio.gather(*(c.request({"type": "ping"}) for c in conns))

    async def settle(self, seconds: float = 0.3) -> None:
        """Let work the server does after a reply (a closed tab, a rename) land, then sync."""
        await asyncio.sleep(seconds)
        await self.barrier()

    def marks(self) -> dict[Conn, int]:
        """Open a window: where each connection's messages stand now."""
        self._seating_before = {}
        return {c: len(c.messages) for c in self.open_conns()}

    def expect_late_work(self, seconds: float = 3.0) -> None:
        """A tab closed or a player was renamed: the seats' marks may change a little later."""
        self._async_until = max(self._async_until, time.monotonic() + seconds)

    def _late_work(self, message: Message) -> bool:
        """Seats that changed only in names or connection marks, soon after a tab closed or a
        rename: the server's own follow-up, not the refused request."""
        if time.monotonic() > self._async_until:
            return False
        table_id = table_id_of(message)
        before = self._seating_before.get(table_id or "")
        if message["type"] == "table.seats":
            now = seating(message.get("seats"), message.get("status"))
        else:
            return False
        return before is not None and before == now

    # --- the server's log ---------------------------------------------------------------------

    def check_log(self) -> None:
        try:
            with open(self.server.log_path, "rb") as f:
                f.seek(self._log_offset)
                new = f.read()
        except OSError:
            return
        self._log_offset += len(new)
        text = new.decode(errors="replace")
        if BAD_LOG.search(text):
            self.fail(f"the server logged a failure:\n{text[-4000:]}")

    # --- the "nothing changed" check ------------------------------------------------------------

    def _background(self, message: Message) -> bool:
        """A move no request made: a bot's, a clock's, a timed-out turn's, a secret voter's."""
        if message["type"] != "event":
            return False
        info = self.table(message["table"])
        seat = message.get("seat")
        return seat is None or info.bot_seat(seat) or info.settings.get("turn_seconds") is not None

    async def snapshot(self, table_id: str, *, cached: bool = False) -> Message | None:
        """The observer's ``table`` snapshot of a table (``cached``: the last one, if the
        observer has been told of no change since)."""
        observer = self.conns.get("O")
        if observer is None or not observer.open:
            return None
        last = self._snapshots.get(table_id)
        if cached and last is not None and last[0] is observer:
            _, mark, snapshot = last
            news = [m for m in observer.pushes_since(mark) if table_id_of(m) == table_id]
            if not news:
                return snapshot
        reply = await observer.request({"type": "table.open", "table": table_id})
        if reply is None or reply["type"] != "table":
            return None
        snapshot = {k: v for k, v in reply.items() if k != "id"}
        self._snapshots[table_id] = (observer, len(observer.messages), snapshot)
        return snapshot

    def check_unchanged(
        self,
        what: str,
        marks: dict[Conn, int],
        table_id: str | None,
        before: Message | None,
        after: Message | None,
    ) -> None:
        """A refused request: nobody received a message it caused, and its table is as it was."""
        pushes = [(c, m) for c, mark in marks.items() for m in c.pushes_since(mark)]
        busy = {m["table"] for _, m in pushes if self._background(m)}
        for conn, message in pushes:
            if self._background(message):
                continue
            table = table_id_of(message)
            if (
                message["type"] == "table.seats"
                and message.get("status") == "finished"
                and (table in busy)
            ):
                continue  # a bot's move ended the game meanwhile
            if message["type"] == "lobby.update":
                # The lobby's changes are gathered and sent up to 0.25 s late, whatever caused
                # them (runtime/lobby.py); every change also comes as a table message, which
                # is checked.
                continue
            if self._late_work(message):
                self.stats["(late seat updates excused)"] += 1
                continue
            self.fail(f"{what}: refused, yet {conn.role} received {short(json.dumps(message))}")
        self.stats["(refusals checked for changes)"] += 1
        if before is not None and after is not None and table_id not in busy:
            self.stats["(refusals checked with snapshots)"] += 1
        if before is not None and after is not None and table_id not in busy and before != after:
            diff = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            self.fail(
                f"{what}: refused, yet the table changed ({', '.join(diff)}):\n"
                f"  before {short(json.dumps(before), 600)}\n"
                f"  after  {short(json.dumps(after), 600)}"
            )

    def known_table(self, frame: str | bytes) -> str | None:
        """The table a request names, when it is one the fuzzer knows (to snapshot it)."""
        expect = expect_for(frame)
        table = (expect.data or {}).get("table")
        if isinstance(table, str) and table in self.tables and table not in self.dead:
            return table
        return None

    def report(self) -> str:
        lines = ["violations:", *(f"  - {v}" for v in self.violations[:20])]
        lines += ["recent frames:", *(f"  {t}" for t in self.trace)]
        return "\n".join(lines)

    def raise_violations(self, action: object) -> None:
        if self.violations:
            message = f"after {action!r}\n{self.report()}"
            self.violations.clear()
            raise AssertionError(message)

    # --- sending an action's frames --------------------------------------------------------------

    async def send_frames(
        self,
        conn: Conn,
        frames: Iterable[str | bytes],
        *,
        must_fail: bool = False,
        pace: bool = True,
        what: str = "",
        repeat_of: Pending | None = None,
    ) -> list[Message | None]:
        """Send frames on one connection, then check every invariant for them."""
        frames = list(frames)
        table_id = self.known_table(frames[0]) if len(frames) == 1 else None
        # The window opens before the snapshot: a bot's move that lands just after the
        # snapshot is then seen in the window (and excuses a changed table).
        marks = self.marks()
        before = await self.snapshot(table_id, cached=True) if table_id else None
        sent: list[Pending] = []
        for frame in frames:
            expect = self.expect(conn, frame)
            if must_fail and not expect.must_fail:
                expect = Expect(expect.echo, expect.codes, True, expect.kind, expect.data)
            sent.append(await conn.send(frame, expect, pace=pace))
        replies = [
            await conn.wait(p, ASSIST_SECONDS if p.expect.kind == "assist" else REPLY_SECONDS)
            for p in sent
        ]
        for pending in sent:
            self.sent.append((conn, pending))
        closed = not conn.open or any(not c.open for c in marks)
        refused = [r for r in replies if r is not None and r["type"] == "error"]
        repeat_accepted = repeat_of is not None and self._check_repeat(conn, repeat_of, replies)
        check = not closed and bool(replies) and (len(refused) == len(replies) or repeat_accepted)
        kinds = {p.expect.kind for p in sent}
        after = None
        if closed or (len(refused) < len(replies) and kinds & {"rename", "hello"}):
            self.expect_late_work()
            await self.settle()  # a closed tab, a rename: the server has work left to do
        elif check and table_id:
            # The observer's snapshot is its barrier: it is answered after what came before.
            after, _ = await asyncio.gather(
                self.snapshot(table_id), self.barrier(skip=self.conns.get("O"))
            )
        else:
            await self.barrier()
        if check:
            label = what or short(frames[0])
            self.check_unchanged(f"{conn.role}: {label}", marks, table_id, before, after)
        for pending, reply in zip(sent, replies, strict=True):
            if (
                reply is not None
                and reply["type"] == "ack"
                and pending.expect.kind == ("table.create")
            ):
                self.created[reply["table"]] = None
        self.check_log()
        return replies

    def _check_repeat(self, conn: Conn, first: Pending, replies: list[Message | None]) -> bool:
        """A repeated accepted change gets its first reply again; ``True`` if it must change
        nothing."""
        original = first.reply
        if (
            original is None
            or original["type"] == "error"
            or first.expect.kind not in STATEFUL
            or first.expect.echo is NOID
            or len(replies) != 1
            or replies[0] is None
            or replies[0].get("code") == "rate_limited"
        ):
            return False
        if replies[0] != original:
            self.fail(
                f"{conn.role}: repeating {short(first.frame)} (id {first.expect.echo!r}, "
                f"answered {short(json.dumps(original))}) got {short(json.dumps(replies[0]))}"
            )
        return True

    # --- the world: tables in play, connections, and putting them back between examples ------

    async def setup(self) -> None:
        """Connect every role and set the tables up (see :meth:`repair`)."""
        for role in ("O", "S", "A", "B", "C", "D"):
            await self.connect(role)
        self.tokens["A2"] = self.tokens["A"]
        await self.connect("A2")
        await self.connect("N", hello=False)
        await self.repair()

    async def reconnect(self, role: str, *, reopen: bool = False) -> Conn:
        """A fresh connection for ``role`` (its player again; ``N`` anonymous again).

        With ``reopen`` the new tab reopens the old one's tables with ``since``, as a client
        coming back does.
        """
        old = self.conns.get(role)
        if old is not None and old.open:
            await old.close()
        await self.settle()  # the server has closed the old tab's tables
        conn = await self.connect(role, hello=role != "N")
        if reopen and old is not None and old.player_id is not None and role != "N":
            for table_id in sorted(old.opened):
                # The client keeps what it had and catches up on the moves it missed.
                state = old.states.get(table_id)
                since = None
                if state is not None:
                    conn.states[table_id] = state
                    since = state["n"]
                message = {"type": "table.open", "table": table_id, "since": since}
                await self.send_frames(
                    conn,
                    [dump({**message, "id": self.new_id()})],
                    what=f"reopen {table_id} since {since}",
                )
        await self.barrier()
        return conn

    def _seated(self, key: str, *roles: str) -> bool:
        info = self.tables.get(self.fixed.get(key, ""))
        if info is None:
            return False
        wanted = {self.conns[r].player_id for r in roles}
        return wanted <= set(info.humans()) and info.status == (
            "waiting" if key == "W" else "playing"
        )

    async def repair(self) -> None:
        """Put the world back as each example expects it.

        * ``T2``: Tagiron for 2, Ann (tabs ``A`` and ``A2``) against an easy bot;
        * ``T4``: Tagiron for 4, Bob and Cat and two easy bots;
        * ``IL``: Illustori for 3 in English, Dan and two easy bots;
        * ``W``: a waiting Tagiron table for 3: Dan, a bot, a free seat;
        * ``S`` watches all four and the lobby, ``O`` too; ``N`` is anonymous.

        A table that finished, was left or was started is replaced by a new one; tables the
        examples made are left (and so deleted, or handed to bots).
        """
        for role in ("O", *FUZZED_ROLES):
            conn = self.conns.get(role)
            if conn is None or not conn.open or (role == "N" and conn.player is not None):
                await self.reconnect(role)
        for role in ("A", "A2"):  # ``N`` may have said hello with Ann's token: not these
            if self.conns[role].player_id != self.conns["A"].player_id:
                await self.reconnect(role)
        a, b, c, d = (self.conns[r] for r in "ABCD")
        watchers = {"T2": "A A2 S O", "T4": "B C S O", "IL": "D S O", "W": "D S O"}

        async def watch(key: str, table: str) -> None:
            replaced = self.fixed.get(key)
            if replaced is not None:
                self.created[replaced] = None  # left by its people below, so that it ends
            self.fixed[key] = table
            for role in watchers[key].split():
                await self.conns[role].ok({"type": "table.open", "table": table})

        # The tables are watched before they start: each tab gets the start's snapshot.
        if not self._seated("T2", "A"):
            await watch("T2", await self._create(a, "tagiron", {"players": 2}, {1: "easy"}))
            await a.ok({"type": "table.start", "table": self.fixed["T2"]})
        if not self._seated("T4", "B", "C"):
            table = await self._create(b, "tagiron", {"players": 4}, {2: "easy", 3: "easy"})
            await c.ok({"type": "table.join", "table": table, "seat": 1})
            await watch("T4", table)
            await b.ok({"type": "table.start", "table": table})
        if not self._seated("IL", "D"):
            options = {"players": 3, "language": "en"}
            await watch("IL", await self._create(d, "illustori", options, {1: "easy", 2: "easy"}))
            await d.ok({"type": "table.start", "table": self.fixed["IL"]})
        waiting = self.tables.get(self.fixed.get("W", ""))
        if not self._seated("W", "D") or not any(s["kind"] == "empty" for s in waiting.seats):
            await watch("W", await self._create(d, "tagiron", {"players": 3}, {1: "easy"}))
        for role in ("S", "O"):
            await self.conns[role].ok({"type": "lobby.subscribe"})
        await self._tidy()
        await self.barrier()
        self.check_log()
        # Each action's window starts after a barrier: what came before is no longer needed.
        for conn in self.conns.values():
            conn.messages.clear()
        self._snapshots.clear()

    async def _create(self, conn: Conn, game: str, options: Message, bots: dict[int, str]) -> str:
        bot_list = [{"seat": s, "level": level} for s, level in bots.items()]
        reply = await conn.ok(
            {"type": "table.create", "game": game, "options": options, "bots": bot_list}
        )
        self.table(reply["table"])
        return reply["table"]

    async def _tidy(self) -> None:
        """Leave the tables the examples made, so that they end (and the lobby stays small)."""
        fixed = set(self.fixed.values())
        for table_id in list(self.created):
            info = self.tables.get(table_id)
            if table_id in fixed or info is None or info.status not in ("waiting", "playing"):
                if table_id not in fixed:
                    self.created.pop(table_id, None)
                continue
            for conn in self.open_conns():
                if conn.player_id in info.humans():
                    await conn.request({"type": "table.leave", "table": table_id})
            self.created.pop(table_id, None)

    async def responsive(self, timeout: float = 5.0) -> float:
        """A new connection's ``ping`` is answered in time; returns the seconds it took."""
        started = time.monotonic()
        try:
            ws = await asyncio.wait_for(
                connect(self.server.ws_url, compression=None, open_timeout=timeout), timeout
            )
        except (OSError, TimeoutError) as exc:
            self.fail(f"a new connection failed: {exc!r}")
            return time.monotonic() - started
        conn = Conn(self, "new", ws)
        try:
            reply = await conn.wait(
                await conn.send(dump({"type": "ping", "id": "alive"})), timeout=timeout
            )
            if reply is None or reply.get("type") != "pong":
                self.fail(f"a new connection's ping got {reply} (not a pong within {timeout}s)")
        finally:
            await conn.close()
        return time.monotonic() - started

    async def close(self) -> None:
        for conn in list(self.conns.values()):
            if conn.open:
                await conn.close()

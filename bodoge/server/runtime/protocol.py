"""The WebSocket protocol's vocabulary: message types, error codes and close codes.

``docs/protocol.md`` documents exactly these types and codes (a test checks
it), so this module is the one place to add a message.  Reading a client's
frame into a typed command is the edge's (``bodoge.server.edge.requests``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime

import orjson

from bodoge.core.values import JSON
from bodoge.server.runtime import clock

#: Messages a client sends, with the fields each accepts (besides ``type`` and ``id``).
CLIENT_MESSAGES: dict[str, frozenset[str]] = {
    "hello": frozenset({"token", "name", "lang"}),
    "rename": frozenset({"name"}),
    "ping": frozenset(),
    "lobby.subscribe": frozenset(),
    "lobby.unsubscribe": frozenset(),
    "table.create": frozenset({"game", "options", "settings", "bots"}),
    "table.join": frozenset({"table", "seat"}),
    "table.leave": frozenset({"table"}),
    "table.add_bot": frozenset({"table", "seat", "level"}),
    "table.remove_bot": frozenset({"table", "seat"}),
    "table.remove_player": frozenset({"table", "seat"}),
    "table.start": frozenset({"table"}),
    "table.rematch": frozenset({"table"}),
    "table.settings": frozenset({"table", "settings", "options"}),
    "table.open": frozenset({"table", "since", "chat_since"}),
    "table.close": frozenset({"table"}),
    "move": frozenset({"table", "move"}),
    "chat": frozenset({"table", "text"}),
    "assist": frozenset({"table"}),
}

#: Messages the server sends.
SERVER_MESSAGES: frozenset[str] = frozenset(
    {
        "welcome",
        "pong",
        "ack",
        "error",
        "lobby",
        "lobby.update",
        "table",
        "table.seats",
        "table.removed",
        "event",
        "chat",
        "assist",
    }
)

#: The server's own error codes (games add theirs: every ``GameError.code``).
ERRORS: dict[str, str] = {
    "bad_json": "the frame is not a JSON object (or holds invalid Unicode)",
    "bad_message": "unknown type, missing or unexpected field, or a field of the wrong kind",
    "too_large": "the frame is larger than the limit",
    "rate_limited": "too many messages: this one was dropped",
    "need_hello": "say hello first",
    "bad_token": "the token is not one this server gave out",
    "bad_name": "a name must be 1-24 characters of text",
    "unknown_table": "no such table",
    "unknown_game": "no such game",
    "bad_options": "game options or table settings the game does not accept",
    "bad_seat": "no such seat, or not a seat of the kind the request needs",
    "seat_taken": "the seat is not free",
    "already_seated": "this player already holds a seat at the table",
    "not_seated": "this player holds no seat at the table",
    "not_host": "only the table's host may do this",
    "removed": "the host removed this player from the waiting table: they may not sit again",
    "table_full": "no seat is free",
    "not_full": "a seat is still free",
    "not_waiting": "the game has started",
    "not_playing": "the game is not running",
    "not_finished": "the game is not over yet",
    "no_bot": "the game has no bots to take the seat",
    "bad_text": "chat text must be 1-300 characters",
    "no_assistant": "no assistant at this table",
    "too_many_connections": "this player or address has too many connections open",
    "new_player_rate_limited": "too many new players from this address: wait a little",
    "too_many_tables": "this player hosts as many waiting tables as one may",
    "too_many_turn_tables": "this player sits at as many open turn-based tables as one may",
    "table_rate_limited": "this player created tables too fast: wait a little",
    "store_unavailable": "the database cannot write now (a full disk): nothing changed",
    "table_unavailable": "the server process that runs the table did not answer: try again",
    "internal_error": "the server failed; nothing changed",
}

#: WebSocket close codes the server uses.
CLOSE_CODES: dict[int, str] = {
    4001: "signed out: the token this connection said hello with was ended",
    4008: "flooding: kept sending after rate_limited",
    4009: "too slow: the client fell too far behind and must resync",
    1009: "a frame beyond the hard size limit",
    4029: "too many connections from this player or address",
    1012: "this server process no longer runs the table (cluster): reconnect and resync",
}

TABLE_ID = re.compile(r"t_[a-z0-9]{4,30}")


class ProtocolError(Exception):
    """A request the server refuses, with one of :data:`ERRORS`' codes."""

    def __init__(self, code: str, message: str, *, request_id: JSON = None) -> None:
        if code not in ERRORS:
            raise ValueError(f"undocumented error code {code!r}")
        super().__init__(message)
        self.code = code
        #: The id of a request that could be read but not accepted, to echo in the error.
        self.request_id = request_id


def encode(message: Mapping[str, JSON]) -> str:
    """One message as a compact JSON text frame.

    orjson is about ten times faster than ``json`` here, and never writes ``NaN`` or
    ``Infinity`` (which JSON lacks): a non-finite float would become ``null``.
    """
    return orjson.dumps(message).decode()


#: The largest integer a JavaScript client reads exactly: ids beyond it would come back changed.
MAX_SAFE_INTEGER = 2**53 - 1


def parse_json(text: str) -> JSON:
    """Strict JSON: ``NaN``, ``Infinity``, numbers that overflow to infinity and lone
    surrogates are errors (``ValueError``).

    >>> parse_json('{"id": 1.5}')
    {'id': 1.5}
    >>> parse_json('{"id": 1e400}')  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    orjson.JSONDecodeError: number is infinity when parsed as double
    """
    return orjson.loads(text)


def now_ms() -> int:
    """Now, in wall-clock milliseconds, as the server's clock has it (:mod:`.clock`)."""
    return clock.now_ms()


def iso(ms: int | None) -> str | None:
    """A stored time as ISO 8601 UTC with milliseconds.

    >>> iso(0)
    '1970-01-01T00:00:00.000Z'
    """
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

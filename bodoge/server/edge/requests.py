"""A client's frame read once: the envelope (:class:`Request`), then its typed command.

>>> req = Request.parse('{"type": "table.join", "table": "t_ab12", "id": 7}')
>>> req.type, req.id, parse_command(req, chat_chars=300)
('table.join', 7, Join(table='t_ab12', seat=None))
>>> Request.parse('{"type": "dance"}')  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
ProtocolError: unknown message type 'dance'

The commands that change one table are the runtime's (:mod:`bodoge.server.runtime.commands`,
which another process runs too); those here concern the connection itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from bodoge.core.values import JSON, is_whole
from bodoge.server.runtime.commands import (
    AddBot,
    Configure,
    Join,
    Leave,
    Move,
    RemoveBot,
    RemovePlayer,
    Say,
    Start,
    TableCommand,
)
from bodoge.server.runtime.protocol import (
    CLIENT_MESSAGES,
    MAX_SAFE_INTEGER,
    TABLE_ID,
    ProtocolError,
    parse_json,
)
from bodoge.server.services.identity import check_text


@dataclass(frozen=True, slots=True)
class Hello:
    TYPE: ClassVar[str] = "hello"
    token: JSON
    name: JSON
    lang: str | None


@dataclass(frozen=True, slots=True)
class Ping:
    TYPE: ClassVar[str] = "ping"


@dataclass(frozen=True, slots=True)
class Rename:
    TYPE: ClassVar[str] = "rename"
    name: JSON


@dataclass(frozen=True, slots=True)
class LobbySubscribe:
    TYPE: ClassVar[str] = "lobby.subscribe"


@dataclass(frozen=True, slots=True)
class LobbyUnsubscribe:
    TYPE: ClassVar[str] = "lobby.unsubscribe"


@dataclass(frozen=True, slots=True)
class CreateTable:
    TYPE: ClassVar[str] = "table.create"
    game: str
    options: Mapping[str, JSON] | None
    settings: Mapping[str, JSON] | None
    bots: JSON


@dataclass(frozen=True, slots=True)
class Rematch:
    TYPE: ClassVar[str] = "table.rematch"
    table: str


@dataclass(frozen=True, slots=True)
class OpenTable:
    TYPE: ClassVar[str] = "table.open"
    table: str
    since: int | None
    chat_since: int | None


@dataclass(frozen=True, slots=True)
class CloseTable:
    TYPE: ClassVar[str] = "table.close"
    table: str


@dataclass(frozen=True, slots=True)
class Assist:
    TYPE: ClassVar[str] = "assist"
    table: str


Command = (
    Hello
    | Ping
    | Rename
    | LobbySubscribe
    | LobbyUnsubscribe
    | CreateTable
    | Rematch
    | OpenTable
    | CloseTable
    | Assist
    | TableCommand
)


class Request:
    """A client message's envelope: its type, optional ``id`` and (checked) field names."""

    __slots__ = ("data", "id", "type")

    def __init__(self, data: dict[str, JSON]) -> None:
        self.data = data
        self.id = data.get("id")
        self.type: str = str(data["type"])

    @classmethod
    def parse(cls, text: str) -> Request:
        """Parse one text frame; raises :class:`ProtocolError` (``bad_json``/``bad_message``)."""
        try:
            data = parse_json(text)
        except (ValueError, RecursionError):
            raise ProtocolError("bad_json", "the message is not valid JSON") from None
        if not isinstance(data, dict):
            raise ProtocolError("bad_json", "a message is a JSON object")
        rid = data.get("id")
        if rid is not None and not _good_id(rid):
            data.pop("id")
            raise ProtocolError(
                "bad_message", "id must be a string of up to 64 characters or a safe integer"
            )
        kind = data.get("type")
        if not isinstance(kind, str):
            raise ProtocolError("bad_message", "a message needs a string type", request_id=rid)
        fields = CLIENT_MESSAGES.get(kind)
        if fields is None:
            raise ProtocolError(
                "bad_message", f"unknown message type {kind[:40]!r}", request_id=rid
            )
        extra = set(data) - fields - {"type", "id"}
        if extra:
            raise ProtocolError(
                "bad_message", f"{kind} has no field {sorted(extra)[0][:40]!r}", request_id=rid
            )
        return cls(data)

    # Field readers: each raises bad_message with the field's name.  (Not ``str``/``int``:
    # methods of those names would shadow the builtins in the annotations below them.)

    def need_str(self, key: str) -> str:
        value = self.data.get(key)
        if not isinstance(value, str):
            raise ProtocolError("bad_message", f"{self.type} needs a string {key}")
        return value

    def opt_str(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is not None and not isinstance(value, str):
            raise ProtocolError("bad_message", f"{key} must be a string")
        return value

    def opt_int(self, key: str) -> int | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, int) or not is_whole(value):
            raise ProtocolError("bad_message", f"{key} must be a whole number")
        return value

    def need_int(self, key: str) -> int:
        value = self.opt_int(key)
        if value is None:
            raise ProtocolError("bad_message", f"{self.type} needs a whole number {key}")
        return value

    def opt_object(self, key: str) -> dict[str, JSON] | None:
        value = self.data.get(key)
        if value is not None and not isinstance(value, dict):
            raise ProtocolError("bad_message", f"{key} must be a JSON object")
        return value

    def table(self) -> str:
        """The ``table`` field, which must look like a table id."""
        value = self.need_str("table")
        if not TABLE_ID.fullmatch(value):
            raise ProtocolError("unknown_table", "no such table")
        return value


def _good_id(value: JSON) -> bool:
    if isinstance(value, str):
        return len(value) <= 64
    return isinstance(value, int) and is_whole(value) and abs(value) <= MAX_SAFE_INTEGER


# One reader per type.  A table command's own fields are read before its table, as the
# clients have always seen (a bad seat is bad_message even at a table that is not there).


def _join(req: Request, chat_chars: int) -> Join:
    seat = req.opt_int("seat")
    return Join(req.table(), seat)


def _add_bot(req: Request, chat_chars: int) -> AddBot:
    seat, level = req.need_int("seat"), req.need_str("level")
    return AddBot(req.table(), seat, level)


def _remove_bot(req: Request, chat_chars: int) -> RemoveBot:
    seat = req.need_int("seat")
    return RemoveBot(req.table(), seat)


def _remove_player(req: Request, chat_chars: int) -> RemovePlayer:
    seat = req.need_int("seat")
    return RemovePlayer(req.table(), seat)


def _configure(req: Request, chat_chars: int) -> Configure:
    settings, options = req.opt_object("settings"), req.opt_object("options")
    if settings is None and options is None:
        raise ProtocolError("bad_message", "table.settings needs settings or options")
    return Configure(req.table(), settings, options)


def _move(req: Request, chat_chars: int) -> Move:
    move = req.opt_object("move")
    if move is None:
        raise ProtocolError("bad_message", "move needs a move object")
    return Move(req.table(), move)


def _say(req: Request, chat_chars: int) -> Say:
    text = check_text(req.data.get("text"), chat_chars)
    return Say(req.table(), text)


def _open(req: Request, chat_chars: int) -> OpenTable:
    table = req.table()
    return OpenTable(table, req.opt_int("since"), req.opt_int("chat_since"))


def _create(req: Request, chat_chars: int) -> CreateTable:
    game = req.need_str("game")
    options, settings = req.opt_object("options"), req.opt_object("settings")
    return CreateTable(game, options, settings, req.data.get("bots"))


_READERS: dict[str, Callable[[Request, int], Command]] = {
    "hello": lambda r, _: Hello(r.data.get("token"), r.data.get("name"), r.opt_str("lang")),
    "ping": lambda r, _: Ping(),
    "rename": lambda r, _: Rename(r.data.get("name")),
    "lobby.subscribe": lambda r, _: LobbySubscribe(),
    "lobby.unsubscribe": lambda r, _: LobbyUnsubscribe(),
    "table.create": _create,
    "table.join": _join,
    "table.leave": lambda r, _: Leave(r.table()),
    "table.add_bot": _add_bot,
    "table.remove_bot": _remove_bot,
    "table.remove_player": _remove_player,
    "table.start": lambda r, _: Start(r.table()),
    "table.rematch": lambda r, _: Rematch(r.table()),
    "table.settings": _configure,
    "table.open": _open,
    "table.close": lambda r, _: CloseTable(r.table()),
    "move": _move,
    "chat": _say,
    "assist": lambda r, _: Assist(r.table()),
}


def parse_command(req: Request, chat_chars: int) -> Command:
    """The request's typed command; :class:`ProtocolError` for a field it cannot take."""
    return _READERS[req.type](req, chat_chars)

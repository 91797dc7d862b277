"""Typed table commands: what a player asks of one live table, and the one map that runs each.

A connection parses a client request once into one of these (``bodoge.server.edge.requests``);
the same value runs on this process (:func:`run`, in the table's task) or travels to the
process that runs the table (``bodoge.server.replication.messages``), where it runs the same
way. Each is a small frozen value, so it can be sent, compared and logged.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from bodoge.core.game import Seat
from bodoge.core.values import JSON

if TYPE_CHECKING:
    from bodoge.server.runtime.players import Player
    from bodoge.server.runtime.table import LiveTable, Reply


@dataclass(frozen=True, slots=True)
class Join:
    TYPE: ClassVar[str] = "table.join"
    table: str
    seat: Seat | None = None


@dataclass(frozen=True, slots=True)
class Leave:
    TYPE: ClassVar[str] = "table.leave"
    table: str


@dataclass(frozen=True, slots=True)
class AddBot:
    TYPE: ClassVar[str] = "table.add_bot"
    table: str
    seat: Seat
    level: str


@dataclass(frozen=True, slots=True)
class RemoveBot:
    TYPE: ClassVar[str] = "table.remove_bot"
    table: str
    seat: Seat


@dataclass(frozen=True, slots=True)
class RemovePlayer:
    TYPE: ClassVar[str] = "table.remove_player"
    table: str
    seat: Seat


@dataclass(frozen=True, slots=True)
class Start:
    TYPE: ClassVar[str] = "table.start"
    table: str


@dataclass(frozen=True, slots=True)
class Configure:
    TYPE: ClassVar[str] = "table.settings"
    table: str
    settings: Mapping[str, JSON] | None = None
    options: Mapping[str, JSON] | None = None


@dataclass(frozen=True, slots=True)
class Move:
    TYPE: ClassVar[str] = "move"
    table: str
    move: Mapping[str, JSON] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Say:
    """A chat line, its text already checked (``identity.check_text``) where it was sent."""

    TYPE: ClassVar[str] = "chat"
    table: str
    text: str


TableCommand = Join | Leave | AddBot | RemoveBot | RemovePlayer | Start | Configure | Move | Say

#: Every table command class, by its wire type (the client's ``type``).
TABLE_COMMANDS: dict[str, type[TableCommand]] = {
    c.TYPE: c for c in (Join, Leave, AddBot, RemoveBot, RemovePlayer, Start, Configure, Move, Say)
}

C = TypeVar("C", bound=TableCommand)
Runner = Callable[["LiveTable", C, "Player", "Reply"], Awaitable[None]]

_RUNNERS: dict[type[Any], Runner[Any]] = {}


def _runs(kind: type[C]) -> Callable[[Runner[C]], Runner[C]]:
    def register(runner: Runner[C]) -> Runner[C]:
        _RUNNERS[kind] = runner
        return runner

    return register


async def run(table: LiveTable, command: TableCommand, player: Player, reply: Reply) -> None:
    """Run ``command`` for ``player`` on ``table`` (in its task): its reply goes to ``reply``."""
    await _RUNNERS[type(command)](table, command, player, reply)


@_runs(Join)
async def _join(table: LiveTable, c: Join, player: Player, reply: Reply) -> None:
    await table.join(player.id, c.seat, reply)


@_runs(Leave)
async def _leave(table: LiveTable, c: Leave, player: Player, reply: Reply) -> None:
    await table.leave(player.id, reply)


@_runs(AddBot)
async def _add_bot(table: LiveTable, c: AddBot, player: Player, reply: Reply) -> None:
    await table.add_bot(player.id, c.seat, c.level, reply)


@_runs(RemoveBot)
async def _remove_bot(table: LiveTable, c: RemoveBot, player: Player, reply: Reply) -> None:
    await table.remove_bot(player.id, c.seat, reply)


@_runs(RemovePlayer)
async def _remove_player(table: LiveTable, c: RemovePlayer, player: Player, reply: Reply) -> None:
    await table.remove_player(player.id, c.seat, reply)


@_runs(Start)
async def _start(table: LiveTable, c: Start, player: Player, reply: Reply) -> None:
    await table.begin(player.id, reply)


@_runs(Configure)
async def _configure(table: LiveTable, c: Configure, player: Player, reply: Reply) -> None:
    await table.configure(player.id, c.settings, reply, c.options)


@_runs(Move)
async def _move(table: LiveTable, c: Move, player: Player, reply: Reply) -> None:
    await table.move(player.id, c.move, reply)


@_runs(Say)
async def _say(table: LiveTable, c: Say, player: Player, reply: Reply) -> None:
    await table.say(player.id, player.name, c.text, reply)


def to_json(command: TableCommand) -> dict[str, JSON]:
    """The command as data for another process (its wire ``type`` and fields)."""
    data: dict[str, JSON] = {"type": command.TYPE}
    for f in fields(command):
        value = getattr(command, f.name)
        data[f.name] = dict(value) if isinstance(value, Mapping) else value
    return data


def from_json(data: Mapping[str, JSON]) -> TableCommand:
    """A command another process sent (:func:`to_json`); ``ValueError`` if it is not one."""
    kind = TABLE_COMMANDS.get(str(data.get("type")))
    if kind is None:
        raise ValueError(f"not a table command: {data.get('type')!r}")
    values: dict[str, Any] = {k: v for k, v in data.items() if k != "type"}
    return kind(**values)

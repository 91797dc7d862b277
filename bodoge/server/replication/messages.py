"""What the processes of a cluster say to each other, as typed values with a version.

Two kinds travel over the bus (``bodoge.cluster.bus``):

* **Calls** to the process that runs a table (``Bus.request``): :class:`RunCommand`,
  :class:`RunRematch`, :class:`Watch`, :class:`Create`, :class:`ListTables`; their answers
  :class:`CommandDone` and :class:`RematchDone` (a watch is answered with the table's facts,
  a listing with summaries and the number of its process's last lobby message, a creation
  with the owner's load).
* **Publications** of an owner on its table's channel: a :class:`Publication` carrying one of
  :class:`MovePublished`, :class:`ChatPublished`, :class:`FactsPublished`,
  :class:`RemovedPublished`; and on the lobby's channel, :class:`Listed` and :class:`Unlisted`.

Each is encoded once into JSON data (:func:`encode_call`, :func:`encode_publication`) and
read back once (:func:`decode_call`, :func:`decode_publication`); a message of another
:data:`VERSION` is refused rather than misread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from bodoge.core.game import Seat
from bodoge.core.values import JSON
from bodoge.server.runtime import commands
from bodoge.server.runtime.commands import TableCommand
from bodoge.store import SeatRecord, TableRecord

#: The version of every message here; a process refuses a message of another one.
VERSION = 1


class BadMessage(ValueError):
    """Data that is not a message of this version."""


# --- calls ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunCommand:
    OP: ClassVar[str] = "command"
    table: str
    player: str
    name: str
    command: TableCommand
    #: The client's request as it sent it (with its ``id``), when a retry of it is answered
    #: with the first reply (``owner_replies.py``); ``None``: run it whatever came before.
    request: Mapping[str, JSON] | None = None


@dataclass(frozen=True, slots=True)
class RunRematch:
    OP: ClassVar[str] = "rematch"
    table: str
    player: str
    name: str
    gone: str | None


@dataclass(frozen=True, slots=True)
class Watch:
    """Who has the table open through the sending process (``watchers``: its tabs)."""

    OP: ClassVar[str] = "watch"
    table: str
    process: str
    players: tuple[str, ...]
    watchers: int


@dataclass(frozen=True, slots=True)
class Create:
    OP: ClassVar[str] = "create"
    record: TableRecord
    seats: tuple[SeatRecord, ...]
    player: str
    name: str


@dataclass(frozen=True, slots=True)
class ListTables:
    """The open tables the process runs (its lobby's), for another process's lobby."""

    OP: ClassVar[str] = "lobby"


Call = RunCommand | RunRematch | Watch | Create | ListTables


@dataclass(frozen=True, slots=True)
class CommandDone:
    """A forwarded command's reply, and the publication that shows its change."""

    reply: dict[str, JSON]
    seq: int
    epoch: int | None


@dataclass(frozen=True, slots=True)
class RematchDone:
    rematch: str
    seat: Seat
    made: bool
    seq: int
    epoch: int | None


def encode_call(call: Call) -> dict[str, JSON]:
    data: dict[str, JSON] = {"op": call.OP, "v": VERSION}
    if isinstance(call, RunCommand):
        data |= {
            "table": call.table,
            "player": call.player,
            "name": call.name,
            "command": commands.to_json(call.command),
        }
        if call.request is not None:
            data["request"] = dict(call.request)
    elif isinstance(call, RunRematch):
        data |= {"table": call.table, "player": call.player, "name": call.name, "gone": call.gone}
    elif isinstance(call, Watch):
        data |= {
            "table": call.table,
            "process": call.process,
            "players": list(call.players),
            "watchers": call.watchers,
        }
    elif isinstance(call, Create):
        r = call.record
        data |= {
            "record": {
                "id": r.id,
                "game": r.game,
                "options": _json(r.options),
                "settings": _json(r.settings),
                "seed": r.seed,
                "host": r.host,
                "created_at": r.created_at,
            },
            "seats": [[s.seat, s.kind, s.player, s.level, s.left] for s in call.seats],
            "player": call.player,
            "name": call.name,
        }
    return data


def decode_call(data: JSON) -> Call:
    """The call ``data`` encodes; :class:`BadMessage` if it is none of this version."""
    if not isinstance(data, dict) or data.get("v") != VERSION:
        raise BadMessage("not a call of this version")
    reader = _CALLS.get(str(data.get("op")))
    if reader is None:
        raise BadMessage(f"unknown op {data.get('op')!r}")
    try:
        return reader(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise BadMessage(f"a bad {data.get('op')}: {exc}") from None


def _run_command(d: Mapping[str, Any]) -> RunCommand:
    request = d.get("request")
    if request is not None and not (isinstance(request, dict) and "id" in request):
        raise ValueError("a request is an object with an id")
    return RunCommand(
        str(d["table"]),
        str(d["player"]),
        str(d["name"]),
        commands.from_json(d["command"]),
        request,
    )


def _run_rematch(d: Mapping[str, Any]) -> RunRematch:
    gone = d.get("gone")
    return RunRematch(
        str(d["table"]), str(d["player"]), str(d["name"]), gone if isinstance(gone, str) else None
    )


def _watch(d: Mapping[str, Any]) -> Watch:
    watchers = d.get("watchers")
    return Watch(
        str(d["table"]),
        str(d["process"]),
        tuple(str(p) for p in d.get("players") or ()),
        watchers if isinstance(watchers, int) else 0,
    )


def _create(d: Mapping[str, Any]) -> Create:
    raw = d["record"]
    record = TableRecord(
        id=str(raw["id"]),
        game=str(raw["game"]),
        options=raw["options"],
        settings=raw["settings"],
        seed=int(raw["seed"]),
        status="waiting",
        host=str(raw["host"]),
        created_at=int(raw["created_at"]),
    )
    seats = tuple(SeatRecord(*row) for row in d["seats"])
    return Create(record, seats, str(d["player"]), str(d["name"]))


_CALLS: dict[str, Callable[[Mapping[str, Any]], Call]] = {
    RunCommand.OP: _run_command,
    RunRematch.OP: _run_rematch,
    Watch.OP: _watch,
    Create.OP: _create,
    ListTables.OP: lambda d: ListTables(),
}


def encode_command_done(done: CommandDone) -> dict[str, JSON]:
    return {"v": VERSION, "reply": done.reply, "seq": done.seq, "epoch": done.epoch}


def decode_command_done(data: JSON, table_id: str) -> CommandDone:
    if not isinstance(data, dict):
        raise BadMessage("not an answer")
    reply, seq, epoch = data.get("reply"), data.get("seq"), data.get("epoch")
    return CommandDone(
        reply if isinstance(reply, dict) else {"type": "ack", "table": table_id},
        seq if isinstance(seq, int) else 0,
        epoch if isinstance(epoch, int) else None,
    )


def encode_rematch_done(done: RematchDone) -> dict[str, JSON]:
    return {
        "v": VERSION,
        "rematch": done.rematch,
        "seat": done.seat,
        "made": done.made,
        "seq": done.seq,
        "epoch": done.epoch,
    }


def decode_rematch_done(data: JSON) -> RematchDone:
    if not isinstance(data, dict):
        raise BadMessage("not an answer")
    seq, epoch, seat = data.get("seq"), data.get("epoch"), data.get("seat")
    if not isinstance(seat, int):
        raise BadMessage("a rematch's answer names a seat")
    return RematchDone(
        str(data["rematch"]),
        seat,
        bool(data.get("made")),
        seq if isinstance(seq, int) else 0,
        epoch if isinstance(epoch, int) else None,
    )


# --- publications -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MovePublished:
    """A committed move as stored; a mirror applies it with the game's pure rules."""

    KIND: ClassVar[str] = "move"
    n: int
    seat: Seat | None
    move: JSON
    at: int
    actor: str
    deadlines: dict[str, int]
    clock_deadline: int | None


@dataclass(frozen=True, slots=True)
class ChatPublished:
    KIND: ClassVar[str] = "chat"
    line: int
    player: str
    name: str
    text: str
    at: int


@dataclass(frozen=True, slots=True)
class FactsPublished:
    """The table's public facts (``publishing.facts_of``); ``notify``: tabs are told."""

    KIND: ClassVar[str] = "table"
    facts: dict[str, JSON]
    notify: bool


@dataclass(frozen=True, slots=True)
class RemovedPublished:
    KIND: ClassVar[str] = "removed"


Published = MovePublished | ChatPublished | FactsPublished | RemovedPublished


@dataclass(frozen=True, slots=True)
class Publication:
    """One change of a table as its owner tells it: numbered ``seq`` within ``epoch``."""

    table: str
    seq: int
    owner: str | None
    epoch: int | None
    body: Published


def encode_publication(pub: Publication) -> dict[str, JSON]:
    data: dict[str, JSON] = {
        "v": VERSION,
        "kind": pub.body.KIND,
        "table": pub.table,
        "owner": pub.owner,
        "epoch": pub.epoch,
    }
    body = pub.body
    if isinstance(body, MovePublished):
        data |= {
            "n": body.n,
            "seat": body.seat,
            "move": body.move,
            "at": body.at,
            "actor": body.actor,
            "deadlines": _json(body.deadlines),
            "clock_deadline": body.clock_deadline,
        }
    elif isinstance(body, ChatPublished):
        data |= {
            "line": body.line,
            "player": body.player,
            "name": body.name,
            "text": body.text,
            "at": body.at,
        }
    elif isinstance(body, FactsPublished):
        data |= {"facts": body.facts, "notify": body.notify}
    # The number last, as the owner numbered it.
    data["seq"] = pub.seq
    return data


def decode_publication(data: JSON) -> Publication:
    if not isinstance(data, dict) or data.get("v") != VERSION:
        raise BadMessage("not a publication of this version")
    try:
        body = _PUBLISHED[str(data["kind"])](data)
        owner, epoch = data.get("owner"), data.get("epoch")
        seq = data["seq"]
        if not isinstance(seq, int):
            raise BadMessage("a publication is numbered")
        return Publication(
            str(data["table"]),
            seq,
            owner if isinstance(owner, str) else None,
            epoch if isinstance(epoch, int) else None,
            body,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise BadMessage(f"a bad publication: {exc}") from None


def _move_published(d: Mapping[str, Any]) -> MovePublished:
    deadlines = d.get("deadlines")
    clock_deadline = d.get("clock_deadline")
    return MovePublished(
        int(d["n"]),
        d["seat"],
        d["move"],
        int(d["at"]),
        str(d["actor"]),
        {str(s): int(at) for s, at in deadlines.items()} if isinstance(deadlines, dict) else {},
        clock_deadline if isinstance(clock_deadline, int) else None,
    )


def _chat_published(d: Mapping[str, Any]) -> ChatPublished:
    return ChatPublished(int(d["line"]), str(d["player"]), str(d["name"]), str(d["text"]), d["at"])


def _facts_published(d: Mapping[str, Any]) -> FactsPublished:
    facts = d["facts"]
    if not isinstance(facts, dict):
        raise BadMessage("facts are an object")
    return FactsPublished(facts, bool(d.get("notify")))


_PUBLISHED: dict[str, Callable[[Mapping[str, Any]], Published]] = {
    MovePublished.KIND: _move_published,
    ChatPublished.KIND: _chat_published,
    FactsPublished.KIND: _facts_published,
    RemovedPublished.KIND: lambda d: RemovedPublished(),
}


# --- the lobby's channel --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Listed:
    """A table its process lists is new or changed (its lobby summary)."""

    KIND: ClassVar[str] = "table"
    process: str
    summary: dict[str, JSON]


@dataclass(frozen=True, slots=True)
class Unlisted:
    """A table its process listed left the list."""

    KIND: ClassVar[str] = "removed"
    process: str
    table: str


def encode_lobby(message: Listed | Unlisted) -> dict[str, JSON]:
    data: dict[str, JSON] = {"v": VERSION, "kind": message.KIND, "process": message.process}
    if isinstance(message, Listed):
        data["table"] = message.summary
    else:
        data["table"] = message.table
    return data


def decode_lobby(data: JSON) -> Listed | Unlisted:
    if not isinstance(data, dict) or data.get("v") != VERSION:
        raise BadMessage("not a lobby message of this version")
    process, table, kind = str(data.get("process")), data.get("table"), data.get("kind")
    if kind == Listed.KIND and isinstance(table, dict) and isinstance(table.get("id"), str):
        return Listed(process, table)
    if kind == Unlisted.KIND and isinstance(table, str):
        return Unlisted(process, table)
    raise BadMessage(f"a bad lobby message: {kind!r}")


def _json(value: Mapping[str, Any]) -> dict[str, JSON]:
    return dict(value)

"""What processes say to each other reads back as it was sent, and another version is refused."""

from __future__ import annotations

import orjson
import pytest

from bodoge.server.replication import messages as m
from bodoge.server.runtime import commands as c
from bodoge.store import SeatRecord, TableRecord

EVERY_COMMAND: list[c.TableCommand] = [
    c.Join("t_abcd", None),
    c.Join("t_abcd", 2),
    c.Leave("t_abcd"),
    c.AddBot("t_abcd", 1, "easy"),
    c.RemoveBot("t_abcd", 1),
    c.RemovePlayer("t_abcd", 3),
    c.Start("t_abcd"),
    c.Configure("t_abcd", {"turn_seconds": 30}, None),
    c.Configure("t_abcd", None, {"rounds": 2}),
    c.Move("t_abcd", {"type": "say", "word": "ringo"}),
    c.Say("t_abcd", "gg"),
]


def _wire(data: object) -> object:
    """Through JSON, as the bus carries it."""
    return orjson.loads(orjson.dumps(data))


@pytest.mark.parametrize("command", EVERY_COMMAND, ids=lambda command: command.TYPE)
def test_every_table_command_travels_as_it_is(command: c.TableCommand) -> None:
    call = m.RunCommand("t_abcd", "p_1", "Ann", command)
    assert m.decode_call(_wire(m.encode_call(call))) == call


def test_every_call_travels_as_it_is() -> None:
    record = TableRecord(
        id="t_abcd",
        game="relay",
        options={"players": 3},
        settings={"turn_seconds": None},
        seed=7,
        status="waiting",
        host="p_1",
        created_at=123,
    )
    seats = (SeatRecord(0, "human", "p_1"), SeatRecord(1, "bot", level="easy"), SeatRecord(2))
    calls: list[m.Call] = [
        m.RunRematch("t_abcd", "p_1", "Ann", None),
        m.RunRematch("t_abcd", "p_1", "Ann", "t_gone"),
        m.Watch("t_abcd", "proc-b", ("p_1", "p_2"), 3),
        m.Create(record, seats, "p_1", "Ann"),
        m.ListTables(),
    ]
    for call in calls:
        assert m.decode_call(_wire(m.encode_call(call))) == call


def test_answers_and_publications_travel_as_they_are() -> None:
    done = m.CommandDone({"type": "ack", "table": "t_abcd", "n": 4}, 9, 2)
    assert m.decode_command_done(_wire(m.encode_command_done(done)), "t_abcd") == done
    rematch = m.RematchDone("t_next", 1, True, 10, 2)
    assert m.decode_rematch_done(_wire(m.encode_rematch_done(rematch))) == rematch
    bodies: list[m.Published] = [
        m.MovePublished(4, 1, {"type": "say"}, 99, "player", {"2": 1000}, None),
        m.MovePublished(5, None, {"type": "timeout"}, 100, "clock", {}, 2000),
        m.ChatPublished(3, "p_1", "Ann", "gg", 101),
        m.FactsPublished({"status": "playing", "seats": []}, True),
        m.RemovedPublished(),
    ]
    for seq, body in enumerate(bodies, 1):
        publication = m.Publication("t_abcd", seq, "proc-a", 2, body)
        assert m.decode_publication(_wire(m.encode_publication(publication))) == publication
    for message in (m.Listed("proc-a", {"id": "t_abcd", "n": 0}), m.Unlisted("proc-a", "t_abcd")):
        assert m.decode_lobby(_wire(m.encode_lobby(message))) == message


def test_another_version_is_refused_not_misread() -> None:
    data = m.encode_call(m.RunCommand("t_abcd", "p_1", "Ann", c.Leave("t_abcd")))
    with pytest.raises(m.BadMessage):
        m.decode_call({**data, "v": m.VERSION + 1})
    with pytest.raises(m.BadMessage):
        m.decode_call({**data, "command": {"type": "table.dance", "table": "t_abcd"}})
    publication = m.encode_publication(m.Publication("t_abcd", 1, "a", 1, m.RemovedPublished()))
    with pytest.raises(m.BadMessage):
        m.decode_publication({**publication, "v": 0})

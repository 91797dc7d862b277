"""The seat rules: who may sit where, who hosts, what each refusal says."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bodoge.server.runtime.protocol import ProtocolError
from bodoge.server.runtime.seating import Seating
from bodoge.store import SeatRecord


def _code(call: Callable[[], object]) -> str:
    with pytest.raises(ProtocolError) as refused:
        call()
    return refused.value.code


def test_joining() -> None:
    one, seat = Seating.empty(2).join("p_a", 1)
    assert (seat, one.host, one.seat_of("p_a")) == (1, "p_a", 1)
    two, seat = one.join("p_b", None)
    assert (seat, two.host, two.full) == (0, "p_a", True)
    assert _code(lambda: one.join("p_a", 0)) == "already_seated"
    assert _code(lambda: one.join("p_b", 1)) == "seat_taken"
    assert _code(lambda: one.join("p_b", 2)) == "bad_seat"
    assert _code(lambda: one.join("p_b", -1)) == "bad_seat"
    assert _code(lambda: two.join("p_c", None)) == "table_full"


def test_leaving_before_the_game() -> None:
    two, _ = Seating.empty(3).join("p_a", 0)
    two, _ = two.join("p_b", 2)
    guest_left = two.leave("p_b")
    assert (guest_left.host, guest_left.seats[2]) == ("p_a", SeatRecord(2))
    host_left = two.leave("p_a")
    assert (host_left.host, host_left.humans()) == ("p_b", {2})
    assert host_left.leave("p_b").humans() == set()
    assert _code(lambda: two.leave("p_c")) == "not_seated"


def test_a_bot_takes_over_a_seat_during_the_game() -> None:
    two, _ = Seating.empty(2).join("p_a", 0)
    two, _ = two.join("p_b", 1)
    taken = two.bot_takes_over("p_a", "easy")
    assert taken.seats[0] == SeatRecord(0, "bot", level="easy", left="p_a")
    assert (taken.host, taken.seat_of("p_a"), taken.humans()) == ("p_a", None, {1})


def test_bots_come_and_go_only_where_they_may() -> None:
    one, _ = Seating.empty(3).join("p_a", 0)
    bot = one.add_bot(1, "normal")
    assert bot.seats[1] == SeatRecord(1, "bot", level="normal")
    assert bot.remove_bot(1) == one
    assert _code(lambda: bot.add_bot(1, "easy")) == "seat_taken"
    assert _code(lambda: bot.add_bot(3, "easy")) == "bad_seat"
    assert _code(lambda: bot.remove_bot(2)) == "bad_seat"
    assert _code(lambda: bot.remove_bot(0)) == "bad_seat"

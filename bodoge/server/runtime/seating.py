"""Who sits where at a table, and who hosts it: the rules of taking and leaving seats.

A :class:`Seating` is a value.  Each change makes a new one, or raises a
:class:`~bodoge.server.runtime.protocol.ProtocolError` and changes nothing, so that
a table can store the new seating before it takes it.

>>> seating = Seating.empty(3)
>>> seating, seat = seating.join("p_ann", None)
>>> seating, _ = seating.join("p_bob", 2)
>>> seat, seating.host, seating.seat_of("p_bob"), seating.full
(0, 'p_ann', 2, False)
>>> seating = seating.add_bot(1, "easy")
>>> [s.kind for s in seating.seats], seating.full
(['human', 'bot', 'human'], True)
>>> seating.leave("p_ann").host  # the host leaves: the next person hosts
'p_bob'
>>> seating.join("p_cat", 1)  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
ProtocolError: seat 1 is taken
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bodoge.core.game import Seat
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.store import SeatRecord


@dataclass(frozen=True)
class Seating:
    """The seats of a table, in order, and the player who hosts it (``None``: nobody yet)."""

    seats: tuple[SeatRecord, ...]
    host: str | None

    @classmethod
    def empty(cls, count: int) -> Seating:
        return cls(tuple(SeatRecord(s) for s in range(count)), None)

    # --- who is where ---------------------------------------------------------------

    def seat_of(self, player_id: str) -> Seat | None:
        """The seat the player holds (a bot that took it over does not count)."""
        for s in self.seats:
            if s.kind == "human" and s.player == player_id:
                return s.seat
        return None

    def need_seated(self, player_id: str) -> Seat:
        seat = self.seat_of(player_id)
        if seat is None:
            raise ProtocolError("not_seated", "you hold no seat here")
        return seat

    def check(self, seat: Seat) -> None:
        """Refuse a seat the table does not have."""
        if not 0 <= seat < len(self.seats):
            raise ProtocolError("bad_seat", f"this table has seats 0-{len(self.seats) - 1}")

    @property
    def full(self) -> bool:
        return all(s.kind != "empty" for s in self.seats)

    def humans(self) -> set[Seat]:
        """The seats people hold (bots have no turn limit)."""
        return {s.seat for s in self.seats if s.kind == "human"}

    # --- changes (each a new seating) -----------------------------------------------

    def join(self, player_id: str, seat: Seat | None) -> tuple[Seating, Seat]:
        """The player takes ``seat`` (``None``: the first free one); the first to sit hosts."""
        if self.seat_of(player_id) is not None:
            raise ProtocolError("already_seated", "you already hold a seat here")
        if seat is None:
            free = [s.seat for s in self.seats if s.kind == "empty"]
            if not free:
                raise ProtocolError("table_full", "no seat is free")
            seat = free[0]
        else:
            self._need_empty(seat)
        seated = self._with(SeatRecord(seat, "human", player_id))
        return replace(seated, host=self.host or player_id), seat

    def leave(self, player_id: str) -> Seating:
        """Before the game: the player's seat is free again; a host who leaves hands over
        to the first person still seated (nobody left: the table has no people)."""
        seat = self.need_seated(player_id)
        left = self._with(SeatRecord(seat))
        if self.host != player_id:
            return left
        people = [s.player for s in left.seats if s.kind == "human"]
        return replace(left, host=people[0] if people else None)

    def remove(self, host_id: str, seat: Seat) -> tuple[Seating, str]:
        """Before the game, the host frees another person's seat; the seating and who left.

        >>> seating, _ = Seating.empty(2).join("p_ann", 0)
        >>> seating, _ = seating.join("p_bob", 1)
        >>> seating.remove("p_ann", 1)[1], seating.remove("p_ann", 1)[0].seats[1].kind
        ('p_bob', 'empty')
        """
        if self.host != host_id:
            raise ProtocolError("not_host", "only the host removes players")
        self.check(seat)
        record = self.seats[seat]
        if record.kind != "human" or record.player is None or record.player == host_id:
            raise ProtocolError("bad_seat", f"seat {seat} holds nobody the host may remove")
        return self._with(SeatRecord(seat)), record.player

    def bot_takes_over(self, player_id: str, level: str) -> Seating:
        """During the game: a bot plays the seat of the player who left, so others can finish."""
        seat = self.need_seated(player_id)
        return self._with(SeatRecord(seat, "bot", level=level, left=player_id))

    def add_bot(self, seat: Seat, level: str) -> Seating:
        self._need_empty(seat)
        return self._with(SeatRecord(seat, "bot", level=level))

    def remove_bot(self, seat: Seat) -> Seating:
        self.check(seat)
        if self.seats[seat].kind != "bot":
            raise ProtocolError("bad_seat", f"seat {seat} is not a bot")
        return self._with(SeatRecord(seat))

    def _need_empty(self, seat: Seat) -> None:
        self.check(seat)
        if self.seats[seat].kind != "empty":
            raise ProtocolError("seat_taken", f"seat {seat} is taken")

    def _with(self, record: SeatRecord) -> Seating:
        seats = list(self.seats)
        seats[record.seat] = record
        return replace(self, seats=tuple(seats))

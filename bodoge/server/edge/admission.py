"""How many connections one client address and one player may hold open at once.

A person opens a few tabs; a script could open thousands and take every
file descriptor the server has.  So connections are counted per client address
(on arrival) and per player (at ``hello``); past a limit the connection is told
``too_many_connections`` and closed with code 4029.  A limit of 0 means none.

>>> door = Admission(per_address=2, per_player=1)
>>> door.enter_address("10.0.0.5"), door.enter_address("10.0.0.5"), door.enter_address("10.0.0.5")
(True, True, False)
>>> door.leave_address("10.0.0.5"); door.enter_address("10.0.0.5")
True
"""

from __future__ import annotations

from collections import Counter


class Admission:
    def __init__(self, per_address: int, per_player: int) -> None:
        self.per_address = per_address
        self.per_player = per_player
        self._addresses: Counter[str] = Counter()
        self._players: Counter[str] = Counter()

    def enter_address(self, address: str) -> bool:
        return _enter(self._addresses, address, self.per_address)

    def leave_address(self, address: str) -> None:
        _leave(self._addresses, address)

    def enter_player(self, player_id: str) -> bool:
        return _enter(self._players, player_id, self.per_player)

    def leave_player(self, player_id: str) -> None:
        _leave(self._players, player_id)

    def online(self, player_id: str) -> bool:
        """Whether the player has a connection open (said ``hello``)."""
        return player_id in self._players


def _enter(counts: Counter[str], key: str, limit: int) -> bool:
    if limit and counts[key] >= limit:
        return False
    counts[key] += 1
    return True


def _leave(counts: Counter[str], key: str) -> None:
    counts[key] -= 1
    if counts[key] <= 0:
        del counts[key]

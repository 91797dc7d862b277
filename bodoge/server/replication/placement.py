"""Where a new table runs in a cluster: on the process with the fewest tables, so a cluster
stays even whatever the load balancer does with the hosts' connections."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bodoge.cluster.bus import BusError, NoReply, RemoteError
from bodoge.server.replication.forwarding import refusal
from bodoge.server.replication.messages import Create, encode_call
from bodoge.server.runtime.players import Player
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.store import SeatRecord, TableRecord

if TYPE_CHECKING:
    from bodoge.cluster.service import ClusterService
    from bodoge.server.runtime.tables import Tables


class Placement:
    def __init__(self, tables: Tables, cluster: ClusterService) -> None:
        self.tables = tables
        self.cluster = cluster

    def target(self) -> str | None:
        """The process a new table should run on, if not this one.

        The process with the fewest tables (as the lease rows said at the last orphan scan,
        plus what this process sent each since), when it has fewer than this one.
        """
        ownership = self.cluster.ownership
        mine = len(ownership.held)
        loads = {p: n for p, n in ownership.loads.items() if p != self.cluster.process}
        if not loads:
            return None
        target = min(loads, key=lambda p: (loads[p], p))
        return target if loads[target] < mine else None

    async def place(self, record: TableRecord, seats: list[SeatRecord], player: Player) -> None:
        """Run the new table here, or on the process :meth:`target` picks."""
        target = self.target()
        if target is not None and await self.create_on(target, record, seats, player):
            return
        await self.tables.start_new(record, seats, player)

    async def create_on(
        self, process: str, record: TableRecord, seats: list[SeatRecord], player: Player
    ) -> bool:
        """Have ``process`` store and run a new table; False if it is gone (make it here).

        Other failures (its store refused, no answer in time) are the creation's.
        """
        call = encode_call(Create(record, tuple(seats), player.id, player.name))
        loads = self.cluster.ownership.loads
        try:
            answer = await self.cluster.bus.request(process, call)
        except NoReply as silence:
            if silence.reason == "nobody listens":
                loads.pop(process, None)
                return False
            raise ProtocolError(
                "table_unavailable", "the server process making the table did not answer"
            ) from None
        except RemoteError as refused:
            raise refusal(refused.error) from None
        except BusError:
            return False  # Redis away: nobody else can be asked, so here
        load = answer.get("load") if isinstance(answer, dict) else None
        loads[process] = load if isinstance(load, int) else loads.get(process, 0) + 1
        return True

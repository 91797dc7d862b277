"""The test clock's endpoint: ``POST /api/test/clock`` moves a test server's time on.

Only a server started with ``bodoge serve --test-clock`` has it (``ServerConfig.test_hooks``,
on a loopback address only; docs/deploy.md: never in production).  Its clock is then a
:class:`~bodoge.server.runtime.clock.ManualClock`, which stands still until a test moves
it, so that a browser test plays a turn-based game over days in a minute: turn limits run
out, the stand-in plays, vacations end, the bots' minutes pass and the notifier sends what
comes due, each when the simulated time reaches it, as in ``tests/server`` with the same
clock in the test's own process.

* ``GET /api/test/clock`` — ``{"now": ms, "iso": "…Z"}``, the server's time;
* ``POST /api/test/clock`` ``{"advance": seconds}`` — the clock moves on by that much (0 to
  a year), each wake-up due on the way run in turn, and after each the server given time to
  do what it set off (a move stored, a bot's move worked out, a notification stored and
  sent) before the clock goes on; answered with the new time once all that is done.

Anyone else is answered 404, as on a server without the flag: a request that comes from
an address not of this machine, or a clock that is not a test clock.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import math
from typing import TYPE_CHECKING

from starlette.routing import BaseRoute

from bodoge.server.edge.account_api import Answer, Call, adapted, refused
from bodoge.server.runtime.clock import ManualClock
from bodoge.server.runtime.protocol import iso

if TYPE_CHECKING:
    from bodoge.server.edge.ports import Server

log = logging.getLogger(__name__)

#: The most one request may move the clock on (seconds): a year.
MOST = 366 * 24 * 3600
#: How long the server may stay busy after a wake-up before the clock goes on anyway.
SETTLE_SECONDS = 30.0


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (an address or a name to listen on, a client's address) is this
    machine's own.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("localhost")
    (True, True, True)
    >>> is_loopback("0.0.0.0"), is_loopback("192.168.1.5"), is_loopback(None)
    (False, False, False)
    """
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def clock_routes(server: Server) -> list[BaseRoute]:
    """The endpoint, on a server with the test hooks; none otherwise (404)."""
    if not server.config.test_hooks or not isinstance(server.config.clock, ManualClock):
        return []
    clock = server.config.clock
    # One move of the clock at a time: two at once would run each other's wake-ups.
    moving = asyncio.Lock()

    def checked(call: Call) -> None:
        client = call.request.client
        if not is_loopback(client.host if client else None):
            raise refused(404, "not_found", "not found")

    async def now(call: Call) -> Answer:
        checked(call)
        return {"now": clock.now_ms(), "iso": iso(clock.now_ms())}

    async def advance(call: Call) -> Answer:
        checked(call)
        seconds = call.body.get("advance")
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not math.isfinite(seconds)
            or not 0 <= seconds <= MOST
        ):
            raise refused(400, "bad_request", f"advance: 0 to {MOST} seconds")
        async with moving:
            await clock.run_for(seconds, lambda: settled(server))
        return {"now": clock.now_ms(), "iso": iso(clock.now_ms())}

    return [
        adapted(server, "GET", "/api/test/clock", now, player=False),
        adapted(server, "POST", "/api/test/clock", advance, player=False, body=True),
    ]


async def settled(server: Server, timeout: float = SETTLE_SECONDS) -> None:
    """Until the server has nothing left to do at this time: no table running or queuing a
    command (a timeout reading vacations, a move being stored), no bot's move being worked
    out, no notification being stored or due to be sent."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    calm = 0
    while calm < 3:
        await asyncio.sleep(0.005)
        busy = (
            server.bots.thinking > 0
            or server.notifier.busy
            or any(table.at_work for table in list(server.tables.live.values()))
        )
        calm = 0 if busy else calm + 1
        if loop.time() > end:
            log.warning("the test clock goes on with the server still busy")
            return

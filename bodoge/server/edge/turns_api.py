"""HTTP routes of turn-based play (:mod:`bodoge.server.runtime.turns`): "Your games" and the
vacation switch.

* ``GET /api/players/me/tables`` — the waiting and running tables where the player (their
  token in ``Authorization: Bearer``) holds a seat: first those where it is their turn,
  the one waiting longest first, each with its deadline; then the others, the newest move
  first.  ``your_turn_count`` is what the header's badge shows.
* ``GET /api/players/me/vacation`` — the vacation running (``until``) and the days left this
  year; ``POST`` with ``{"days": n}`` begins one of ``n`` whole days from now; ``DELETE``
  ends the one running (its whole days not begun are given back).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.routing import BaseRoute

from bodoge.core.values import JSON
from bodoge.server.edge.account_api import Answer, Call, adapted, refused
from bodoge.server.runtime.protocol import iso, now_ms
from bodoge.server.runtime.turns import (
    VacationRefused,
    days_left,
    vacation_after,
)
from bodoge.store import TableBundle, VacationRecord

if TYPE_CHECKING:
    from bodoge.server.edge.ports import Server


def turn_routes(server: Server) -> list[BaseRoute]:
    return [
        adapted(server, "GET", "/api/players/me/tables", my_tables),
        adapted(server, "GET", "/api/players/me/vacation", vacation),
        adapted(server, "POST", "/api/players/me/vacation", begin_vacation, body=True),
        adapted(server, "DELETE", "/api/players/me/vacation", end_vacation),
    ]


async def my_tables(call: Call) -> Answer:
    me, now = call.me.id, now_ms()
    bundles = await call.server.store.open_tables_of(me)
    live = call.server.tables.live
    rows = []
    for bundle in bundles:
        table = live.get(bundle.table.id)
        # A table running here knows its latest deadlines (a paused turn, say) before a
        # move stores them; otherwise the store's, which every move writes.
        deadlines = (
            {str(s): at for s, at in table.deadlines.items()}
            if table is not None
            else bundle.table.deadlines
        )
        rows.append(_row(bundle, me, deadlines, now))
    mine = sorted((r for r in rows if r["your_turn"]), key=lambda r: (r["since_ms"], r["id"]))
    others = sorted(
        (r for r in rows if not r["your_turn"]),
        key=lambda r: (-(r["last_move_ms"] or 0), r["id"]),
    )
    for r in rows:
        del r["last_move_ms"], r["since_ms"]
    return {"tables": [*mine, *others], "your_turn_count": len(mine), "now": iso(now)}


def _row(bundle: TableBundle, me: str, deadlines: dict[str, Any], now: int) -> dict[str, JSON]:
    record = bundle.table
    seat = next(s.seat for s in bundle.seats if s.player == me and s.kind == "human")
    move_seconds = record.settings.get("turn_based")
    found = deadlines.get(str(seat)) if record.status == "playing" else None
    deadline = found if isinstance(found, int) else None
    your_turn = deadline is not None
    since = None
    if deadline is not None and isinstance(move_seconds, int):
        # A turn began a whole time per move before it runs out (a vacation's end aside).
        since = min(now, deadline - move_seconds * 1000)
    seats: list[JSON] = []
    for s in bundle.seats:
        person = s.player if s.kind == "human" else None
        known = bundle.players.get(person) if person else None
        seats.append(
            {
                "seat": s.seat,
                "kind": s.kind,
                "name": known.name if known else None,
                "level": s.level,
            }
        )
    return {
        "id": record.id,
        "game": record.game,
        "status": record.status,
        "turn_based": move_seconds if isinstance(move_seconds, int) else None,
        "you": seat,
        "your_turn": your_turn,
        "deadline": iso(deadline),
        "seconds_left": None if deadline is None else max(0, (deadline - now) // 1000),
        "waiting_since": iso(since),
        "since_ms": since or 0,
        "seats": seats,
        "last_move_ms": record.started_at or record.created_at,
    }


def _vacation_json(found: VacationRecord | None, now: int, per_year: int) -> dict[str, JSON]:
    running = found is not None and found.until is not None and found.until > now
    return {
        "until": iso(found.until) if running and found is not None else None,
        "days_left": days_left(found, now, per_year),
        "days_per_year": per_year,
    }


async def vacation(call: Call) -> Answer:
    now = now_ms()
    per_year = call.server.config.vacation_days_per_year
    return _vacation_json(await call.server.store.vacation(call.me.id), now, per_year)


async def begin_vacation(call: Call) -> Answer:
    if set(call.body) != {"days"}:
        raise refused(400, "bad_request", 'send {"days": n}')
    return await _change(call, call.get("days"))


async def end_vacation(call: Call) -> Answer:
    return await _change(call, None)


async def _change(call: Call, days: Any) -> Answer:
    now = now_ms()
    store = call.server.store
    found = await store.vacation(call.me.id)
    per_year = call.server.config.vacation_days_per_year
    try:
        changed = vacation_after(call.me.id, found, days, now, per_year)
    except VacationRefused as exc:
        raise refused(400, "bad_vacation", str(exc)) from None
    await store.set_vacation(changed)
    if days is None:
        # Turns that began during the vacation wait to be told at its end: that is now.
        await call.server.notifier.vacation_ended(call.me.id)
    return _vacation_json(changed, now, per_year)

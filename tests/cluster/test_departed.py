"""What a process that died left besides its tables is settled by the others within seconds.

The audit: a table's owner killed right after the last move of a rated game was acknowledged
left the game's ratings pending on every surviving process for minutes (until the killed
process restarted, or the next housekeeping pass, an hour by default). A finished table has
no owner to take over, so the others settle what the dead process left as soon as its lease
ends.
"""

from __future__ import annotations

import sqlalchemy as sa

from tests.cluster.test_serve_cluster import Make, _players, _until, make_node  # noqa: F401

TABLE = "t_pending1"


async def test_a_rated_game_left_pending_by_a_dead_process_is_settled_by_another(
    make_node: Make,  # noqa: F811
) -> None:
    a, b = await make_node(), await make_node()
    first, second = await _players(a, 2)
    engine = a.store.engine  # type: ignore[attr-defined]
    # As b leaves it when killed between the result and the ratings: the result and the
    # pending mark are one transaction, the ratings another.
    async with engine.begin() as conn:
        await conn.execute(
            sa.text(
                "INSERT INTO tables (id, game, options, settings, seed, status, created_at,"
                " started_at, finished_at, result, deadlines, owner, owner_epoch)"
                " VALUES (:id, 'relay', '{\"players\": 2}', '{\"rated\": true}', 1, 'finished',"
                " 1, 2, 3, '{\"places\": [1, 2]}', '[]', :owner, 1)"
            ),
            {"id": TABLE, "owner": b.process},
        )
        for seat, tab in enumerate((first, second)):
            await conn.execute(
                sa.text("INSERT INTO seats VALUES (:id, :seat, 'human', :player, NULL, NULL)"),
                {"id": TABLE, "seat": seat, "player": tab.player["id"]},
            )
        await conn.execute(sa.text("INSERT INTO rating_pending VALUES (:id, 3)"), {"id": TABLE})
    assert await a.store.pending_ratings() == [TABLE]

    async def seen() -> bool:  # a's scans know b alive
        return b.process in a.cluster.ownership.loads

    await _until(seen)

    await b.cluster.ownership.stop()  # b dies without a word: its lease runs out
    async with engine.begin() as conn:
        await conn.execute(
            sa.text("UPDATE cluster_processes SET expires_at = 0 WHERE id = :me"),
            {"me": b.process},
        )

    async def settled() -> bool:
        return await a.store.pending_ratings() == []

    await _until(settled, timeout=10.0)

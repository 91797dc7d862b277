"""A turn-based table's notifications in a cluster of real ``bodoge serve --redis`` processes:
the owner killed (``kill -9``) right after a move that begins someone's turn, that person
still gets exactly one e-mail — not zero (the owner died before its notifier stored the
turn: the process that takes the table over tells it again), not two (the outbox's key
names the turn: told twice, stored once; each row is sent by the one process that claims
it).  A real SMTP server (aiosmtpd) receives the mail."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from bodoge.server.runtime.turns import DAY
from bodoge.store import NotifySettings, open_store
from tests.cluster.test_processes import engine, make_process  # noqa: F401
from tests.server.tagiron_play import random_move
from tests.support.client import Client
from tests.support.turn_play import SmtpServer


def mails_to(smtp: SmtpServer, address: str) -> list[Any]:
    return [m for m in smtp.sink.messages if m["To"] == address]


async def until(check: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, what
        await asyncio.sleep(0.05)


@pytest.mark.parametrize(("players", "stored"), [(2, False), (3, None)])
async def test_a_turn_begun_just_before_its_owner_died_is_mailed_once(
    make_process: Callable[..., Any],  # noqa: F811
    engine: AsyncEngine,  # noqa: F811
    database_url: str,
    smtp: SmtpServer,
    players: int,
    stored: bool | None,
) -> None:
    """``stored``: ``False``, the owner dies before its notifier could store the turn (the
    test holds the outbox locked meanwhile, so the owner's write waits, and dies with it);
    ``None``: whichever comes first, as it falls."""
    # Both processes send mail through the test's SMTP server, a second after a turn began.
    extra = ["--smtp-url", smtp.url, "--notify-grace", "1"]
    a, b = await make_process(extra=extra), await make_process(extra=extra)
    folk = [await Client.connect(a.ws_url, f"P{i}") for i in range(players)]
    emails = [f"p{i}@example.org" for i in range(players)]
    store = await open_store(database_url)
    try:
        for i, client in enumerate(folk):
            lang = ("ja", "en")[i % 2]
            await store.save_notify_settings(
                NotifySettings(client.player_id, emails[i], 1, lang), 1
            )
    finally:
        await store.close()
    table = (
        await folk[0].ok(
            "table.create",
            game="tagiron",
            options={"players": players},
            settings={"turn_based": DAY},
        )
    )["table"]
    for client in folk[1:]:
        await client.ok("table.join", table=table)
    await folk[0].ok("table.start", table=table)

    # The first turn is mailed (nobody has the table open).
    await until(lambda: len(smtp.sink.messages) == 1, "the first turn's e-mail")
    first = emails.index(smtp.sink.messages[0]["To"])
    mover = folk[first]
    await mover.ok("table.open", table=table)
    shown = mover.of_type("table")[-1]
    view = shown["view"]
    assert view["to_act"] == [first]
    async with engine.connect() as conn:
        owner = (
            await conn.execute(sa.text("SELECT owner FROM tables WHERE id = :t"), {"t": table})
        ).scalar()
    assert owner is not None
    owning, other = (a, b) if owner.split("-")[-2] == str(a.pid) else (b, a)

    # The move that begins the next person's turn, and at once the owner's end.
    async with engine.connect() as locker:
        if stored is False:
            await locker.execute(sa.text("LOCK TABLE notify_outbox IN EXCLUSIVE MODE"))
        move = random_move(view, random.Random(1), declare=0.0)
        await mover.ok("move", table=table, move=move)
        if stored is False:

            async def waiting() -> bool:
                async with engine.connect() as conn:
                    found = await conn.execute(
                        sa.text(
                            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                            " AND query LIKE 'INSERT INTO notify_outbox%'"
                        )
                    )
                    return bool(found.scalar())

            for _ in range(200):  # the owner's notifier is stuck storing the turn
                if await waiting():
                    break
                await asyncio.sleep(0.02)
            else:
                raise AssertionError("the owner never tried to store the turn")
        await asyncio.to_thread(owning.kill)
        await locker.rollback()
    nxt = (first + 1) % players
    await until(lambda: len(mails_to(smtp, emails[nxt])) >= 1, "the next turn's e-mail")
    # Time for a second one to come, had the turn been stored twice: the process that took
    # the table over wakes its drain when what it told comes due (a second after).
    await asyncio.sleep(3)
    assert len(mails_to(smtp, emails[nxt])) == 1
    assert len(smtp.sink.messages) == 2
    subject = {0: "タギロンであなたの番です", 1: "Your turn in Tagiron"}[nxt % 2]
    assert mails_to(smtp, emails[nxt])[0]["Subject"] == subject
    async with engine.connect() as conn:
        rows = (
            await conn.execute(
                sa.text(
                    "SELECT key, sent_at, claimed_by FROM notify_outbox"
                    " WHERE player = :p AND kind = 'turn'"
                ),
                {"p": folk[nxt].player_id},
            )
        ).all()
        taken = (
            await conn.execute(sa.text("SELECT owner FROM tables WHERE id = :t"), {"t": table})
        ).scalar()
    assert len(rows) == 1 and rows[0].sent_at is not None, rows
    assert taken is not None and taken.split("-")[-2] == str(other.pid)
    for client in folk:
        await client.drop()

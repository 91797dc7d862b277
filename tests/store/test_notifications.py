"""The notifications' store: choices and addresses, push subscriptions, secrets made once, and
the outbox — an item stored once per key, claimed by one process at a time."""

from __future__ import annotations

import asyncio

import sqlalchemy as sa

from bodoge.store import (
    NotifySettings,
    OutboxItem,
    PlayerRecord,
    PushSubscription,
    SeatRecord,
    TableRecord,
    Timers,
    open_store,
)
from bodoge.store.sql import SqlStore


def item(key: str, *, player: str = "p_1", due: int = 100, channel: str = "mail") -> OutboxItem:
    return OutboxItem(key, player, channel, "turn", "t_1", {"game": "tagiron"}, 50, due)


async def test_choices_are_kept_and_an_address_verified_only_while_it_is_theirs(
    store: SqlStore,
) -> None:
    assert await store.notify_settings("p_1") is None
    chosen = NotifySettings("p_1", "a@example.org", None, "en", True, False, True, True)
    await store.save_notify_settings(chosen, 10)
    assert await store.notify_settings("p_1") == chosen
    assert not await store.verify_email("p_1", "b@example.org", 11)
    assert (await store.notify_settings("p_1")).verified_email is None  # type: ignore[union-attr]
    assert await store.verify_email("p_1", "a@example.org", 12)
    found = await store.notify_settings("p_1")
    assert found is not None and found.verified_email == "a@example.org"
    assert found.email_verified_at == 12


async def test_unsubscribing_turns_every_mail_off_and_drops_those_waiting(store: SqlStore) -> None:
    await store.save_notify_settings(NotifySettings("p_1", "a@example.org", 5), 10)
    await store.enqueue([item("k1"), item("k2", channel="digest"), item("k3", channel="push")])
    assert not await store.unsubscribe_email("p_1", "other@example.org", 20)
    assert await store.unsubscribe_email("p_1", "a@example.org", 20)
    s = await store.notify_settings("p_1")
    assert s is not None and not (s.my_turn or s.game_ended or s.invited or s.digest)
    left = await store.claim_due(200, 300, "a", 10, ("mail", "push"))
    assert [i.key for i in left] == ["k3"]  # the push stays: it is no e-mail


async def test_an_item_is_stored_once_per_key_and_claimed_once(store: SqlStore) -> None:
    assert await store.enqueue([item("k1"), item("k1"), item("k2", due=500)]) == 2
    assert await store.enqueue([item("k1")]) == 0
    first = await store.claim_due(100, 1000, "a", 10, ("mail",))
    assert [(i.key, i.attempts) for i in first] == [("k1", 1)]
    assert await store.claim_due(200, 1000, "b", 10, ("mail",)) == []  # held by a
    # a failed: due again later, and anyone may claim it then
    await store.outbox_retry(["k1"], "a", 700, "refused", 300)
    assert await store.claim_due(600, 1000, "b", 10, ("mail",)) == [
        OutboxItem("k2", "p_1", "mail", "turn", "t_1", {"game": "tagiron"}, 50, 500, 1)
    ]
    again = await store.claim_due(700, 2000, "c", 10, ("mail",))
    assert [(i.key, i.attempts) for i in again] == [("k1", 2)]
    await store.outbox_sent(["k1"], "someone else", 800)  # not its claim: nothing
    await store.outbox_sent(["k1"], "c", 800)
    # a claim that lapsed (its process died) is taken over; a sent item never again
    assert [i.key for i in await store.claim_due(5000, 6000, "d", 10, ("mail",))] == ["k2"]
    assert await store.enqueue([item("k1")]) == 0
    assert await store.prune_outbox(900) == 1
    assert await store.enqueue([item("k1")]) == 1  # forgotten, after a month


async def test_digests_wait_for_their_oldest_item_and_go_whole(store: SqlStore) -> None:
    await store.enqueue(
        [
            OutboxItem("d1", "p_1", "digest", "turn", "t_1", {}, 100, 100),
            OutboxItem("d2", "p_1", "digest", "ended", "t_2", {}, 900, 900),
            OutboxItem("d3", "p_2", "digest", "turn", "t_3", {}, 800, 800),
        ]
    )
    assert await store.digests_due(50, 1000) == []
    assert await store.digests_due(100, 1000) == ["p_1"]
    batch = await store.claim_digest("p_1", 1000, 2000, "a")
    assert [i.key for i in batch] == ["d1", "d2"]
    assert await store.claim_digest("p_1", 1000, 2000, "b") == []
    assert await store.digests_due(900, 1000) == ["p_2"]


async def test_push_subscriptions_keep_the_newest_devices(store: SqlStore) -> None:
    for n in range(4):
        sub = PushSubscription(f"https://push.example/{n}", "p_1", "k", "a", "ja", n)
        await store.add_push_subscription(sub, 3)
    found = await store.push_subscriptions("p_1")
    assert [s.endpoint for s in found] == [f"https://push.example/{n}" for n in (1, 2, 3)]
    assert not await store.remove_push_subscription("https://push.example/1", "p_2")
    assert await store.remove_push_subscription("https://push.example/1", "p_1")
    assert await store.remove_push_subscription("https://push.example/2", None)
    assert [s.endpoint for s in await store.push_subscriptions("p_1")] == ["https://push.example/3"]


async def test_a_renewed_subscription_replaces_only_the_persons_own(store: SqlStore) -> None:
    """The worker's pushsubscriptionchange: the old endpoint goes and the new one comes in one
    transaction, and only when the old one is the person's."""
    await store.add_push_subscription(
        PushSubscription("https://push.example/a", "p_1", "k", "a", "ja", 1), 3
    )
    await store.add_push_subscription(
        PushSubscription("https://push.example/b", "p_2", "k", "a", "en", 2), 3
    )
    stolen = PushSubscription("https://push.example/x", "p_2", "k2", "a2", "en", 3)
    assert not await store.replace_push_subscription("https://push.example/a", stolen, 3)
    unknown = PushSubscription("https://push.example/y", "p_1", "k2", "a2", "ja", 3)
    assert not await store.replace_push_subscription("https://push.example/none", unknown, 3)
    assert [s.endpoint for s in await store.push_subscriptions("p_1")] == ["https://push.example/a"]
    assert [s.endpoint for s in await store.push_subscriptions("p_2")] == ["https://push.example/b"]
    renewed = PushSubscription("https://push.example/a2", "p_1", "k2", "a2", "en", 4)
    assert await store.replace_push_subscription("https://push.example/a", renewed, 3)
    assert await store.push_subscriptions("p_1") == [renewed]
    assert not await store.replace_push_subscription("https://push.example/a", renewed, 3)


async def test_a_secret_is_made_once_whoever_asks_first(store_url: str) -> None:
    stores = [await open_store(store_url) for _ in range(2)]
    try:
        made = iter(range(100))
        found = await asyncio.gather(
            *(s.secret("links", lambda: f"secret-{next(made)}", 1) for s in stores for _ in "ab")
        )
        assert len(set(found)) == 1
    finally:
        for s in stores:
            await s.close()


async def test_processes_claiming_at_once_each_get_an_item_alone(store_url: str) -> None:
    """Two stores (two processes' engines) claim 40 items at once, 5 at a time: each item
    goes to one of them, once."""
    stores = [await open_store(store_url) for _ in range(2)]
    try:
        await stores[0].enqueue([item(f"k{n:02}") for n in range(40)])

        async def claimer(n: int) -> list[str]:
            got: list[str] = []
            while batch := await stores[n % 2].claim_due(100, 10_000, f"proc{n}", 5, ("mail",)):
                got += [i.key for i in batch]
            return got

        claimed = await asyncio.gather(*(claimer(n) for n in range(4)))
        every = [key for got in claimed for key in got]
        assert sorted(every) == [f"k{n:02}" for n in range(40)]
        assert len(set(every)) == 40
    finally:
        for s in stores:
            await s.close()


async def test_a_removed_guest_leaves_no_notifications_behind(store: SqlStore) -> None:
    for n in (1, 2):
        await store.create_player(PlayerRecord(f"p_{n}", "Guest", f"{n:064x}", 0))
        await store.save_notify_settings(NotifySettings(f"p_{n}", lang="en"), 1)
        sub = PushSubscription(f"https://push.example/{n}", f"p_{n}", "k", "a", "en", 1)
        await store.add_push_subscription(sub, 10)
        await store.enqueue([item(f"k{n}", player=f"p_{n}", channel="push")])
    assert await store.delete_guests(["p_1"], None) == 1
    assert await store.notify_settings("p_1") is None
    assert await store.push_subscriptions("p_1") == []
    assert await store.notify_settings("p_2") is not None
    assert len(await store.push_subscriptions("p_2")) == 1
    assert [i.player for i in await store.claim_due(100, 200, "a", 10, ("push",))] == ["p_2"]


async def test_a_turn_runs_while_the_table_plays_with_its_deadline_on_the_persons_seat(
    store: SqlStore,
) -> None:
    for n in (1, 2):
        await store.create_player(PlayerRecord(f"p_{n}", f"P{n}", f"{n:064x}", 0))
    seats = [SeatRecord(0, "human", "p_1"), SeatRecord(1, "human", "p_2")]
    await store.create_table(TableRecord("t_1", "tagiron", {}, {}, 1, "waiting", "p_1", 0), seats)
    assert not await store.turn_running("t_1", "p_1", 500)  # not begun
    await store.start_table("t_1", 10, seats, Timers({"0": 500}))
    assert await store.turn_running("t_1", "p_1", 500)
    assert not await store.turn_running("t_1", "p_1", 600)  # another turn
    assert not await store.turn_running("t_1", "p_2", 500)  # someone else's
    assert not await store.turn_running("t_9", "p_1", 500)  # no such table
    await store.set_timers("t_1", Timers({"1": 900}))  # p_1 moved: p_2's turn now
    assert not await store.turn_running("t_1", "p_1", 500)
    assert await store.turn_running("t_1", "p_2", 900)


async def test_a_tables_items_are_its_owners_first_and_a_vacations_hastened(
    store: SqlStore,
) -> None:
    await store.create_table(TableRecord("t_1", "tagiron", {}, {}, 1, "playing", None, 0), [])
    await store.enqueue([item("k1"), item("k2", due=100_000)])
    # Nobody owns the table (one process, or released): anyone may claim its items.
    assert [i.key for i in await store.claim_due(100, 200, "b", 10, ("mail",), 1000)] == ["k1"]
    await store.outbox_retry(["k1"], "b", 300, "later", 150)
    engine = store.engine  # type: ignore[attr-defined]
    async with engine.begin() as conn:
        await conn.execute(sa.text("UPDATE tables SET owner = 'a' WHERE id = 't_1'"))
    assert await store.claim_due(400, 500, "b", 10, ("mail",), 1000) == []  # a's to send
    assert [i.key for i in await store.claim_due(400, 500, "a", 10, ("mail",), 1000)] == ["k1"]
    await store.outbox_retry(["k1"], "a", 600, "later", 450)
    # Due a whole lease with the owner silent: another process takes it.
    assert [i.key for i in await store.claim_due(1600, 1700, "b", 10, ("mail",), 1000)] == ["k1"]
    await store.outbox_sent(["k1"], "b", 1650)
    # A vacation ended early: items due later of that kind become due now; others stay.
    assert await store.outbox_hasten("p_1", "ended", 2000) == 0
    assert await store.outbox_hasten("p_2", "turn", 2000) == 0
    assert await store.outbox_hasten("p_1", "turn", 2000) == 1
    assert [i.key for i in await store.claim_due(2000, 2100, "a", 10, ("mail",), 1000)] == ["k2"]

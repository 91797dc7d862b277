"""The cluster's message bus on real Redis servers: delivery, reconnection, requests, namespaces."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack

import orjson
import pytest

from bodoge.cluster.bus import (
    Backoff,
    Bus,
    BusClosed,
    BusUnavailable,
    NoReply,
    Refused,
    RemoteError,
)
from bodoge.cluster.namespace import Namespace
from tests.support.services import RedisServer, free_port

FAST = Backoff(0.02, 0.2)

MakeBus = Callable[..., Awaitable[Bus]]


@pytest.fixture
async def make_bus() -> AsyncIterator[MakeBus]:
    """Started buses, all closed at the end of the test."""
    async with AsyncExitStack() as stack:

        async def make(url: str, namespace: Namespace, process: str, **options: object) -> Bus:
            bus = Bus(url, namespace, process, backoff=FAST, **options)  # type: ignore[arg-type]
            stack.push_async_callback(bus.close)
            await bus.start()
            return bus

        yield make


class Inbox:
    """What a handler received, with a way to wait for the next ones."""

    def __init__(self) -> None:
        self.messages: list[object] = []
        self._arrived = asyncio.Condition()

    async def handler(self, data: bytes) -> None:
        async with self._arrived:
            self.messages.append(orjson.loads(data))
            self._arrived.notify_all()

    async def wait_for(self, count: int, timeout: float = 5.0) -> list[object]:
        async with self._arrived:
            await asyncio.wait_for(
                self._arrived.wait_for(lambda: len(self.messages) >= count), timeout
            )
        return self.messages


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def test_a_publication_reaches_every_subscriber_in_order(
    shared_redis: str, namespace: Namespace, make_bus: MakeBus
) -> None:
    a = await make_bus(shared_redis, namespace, "a")
    b = await make_bus(shared_redis, namespace, "b")
    inbox_a, inbox_b = Inbox(), Inbox()
    await a.subscribe(namespace.table("t1"), inbox_a.handler)
    await b.subscribe(namespace.table("t1"), inbox_b.handler)
    for n in range(50):
        assert await a.publish(namespace.table("t1"), {"n": n}) == 2
    expected = [{"n": n} for n in range(50)]
    assert await inbox_a.wait_for(50) == expected
    assert await inbox_b.wait_for(50) == expected


async def test_bytes_go_as_they_are_and_a_cancelled_subscription_hears_nothing(
    shared_redis: str, namespace: Namespace, make_bus: MakeBus
) -> None:
    bus = await make_bus(shared_redis, namespace, "a")
    got: list[bytes] = []

    async def raw(data: bytes) -> None:
        got.append(data)

    channel = namespace.table("t1")
    subscription = await bus.subscribe(channel, raw)
    second = Inbox()
    await bus.subscribe(channel, second.handler)
    await bus.publish(channel, b'{"raw": true}')
    await second.wait_for(1)
    assert got == [b'{"raw": true}']
    await subscription.cancel()
    await bus.publish(channel, {"after": 1})
    await second.wait_for(2)
    assert got == [b'{"raw": true}']  # the other handler still listens, this one not
    assert channel in bus.channels


async def test_a_failing_handler_does_not_stop_the_others(
    shared_redis: str, namespace: Namespace, make_bus: MakeBus
) -> None:
    bus = await make_bus(shared_redis, namespace, "a")

    async def broken(data: bytes) -> None:
        raise ValueError("a bug in one handler")

    inbox = Inbox()
    await bus.subscribe(namespace.table("t1"), broken)
    await bus.subscribe(namespace.table("t1"), inbox.handler)
    await bus.publish(namespace.table("t1"), {"n": 1})
    await bus.publish(namespace.table("t1"), {"n": 2})
    assert await inbox.wait_for(2) == [{"n": 1}, {"n": 2}]


@pytest.mark.parametrize("how", ["restart", "kill"])
async def test_after_a_redis_restart_every_channel_is_subscribed_again(
    redis_server: RedisServer, namespace: Namespace, make_bus: MakeBus, how: str
) -> None:
    """redis-py's PubSub does not resubscribe: the bus does, then runs its reconnect hooks."""
    listener = await make_bus(redis_server.url, namespace, "listener")
    talker = await make_bus(redis_server.url, namespace, "talker")
    inboxes = {f"t{i}": Inbox() for i in range(5)}
    for table, inbox in inboxes.items():
        await listener.subscribe(namespace.table(table), inbox.handler)
    caught_up: list[int] = []

    async def catch_up() -> None:
        # Runs once every channel is subscribed again: a publication now must arrive.
        assert listener.connected
        caught_up.append(listener.reconnects)

    listener.add_reconnect_hook(catch_up)
    talker_back: list[int] = []

    async def talker_caught_up() -> None:
        talker_back.append(talker.reconnects)

    # The talker's own channel, where the listener's answer comes, is subscribed again on
    # its own reconnection: a request made before that hears no answer.
    talker.add_reconnect_hook(talker_caught_up)
    await talker.publish(namespace.table("t0"), {"before": True})
    await inboxes["t0"].wait_for(1)

    redis_server.kill() if how == "kill" else redis_server.stop()
    await until(lambda: not listener.connected)
    with pytest.raises(BusUnavailable):
        await talker.publish(namespace.table("t0"), {"lost": True})
    redis_server.start()

    await until(lambda: caught_up == [1])
    assert listener.reconnects == 1
    for n, table in enumerate(inboxes):
        assert await talker.publish(namespace.table(table), {"after": n}) == 1
    for n, inbox in enumerate(inboxes.values()):
        assert (await inbox.wait_for(1 + (n == 0)))[-1] == {"after": n}
    assert {"lost": True} not in inboxes["t0"].messages
    # The process channels are subscribed again too: requests work.
    await until(lambda: talker_back == [1])
    listener.serve(lambda call: _double(call))
    assert await talker.request("listener", {"x": 4}) == 8


async def _double(call: dict[str, object]) -> object:
    return int(call["x"]) * 2  # type: ignore[call-overload]


async def test_a_channel_subscribed_while_redis_is_away_is_subscribed_on_return(
    redis_server: RedisServer, namespace: Namespace, make_bus: MakeBus
) -> None:
    bus = await make_bus(redis_server.url, namespace, "a")
    redis_server.stop()
    await until(lambda: not bus.connected)
    inbox = Inbox()
    await bus.subscribe(namespace.lobby, inbox.handler)  # returns at once: Redis is away
    redis_server.start()
    await bus.wait_connected(10)
    await until(lambda: bus.reconnects == 1)
    other = await make_bus(redis_server.url, namespace, "b")
    await until(lambda: bus.connected)
    # The channel is subscribed by the time the hooks would run; poll until it is live.
    async with asyncio.timeout(10):
        while not await other.publish(namespace.lobby, {"hello": 1}):
            await asyncio.sleep(0.02)
    assert (await inbox.wait_for(1))[0] == {"hello": 1}


async def test_a_redis_that_stops_answering_is_found_by_the_keepalive(
    redis_server: RedisServer, namespace: Namespace, make_bus: MakeBus
) -> None:
    """SIGSTOP keeps the TCP connection open: only an unanswered ping shows it is dead."""
    bus = await make_bus(redis_server.url, namespace, "a", keepalive=0.5, connect_timeout=1.0)
    hooks: list[str] = []

    async def hook() -> None:
        hooks.append("caught up")

    bus.add_reconnect_hook(hook)
    await asyncio.sleep(1.6)  # idle, but answering pings: alive
    assert bus.connected and bus.reconnects == 0
    redis_server.pause()
    try:
        await until(lambda: not bus.connected, timeout=5)
    finally:
        redis_server.resume()
    await until(lambda: hooks == ["caught up"])
    assert bus.reconnects == 1


async def test_requests_are_answered_refused_or_time_out(
    shared_redis: str, namespace: Namespace, make_bus: MakeBus
) -> None:
    owner = await make_bus(shared_redis, namespace, "owner")
    asker = await make_bus(shared_redis, namespace, "asker")
    release = asyncio.Event()

    async def answer(call: dict[str, object]) -> object:
        match call["command"]:
            case "echo":
                return {"echo": call["args"]}
            case "refuse":
                raise Refused({"code": "not_your_turn"})
            case "slow":
                await release.wait()
                return "too late"
            case _:
                raise KeyError(call["command"])

    owner.serve(answer)
    assert await asker.request("owner", {"command": "echo", "args": [1, "二"]}) == {
        "echo": [1, "二"]
    }
    with pytest.raises(RemoteError) as refused:
        await asker.request("owner", {"command": "refuse"})
    assert refused.value.error == {"code": "not_your_turn"}
    with pytest.raises(RemoteError) as broken:
        await asker.request("owner", {"command": "unknown"})
    assert broken.value.error == {"code": "internal"}

    loop = asyncio.get_running_loop()
    began = loop.time()
    with pytest.raises(NoReply) as slow:
        await asker.request("owner", {"command": "slow"}, timeout=0.3)
    assert 0.3 <= loop.time() - began < 2
    assert slow.value.process == "owner" and isinstance(slow.value, TimeoutError)
    release.set()  # its late reply finds nobody waiting and is dropped

    began = loop.time()
    with pytest.raises(NoReply, match="nobody listens"):
        await asker.request("gone", {"command": "echo"}, timeout=5)
    assert loop.time() - began < 1  # no subscriber: known at once, no need to wait

    # Many requests at once, each answered with its own reply.
    answers = await asyncio.gather(
        *(asker.request("owner", {"command": "echo", "args": n}) for n in range(40))
    )
    assert answers == [{"echo": n} for n in range(40)]


async def test_a_process_that_serves_nothing_refuses(
    shared_redis: str, namespace: Namespace, make_bus: MakeBus
) -> None:
    await make_bus(shared_redis, namespace, "idle")
    asker = await make_bus(shared_redis, namespace, "asker")
    with pytest.raises(RemoteError) as refused:
        await asker.request("idle", {"command": "x"})
    assert refused.value.error == {"code": "not_serving"}


async def test_two_clusters_on_one_redis_do_not_hear_each_other(
    shared_redis: str, make_bus: MakeBus
) -> None:
    """Same table ids, same process names, one Redis: only the namespace tells them apart."""
    blue = Namespace.for_database(f"postgresql://u@h/blue_{secrets.token_hex(4)}")
    green = Namespace.for_database(f"postgresql://u@h/green_{secrets.token_hex(4)}")
    assert blue != green
    blue_a = await make_bus(shared_redis, blue, "p1")
    blue_b = await make_bus(shared_redis, blue, "p2")
    green_a = await make_bus(shared_redis, green, "p1")
    green_b = await make_bus(shared_redis, green, "p2")
    blue_inbox, green_inbox = Inbox(), Inbox()
    await blue_b.subscribe(blue.table("t_1"), blue_inbox.handler)
    await green_b.subscribe(green.table("t_1"), green_inbox.handler)
    blue_b.serve(lambda call: _named("blue"))
    green_b.serve(lambda call: _named("green"))

    assert await blue_a.publish(blue.table("t_1"), {"cluster": "blue"}) == 1
    assert await green_a.publish(green.table("t_1"), {"cluster": "green"}) == 1
    assert await blue_a.request("p2", {}) == "blue"
    assert await green_a.request("p2", {}) == "green"
    assert await blue_inbox.wait_for(1) == [{"cluster": "blue"}]
    assert await green_inbox.wait_for(1) == [{"cluster": "green"}]
    await asyncio.sleep(0.1)
    assert len(blue_inbox.messages) == len(green_inbox.messages) == 1


async def _named(name: str) -> str:
    return name


async def test_start_fails_clearly_without_redis_and_close_ends_waiting_requests(
    shared_redis: str, namespace: Namespace, make_bus: MakeBus
) -> None:
    nowhere = Bus(f"redis://127.0.0.1:{free_port()}/0", namespace, "a", backoff=FAST)
    with pytest.raises(BusUnavailable):
        await nowhere.start(timeout=0.5)

    owner = await make_bus(shared_redis, namespace, "owner")
    never = asyncio.Event()

    async def hang(call: dict[str, object]) -> object:
        await never.wait()

    owner.serve(hang)
    asker = Bus(shared_redis, namespace, "asker", backoff=FAST)
    await asker.start()
    waiting = asyncio.create_task(asker.request("owner", {}, timeout=30))
    await asyncio.sleep(0.2)
    await asker.close()
    with pytest.raises(BusClosed):
        await waiting
    with pytest.raises(BusClosed):
        await asker.publish(namespace.lobby, {})

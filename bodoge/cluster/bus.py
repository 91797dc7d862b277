"""Messages between a cluster's processes: Redis publish/subscribe that survives Redis.

redis-py's ``PubSub`` gives up on a connection it lost (or, depending on the version,
quietly resubscribes on the next read while whoever relied on it never learns that
messages were missed). :class:`Bus` owns the whole cycle instead:

* one subscriber connection; when it is lost (Redis restarted, a network cut that a
  keep-alive ping finds), the bus reconnects with exponential backoff and subscribes
  **every** channel again, then runs the *reconnect hooks*: messages published while it
  was away are gone, so its users catch up (a table's replica reloads from the database);
* publications leave in the order :meth:`Bus.publish` was called, on one connection that
  reconnects by itself; a publication Redis cannot take raises :class:`BusUnavailable`;
* request/reply: :meth:`Bus.request` sends a call to another process's channel and waits
  for its answer, raising :class:`NoReply` when nobody answers in time.

Handlers of a channel run one at a time, in the order messages arrive, on the bus's
reader task: a handler must not wait long (it queues work to a task of its own), or every
channel waits with it. Requests are the exception: each call is answered on a task of its
own, since answering may mean waiting for a table's commit.

>>> Backoff(0.1, 2.0).delays(6)
[0.1, 0.2, 0.4, 0.8, 1.6, 2.0]
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from bodoge.cluster.namespace import Namespace
from bodoge.cluster.tasks import cancel_and_wait
from bodoge.core.values import JSON

log = logging.getLogger(__name__)

#: A channel's handler: gets each message's bytes as published.
Handler = Callable[[bytes], Awaitable[None]]
#: Answers a call (the decoded message); what it returns is the reply's value.
RequestHandler = Callable[[dict[str, JSON]], Awaitable[JSON]]
#: Runs after every reconnection, once every channel is subscribed again.
ReconnectHook = Callable[[], Awaitable[None]]

#: Seconds a request waits for its reply unless told otherwise.
REQUEST_TIMEOUT = 2.0
#: Seconds without a message after which the subscriber pings Redis; a ping unanswered for
#: as long again means the connection is dead (a cut that no TCP reset announced).
KEEPALIVE = 5.0
#: Seconds a connection attempt or a single command may take.
CONNECT_TIMEOUT = 2.0


class BusError(Exception):
    """Something went wrong on the bus."""


class BusUnavailable(BusError):
    """Redis could not be reached (a publication was not sent)."""


class BusClosed(BusError):
    """The bus was closed."""


class NoReply(BusError, TimeoutError):
    """A request got no reply: nobody listens on that process's channel, or not in time."""

    def __init__(self, process: str, reason: str) -> None:
        super().__init__(f"no reply from process {process}: {reason}")
        self.process = process
        self.reason = reason


class RemoteError(BusError):
    """The other process answered a request with an error; ``error`` is its JSON value."""

    def __init__(self, error: JSON) -> None:
        super().__init__(f"the other process refused: {error!r}")
        self.error = error


class Refused(Exception):
    """Raised by a request handler to answer with an error (the caller gets :class:`RemoteError`).

    Any other exception a handler raises is logged and answered ``{"code": "internal"}``.
    """

    def __init__(self, error: JSON) -> None:
        super().__init__(error)
        self.error = error


class _ConnectionLost(BusError):
    """The subscriber connection stopped answering pings."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """Waits between reconnection attempts: doubling from ``first`` up to ``longest``.

    Each actual wait is drawn between half and all of the step, so that processes that
    lost Redis together do not all come back in the same millisecond.
    """

    first: float = 0.05
    longest: float = 2.0

    def delay(self, attempt: int) -> float:
        """The step before attempt ``attempt`` (0-based), without jitter."""
        return min(self.longest, self.first * 2.0**attempt)

    def delays(self, count: int) -> list[float]:
        return [self.delay(i) for i in range(count)]

    def jittered(self, attempt: int) -> float:
        step = self.delay(attempt)
        return step / 2 + random.random() * step / 2


class Subscription:
    """One handler on one channel, until :meth:`cancel`."""

    def __init__(self, bus: Bus, channel: str, handler: Handler) -> None:
        self.bus = bus
        self.channel = channel
        self.handler = handler

    async def cancel(self) -> None:
        await self.bus.unsubscribe(self)


class Bus:
    """A process's end of the cluster's Redis: channels, publications and requests.

    ``process`` names this process: the bus always listens on ``namespace.process(process)``
    for the calls and replies addressed to it.
    """

    def __init__(
        self,
        url: str,
        namespace: Namespace,
        process: str,
        *,
        backoff: Backoff = Backoff(),
        keepalive: float = KEEPALIVE,
        connect_timeout: float = CONNECT_TIMEOUT,
        request_timeout: float = REQUEST_TIMEOUT,
    ) -> None:
        self.url = url
        self.namespace = namespace
        self.process = process
        self.backoff = backoff
        self.keepalive = keepalive
        self.connect_timeout = connect_timeout
        self.request_timeout = request_timeout
        #: Times the subscriber connection was made again after it was lost.
        self.reconnects = 0
        #: Times a connection attempt failed (Redis down or unreachable).
        self.failed_attempts = 0
        self._own_channel = namespace.process(process)
        self._handlers: dict[str, list[Subscription]] = {}
        self._hooks: list[ReconnectHook] = []
        self._request_handler: RequestHandler | None = None
        # Redis confirms SUBSCRIBE once per channel, in order: waiters per channel, FIFO.
        self._confirmations: defaultdict[str, deque[asyncio.Future[None]]] = defaultdict(deque)
        self._waiting: dict[str, asyncio.Future[dict[str, JSON]]] = {}
        self._request_ids = itertools.count(1)
        # Subscribing and (re)connecting take this, so no channel is missed in between.
        self._lock = asyncio.Lock()
        self._pubsub: Any = None
        self._connected = asyncio.Event()
        self._closing = False
        self._started = False
        self._reader: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        options: dict[str, Any] = {
            "socket_connect_timeout": connect_timeout,
            "socket_keepalive": True,
        }
        # Publications: one connection, so they leave in call order; one retry on a fresh
        # connection covers a connection Redis dropped while it sat idle (a restart).
        self._publisher = aioredis.Redis.from_url(
            url,
            single_connection_client=True,
            socket_timeout=connect_timeout,
            retry=Retry(NoBackoff(), 1),
            **options,
        )
        # The subscriber never retries inside redis-py: a lost connection reaches the reader
        # loop below, which starts over on a new one. It has no read timeout (it waits for
        # messages); the keep-alive ping finds a dead connection.
        self._subscriber = aioredis.Redis.from_url(url, retry=Retry(NoBackoff(), 0), **options)

    # --- life ------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Whether the subscriber connection is up (every channel subscribed or on its way)."""
        return self._connected.is_set()

    async def start(self, timeout: float = 10.0) -> None:
        """Connect and subscribe; raise :class:`BusUnavailable` if Redis does not answer in time.

        After a successful start the bus reconnects by itself, however long Redis is away.
        """
        if self._started:
            raise BusError("the bus was already started")
        self._started = True
        self._reader = asyncio.create_task(self._run(), name=f"bus-reader-{self.process}")
        try:
            await asyncio.wait_for(self._connected.wait(), timeout)
        except TimeoutError:
            await self.close()
            raise BusUnavailable(
                f"Redis at {self._safe_url} did not answer in {timeout} s"
            ) from None

    async def wait_connected(self, timeout: float | None = None) -> None:
        """Wait until the subscriber connection is up (TimeoutError after ``timeout``)."""
        await asyncio.wait_for(self._connected.wait(), timeout)

    async def close(self) -> None:
        """Stop listening, fail waiting requests with :class:`BusClosed`, close connections."""
        if self._closing:
            return
        self._closing = True
        await cancel_and_wait([*self._tasks, *([self._reader] if self._reader else [])])
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(BusClosed("the bus was closed"))
        self._waiting.clear()
        self._fail_confirmations(BusClosed("the bus was closed"))
        for client in (self._publisher, self._subscriber):
            with contextlib.suppress(Exception):
                await client.aclose()
        self._connected.clear()

    @property
    def _safe_url(self) -> str:
        return self.url.split("@")[-1]

    # --- publishing --------------------------------------------------------------------------

    async def publish(self, channel: str, message: bytes | JSON) -> int:
        """Publish ``message`` (bytes as they are, anything else as JSON); return receivers.

        The count is of subscriber connections that got it (several handlers in one process
        count once). Raises :class:`BusUnavailable` when Redis cannot take it: the caller
        decides whether that matters (a move is committed anyway; the others catch up when
        their bus reconnects).
        """
        if self._closing:
            raise BusClosed("the bus was closed")
        data = message if isinstance(message, bytes) else orjson.dumps(message)
        try:
            return int(await self._publisher.publish(channel, data))
        except (RedisError, OSError) as exc:
            raise BusUnavailable(f"could not publish on {channel}: {exc}") from exc

    async def ping(self) -> None:
        """Check that Redis answers and the subscriber connection is up (the health check)."""
        if not self.connected:
            raise BusUnavailable("the subscriber connection is down")
        try:
            await self._publisher.ping()
        except (RedisError, OSError) as exc:
            raise BusUnavailable(f"Redis does not answer: {exc}") from exc

    # --- subscribing -------------------------------------------------------------------------

    async def subscribe(self, channel: str, handler: Handler) -> Subscription:
        """Call ``handler`` with every message on ``channel`` until the subscription is cancelled.

        Returns once Redis confirmed the subscription, so anything published afterwards
        reaches the handler — unless the connection is lost meanwhile, and then the reconnect
        hooks run once the channel is subscribed again. While Redis is away it returns at
        once: the channel is subscribed when the bus reconnects (then the hooks run).
        """
        if self._closing:
            raise BusClosed("the bus was closed")
        subscription = Subscription(self, channel, handler)
        confirmed: asyncio.Future[None] | None = None
        async with self._lock:
            handlers = self._handlers.setdefault(channel, [])
            handlers.append(subscription)
            if self._pubsub is None:
                pass  # subscribed with every other channel when the bus reconnects
            elif len(handlers) == 1:
                confirmed = self._expect_confirmation(channel)
                try:
                    await self._pubsub.subscribe(channel)
                except (RedisError, OSError):
                    # The reader sees the same loss and subscribes everything again.
                    confirmed.cancel()
                    confirmed = None
            elif self._confirmations.get(channel):
                confirmed = self._confirmations[channel][-1]  # another subscribe's, on its way
        if confirmed is not None:
            with contextlib.suppress(asyncio.CancelledError, BusError):
                await asyncio.wait_for(asyncio.shield(confirmed), self.connect_timeout)
        return subscription

    async def unsubscribe(self, subscription: Subscription) -> None:
        """Stop calling a subscription's handler (and leave the channel if it was the last)."""
        async with self._lock:
            handlers = self._handlers.get(subscription.channel, [])
            if subscription in handlers:
                handlers.remove(subscription)
            if handlers:
                return
            self._handlers.pop(subscription.channel, None)
            if self._pubsub is not None and subscription.channel != self._own_channel:
                with contextlib.suppress(RedisError, OSError):
                    await self._pubsub.unsubscribe(subscription.channel)

    @property
    def channels(self) -> set[str]:
        """The channels this bus listens on (its own process channel included)."""
        return {self._own_channel, *self._handlers}

    def add_reconnect_hook(self, hook: ReconnectHook) -> None:
        """Run ``hook`` after every reconnection, once every channel is subscribed again."""
        self._hooks.append(hook)

    def remove_reconnect_hook(self, hook: ReconnectHook) -> None:
        self._hooks.remove(hook)

    # --- requests ----------------------------------------------------------------------------

    def serve(self, handler: RequestHandler) -> None:
        """Answer the calls addressed to this process with ``handler``."""
        self._request_handler = handler

    async def request(
        self, process: str, call: dict[str, JSON], timeout: float | None = None
    ) -> JSON:
        """Send ``call`` to ``process`` and return the value it answers.

        Raises :class:`NoReply` when nobody listens on that process's channel or no reply
        comes within ``timeout`` (default :attr:`request_timeout`), :class:`RemoteError`
        when it answers with an error, :class:`BusUnavailable` when Redis is away. A call
        that got no reply may still have been carried out: calls that change state carry an
        id the answering side can recognise when the call is repeated.
        """
        rid = f"{next(self._request_ids)}"
        reply: asyncio.Future[dict[str, JSON]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = reply
        try:
            message = {**call, "kind": "call", "rid": rid, "reply_to": self.process}
            if not await self.publish(self.namespace.process(process), message):
                raise NoReply(process, "nobody listens")
            wait = self.request_timeout if timeout is None else timeout
            try:
                answer = await asyncio.wait_for(reply, wait)
            except TimeoutError:
                raise NoReply(process, f"no answer within {wait} s") from None
        finally:
            self._waiting.pop(rid, None)
        if answer.get("ok"):
            return answer.get("value")
        raise RemoteError(answer.get("error"))

    async def _answer(self, call: dict[str, JSON]) -> None:
        rid, reply_to = call.get("rid"), call.get("reply_to")
        reply: dict[str, JSON] = {"kind": "reply", "rid": rid}
        try:
            if self._request_handler is None:
                raise Refused({"code": "not_serving"})
            reply |= {"ok": True, "value": await self._request_handler(call)}
        except Refused as refusal:
            reply |= {"ok": False, "error": refusal.error}
        except Exception:
            log.exception("answering a call from %s failed", reply_to)
            reply |= {"ok": False, "error": {"code": "internal"}}
        if not isinstance(reply_to, str):
            return
        try:
            await self.publish(self.namespace.process(reply_to), reply)
        except BusError:
            log.warning("could not reply to %s (request %s)", reply_to, rid)

    # --- the reader --------------------------------------------------------------------------

    async def _run(self) -> None:
        """Connect, subscribe everything, read until the connection is lost; again and again."""
        attempt = 0
        ever_connected = False
        while not self._closing:
            pubsub = self._subscriber.pubsub()
            try:
                async with self._lock:
                    channels = sorted(self.channels)
                    confirmations = [self._expect_confirmation(c) for c in channels]
                    # Bounded: a Redis that accepts connections but does not answer (stopped,
                    # overloaded) must not hold the loop, nor the lock subscribe() needs.
                    await asyncio.wait_for(pubsub.subscribe(*channels), self.connect_timeout)
                    self._pubsub = pubsub
                self._connected.set()
                attempt = 0
                if ever_connected:
                    self.reconnects += 1
                    log.warning("Redis connection back; %d channels subscribed", len(channels))
                    self._spawn(self._after_reconnect(confirmations))
                ever_connected = True
                await self._read(pubsub)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError, TimeoutError, _ConnectionLost) as exc:
                if self.connected:
                    log.warning("Redis connection lost: %s", exc)
                else:
                    self.failed_attempts += 1
            finally:
                self._pubsub = None
                self._connected.clear()
                self._fail_confirmations(BusUnavailable("the connection was lost"))
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            if self._closing:
                break
            await asyncio.sleep(self.backoff.jittered(attempt))
            attempt += 1

    async def _read(self, pubsub: Any) -> None:
        pinged = False
        while True:
            message = await pubsub.get_message(timeout=self.keepalive)
            if message is None:
                if pinged:
                    raise _ConnectionLost(f"no answer to a ping in {self.keepalive} s")
                await pubsub.ping()
                pinged = True
                continue
            pinged = False
            kind = message["type"]
            channel = message.get("channel")
            if isinstance(channel, bytes):
                channel = channel.decode()
            if kind == "message":
                await self._deliver(channel, message["data"])
            elif kind == "subscribe":
                waiting = self._confirmations.get(channel)
                if waiting:
                    future = waiting.popleft()
                    if not future.done():
                        future.set_result(None)
            # "pong" only proves the connection alive; "unsubscribe" needs nothing.

    async def _deliver(self, channel: str, data: bytes) -> None:
        if channel == self._own_channel:
            self._on_own_channel(data)
        for subscription in list(self._handlers.get(channel, ())):
            try:
                await subscription.handler(data)
            except Exception:
                log.exception("a handler of channel %s failed", channel)

    def _on_own_channel(self, data: bytes) -> None:
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            log.warning("not JSON on %s: %r", self._own_channel, data[:100])
            return
        if not isinstance(message, dict):
            return
        kind = message.get("kind")
        if kind == "call":
            self._spawn(self._answer(message))
        elif kind == "reply":
            future = self._waiting.get(str(message.get("rid")))
            if future is not None and not future.done():
                future.set_result(message)

    async def _after_reconnect(self, confirmations: list[asyncio.Future[None]]) -> None:
        try:
            await asyncio.wait_for(asyncio.gather(*confirmations), self.connect_timeout)
        except (TimeoutError, BusError):
            return  # lost again before everything was subscribed: the next round runs the hooks
        for hook in list(self._hooks):
            try:
                await hook()
            except Exception:
                log.exception("a reconnect hook failed")

    def _expect_confirmation(self, channel: str) -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._confirmations[channel].append(future)
        return future

    def _fail_confirmations(self, error: BusError) -> None:
        for waiting in self._confirmations.values():
            for future in waiting:
                if not future.done():
                    future.set_exception(error)
                    future.exception()  # nobody may be waiting: don't log it as unretrieved
        self._confirmations.clear()

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

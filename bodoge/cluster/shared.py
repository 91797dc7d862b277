"""What the processes of a cluster count and remember together, in Redis.

A visitor behind a load balancer lands on any process, and a client that reconnects lands
on another one than before. Two things a single process keeps in memory must therefore
be the cluster's:

* **Rates** (:class:`~bodoge.server.services.quotas.Buckets`: new players, sign-ins, tables and
  uploads an hour). Each is a token bucket in a Redis hash, taken from by a Lua script in
  one round trip, on Redis's clock, so a rate is the same however many processes there
  are. A full bucket's key expires: Redis holds only the buckets in use.
* **Remembered replies** (:mod:`bodoge.server.services.replies`): a request that changes something
  is noted under ``(player, request id)`` before it runs — with the process that runs it
  — and its reply once it has one, for ``seconds``. A retry that reaches another process
  (the client reconnected through the load balancer) finds the note: it gets the reply,
  or waits for it while the first process is still at work. Only when that process died
  before replying is the request run again — refused then if it had happened (a move out
  of turn), as after a restart of a single process.

Redis keeps nothing on disk and may be away: then each process counts and remembers on
its own (:class:`SharedUnavailable`), as a single process does, until it is back.

Keys: ``{ns}:rate:{name}:{key}`` and ``{ns}:reply:{player}:{id}``.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
import redis.asyncio as aioredis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from bodoge.cluster.namespace import Namespace
from bodoge.core.values import JSON

log = logging.getLogger(__name__)

#: Seconds one Redis command may take before the process falls back on its own memory.
TIMEOUT = 1.0

# A token bucket: ARGV burst, tokens a second, tokens to take (negative: give back).
# Returns 0 when taken, else the whole seconds until there are enough (nothing taken).
_BUCKET = """
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local v = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(v[1]) or burst
local at = tonumber(v[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if cost > 0 and tokens < cost then
  wait = math.floor((cost - tokens) / rate) + 1
else
  tokens = math.min(burst, tokens - cost)
end
if tokens >= burst then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('EXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 1)
end
return wait
"""

# The note of a request about to run: ARGV the note, its lifetime in seconds. Returns the
# note already there (a retry), or nothing when this one is noted now.
_NOTE = """
local old = redis.call('GET', KEYS[1])
if old then return old end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
"""

# Notes of several requests, for as long: KEYS theirs, ARGV their notes then the lifetime.
# One command however many: a pipeline of SETs cost the process a command's parsing and
# packing each (2-3 replies noted a round trip at 66 moves a second: some 40 µs a note).
_NOTES = """
local seconds = ARGV[#ARGV]
for i, key in ipairs(KEYS) do
  redis.call('SET', key, ARGV[i], 'EX', seconds)
end
"""


class SharedUnavailable(Exception):
    """Redis did not answer: count or remember in this process alone for now."""


class Shared:
    """One process's access to the cluster's rates and remembered replies in Redis."""

    def __init__(self, url: str, namespace: Namespace, *, timeout: float = TIMEOUT) -> None:
        self.namespace = namespace
        self.redis: Any = aioredis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 1),
        )
        self._bucket = self.redis.register_script(_BUCKET)
        self._note = self.redis.register_script(_NOTE)
        self._notes = self.redis.register_script(_NOTES)
        #: Commands that failed (Redis away): the process counted on its own then.
        self.failures = 0

    async def close(self) -> None:
        await self.redis.aclose()

    async def _run(self, work: Any) -> Any:
        try:
            return await work
        except (RedisError, OSError, TimeoutError) as exc:
            self.failures += 1
            if self.failures == 1 or self.failures % 100 == 0:
                log.warning(
                    "Redis does not answer for shared state (%d times): %s", self.failures, exc
                )
            raise SharedUnavailable(str(exc)) from exc

    # --- rates ---------------------------------------------------------------------------

    async def take(self, name: str, key: str, per_hour: int, tokens: float = 1.0) -> int:
        """Take ``tokens`` from bucket ``name``/``key`` (``per_hour`` an hour, as many saved
        up at most): 0 when taken, else whole seconds until there are (nothing taken).
        Negative ``tokens`` give back."""
        redis_key = f"{self.namespace.prefix}:rate:{name}:{key}"
        args = [per_hour, per_hour / 3600.0, tokens]
        return int(await self._run(self._bucket(keys=[redis_key], args=args)))

    # --- remembered replies --------------------------------------------------------------

    def _reply_key(self, player_id: str, request_id: str) -> str:
        return f"{self.namespace.prefix}:reply:{player_id}:{request_id}"

    async def note(
        self, player_id: str, request_id: str, note: dict[str, JSON], seconds: float
    ) -> dict[str, JSON] | None:
        """Note a request about to run, unless one is noted under its id: that one then."""
        old = await self._run(
            self._note(
                keys=[self._reply_key(player_id, request_id)],
                args=[orjson.dumps(note), max(1, round(seconds))],
            )
        )
        return None if old is None else orjson.loads(old)

    async def read(self, player_id: str, request_id: str) -> dict[str, JSON] | None:
        data = await self._run(self.redis.get(self._reply_key(player_id, request_id)))
        return None if data is None else orjson.loads(data)

    async def write(
        self, player_id: str, request_id: str, note: dict[str, JSON], seconds: float
    ) -> None:
        """Note (again) a request: its reply once it has one, or a retry taking it over."""
        key = self._reply_key(player_id, request_id)
        await self._run(self.redis.set(key, orjson.dumps(note), ex=max(1, round(seconds))))

    async def write_many(
        self, notes: list[tuple[str, str, dict[str, JSON]]], seconds: float
    ) -> None:
        """:meth:`write` of several (player, request id, note), in one command."""
        keys = [self._reply_key(player_id, request_id) for player_id, request_id, _ in notes]
        args: list[bytes | int] = [orjson.dumps(note) for _, _, note in notes]
        args.append(max(1, round(seconds)))
        await self._run(self._notes(keys=keys, args=args))

    async def forget(self, player_id: str, request_id: str) -> None:
        """The request failed in a way worth trying again: a retry runs it."""
        await self._run(self.redis.delete(self._reply_key(player_id, request_id)))

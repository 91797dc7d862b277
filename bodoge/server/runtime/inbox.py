"""A table's inbox: the commands queued to it and the one task that runs them, in order.

A command is a coroutine function and its arguments.  :meth:`Inbox.call`
queues one and waits for its result; :meth:`Inbox.post` queues one and goes
on.  The task runs one command at a time, so a command never sees another
half done and nothing needs a lock.

A command that refuses (:class:`~bodoge.core.errors.GameError`,
:class:`~bodoge.server.runtime.protocol.ProtocolError`) raises to its caller as it
is; any other exception is a bug, logged, and the caller gets
``internal_error``.  A write refused because another process owns the table now
(:class:`~bodoge.store.base.Fenced`, in a cluster) fails like a closed inbox: the table is
being let go.  Once the inbox is closed (the table left memory) the
commands still queued, and any new call, fail with :class:`TableGone`: the
caller looks the table up again.

>>> import asyncio
>>> async def demo() -> list[str]:
...     done: list[str] = []
...     inbox = Inbox("t_demo", after_each=lambda: None)
...     inbox.start()
...     async def note(word: str) -> str:
...         done.append(word)
...         return word.upper()
...     inbox.post(note, "first")
...     done.append(await inbox.call(note, "second"))
...     inbox.stop()
...     return done
>>> asyncio.run(demo())
['first', 'second', 'SECOND']
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, TypeVarTuple

from bodoge.core.errors import GameError
from bodoge.server.runtime.protocol import ProtocolError
from bodoge.store import Fenced, StoreUnavailable, is_unavailable

log = logging.getLogger(__name__)

#: A command's arguments and result: ``call(command, *args)`` is typed as ``command(*args)``.
Args = TypeVarTuple("Args")
R = TypeVar("R")

_Queued = tuple[Callable[..., Awaitable[Any]], tuple[Any, ...], "asyncio.Future[Any] | None"]


class TableGone(Exception):
    """The table left memory (finished and unwatched, or deleted); look it up again."""


class Inbox:
    """The commands of table ``table_id``; ``after_each`` runs in the task after every one.

    The queue and the task exist only while there are commands: a server holds thousands of
    tables whose players are thinking, and a waiting queue and task each (about 2.5 KiB, a
    dozen objects the collector tracks) would be much of what an idle table costs.
    """

    __slots__ = ("_after_each", "_queue", "_task", "closed", "running", "started", "table_id")

    def __init__(self, table_id: str, after_each: Callable[[], None]) -> None:
        self.table_id = table_id
        self._after_each = after_each
        self._queue: deque[_Queued] = deque()
        self._task: asyncio.Task[None] | None = None
        #: Commands run (:meth:`start` called): until then they wait.
        self.started = False
        #: No more commands: the table left memory, or the server is stopping.
        self.closed = False
        #: Whether the task is running a command now (it may be awaiting the store).
        self.running = False

    @property
    def queued(self) -> int:
        """Commands waiting for the task."""
        return len(self._queue)

    def start(self) -> None:
        self.started = True
        self._wake()

    async def call(self, command: Callable[[*Args], Awaitable[R]], *args: *Args) -> R:
        """Run ``command(*args)`` in the task and return its result."""
        if self.closed:
            raise TableGone(self.table_id)
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._queue.append((command, args, future))
        self._wake()
        return await future

    def post(self, command: Callable[[*Args], Awaitable[object]], *args: *Args) -> None:
        """Queue ``command(*args)`` without waiting for it (dropped once closed)."""
        if not self.closed:
            self._queue.append((command, args, None))
            self._wake()

    def _wake(self) -> None:
        if self._task is None and self._queue and self.started and not self.closed:
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"table {self.table_id}"
            )

    async def _run(self) -> None:
        try:
            while self._queue and not self.closed:
                await self._one(*self._queue.popleft())
        finally:
            # (No await between the queue found empty and this: a command queued later
            # starts a new task.)
            self._task = None

    async def _one(
        self,
        command: Callable[..., Awaitable[Any]],
        args: tuple[Any, ...],
        future: asyncio.Future[Any] | None,
    ) -> None:
        self.running = True
        outcome: BaseException | None = None
        try:
            result = await command(*args)
        except (GameError, ProtocolError, TableGone, StoreUnavailable) as exc:
            # A refusal, or a write the database could not take (nothing changed): the
            # caller's to answer.
            outcome = exc
        except Fenced:  # another process runs the table now: nothing was written here
            outcome = TableGone(self.table_id)
        except Exception as exc:
            if is_unavailable(exc):  # a read cut off as the database went: nothing changed
                outcome = StoreUnavailable(str(exc))
            else:
                log.exception("table %s: %s failed", self.table_id, command.__name__)
                outcome = ProtocolError("internal_error", "the server failed")
        finally:
            self.running = False
        if future is not None and not future.done():
            if outcome is None:
                future.set_result(result)
            else:
                future.set_exception(outcome)
        self._after_each()

    def close(self) -> None:
        """Take no more commands; those still queued fail with :class:`TableGone`.

        Called by a command, the last one the task runs.  Lets go of ``after_each``,
        which holds the table: a cycle only the collector would free.
        """
        self.closed = True
        self._after_each = _nothing
        while self._queue:
            _, _, future = self._queue.popleft()
            if future is not None and not future.done():
                future.set_exception(TableGone(self.table_id))

    def stop(self) -> None:
        """Stop the task now (the server is stopping; the store keeps everything)."""
        self.closed = True
        if self._task is not None:
            self._task.cancel()


def _nothing() -> None:
    pass

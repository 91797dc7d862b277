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
    """The commands of table ``table_id``; ``after_each`` runs in the task after every one."""

    def __init__(self, table_id: str, after_each: Callable[[], None]) -> None:
        self.table_id = table_id
        self._after_each = after_each
        self._queue: asyncio.Queue[_Queued] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        #: No more commands: the table left memory, or the server is stopping.
        self.closed = False
        #: Whether the task is running a command now (it may be awaiting the store).
        self.running = False

    @property
    def queued(self) -> int:
        """Commands waiting for the task."""
        return self._queue.qsize()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table {self.table_id}")

    async def call(self, command: Callable[[*Args], Awaitable[R]], *args: *Args) -> R:
        """Run ``command(*args)`` in the task and return its result."""
        if self.closed:
            raise TableGone(self.table_id)
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((command, args, future))
        return await future

    def post(self, command: Callable[[*Args], Awaitable[object]], *args: *Args) -> None:
        """Queue ``command(*args)`` without waiting for it (dropped once closed)."""
        if not self.closed:
            self._queue.put_nowait((command, args, None))

    async def _run(self) -> None:
        while not self.closed:
            command, args, future = await self._queue.get()
            self.running = True
            try:
                result = await command(*args)
            except (GameError, ProtocolError, TableGone, StoreUnavailable) as exc:
                # A refusal, or a write the database could not take (nothing changed): the
                # caller's to answer.
                if future is not None and not future.done():
                    future.set_exception(exc)
            except Fenced:  # another process runs the table now: nothing was written here
                if future is not None and not future.done():
                    future.set_exception(TableGone(self.table_id))
            except Exception as exc:
                if is_unavailable(exc):  # a read cut off as the database went: nothing changed
                    if future is not None and not future.done():
                        future.set_exception(StoreUnavailable(str(exc)))
                else:
                    log.exception("table %s: %s failed", self.table_id, command.__name__)
                    if future is not None and not future.done():
                        future.set_exception(ProtocolError("internal_error", "the server failed"))
            else:
                if future is not None and not future.done():
                    future.set_result(result)
            finally:
                self.running = False
            self._after_each()

    def close(self) -> None:
        """Take no more commands; those still queued fail with :class:`TableGone`.

        Called by a command, the last one the task runs.  Lets go of ``after_each``,
        which holds the table: a cycle only the collector would free.
        """
        self.closed = True
        self._after_each = _nothing
        while not self._queue.empty():
            _, _, future = self._queue.get_nowait()
            if future is not None and not future.done():
                future.set_exception(TableGone(self.table_id))

    def stop(self) -> None:
        """Stop the task now (the server is stopping; the store keeps everything)."""
        self.closed = True
        if self._task is not None:
            self._task.cancel()


def _nothing() -> None:
    pass

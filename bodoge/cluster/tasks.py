"""Stopping the cluster's background tasks for sure.

Before Python 3.12, ``asyncio.wait_for`` can swallow a cancellation that arrives just as
what it waits for finishes (CPython gh-86296), so a loop built on it may outlive one
``cancel()`` and whoever awaits it then waits forever. :func:`cancel_and_wait` cancels
again until every task has ended.

>>> async def demo() -> bool:
...     task = asyncio.create_task(asyncio.sleep(30))
...     await asyncio.sleep(0)
...     await cancel_and_wait([task])
...     return task.cancelled()
>>> asyncio.run(demo())
True
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any]], retry: float = 0.1) -> None:
    """Cancel ``tasks`` and wait until each has ended (their exceptions are dropped)."""
    tasks = list(tasks)
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=retry)
    for task in tasks:
        if not task.cancelled():
            task.exception()  # retrieved, so that asyncio does not report it as lost

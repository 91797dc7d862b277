"""Uploaded pictures decoded off the event loop, a few at a time, within a budget of pixels.

A picture's file says little of what it costs: a 4470×4470 grey PNG is 19.5 KB and
decodes to 20 million pixels (20 MB in its own mode, 80 MB as RGBA). So what an upload
costs is read from its pictures' headers first (Pillow's lazy open decodes nothing) and
budgeted before any picture is decoded:

* **per upload**: its pictures together may decode to at most ``--upload-megapixels``
  (beyond: ``413 too_many_pixels``);
* **per player**: those megapixels are taken from the player's bucket of
  ``--megapixels-per-player-hour`` (empty: ``429 pixel_rate_limited`` with
  ``Retry-After``), so that a player cannot keep the decoder busy;
* **per process**: at most :data:`UPLOADS_AT_ONCE` uploads are read and decoded at once;
  the next ones wait their turn before their bodies are read (a body not read stays in
  the socket: nginx's or the kernel's buffers, not this process's memory), and beyond
  :data:`MAX_WAITING` waiting ones the next is refused, ``503 uploads_busy`` with
  ``Retry-After``. An upload's pictures are decoded one after the other, in a pool of
  :data:`DECODES_AT_ONCE` threads of their own: never on the event loop (Pillow lets go
  of the GIL while it decodes and resamples), and never more than that many pictures in
  memory at once, whatever the number of uploads.

Each picture's bytes are read from the upload's spooled file in the decoding thread, just
before it is decoded, so a waiting upload holds only its (bounded) body, not its decoded
pictures. ``bodoge bench uploads`` measures the server's peak memory and the event loop's
lag under many such uploads at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import BinaryIO

from bodoge.server.edge.pictures import Picture, clean_picture, measure_upload

#: Pictures decoded at once in one process (each a thread of the decoding pool): one, so
#: that on a small machine a core is left to the event loop (and a decoded picture is in
#: memory once); ``bodoge bench uploads`` measured two as no faster, and laggier.
DECODES_AT_ONCE = 1
#: Uploads read and decoded at once in one process, and how many may wait for their turn
#: (beyond: ``uploads_busy``).
UPLOADS_AT_ONCE = 4
MAX_WAITING = 32
#: Seconds a refused upload is told to wait (``Retry-After``) when the process is busy.
BUSY_RETRY = 5


class Busy(Exception):
    """As many uploads are being decoded as a process takes at once."""


class Decoder:
    """This process's decoding of uploaded pictures: its thread pool and its uploads."""

    def __init__(
        self,
        threads: int = DECODES_AT_ONCE,
        uploads: int = UPLOADS_AT_ONCE,
        waiting: int = MAX_WAITING,
    ) -> None:
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="picture-decoder")
        self._turns = asyncio.Semaphore(uploads)
        self.max_waiting = waiting
        #: Uploads waiting for their turn now.
        self.waiting = 0

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """One upload's turn to be read and decoded (:class:`Busy` if too many wait)."""
        if self._turns.locked() and self.waiting >= self.max_waiting:
            raise Busy
        self.waiting += 1
        try:
            await self._turns.acquire()
        finally:
            self.waiting -= 1
        try:
            yield
        finally:
            self._turns.release()

    async def measure(self, files: Sequence[tuple[str | None, BinaryIO]], budget: int) -> int:
        """The pixels the upload decodes to, from headers only (see :func:`measure_upload`)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, measure_upload, files, budget)

    async def clean(self, files: Sequence[tuple[str | None, BinaryIO]]) -> tuple[Picture, ...]:
        """Every picture checked and redrawn, one after the other (a bad one refuses all)."""
        loop = asyncio.get_running_loop()
        pictures = []
        for i, (name, file) in enumerate(files):
            label = name or f"picture {i + 1}"
            pictures.append(await loop.run_in_executor(self._pool, _clean, file, label))
        return tuple(pictures)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _clean(file: BinaryIO, label: str) -> Picture:
    file.seek(0)
    return clean_picture(file.read(), label)

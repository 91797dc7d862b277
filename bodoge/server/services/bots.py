"""Runs bots, the assistant and game reviews away from the event loop.

A bot may think for a second; in the server's thread it would hold the GIL
and every table would stutter.  So by default bots run in worker processes
(``spawn``ed, so no lock or thread of the server is copied into them); with
``workers=0`` they run in threads instead (in-process tests, tiny machines).
Workers receive only JSON-ready data: the game id, the seat's view and a seed,
so a bot sees exactly what a person in that seat sees.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import TypeVar

from bodoge.core.game import Bot, Game
from bodoge.core.puzzles import MadePuzzle
from bodoge.core.rng import rng
from bodoge.core.values import JSON

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How often a worker checks that the server that started it is still alive.
PARENT_CHECK_SECONDS = 0.5

# Bots are made once per process and level: they see only the view, so they keep no game state.
_bots: dict[tuple[str, str], Bot] = {}


def _game(game_id: str, games: Mapping[str, Game] | None) -> Game:
    if games is not None:
        return games[game_id]
    from bodoge.games import get

    return get(game_id)


def run_bot(
    game_id: str,
    level: str,
    view: Mapping[str, JSON],
    seat: int,
    seed: int,
    games: Mapping[str, Game] | None = None,
    stand_in: bool = False,
) -> dict[str, JSON] | None:
    """The move a bot makes in this view, as JSON, or ``None`` (nothing to do); a
    ``stand_in`` for an absent person plays what the game lets one (``Game.stand_in``)."""
    game = _game(game_id, games)
    bot = _bots.get((game_id, level))
    if bot is None:
        bot = _bots[(game_id, level)] = game.bot(level)
    move = bot.act(view, seat, rng(seed, "bot"))
    if stand_in:
        move = game.stand_in(view, seat, move)
    return None if move is None else game.move_to_json(move)


def run_assist(
    game_id: str, view: Mapping[str, JSON], seat: int, games: Mapping[str, Game] | None = None
) -> dict[str, JSON] | None:
    return _game(game_id, games).assist(view, seat)


def run_review(
    game_id: str, history: Mapping[str, JSON], games: Mapping[str, Game] | None = None
) -> dict[str, JSON] | None:
    return _game(game_id, games).review(history)


def run_make_puzzles(
    game_id: str, count: int, seed: int, games: Mapping[str, Game] | None = None
) -> list[MadePuzzle]:
    book = _game(game_id, games).puzzles()
    return [] if book is None else book.make(count, seed).puzzles


def _warm_up() -> None:
    from bodoge.games import registry

    registry()


def _start_worker(server_pid: int) -> None:
    """A worker's first act: leave with the server, even one killed with ``kill -9``.

    Nothing tells a worker that its parent was killed (the pool's pipes can be
    held open by other workers), so a thread checks who its parent is.
    """

    def watch() -> None:
        while os.getppid() == server_pid:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="watch-server", daemon=True).start()
    _warm_up()


class BotRunner:
    """Runs ``run_bot``/``run_assist`` in a pool and awaits the answer."""

    def __init__(
        self, workers: int, games: Mapping[str, Game] | None = None, timeout: float = 60.0
    ) -> None:
        self.workers = workers
        self.timeout = timeout
        # Worker processes import the registry themselves; threads use ours.
        self._games = None if workers > 0 else games
        self._pool: Executor | None = None
        #: Reviews run in a worker of their own, started when first asked for: a
        #: review takes seconds, and no bot at a live table should wait for it.
        self._review_pool: Executor | None = None
        #: Puzzles are made in a worker of their own too, started when first needed.
        self._puzzle_pool: Executor | None = None
        #: Bot moves being worked out now (a test clock waits for none before moving on).
        self.thinking = 0

    def _executor(self) -> Executor:
        if self._pool is None:
            self._pool = self._new_pool(self.workers, "bot")
        return self._pool

    def _new_pool(self, workers: int, name: str) -> Executor:
        if self.workers > 0:
            return ProcessPoolExecutor(
                workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(os.getpid(),),
            )
        return ThreadPoolExecutor(2, thread_name_prefix=name)

    def warm_up(self) -> None:
        """Start the workers now rather than on the first bot move."""
        if self.workers > 0:
            self._executor().submit(_warm_up)

    async def act(
        self,
        game_id: str,
        level: str,
        view: Mapping[str, JSON],
        seat: int,
        seed: int,
        *,
        stand_in: bool = False,
    ) -> dict[str, JSON] | None:
        job = partial(run_bot, game_id, level, view, seat, seed, self._games, stand_in)
        self.thinking += 1
        try:
            return await self._run(job)
        finally:
            self.thinking -= 1

    async def assist(
        self, game_id: str, view: Mapping[str, JSON], seat: int
    ) -> dict[str, JSON] | None:
        return await self._run(partial(run_assist, game_id, view, seat, self._games))

    async def review(self, game_id: str, history: Mapping[str, JSON]) -> dict[str, JSON] | None:
        """A finished game's review (the game's ``review``), worked out in its own worker."""
        if self._review_pool is None:
            self._review_pool = self._new_pool(1, "review")
        job = partial(run_review, game_id, history, self._games)
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(
                loop.run_in_executor(self._review_pool, job), self.timeout
            )
        except BrokenProcessPool:
            log.error("the review worker died; restarting it")
            self._review_pool = None
            raise

    async def make_puzzles(self, game_id: str, count: int, seed: int) -> list[MadePuzzle]:
        """``count`` of a game's puzzles from ``seed`` (``Game.puzzles``), made in their own
        worker: seconds of bot games and deductions that no table should wait for."""
        if self._puzzle_pool is None:
            self._puzzle_pool = self._new_pool(1, "puzzles")
        job = partial(run_make_puzzles, game_id, count, seed, self._games)
        return await asyncio.get_running_loop().run_in_executor(self._puzzle_pool, job)

    async def _run(self, job: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(loop.run_in_executor(self._executor(), job), self.timeout)
        except BrokenProcessPool:
            # A worker died (out of memory, a crash in a bot): start afresh next time.
            log.error("a bot worker died; restarting the pool")
            self._pool = None
            raise

    async def close(self) -> None:
        for pool in (self._pool, self._review_pool, self._puzzle_pool):
            if pool is not None:
                # Waiting (in a thread) lets the workers exit cleanly instead of being orphaned.
                await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
        self._pool = self._review_pool = self._puzzle_pool = None

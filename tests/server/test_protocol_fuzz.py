"""A protocol fuzzer: hypothesis throws message sequences at a live server, invariants hold.

A real ``bodoge serve`` process on its own data folder (so its log is the fuzzer's alone)
holds a few tables in play — Tagiron for 2 and for 4 with people and bots, Illustori with
bots, a waiting table — and several connections: two tabs of one seated player, other seated
players, a spectator, an anonymous stranger and the fuzzer's own observer.  Each example
draws a sequence of actions (see ``tests/support/fuzz_messages.py``): well-formed requests
with random values, mutations of them, frames that are not requests at all, legal moves,
moves out of turn or for another seat, repeats of earlier requests with their ids, bursts
over the rate limit, floods, frames beyond 1 MiB, reconnections.  After every action
(``tests/support/fuzz.py``):

* the server's log has no traceback and no ERROR line;
* every frame the server sent is strict JSON (no ``NaN``/``Infinity``), a server message,
  and every ``error`` has a documented code (the server's or a game's); each ``event`` patch
  applies to the view the tab had, and no snapshot with a game view says ``waiting``;
* every request got exactly one reply, carrying its id exactly when the id is one the server
  echoes — unless the frame was refused as ``rate_limited``/``too_large``/``bad_json``, or
  the connection closed with a documented close code; a request the protocol says must be
  refused was refused, and a repeated state-changing request got its first reply again;
* a refused request changed nothing anyone can see: no other connection (nor its own) got a
  message it caused — only bots' moves may arrive meanwhile — and the observer's snapshot of
  the table it named is the same before and after;

and after every example a ``ping`` on a new connection is answered within 5 seconds.

By default the examples take about 35 seconds (a minute in all, with the server's start) and
each hypothesis run has a fixed seed, so CI tries the same examples every time.  For a longer
run with random examples::

    BODOGE_FUZZ_SECONDS=600 .venv/bin/python -m pytest -q -s tests/server/test_protocol_fuzz.py

(``BODOGE_FUZZ_EXAMPLES=n`` bounds the examples instead, or as well;
``BODOGE_FUZZ_VERBOSE=1`` prints every action).  Long runs shrink a failure (for at most five
minutes) and print a ``@reproduce_failure`` blob; since the server keeps its state between
examples a replay is not exact, so each failure also shows the action, the violations and the
frames around them.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from tests.support.fuzz import Fuzzer
from tests.support.fuzz_messages import actions
from tests.support.live_server import LiveServer

LONG = bool(os.environ.get("BODOGE_FUZZ_SECONDS") or os.environ.get("BODOGE_FUZZ_EXAMPLES"))
#: Seconds spent on examples (set-up and tear-down come on top: a few seconds).
SECONDS = float(os.environ.get("BODOGE_FUZZ_SECONDS") or (10**9 if LONG else 35))
EXAMPLES = int(os.environ.get("BODOGE_FUZZ_EXAMPLES") or 10**9)
#: Print every action and how long it took.
VERBOSE = bool(os.environ.get("BODOGE_FUZZ_VERBOSE"))
#: Examples in one hypothesis run; the runs go on until the time (or the examples) run out.
BATCH = 100
#: Shrinking a failure only pays off in long runs; in CI the failure's frames are reported.
PHASES = [Phase.explicit, Phase.reuse, Phase.generate, *([Phase.shrink] if LONG else [])]
#: Once a failure is being shrunk: how much longer shrinking may go on.
SHRINK_SECONDS = 300
#: Actions in one example.
MAX_ACTIONS = 16
ACTION_SECONDS = 120
ACTIONS = actions()


def draw_plan(data: st.DataObject) -> list[Any]:
    """An example's actions, all drawn before any runs (so a failure half-way through
    leaves hypothesis's record of the draws whole)."""
    count = data.draw(st.integers(1, MAX_ACTIONS), label="actions")
    return [data.draw(ACTIONS, label=f"action {i}") for i in range(count)]


async def run_example(fuzz: Fuzzer, plan: list[Any]) -> None:
    await fuzz.repair()
    fuzz.raise_violations("putting the tables back")
    for action in plan:
        started = time.monotonic()
        await asyncio.wait_for(action.run(fuzz), ACTION_SECONDS)
        if VERBOSE:
            print(f"{time.monotonic() - started:6.2f}s {str(action)[:200]}", flush=True)
        fuzz.raise_violations(action)
    seconds = await fuzz.responsive()
    fuzz.raise_violations(f"a ping on a new connection ({seconds:.2f}s)")


def test_protocol_fuzz(tmp_path: Path) -> None:
    loop = asyncio.new_event_loop()
    server = LiveServer(tmp_path / "server").start()
    fuzz = Fuzzer(server)
    started = time.monotonic()
    state: dict[str, float] = {"examples": 0}

    def out_of_time() -> bool:
        failed_at = state.get("failed_at")
        if failed_at is not None:  # shrinking a failure
            return time.monotonic() - failed_at > SHRINK_SECONDS
        return time.monotonic() - started > SECONDS or state["examples"] >= EXAMPLES

    def example(data: st.DataObject) -> None:
        plan = draw_plan(data)
        if out_of_time():
            return  # the rest of the run passes at once
        state["examples"] += 1
        if LONG and state["examples"] % 50 == 0:
            print(
                f"{state['examples']:.0f} examples, {time.monotonic() - started:.0f}s", flush=True
            )
        try:
            loop.run_until_complete(run_example(fuzz, plan))
        except BaseException:
            state.setdefault("failed_at", time.monotonic())
            raise

    def run(number: int) -> None:
        test = given(st.data())(example)
        test = settings(
            max_examples=BATCH,
            deadline=None,
            database=settings.default.database if LONG else None,
            print_blob=True,
            phases=PHASES,
            suppress_health_check=list(HealthCheck),
        )(test)
        if not LONG:
            test = seed(number)(test)  # the same examples on every run
        test()

    try:
        loop.run_until_complete(fuzz.setup())
        fuzz.raise_violations("setting the tables up")
        for number in itertools.count():
            if out_of_time():
                break
            run(number)
    finally:
        try:
            loop.run_until_complete(fuzz.close())
        finally:
            server.stop()
            loop.close()
        took = time.monotonic() - started
        print(f"\nprotocol fuzz: {state['examples']:.0f} examples in {took:.0f}s")
        for line, count in sorted(fuzz.stats.items()):
            print(f"  {count:6d}  {line}")
        for line, count in sorted(fuzz.notes.items()):
            print(f"  note: {count} × {line}, e.g. {fuzz.note_examples[line]}")

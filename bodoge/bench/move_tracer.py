"""The inside of ``bodoge bench trace-move``: one Tagiron move traced through a server.

This file runs as a script (``runpy``) in a process whose ``bodoge`` is the tree being
traced, which may be an older checkout with another layout: it imports only the standard
library, ``websockets`` and what every tree has (``bodoge.cli.main``, Tagiron's cards).

The server runs in this process on a thread of its own (``bodoge serve`` on 127.0.0.1, SQLite
in a temporary folder, ``--bot-delay 0``); two WebSocket clients on the main thread play a
2-player Tagiron table. A profile function is on in the server's thread and in every thread
started after it, never in the clients' thread; it records a move's Python calls only
between the move being sent and its reply and both seats' events having arrived. Calls into
files of the traced ``bodoge`` count, those of ``bodoge/bench/`` (the clients' side) do not.
A garbage collection that falls in the move is the process's work too: its callbacks count.

Usage: ``move_tracer.py OUT_JSON WARM_UP MOVES`` (run with the traced tree first on ``sys.path``).
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import itertools
import json
import os
import socket
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

#: Seconds any one reply or event may take before the trace gives up.
TIMEOUT = 30.0

#: Seconds to wait after the game starts, so that the server's start-up work (its first
#: housekeeping pass) is done before a move is traced.
SETTLE = 1.0

#: The facts of a table that the clients follow.
FACTS = ("to_act", "may_act", "result")


@dataclass
class Recorder:
    """The calls into the package's files while ``active``: (file, first line, name) each."""

    package: str
    calls: list[tuple[str, int, str]] = field(default_factory=list)
    active: bool = False

    def __post_init__(self) -> None:
        self._inside = self.package + os.sep
        self._clients = os.path.join(self.package, "bench") + os.sep

    def profile(self, frame: FrameType, event: str, arg: object) -> None:
        # A coroutine resumed is a "call" too: the path goes back into its file.
        if event != "call" or not self.active:
            return
        code = frame.f_code
        name = code.co_filename
        if name.startswith(self._inside) and not name.startswith(self._clients):
            self.calls.append((name, code.co_firstlineno, code.co_qualname))


class Client:
    """One WebSocket client: requests by id, every other frame kept, and its table's state.

    The view is kept up from the ``table`` snapshot by each ``event`` frame's patch, and
    the facts (``to_act``, ``may_act`` …) from whichever of them a frame carries.
    """

    def __init__(self, ws: Any, apply: Any) -> None:
        self.ws = ws
        self.apply = apply
        self.ids = itertools.count(1)
        self.frames: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()
        self.view: Any = None
        self.facts: dict[str, Any] = {}
        self.you: int | None = None
        self.n = 0
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for frame in self.ws:
            message = json.loads(frame)
            self._follow(message)
            self.frames.append(message)
            self.arrived.set()

    def _follow(self, message: dict[str, Any]) -> None:
        if message.get("type") == "table":
            self.view, self.you = message.get("view"), message.get("you")
            self.facts = {k: v for k, v in message.items() if k in FACTS}
        elif message.get("type") == "event":
            if "view" in message:
                self.view = message["view"]
            elif "patch" in message:
                self.view = self.apply(self.view, message["patch"], message.get("events", ()))
            self.facts |= {k: v for k, v in message.items() if k in FACTS}
        else:
            return
        self.n = int(message.get("n") or 0)

    def awaited(self) -> bool:
        return bool(self.facts.get("may_act")) and self.you in (self.facts.get("to_act") or ())

    async def wait_for(self, match: Any) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while True:
            for message in self.frames:
                if match(message):
                    return message
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), max(0.0, deadline - time.monotonic()))

    async def send(self, type: str, **fields: Any) -> int:
        rid = next(self.ids)
        await self.ws.send(json.dumps({"type": type, "id": rid, **fields}))
        return rid

    async def request(self, type: str, **fields: Any) -> dict[str, Any]:
        rid = await self.send(type, **fields)
        reply = await self.wait_for(lambda m: m.get("id") == rid)
        if reply["type"] == "error":
            raise RuntimeError(f"{type}: {reply.get('code')} {reply.get('message')}")
        return reply


def view_patcher() -> Any:
    """``viewdiff.apply`` wherever the traced tree keeps it."""
    try:
        from bodoge.server.runtime.viewdiff import apply
    except ImportError:  # a tree from before the server had sub-packages (named at run time:
        # mypy's verdict on a module this tree lacks differs between its releases)
        return importlib.import_module("bodoge.server.viewdiff").apply
    return apply


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(data: Path, port: int, recorder: Recorder) -> None:
    """``bodoge serve`` of the traced tree on a thread, the profile function on in it."""
    from bodoge.cli import main

    argv = ["serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(data)]
    argv += ["--bot-delay", "0", "--bot-workers", "0", "--log-level", "error"]

    def serve() -> None:
        sys.setprofile(recorder.profile)
        main(argv)

    threading.setprofile(recorder.profile)  # the threads the server starts (executors) too
    threading.Thread(target=serve, name="traced-server", daemon=True).start()
    deadline = time.monotonic() + 120
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start") from None
            time.sleep(0.05)


def choose_move(view: dict[str, Any]) -> dict[str, Any]:
    """The same cheap move on every tree: the first face-up question, else a pass."""
    from bodoge.games.tagiron.cards import CARDS

    if view.get("may_ask") and view.get("face_up"):
        card = view["face_up"][0]
        choices = CARDS[card].choices
        return {"type": "ask", "card": card, "choice": choices[0] if choices else None}
    return {"type": "pass"}


async def play(url: str, recorder: Recorder, warm_up: int, moves: int) -> list[dict[str, Any]]:
    """Play ``warm_up`` moves, then trace ``moves`` moves one by one; each one's figures."""
    from websockets.asyncio.client import connect

    apply = view_patcher()
    clients = []
    for name in ("trace-a", "trace-b"):
        ws = await connect(url, compression=None, max_size=2**22, open_timeout=60)
        client = Client(ws, apply)
        await client.request("hello", token=None, name=name)
        clients.append(client)
    host, guest = clients
    created = await host.request("table.create", game="tagiron", options={"players": 2})
    table = str(created["table"])
    await guest.request("table.join", table=table)
    for client in clients:
        await client.request("table.open", table=table)
    await host.request("table.start", table=table)
    await asyncio.sleep(SETTLE)
    n = 0
    traced: list[dict[str, Any]] = []
    for index in range(warm_up + moves):
        # Whoever is awaited moves, once both seats have seen the last move.
        deadline = time.monotonic() + TIMEOUT
        while not (all(c.n >= n for c in clients) and any(c.awaited() for c in clients)):
            if any(c.facts.get("result") for c in clients):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"nobody is awaited after move {n}")
            await asyncio.sleep(0.02)
        if any(c.facts.get("result") for c in clients):
            break  # the game is over: fewer moves traced
        mover, other = (host, guest) if host.awaited() else (guest, host)
        move = choose_move(mover.view)
        recorder.calls.clear()
        if index >= warm_up:
            gc.collect()  # a collection during the move is the collector's path, not the move's
            recorder.active = True
        started = time.perf_counter()
        rid = await mover.send("move", table=table, move=move)
        reply = await mover.wait_for(lambda m, rid=rid: m.get("id") == rid)
        if reply["type"] == "error":
            raise RuntimeError(f"move refused: {reply}")
        n = int(reply["n"])

        def event_n(m: dict[str, Any], n: int = n) -> bool:
            return m.get("type") == "event" and m.get("table") == table and m.get("n") == n

        await other.wait_for(event_n)
        await mover.wait_for(event_n)
        if recorder.active:
            recorder.active = False
            seconds = time.perf_counter() - started
            traced.append({"move": move, "n": n, "seconds": seconds, **summary(recorder)})
    for client in clients:
        await client.ws.close()
    return traced


def summary(recorder: Recorder) -> dict[str, Any]:
    """Files and functions entered, calls, and how often consecutive calls change file."""
    calls = recorder.calls
    root = os.path.dirname(recorder.package)
    files: dict[str, dict[str, Any]] = {}
    for name, line, qualname in calls:
        entry = files.setdefault(os.path.relpath(name, root), {"calls": 0, "functions": set()})
        entry["calls"] += 1
        entry["functions"].add((line, qualname))
    changes = sum(1 for a, b in itertools.pairwise(calls) if a[0] != b[0])
    return {
        "calls": len(calls),
        "functions": len({(name, line) for name, line, _ in calls}),
        "changes": changes,
        "files": [
            {
                "file": file,
                "calls": entry["calls"],
                "functions": sorted(name for _, name in entry["functions"]),
            }
            for file, entry in files.items()  # in the order the move first entered them
        ],
    }


def main(out: str, warm_up: int, moves: int) -> None:
    import bodoge

    package = os.path.dirname(os.path.realpath(bodoge.__file__))
    recorder = Recorder(package)
    with tempfile.TemporaryDirectory(prefix="bodoge-trace-") as data:
        port = free_port()
        start_server(Path(data), port, recorder)
        traced = asyncio.run(play(f"ws://127.0.0.1:{port}/ws", recorder, warm_up, moves))
        result = {"package": package, "moves": traced}
        Path(out).write_text(json.dumps(result), "utf-8")
    # The server's thread is left running: the process ends without waiting for it.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[-3], int(sys.argv[-2]), int(sys.argv[-1]))

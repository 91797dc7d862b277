"""``bodoge bench pings``: what pinging every WebSocket costs a server process.

Behind the cluster's nginx a WebSocket silent both ways for a few seconds is cut (that is how
a paused process's sockets are let go, docs/deploy.md), so a cluster process pings each
socket every second (``bodoge serve --ws-ping``). This bench prices that: a server process
with uvicorn and bodoge's WebSocket protocol (:mod:`bodoge.server.edge.socket_protocol`,
whose pings are uvicorn's) holds ``--sockets`` open and silent sockets, whose clients answer
each ping with a pong as a browser does; its CPU is read from ``/proc`` over ``--duration``
seconds, for each ping interval in turn and again (``--rounds``), so the intervals are
compared under the same load. It prints, per interval, the process's share of a core for
1,000 sockets and the CPU each ping costs beyond no pings at all.

The application does nothing with its sockets: what is measured is the pings, not a game.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time

from bodoge.bench.processes import cpu_seconds

#: The server process: uvicorn on bodoge's WebSocket protocol, an application that only
#: accepts and waits; argv: port, ping interval (0: none).
_SERVER = r"""
import sys, uvicorn
from bodoge.server.edge.socket_protocol import LeanWebSocketProtocol

async def app(scope, receive, send):
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass
    elif scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return

every = float(sys.argv[2])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning",
            ws=LeanWebSocketProtocol, ws_ping_interval=every or None,
            ws_per_message_deflate=False)
"""


def register_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "pings", help="a server process's CPU for pinging open, silent WebSockets"
    )
    parser.add_argument(
        "--every",
        type=_intervals,
        default=[0.0, 1.0, 20.0],
        metavar="S[,S…]",
        help="ping intervals in seconds, 0 for none (0,1,20: none, a cluster's, uvicorn's)",
    )
    parser.add_argument("--sockets", type=int, default=1000, help="open sockets (1000)")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds measured (20)")
    parser.add_argument("--rounds", type=int, default=2, help="times each interval runs (2)")
    parser.set_defaults(func=cmd_bench)


def _intervals(text: str) -> list[float]:
    try:
        found = [float(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of seconds: {text!r}") from None
    if not found or any(every < 0 for every in found):
        raise argparse.ArgumentTypeError(f"intervals are 0 or more seconds: {text!r}")
    return found


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _one(every: float, sockets: int, duration: float) -> float:
    """The server's CPU seconds a second over ``duration``, with ``sockets`` open."""
    from websockets.asyncio.client import ClientConnection, connect

    port = _free_port()
    server = subprocess.Popen([sys.executable, "-c", _SERVER, str(port), str(every)])
    try:
        opened: list[ClientConnection] = []
        deadline = time.monotonic() + 30
        while True:
            try:
                opened.append(await connect(f"ws://127.0.0.1:{port}/", ping_interval=None))
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the bench's server did not start") from None
                await asyncio.sleep(0.1)
        while len(opened) < sockets:
            opened.append(await connect(f"ws://127.0.0.1:{port}/", ping_interval=None))
        await asyncio.sleep(min(2.0, every or 0.0) + 0.5)  # every socket's timer started
        began, cpu = time.monotonic(), cpu_seconds(server.pid)
        await asyncio.sleep(duration)
        used = (cpu_seconds(server.pid) - cpu) / (time.monotonic() - began)
        for ws in opened:
            await ws.close()
        return used
    finally:
        server.terminate()
        server.wait(10)


async def _run(args: argparse.Namespace) -> None:
    used: dict[float, list[float]] = {every: [] for every in args.every}
    for _ in range(args.rounds):
        for every in args.every:  # alternately, so each interval meets the same load
            used[every].append(await _one(every, args.sockets, args.duration))
    load = os.getloadavg()[0]
    print(
        f"WebSocket pings: {args.sockets} open, silent sockets, {args.duration:g} s measured,"
        f" {args.rounds} round(s) alternately (load average {load:.2f})"
    )
    print(f"{'every (s)':>10} {'core % / 1,000 sockets':>24} {'µs a ping':>10}")
    base = statistics.median(used[0.0]) if 0.0 in used else None
    for every, runs in used.items():
        share = statistics.median(runs) * 1000 / args.sockets
        if every > 0 and base is not None:
            pings = args.sockets / every
            each = f"{(statistics.median(runs) - base) / pings * 1e6:.0f}"
        else:
            each = "-"
        label = "none" if every == 0 else f"{every:g}"
        print(f"{label:>10} {share * 100:>24.2f} {each:>10}")


def cmd_bench(args: argparse.Namespace) -> int:
    if args.sockets < 1 or args.duration <= 0 or args.rounds < 1:
        raise SystemExit("bodoge bench pings: --sockets, --duration and --rounds are positive")
    asyncio.run(_run(args))
    return 0

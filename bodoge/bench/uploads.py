"""``bodoge bench uploads``: uploads of small files that decode to huge pictures, all at once.

A 4470×4470 grey PNG is 19.5 KB and decodes to 20 megapixels. The bench starts a
server (this tree, ``--checkout PATH``, or with ``--ab OLD_PATH`` the old tree's and then
this one's, each fresh, with the same load in one run), makes one player per upload, and
sends ``--uploads`` uploads at once of ``--pictures`` such pictures each, while one more
client pings the server over its WebSocket some 15 times a second. It prints, per server: the
answers by status, the server process's resident memory before and its peak during the
load (``VmHWM``: the high-water mark since it started), the pings' round trips (median,
p99, max: how long the event loop could not answer) and the server's CPU time.

``tests/server/test_upload_load.py`` runs the same load (:func:`upload_load`) against a
live server and asserts that both stay bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bodoge.bench.processes import HERE, cpu_seconds, proc_status, start_server, tree_error

#: The picture of the load: as many pixels as an upload's picture may have, nearly no bytes.
SIDE = 4470
#: Seconds between pings: some 15 a second, under a connection's rate (20 a second).
PING_EVERY = 0.06


def bomb_png(side: int = SIDE) -> bytes:
    """A ``side``×``side`` grey (black) PNG: 19.5 KB for 20 megapixels, the audit's."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("L", (side, side), 0).save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


@dataclass
class LoadResult:
    """What one load did to one server."""

    statuses: Counter[int] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    pings: list[float] = field(default_factory=list)
    seconds: float = 0.0
    rss_before_kib: int = 0
    peak_kib: int = 0
    cpu: float = 0.0

    @property
    def lag_ms(self) -> tuple[float, float, float]:
        """The pings' round trips in ms: median, p99, max (0s without pings)."""
        if not self.pings:
            return 0.0, 0.0, 0.0
        ordered = sorted(self.pings)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        return statistics.median(ordered) * 1e3, p99 * 1e3, ordered[-1] * 1e3


async def _player(ws_url: str) -> str:
    from websockets.asyncio.client import connect

    async with connect(ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "name": "uploader"}))
        while True:
            message = json.loads(await ws.recv())
            if message.get("type") == "welcome":
                return str(message["token"])


async def upload_load(
    http_url: str, ws_url: str, pid: int | None, uploads: int, pictures: int
) -> LoadResult:
    """``uploads`` uploads at once of ``pictures`` bomb PNGs each, pinging meanwhile."""
    import httpx
    from websockets.asyncio.client import connect

    result = LoadResult()
    picture = bomb_png()
    tokens = [await _player(ws_url) for _ in range(uploads)]
    if pid is not None:
        result.rss_before_kib = proc_status(pid, "VmRSS")
        cpu_before = cpu_seconds(pid)
    done = asyncio.Event()

    async def ping() -> None:
        async with connect(ws_url) as ws:
            await ws.send(json.dumps({"type": "hello", "name": "pinger"}))
            await ws.recv()
            n = 0
            while not done.is_set():
                n += 1
                sent = time.perf_counter()
                await ws.send(json.dumps({"type": "ping", "id": f"p{n}"}))
                while json.loads(await ws.recv()).get("id") != f"p{n}":
                    pass
                result.pings.append(time.perf_counter() - sent)
                await asyncio.sleep(PING_EVERY)

    async def upload(client: httpx.AsyncClient, token: str) -> None:
        files = [("files", (f"grey{i}.png", picture, "image/png")) for i in range(pictures)]
        answer = await client.post(
            "/api/decks", files=files, headers={"Authorization": f"Bearer {token}"}
        )
        result.statuses[answer.status_code] += 1
        if answer.status_code >= 400:
            result.codes[str(answer.json().get("error", {}).get("code"))] += 1

    pinger = asyncio.create_task(ping())
    await asyncio.sleep(0.5)  # some pings of the quiet server first
    started = time.perf_counter()
    limits = httpx.Limits(max_connections=uploads + 1)
    async with httpx.AsyncClient(base_url=http_url, timeout=600, limits=limits) as client:
        await asyncio.gather(*(upload(client, token) for token in tokens))
    result.seconds = time.perf_counter() - started
    done.set()
    await pinger
    if pid is not None:
        result.peak_kib = proc_status(pid, "VmHWM")
        result.cpu = cpu_seconds(pid) - cpu_before
    return result


def register_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "uploads", help="uploads of tiny files that decode to huge pictures: memory and lag"
    )
    parser.add_argument("--uploads", type=int, default=12, help="uploads at once (default 12)")
    parser.add_argument(
        "--pictures", type=int, default=4, help="4470×4470 PNGs per upload (default 4)"
    )
    parser.add_argument(
        "--checkout", type=Path, default=None, metavar="PATH", help="the server's source tree"
    )
    parser.add_argument(
        "--ab",
        type=Path,
        default=None,
        metavar="OLD_PATH",
        help="run OLD_PATH's server, then this tree's, each fresh, with the same load",
    )
    parser.set_defaults(func=cmd_bench)


def _run(tree: Path, uploads: int, pictures: int) -> LoadResult:
    with tempfile.TemporaryDirectory(prefix="bodoge-bench-uploads-") as data:
        process, ws_url = start_server(Path(data), tree)
        try:
            http_url = ws_url.replace("ws://", "http://").removesuffix("ws")
            return asyncio.run(upload_load(http_url, ws_url, process.pid, uploads, pictures))
        finally:
            process.terminate()
            process.wait(30)


def cmd_bench(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False, width=max(Console().width, 120))
    sides = [("old", args.ab.resolve())] if args.ab else []
    sides.append(("new" if args.ab else "server", (args.checkout or HERE).resolve()))
    for _, tree in sides:
        problem = tree_error(tree)
        if problem:
            console.print(f"[red]{problem}[/]")
            return 2
    table = Table(
        title=f"{args.uploads} uploads at once of {args.pictures} {SIDE}×{SIDE} grey PNGs"
        f" ({len(bomb_png()) / 1000:.1f} KB each)"
    )
    for column in (
        "server",
        "answers",
        "RSS before",
        "peak RSS",
        "ping median / p99 / max",
        "wall",
        "server CPU",
    ):
        table.add_column(column, justify="left" if column in ("server", "answers") else "right")
    for label, tree in sides:
        console.print(f"{label}: {tree} …")
        r = _run(tree, args.uploads, args.pictures)
        answers = ", ".join(f"{n}× {s}" for s, n in sorted(r.statuses.items()))
        if r.codes:
            answers += " (" + ", ".join(f"{c} {n}" for c, n in sorted(r.codes.items())) + ")"
        median, p99, top = r.lag_ms
        table.add_row(
            f"{label} ({tree.name})",
            answers,
            f"{r.rss_before_kib / 1024:.0f} MB",
            f"{r.peak_kib / 1024:.0f} MB",
            f"{median:.1f} / {p99:.0f} / {top:.0f} ms",
            f"{r.seconds:.1f} s",
            f"{r.cpu:.1f} s",
        )
    console.print(table)
    return 0

"""``bodoge bench trace-move``: how many files and functions of bodoge one move passes through.

It starts a server in a process of its own, with ``bodoge`` imported from ``--tree`` (this
tree by default; a git worktree of an older commit, say), plays a 2-player Tagiron table
with two WebSocket clients and traces one move (after ``--warm-up`` untraced ones) in the
server's threads, from the move being sent until its reply and both seats' events have
arrived (``bodoge/bench/move_tracer.py`` says how). It prints the bodoge files and the
functions the move entered, its calls (a coroutine resumed counts again), and the
**changes of file**: how often one call is in another file than the call before it.
``--files`` lists the files, in the order the move first entered them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bodoge.bench.processes import HERE, tree_env, tree_error

#: Runs the tracer as a script, so that every ``bodoge`` import is the traced tree's.
RUNNER = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"

#: Where a file's path says it belongs to cluster mode.
CLUSTER_PARTS = ("bodoge/cluster/", "replica")


def register_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "trace-move", help="the files and functions of bodoge that one move passes through"
    )
    parser.add_argument(
        "--tree",
        type=Path,
        default=None,
        metavar="PATH",
        help="trace the server of this source tree (e.g. a git worktree of an older commit)",
    )
    parser.add_argument(
        "--warm-up", type=int, default=2, help="untraced moves played first (default 2)"
    )
    parser.add_argument("--moves", type=int, default=5, help="moves traced, one by one (default 5)")
    parser.add_argument("--files", action="store_true", help="list the files the moves entered")
    parser.set_defaults(func=cmd_trace)


def trace(tree: Path, warm_up: int = 2, moves: int = 5) -> list[dict[str, Any]]:
    """Trace ``moves`` moves one by one through the server of ``tree``; each one's figures."""
    tracer = Path(__file__).with_name("move_tracer.py")
    with tempfile.TemporaryDirectory(prefix="bodoge-trace-move-") as tmp:
        out = Path(tmp) / "trace.json"
        command = [sys.executable, "-c", RUNNER, str(tracer), str(out), str(warm_up), str(moves)]
        done = subprocess.run(
            command, cwd=tree, env=tree_env(tree), capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0 or not out.exists():
            output = (done.stderr or done.stdout)[-3000:]
            raise RuntimeError(f"the tracer failed in {tree}:\n{output}")
        traced: list[dict[str, Any]] = json.loads(out.read_text("utf-8"))["moves"]
    return traced


def commit_of(tree: Path) -> str:
    """The short commit ``tree`` has checked out ('' outside git)."""
    done = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() if done.returncode == 0 else ""


def cluster_files(move: dict[str, Any]) -> list[str]:
    """The files of cluster mode a move passed through.

    >>> cluster_files({"files": [{"file": "bodoge/server/replica.py"},
    ...                          {"file": "bodoge/server/runtime/table.py"}]})
    ['bodoge/server/replica.py']
    """
    return [f["file"] for f in move["files"] if any(p in f["file"] for p in CLUSTER_PARTS)]


def figures(move: dict[str, Any]) -> list[float]:
    """A move's files, functions, calls, changes of file and cluster files."""
    return [
        len(move["files"]),
        move["functions"],
        move["calls"],
        move["changes"],
        len(cluster_files(move)),
    ]


def files_entered(moves: list[dict[str, Any]]) -> list[tuple[str, int, int, float]]:
    """Each file any traced move entered, in the order first entered: in how many of the
    moves, its functions entered (over all of them) and its calls per move.

    >>> a = {"file": "a.py", "calls": 3, "functions": ["f", "g"]}
    >>> b = {"file": "b.py", "calls": 1, "functions": ["h"]}
    >>> files_entered([{"files": [a, b]}, {"files": [a | {"calls": 5, "functions": ["k"]}]}])
    [('a.py', 2, 3, 4.0), ('b.py', 1, 1, 0.5)]
    """
    calls: dict[str, list[int]] = {}
    functions: dict[str, set[str]] = {}
    for move in moves:
        for entry in move["files"]:
            calls.setdefault(entry["file"], []).append(entry["calls"])
            functions.setdefault(entry["file"], set()).update(entry["functions"])
    return [
        (name, len(each), len(functions[name]), sum(each) / len(moves))
        for name, each in calls.items()
    ]


def cmd_trace(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    if args.moves < 1 or args.warm_up < 0:
        console.print("[red]--moves must be at least 1 and --warm-up at least 0[/]")
        return 2
    tree = (args.tree or HERE).resolve()
    error = tree_error(tree)
    if error:
        console.print(f"[red]{error}[/]")
        return 2
    try:
        moves = trace(tree, args.warm_up, args.moves)
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        console.print(f"[red]{exc}[/]")
        return 1
    if not moves:
        console.print("[red]the game ended before a move was traced[/]")
        return 1
    commit = commit_of(tree)
    table = Table(
        title=f"one move through the server of {tree}" + (f" ({commit})" if commit else ""),
        caption="2-player Tagiron, one process; changes of file: consecutive calls "
        "in different files",
    )
    table.add_column("move", justify="left", no_wrap=True)
    for column in ("files", "functions", "calls", "changes of file", "cluster files"):
        table.add_column(column, justify="right")
    for move in moves:
        kind = " ".join(str(move["move"][key]) for key in ("type", "card") if key in move["move"])
        table.add_row(f"{move['n']} {kind}", *(f"{x:g}" for x in figures(move)))
    if len(moves) > 1:
        medians = [statistics.median(column) for column in zip(*map(figures, moves), strict=True)]
        table.add_row("median", *(f"{x:g}" for x in medians), style="bold")
    console.print(table)
    if args.files:
        files = Table(title="files, in the order the moves first entered them")
        for column in ("file", "moves", "functions", "calls per move"):
            files.add_column(column, justify="left" if column == "file" else "right")
        for name, count, functions, calls in files_entered(moves):
            files.add_row(name, f"{count}/{len(moves)}", str(functions), f"{calls:.1f}")
        console.print(files)
    return 0

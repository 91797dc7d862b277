"""``bodoge bench cli``: how soon the command line answers, against a bare Python.

Each round runs, as subprocesses one after another, ``python -c pass``,
``bodoge tagiron solve`` on a 2-player position and a short scripted
``bodoge tagiron assist`` session (players, seat, tiles, one question, quit).
It prints each command's median wall time and CPU time over the rounds and its
ratio to ``python -c pass``: measured in the same run, that calibrates the
machine.  A first, untimed round warms the file cache.

Start-up is mostly imports: ``solve`` and ``assist`` load numpy, rich and the
solver, and nothing of the server, the store or Illustori (``bodoge.cli``
imports only the module of the command that runs).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

#: Target from the issue: a 2-player ``solve``, median wall time in seconds.
TARGET = 0.4

#: A 2-player position after three questions (two candidates are left).
POSITION = {
    "players": 2,
    "seat": 0,
    "hand": ["R0", "B0", "R1", "B1", "R2"],
    "face_up": ["red_count", "where_5", "pairs"],
    "log": [
        {"seat": 0, "card": "total_sum", "answers": {"0": 4, "1": 40}},
        {"seat": 1, "card": "red_sum", "answers": {"0": 3}},
        {"seat": 0, "card": "where_6or7", "choice": 6, "answers": {"1": []}},
    ],
}

#: What a person types into ``assist``: 2 players, seat 0, the tiles, one question.
ASSIST_SCRIPT = "2\n0\nR0 B0 R1 B1 R2\nask 0 total_sum 1=40\nquit\n"


def register_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "cli", help="command-line start-up: tagiron solve and assist against python -c pass"
    )
    parser.add_argument("--rounds", type=int, default=10, help="timed rounds (default 10)")
    parser.add_argument(
        "--position", help="a position JSON file to solve (default: a 2-player position)"
    )
    parser.set_defaults(func=cmd_bench)


@dataclass
class Command:
    label: str
    argv: list[str]
    stdin: str | None = None
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def run(self) -> str | None:
        """Time one run; the error output if it failed."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            self.argv,
            input=self.stdin,
            stdin=subprocess.DEVNULL if self.stdin is None else None,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.wall.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode:
            return done.stderr or f"exit status {done.returncode}"
        return None


def commands(position: str | None, default: str) -> list[Command]:
    """The commands timed: ``solve`` on ``position``, or on ``default`` (POSITION)."""
    python = sys.executable
    bodoge = [python, "-m", "bodoge", "tagiron"]
    solve = "tagiron solve (2 players)" if position is None else f"tagiron solve {position}"
    return [
        Command("python -c pass", [python, "-c", "pass"]),
        Command(solve, [*bodoge, "solve", position or default]),
        Command("tagiron assist (scripted)", [*bodoge, "assist"], ASSIST_SCRIPT),
    ]


def cmd_bench(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    if args.rounds < 1:
        console.print("[red]--rounds must be at least 1[/]")
        return 2
    with tempfile.TemporaryDirectory(prefix="bodoge-bench-cli-") as tmp:
        default = Path(tmp) / "position.json"
        default.write_text(json.dumps(POSITION), "utf-8")
        runs = commands(args.position, str(default))
        for round_ in range(args.rounds + 1):  # round 0 warms up and is not counted
            for command in runs:
                error = command.run()
                if error:
                    console.print(f"[red]{command.label} failed:[/] {error.strip()}")
                    return 1
                if round_ == 0:
                    command.wall.clear()
                    command.cpu.clear()
    base = statistics.median(runs[0].wall)
    table = Table(
        title=f"bodoge start-up, median of {args.rounds} rounds",
        caption="ratio: wall time over python -c pass's, in the same run",
    )
    for column in ("command", "wall", "CPU", "ratio"):
        table.add_column(column, justify="left" if column == "command" else "right")
    for command in runs:
        wall = statistics.median(command.wall)
        table.add_row(
            command.label, _s(wall), _s(statistics.median(command.cpu)), f"{wall / base:.1f}×"
        )
    console.print(table)
    if args.position is None:
        solve = statistics.median(runs[1].wall)
        verdict = "met" if solve < TARGET else "not met"
        console.print(f"solve: {_s(solve)} wall, target < {_s(TARGET)}: {verdict}")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        console.print(
            "note: PYTHONDONTWRITEBYTECODE is set, so every run compiles bodoge's modules "
            "again; unset it for the figures a user sees."
        )
    return 0


def _s(seconds: float) -> str:
    return f"{seconds:.3f} s"

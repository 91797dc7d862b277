"""``bodoge bench capacity``: the capacity model of docs/scaling.md, computed.

No measurement here: the model's inputs are figures the other benches print (their
defaults are those of docs/performance.md, "Capacity"), or assumptions about a community;
``--set NAME=VALUE`` replaces any of them with an operator's own. For each number of
concurrent tables it prints the moves a second, the server processes needed, and the load
on PostgreSQL, Redis, nginx and the lobby's fan-out, each against what one of them takes,
so that what saturates first is the largest share.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Input:
    value: float
    unit: str
    what: str


#: The model's inputs: measured (docs/performance.md, "Capacity") or assumed (marked).
INPUTS: dict[str, Input] = {
    "move_every": Input(10.0, "s", "assumed: a table's mean time between moves"),
    "seats": Input(4.0, "", "assumed: connections a table has (4-player Tagiron)"),
    "moves_per_game": Input(19.1, "", "bench server --cluster 1: 325 moves in 17 games"),
    "server_fixed": Input(9.1, "ms/s", "a cluster process's CPU with no moves (idle run)"),
    "owner_move": Input(3.9, "ms", "server CPU a move costs with one process (--cluster 1)"),
    "replica_move": Input(2.7, "ms", "more per further process showing the table (--cluster 2)"),
    "core_share": Input(0.5, "", "assumed: the share of its core a process may use"),
    "pg_commit": Input(674.0, "µs", "PostgreSQL CPU a commit costs (bench commits, 1 table)"),
    "pg_move": Input(33.0, "µs", "PostgreSQL CPU a move costs in a group (256 tables)"),
    "pg_replica": Input(0.42, "ms", "more PostgreSQL CPU a move costs per further process"),
    "pg_fixed": Input(0.7, "/s", "transactions a process makes with no moves (lease, scan)"),
    "commit_wait": Input(8.1, "ms", "a lone commit's wait (bench commits, 1 table, median)"),
    "pg_cores": Input(8.0, "", "assumed: PostgreSQL's cores"),
    "redis_move": Input(6.8, "", "Redis commands a move costs with one process"),
    "redis_forward": Input(5.1, "", "more commands per move forwarded to another process"),
    "redis_command": Input(9.3, "µs", "Redis CPU a command costs at a high rate (redis-benchmark)"),
    "redis_fixed": Input(1.0, "/s", "Redis commands a process makes with no moves"),
    "nginx_move": Input(0.39, "ms", "nginx CPU a move costs (3 processes; its frames in and out)"),
    "lobby_events": Input(5.0, "", "assumed: lobby changes a game makes (added … removed)"),
    "lobby_watchers": Input(0.05, "", "assumed: share of connections watching the lobby"),
    "lobby_summary": Input(600.0, "bytes", "assumed: a table's summary in the lobby's list"),
    "frames_max": Input(20000.0, "/s", "assumed: frames a second one process sends"),
}


def shown_on(processes: int, seats: float) -> float:
    """Processes a table is shown on, its seats spread at random over ``processes``.

    >>> shown_on(1, 4), round(shown_on(2, 4), 3), round(shown_on(1000, 4), 2)
    (1.0, 1.875, 3.99)
    """
    return float(processes * (1 - (1 - 1 / processes) ** seats))


@dataclass(frozen=True)
class Load:
    tables: int
    moves: float  # moves a second
    processes: int
    server_cores: float
    commits: float
    pg_share: float  # of PostgreSQL's cores
    redis_commands: float
    redis_share: float  # of one Redis core
    nginx_cores: float
    lobby_frames: float  # frames a second to lobby watchers, cluster-wide
    lobby_share: float  # of the processes' frame budget
    lobby_list: float  # MB: the answer to lobby.subscribe (every running or waiting table)


def load(tables: int, x: dict[str, float]) -> Load:
    """What ``tables`` concurrent tables need, given the inputs ``x``."""
    moves = tables / x["move_every"]
    per_move = moves / 1000  # ms of CPU a move → seconds a second

    def cpu(p: int) -> float:  # all processes' CPU, in cores
        shown = shown_on(p, x["seats"])
        return p * x["server_fixed"] / 1000 + per_move * (
            x["owner_move"] + (shown - 1) * x["replica_move"]
        )

    processes = 1
    while cpu(processes) > processes * x["core_share"]:
        processes += 1
    shown = shown_on(processes, x["seats"])
    per_process = moves / processes
    group = max(1.0, per_process * x["commit_wait"] / 1000)
    commits = moves / group + processes * x["pg_fixed"]
    pg_cpu = (commits * x["pg_commit"] + moves * x["pg_move"]) / 1e6 + per_move * (shown - 1) * x[
        "pg_replica"
    ]
    forwarded = 1 - 1 / processes
    commands = (
        moves * (x["redis_move"] + forwarded * x["redis_forward"]) + processes * x["redis_fixed"]
    )
    redis_cpu = commands * x["redis_command"] / 1e6
    games = moves / x["moves_per_game"]
    watchers = tables * x["seats"] * x["lobby_watchers"]
    lobby_frames = games * x["lobby_events"] * watchers
    return Load(
        tables=tables,
        moves=moves,
        processes=processes,
        server_cores=cpu(processes),
        commits=commits,
        pg_share=pg_cpu / x["pg_cores"],
        redis_commands=commands,
        redis_share=redis_cpu,
        nginx_cores=per_move * x["nginx_move"],
        lobby_frames=lobby_frames,
        lobby_share=lobby_frames / (processes * x["frames_max"]),
        lobby_list=tables * x["lobby_summary"] / 1e6,
    )


def register_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "capacity", help="the capacity model (docs/scaling.md): processes, PostgreSQL, Redis"
    )
    parser.add_argument(
        "--tables",
        default="10000,100000",
        metavar="N[,N…]",
        help="concurrent tables (10000,100000)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="replace an input (see the list it prints), e.g. --set move_every=20",
    )
    parser.set_defaults(func=cmd_bench)


def inputs(settings: list[str]) -> dict[str, float]:
    values = {name: i.value for name, i in INPUTS.items()}
    for setting in settings:
        name, _, value = setting.partition("=")
        if name not in values:
            raise ValueError(f"no input named {name!r}: {', '.join(values)}")
        values[name] = float(value)
    return values


def lines(loads: list[Load]) -> list[str]:
    """The results table (markdown, as docs/scaling.md has it)."""
    rows: list[tuple[str, Callable[[Load], str]]] = [
        ("moves a second", lambda o: f"{o.moves:,.0f}"),
        ("server processes (a core each)", lambda o: f"{o.processes:,}"),
        ("their CPU (cores)", lambda o: f"{o.server_cores:,.1f}"),
        ("PostgreSQL commits a second", lambda o: f"{o.commits:,.0f}"),
        ("PostgreSQL: share of its cores", lambda o: f"{o.pg_share:.0%}"),
        ("Redis commands a second", lambda o: f"{o.redis_commands:,.0f}"),
        ("Redis: share of its one core", lambda o: f"{o.redis_share:.0%}"),
        ("nginx (cores)", lambda o: f"{o.nginx_cores:.1f}"),
        ("lobby frames a second", lambda o: f"{o.lobby_frames:,.0f}"),
        ("lobby: share of the processes' frames", lambda o: f"{o.lobby_share:.0%}"),
        ("lobby.subscribe's answer (MB)", lambda o: f"{o.lobby_list:,.0f}"),
    ]
    out = ["| | " + " | ".join(f"{o.tables:,} tables" for o in loads) + " |"]
    out.append("| --- |" + " --- |" * len(loads))
    for label, cell in rows:
        out.append(f"| {label} | " + " | ".join(cell(o) for o in loads) + " |")
    return out


def cmd_bench(args: argparse.Namespace) -> int:
    try:
        x = inputs(args.set)
        counts = [int(part) for part in args.tables.split(",")]
    except ValueError as exc:
        print(exc)
        return 2
    print("inputs (--set NAME=VALUE to change):")
    for name, i in INPUTS.items():
        print(f"  {name:15} {x[name]:g} {i.unit:5} {i.what}")
    print()
    for line in lines([load(n, x) for n in counts]):
        print(line)
    return 0

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
    "moves_per_game": Input(19.5, "", "bench server: 312 moves in 16 games"),
    "server_fixed": Input(20.0, "ms/s", "a cluster process's CPU with no moves (idle run)"),
    "owner_move": Input(3.4, "ms", "server CPU a move costs with one process (--cluster 1)"),
    "replica_move": Input(4.5, "ms", "more per further process showing the table (--cluster 2)"),
    "core_share": Input(0.5, "", "assumed: the share of its core a process may use"),
    "pg_commit": Input(0.67, "ms", "PostgreSQL CPU a commit costs (bench commits, 1 table)"),
    "pg_move": Input(0.033, "ms", "PostgreSQL CPU a move costs in a group (256 tables)"),
    "pg_fixed": Input(1.6, "/s", "transactions a process makes with no moves (lease, scan)"),
    "commit_wait": Input(8.1, "ms", "a lone commit's wait (bench commits, 1 table, median)"),
    "pg_cores": Input(8.0, "", "assumed: PostgreSQL's cores"),
    "pg_commits_max": Input(5000.0, "/s", "assumed: commits a second the WAL's disk flushes"),
    "redis_move": Input(7.1, "", "Redis commands a move costs with one process"),
    "redis_forward": Input(4.1, "", "more commands per move forwarded to another process"),
    "redis_command": Input(0.06, "ms", "Redis CPU a command costs (--cluster 1)"),
    "redis_fixed": Input(2.0, "/s", "Redis commands a process makes with no moves"),
    "nginx_move": Input(0.35, "ms", "nginx CPU a move costs (its 4 frames out, 1 in)"),
    "lobby_events": Input(5.0, "", "assumed: lobby changes a game makes (added … removed)"),
    "lobby_watchers": Input(0.05, "", "assumed: share of connections watching the lobby"),
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
    commit_share: float  # of its commits a second
    redis_commands: float
    redis_share: float  # of one Redis core
    nginx_cores: float
    lobby_frames: float  # frames a second to lobby watchers, cluster-wide
    lobby_share: float  # of the processes' frame budget


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
    per_process = moves / processes
    group = max(1.0, per_process * x["commit_wait"] / 1000)
    commits = moves / group + processes * x["pg_fixed"]
    pg_cpu = commits * x["pg_commit"] / 1000 + per_move * x["pg_move"]
    forwarded = 1 - 1 / processes
    commands = (
        moves * (x["redis_move"] + forwarded * x["redis_forward"]) + processes * x["redis_fixed"]
    )
    redis_cpu = commands * x["redis_command"] / 1000
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
        commit_share=commits / x["pg_commits_max"],
        redis_commands=commands,
        redis_share=redis_cpu,
        nginx_cores=per_move * x["nginx_move"],
        lobby_frames=lobby_frames,
        lobby_share=lobby_frames / (processes * x["frames_max"]),
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
        ("PostgreSQL: share of its commit rate", lambda o: f"{o.commit_share:.0%}"),
        ("Redis commands a second", lambda o: f"{o.redis_commands:,.0f}"),
        ("Redis: share of its one core", lambda o: f"{o.redis_share:.0%}"),
        ("nginx (cores)", lambda o: f"{o.nginx_cores:.1f}"),
        ("lobby frames a second", lambda o: f"{o.lobby_frames:,.0f}"),
        ("lobby: share of the processes' frames", lambda o: f"{o.lobby_share:.0%}"),
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

"""``bodoge bench server``: many tables played by real WebSocket clients against a real server.

The bench starts ``bodoge serve`` as a subprocess on a temporary data folder,
opens one WebSocket client per seat (``--tables`` × ``--players``), and has
every table play Tagiron games back to back for ``--duration`` seconds.  The
clients pick moves cheaply (a random face-up question, or a pass), after a
think time of about ``--think`` seconds, so that the figures measure the
server rather than bots.

Games start at random times: before each game a table waits a pause drawn from
an exponential distribution (mean ``--arrival`` seconds), so the games of all
tables start as a Poisson stream, as people's would.  The tables' first games
thus start within a few seconds of each other, and end about together a game's
length later; ``--steady`` spreads the first games evenly over about a game's
length (20 × ``--think`` seconds) instead, as a server that has run for hours
holds tables at every point of their games: the window then holds games ending
and starting at a steady rate (the figures include what they cost).  ``--burst`` starts every
table at the same instant and the next game at once: a stress case, labelled so.

It prints, over the measured window (which opens a warm-up after every table's first game
has started: the clients make, fill and start all their tables at once, a rush the window
leaves out):

* moves per second (acknowledged moves);
* the time from a move being sent to **every other seat** having its event,
  median and 99th percentile;
* the server's CPU time per 1,000 moves (``utime + stime`` of
  ``/proc/<pid>/stat``), its share of a core, and its peak memory (``VmHWM``);
* the size of an ``event`` frame as the clients receive it (median);
* the server's garbage-collector passes, from ``GET /api/stats``: the longest
  pause and the total time per generation.

``--cluster N`` starts N ``bodoge serve --redis`` processes instead of one, on a database of
their own (made on ``--cluster-pg``, dropped afterwards) and a Redis namespace of their own
(on ``--cluster-redis``), behind a private nginx (``bodoge/cluster/nginx.py``, round-robin, no
sticky sessions) through which every client connects, so that most seats of a table play
through a process that does not run it (a replica; moves forwarded to the owner).
``--direct`` hands each client one process's address instead, seat by seat. CPU time and
memory are those of all the processes together (nginx's CPU apart); the collector's figures
are one surviving process's. At the end every acknowledged move is looked up in the database
(``acknowledged moves lost``). ``--cluster 1,2,3`` runs each size with the same clients and
prints the figures side by side; a size of 0 is the embedded server (one process, SQLite, no
Redis, no nginx), so that ``--cluster 0,1 --rounds 3`` alternates the embedded server and one
cluster process under the same clients and prints the cluster's CPU per move ÷ the embedded
server's.

``--kill-owner-after S`` kills (SIGKILL) the process owning the most live tables S seconds
into the window. Its clients reconnect through nginx with their token and reopen their table
from their last event, as the browser does; the bench prints the **claim time** — from the
kill to each of the victim's tables being claimed by a new owner (its ``tables.owner`` row,
polled every 20 ms), beside what the victim's lease had left at the kill — the **takeover
time** — from the kill to the first move acknowledged on each table the victim owned, median
and max — and the errors the clients saw, by kind.

``--checkout PATH`` runs the server from another source tree (a git worktree of
an older commit, say); ``--ab OLD_PATH`` runs old, new, old, new (``--rounds``)
and prints the ratio of server CPU per 1,000 moves.  Clients run in ``--procs``
processes; they share the machine's cores with the server, so on a small machine
the client side inflates the latencies.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from bodoge.bench.load import GAME_MOVES
from bodoge.bench.measure import measure
from bodoge.bench.processes import HERE, tree_error
from bodoge.bench.report import ratio_lines, report, size_table


def register_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("server", help="tables of clients against a running server")
    parser.add_argument("--tables", type=int, default=100, help="concurrent tables")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds measured")
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument(
        "--think", type=float, default=1.0, help="mean seconds a client waits before moving"
    )
    parser.add_argument(
        "--arrival",
        type=float,
        default=2.0,
        help="mean seconds a table pauses before each game (exponential: Poisson starts)",
    )
    parser.add_argument(
        "--steady",
        action="store_true",
        help="spread the first games over about a game's length (20 × --think): games end "
        "and start at a steady rate in the window, as on a server that has run for hours",
    )
    parser.add_argument(
        "--burst",
        action="store_true",
        help="stress case: every table starts at the same instant, the next game at once",
    )
    parser.add_argument("--procs", type=int, default=1, help="client processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--url",
        default=None,
        help="use this running server's ws:// URL instead of starting one (no CPU or memory)",
    )
    parser.add_argument(
        "--checkout",
        type=Path,
        default=None,
        metavar="PATH",
        help="run the server from this source tree (e.g. a git worktree of an older commit)",
    )
    parser.add_argument(
        "--ab",
        type=Path,
        default=None,
        metavar="OLD_PATH",
        help="A/B: run the server from OLD_PATH and from this tree, alternated, --rounds each",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="runs of each side with --ab (default 2), of each size with several --cluster "
        "sizes, alternated (default 1)",
    )
    parser.add_argument(
        "--cluster",
        type=_sizes,
        default=[],
        metavar="N[,N…]",
        help="N server processes in cluster mode (PostgreSQL and Redis) behind nginx; "
        "several sizes (1,2,3): one run each with the same clients, then a table of the figures; "
        "0 is the embedded server (SQLite, no Redis): 0,1 prints the cluster's CPU per move "
        "over the embedded server's",
    )
    parser.add_argument(
        "--direct",
        action="store_true",
        help="with --cluster: no nginx, each client connects straight to one process",
    )
    parser.add_argument(
        "--kill-owner-after",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --cluster N (N >= 2): SIGKILL the process owning the most live tables this "
        "many seconds into the measured window; print the claim and takeover times and the "
        "acknowledged moves lost",
    )
    parser.add_argument(
        "--cluster-pg",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        metavar="DSN",
        help="the PostgreSQL server a --cluster run makes its database on (and drops it)",
    )
    parser.add_argument(
        "--cluster-redis",
        default="redis://127.0.0.1:6379/0",
        metavar="URL",
        help="the Redis a --cluster run uses (in a namespace of its own)",
    )
    parser.add_argument(
        "--own-redis",
        action="store_true",
        help="with --cluster: start a private redis-server for each run instead of "
        "--cluster-redis, so that the Redis commands and CPU per move printed are the run's alone",
    )
    parser.set_defaults(func=run)


def _sizes(text: str) -> list[int]:
    """``--cluster``'s sizes: ``"3"`` or ``"1,2,3"``.

    >>> _sizes("1,2,3"), _sizes("2"), _sizes("0,1")
    ([1, 2, 3], [2], [0, 1])
    """
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 0 or max(sizes) < 1:
        raise argparse.ArgumentTypeError(
            f"not a number of processes (or a list of them; 0, the embedded server, goes "
            f"with a cluster size, as in 0,1): {text}"
        )
    return sizes


def _header(args: argparse.Namespace, tree: Path | None) -> str:
    procs = max(1, min(args.procs, args.tables))
    start = (
        "BURST start (stress case: every table at the same instant, the next game at once)"
        if args.burst
        else f"Poisson starts (a pause of ~{args.arrival:g} s, exponential, before each game"
        + (f"; the first games spread over {GAME_MOVES * args.think:g} s)" if args.steady else ")")
    )
    where = f"server from {tree}" if tree is not None else ""
    if getattr(args, "cluster", 0):
        spread = (
            "clients spread seat by seat (--direct: no load balancer)"
            if args.direct
            else "clients through nginx (round-robin, no sticky sessions)"
        )
        processes = "process" if args.cluster == 1 else "processes"
        where = f"{args.cluster} cluster {processes}, {spread}" + (f", {where}" if where else "")
        if args.kill_owner_after is not None and args.cluster >= 2:
            where += f"; the owner of the most live tables killed {args.kill_owner_after:g} s in"
    return (
        f"bench server: {args.tables} tables × {args.players} seats "
        f"= {args.tables * args.players} clients in {procs} process(es), "
        f"think ~{args.think:g} s, measuring {args.duration:g} s "
        f"on {os.cpu_count()} cores (load average before: {os.getloadavg()[0]:.1f})\n"
        f"  {start}{'; ' + where if where else ''}"
    )


def run(args: argparse.Namespace) -> int:
    sizes: list[int] = args.cluster
    args.cluster_database = None
    args.cluster = sizes[0] if sizes else 0
    if args.kill_owner_after is not None:
        if max(sizes, default=0) < 2 or args.url:
            print("--kill-owner-after needs --cluster N with N >= 2", file=sys.stderr)
            return 2
        if not 0 < args.kill_owner_after < args.duration:
            print("--kill-owner-after must be within --duration", file=sys.stderr)
            return 2
    if args.direct and not sizes:
        print("--direct goes with --cluster N", file=sys.stderr)
        return 2
    if len(sizes) > 1 and (args.ab is not None or args.url):
        print("several --cluster sizes go without --ab and --url", file=sys.stderr)
        return 2
    if args.rounds is not None and args.rounds < 1:
        print("--rounds must be at least 1", file=sys.stderr)
        return 2
    for source in (args.checkout, args.ab):
        error = None if source is None else tree_error(source.resolve())
        if error:
            print(error, file=sys.stderr)
            return 2
    if args.ab is not None:
        return run_ab(args)
    tree = args.checkout.resolve() if args.checkout else None
    if len(sizes) > 1:
        return run_sizes(args, sizes, tree)
    print(_header(args, tree), flush=True)
    report(measure(args, tree))
    return 0


def run_sizes(args: argparse.Namespace, sizes: list[int], tree: Path | None) -> int:
    """One run per cluster size (``--rounds`` times, the sizes alternated), the same clients
    each time, then the figures side by side."""
    rows = []
    order = sizes * (args.rounds or 1)
    for i, size in enumerate(order, 1):
        one = argparse.Namespace(**vars(args))
        one.cluster, one.cluster_database = size, None
        if size < 2:
            one.kill_owner_after = None  # one process: nobody to take a table over
        print(f"[{i}/{len(order)}] " + _header(one, tree), flush=True)
        outcome = measure(one, tree)
        report(outcome, indent="    ")
        rows.append((size, outcome))
    print("cluster sizes, same clients (" + _clients_line(args) + "):")
    for line in size_table(rows) + ratio_lines(rows):
        print("  " + line, flush=True)
    return 0


def _clients_line(args: argparse.Namespace) -> str:
    return (
        f"{args.tables} tables × {args.players} seats, think ~{args.think:g} s, "
        f"{args.duration:g} s measured"
        + (f", owner killed {args.kill_owner_after:g} s in" if args.kill_owner_after else "")
    )


def run_ab(args: argparse.Namespace) -> int:
    """Old, new, old, new …: the server from ``--ab`` against this tree, same clients."""
    old, new = args.ab.resolve(), (args.checkout or HERE).resolve()
    per_move: dict[str, list[float]] = {"old": [], "new": []}
    order = [("old", old), ("new", new)] * (args.rounds or 2)
    for i, (side, tree) in enumerate(order, 1):
        print(f"[{i}/{len(order)}] {side}: " + _header(args, tree), flush=True)
        outcome = measure(args, tree)
        report(outcome, indent="    ")
        if outcome.cpu_per_1000_moves is not None:
            per_move[side].append(outcome.cpu_per_1000_moves)
    print("A/B: server CPU seconds per 1,000 moves")
    for side, tree in (("old", old), ("new", new)):
        runs = ", ".join(f"{x:.3f}" for x in per_move[side])
        mean = statistics.mean(per_move[side]) if per_move[side] else float("nan")
        print(f"  {side} ({tree}): {runs}  (mean {mean:.3f})")
    if per_move["old"] and per_move["new"]:
        ratio = statistics.mean(per_move["new"]) / statistics.mean(per_move["old"])
        print(f"  new / old = {ratio:.2f}")
    return 0

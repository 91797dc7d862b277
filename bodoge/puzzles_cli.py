"""``bodoge <game> puzzles make``: a game's puzzles, made and kept in a server's store.

Registered under each game whose package has a ``puzzles`` module (Tagiron's), beside the
game's own commands.  The game makes the puzzles (``Game.puzzles()``: bot games, positions,
answers proved by its solver); this command keeps them in the store the server reads
(``--data`` or ``--db``, as ``bodoge serve``), and reports how fast they came, how many
positions were turned down as ambiguous and how hard they are.  Nothing of the store or
the server is loaded until the command runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bodoge.core.puzzles import MakeReport


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], game_id: str) -> None:
    parser = sub.add_parser("puzzles", help="puzzles from bot games: make them for the server")
    commands = parser.add_subparsers(dest="puzzles_command", required=True, metavar="WHAT")
    make = commands.add_parser("make", help="make puzzles and keep them in a server's store")
    make.add_argument("--count", type=int, required=True, help="how many puzzles")
    make.add_argument("--seed", type=int, default=1, help="the same seed makes the same puzzles")
    make.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    make.add_argument(
        "--data", type=Path, default=None, help="the server's data folder (as for serve)"
    )
    make.add_argument("--db", default=None, help="the server's database URL instead")
    make.add_argument(
        "--no-store", action="store_true", help="only make and report them (a measurement)"
    )
    make.add_argument("--json", action="store_true", help="print the report as one JSON object")
    make.set_defaults(func=lambda args: cmd_make(args, game_id))


def cmd_make(args: argparse.Namespace, game_id: str) -> int:
    from bodoge.games import get

    if args.count < 1 or args.jobs < 1:
        print("error: --count and --jobs must be at least 1", file=sys.stderr)
        return 2
    book = get(game_id).puzzles()
    if book is None:
        print(f"error: {game_id} makes no puzzles", file=sys.stderr)
        return 2

    def progress(done: int, count: int) -> None:
        if not args.json:
            print(f"\r{done}/{count} puzzles", end="", file=sys.stderr, flush=True)

    report = book.make(args.count, args.seed, jobs=args.jobs, progress=progress)
    if not args.json:
        print(file=sys.stderr)
    added = 0 if args.no_store else asyncio.run(_keep(args, game_id, report))
    summary = summarise(report, added)
    if args.json:
        print(json.dumps(summary))
    else:
        print(render(summary))
    return 0


async def _keep(args: argparse.Namespace, game_id: str, report: MakeReport) -> int:
    from bodoge.server.cli import default_data_dir
    from bodoge.server.services.puzzles import records_of
    from bodoge.store import open_store, sqlite_url

    url = args.db or sqlite_url(args.data or default_data_dir())
    store = await open_store(url)
    try:
        return await store.add_puzzles(records_of(game_id, report.puzzles, int(time.time() * 1000)))
    finally:
        await store.close()


def summarise(report: MakeReport, added: int) -> dict[str, Any]:
    """The figures of a run: speed, positions turned down as ambiguous, difficulties."""
    made = report.puzzles
    considered = sum(report.considered.values())
    ambiguous = sum(report.ambiguous.values())
    by_kind: dict[str, Any] = {}
    for kind in report.considered:
        levels = sorted(p.difficulty for p in made if p.kind == kind)
        by_kind[kind] = {
            "made": len(levels),
            "considered": report.considered[kind],
            "ambiguous": report.ambiguous[kind],
            "difficulty": _spread(levels),
        }
    players = {str(n): sum(p.players == n for p in made) for n in (2, 3, 4)}
    return {
        "puzzles": len(made),
        "stored": added,
        "games": report.games,
        "seconds": round(report.seconds, 2),
        "per_minute": round(60 * len(made) / report.seconds, 1) if report.seconds else None,
        "considered": considered,
        "ambiguous": ambiguous,
        "ambiguous_share": round(ambiguous / considered, 4) if considered else 0.0,
        "players": players,
        "difficulty": _spread(sorted(p.difficulty for p in made)),
        "kinds": by_kind,
    }


def _spread(levels: list[float]) -> dict[str, float] | None:
    if not levels:
        return None
    quartiles = (
        statistics.quantiles(levels, n=4, method="inclusive")
        if len(levels) > 1
        else [levels[0]] * 3
    )
    return {
        "min": round(levels[0], 3),
        "q1": round(quartiles[0], 3),
        "median": round(quartiles[1], 3),
        "q3": round(quartiles[2], 3),
        "max": round(levels[-1], 3),
    }


def render(s: dict[str, Any]) -> str:
    def spread(d: object) -> str:
        if not isinstance(d, dict):
            return "-"
        return (
            f"{d['min']:.2f} / {d['q1']:.2f} / {d['median']:.2f} / {d['q3']:.2f} / {d['max']:.2f}"
        )

    lines = [
        f"{s['puzzles']} puzzles ({s['stored']} new in the store) from {s['games']} games "
        f"in {s['seconds']} s: {s['per_minute']} a minute",
        f"players 2/3/4: {'/'.join(str(v) for v in s['players'].values())}",
        f"positions turned down as ambiguous: {s['ambiguous']} of {s['considered']} looked at "
        f"({100 * float(s['ambiguous_share']):.1f}%)",
        f"difficulty min / q1 / median / q3 / max: {spread(s['difficulty'])}",
    ]
    for kind, k in s["kinds"].items():
        lines.append(
            f"  {kind:9} {k['made']:5} made; ambiguous {k['ambiguous']} of {k['considered']};"
            f" difficulty {spread(k['difficulty'])}"
        )
    return "\n".join(lines)

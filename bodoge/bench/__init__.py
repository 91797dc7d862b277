"""``bodoge bench ...``: benchmarks print figures; tests assert behaviour."""

from __future__ import annotations

import argparse
import importlib

# Each module defines ``register_bench(subparsers)`` for one ``bodoge bench NAME``.
BENCH_MODULES = (
    "bodoge.games.tagiron.bench",
    "bodoge.bench.server",
    "bodoge.bench.lobby",
    "bodoge.bench.cli",
    "bodoge.bench.store",
    "bodoge.bench.commits",
    "bodoge.bench.capacity",
    "bodoge.bench.trace_move",
    "bodoge.bench.upgrade",
    "bodoge.bench.growth",
    "bodoge.bench.uploads",
    "bodoge.bench.pings",
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("bench", help="print performance figures")
    bench = parser.add_subparsers(dest="bench", required=True, metavar="BENCH")
    for name in BENCH_MODULES:
        importlib.import_module(name).register_bench(bench)

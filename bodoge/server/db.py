"""``bodoge db``: the store's schema version, for a deploy step or a look.

* ``bodoge db upgrade`` brings the store to the newest version this bodoge knows, without
  serving (in a cluster: once, before the processes are rolled; docs/deploy.md), then
  replays once the games kept from before their statistics were counted;
* ``bodoge db current`` prints the store's version and whether it is the newest;
* ``bodoge db history`` lists the versions this bodoge knows, newest first.

The exit status is 0 when the store is (or, for ``upgrade``, was brought) at the newest
version, 1 when it is behind (``current``), 2 when a newer bodoge upgraded it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from sqlalchemy.ext.asyncio import create_async_engine

from bodoge.store import sqlite_url
from bodoge.store.upgrade import SchemaTooNew, current, head, history, upgrade


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("db", help="the store's schema version: upgrade, current, history")
    parser.add_argument(
        "--data", type=Path, default=None, help="the server's data folder (as for serve)"
    )
    parser.add_argument("--db", default=None, help="the server's database URL instead")
    commands = parser.add_subparsers(dest="db_command", required=True, metavar="WHAT")
    commands.add_parser("upgrade", help="bring the store to the newest version, then exit")
    commands.add_parser("current", help="the store's version")
    commands.add_parser("history", help="the versions this bodoge knows")
    parser.set_defaults(func=db)


def db(args: argparse.Namespace) -> int:
    if args.db_command == "history":
        newest = head()
        for revision in history():
            mark = " (newest)" if revision.revision == newest else ""
            print(f"{revision.revision}{mark}  {revision.doc.splitlines()[0]}")
        return 0
    from bodoge.server.cli import default_data_dir

    url = args.db or sqlite_url(args.data or default_data_dir())
    if url.startswith("sqlite"):
        (args.data or default_data_dir()).mkdir(parents=True, exist_ok=True)
    try:
        return asyncio.run(_run(url, args.db_command))
    except SchemaTooNew as exc:
        print(f"bodoge db {args.db_command}: {exc}", file=sys.stderr)
        return 2


async def _run(url: str, command: str) -> int:
    engine = create_async_engine(url)
    try:
        found = await current(engine)
        newest = head()
        if command == "current":
            if found is None:
                print(f"none (empty, or made before migrations); newest known: {newest}")
            else:
                print(f"{found}{' (newest)' if found == newest else f'; newest known: {newest}'}")
            return 0 if found == newest else 1
        began = time.perf_counter()
        version = await upgrade(engine)
        took = time.perf_counter() - began
        if found == version:
            print(f"already at {version}")
        else:
            print(f"upgraded from {found or 'none'} to {version} in {took:.2f} s")
    finally:
        await engine.dispose()
    await _fill_statistics(url)
    return 0


async def _fill_statistics(url: str) -> None:
    """The statistics of games a store kept from before they were counted, replayed once
    here, the deploy step, rather than by the first server that starts on the store."""
    from bodoge.games import registry
    from bodoge.server.services.statistics import fill_in
    from bodoge.store import open_store

    store = await open_store(url)
    try:
        began = time.perf_counter()
        filled = await fill_in(store, registry())
        if filled:
            took = time.perf_counter() - began
            print(f"statistics of {filled} older games filled in {took:.1f} s")
    finally:
        await store.close()

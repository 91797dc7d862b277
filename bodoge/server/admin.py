"""``bodoge admin``: the operator's look at what visitors left — uploaded decks and guests —
and their removal, on the store a server uses (it may be running meanwhile).

* ``bodoge admin decks [--owner P]`` lists uploaded decks: id, owner, pictures, bytes,
  when uploaded and last named by a table;
* ``bodoge admin remove-deck ID...`` deletes decks (a table showing one then shows no
  pictures);
* ``bodoge admin guests [--idle-days D]`` lists guests — players with no seat, table, chat
  line or deck — not seen for ``D`` days (default 0: every guest);
* ``bodoge admin remove-guest ID...`` deletes guests (a player who is no guest stays).
  A guest connected right now keeps playing until their next visit, when their token
  is ``bad_token``;
* ``bodoge admin backup PATH`` copies a SQLite store to ``PATH`` while the server runs
  (bodoge/store/backup.py); ``bodoge admin restore PATH`` puts such a copy back, with
  the server stopped.  PostgreSQL's are pg_dump's and pg_restore's (docs/deploy.md).

>>> _size(5_300_000), _size(812), _when(None)
('5.1 MB', '812 B', '-')
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from bodoge.server.runtime.config import DAY
from bodoge.server.runtime.protocol import iso, now_ms
from bodoge.store import PictureSetRecord, open_store, sqlite_url


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "admin", help="list and remove uploaded decks and guests; back up and restore"
    )
    parser.add_argument(
        "--data", type=Path, default=None, help="the server's data folder (as for serve)"
    )
    parser.add_argument("--db", default=None, help="the server's database URL instead")
    commands = parser.add_subparsers(dest="admin", required=True, metavar="WHAT")
    decks = commands.add_parser("decks", help="list uploaded decks")
    decks.add_argument("--owner", default=None, help="only this player's")
    remove_deck = commands.add_parser("remove-deck", help="delete uploaded decks")
    remove_deck.add_argument("ids", nargs="+", metavar="ID")
    guests = commands.add_parser("guests", help="list guests (players who left no trace)")
    guests.add_argument(
        "--idle-days", type=float, default=0.0, metavar="D", help="not seen for D days"
    )
    remove_guest = commands.add_parser("remove-guest", help="delete guests")
    remove_guest.add_argument("ids", nargs="+", metavar="ID")
    backup = commands.add_parser("backup", help="copy the store (SQLite) while the server runs")
    backup.add_argument("path", type=Path, metavar="PATH")
    restore = commands.add_parser("restore", help="replace the store with a backup (stopped)")
    restore.add_argument("path", type=Path, metavar="PATH")
    parser.set_defaults(func=admin)


def admin(args: argparse.Namespace) -> int:
    from bodoge.server.cli import default_data_dir

    url = args.db or sqlite_url(args.data or default_data_dir())
    if args.admin in ("backup", "restore"):
        return _backup_or_restore(url, args)
    return asyncio.run(_run(url, args))


def _backup_or_restore(url: str, args: argparse.Namespace) -> int:
    from bodoge.store import backup

    began = time.perf_counter()
    try:
        if args.admin == "backup":
            size = backup.backup(url, args.path)
            took = time.perf_counter() - began
            print(
                f"backed up {backup.sqlite_path(url)} to {args.path}: {_size(size)} in {took:.2f} s"
            )
            return 0
        backup.restore(args.path, url)
    except (backup.NotSqlite, ValueError, FileNotFoundError) as exc:
        print(f"bodoge admin {args.admin}: {exc}", file=sys.stderr)
        return 2
    # The restored store opens (and is upgraded if the backup is older than this bodoge).
    tables = asyncio.run(_count_tables(url))
    print(f"restored {args.path} to {backup.sqlite_path(url)}: {tables} tables")
    return 0


async def _count_tables(url: str) -> int:
    import sqlalchemy as sa

    store = await open_store(url)
    try:
        async with store.engine.connect() as conn:
            return int((await conn.execute(sa.text("SELECT count(*) FROM tables"))).scalar_one())
    finally:
        await store.close()


async def _run(url: str, args: argparse.Namespace) -> int:
    store = await open_store(url)
    try:
        if args.admin == "decks":
            _print_decks(await store.picture_sets(args.owner))
        elif args.admin == "remove-deck":
            gone = await store.delete_picture_sets(args.ids, None)
            print(f"removed {gone} of {len(set(args.ids))} decks")
            return 0 if gone == len(set(args.ids)) else 1
        elif args.admin == "guests":
            before = now_ms() - round(args.idle_days * DAY * 1000)
            found = await store.guests(before, limit=1_000_000)
            print(f"{'id':<14} {'name':<24} {'created':<24} {'seen':<24}")
            for p in found:
                print(f"{p.id:<14} {p.name:<24} {_when(p.created_at):<24} {_when(p.seen_at):<24}")
            print(f"{len(found)} guests")
        else:
            gone = await store.delete_guests(args.ids, None)
            print(f"removed {gone} of {len(set(args.ids))} players (only guests are removed)")
            return 0 if gone == len(set(args.ids)) else 1
    finally:
        await store.close()
    return 0


def _print_decks(decks: list[PictureSetRecord]) -> None:
    print(f"{'id':<24} {'owner':<14} {'pictures':>8} {'size':>9} {'uploaded':<24} {'used':<24}")
    for d in decks:
        print(
            f"{d.id:<24} {d.owner or '-':<14} {d.size:>8} {_size(d.bytes):>9}"
            f" {_when(d.created_at):<24} {_when(d.used_at):<24}"
        )
    print(f"{len(decks)} decks, {_size(sum(d.bytes for d in decks))}")


def _size(n: int) -> str:
    return (
        f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n / 2**10:.1f} KB" if n >= 2**10 else f"{n} B"
    )


def _when(ms: int | None) -> str:
    return iso(ms) or "-"

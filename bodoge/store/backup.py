"""Backups of a SQLite store, taken while the server writes, and their restore.

A backup is SQLite's online backup API in one step: it reads the store in one read
transaction, so the copy is the store as of one commit (every move acknowledged before
the backup began, none half-written), and in WAL mode that read never blocks the
server's writer.  The copy is written beside its destination and renamed into place, so
a backup cut short leaves no file that looks whole.

A PostgreSQL store is backed up with PostgreSQL's own tools (docs/deploy.md).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import sqlalchemy as sa


class NotSqlite(ValueError):
    """The store is not a SQLite file (PostgreSQL has pg_dump and pg_restore)."""


def sqlite_path(url: str) -> Path:
    """The file of a SQLite store's URL."""
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        raise NotSqlite(
            f"{parsed.render_as_string()} is not a SQLite file: back up PostgreSQL with"
            " pg_dump and restore with pg_restore (docs/deploy.md)"
        )
    return Path(parsed.database)


def backup(url: str, to: str | os.PathLike[str]) -> int:
    """Copy the store at ``url`` (a SQLite file, the server may be writing) to ``to``;
    return the bytes written."""
    source_path = sqlite_path(url)
    if not source_path.exists():
        raise FileNotFoundError(f"no store at {source_path}")
    target = Path(to)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    source = sqlite3.connect(source_path, timeout=30)
    try:
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy)  # all pages in one step: one read transaction
            # One file, whatever the copy is opened with next (no -wal beside it).
            copy.execute("PRAGMA journal_mode=DELETE")
        finally:
            copy.close()
    finally:
        source.close()
    with open(partial, "rb") as f:
        os.fsync(f.fileno())
    partial.replace(target)
    return target.stat().st_size


def check(path: str | os.PathLike[str]) -> None:
    """Raise unless ``path`` is a whole SQLite file holding a store."""
    db = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
    try:
        verdict = db.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            raise ValueError(f"{path} is damaged: {verdict}")
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        if not {"tables", "moves"} <= names:
            raise ValueError(f"{path} holds no bodoge store")
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"{path} is not a SQLite store: {exc}") from exc
    finally:
        db.close()


def restore(backup_path: str | os.PathLike[str], url: str) -> None:
    """Replace the store at ``url`` (a SQLite file; no server may be running on it) with
    the backup at ``backup_path``, through SQLite (so its WAL is replaced too)."""
    check(backup_path)
    target_path = sqlite_path(url)
    target_path.parent.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(f"file:{Path(backup_path)}?mode=ro", uri=True)
    try:
        target = sqlite3.connect(target_path, timeout=30)
        try:
            source.backup(target)
            target.execute("PRAGMA journal_mode=WAL")  # as the store keeps it
        finally:
            target.close()
    finally:
        source.close()

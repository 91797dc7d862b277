"""Bring a store made before migrations (it has no version table) to the baseline, once.

Until revision 0001 the store patched its schema up each time it was opened (new tables,
new nullable columns, new indexes, the pictures moved out of ``deck_images``, the bytes of
older picture sets counted), and cluster mode added its own columns.  Every release made
its store from the tables of its day, so what a store lacks depends on the release that
made it; these are the same fix-ups, applied to whatever is missing, after which the
store is the baseline and is stamped so.  Each step is idempotent: a fix-up cut short (a
SQLite file, whose DDL is not all in one transaction) is finished by the next attempt.
"""

from __future__ import annotations

import sqlalchemy as sa

from bodoge.store.migrations import baseline

#: The first release's table of uploads, gone since (its pictures moved to picture sets).
OLD_TABLES = frozenset({"deck_images"})


def is_legacy(conn: sa.Connection) -> bool:
    """Whether the database holds a store made before migrations: no version table, and
    some table of a store (a database with none of them is empty, or someone else's)."""
    names = set(sa.inspect(conn).get_table_names())
    ours = set(baseline.metadata().tables) | OLD_TABLES
    return "alembic_version" not in names and bool(ours & names)


def to_baseline(conn: sa.Connection) -> None:
    """Give an older store everything the baseline has (foreign keys must be off on SQLite)."""
    target = baseline.metadata()
    target.create_all(conn, checkfirst=True)
    _add_columns(conn, target)
    _owner_epoch_not_null(conn, target)
    for table in target.sorted_tables:
        for index in table.indexes:
            index.create(conn, checkfirst=True)
    _move_deck_images(conn)
    _count_picture_bytes(conn)


def _add_columns(conn: sa.Connection, target: sa.MetaData) -> None:
    """The columns added since the store's release: nullable, or with their default."""
    for table in target.sorted_tables:
        have = {c["name"] for c in sa.inspect(conn).get_columns(table.name)}
        for column in table.columns:
            if column.name in have:
                continue
            kind = column.type.compile(dialect=conn.dialect)
            extra = ""
            if column.server_default is not None:
                default = column.server_default.arg  # type: ignore[attr-defined]
                extra = f" DEFAULT {getattr(default, 'text', default)}"
            if not column.nullable:
                extra += " NOT NULL"
            add = f"ALTER TABLE {table.name} ADD COLUMN {column.name} {kind}{extra}"
            conn.execute(sa.text(add))


def _owner_epoch_not_null(conn: sa.Connection, target: sa.MetaData) -> None:
    """``tables.owner_epoch`` as the baseline has it: ``NOT NULL DEFAULT 0``.

    The store's own fix-ups of some releases added it as a plain nullable column (cluster
    mode's start-up then set its default on PostgreSQL; on SQLite nothing did).  SQLite
    cannot alter a column, so there the table is rebuilt (SQLite's twelve steps, with the
    foreign keys off: dropping ``tables`` would otherwise delete every move).
    """
    column = next(c for c in sa.inspect(conn).get_columns("tables") if c["name"] == "owner_epoch")
    if not column["nullable"]:
        return
    conn.execute(sa.text("UPDATE tables SET owner_epoch = 0 WHERE owner_epoch IS NULL"))
    if conn.dialect.name == "postgresql":
        conn.execute(
            sa.text(
                "ALTER TABLE tables ALTER COLUMN owner_epoch SET DEFAULT 0,"
                " ALTER COLUMN owner_epoch SET NOT NULL"
            )
        )
        return
    if conn.exec_driver_sql("PRAGMA foreign_keys").scalar():
        raise RuntimeError("the rebuild of tables needs SQLite's foreign keys off")
    new = target.tables["tables"]
    names = ", ".join(c.name for c in new.columns)
    for reflected in sa.inspect(conn).get_indexes("tables"):
        conn.execute(sa.text(f"DROP INDEX {reflected['name']}"))
    conn.execute(sa.schema.CreateTable(new.to_metadata(sa.MetaData(), name="tables_0001")))
    conn.execute(sa.text(f"INSERT INTO tables_0001 ({names}) SELECT {names} FROM tables"))
    conn.execute(sa.text("DROP TABLE tables"))
    # Renaming the new table (not the old one) leaves the other tables' references be.
    conn.execute(sa.text("ALTER TABLE tables_0001 RENAME TO tables"))
    for index in new.indexes:
        index.create(conn)


def _move_deck_images(conn: sa.Connection) -> None:
    """Move the pictures of a store made before picture sets into ``picture_sets`` and
    ``pictures``: all of them, or none and the old table stays.  (Its rows were picture
    ``n`` of the set named ``deck_id``.)
    """
    if not sa.inspect(conn).has_table("deck_images"):
        return
    columns = ("deck_id", "n", "data", "media_type", "created_at")
    old = sa.table("deck_images", *(sa.column(name) for name in columns)).c
    sets = sa.table("picture_sets", sa.column("id"), sa.column("size"), sa.column("created_at"))
    pictures = sa.table(
        "pictures", sa.column("set_id"), sa.column("n"), sa.column("data"), sa.column("media_type")
    )
    grouped = sa.select(old.deck_id, sa.func.count(), sa.func.min(old.created_at))
    conn.execute(
        sets.insert().from_select(["id", "size", "created_at"], grouped.group_by(old.deck_id))
    )
    conn.execute(
        pictures.insert().from_select(
            ["set_id", "n", "data", "media_type"],
            sa.select(old.deck_id, old.n, old.data, old.media_type),
        )
    )
    conn.execute(sa.text("DROP TABLE deck_images"))


def _count_picture_bytes(conn: sa.Connection) -> None:
    """Count the bytes of the sets stored before sets kept their size in bytes."""
    conn.execute(
        sa.text(
            "UPDATE picture_sets SET bytes = (SELECT COALESCE(SUM(LENGTH(pictures.data)), 0)"
            " FROM pictures WHERE pictures.set_id = picture_sets.id) WHERE bytes IS NULL"
        )
    )

"""Schema set-up on open: the tables, and the fix-ups that bring a store made by an
earlier version up to today's schema.

They run in the transaction that opens the store (:func:`set_up_schema`), on every open;
each does nothing on a store that is already current.
"""

from __future__ import annotations

import sqlalchemy as sa

from bodoge.store import schema


def set_up_schema(conn: sa.Connection) -> None:
    """Create what is missing and bring an older store up to date, in this order."""
    schema.metadata.create_all(conn)
    _add_new_columns(conn)
    _add_new_indexes(conn)
    _move_deck_images(conn)
    _count_picture_bytes(conn)


def _add_new_columns(conn: sa.Connection) -> None:
    """Give a store made by an earlier version the columns added since (nullable ones)."""
    for table in schema.metadata.sorted_tables:
        have = {c["name"] for c in sa.inspect(conn).get_columns(table.name)}
        for column in table.columns:
            if column.name not in have:
                kind = column.type.compile(dialect=conn.dialect)
                conn.execute(sa.text(f"ALTER TABLE {table.name} ADD COLUMN {column.name} {kind}"))


def _add_new_indexes(conn: sa.Connection) -> None:
    """Give a store made by an earlier version the indexes added since."""
    for index in schema.NEW_INDEXES:
        index.create(conn, checkfirst=True)


def _move_deck_images(conn: sa.Connection) -> None:
    """Move the pictures of a store made before picture sets into ``picture_sets`` and
    ``pictures``, in the transaction that opens the store: all of them, or none and the
    old table stays.  (Its rows were picture ``n`` of the set named ``deck_id``.)
    """
    if not sa.inspect(conn).has_table("deck_images"):
        return
    columns = ("deck_id", "n", "data", "media_type", "created_at")
    old = sa.table("deck_images", *(sa.column(name) for name in columns)).c
    sets = sa.select(old.deck_id, sa.func.count(), sa.func.min(old.created_at))
    conn.execute(
        schema.picture_sets.insert().from_select(
            ["id", "size", "created_at"], sets.group_by(old.deck_id)
        )
    )
    conn.execute(
        schema.pictures.insert().from_select(
            ["set_id", "n", "data", "media_type"],
            sa.select(old.deck_id, old.n, old.data, old.media_type),
        )
    )
    conn.execute(sa.text("DROP TABLE deck_images"))


def _count_picture_bytes(conn: sa.Connection) -> None:
    """Count the bytes of the sets stored before sets kept their size in bytes."""
    sets, pictures = schema.picture_sets, schema.pictures
    size = (
        sa.select(sa.func.coalesce(sa.func.sum(sa.func.length(pictures.c.data)), 0))
        .where(pictures.c.set_id == sets.c.id)
        .scalar_subquery()
    )
    conn.execute(sets.update().where(sets.c.bytes.is_(None)).values(bytes=size))

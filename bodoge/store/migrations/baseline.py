"""The schema of the baseline (revision 0001): the store as the code made it on 2026-12-01
(commit 9cb6961), frozen here so that ``bodoge/store/schema.py`` may move on.

The baseline's migration creates these tables on an empty database, and a store made
before migrations (no version table) is brought to them by :mod:`.legacy`.  Never edit
this module: a change of schema is a new revision in ``versions/``.
"""

from __future__ import annotations

import sqlalchemy as sa


def metadata() -> sa.MetaData:
    """A new :class:`~sqlalchemy.MetaData` holding the baseline's tables and indexes."""
    # The comments of bodoge/store/schema.py say what each table and column is for.
    metadata = sa.MetaData()

    players = sa.Table(
        "players",
        metadata,
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("seen_at", sa.BigInteger, nullable=True),
        sa.Column("account_name", sa.Text, nullable=True),
        sa.Column("account_key", sa.Text, nullable=True),
        sa.Column("password_hash", sa.Text, nullable=True),
        sa.Column("generation", sa.Integer, nullable=True),
    )

    sa.Table(
        "sessions",
        metadata,
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player", sa.String(32), nullable=False, index=True),
        sa.Column("generation", sa.Integer, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )

    sa.Table(
        "passkeys",
        metadata,
        sa.Column("id", sa.Text, primary_key=True),  # the credential id, base64url
        sa.Column("player", sa.String(32), nullable=False, index=True),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.BigInteger, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("used_at", sa.BigInteger, nullable=True),
    )

    tables = sa.Table(
        "tables",
        metadata,
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("host", sa.String(32), nullable=True),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("started_at", sa.BigInteger, nullable=True),
        sa.Column("finished_at", sa.BigInteger, nullable=True, index=True),
        sa.Column("result", sa.JSON, nullable=True),
        sa.Column("deadlines", sa.JSON, nullable=False),
        sa.Column("clock_deadline", sa.BigInteger, nullable=True),
        sa.Column("unwatched_at", sa.BigInteger, nullable=True),
        sa.Column("owner", sa.Text, nullable=True),
        sa.Column("owner_epoch", sa.BigInteger, nullable=False, server_default=sa.text("0")),
        sa.Column("rematch", sa.String(32), nullable=True),
        sa.Column("statistics", sa.JSON, nullable=True),
    )

    sa.Table(
        "cluster_processes",
        metadata,
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("address", sa.Text, nullable=False),
        sa.Column("started_at", sa.BigInteger, nullable=False),
        sa.Column("expires_at", sa.BigInteger, nullable=False),
        sa.Column("tables", sa.Integer, nullable=True),
    )

    seats = sa.Table(
        "seats",
        metadata,
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("player", sa.String(32), nullable=True),
        sa.Column("level", sa.String(32), nullable=True),
        sa.Column("left_player", sa.String(32), nullable=True),
    )

    sa.Table(
        "ratings",
        metadata,
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )

    sa.Table(
        "rating_history",
        metadata,
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Index("rating_history_by_player", "player", "game", "at"),
    )

    sa.Table(
        "rating_pending",
        metadata,
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("at", sa.BigInteger, nullable=False),
    )

    sa.Table(
        "removed_players",
        metadata,
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("player", sa.String(32), primary_key=True),
    )

    sa.Table(
        "passkey_challenges",
        metadata,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("challenge", sa.LargeBinary, nullable=False),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("player", sa.String(32), nullable=True),
        sa.Column("name", sa.Text, nullable=True),
        sa.Column("rp_id", sa.Text, nullable=False),
        sa.Column("expires_at", sa.BigInteger, nullable=False, index=True),
    )

    sa.Table(
        "moves",
        metadata,
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("n", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("move", sa.JSON, nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Column("actor", sa.String(16), nullable=False),
    )

    chat = sa.Table(
        "chat",
        metadata,
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("line", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("player", sa.String(32), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
    )

    sa.Index("seats_by_player", seats.c.player)
    sa.Index("seats_by_left_player", seats.c.left_player)
    sa.Index("tables_by_host", tables.c.host)
    sa.Index("chat_by_player", chat.c.player)

    sa.Index("players_by_account", players.c.account_key, unique=True)

    sa.Table(
        "picture_sets",
        metadata,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("owner", sa.String(32), nullable=True, index=True),
        sa.Column("bytes", sa.BigInteger, nullable=True),
        sa.Column("used_at", sa.BigInteger, nullable=True),
    )

    sa.Table(
        "pictures",
        metadata,
        sa.Column(
            "set_id",
            sa.String(64),
            sa.ForeignKey("picture_sets.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("n", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("media_type", sa.String(32), nullable=False),
    )
    return metadata

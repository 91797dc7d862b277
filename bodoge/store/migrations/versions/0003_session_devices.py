"""Sessions a person can see and end: each sign-in notes when and where it was last used.

``sessions`` gains ``seen_at``, ``address``, ``browser`` and ``system``.  Every sign-in
already stored counts as seen now (when it was last used before is unknown; it expires
only once unused for the whole limit from now on).  And every account's token becomes a
sign-in: the token a guest began with, still in ``players.token_hash`` for an account
whose sign-ins were never all ended (generation 0), moves to ``sessions``, and the hash of
no token takes its place.  (Once an account signed out everywhere, that column holds such a
hash already.)
"""

from __future__ import annotations

import secrets
import time

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def columns() -> list[sa.Column[object]]:
    return [
        sa.Column("seen_at", sa.BigInteger, nullable=True),
        sa.Column("address", sa.Text, nullable=True),
        sa.Column("browser", sa.Text, nullable=True),
        sa.Column("system", sa.Text, nullable=True),
    ]


def upgrade() -> None:
    for column in columns():
        op.add_column("sessions", column)
    now = int(time.time() * 1000)
    bind = op.get_bind()
    bind.execute(sa.text("UPDATE sessions SET seen_at = :now"), {"now": now})
    accounts = bind.execute(
        sa.text(
            "SELECT id, token_hash, created_at FROM players"
            " WHERE account_key IS NOT NULL AND COALESCE(generation, 0) = 0"
        )
    ).all()
    for player, token_hash, created_at in accounts:
        bind.execute(
            sa.text(
                "INSERT INTO sessions (token_hash, player, generation, created_at, seen_at)"
                " VALUES (:token_hash, :player, 0, :created_at, :now)"
            ),
            {"token_hash": token_hash, "player": player, "created_at": created_at, "now": now},
        )
        bind.execute(
            sa.text("UPDATE players SET token_hash = :none WHERE id = :player"),
            {"none": secrets.token_hex(32), "player": player},
        )


def downgrade() -> None:
    # The tokens moved to ``sessions`` still sign their accounts in under the revision before.
    with op.batch_alter_table("sessions") as batch:
        for column in columns():
            batch.drop_column(column.name)

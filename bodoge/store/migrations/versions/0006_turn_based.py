"""Turn-based play: each player's vacation (until when, and the days used this year).

A turn-based table's mode and time per move are its settings, and its deadlines the
timers every move already stores (0005): only the vacations are new.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "vacations",
        sa.Column("player", sa.String(32), primary_key=True),
        sa.Column("until", sa.BigInteger, nullable=True),
        sa.Column("year", sa.Integer, nullable=False),
        sa.Column("days_used", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("vacations")

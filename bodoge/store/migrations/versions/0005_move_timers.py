"""Each move keeps the timers it left running (turn deadlines per seat, the rule clock).

A catch-up (``table.open`` with ``since``) sends each move's frame as it was sent live, with
that move's deadlines: the table's current ones, seen through an older state, told a
spectator which voter of a secret vote had not voted yet.  Moves stored before this
revision keep NULL (their timers are unknown; a catch-up shows none for them).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("moves") as batch:
        batch.add_column(sa.Column("deadlines", sa.JSON, nullable=True))
        batch.add_column(sa.Column("clock_deadline", sa.BigInteger, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("moves") as batch:
        batch.drop_column("clock_deadline")
        batch.drop_column("deadlines")

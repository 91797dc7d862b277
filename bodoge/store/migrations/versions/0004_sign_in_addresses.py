"""The addresses an account signed in from (``sign_in_addresses``): the sign-in brake on an
account lets its owner in from them."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sign_in_addresses",
        sa.Column("player", sa.String(32), primary_key=True),
        sa.Column("address", sa.Text, primary_key=True),
        sa.Column("seen_at", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sign_in_addresses")

"""Notifications: a person's choices and verified e-mail address (``notify_settings``), their
browsers' Web Push subscriptions (``push_subscriptions``), the secrets a server makes once
(``server_secrets``: VAPID keys, the key that signs e-mail links), and the outbox of what is
to be sent and was (``notify_outbox``).

Numbered 0007 beside the turn-based tables' 0006; whichever lands second is chained after
the other (``down_revision``).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notify_settings",
        sa.Column("player", sa.String(32), primary_key=True),
        sa.Column("email", sa.Text, nullable=True),
        sa.Column("email_verified_at", sa.BigInteger, nullable=True),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("my_turn", sa.Integer, nullable=False),
        sa.Column("game_ended", sa.Integer, nullable=False),
        sa.Column("invited", sa.Integer, nullable=False),
        sa.Column("digest", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("endpoint", sa.Text, primary_key=True),
        sa.Column("player", sa.String(32), nullable=False),
        sa.Column("p256dh", sa.Text, nullable=False),
        sa.Column("auth", sa.Text, nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_push_subscriptions_player", "push_subscriptions", ["player"])
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "notify_outbox",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("player", sa.String(32), nullable=False),
        sa.Column("channel", sa.String(8), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("payload", sa.Text, nullable=False),  # JSON text
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("due_at", sa.BigInteger, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("claimed_until", sa.BigInteger, nullable=True),
        sa.Column("claimed_by", sa.Text, nullable=True),
        sa.Column("sent_at", sa.BigInteger, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
    )
    op.create_index("notify_outbox_due", "notify_outbox", ["sent_at", "due_at"])


def downgrade() -> None:
    op.drop_index("notify_outbox_due", "notify_outbox")
    op.drop_table("notify_outbox")
    op.drop_table("server_secrets")
    op.drop_index("ix_push_subscriptions_player", "push_subscriptions")
    op.drop_table("push_subscriptions")
    op.drop_table("notify_settings")

"""The baseline: the store's tables as of 2026-12-01, the cluster's included.

A store made before migrations is brought here by ``legacy.to_baseline`` and stamped
0001 instead of running this.
"""

from __future__ import annotations

from alembic import op

from bodoge.store.migrations import baseline

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    baseline.metadata().create_all(op.get_bind())


def downgrade() -> None:
    baseline.metadata().drop_all(op.get_bind())

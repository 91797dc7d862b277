"""Reads people wait on, flat in the number of games a store has kept.

* ``tables_finished_by_time`` (status, finished_at): the Finished tab walks it newest first;
* ``tables_unsummarised``, partial (finished, no statistics yet): the statistics back-fill
  finds what it has to do without reading every finished table;
* ``ratings.ordinal`` (mu - 3 sigma, the number a leaderboard ranks by) and
  ``ratings_by_ordinal`` (game, ordinal, player): a leaderboard reads its first rows from the index.

"My games" and profiles need no index: they start from the player's own seats
(``seats_by_player``), see ``bodoge/store/loading.py``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

UNSUMMARISED = "status = 'finished' AND statistics IS NULL"


def upgrade() -> None:
    op.add_column("ratings", sa.Column("ordinal", sa.Float, nullable=True))
    op.execute("UPDATE ratings SET ordinal = mu - 3 * sigma")
    op.create_index("ratings_by_ordinal", "ratings", ["game", "ordinal", "player"])
    op.create_index("tables_finished_by_time", "tables", ["status", "finished_at"])
    op.create_index(
        "tables_unsummarised",
        "tables",
        ["finished_at", "id"],
        sqlite_where=sa.text(UNSUMMARISED),
        postgresql_where=sa.text(UNSUMMARISED),
    )
    if op.get_bind().dialect.name == "postgresql":
        # The planner's statistics of the new column and indexes now, not at autovacuum's
        # next pass (SQLite's are made at each start: bodoge/store/engine.py).
        op.execute("ANALYZE tables")
        op.execute("ANALYZE ratings")


def downgrade() -> None:
    op.drop_index("tables_unsummarised", "tables")
    op.drop_index("tables_finished_by_time", "tables")
    op.drop_index("ratings_by_ordinal", "ratings")
    with op.batch_alter_table("ratings") as batch:
        batch.drop_column("ordinal")

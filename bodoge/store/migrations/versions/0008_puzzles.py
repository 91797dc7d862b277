"""Puzzles: short rated problems made from positions of bot games, each person's answers
and puzzle rating, and the daily puzzle of each day (bodoge/server/services/puzzles.py)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("plays", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index("puzzles_by_rating", "puzzles", ["game", "mu"])
    op.create_table(
        "puzzle_players",
        sa.Column("player", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("best_streak", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("player", sa.String(32), primary_key=True),
        sa.Column("puzzle", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("answer", sa.JSON, nullable=False),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("day", sa.String(10), nullable=True),
        sa.Column("at", sa.BigInteger, nullable=False),
    )
    op.create_index("puzzle_attempts_by_player", "puzzle_attempts", ["player", "at"])
    op.create_table(
        "puzzle_days",
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("puzzle", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("puzzle_days")
    op.drop_index("puzzle_attempts_by_player", "puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_players")
    op.drop_index("puzzles_by_rating", "puzzles")
    op.drop_table("puzzles")

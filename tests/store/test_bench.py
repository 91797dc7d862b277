"""``bodoge bench store`` runs, the old write path included (its figures are not checked)."""

from __future__ import annotations

import pytest

from bodoge.cli import main


def test_the_store_bench_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "store", "--rounds", "1", "--moves", "32"]) == 0
    out = capsys.readouterr().out
    assert "Store CPU per appended move" in out
    rows = [line.split() for line in out.splitlines() if "SQLite" in line and "│" in line]
    assert [row[3] for row in rows] == ["1", "16"]  # moves per commit


def test_the_growth_bench_prints_each_read_at_each_size(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "growth", "--games", "300,600", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "300 games (sqlite)" in out and "600 games (sqlite)" in out
    for read in ("My games, 2,000 games", "Finished tab", "leaderboard", "idle guests"):
        assert read in out, out

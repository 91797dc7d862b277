"""Selfplay: the driver, the tally and the command, on a handful of games."""

from __future__ import annotations

import pytest

from bodoge.cli import main
from bodoge.games.tagiron.selfplay import (
    SoloSummary,
    Tally,
    play_game,
    run_games,
    run_solo,
    run_solo_paired,
    seat_rotation,
    solo_questions,
    wilson,
)


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4)
    assert hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(10, 10)[1] == 1.0


def test_seats_rotate_so_each_level_sits_everywhere() -> None:
    levels = ("expert", "normal", "normal")
    seats = [seat_rotation(levels, i).index("expert") for i in range(3)]
    assert sorted(seats) == [0, 1, 2]


def test_a_game_is_reproducible_from_its_seed() -> None:
    assert play_game(2, ("normal", "easy"), 9) == play_game(2, ("normal", "easy"), 9)


def test_tally_counts_wins_draws_and_places() -> None:
    tally = Tally(2, ("expert", "normal"))
    for record in run_games(2, ("expert", "normal"), 6, seed=3):
        tally.add(record)
    assert tally.games == 6
    assert tally.seats == {"expert": 6, "normal": 6}
    decided = tally.wins.get("expert", 0) + tally.wins.get("normal", 0)
    assert decided + tally.draws == 6
    # every consultation of each level's bot is timed, on its turn or not
    assert all(len(tally.decisions[level]) >= 6 for level in ("expert", "normal"))
    assert all(t > 0 for t in tally.decisions["expert"])


def test_parallel_runs_give_the_same_games() -> None:
    one = sorted(r.seed for r in run_games(2, ("easy", "normal"), 8, seed=5, jobs=1))
    two = sorted(r.seed for r in run_games(2, ("easy", "normal"), 8, seed=5, jobs=2))
    assert one == two


def test_solo_asker_needs_a_few_questions() -> None:
    counts = [solo_questions("normal", seed) for seed in range(5)]
    assert all(2 <= c <= 21 for c in counts)


def test_solo_levels_meet_the_same_deals() -> None:
    # the same level twice asks the same questions on the same deals
    rows = list(run_solo_paired(("normal", "normal", "random"), 6, seed=2))
    assert len(rows) == 6 and all(a == b for a, b, _ in rows)
    assert [a for a, _, _ in rows] == list(run_solo("normal", 6, seed=2))
    assert sum(r for _, _, r in rows) > sum(a for a, _, _ in rows)  # random asks more


def test_solo_summary_pairs_the_deals() -> None:
    rows = [(5, 4), (4, 4), (6, 5), (3, 3), (4, 4)]
    s = SoloSummary.of(("normal", "expert"), rows)
    assert s.deals == 5 and s.means == (4.4, 4.0)
    diff, lo, hi = s.differences[0]
    # differences -1, 0, -1, 0, 0: mean -0.4, sd 0.548, half-width 1.96 * 0.548 / sqrt(5)
    assert diff == pytest.approx(-0.4)
    assert (lo, hi) == pytest.approx((-0.4 - 0.48010, -0.4 + 0.48010), abs=1e-4)
    assert SoloSummary.of(("normal",), [(4,)]).halves == (0.0,)


def test_selfplay_solo_command_compares_levels_on_the_same_deals(capsys) -> None:
    assert main(["tagiron", "selfplay", "--solo", "normal,expert", "--games", "3"]) == 0
    out = capsys.readouterr().out
    assert "same 3 deals" in out and "minus normal" in out
    assert "expert − normal" in out and "paired 95% CI" in out


def test_selfplay_solo_refuses_unknown_or_repeated_levels(capsys) -> None:
    assert main(["tagiron", "selfplay", "--solo", "normal,wizard", "--games", "2"]) == 2
    assert "wizard" in capsys.readouterr().err
    assert main(["tagiron", "selfplay", "--solo", "normal,normal", "--games", "2"]) == 2


def test_selfplay_command(capsys) -> None:
    assert (
        main(["tagiron", "selfplay", "--players", "2", "--bots", "expert,easy", "--games", "4"])
        == 0
    )
    out = capsys.readouterr().out
    assert "4 games" in out and "expert" in out and "Decided games" in out


def test_selfplay_command_three_players(capsys) -> None:
    args = ["tagiron", "selfplay", "--players", "3", "--bots", "normal,easy", "--games", "2"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Head to head" in out and "Decision time per consultation" in out


def test_selfplay_solo_command(capsys) -> None:
    assert main(["tagiron", "selfplay", "--solo", "random", "--games", "5"]) == 0
    assert "questions on average" in capsys.readouterr().out


def test_selfplay_refuses_unknown_levels(capsys) -> None:
    assert main(["tagiron", "selfplay", "--bots", "expert,wizard", "--games", "1"]) == 2
    assert "wizard" in capsys.readouterr().err

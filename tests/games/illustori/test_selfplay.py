"""``bodoge illustori selfplay``: bot games through the engine, and the figures they give."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest

from bodoge.cli import build_parser, main
from bodoge.games.illustori import selfplay
from bodoge.games.illustori.bots import NormalBot
from bodoge.games.illustori.cli import run_deck, run_selfplay
from bodoge.games.illustori.moves import IllustoriMove, PlayCard
from bodoge.games.illustori.selfplay import (
    BotError,
    Tally,
    play_game,
    run_games,
    summary_rows,
    word_rows,
)


def test_records_add_up() -> None:
    records = list(run_games({"players": 6, "deck_size": 31}, 6, seed=3, levels=("easy", "normal")))
    for record in records:
        assert record.finished and record.final_round
        assert record.winners >= 1
        assert record.turns == record.plays + record.exchanges
        assert record.plays == record.passed + record.failed + sum(record.penalties.values())
        assert record.exchanged_cards >= record.exchanges
        assert record.words == record.plays + 1  # the first word too
    # A small deck runs out, and easy bots exchange: the rules behind them fire.
    assert sum(r.reshuffles for r in records) > 0
    assert sum(r.exchanges for r in records) > 0


def test_games_are_the_same_for_the_same_seed() -> None:
    first = list(run_games({"players": 4, "language": "en"}, 3, seed=11))
    again = list(run_games({"players": 4, "language": "en"}, 3, seed=11))
    assert first == again
    assert len({r.seed for r in first}) == 3


def test_a_game_past_the_move_limit_is_given_up() -> None:
    record = play_game({"players": 3}, seed=1, max_moves=5)
    assert not record.finished and record.moves == 5
    tally = Tally()
    tally.add(record)
    assert dict(summary_rows(tally))["games"] == "1 (0 finished, 1 given up)"


class _Cheat(NormalBot):
    """Plays a card it does not hold, or nothing at all, on its turn."""

    def __init__(self, move: str) -> None:
        self.move = move

    def act(self, view: Mapping[str, Any], seat: int, rng: random.Random) -> IllustoriMove | None:
        if view["phase"] != "play" or seat not in view["to_act"]:
            return super().act(view, seat, rng)
        if self.move == "nothing":
            return None
        held = set(view["hand"])
        return PlayCard(next(c for c in range(60) if c not in held), "ねこ")


@pytest.mark.parametrize("move", ["foreign card", "nothing"])
def test_a_refused_or_missing_bot_move_is_an_error(
    move: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(selfplay.GAME, "bot", lambda level: _Cheat(move))
    with pytest.raises(BotError, match=r"played|did nothing"):
        play_game({"players": 3}, seed=2)


def test_summary_names_every_rule() -> None:
    tally = Tally()
    for record in run_games({"players": 5}, 2, seed=5):
        tally.add(record)
    rows = dict(summary_rows(tally))
    for what in (
        "turns per game",
        "moves per game",
        "votes passed",
        "votes failed",
        "ん penalties",
        "same-ends penalties",
        "used-joint penalties",
        "exchanges (of turns)",
        "reshuffles",
        "final rounds",
        "winners per game",
        "dictionary words or natural phrases",
        "different words",
        "said most",
        "words about their card",
        "a sample",
    ):
        assert what in rows
    assert rows["games"] == "2 (2 finished, 0 given up)"
    assert rows["final rounds"] == "2 (100.0%)"


def test_the_command_plays_and_prints(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        ["illustori", "selfplay", "--players", "3", "--games", "3", "--seed", "7",
         "--options", "ban_same_ends=true", "deck_size=40", "--levels", "easy,normal"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0
    assert "3 (3 finished, 0 given up)" in out
    assert "ban_same_ends=true" in out and "deck_size=40" in out
    for what in ("turns per game", "ん penalties", "exchanges", "reshuffles", "final rounds"):
        assert what in out


def test_the_command_takes_options_and_refuses_bad_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = build_parser()
    args = parser.parse_args(["illustori", "selfplay", "--options", "language=en", "players=4"])
    assert args.func is run_selfplay and dict(args.options) == {"language": "en", "players": 4}
    assert main(["illustori", "selfplay", "--games", "1", "--options", "colour=red"]) == 2
    assert "unknown option" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        parser.parse_args(["illustori", "selfplay", "--levels", "expert"])
    with pytest.raises(SystemExit):
        parser.parse_args(["illustori", "selfplay", "--options", "novalue"])
    # The deck tool is still there beside it.
    assert parser.parse_args(["illustori", "deck", "--out", "cards"]).func is run_deck


def test_the_bots_words_are_natural_and_varied() -> None:
    """The goal of issue 17: at least 95% dictionary words or natural phrases."""
    tally = Tally()
    for record in run_games({"players": 5}, 12, seed=17):
        tally.add(record)
    for record in run_games({"players": 5, "language": "en"}, 12, seed=17):
        tally.add(record)
    words = tally.total(lambda r: r.words)
    natural = tally.total(lambda r: r.wordings["word"] + r.wordings["phrase"])
    assert natural >= 0.95 * words
    unrelated = tally.total(lambda r: r.relations[""])
    assert unrelated <= 0.1 * words  # only stretches when the whole table is stuck
    different = {w for r in tally.records for w in r.said}
    assert len(different) >= 0.3 * words
    rows = dict(word_rows(tally))
    assert rows["different words"] == f"{len(different)} of {words:g} given"
    assert rows["dictionary words or natural phrases"].startswith(f"{natural:g} (")
    assert len(rows["a sample"].split(", ")) + len(rows["a sample"].split("、")) >= 12
    # Issue 31: no plain word over and over (移動 was 23 of 802 words, ride 16).
    said = Counter(w for r in tally.records for w in r.said)
    top, count = said.most_common(1)[0]
    assert count <= 0.02 * words, (top, count)
    assert rows["said most"].startswith(f"{top} ×{count}")


def test_the_command_prints_the_word_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["illustori", "selfplay", "--players", "4", "--games", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    for what in ("dictionary words or natural", "different words", "words about their", "a sample"):
        assert what in out

"""``bodoge tagiron solve`` and ``bodoge tagiron play``, driven as a person would."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bodoge.cli import main
from bodoge.games.tagiron.game import TagironGame
from tests.games.tagiron.helpers import bot_history

POSITION = {
    "players": 2,
    "seat": 0,
    "hand": ["R0", "B0", "R1", "B1", "R2"],
    "face_up": ["red_count", "where_5", "pairs"],
    "log": [
        {"seat": 0, "card": "total_sum", "answers": {"0": 4, "1": 40}},
        {"type": "question", "seat": 1, "card": "red_sum", "choice": None, "answers": {"0": 3}},
        {"seat": 0, "card": "where_6or7", "choice": 6, "answers": {"1": []}},
    ],
}


def write(tmp_path: Path, data: object, name: str = "position.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def test_solve_json(tmp_path, capsys) -> None:
    assert main(["tagiron", "solve", write(tmp_path, POSITION), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["candidates"] == 2
    assert {tuple(c["tiles"]) for c in out["top"]} == {
        ("R7", "B7", "R8", "R9", "B9"),
        ("R7", "B7", "B8", "R9", "B9"),
    }
    bits = {(q["card"], q["choice"]): q["bits"] for q in out["questions"]}
    assert bits[("red_count", None)] == pytest.approx(1.0)
    assert bits[("where_5", None)] == pytest.approx(0.0)
    assert len(out["positions"]) == 5


def test_solve_tables(tmp_path, capsys) -> None:
    assert main(["tagiron", "solve", write(tmp_path, POSITION)]) == 0
    out = capsys.readouterr().out
    assert "2 candidates" in out
    assert "R7 B7 B8 R9 B9" in out
    assert "red_count" in out and "1.000" in out


def test_solve_three_players_accepts_the_view_log_shape(tmp_path, capsys) -> None:
    game = TagironGame()
    state = game.setup(game.options({"players": 3}), 3, seed=4)
    from bodoge.games.tagiron.rules import questions

    for _ in range(3):
        state, _ = game.apply(state, state.turn, questions(state)[0])
    view = game.view(state, 1)
    position = {k: view[k] for k in ("players", "hand", "face_up", "log")} | {"seat": view["you"]}
    assert main(["tagiron", "solve", write(tmp_path, position), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["candidates"] >= 1
    assert state.centre in [tuple(c["tiles"]) for c in out["top"]] or out["candidates"] > 10


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda p: p["log"].append({"seat": 0, "card": "where_0", "answers": {"1": [9]}}),
            "log entry 4 (where_0 by seat 0): no hand is consistent with answer [9]",
        ),
        (lambda p: p.update(hand=["R0", "B0", "R1", "B1"]), "hand: give exactly 5 tile codes"),
        (lambda p: p.update(hand=["R0", "R0", "R1", "B1", "R2"]), "more often than it exists"),
        (
            lambda p: p["log"].append({"seat": 0, "card": "nope", "answers": {}}),
            "log entry 4: no question card 'nope'",
        ),
        (
            lambda p: p["log"].append({"seat": 1, "card": "where_1or2", "answers": {"0": []}}),
            "where_1or2 needs a choice of 1 or 2",
        ),
        (
            lambda p: p["log"].append({"seat": 0, "card": "pairs", "answers": {"0": 0, "1": 1}}),
            "seat 0 does not answer this question",
        ),
        (lambda p: p["log"][0]["answers"].update({"0": 5}), "your own hand answers 4, not 5"),
        (lambda p: p.update(face_up=["total_sum"]), "total_sum was asked in log entry 1"),
        (lambda p: p.update(players=5), "players must be 2, 3 or 4"),
    ],
)
def test_solve_errors_name_the_problem(tmp_path, capsys, change, message) -> None:
    position = json.loads(json.dumps(POSITION))
    change(position)
    assert main(["tagiron", "solve", write(tmp_path, position)]) == 2
    assert message in " ".join(capsys.readouterr().err.split())


def test_solve_rejects_files_that_are_not_json(tmp_path, capsys) -> None:
    assert main(["tagiron", "solve", write(tmp_path, "{not json")]) == 2
    assert "is not JSON" in capsys.readouterr().err
    assert main(["tagiron", "solve", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def run_play(monkeypatch, capsys, script: str, *args: str) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    assert main(["tagiron", "play", *args]) == 0
    return capsys.readouterr().out


def test_play_refuses_bad_input_and_quits(monkeypatch, capsys) -> None:
    out = run_play(
        monkeypatch,
        capsys,
        "help\nask 9\nask nope\ndeclare R1 R1 R2 R3 R4\ndeclare B1 R1 R2 R3 R4\ndance\nquit\n",
        "--seed",
        "5",
    )
    assert "Commands:" in out
    assert "no face-up card '9'" in out
    assert "more often than it exists" in out
    assert "hand order" in out
    assert "Unknown command 'dance'" in out
    assert "Bye." in out


def test_play_a_whole_game_by_declaring_the_bots_hand(monkeypatch, capsys) -> None:
    game = TagironGame()
    state = game.setup(game.options({"players": 2}), 2, seed=12)
    bot_hand = " ".join(state.hands[1])
    out = run_play(
        monkeypatch, capsys, f"ask 1 1\nask 1\nlog\ndeclare {bot_hand}\n", "--seed", "12"
    )
    assert "Your tiles:" in out
    assert f"You declared {bot_hand}: right" in out
    assert "You win!" in out or "A draw." in out or "The bot wins." in out
    assert f"The bot's tiles: {bot_hand}" in out


def test_play_ends_cleanly_at_end_of_input(monkeypatch, capsys) -> None:
    out = run_play(monkeypatch, capsys, "ask 1 2\n", "--seed", "3", "--bot", "normal")
    assert "Bye." in out


def test_same_colour_card_has_the_corrected_wording(tmp_path, capsys) -> None:
    """The card reads 「同じ色が連続している…」 (seed 000's correction), not the old print."""
    position = {**POSITION, "face_up": ["same_colour_runs", "red_count"]}
    assert main(["tagiron", "solve", write(tmp_path, position), "--lang", "ja"]) == 0
    out = capsys.readouterr().out
    assert "同じ色が連続している" in out
    assert "隣り合" not in out


def test_review_prints_every_seat_and_json_for_tools(tmp_path, capsys) -> None:
    path = write(tmp_path, bot_history(3, 6, ["normal", "easy", "easy"]), "game.json")
    assert main(["tagiron", "review", path, "--json"]) == 0
    review = json.loads(capsys.readouterr().out)
    assert [s["seat"] for s in review["seats"]] == [0, 1, 2]
    assert main(["tagiron", "review", path]) == 0
    out = capsys.readouterr().out
    for s in review["seats"]:
        assert f"Seat {s['seat']} · score {s['score']}:" in out
    assert "candidates: 2,288 → " in out or "candidates: 3,003 → " in out


def test_review_refuses_what_is_not_a_history(tmp_path, capsys) -> None:
    assert main(["tagiron", "review", write(tmp_path, "{", "bad.json")]) == 2
    assert "is not JSON" in capsys.readouterr().err
    assert main(["tagiron", "review", write(tmp_path, {"moves": []}, "x.json")]) == 2
    assert "error: the history has no seed" in capsys.readouterr().err
    assert main(["tagiron", "review", str(tmp_path / "none.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_review_refuses_an_unfinished_history(tmp_path, capsys) -> None:
    """Six moves of a game still being played: nothing to review, a clear message, exit 2
    (and no review printed)."""
    history = bot_history(3, 6, ["normal", "easy", "easy"])
    cut = {**history, "moves": history["moves"][:6], "result": None}
    assert main(["tagiron", "review", write(tmp_path, cut, "running.json")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "error: the game has not ended (the history stops after 6 moves, in the play "
        "phase): only a finished game can be reviewed\n"
    )


def test_selfplay_review_prints_each_levels_mean_score(capsys) -> None:
    args = ["tagiron", "selfplay", "--players", "3", "--bots", "normal,easy", "--games", "3"]
    assert main([*args, "--review"]) == 0
    out = capsys.readouterr().out
    assert "3 games, 3 players" in out and "Review score by level" in out
    assert "normal" in out and "easy" in out and "A game's review took" in out
    assert "normal − easy in the same games:" in out


def test_selfplay_review_dumps_every_games_reviews(tmp_path, capsys) -> None:
    """``--dump``: one JSON line a game, each seat's whole review, whose scores are the
    ones the table averages."""
    path = tmp_path / "reviews.jsonl"
    args = ["tagiron", "selfplay", "--players", "2", "--bots", "normal,easy", "--games", "2"]
    assert main([*args, "--review", "--dump", str(path)]) == 0
    games = [json.loads(line) for line in path.read_text().splitlines()]
    assert [g["levels"] for g in games] == [["normal", "easy"], ["easy", "normal"]]
    for g in games:
        assert [s["seat"] for s in g["seats"]] == [0, 1]
        for s in g["seats"]:
            raw = 100 * s["accuracy"] - s["missed_cost"] - 10 * s["hasty"]
            assert s["score"] == max(0, round(raw))
    easy = [s["score"] for g in games for s in g["seats"] if g["levels"][s["seat"]] == "easy"]
    assert f"{sum(easy) / len(easy):.1f}" in capsys.readouterr().out
    # a file that cannot be written: said before any game is played
    bad = str(tmp_path / "no such folder" / "x.jsonl")
    assert main([*args, "--review", "--dump", bad]) == 2
    assert capsys.readouterr().err.startswith(f"error: cannot write {bad}: ")

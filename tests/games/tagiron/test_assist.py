"""The table companion, driven by scripted input as a person at a table would type."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from bodoge.cli import main
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.solver import Deduction
from bodoge.games.tagiron.assist import Assistant, AssistError, parse_answer


def drive(script: str, assistant: Assistant | None = None) -> tuple[Assistant, str]:
    assistant = assistant or Assistant()
    out = io.StringIO()
    assert assistant.run(io.StringIO(script), Console(file=out, width=130)) == 0
    return assistant, out.getvalue()


SETUP_3 = "3\n\nR0 B1 R3 G5 B9\n"


def test_a_three_player_session() -> None:
    assistant, out = drive(
        SETUP_3
        + "faceup red_sum where_1or2 total_sum pairs\n"
        + "ask 1 red_sum\n10\n"  # seat 2 is asked for; seat 0's answer is worked out
        + "ask me where_1or2 2 1=1 2=none\n"
        + "best\nlog\nquit\n"
    )
    assert "How many players" in out
    assert "3,003 candidates for the centre" in out
    assert "(your own answer: 3)" in out
    assert "Turn up a new card with 'new CARD'" in out
    assert "2. seat 0 asked where_1or2 2 — seat 1: [1], seat 2: []" in out
    assert assistant.face_up == ["total_sum", "pairs"]
    # the assistant's numbers are the solver's
    d = Deduction(Position.from_json(assistant.to_json()))
    assert f"{d.candidate_count:,} candidates" in out


def test_mistakes_change_nothing_and_undo_takes_back() -> None:
    assistant, out = drive(
        SETUP_3
        + "ask 1 red_sum 2=99\n"  # impossible
        + "ask 1 blue_sum 0=5\n"  # seat 0 (me) would answer 10
        + "ask 1 nothing 2=3\n"
        + "ask 1 where_1or2 2=1\n"  # needs the chosen number
        + "ask 1 red_sum 2=10\n"
        + "ask 1 red_sum 2=10\n"  # already asked
        + "undo\nundo\nfly\n"
        + "quit\n"
    )
    assert "no hand is consistent with answer 99 (seat 2)" in out
    assert "your own answer is 10, not 5" in out
    assert "no card 'nothing'" in out
    assert "where_1or2 needs the chosen number: 1 or 2" in out
    assert "red_sum was already asked" in out
    assert "nothing to undo" in out
    assert "unknown command 'fly'" in out
    assert assistant.log == []


def test_save_and_load_round_trip(tmp_path) -> None:
    path = tmp_path / "session.json"
    first, _ = drive(
        "2\n0\nR0 B0 R1 B1 R2\nask 0 total_sum 1=40\nask 0 where_6or7 6 1=none\n"
        "declare 0 wrong R7 B7 R8 R9 B9\n"
        f"save {path}\nquit\n"
    )
    saved = json.loads(path.read_text())
    assert saved["log"][2] == {
        "type": "declaration",
        "seat": 0,
        "right": False,
        "tiles": ["R7", "B7", "R8", "R9", "B9"],
    }
    # a saved session is a position the solve command reads
    assert Deduction(Position.from_json(saved)).candidates() == [
        (("R7", "B7", "B8", "R9", "B9"), 1.0)
    ]
    resumed = Assistant()
    resumed.load(str(path))
    assert resumed.to_json() == first.to_json()
    _, out = drive("show\nquit\n", resumed)
    assert "1 candidate for the opponent's hand — certain!" in out


def test_command_line_loads_a_session(tmp_path, monkeypatch, capsys) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"players": 2, "seat": 1, "hand": ["R0", "B0", "R1", "B1", "R2"]}))
    monkeypatch.setattr("sys.stdin", io.StringIO("cards\nquit\n"))
    assert main(["tagiron", "assist", "--load", str(path), "--lang", "ja"]) == 0
    out = capsys.readouterr().out
    assert "2,288 candidates" in out  # 3,003 hands; those with one green 5 pair up
    assert "赤の数の合計は？" in out
    path.write_text("{}")
    assert main(["tagiron", "assist", "--load", str(path)]) == 2


def test_help_and_setup_retries() -> None:
    _, out = drive("5\n2\n7\n1\nR0 R0 B1 R2 R3\nR0 B0 R1 B1 R2\nhelp\n")
    assert "Type 2, 3 or 4." in out
    assert "Type a number from 0 to 1." in out
    assert "more often than it exists" in out
    assert "ask SEAT CARD" in out


def test_four_players_answer_everything_and_declarations_count() -> None:
    assistant, out = drive(
        "4\n2\nR0 B3 G5 R8\n"
        "ask 0 red_count 0=1 1=2 3=1\n"
        "declare 3 wrong\n"
        "pass 1\n"
        "ask 1 mid3_sum\n"
        "log\nquit\n"
    )
    assert "(your own answer: 2)" in out
    assert "mid3_sum is not used with 4 players" in out
    assert "2. seat 3 declared wrong" in out
    assert "3. seat 1 passed" in out
    assert len(assistant.log) == 3


def test_four_player_opening_ranks_every_unasked_card() -> None:
    # No face-up cards given: the best question is chosen among all 19 cards,
    # even at the opening's 63 million worlds.
    _, out = drive("4\n0\nR0 B3 G5 R8\nbest\nquit\n")
    assert "Best question (among all unasked cards):" in out
    assert "none yet" not in out


@pytest.mark.parametrize(
    ("card", "text", "expected"),
    [
        ("total_sum", "23", 23),
        ("where_0", "none", []),
        ("where_0", "なし", []),
        ("where_6or7", "4 5", [4, 5]),
        ("consecutive_runs", "1-2 3-5", [[1, 2], [3, 5]]),
        ("same_colour_runs", "[[2, 4]]", [[2, 4]]),
        ("centre_high_low", "low", "low"),
        ("centre_high_low", "4以下", "low"),
    ],
)
def test_answers_as_typed(card: str, text: str, expected: object) -> None:
    assert parse_answer(card, text) == expected


@pytest.mark.parametrize(
    ("card", "text"), [("red_sum", "many"), ("where_5", "x"), ("centre_high_low", "mid")]
)
def test_unreadable_answers(card: str, text: str) -> None:
    with pytest.raises(AssistError):
        parse_answer(card, text)

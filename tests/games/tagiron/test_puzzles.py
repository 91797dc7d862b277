"""Tagiron puzzles: every answer checked by listing the hidden hands here, apart from the
solver that made it; never two right answers; the same seed, the same puzzles."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from itertools import combinations
from typing import Any

import pytest

from bodoge.core.puzzles import MadePuzzle, PuzzleAnswerError
from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.cards import CARDS, cards_for
from bodoge.games.tagiron.puzzle_make import QUESTION_MARGIN, make
from bodoge.games.tagiron.puzzles import KINDS, TagironPuzzles, tolerance
from bodoge.games.tagiron.tiles import ALL_TILES, sort_hand

SEED = 5
COUNT = 36
BOOK = TagironPuzzles()


@pytest.fixture(scope="module")
def made() -> list[MadePuzzle]:
    report = make(COUNT, SEED)
    assert len(report.puzzles) == COUNT
    return report.puzzles


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a) == json.dumps(b)


def _hands_ok(position: dict[str, Any], seat: int, unseen: list[int], k: int) -> set[int]:
    """The hands (bit masks over ALL_TILES) of ``seat`` that give every answer it gave."""
    ok = set()
    questions = [e for e in position["log"] if e.get("type", "question") == "question"]
    for combo in combinations(unseen, k):
        tiles = sort_hand(ALL_TILES[i] for i in combo)
        if all(
            _same(answer(q["card"], tiles, q["choice"]), q["answers"][str(seat)])
            for q in questions
            if str(seat) in q["answers"]
        ):
            ok.add(sum(1 << i for i in combo))
    return ok


def _tiles(mask: int) -> tuple[str, ...]:
    return sort_hand(ALL_TILES[i] for i in range(len(ALL_TILES)) if mask >> i & 1)


def brute_force(position: dict[str, Any]) -> tuple[set[tuple[str, ...]], dict[str, Any]]:
    """Every target (as a tile set) that fits the position, listed world by world, and the
    worlds themselves (the other seats' hands and the target)."""
    players, seat = position["players"], position["seat"]
    k = {2: 5, 3: 5, 4: 4}[players]
    rest = list(range(len(ALL_TILES)))
    for code in position["hand"]:
        rest.remove(next(i for i in rest if ALL_TILES[i] == code))
    all_mask = sum(1 << i for i in rest)
    others = [s for s in range(players) if s != seat]
    ok = {s: _hands_ok(position, s, rest, k) for s in others}
    wrong = {
        sort_hand(e["tiles"])
        for e in position["log"]
        if e.get("type") == "declaration"
        and e["seat"] == seat
        and e.get("tiles")
        and not e["right"]
    }
    worlds: list[tuple[tuple[int, ...], tuple[str, ...]]] = []
    if players == 2:
        for h in ok[others[0]]:
            worlds.append(((h,), _tiles(h)))
    elif players == 3:
        a, b = others
        for ha in ok[a]:
            left = [i for i in rest if not ha >> i & 1]
            for combo in combinations(left, k):
                hb = sum(1 << i for i in combo)
                if hb in ok[b]:
                    worlds.append(((ha, hb), _tiles(all_mask ^ ha ^ hb)))
    else:
        a, b, c = others
        for ha in ok[a]:
            left = [i for i in rest if not ha >> i & 1]
            for combo in combinations(left, k):
                hb = sum(1 << i for i in combo)
                if hb not in ok[b]:
                    continue
                rem = [i for i in left if not hb >> i & 1]
                for centre in combinations(rem, k):
                    hc = sum(1 << i for i in rem) ^ sum(1 << i for i in centre)
                    if hc in ok[c]:
                        worlds.append(((ha, hb, hc), _tiles(sum(1 << i for i in centre))))
    worlds = [w for w in worlds if w[1] not in wrong]
    return {t for _, t in worlds}, {"worlds": worlds, "others": others}


def test_every_kind_and_player_count_is_made(made: list[MadePuzzle]) -> None:
    assert {(p.kind, p.players) for p in made} == {(k, n) for k in KINDS for n in (2, 3, 4)}
    assert len({p.id for p in made}) == len(made)
    assert all(0 <= p.difficulty <= 1 for p in made)


def test_every_answer_is_the_only_right_one_by_listing_the_hands(made: list[MadePuzzle]) -> None:
    for p in made:
        data = p.data
        position, solution = data["position"], data["solution"]
        fitting, found = brute_force(position)
        assert fitting, p.id
        if p.kind == "declare":
            assert fitting == {tuple(solution["tiles"])}, p.id
        elif p.kind == "count":
            assert solution["count"] == len(fitting), p.id
            assert solution["low"] == len(fitting) - tolerance(len(fitting))
            assert solution["high"] == len(fitting) + tolerance(len(fitting))
            assert len(fitting) >= 3
        elif p.kind == "tile":
            slot = data["ask"]["slot"] - 1
            at_slot = {tiles[slot] for tiles in fitting}
            assert at_slot == {solution["tile"]}, p.id
            assert len(fitting) > 1, p.id  # not the whole hand known: a tile, not a declaration
        else:
            _check_question(p, fitting, found)


def _check_question(p: MadePuzzle, fitting: set[tuple[str, ...]], found: dict[str, Any]) -> None:
    data = p.data
    offered = [(o["card"], o["choice"]) for o in data["ask"]["options"]]
    face_up = data["position"]["face_up"]
    expected = [(c, ch) for c in face_up for ch in (CARDS[c].choices or (None,))]
    assert offered == expected and len(offered) >= 3
    options = data["explanation"]["options"]
    best = (data["solution"]["card"], data["solution"]["choice"])
    assert (options[0]["card"], options[0]["choice"]) == best
    assert options[0]["value"] - options[1]["value"] >= QUESTION_MARGIN - 1e-3, p.id
    assert data["explanation"]["candidates"] == len(fitting)
    for o in options:
        assert abs(sum(sp["share"] for sp in o["splits"]) + o["more"] - 1) < 1e-3
    # each answer's chance and the hands it leaves, listed world by world (every physical
    # arrangement once: the two green 5s are two tiles, as the solver counts them)
    others, worlds = found["others"], found["worlds"]
    for o in options:
        left: dict[str, set[tuple[str, ...]]] = defaultdict(set)
        seen: Counter[str] = Counter()
        for hands, target in worlds:
            key = json.dumps(
                {
                    str(s): answer(o["card"], _tiles(h), o["choice"])
                    for s, h in zip(others, hands, strict=True)
                }
            )
            left[key].add(target)
            seen[key] += 1
        for split in o["splits"]:
            key = json.dumps(split["answers"])
            assert len(left[key]) == split["left"], (p.id, o["card"])
            assert abs(seen[key] / len(worlds) - split["share"]) < 1e-4, (p.id, o["card"])


def test_the_public_part_gives_nothing_away(made: list[MadePuzzle]) -> None:
    for p in made:
        shown = BOOK.public(p.data)
        assert set(shown) == {"kind", "players", "position", "ask"}
        text = json.dumps(shown)
        for secret in ("solution", "explanation", "source", "seed"):
            assert secret not in text
        assert set(shown["position"]) == {"players", "seat", "hand", "face_up", "log"}
        assert all(c in cards_for(p.players) for c in shown["position"]["face_up"])


def test_the_solution_is_judged_right_and_others_wrong(made: list[MadePuzzle]) -> None:
    for p in made:
        s = p.data["solution"]
        if p.kind == "declare":
            right, wrong = (
                {"tiles": s["tiles"][::-1]},
                {"tiles": [*s["tiles"][:-1], _other(s["tiles"])]},
            )
        elif p.kind == "count":
            right = {"count": s["high"]}
            wrong = {"count": s["high"] + 1}
        elif p.kind == "tile":
            right, wrong = {"tile": s["tile"]}, {"tile": "R0" if s["tile"] != "R0" else "B0"}
        else:
            right = {"card": s["card"], "choice": s["choice"]}
            other = next(o for o in p.data["ask"]["options"] if o != right)
            wrong = other
        assert BOOK.judge(p.data, right).right, p.id
        verdict = BOOK.judge(p.data, wrong)
        assert not verdict.right, p.id
        assert verdict.solution == s and verdict.explanation == p.data["explanation"]


def _other(tiles: list[str]) -> str:
    return next(t for t in ("R0", "B0", "R1", "B1", "R9", "B9") if t not in tiles)


def test_the_same_seed_makes_the_same_puzzles(made: list[MadePuzzle]) -> None:
    again = make(3, SEED).puzzles
    assert [p.id for p in again] == [p.id for p in made[:3]]
    assert [p.data for p in again] == [p.data for p in made[:3]]
    assert make(3, SEED + 1).puzzles[0].id not in {p.id for p in made}


@pytest.mark.parametrize(
    ("kind", "bad", "says"),
    [
        ("declare", ["R1"], "JSON object"),
        ("declare", {"tiles": ["R1", "B1"]}, "exactly 5"),
        ("declare", {"tiles": ["R1", "B1", "X3", "B8", "R9"]}, "no such tile 'X3'"),
        ("declare", {"tiles": ["R1", "R1", "R3", "B8", "R9"]}, "more often than it exists"),
        ("declare", {"tiles": ["R1", "B1", "R3", "B8", "R9"], "x": 1}, "unknown field 'x'"),
        ("count", {"count": True}, "whole number"),
        ("count", {"count": -1}, "whole number"),
        ("count", {"count": "3"}, "whole number"),
        ("count", {}, "needs 'count'"),
        ("tile", {"tile": "G6"}, "no such tile"),
        ("question", {"card": "where_0", "choice": 1}, "one of the questions offered"),
        ("question", {"card": "red_sum", "choice": None}, "one of the questions offered"),
    ],
)
def test_a_malformed_answer_is_refused_precisely(kind: str, bad: Any, says: str) -> None:
    data = {
        "kind": kind,
        "players": 2,
        "ask": {
            "options": [{"card": "where_0", "choice": None}, {"card": "where_1or2", "choice": 1}]
        },
        "solution": {
            "tiles": ["R1", "B1", "R3", "B8", "R9"],
            "count": 4,
            "low": 4,
            "high": 4,
            "tile": "R3",
            "card": "where_0",
            "choice": None,
        },
        "explanation": {},
    }
    with pytest.raises(PuzzleAnswerError, match=says):
        BOOK.judge(data, bad)

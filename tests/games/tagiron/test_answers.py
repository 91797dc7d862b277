"""Every card's answer on every distinct hand, against a second, independent count."""

from __future__ import annotations

from itertools import combinations

import pytest

from bodoge.games.tagiron import answer
from bodoge.games.tagiron.answers import check_choice
from bodoge.games.tagiron.cards import CARDS, cards_for
from bodoge.games.tagiron.errors import BadChoice, UnknownCard
from bodoge.games.tagiron.tiles import ALL_TILES, TILE_CODES, sort_hand


def distinct_hands(size: int) -> list[tuple[str, ...]]:
    # Over physical tiles, then deduplicated: the two green 5s are alike.
    return sorted({sort_hand(h) for h in combinations(ALL_TILES, size)})


HANDS_5 = distinct_hands(5)
HANDS_4 = distinct_hands(4)


def reference(card: str, hand: tuple[str, ...], choice: int | None):
    """Straightforward counting, written apart from the engine's code."""
    nums = [int(t[1]) for t in hand]
    cols = [t[0] for t in hand]
    n = len(hand)
    if choice is not None:
        return [p for p in range(1, n + 1) if nums[p - 1] == choice]
    if card == "total_sum":
        return sum(nums)
    if card == "low3_sum":
        return nums[0] + nums[1] + nums[2]
    if card == "mid3_sum":
        return nums[1] + nums[2] + nums[3]
    if card == "high3_sum":
        return nums[n - 3] + nums[n - 2] + nums[n - 1]
    if card in ("red_sum", "blue_sum"):
        want = "R" if card == "red_sum" else "B"
        return sum(x for x, c in zip(nums, cols, strict=True) if c == want)
    if card in ("red_count", "blue_count"):
        return cols.count("R" if card == "red_count" else "B")
    if card == "max_minus_min":
        return nums[-1] - nums[0]  # the hand is sorted
    if card == "odd_count":
        return len([x for x in nums if x in (1, 3, 5, 7, 9)])
    if card == "even_count":
        return len([x for x in nums if x in (0, 2, 4, 6, 8)])
    if card == "pairs":
        return len([x for x in range(10) if nums.count(x) == 2])
    if card in ("where_0", "where_5"):
        return [p for p in range(1, n + 1) if nums[p - 1] == int(card[-1])]
    if card in ("same_colour_runs", "consecutive_runs"):
        runs, p = [], 0
        while p < n:
            q = p
            while q + 1 < n and (
                cols[q + 1] == cols[q] if card == "same_colour_runs" else nums[q + 1] == nums[q] + 1
            ):
                q += 1
            if q > p:
                runs.append([p + 1, q + 1])
            p = q + 1
        return runs
    if card == "centre_high_low":
        return "high" if nums[n // 2] > 4 else "low"
    raise AssertionError(card)


def asks(players: int) -> list[tuple[str, int | None]]:
    out: list[tuple[str, int | None]] = []
    for cid in cards_for(players):
        choices = CARDS[cid].choices
        out.extend((cid, c) for c in choices) if choices else out.append((cid, None))
    return out


def test_hand_counts() -> None:
    assert len(HANDS_5) == 12_444
    assert len(HANDS_4) == 4_029
    assert len(TILE_CODES) == 19


@pytest.mark.parametrize(("card", "choice"), asks(3))
def test_every_five_tile_hand(card: str, choice: int | None) -> None:
    for hand in HANDS_5:
        assert answer(card, hand, choice) == reference(card, hand, choice), hand


@pytest.mark.parametrize(("card", "choice"), asks(4))
def test_every_four_tile_hand(card: str, choice: int | None) -> None:
    for hand in HANDS_4:
        assert answer(card, hand, choice) == reference(card, hand, choice), hand


def test_worked_examples_from_the_rules() -> None:
    assert answer("red_sum", ["R1", "B1", "R3", "B8", "R9"]) == 13
    assert answer("max_minus_min", ["R0", "B2", "G5", "R6", "B6"]) == 6
    assert answer("consecutive_runs", ["R0", "B1", "G5", "R6", "B9"]) == [[1, 2], [3, 4]]


def test_readings_of_the_cards() -> None:
    # Green 5s are neither red nor blue.
    assert answer("red_count", ["G5", "G5", "R6", "B7", "R8"]) == 2
    assert answer("blue_sum", ["G5", "G5", "R6", "B7", "R8"]) == 7
    # Green counts as a colour for runs; equal numbers break a consecutive run.
    assert answer("same_colour_runs", ["R4", "G5", "G5", "R6", "B7"]) == [[2, 3]]
    assert answer("consecutive_runs", ["R3", "B3", "R4", "G5", "B9"]) == [[2, 4]]
    # 0 is even; pairs count numbers that appear twice.
    assert answer("even_count", ["R0", "B0", "R1", "B3", "R9"]) == 2
    assert answer("pairs", ["R0", "B0", "G5", "G5", "R9"]) == 2
    assert answer("centre_high_low", ["R0", "B1", "G5", "R6", "B9"]) == "high"
    assert answer("centre_high_low", ["R0", "B1", "R4", "R6", "B9"]) == "low"
    assert answer("where_1or2", ["R0", "B1", "R4", "R6", "B9"], choice=2) == []
    # 4-tile hands: the three smallest are 1–3, the three largest 2–4.
    assert answer("low3_sum", ["R1", "R2", "R3", "R9"]) == 6
    assert answer("high3_sum", ["R1", "R2", "R3", "R9"]) == 14


@pytest.mark.parametrize(
    ("card", "choice", "error"),
    [
        ("nope", None, UnknownCard),
        ("where_1or2", None, BadChoice),
        ("where_1or2", 3, BadChoice),
        ("where_1or2", True, BadChoice),
        ("red_sum", 1, BadChoice),
    ],
)
def test_bad_questions(card: str, choice: int | None, error: type[Exception]) -> None:
    with pytest.raises(error):
        check_choice(card, choice)
    with pytest.raises(error):
        answer(card, ["R1", "B1", "R3", "B8", "R9"], choice)


def test_twenty_one_cards_and_nineteen_with_four_players() -> None:
    assert len(cards_for(2)) == len(cards_for(3)) == 21
    assert set(cards_for(2)) - set(cards_for(4)) == {"mid3_sum", "centre_high_low"}
    assert all(c.ja and c.en for c in CARDS.values())

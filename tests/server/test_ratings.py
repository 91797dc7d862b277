"""Ratings: OpenSkill's Plackett–Luce against references computed by hand (Weng & Lin 2011,
Algorithm 4, with OpenSkill's ties and its additive dynamics τ)."""

from __future__ import annotations

import math

import pytest

from bodoge.server.services.ratings import (
    ANCHOR,
    DEFAULT,
    MU,
    SIGMA,
    Rating,
    Seat,
    provisional,
    ranks,
    rate,
    shown,
)

BETA = SIGMA / 2
TAU = MU / 300
KAPPA = 0.0001


def reference(mus: list[float], sigmas: list[float], rank: list[int]) -> list[tuple[float, float]]:
    """Plackett–Luce for one-player teams, written out from the paper, step by step."""
    n = len(mus)
    var = [s * s + TAU * TAU for s in sigmas]  # τ widens σ before the game
    c = math.sqrt(sum(v + BETA * BETA for v in var))
    e = [math.exp(m / c) for m in mus]
    # C_q: the sum over the teams that did not finish ahead of q; A_q: the teams tied with q.
    below = [sum(e[i] for i in range(n) if rank[i] >= rank[q]) for q in range(n)]
    tied = [sum(1 for i in range(n) if rank[i] == rank[q]) for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if rank[q] > rank[i]:
                continue
            share = e[i] / below[q]
            omega += ((1 - share) if q == i else -share) / tied[q]
            delta += share * (1 - share) / tied[q]
        gamma = math.sqrt(var[i]) / c
        omega *= var[i] / c
        delta *= gamma * var[i] / (c * c)
        out.append((mus[i] + omega, math.sqrt(var[i]) * math.sqrt(max(1 - delta, KAPPA))))
    return out


def test_two_newcomers_by_hand() -> None:
    # σ² = (25/3)² + (1/12)² = 69.45139, β² = (25/6)² = 17.36111, c² = 2 (σ² + β²) = 173.625.
    # c = 13.176684.  Equal μ: each share is 1/2.  The winner's Ω = σ²/c · 1/2 = 2.635389;
    # both Δ = 1/4 · (σ/c) · σ²/c² = 0.063247, so σ' = σ √(1 − Δ) = 8.065901.
    winner, loser = rate([Seat("p_a", DEFAULT), Seat("p_b", DEFAULT)], [1, 2])
    var = SIGMA**2 + TAU**2
    c = math.sqrt(2 * (var + BETA**2))
    assert c == pytest.approx(13.176684, abs=1e-6)
    assert winner.mu == pytest.approx(MU + 2.635389, abs=1e-6)
    assert loser.mu == pytest.approx(MU - 2.635389, abs=1e-6)
    delta = 0.25 * (math.sqrt(var) / c) * var / c**2
    assert delta == pytest.approx(0.063247, abs=1e-6)
    assert winner.sigma == loser.sigma == pytest.approx(8.065901, abs=1e-6)
    assert (winner.games, loser.games) == (1, 1)


def test_a_two_player_draw_moves_only_uncertainty() -> None:
    a, b = rate([Seat("p_a", DEFAULT), Seat("p_b", DEFAULT)], [1, 1])
    assert a.mu == pytest.approx(MU) and b.mu == pytest.approx(MU)
    assert a.sigma < SIGMA


CASES = {
    # 2 players, unequal: the weaker wins (Tagiron's final declaration wrong).
    "2 players": ([30.0, 22.0], [4.0, 7.0], [2, 1]),
    # 3 players: one declared right, two shared last place (Tagiron, cards ran out).
    "3 players, shared last": ([25.0, 27.0, 21.0], [8.3, 5.0, 6.0], [1, None, None]),
    # 4 players: first and second declared, the other two unranked.
    "4 players": ([25.0, 25.0, 28.0, 20.0], [8.33, 3.0, 4.5, 7.0], [2, None, 1, None]),
    # 8 players: Illustori, three shared wins.
    "8 players, shared wins": (
        [25.0, 30.0, 18.0, 22.0, 27.0, 25.0, 24.0, 26.0],
        [8.33, 2.0, 6.0, 5.5, 4.0, 8.33, 3.0, 7.0],
        [1, 2, 1, 2, 2, 2, 1, 2],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_rate_matches_the_reference(case: str) -> None:
    mus, sigmas, places = CASES[case]
    seats = [
        Seat(f"p_{i}", Rating(m, s, 3)) for i, (m, s) in enumerate(zip(mus, sigmas, strict=True))
    ]
    got = rate(seats, places)
    want = reference(mus, sigmas, ranks(places))
    for g, (mu, sigma) in zip(got, want, strict=True):
        assert g.mu == pytest.approx(mu, abs=1e-9)
        assert g.sigma == pytest.approx(sigma, abs=1e-9)
        assert g.games == 4
    # Shared places: equal ratings before, equal after.
    if case == "3 players, shared last":
        assert got[1].mu < 27.0 and got[2].mu < 21.0


def test_the_anchor_and_guests_never_move() -> None:
    seats = [
        Seat("p_a", DEFAULT),
        Seat("bot:expert", ANCHOR, fixed=True),
        Seat("p_guest", DEFAULT, fixed=True),
    ]
    after = rate(seats, [1, 2, 3])
    assert after[1] == ANCHOR and after[2] == DEFAULT
    want = reference([MU, ANCHOR.mu, MU], [SIGMA, ANCHOR.sigma, SIGMA], [1, 2, 3])
    assert after[0].mu == pytest.approx(want[0][0])


def test_one_number_and_a_provisional_mark() -> None:
    assert shown(DEFAULT) == 1000 and provisional(DEFAULT)
    settled = Rating(30.0, 3.0, 40)
    assert shown(settled) == 1000 + 40 * (30 - 9) and not provisional(settled)


def test_bad_places_are_refused() -> None:
    with pytest.raises(ValueError):
        rate([Seat("p_a", DEFAULT)], [1])
    with pytest.raises(ValueError):
        rate([Seat("p_a", DEFAULT), Seat("p_b", DEFAULT)], [1])

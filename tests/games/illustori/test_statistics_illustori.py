"""Illustori's statistics for profiles: words played, and those the table accepted."""

from __future__ import annotations

from bodoge.games.illustori import rules
from bodoge.games.illustori.game import IllustoriGame
from bodoge.games.illustori.moves import PlayCard, Vote
from tests.games.illustori.test_rules_illustori import HANDS3, started, table

GAME = IllustoriGame()


def test_words_played_and_accepted_by_each_seat() -> None:
    state = started(table(3, HANDS3))  # seat 0 gave the first word: not a played word
    state, _ = rules.apply(state, 1, PlayCard(5, "ヨット"))
    state, _ = rules.apply(state, 0, Vote(True))
    state, _ = rules.apply(state, 2, Vote(True))  # accepted
    state, _ = rules.apply(state, 2, PlayCard(10, "とけい"))
    state, _ = rules.apply(state, 0, Vote(False))
    state, _ = rules.apply(state, 1, Vote(False))  # turned down
    state, _ = rules.apply(state, 0, PlayCard(1, "トマト"))
    state, _ = rules.apply(state, 1, Vote(True))
    state, _ = rules.apply(state, 2, Vote(False))  # a tie passes
    state, _ = rules.apply(state, 1, PlayCard(6, "とかん"))  # ends with ん: a penalty
    assert [GAME.statistics(state, s) for s in range(3)] == [
        {"played": 1, "accepted": 1},
        {"played": 2, "accepted": 1},
        {"played": 1, "accepted": 0},
    ]


def test_every_counted_field_is_declared() -> None:
    counts = GAME.statistics(started(table(3, HANDS3)), 0)
    assert counts == {"played": 0, "accepted": 0}
    for field in GAME.stat_fields:
        assert all(k in counts for k in (field.of or (field.key,)))

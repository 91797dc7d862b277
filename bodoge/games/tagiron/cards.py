"""The 21 question cards: ids, texts in Japanese and English, and their kind.

Ids are stable: the protocol, the solver and the log all use them.

>>> CARDS["where_1or2"].choices
(1, 2)
>>> [c.id for c in CARDS.values() if c.shared]
['total_sum', 'max_minus_min', 'centre_high_low']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["number", "positions", "runs", "high_low"]


@dataclass(frozen=True)
class QuestionCard:
    id: str
    kind: Kind
    ja: str
    en: str
    shared: bool = False
    choices: tuple[int, int] | None = None

    def text(self, language: str) -> str:
        return self.ja if language == "ja" else self.en


_SHARED_JA = "【共有情報カード】"
_SHARED_EN = "[Shared] "

CARDS: dict[str, QuestionCard] = {
    card.id: card
    for card in (
        QuestionCard(
            "total_sum",
            "number",
            _SHARED_JA + "数字の合計は？",
            _SHARED_EN + "What is the sum of your tiles?",
            shared=True,
        ),
        QuestionCard(
            "low3_sum",
            "number",
            "小さい数から3枚の合計は？",
            "What is the sum of your three smallest tiles (from the left)?",
        ),
        QuestionCard(
            "mid3_sum",
            "number",
            "中央の3枚の合計は？",
            "What is the sum of your three middle tiles?",
        ),
        QuestionCard(
            "high3_sum",
            "number",
            "大きい数から3枚の合計は？",
            "What is the sum of your three largest tiles (from the right)?",
        ),
        QuestionCard("red_sum", "number", "赤の数の合計は？", "What is the sum of your red tiles?"),
        QuestionCard(
            "blue_sum", "number", "青の数の合計は？", "What is the sum of your blue tiles?"
        ),
        QuestionCard(
            "max_minus_min",
            "number",
            _SHARED_JA + "数字の最大から最小を引いた数は？",
            _SHARED_EN + "Your largest number minus your smallest?",
            shared=True,
        ),
        QuestionCard("odd_count", "number", "奇数は何枚ある？", "How many odd tiles do you have?"),
        QuestionCard(
            "even_count",
            "number",
            "偶数は何枚ある？（0も含む）",
            "How many even tiles do you have (0 is even)?",
        ),
        QuestionCard(
            "pairs",
            "number",
            "同じ数字タイルのペアは何組ある？",
            "How many pairs of the same number do you have?",
        ),
        QuestionCard("red_count", "number", "赤の数字タイルは何枚ある？", "How many red tiles?"),
        QuestionCard("blue_count", "number", "青の数字タイルは何枚ある？", "How many blue tiles?"),
        QuestionCard("where_0", "positions", "0はどこ？", "Where are your 0s?"),
        QuestionCard("where_5", "positions", "5はどこ？", "Where are your 5s?"),
        QuestionCard(
            "where_1or2",
            "positions",
            "1または2はどこ？（どちらか1つを選んで質問する）",
            "Where are your 1s or 2s? (the asker picks one number)",
            choices=(1, 2),
        ),
        QuestionCard(
            "where_3or4",
            "positions",
            "3または4はどこ？（どちらか1つを選んで質問する）",
            "Where are your 3s or 4s? (the asker picks one number)",
            choices=(3, 4),
        ),
        QuestionCard(
            "where_6or7",
            "positions",
            "6または7はどこ？（どちらか1つを選んで質問する）",
            "Where are your 6s or 7s? (the asker picks one number)",
            choices=(6, 7),
        ),
        QuestionCard(
            "where_8or9",
            "positions",
            "8または9はどこ？（どちらか1つを選んで質問する）",
            "Where are your 8s or 9s? (the asker picks one number)",
            choices=(8, 9),
        ),
        QuestionCard(
            "same_colour_runs",
            "runs",
            "同じ色が連続している数字タイルはどこ？",
            "Where are neighbouring tiles of the same colour?",
        ),
        QuestionCard(
            "consecutive_runs",
            "runs",
            "数が連続している数字タイルはどこ？",
            "Where are neighbouring tiles with consecutive numbers?",
        ),
        QuestionCard(
            "centre_high_low",
            "high_low",
            _SHARED_JA + "中央の数字タイルは5以上？4以下？",
            _SHARED_EN + "Is your middle tile 5 or more, or 4 or less?",
            shared=True,
        ),
    )
}

#: Cards left out of the 4-player game: a 4-tile hand has no middle tile.
REMOVED_IN_FOUR_PLAYERS = frozenset({"mid3_sum", "centre_high_low"})


def cards_for(players: int) -> tuple[str, ...]:
    """The question card ids in play for a player count (21, or 19 with 4 players)."""
    removed = REMOVED_IN_FOUR_PLAYERS if players == 4 else frozenset()
    return tuple(cid for cid in CARDS if cid not in removed)


def answering_seats(players: int, asker: int, card: str) -> tuple[int, ...]:
    """Who answers: the others, or everyone for a shared card and always with 4 players.

    >>> answering_seats(3, 1, "red_sum"), answering_seats(3, 1, "total_sum")
    ((0, 2), (0, 1, 2))
    """
    everyone = CARDS[card].shared or players == 4
    return tuple(s for s in range(players) if everyone or s != asker)

"""Tagiron (タギロン): tiles, question cards, rules, deduction and bots.

>>> from bodoge.games.tagiron import answer
>>> answer("pairs", ["R1", "B1", "G5", "G5", "R9"])
2
"""

from bodoge.games.tagiron.answers import answer

__all__ = ["answer"]

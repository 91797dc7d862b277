"""A larger labelled set for the bots' votes, split into a part to tune on and a part held out.

The fixed set of :mod:`.vote_cases` is small and the voter was shaped on it.
This set is larger — about 500 words per language on 32 cards
(``judge_cards.tsv``), most of them scenes and words the voter was never
shown — and each word is labelled with how a person at the table would take it:

* ``apt`` — it names the card or what its scene is about (``浜辺のゾウ``);
* ``defensible`` — loose, but resting on common knowledge a player can argue
  for (``イースター島`` for a moai, ``world cup`` for a dog on a football);
* ``unrelated`` — nothing to do with the card (``消しゴム``, ``stapler``);
* ``trap`` — unrelated, but containing the name of something on the card, in
  its letters or as part of a set phrase (``ゾウリムシ`` and ``冷蔵庫`` for an
  elephant, ``ベッドタウン`` for a bed, ``poker face``, ``fire drill``).

The labelled list was split once by a hash of (card, language, word) into
``judge_tune.tsv`` and ``judge_heldout.tsv``.  The voter and its association
table (:mod:`.associations`) are adjusted against the tune part only; the
held-out part is what ``bodoge illustori judge-eval`` reports and what
docs/rules/illustori.md quotes.  The tests hold the tune part to the goals and
the held-out part to a looser floor, so a change that only fits the tune part
shows up as a gap between the two.

>>> from collections import Counter
>>> sorted(Counter(c.expected for c in cases("heldout")))
['apt', 'defensible', 'trap', 'unrelated']
>>> len(cases("tune")) > 400 and len(cases("heldout")) > 400
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

from bodoge.core.rng import rng
from bodoge.games.illustori.bots import BOT_LEVELS, make_bot
from bodoge.games.illustori.cards import Card, from_plan
from bodoge.games.illustori.composition import Plan
from bodoge.games.illustori.vote_cases import stated_ends

__all__ = ["LABELS", "PARTS", "JudgeCase", "card_named", "cases", "rates", "rows"]

#: How a person would take a word.
LABELS = ("apt", "defensible", "unrelated", "trap")
#: The two parts of the set.
PARTS = ("tune", "heldout")


@dataclass(frozen=True)
class JudgeCase:
    """A card of the set, a word for it, and how a person would take the word."""

    card: str
    language: str
    expected: str
    word: str

    def stated(self) -> tuple[str | None, str | None]:
        """The first and last kana a player would state for ends that are not kana."""
        return stated_ends(self.word, self.language)


def _lines(name: str) -> list[list[str]]:
    text = resources.files(__package__).joinpath(name).read_text("utf-8")
    return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]


@cache
def _plans() -> dict[str, Plan]:
    plans = {}
    for name, kind, theme, subject, *others in _lines("judge_cards.tsv"):
        roles = dict(other.split("=", 1) for other in others)
        plans[name] = Plan(kind, theme, subject, **roles)
    return plans


@cache
def card_named(name: str) -> Card:
    """The card of the set called ``name`` (laid out once, always the same way)."""
    return from_plan(_plans()[name], rng(0, "judge-set", name))


@cache
def cases(part: str) -> tuple[JudgeCase, ...]:
    """The cases of one part (``tune`` or ``heldout``)."""
    if part not in PARTS:
        raise ValueError(f"the judge set has parts {PARTS}, not {part!r}")
    found = tuple(JudgeCase(*row) for row in _lines(f"judge_{part}.tsv"))
    for case in found:
        assert case.card in _plans() and case.expected in LABELS, case
    return found


def rates(part: str, level: str, language: str) -> dict[str, float]:
    """The share of OK votes a bot of ``level`` gives each label (its chance, averaged)."""
    bot = make_bot(level)
    out = {}
    for expected in LABELS:
        chosen = [c for c in cases(part) if c.expected == expected and c.language == language]
        chances = [
            bot.ok_chance(card_named(c.card), c.word, *c.stated(), c.language) for c in chosen
        ]
        out[expected] = sum(chances) / len(chances)
    return out


def rows(part: str, levels: tuple[str, ...] = BOT_LEVELS) -> list[tuple[str, str]]:
    """The rates as (what, how much) rows, by level and language, with the cases' counts."""
    out = []
    for level in levels:
        for language in ("ja", "en"):
            found = rates(part, level, language)
            counts = {
                e: sum(c.expected == e and c.language == language for c in cases(part))
                for e in LABELS
            }
            shown = ", ".join(f"{e} {100 * found[e]:.0f}% of {counts[e]}" for e in LABELS)
            out.append((f"{level}, {language}", shown))
    return out


def misjudged(part: str, level: str = "normal") -> list[tuple[JudgeCase, float]]:
    """The cases whose OK chance is on the wrong side of one half, worst first."""
    bot = make_bot(level)
    wrong = []
    for case in cases(part):
        chance = bot.ok_chance(card_named(case.card), case.word, *case.stated(), case.language)
        good = case.expected in ("apt", "defensible")
        if good != (chance > 0.5):
            wrong.append((case, chance))
    return sorted(wrong, key=lambda pair: (pair[0].language, pair[0].expected, pair[0].card))

"""What the things on the cards bring to mind, beyond CLDR's keywords.

CLDR's Japanese keywords are few (🐻 is クマ and 動物; the English ones know it
likes honey).  People at the table reach for an animal's cry, what it eats,
where it lives, a food's taste, a famous story or place, a saying: ``ケロケロ``
for a frog, ``はちみつ`` for a bear, ``イースター島`` for a moai, ``world cup``
for a football, ``三途の川`` for a skull.  These words are loose but
defensible: bots may say them (tier 3, see :mod:`.words`) and voters mostly let
them pass (:mod:`.meaning` matches them word by word).

The table is ``associations.tsv`` beside this module, hand-written for every
figure and thing of the catalogue (about ten words each, both languages) and
reviewed for the game; it was not tuned on the held-out part of the judge set
(:mod:`.judge_set`).  Lexical resources were measured first: ``wordfreq``
(57 MB, frequencies only, no associations) and the WordNet packages on PyPI
(they download their data at run time, which this server may not; WordNet has
no link from a moai to Easter Island either) do not answer the question.

>>> things("🐻", "ja")[:2]
('はちみつ', '冬眠')
>>> "world cup" in things("⚽", "en")
True
>>> things("🫥", "ja")
()
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from importlib import resources

__all__ = ["COMMON", "THEMES", "THINGS", "common", "theme_things", "things"]


def _key(char: str) -> str:
    # The variation selector is written in some places and not in others (🐿️, 🐿).
    return char.replace("\ufe0f", "")


@cache
def _table() -> dict[str, dict[str, tuple[str, ...]]]:
    text = resources.files(__package__).joinpath("associations.tsv").read_text("utf-8")
    table: dict[str, dict[str, tuple[str, ...]]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        chars, ja, en = line.split("\t")
        words = {"ja": tuple(ja.split("/")), "en": tuple(en.split("/"))}
        for char in chars.split():
            table[_key(char)] = words
    return table


#: Emoji (without variation selectors) -> words it brings to mind, by language.
THINGS: dict[str, dict[str, tuple[str, ...]]] = {k: v for k, v in _table().items() if "/" not in k}
#: Kind/theme of scene (``setting/sea``) -> what it brings to mind beyond its own loose words.
THEMES: dict[str, dict[str, tuple[str, ...]]] = {k: v for k, v in _table().items() if "/" in k}


def things(char: str, language: str) -> tuple[str, ...]:
    """What ``char`` brings to mind in ``language`` (``()`` if nothing is listed)."""
    return THINGS.get(_key(char), {}).get(language, ())


def theme_things(kind: str, theme: str, language: str) -> tuple[str, ...]:
    """What a kind of scene of ``theme`` brings to mind in ``language``.

    >>> "atlantis" in theme_things("setting", "sea", "en")
    True
    """
    return THEMES.get(f"{kind}/{theme}", {}).get(language, ())


#: A word listed for this many things and themes or more is common to too many cards
#: to say much about one (夏, 海, summer, sweet).
COMMON = 8


@cache
def common(language: str) -> frozenset[str]:
    """Words the table lists for :data:`COMMON` or more things and themes.

    Voters take them as they take any association; bots do not offer them as a
    card's association, or every beach, whale and crab would be called 海.

    >>> {"海", "夏"} <= common("ja"), "イースター島" in common("ja")
    (True, False)
    """
    counts = Counter(
        word
        for table in (THINGS, THEMES)
        for words in table.values()
        for word in set(words[language])
    )
    return frozenset(word for word, n in counts.items() if n >= COMMON)

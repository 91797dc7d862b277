"""A fixed test set for the bots' votes: words a person would find apt, defensible or unrelated.

Each :class:`VoteCase` is a hand-made card (a :class:`~.composition.Plan`)
and a word, with how a person at the table would take it:

* ``apt`` — it names the card or what its scene is about (``夜空のフクロウ``,
  ``penguin parade``);
* ``defensible`` — loose, but a player could argue for it (``ハロウィーン``
  for a ghost, ``honey`` for a bear); some of these the bots know as
  associations, some they do not;
* ``unrelated`` — it has nothing to do with the card (``みそしる`` for a frog
  on a rocket).

:func:`rates` gives the share of OK votes a bot level would give each group
(its chance of OK, averaged, so the figures do not wobble with a seed);
``bodoge illustori votes`` prints them and the tests hold them to the issue's
goals: the normal bot accepts the apt words, mostly accepts the defensible
ones and rejects the unrelated ones.

>>> r = rates("normal")
>>> r["apt"] >= 0.95, r["defensible"] > 0.5, r["unrelated"] <= 0.1
(True, True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from bodoge.core.rng import rng
from bodoge.games.illustori import kana
from bodoge.games.illustori.bots import make_bot
from bodoge.games.illustori.cards import Card, from_plan
from bodoge.games.illustori.composition import Plan
from bodoge.games.illustori.words import reading

__all__ = ["CASES", "CLASSES", "VoteCase", "case_card", "rates", "rows"]

#: How a person would take a word, from best to worst.
CLASSES = ("apt", "defensible", "unrelated")

# The cards of the test set, one of each kind of scene or so.
_CARDS: dict[str, Plan] = {
    "cactus in the desert": Plan("setting", "desert", "🌵"),
    "whale with a crown": Plan("dressed", "dressed", "🐳", wearable="👑"),
    "penguin parade": Plan("crowd", "parade", "🐧"),
    "scared face and a ghost": Plan("face", "scared", "😱", other="👻"),
    "cat and mouse in love": Plan("pair", "love", "🐱", other="🐭", mark="❤️"),
    "heart of strawberries": Plan("shape", "heart", "🍓"),
    "sleeping dog": Plan("sign", "sleep", "🐶", mark="💤"),
    "giant ant, tiny elephant": Plan("sizes", "sizes", "🐜", other="🐘"),
    "bear fishing": Plan("doing", "fishing", "🐻", mark="🎣"),
    "panda and baby": Plan("family", "family", "🐼"),
    "pig dreaming of cake": Plan("dream", "dream", "🐷", other="🍰", mark="💭"),
    "frog on a rocket": Plan("ride", "ride", "🐸", seat="🚀"),
    "owl at night": Plan("setting", "night", "🦉"),
    "no cats": Plan("sign", "forbidden", "🐈", mark="🚫"),
}


@dataclass(frozen=True)
class VoteCase:
    """A card of the test set, a word for it, and how a person would take the word."""

    card: str
    word: str
    expected: str
    language: str

    def stated(self) -> tuple[str | None, str | None]:
        """The first and last kana a player would state for ends that are not kana."""
        return stated_ends(self.word, self.language)


def stated_ends(word: str, language: str) -> tuple[str | None, str | None]:
    """The first and last kana a player would state for a Japanese word's ends that are
    not kana (``None`` where the word's own end is kana, and always in English)."""
    if language != "ja":
        return None, None
    spoken = reading(word)
    head = None if kana.first(word) else kana.first(spoken)
    tail = None if kana.last(word) else kana.last(spoken)
    return head, tail


def _cases(language: str, table: dict[str, tuple[str, str, str]]) -> tuple[VoteCase, ...]:
    return tuple(
        VoteCase(card, word, expected, language)
        for card, words in table.items()
        for expected, text in zip(CLASSES, words, strict=True)
        for word in text.split("/")
    )


# card: (apt words, defensible words, unrelated words), several separated by "/".
_JA = {
    "cactus in the desert": ("サボテン/砂漠", "のどが渇く/とげとげ", "こたつのふた"),
    "whale with a crown": ("王冠のクジラ/クジラ", "海の王様", "えんぴつけずり"),
    "penguin parade": ("ペンギンのパレード", "南極", "トマトソース"),
    "scared face and a ghost": ("こわいお化け/悲鳴", "ハロウィーン/肝試し", "ひまわり畑"),
    "cat and mouse in love": ("ネコとネズミ/ラブラブ", "バレンタイン/トムとジェリー", "自転車"),
    "heart of strawberries": ("いちごのハート", "甘酸っぱい", "ボウリング"),
    "sleeping dog": ("ねむいイヌ/おやすみ", "いびき/あくび", "かき氷"),
    "giant ant, tiny elephant": ("巨大なアリ/小さなゾウ", "怪獣", "つめきり"),
    "bear fishing": ("クマの釣り", "休日/はちみつ", "テレビ"),
    "panda and baby": ("パンダの親子/親子", "笹", "ゆうびんきょく"),
    "pig dreaming of cake": ("ケーキの夢/ブタの夢", "スイーツ", "サッカー"),
    "frog on a rocket": ("ロケットに乗ったカエル/発射", "ケロケロ/宇宙人", "みそしる"),
    "owl at night": ("夜空のフクロウ/星空", "月/ホーホー", "たこやき"),
    "no cats": ("ネコ禁止", "ペット", "エレベーター"),
}
_EN = {
    "cactus in the desert": ("cactus/desert", "thirsty/prickly", "garden hose"),
    "whale with a crown": ("crown whale/whale", "ocean/sea king", "pencil sharpener"),
    "penguin parade": ("penguin parade", "antarctica", "tomato sauce"),
    "scared face and a ghost": ("scary ghost/scream", "halloween/haunted", "sunflower field"),
    "cat and mouse in love": ("cat and mouse/romance", "valentine/tom and jerry", "bicycle pump"),
    "heart of strawberries": ("strawberry heart", "sweet", "bowling alley"),
    "sleeping dog": ("sleepy dog/nap", "bedtime/snoring", "shaved ice"),
    "giant ant, tiny elephant": ("giant ant/tiny elephant", "monster", "nail clipper"),
    "bear fishing": ("fishing bear", "honey/weekend", "remote control"),
    "panda and baby": ("panda family/baby", "bamboo", "post office"),
    "pig dreaming of cake": ("cake dream/dreaming pig", "dessert", "soccer ball"),
    "frog on a rocket": ("frog riding a rocket/launch", "croak/alien", "miso soup"),
    "owl at night": ("owl at night/night sky", "wise/moon", "traffic jam"),
    "no cats": ("no cats", "pet", "elevator"),
}

#: The test set: every case in both languages.
CASES: tuple[VoteCase, ...] = (*_cases("ja", _JA), *_cases("en", _EN))


@cache
def case_card(name: str) -> Card:
    """The card of the test set called ``name`` (laid out once, always the same way)."""
    return from_plan(_CARDS[name], rng(0, "vote-case", name))


def rates(level: str, language: str | None = None) -> dict[str, float]:
    """The share of OK votes a bot of ``level`` gives each class (its chance, averaged).

    ``language`` ``None`` takes both languages' cases together.
    """
    bot = make_bot(level)
    out = {}
    for expected in CLASSES:
        chosen = [c for c in CASES if c.expected == expected and language in (None, c.language)]
        chances = [
            bot.ok_chance(case_card(c.card), c.word, *c.stated(), c.language) for c in chosen
        ]
        out[expected] = sum(chances) / len(chances)
    return out


def rows(levels: tuple[str, ...] = ("normal", "easy")) -> list[tuple[str, str]]:
    """The rates as (what, how much) rows, by level and language, with the cases' counts."""
    out = []
    for level in levels:
        for language in ("ja", "en"):
            found = rates(level, language)
            counts = {e: sum(c.expected == e and c.language == language for c in CASES)
                      for e in CLASSES}  # fmt: skip
            shown = ", ".join(f"{e} {100 * found[e]:.0f}% of {counts[e]}" for e in CLASSES)
            out.append((f"{level}, {language}", shown))
    return out

"""Does a word speak of a card?  Matching by words, not by letters.

A voter at the table does not say OK because a word *contains* a name:
``ゾウリムシ`` (a paramecium) is not about an elephant, ``ベッドタウン`` (a
commuter town) not about a bed, ``poker face`` not about a crying face, and
``fire drill`` not about a fire engine.  So a word is cut into its words —
UniDic's short units via fugashi in Japanese (``ゾウリムシ`` is ``ゾウリ`` +
``ムシ``, never ``ゾウ`` + …), plain words in English — and a *key* (a name on
the card, a word of its scene, something it brings to mind) matches only a
run of whole words: by written form, by lemma (``乗っ`` is ``乗る``, ``ねむい``
is ``眠い``; ``dreaming`` is ``dream``, ``turtles`` is ``turtle``) or by how the
run reads (``しおふきくじら`` reads as ``潮吹きクジラ``).

Then every word of it must be accounted for.  The matched runs cover some;
particles, endings and modifiers (``大きな``, ``乗った``; ``big``, ``riding``,
``the``) may stand on their own; but a noun that no key covers (``タウン`` in
``ベッドタウン``, ``drill`` in ``fire drill``, ``歌`` in ``浜辺の歌``) means the
word is about something else, and it is not about the card.

:func:`judge` gives ``"apt"`` when a name or a scene word matched, ``"loose"``
when only what the card brings to mind did, and ``""`` otherwise.

>>> judge("ゾウリムシ", "ja", names=("ゾウ",), scene=(), loose=())
''
>>> judge("ねむいゾウ", "ja", names=("ゾウ",), scene=(), loose=())
'apt'
>>> judge("ベッドタウン", "ja", names=("ベッド",), scene=(), loose=("夢",))
''
>>> judge("poker face", "en", names=("crying face", "crying"), scene=("sad",), loose=())
''
>>> judge("world cup", "en", names=("dog", "football"), scene=(), loose=("world cup",))
'loose'
>>> judge("dogs riding a football", "en", names=("dog", "football"), scene=(), loose=())
'apt'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori import kana, lexicon

__all__ = ["Unit", "judge", "units"]


@dataclass(frozen=True)
class Unit:
    """One word of a text: how it is written, its lemma, how it reads, and whether it may
    stand unmatched (a particle, an ending, a modifier)."""

    written: str
    lemma: str
    said: str
    free: bool
    joining: bool
    #: The word as a noun is matched: its singular (turtles, turtle), never its stem
    #: (bearing is not bear).  In Japanese, the lemma.
    noun: str = ""


def _listed(text: str) -> frozenset[str]:
    """Words written as one string, space-separated (long lists read better so)."""
    return frozenset(text.split())


def _fold(text: str) -> str:
    return kana.normalize(text).casefold()


# -- Japanese -----------------------------------------------------------------------------

# Parts of speech that need no key: they join, end or colour a phrase (ねむい, 大きな,
# 乗った, とても); a noun or a pronoun names something and must be the card's.
_FREE_JA = frozenset(
    {"助詞", "助動詞", "補助記号", "記号", "空白", "動詞", "形容詞", "形状詞", "副詞",
     "連体詞", "感動詞", "接頭辞", "接続詞"}
)  # fmt: skip
_JOINING_JA = frozenset({"助詞", "助動詞", "補助記号", "記号", "空白"})
# Nouns that say where, who or how many rather than what: ネコの上, ブタさん, みんな.
_FREE_NOUNS_JA = _listed(
    """
    上 下 中 横 前 後ろ そば 隣 こと もの みんな 皆 たち 達 さん ちゃん くん 君 方 ほう 一緒
    時 とき 日 顔 気分 感じ 自分 僕 私 ぼく わたし 何 なに 大 小 子 ちび
    """
)


def _unit_ja(word: Any) -> Unit:  # a fugashi UnidicNode (untyped)
    feature = word.feature
    pos = feature.pos1
    surface = word.surface
    lemma = feature.lForm if not word.is_unk and feature.lForm else surface
    said = feature.kana if not word.is_unk and feature.kana else surface
    free = pos in _FREE_JA or feature.pos2 == "数詞" or surface in _FREE_NOUNS_JA
    # 車 in 救急車 and 島 in イースター島 are suffixes that name a thing: they need a key.
    if pos == "接尾辞" and feature.pos2 in ("名詞的", "普通名詞") and len(surface) == 1:
        free = surface in _FREE_NOUNS_JA
    elif pos == "接尾辞":
        free = True
    return Unit(_fold(surface), _fold(lemma), _fold(said), free, pos in _JOINING_JA, _fold(lemma))


@lru_cache(maxsize=65536)
def _units_ja(text: str) -> tuple[Unit, ...]:
    with lexicon._LOCK:
        found = [_unit_ja(w) for w in cat._tagger()(text)]
    return tuple(u for u in found if u.written.strip())


# -- English ------------------------------------------------------------------------------

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_JOINING_EN = _listed(
    """
    a an the of in on at and with to from by for into onto under over up down out off
    is are was be it its it's his her their my your our this that these those as or
    """
)
# Words that colour or join rather than name: a voter takes "big whale" or "whale
# riding a bus" for the whale, but "poker face" names a poker face.  Colours and
# heat are left out: they make set phrases of their own (hot dog, white elephant,
# red panda) and count only when the card brings them to mind (a red apple).
_FREE_EN = _listed(
    """
    big little small tiny giant huge large tall short long fat thin round old young new baby
    happy sad angry cute funny silly scary sleepy hungry lazy crazy brave shy proud lonely
    lucky cool wet dry good bad best great super very so too really just
    pretty ugly beautiful lovely nice fancy fluffy soft hard heavy light dark bright
    mr mrs miss one two three four five six seven eight nine ten many some all lot
    lots no not only own first last other another every more most
    riding ride rides rode wearing wear wears holding hold holds sitting sit sits having
    has have had going go goes went doing do does did being getting get gets got
    flying fly flies running run runs eating eat eats playing play plays looking look
    dancing dance jumping jump swimming swim sleeping sleep sleeps crying cry cries
    singing sing sings smiling smile laughing laugh waiting wait sees see saw meets meet
    loves love falling fall lost found time day together again away here there now
    """
)

_IRREGULAR_EN = {
    "overslept": "oversleep", "slept": "sleep", "ran": "run", "swam": "swim", "flew": "fly",
    "ate": "eat", "sang": "sing", "fell": "fall", "caught": "catch", "mice": "mouse",
    "geese": "goose", "teeth": "tooth", "feet": "foot", "wolves": "wolf", "leaves": "leaf",
    "knives": "knife", "children": "child", "people": "person", "women": "woman", "men": "man",
    "loaves": "loaf", "calves": "calf", "halves": "half", "shelves": "shelf", "dice": "die",
}  # fmt: skip


@cache
def _singular(word: str) -> str:
    """The singular of a plural noun (turtles, turtle; wolves, wolf), else the word."""
    if word in _IRREGULAR_EN:
        return _IRREGULAR_EN[word]
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    for end, keep in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"), ("s", "")):
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[: -len(end)] + keep
    return word


@cache
def _stem(word: str) -> str:
    """A crude stem, the same for both sides of a match: turtles, turtle; dreaming, dream."""
    if word in _IRREGULAR_EN:
        return _IRREGULAR_EN[word]
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    for end, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(end) and len(word) - len(end) >= 3:
            stem = word[: -len(end)] + keep
            if end in ("ing", "ed") and len(stem) > 3 and stem[-1] == stem[-2]:
                stem = stem[:-1]  # running, run; slipped, slip
            return stem.rstrip("e") if end in ("es",) else stem
    return word.rstrip("e") if len(word) > 4 else word


def _units_en(text: str) -> tuple[Unit, ...]:
    out = []
    for token in _TOKEN.findall(text.casefold().replace("-", " ")):
        stem = _stem(token)
        free = token in _FREE_EN or token.isdigit()
        joining = token in _JOINING_EN
        out.append(
            Unit(
                token,
                stem.rstrip("e"),
                stem.rstrip("e"),
                free or joining,
                joining,
                _singular(token),
            )
        )
    return tuple(out)


@lru_cache(maxsize=65536)
def units(text: str, language: str) -> tuple[Unit, ...]:
    """The words of ``text`` as :func:`judge` matches them.

    >>> [u.written for u in units("ゾウリムシ", "ja")]
    ['ぞうり', 'むし']
    >>> [(u.lemma, u.free) for u in units("fire drill", "en")]
    [('fir', False), ('drill', False)]
    """
    return _units_ja(text) if language == "ja" else _units_en(text)


# -- matching -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Key:
    lemmas: str
    said: str
    written: str
    whole: str
    nouns: str


@lru_cache(maxsize=65536)
def _key(text: str, language: str) -> _Key | None:
    found = list(units(text, language))
    # A key's own particles at either end (の山, をかぶった) do not need matching.
    while found and found[0].joining:
        found.pop(0)
    while found and found[-1].joining:
        found.pop()
    sep = " " if language == "en" else ""
    # Cut alone, a word may fall apart (ハット as ハッ + ト): as written whole, it
    # still matches the same letters cut as one word inside a phrase.
    whole = sep.join(u.written for u in units(text, language)) if language == "en" else _fold(text)
    if not found:
        return _Key(whole, whole, whole, whole, whole)
    return _Key(
        sep.join(u.lemma for u in found),
        sep.join(u.said for u in found),
        sep.join(u.written for u in found),
        whole,
        sep.join(u.noun for u in found),
    )


def _spans(
    word: Sequence[Unit], language: str, *, nouns: bool = False
) -> dict[str, list[tuple[int, int]]]:
    """Every run of whole words (not starting or ending with a particle) by its forms.

    With ``nouns`` only as written and in the singular: a name does not match a
    verb's stem (bearing is not a bear).
    """
    sep = " " if language == "en" else ""
    out: dict[str, list[tuple[int, int]]] = {}
    for i in range(len(word)):
        if word[i].joining:
            continue
        for j in range(i + 1, len(word) + 1):
            if word[j - 1].joining:
                continue
            run = word[i:j]
            forms = {sep.join(u.written for u in run), sep.join(u.noun for u in run)}
            if not nouns or language == "ja":
                forms |= {sep.join(u.lemma for u in run), sep.join(u.said for u in run)}
            for text in forms:
                out.setdefault(text, []).append((i, j))
    return out


def _one_kana(text: str) -> bool:
    return len(text) == 1 and kana.letter(text) is not None


def _matches(
    keys: Iterable[str],
    spans: dict[str, list[tuple[int, int]]],
    word: Sequence[Unit],
    language: str,
    *,
    nouns: bool = False,
) -> list[tuple[int, int]]:
    found = []
    for text in keys:
        key = _key(text, language)
        if key is None:
            continue
        # A name is a noun: matched as written or in the singular, not by a verb's stem.
        forms = {key.nouns, key.written, key.whole}
        if not nouns or language == "ja":
            forms |= {key.lemmas, key.said}
        for form in forms:
            # One kana read alone (歯 is は, 蚊 is か) is too many words' sound: only
            # the written form counts then.
            if language == "ja" and _one_kana(form) and form != key.written:
                continue
            if (
                language == "ja"
                and _one_kana(form)
                and not any(u.written == form and not u.free for u in word)
            ):
                continue
            found += spans.get(form, [])
    return found


def judge(
    word: str,
    language: str,
    *,
    names: Sequence[str],
    scene: Sequence[str],
    loose: Sequence[str],
) -> str:
    """``"apt"``, ``"loose"`` or ``""``: whether ``word`` speaks of the card (see above).

    ``names`` are what the things on the card are called, ``scene`` the words
    of its scene (both make a word apt), ``loose`` what it brings to mind.
    """
    found = units(word, language)
    if not found:
        return ""
    # The whole word as a key says it, however UniDic cuts it (パオーン, ぱおー + ん).
    whole = _fold(word.strip())
    if any(_fold(k) == whole for group in (names, scene) for k in group):
        return "apt"
    if any(_fold(k) == whole for k in loose):
        return "loose"
    spans = _spans(found, language)
    strong = _matches(names, _spans(found, language, nouns=True), found, language, nouns=True)
    strong += _matches(scene, spans, found, language)
    weak = _matches(loose, spans, found, language)
    if not strong and not weak:
        return ""
    covered = [u.free for u in found]
    for i, j in [*strong, *weak]:
        covered[i:j] = [True] * (j - i)
    if not all(covered):
        return ""  # a noun no key covers: the word is about something else
    return "apt" if strong else "loose"

"""Is it a word a person would say?  Dictionary checks for the bots' words, in two languages.

**Japanese** words are looked up in UniDic (the ``unidic-lite`` lexicon that
fugashi reads, already used for readings): a text is split into UniDic's
words, each with its part of speech.  **English** words are looked up in
the English word list of ``pyspellchecker`` (word frequencies counted from
film subtitles, a well-kept list of words people actually say); a word counts
when it was seen at least :data:`MIN_COUNT` times.

:func:`known` says whether every word of a text is in the dictionary (what a
bot asks of each word it may say).  :func:`wording` says more: whether the
text is a *dictionary word* (one entry, or a compound of nouns such as
``潮吹きクジラ`` or ``ice cream``) or a *natural phrase* — a short phrase
built the way people build them, such as ``夜空のクジラ``, ``ねむいネコ``,
``ネコがこわい``, ``whale at night`` — or neither (``ほげほげ``, ``whale the of``).
``bodoge illustori selfplay`` counts the bots' words with it.

>>> wording("潮吹きクジラ", "ja"), wording("夜空のクジラ", "ja"), wording("ほげほげ", "ja")
('word', 'phrase', '')
>>> wording("ice cream", "en"), wording("whale at night", "en"), wording("whale the of", "en")
('word', 'phrase', '')
>>> known("ぴかぴかのネコ", "ja"), known("zzxq", "en")
(True, False)
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from bodoge.games.illustori import emoji_catalogue as cat

__all__ = ["MAX_WORDS", "MIN_COUNT", "Token", "english_count", "known", "tokens", "wording"]

#: An English word seen fewer times than this in the word list is too rare to count.
MIN_COUNT = 50
#: A natural phrase has at most this many content words (nouns, verbs, adjectives…).
MAX_WORDS = 4

# The one lock on fugashi's tagger (words and meaning take it too).
_LOCK = cat.TAGGER_LOCK


@cache
def _english() -> Any:  # pyspellchecker's WordFrequency is not typed
    from spellchecker import SpellChecker

    return SpellChecker(language="en", distance=1).word_frequency


def english_count(word: str) -> int:
    """How often ``word`` (case aside) was seen in pyspellchecker's English list.

    >>> english_count("whale") > 1000, english_count("zzxq")
    (True, 0)
    """
    return int(_english()[word.casefold()])


# -- Japanese ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    """One UniDic word of a Japanese text: its surface, part of speech and conjugated form."""

    surface: str
    pos: str
    pos2: str
    form: str
    unknown: bool


@lru_cache(maxsize=65536)
def tokens(text: str) -> tuple[Token, ...]:
    """The UniDic words of ``text``.

    >>> [(t.surface, t.pos) for t in tokens("ネコの親子")]
    [('ネコ', '名詞'), ('の', '助詞'), ('親子', '名詞')]
    """
    with _LOCK:
        found = [
            Token(w.surface, w.feature.pos1, w.feature.pos2, w.feature.cForm, bool(w.is_unk))
            for w in cat._tagger()(text)
        ]
    return tuple(found)


# Parts of speech that carry meaning, and those that join them.
_CONTENT = frozenset({"名詞", "代名詞", "動詞", "形容詞", "形状詞", "副詞", "連体詞", "感動詞"})
_NOUNISH = frozenset({"名詞", "代名詞", "接頭辞", "接尾辞", "形状詞"})
# Particles a short noun phrase is made with: ネコの家, ネコと犬, ネコがこわい, 釣りをする,
# 雲に乗った, 花粉でくしゃみ.
_PARTICLES = frozenset({"の", "と", "が", "を", "に", "で", "は", "も", "な"})
# What a phrase may end with: a noun, an adjective or a verb (こわい, 眠る), a suffix (だらけ).
_ENDS = frozenset({"名詞", "代名詞", "接尾辞", "形容詞", "動詞", "形状詞"})


def _japanese(text: str) -> str:
    words = [t for t in tokens(text) if t.pos not in ("空白",)]
    if not words or any(t.unknown or t.pos in ("補助記号", "記号") for t in words):
        return ""
    content = [t for t in words if t.pos in _CONTENT]
    # One kana standing alone as a word is UniDic making the best of nonsense.
    if any(len(t.surface) == 1 and _is_kana(t.surface) for t in content) and len(words) > 1:
        return ""
    if len(words) == 1:
        return "word" if words[0].pos in _CONTENT or words[0].pos in _NOUNISH else ""
    if all(t.pos in _NOUNISH for t in words) and len(content) <= 3:
        return "word"  # a compound: 潮吹きクジラ, 巨大いちご, ネコ禁止
    if len(content) > MAX_WORDS or "感動詞" in {t.pos for t in words}:
        return ""
    if words[0].pos in ("助詞", "助動詞", "接尾辞") or words[-1].pos not in _ENDS:
        return ""
    for before, after in itertools.pairwise(words):
        if before.pos == "助詞" and after.pos in ("助詞", "助動詞"):
            return ""
    particles = [t.surface for t in words if t.pos == "助詞"]
    return "phrase" if all(p in _PARTICLES for p in particles) else ""


def _is_kana(text: str) -> bool:
    return all("\u3041" <= c <= "\u30ff" for c in text)


# -- English -----------------------------------------------------------------------------

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
# Words that join a phrase: a phrase never ends with one.
_JOINING = frozenset(
    {"a", "an", "the", "of", "in", "on", "at", "and", "with", "to", "from", "by", "for"}
)


def _english_word(word: str) -> bool:
    # A hyphenated word counts when the whole or each piece is a word (x-ray, jack-o-lantern).
    return english_count(word) >= MIN_COUNT or all(
        english_count(piece) >= MIN_COUNT or len(piece) == 1 for piece in word.split("-")
    )


@cache
def _names_en() -> frozenset[str]:
    return frozenset(cat.name_en(c).casefold() for c in cat.all_chars())


def _english_text(text: str) -> str:
    words = [w for w in re.split(r"[\s]+", text.casefold().strip()) if w]
    if not words or not all(re.fullmatch(r"[a-z'-]+", w) and _english_word(w) for w in words):
        return ""
    if len(words) == 1 or " ".join(words) in _names_en():
        return "word"  # one word, or the name of one thing (ice cream, spouting whale)
    content = [w for w in words if w not in _JOINING]
    if len(content) > MAX_WORDS or words[-1] in _JOINING - {"in", "on"} or words[0] in ("of",):
        return ""
    return "phrase"


# -- both --------------------------------------------------------------------------------


@lru_cache(maxsize=65536)
def wording(text: str, language: str) -> str:
    """``"word"`` for a dictionary word, ``"phrase"`` for a natural phrase, ``""`` otherwise."""
    text = text.strip()
    if not text:
        return ""
    return _japanese(text) if language == "ja" else _english_text(text)


@lru_cache(maxsize=65536)
def known(text: str, language: str) -> bool:
    """Whether every word of ``text`` is in the dictionary (UniDic, or the English list)."""
    if language == "ja":
        found = tokens(text.strip())
        return bool(found) and not any(t.unknown for t in found)
    words = _WORD.findall(text.casefold())
    return bool(words) and all(_english_word(w) for w in words)

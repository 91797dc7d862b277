"""The shiritori judge: does a word link to the one before, and is it a penalty?

Pure and table-free: :func:`judge` looks at one word and the word before it and
returns a :class:`Judgement`; the engine decides what a failure costs.

Words
    A word is free text (a sentence, an onomatopoeia, kanji allowed).  In
    Japanese only its first and last letters count, as kana (see
    :mod:`bodoge.games.illustori.kana` for how they are read: hiragana and
    katakana alike, small kana as large, dakuten optional, a final ``ー``
    skipped, spaces/punctuation/symbols/emoji at the ends skipped).  When a word
    does not begin (or end) with kana — ``東京タワー`` — the player states the
    first (or last) kana, as on Board Game Arena: ``head="と"``.  A stated head
    or tail may also be a whole reading (``tail="きょう"`` counts as ``う``, read
    by the same rules).  When the word begins with kana itself, its own letter is
    used and a stated head must be the same letter (dakuten aside), else the word
    is rejected with ``head_mismatch`` (likewise ``tail_mismatch``).  Both ends
    are always needed, even for the first word: every accepted word has a head
    and a tail.  Empty head/tail strings count as not given.

    In English (``language="en"``) only the letters a-z count (case and
    accents ignored: ``Café`` ends with ``e``), everything else is skipped; the
    next word starts with either of the last two letters (``cat`` → ``a`` or
    ``t``), and there is no ``ん`` rule.  An English word must hold a letter.

The previous word
    ``previous`` is ``None`` for the first word (it may start with anything),
    or the last accepted word as: an accepted :class:`Judgement`; a
    :class:`Word` ``(word, head, tail)``, where head and tail are only needed
    when the word does not give them itself (a plain 3-tuple is read as a
    ``Word``); or a plain string that gives its own tail.  A previous word that
    cannot give a tail is the caller's mistake: ``ValueError``.

Reasons, checked in this order (the first that applies is reported)
    ``empty``          nothing but spaces (or invisible characters);
    ``not_kana``       (ja) an end is not kana and no head/tail was stated for it
                       (the missing end is ``None`` in the judgement);
    ``no_letters``     (en) the word holds no letter a-z;
    ``head_mismatch``  a stated head names another letter than the word's own;
    ``tail_mismatch``  likewise for the tail;
    ``no_link``        the head is not one the previous word allows;
    ``ends_with_n``    (ja) the word ends with ``ん`` — a penalty;
    ``same_ends``      (``ban_same_ends``) head and tail are the same letter
                       (dakuten aside: ``ばなは`` too; a one-letter word too) — a penalty;
    ``banned_joint``   the tail's letter (dakuten aside) is in ``banned`` — a penalty;
    ``ok``             the word stands.

    The first six describe a word that cannot be played as given (the engine
    may refuse the move); the last three are :data:`PENALTIES` the rules punish
    (:attr:`Judgement.penalty`).

>>> judge(None, "つきよ").next_heads == frozenset("よ")
True
>>> j = judge("やかた", "だいこん")
>>> (j.ok, j.reason, j.head, j.tail, j.penalty)
(False, 'ends_with_n', 'だ', 'ん', True)
>>> sorted(judge(Word("東京タワー", head="と", tail="わ"), "わらっぱ").next_heads)
['は', 'ば', 'ぱ']
>>> judge("ぽてと", "トマト", ban_same_ends=True).reason
'same_ends'
>>> judge("ねこ", "cat", language="en").reason
Traceback (most recent call last):
...
ValueError: previous word 'ねこ' has no letter a-z
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import emoji

from bodoge.games.illustori import kana

__all__ = [
    "LANGUAGES",
    "PENALTIES",
    "Judgement",
    "Previous",
    "Reason",
    "Word",
    "ends",
    "judge",
    "next_heads",
]

LANGUAGES = ("ja", "en")


class Reason(StrEnum):
    """Why a word was judged as it was; the values are stable codes sent to clients."""

    OK = "ok"
    EMPTY = "empty"
    NOT_KANA = "not_kana"
    NO_LETTERS = "no_letters"
    HEAD_MISMATCH = "head_mismatch"
    TAIL_MISMATCH = "tail_mismatch"
    NO_LINK = "no_link"
    ENDS_WITH_N = "ends_with_n"
    SAME_ENDS = "same_ends"
    BANNED_JOINT = "banned_joint"


#: Reasons for a word that may be played but is punished (the card is discarded).
PENALTIES = frozenset({Reason.ENDS_WITH_N, Reason.SAME_ENDS, Reason.BANNED_JOINT})


@dataclass(frozen=True)
class Word:
    """A word as the chain keeps it: its text and, where it is not kana, its stated ends."""

    word: str
    head: str | None = None
    tail: str | None = None


@dataclass(frozen=True)
class Judgement:
    """The verdict on one word.

    ``head`` and ``tail`` are the letters actually used (hiragana or a-z;
    ``None`` when missing); ``next_heads`` the letters the next word may begin
    with, empty unless the word was accepted.
    """

    ok: bool
    reason: str
    word: str
    head: str | None
    tail: str | None
    next_heads: frozenset[str]
    language: str = "ja"

    @property
    def penalty(self) -> bool:
        """Whether the word may be played but is punished by the rules."""
        return self.reason in PENALTIES

    def as_word(self) -> Word:
        """The word to keep in the chain (and to pass later as ``previous``)."""
        return Word(self.word, self.head, self.tail)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form; ``next_heads`` in syllabary (or alphabet) order."""
        return {
            "ok": self.ok,
            "reason": self.reason,
            "word": self.word,
            "head": self.head,
            "tail": self.tail,
            "next_heads": sorted(self.next_heads),
        }


Previous = Judgement | Word | tuple[str, str | None, str | None] | str


def _language(language: str) -> str:
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; use one of {', '.join(LANGUAGES)}")
    return language


def _letters(text: str) -> str:
    """The English letters of ``text``, lower case, accents dropped."""
    text = unicodedata.normalize("NFKD", emoji.replace_emoji(text, "")).casefold()
    return "".join(char for char in text if "a" <= char <= "z")


def ends(word: str, language: str = "ja") -> tuple[str | None, str | None]:
    """The head and tail ``word`` gives by itself (``None`` where it does not).

    >>> ends("ばしゃ"), ends("東京タワー"), ends("ﾗｯﾊﾟ!"), ends("  It's 4 U. ", "en")
    (('ば', 'や'), (None, 'わ'), ('ら', 'ぱ'), ('i', 'u'))
    """
    if _language(language) == "en":
        letters = _letters(word)
        return (letters[0], letters[-1]) if letters else (None, None)
    return kana.first(word), kana.last(word)


def _stated(text: str | None, language: str, *, at_head: bool) -> str | None:
    """The letter a stated head or tail names (its first or last one); ``""`` if none."""
    if text is None or not text.strip():
        return None
    if language == "en":
        letters = _letters(text)
        found = (letters[:1] if at_head else letters[-1:]) or None
    else:
        found = kana.first(text) if at_head else kana.last(text)
    return found or ""


def _same(a: str, b: str, language: str) -> bool:
    return a == b if language == "en" else kana.same_family(a, b)


def next_heads(previous: Previous, language: str = "ja") -> frozenset[str]:
    """The letters a word may begin with after ``previous`` (see :func:`judge`).

    A Japanese tail alone is a word too, so this also maps a tail to its heads.

    >>> sorted(next_heads("やかた")), sorted(next_heads("ﾊﾟ"))
    (['た', 'だ'], ['は', 'ば', 'ぱ'])
    >>> sorted(next_heads(Word("Cat!"), "en"))
    ['a', 't']
    """
    language = _language(language)
    if isinstance(previous, Judgement):
        if not previous.ok:
            raise ValueError(
                f"previous word {previous.word!r} was not accepted ({previous.reason})"
            )
        if previous.language != language:
            raise ValueError(f"previous word {previous.word!r} was judged in {previous.language}")
        return previous.next_heads
    if isinstance(previous, str):
        previous = Word(previous)
    elif isinstance(previous, tuple):
        previous = Word(*previous)
    if not isinstance(previous, Word):
        raise TypeError(f"previous must be a Judgement, Word, tuple or str, not {previous!r}")
    if language == "en":
        letters = _letters(previous.word)
        if not letters:
            raise ValueError(f"previous word {previous.word!r} has no letter a-z")
        return frozenset(letters[-2:])
    own = kana.last(previous.word)
    stated = _stated(previous.tail, language, at_head=False)
    if own and stated and not kana.same_family(own, stated):
        raise ValueError(f"previous word {previous.word!r} ends with {own}, not {previous.tail!r}")
    tail = own or stated
    if not tail:
        raise ValueError(f"previous word {previous.word!r} has no kana tail; give Word(..., tail=)")
    return kana.family(tail)


def judge(
    previous: Previous | None,
    word: str,
    *,
    language: str = "ja",
    head: str | None = None,
    tail: str | None = None,
    banned: Iterable[str] = frozenset(),
    ban_same_ends: bool = False,
) -> Judgement:
    """Judge ``word`` played after ``previous`` (``None`` for the first word).

    ``head``/``tail`` are the player's stated first/last letters (needed when
    the word does not begin/end with kana); ``banned`` holds letters that have
    been joints already, any form (``"ダ"`` bans た and だ), for the rule that
    bans words ending in a used joint; ``ban_same_ends`` bans words whose
    first and last letters are the same.  Raises ``TypeError``/``ValueError``
    only for a caller's mistake (a non-string word, an unknown language, an
    unusable ``previous`` or ``banned`` entry); a bad word is a judgement.

    >>> judge("ラッパ", "ばなな").ok
    True
    >>> judge("ばしゃ", "ヤッホー", ban_same_ends=True, banned={"ﾎﾞ"}).reason
    'banned_joint'
    >>> judge(None, "日本", head="に").reason, judge(None, "日本", head="に", tail="ほん").reason
    ('not_kana', 'ends_with_n')
    >>> judge(None, "cook", language="en", ban_same_ends=False).next_heads == {"o", "k"}
    True
    """
    language = _language(language)
    if not isinstance(word, str):
        raise TypeError(f"a word is text, not {word!r}")
    allowed = None if previous is None else next_heads(previous, language)
    banned_keys = {_banned_key(entry, language) for entry in banned}
    reason, used_head, used_tail = _read(word, language, head, tail)
    if reason is None:
        assert used_head is not None and used_tail is not None  # _read gives both when no reason
        reason = _link(used_head, used_tail, language, allowed, banned_keys, ban_same_ends)
    heads = _heads_after(word, used_tail, language) if reason is Reason.OK else frozenset()
    return Judgement(reason is Reason.OK, str(reason), word, used_head, used_tail, heads, language)


def _read(
    word: str, language: str, head: str | None, tail: str | None
) -> tuple[Reason | None, str | None, str | None]:
    """The head and tail to judge ``word`` by, or why it cannot be played as given.

    The reason is one of the first five (``empty`` to ``tail_mismatch``) or
    ``None``, and the ends are those the judgement reports.
    """
    if not _visible(word):
        return Reason.EMPTY, None, None
    own_head, own_tail = ends(word, language)
    stated_head = _stated(head, language, at_head=True)
    stated_tail = _stated(tail, language, at_head=False)
    used_head = own_head or stated_head or None
    used_tail = own_tail or stated_tail or None
    if language == "en" and own_head is None:
        return Reason.NO_LETTERS, None, None
    if used_head is None or used_tail is None:
        return Reason.NOT_KANA, used_head, used_tail
    if own_head and stated_head is not None and not _same(own_head, stated_head, language):
        return Reason.HEAD_MISMATCH, used_head, used_tail
    if own_tail and stated_tail is not None and not _same(own_tail, stated_tail, language):
        return Reason.TAIL_MISMATCH, used_head, used_tail
    return None, used_head, used_tail


def _link(
    head: str,
    tail: str,
    language: str,
    allowed: frozenset[str] | None,
    banned_keys: set[str],
    ban_same_ends: bool,
) -> Reason:
    """Whether a readable word links to the one before (``no_link``) and breaks no rule
    the table plays with (the penalties), in the order :func:`judge` reports them."""
    if allowed is not None and not any(_same(head, h, language) for h in allowed):
        return Reason.NO_LINK
    if language == "ja" and kana.base(tail) == kana.N:
        return Reason.ENDS_WITH_N
    if ban_same_ends and _same(head, tail, language):
        return Reason.SAME_ENDS
    if _key(tail, language) in banned_keys:
        return Reason.BANNED_JOINT
    return Reason.OK


def _key(letter: str, language: str) -> str | None:
    return letter if language == "en" else kana.base(letter)


def _banned_key(entry: str, language: str) -> str:
    if not isinstance(entry, str):
        raise TypeError(f"a banned joint is a letter, not {entry!r}")
    found = _stated(entry, language, at_head=False)
    key = _key(found, language) if found else None
    if key is None:
        raise ValueError(f"banned joint {entry!r} is no {'letter' if language == 'en' else 'kana'}")
    return key


def _heads_after(word: str, tail: str | None, language: str) -> frozenset[str]:
    if language == "en":
        return frozenset(_letters(word)[-2:])
    return kana.family(tail) if tail else frozenset()


def _visible(text: str) -> bool:
    """Whether ``text`` holds anything but spaces and invisible (control/format) characters."""
    return any(unicodedata.category(char)[0] not in "ZC" for char in text)

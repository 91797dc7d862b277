"""Kana as a shiritori player counts them: one letter at each end of a word.

Everything here works on *letters* (文字), not sounds, as Illustori's rules do:

* katakana, hiragana and half-width katakana are the same letter; every letter
  is given back in hiragana (``ア``, ``ｱ`` and ``あ`` are all ``あ``), except
  ``ヷヸヹヺ``, which have no hiragana and stay as they are;
* a small kana is its large form (``ゃ`` is ``や``, ``っ`` is ``つ``, ``ヵ`` is
  ``か``, ``ヶ`` is ``け``, ``ゎ`` is ``わ``; also the rarer small kana such as ``ㇰ``);
* dakuten and handakuten may be added or dropped: a letter's *family* is the
  letter without them (``ば`` and ``ぱ`` are in the family of ``は``, ``ゔ`` in
  that of ``う``, ``ヷ`` in that of ``わ``);
* the old letters ``ゐ``, ``ゑ`` and ``を`` are read today as ``い``, ``え`` and
  ``お`` and share their families (a word ending in ``を`` may be followed by one
  starting with ``お``, and the other way round);
* the iteration marks ``ゝゞヽヾ`` at the end of a word repeat the letter before
  them (``いすゞ`` ends with ``ず``);
* the first and last *letters* of a text are found by skipping what is not
  read: spaces, punctuation, symbols, emoji, combining marks and long marks
  (``ー``, also ``〜``), at both ends.  Anything else at an end (kanji, Latin
  letters, digits, ``々``) is not kana: the player must say how it reads.

>>> letter("ｶﾞ"), letter("ッ"), letter("ヴ"), letter("漢")
('が', 'つ', 'ゔ', None)
>>> first("「ピッチャー！」"), last("「ピッチャー！」")
('ぴ', 'や')
>>> sorted(family("ぱ"))
['は', 'ば', 'ぱ']
"""

from __future__ import annotations

import unicodedata
from functools import cache

import emoji
import jaconv

__all__ = [
    "BASE",
    "N",
    "base",
    "family",
    "first",
    "last",
    "letter",
    "normalize",
    "same_family",
]

#: The 46 letters of the modern syllabary plus the old ゐ and ゑ: every kana
#: letter is one of these once its size and (han)dakuten are taken away.
BASE = frozenset(
    "あいうえお"
    "かきくけこ"
    "さしすせそ"
    "たちつてと"
    "なにぬねの"
    "はひふへほ"
    "まみむめも"
    "やゆよ"
    "らりるれろ"
    "わゐゑを"
    "ん"
)

#: The letter no word may end with in Japanese shiritori.
N = "ん"

_DAKUTEN = "\u3099"  # combining voiced sound mark
_HANDAKUTEN = "\u309a"  # combining semi-voiced sound mark
_OLD = {"ゐ": "い", "ゑ": "え", "を": "お"}
_REPEAT = {"ゝ": False, "ゞ": True}  # iteration mark -> voiced?  (ヽヾ arrive as ゝゞ)
_LONG = "ー"


def normalize(text: str) -> str:
    """Text in one form: emoji removed, NFKC (half-width kana made full), katakana as hiragana.

    >>> normalize("ﾊﾟﾝﾀﾞ🐼")
    'ぱんだ'
    """
    # Emoji go first, whole: keycaps and ZWJ sequences hold digits and joiners
    # that NFKC alone would leave behind.
    return jaconv.kata2hira(unicodedata.normalize("NFKC", emoji.replace_emoji(text, "")))


@cache
def letter(char: str) -> str | None:
    """The kana letter ``char`` is (hiragana, large, (han)dakuten kept), or ``None``.

    ``char`` is one character (a half-width pair such as ``ﾎﾟ`` is one too);
    katakana and half-width forms are accepted.

    >>> letter("ゃ"), letter("ヶ"), letter("ﾎﾟ"), letter("ー"), letter("a")
    ('や', 'け', 'ぽ', None, None)
    """
    text = normalize(char)
    if len(text) != 1:
        return None
    name = unicodedata.name(text, "")
    if " LETTER SMALL " in name:
        # Unicode names each small kana after its large form ("... SMALL TU").
        try:
            text = jaconv.kata2hira(unicodedata.lookup(name.replace("SMALL ", "", 1)))
        except KeyError:
            return None
    decomposed = unicodedata.normalize("NFD", text)
    if jaconv.kata2hira(decomposed[0]) not in BASE or set(decomposed[1:]) - {
        _DAKUTEN,
        _HANDAKUTEN,
    }:
        return None
    return text


def base(char: str) -> str | None:
    """The family a kana letter belongs to: its plain modern letter, or ``None``.

    >>> base("ぱ"), base("ゔ"), base("ヺ"), base("ゃ"), base("x")
    ('は', 'う', 'お', 'や', None)
    """
    folded = letter(char)
    if folded is None:
        return None
    plain = jaconv.kata2hira(unicodedata.normalize("NFD", folded)[0])
    return _OLD.get(plain, plain)


def family(char: str) -> frozenset[str]:
    """Every letter that links with ``char`` (empty if ``char`` is no kana).

    >>> sorted(family("た")), sorted(family("を"))
    (['た', 'だ'], ['お', 'を', 'ヺ'])
    """
    key = base(char)
    return _FAMILIES.get(key, frozenset()) if key else frozenset()


def same_family(a: str, b: str) -> bool:
    """Whether two kana letters link: ``は`` and ``ぱ`` do, ``じ`` and ``ぢ`` do not.

    >>> same_family("ば", "ぱ"), same_family("じ", "ぢ"), same_family("x", "x")
    (True, False, False)
    """
    key = base(a)
    return key is not None and key == base(b)


def _build_families() -> dict[str, frozenset[str]]:
    members: dict[str, set[str]] = {}
    for code in range(0x3041, 0x3100):
        char = chr(code)
        key = base(char)
        if key is not None:
            members.setdefault(key, set()).add(letter(char) or char)
    return {key: frozenset(chars) for key, chars in members.items()}


_FAMILIES = _build_families()


def _skipped(char: str) -> bool:
    """Whether ``char`` (already normalised) is passed over at the ends of a word."""
    # Letters (L*) and numbers (N*) are read aloud; the rest is decoration.
    # The long mark is a letter to Unicode (Lm) but not a kana to shiritori.
    return char == _LONG or unicodedata.category(char)[0] not in "LN"


def first(text: str) -> str | None:
    """The first kana letter of ``text``, or ``None`` if it does not begin with kana.

    >>> first("  ゃっほー"), first("東京タワー"), first("…ねこ")
    ('や', None, 'ね')
    """
    for char in normalize(text):
        if not _skipped(char):
            return letter(char)
    return None


def last(text: str) -> str | None:
    """The last kana letter of ``text``, or ``None`` if it does not end with kana.

    >>> last("ばしゃ"), last("ピッチャー"), last("つきよ！"), last("いすゞ"), last("東京")
    ('や', 'や', 'よ', 'ず', None)
    """
    chars = normalize(text)
    for index in range(len(chars) - 1, -1, -1):
        if not _skipped(chars[index]):
            return _repeat(chars, index)
    return None


def _repeat(chars: str, index: int) -> str | None:
    """The letter at ``chars[index]``, an iteration mark standing for the letter before it."""
    char = chars[index]
    if char not in _REPEAT:
        return letter(char)
    before = _repeat(chars, index - 1) if index > 0 else None
    if before is None:
        return None
    plain = jaconv.kata2hira(unicodedata.normalize("NFD", before)[0])
    if not _REPEAT[char]:
        return plain
    # Katakana, because ヷ (わ with dakuten) has no hiragana.
    voiced = letter(unicodedata.normalize("NFC", jaconv.hira2kata(plain) + _DAKUTEN))
    return voiced or plain

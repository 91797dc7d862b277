"""Words for Illustori's bots: what a person would call a card, and how a word relates to one.

A generated card knows what it shows (:mod:`.cards`): the things on it, each
with an English name, a Japanese name and its katakana reading, and its
kind of scene and theme, with the words people use for them
(:mod:`.scenes`).  From those this module builds the words a bot may give a
card, each a :class:`Candidate` with its first and last letters, in four
*tiers* (:data:`TIERS`):

0. **names** of the things on it: ``潮吹きクジラ``, its last noun ``クジラ``
   (a one-kanji name in kana too: ``もも``);
   ``spouting whale``, ``whale``, ``penguins`` for a crowd;
1. **scene words**: what the scene is about — its place, mood, action or
   bond — ``夜空``, ``恐怖``, ``釣り``, ``親子``; ``night sky``, ``fishing``;
2. **phrases** joining the two, as people say them: ``夜空のクジラ``,
   ``こわいオバケ``, ``ネコの親子``, ``王冠をかぶったクジラ``; ``whale at night``,
   ``scary ghost``, ``cat family``;
3. **associations**: what the things on it bring to mind, from Unicode CLDR's
   emoji keywords (:mod:`.annotations`): ``砂漠`` for a cactus, ``宇宙`` for a
   rocket; and what its scene brings to mind (``暑い`` for a desert).

Every word is looked up in the dictionary (:func:`.lexicon.known`: UniDic,
or pyspellchecker's English list) and dropped if it is not there; nothing is
padded with words that have nothing to do with the card.

In Japanese a word that begins (ends) with kanji says its first (last) kana:
:attr:`Candidate.head` and :attr:`Candidate.tail` are read from the parts'
readings (``王冠のクジラ`` begins with お), and :meth:`Candidate.stated` gives
what the move must state.

Uploaded (custom) decks have no names: :func:`generic_words` gives plain
words that reach every head letter.

:func:`relation` tells how a word relates to a card — ``apt`` (it names
something on it, or its scene), ``loose`` (an association), or not at all —
which is a voter's first question; :func:`plausible_reading` whether a
Japanese word's stated head and tail can be how it reads (the second).

>>> from bodoge.games.illustori.cards import _example
>>> whale = _example()
>>> words = card_candidates(whale, "ja")
>>> [c.text for c in words.phrases if c.tier == 0][:4]
['潮吹きクジラ', 'クジラ', '王冠']
>>> [c.text for c in words.phrases if c.tier == 2][:3]
['王冠の潮吹きクジラ', '王冠のクジラ', 'おしゃれな潮吹きクジラ']
>>> w = next(c for c in words.phrases if c.text == "王冠のクジラ")
>>> (w.head, w.tail, w.stated())
('お', 'ら', ('お', None))
>>> [relation(whale, word, "ja") for word in ("くじら", "王族", "ひまわり")]
['apt', 'loose', '']
>>> plausible_reading(whale, "王冠のクジラ", "お", "ら")
True
>>> plausible_reading(whale, "王冠", "き", "ん")
False
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache

import jaconv

from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori import kana, lexicon, meaning, scenes
from bodoge.games.illustori.annotations import keywords
from bodoge.games.illustori.associations import common, theme_things
from bodoge.games.illustori.associations import things as brought_to_mind
from bodoge.games.illustori.cards import Card, Part, card
from bodoge.games.illustori.rules import MAX_WORD

__all__ = [
    "GENERIC_EN",
    "GENERIC_JA",
    "TIERS",
    "Candidate",
    "CardWords",
    "card_candidates",
    "card_words",
    "generic_words",
    "letter_key",
    "next_letters",
    "openings",
    "plausible_reading",
    "reading",
    "relation",
    "stretch_words",
]

#: Names (0), scene words (1), phrases (2), associations (3).
TIERS = (0, 1, 2, 3)

# -- the vocabulary -------------------------------------------------------------------------


def _listed(text: str) -> tuple[str, ...]:
    """Words written as one string, space-separated (long lists read better so)."""
    return tuple(text.split())


#: Plain words for cards nobody named (uploaded decks): every kana family as a head.
GENERIC_JA = _listed(
    "あさがお あひる あめ あたま いちご いす イルカ いなずま うさぎ うみ うきわ "
    "うた えのぐ えだまめ えんぴつ えがお おにぎり おばけ おもちゃ おどり かがみ かめ "
    "かえる かぼちゃ きつね きのこ きつつき きもの くじら くつ くるま くもり けむし "
    "けいと けしごむ けむり コアラ こま こたつ こおり さかな さる さくら さいふ "
    "シカ しまうま しっぽ しずく すいか すずめ すべりだい すいとう せみ せなか "
    "セーター せかい そら そり そよかぜ そうじき たこ たまご たいこ たぬき ちず "
    "ちくわ ちりとり ちょうちょ つき つくえ つばめ つらら てがみ てぶくろ "
    "テント てつぼう とけい トマト とり とんぼ なす なべ なわとび なみだ "
    "にじ にもつ にわとり にく ぬいぐるみ ぬりえ ぬま ぬけがら ねこ ねずみ ねぎ ねじ "
    "のり のこぎり のはら のど はさみ はな はち はっぱ ひよこ ひまわり ひばり "
    "ひつじ ふね ふくろう ふえ ふた へび へや へそ へちま ほし ほうき ほたる ほね "
    "まくら まど まり まつり みず みみ みつばち みどり むし むぎ むら むかで "
    "めがね めだか めいろ めざまし もも もち もぐら もみじ やま やさい やぎ やまびこ "
    "ゆき ゆめ ゆび ゆかた よる ヨット よろい ようかい らっぱ らくだ ラッコ "
    "らくがき りす りゅう りか りょうり ルビー ルーペ るり るす れいぞうこ レタス "
    "レース れっしゃ ろうそく ロケット ろば ロボット わに わた わなげ わかめ"
)

#: Plain English words for cards nobody named.
GENERIC_EN = _listed(
    "apple anchor arrow acorn banana boat bridge button candle castle cloud comet drum dragon "
    "daisy desk eagle egg engine envelope feather forest flag fox ghost garden guitar globe "
    "hat honey harp hammer island igloo ink iron jelly jacket jar jungle kite kettle key "
    "koala lamp leaf lemon ladder moon mask mirror mango nest needle noodle night orange owl "
    "ocean onion pencil piano pillow pirate queen quilt quiz quail river robot rocket rainbow "
    "star sock spoon snail tiger tower train tulip umbrella unicorn uniform utensil violin "
    "volcano vase village whale window wagon wizard xylophone x-ray yacht yarn yogurt yak "
    "zebra zipper zoo zero"
)

# Last words of English names that name another thing: a fire engine is no engine, a
# crystal ball no ball, a money bag no bag, a bowl of ramen no bowl.
_OTHER_THING_EN = frozenset({"engine", "ball", "bag", "bowl", "cube", "popper", "pole", "stone",
                             "bat", "note", "notes"})  # fmt: skip
# Last words of names that name every face or mark alike: "face" is not a crying face.
_VAGUE_SHORT = frozenset({"face", "mark", "sign", "顔", "マーク"})
# Small words that name nothing on a card ("loaf of bread": loaf and bread do).
_STOP_EN = frozenset({"and", "the", "with", "for", "from", "one", "of"})

# CLDR keywords too general to say anything about a card (an animal, a face).
_VAGUE = frozenset(
    {
        "animal", "face", "nature", "object", "symbol", "man", "woman", "person", "people",
        "clothing", "clothes", "food", "comic", "other", "mark", "sign", "thing", "red",
        "動物", "顔", "記号", "マーク", "マンガ", "人", "食べ物", "植物", "衣類", "乗り物",
        "飲み物", "天気", "スポーツ", "その他", "生き物", "赤", "青", "白", "黒", "約物",
        "記号類",
    }
)  # fmt: skip

# Japanese particles and verbs that join two names in a phrase.
_SEAT_TA = {"in": "に入った", "on": "に乗った", "ride": "に乗った", "hang": "にぶら下がった"}
_SEAT_EN = {"in": "in", "on": "on", "ride": "riding", "hang": "hanging from"}

# fugashi's tagger is one MeCab instance; the server may run bots in threads.
# The same lock as lexicon's and meaning's: all three use the one tagger.
_TAGGER = lexicon._LOCK


# -- readings, forms and candidates ----------------------------------------------------------


def reading(text: str) -> str:
    """The katakana reading of Japanese ``text`` (UniDic via fugashi; kana kept as they are).

    >>> reading("王冠のクジラ")
    'オウカンノクジラ'
    """
    with _TAGGER:
        return cat.reading_of(text)


@dataclass(frozen=True)
class Form:
    """One way to write a name (or a joining word): its text and its first and last letters.

    ``own_head``/``own_tail`` say whether the text shows that letter itself;
    where it does not (kanji, a Latin letter), a move must state it.
    """

    text: str
    head: str
    tail: str
    own_head: bool = True
    own_tail: bool = True


@dataclass(frozen=True)
class Candidate:
    """A word a bot may give a card.

    ``head``/``tail`` are its first and last letters (hiragana, or a-z in
    English) as the word reads, ``tier`` what kind of word it is (see
    :data:`TIERS`).
    """

    text: str
    head: str
    tail: str
    tier: int
    own_head: bool = True
    own_tail: bool = True
    #: An association common to many cards (海, summer): a bot's last resort.
    common: bool = False

    def stated(self) -> tuple[str | None, str | None]:
        """The head and tail a move must state: only those the word does not show itself."""
        return (None if self.own_head else self.head, None if self.own_tail else self.tail)


@cache
def letter_key(letter: str, language: str) -> str:
    """The letter as linking counts it: its kana family (``ぱ`` → ``は``) or itself (a-z).

    >>> letter_key("ぱ", "ja"), letter_key("x", "en")
    ('は', 'x')
    """
    if language == "en":
        return letter
    key = kana.base(letter)
    return key if key is not None else letter


def _join(forms: Iterable[Form], tier: int) -> Candidate | None:
    forms = list(forms)
    text = "".join(f.text for f in forms)
    first, last = forms[0], forms[-1]
    if len(text) > MAX_WORD or not first.head or not last.tail:
        return None
    return Candidate(text, first.head, last.tail, tier, first.own_head, last.own_tail)


@lru_cache(maxsize=16384)
def _kana_form(text: str, spoken: str | None = None) -> Form | None:
    """A Japanese form whose missing ends are read from ``spoken`` (katakana or hiragana)."""
    own_head, own_tail = kana.first(text), kana.last(text)
    said = spoken if spoken is not None else text
    head, tail = kana.first(said), kana.last(said)
    if head is None or tail is None:
        return None
    # A name whose own kana contradict its reading would be refused as malformed.
    if own_head is not None and not kana.same_family(own_head, head):
        return None
    if own_tail is not None and not kana.same_family(own_tail, tail):
        return None
    return Form(
        text, own_head or head, own_tail or tail, own_head is not None, own_tail is not None
    )


@cache
def _plain(text: str) -> Form:
    """A word written in kana (or a-z), which shows its own letters.

    Only a word's first and last forms give its ends, so a joining word in
    the middle (``の``, `` and ``) needs no letters of its own.
    """
    form = _kana_form(text) if not text.isascii() else _english_form(text)
    return form if form is not None else Form(text, "", "")


@cache
def _short_ja(name: str, spoken: str) -> str | None:
    """The last noun of a compound name, when it names the thing alone (潮吹きクジラ → クジラ).

    >>> _short_ja("潮吹きクジラ", "シオフキクジラ"), _short_ja("段ボール箱", "ダンボールバコ")
    ('クジラ', '箱')
    >>> _short_ja("富士山", "フジサン"), _short_ja("お化け", "オバケ"), _short_ja("ネコ", "ネコ")
    (None, None, None)
    """
    with _TAGGER:
        words = list(cat._tagger()(name))
    if len(words) < 2 or words[0].feature.pos1 == "接頭辞" or words[-1].feature.pos1 != "名詞":
        return None
    short = words[-1].surface
    said = kana.normalize(reading(short))
    # One kana (巣, 木) names too little to stand alone; and the short name must
    # end the name as it is read (鳥 is トリ, but 七面鳥 ends チョウ; 箱 is ハコ,
    # 段ボール箱 ends バコ, which is the same but for the dakuten).
    whole = kana.normalize(spoken)
    if len(said) < 2 or not _plain_kana(whole).endswith(_plain_kana(said)):
        return None
    return short


def _plain_kana(text: str) -> str:
    """Kana without dakuten and small forms: ダンボールバコ → たんほーるはこ."""
    return "".join(kana.base(c) or c for c in text)


@cache
def _forms_ja(char: str) -> tuple[Form, ...]:
    """A part's Japanese forms: its name, its short name, and a name with kanji in hiragana.

    A name in katakana stays in katakana (フラミンゴ, never ふらみんご).
    """
    name, spoken = cat.name_ja(char), cat.reading_ja(char)
    found = [_kana_form(name, spoken)]
    if len(name) == 1 and not _is_kana(name):
        # One kanji is often written in kana (桃 as もも, 虹 as にじ); a longer name in
        # kana is no one's spelling (きんしまーく, えふで).
        found.append(_kana_form(jaconv.kata2hira(spoken)))
    short = _short_ja(name, spoken)
    if short is not None and short not in _VAGUE_SHORT:
        found.append(_kana_form(short, reading(short)))
    return _unique(f for f in found if f is not None)


@lru_cache(maxsize=16384)
def _english_form(text: str) -> Form | None:
    letters = [c for c in unicodedata.normalize("NFKD", text).casefold() if "a" <= c <= "z"]
    return Form(text, letters[0], letters[-1]) if letters else None


def _short_en(name: str) -> str | None:
    """The word of a longer name that names the thing (spouting whale → whale)."""
    words = name.split()
    if len(words) < 2:
        return None
    # "cup with straw" is a cup; "loaf of bread" is bread.
    word = words[0] if "with" in words else words[-1]
    if word.casefold() in _VAGUE_SHORT or word.casefold() in _OTHER_THING_EN:
        return None
    return word if len(word) >= 3 and word.casefold() not in _STOP_EN else None


@cache
def _forms_en(char: str) -> tuple[Form, ...]:
    name = cat.name_en(char)
    found = [_english_form(name)]
    if (short := _short_en(name)) is not None:
        found.append(_english_form(short))
    return _unique(f for f in found if f is not None)


def _unique(forms: Iterable[Form]) -> tuple[Form, ...]:
    seen: dict[str, Form] = {}
    for form in forms:
        seen.setdefault(form.text, form)
    return tuple(seen.values())


@lru_cache(maxsize=16384)
def _text_form(text: str, language: str) -> Form | None:
    """A word or a piece of a phrase frame, with the letters it begins and ends with."""
    if language == "en":
        return _english_form(text) or Form(text, "", "")
    if _is_kana(text):
        return _kana_form(text)
    return _kana_form(text, reading(text)) or Form(text, "", "")


def _written(forms: tuple[Form, ...]) -> tuple[Form, ...]:
    """Names as written (kanji, katakana): they read better in phrases than all-hiragana."""
    return tuple(f for f in forms if not _hiragana(f.text)) or forms


def _hiragana(text: str) -> bool:
    return all("\u3041" <= c <= "\u309f" or c == "ー" for c in text)


def _unique_words(words: Iterable[Candidate | None]) -> tuple[Candidate, ...]:
    seen: dict[str, Candidate] = {}
    for word in words:
        if word is not None:
            seen.setdefault(word.text, word)
    return tuple(seen.values())


# -- the words of a card --------------------------------------------------------------------

_SLOT = re.compile(r"\{(name|names|other)\}")


def _frame(frame: str, slots: dict[str, tuple[Form, ...]], language: str) -> Iterator[Candidate]:
    """The phrases a frame makes, its slots filled with every form of their names."""
    options: list[tuple[Form, ...]] = []
    # Split by the slots: plain text, a slot's name, plain text, … (odd places hold slots).
    for i, piece in enumerate(_SLOT.split(frame)):
        if i % 2:
            options.append(slots.get(piece, ()))
        elif piece:
            form = _text_form(piece, language)
            options.append((form,) if form is not None else ())
    if not all(options):
        return
    for chosen in _product(options):
        word = _join(chosen, 2)
        if word is not None:
            yield word


def _product(options: list[tuple[Form, ...]]) -> Iterator[tuple[Form, ...]]:
    if not options:
        yield ()
        return
    for first in options[0]:
        for rest in _product(options[1:]):
            yield (first, *rest)


def _other(shown: Card) -> Part | None:
    """The second thing a phrase may name: a partner, what a face fears, what is worn."""
    for role in ("other", "wearable", "held", "seat"):
        if (part := shown.part(role)) is not None:
            return part
    if shown.kind == "doing":
        return shown.part("mark")
    return None


def _scene_words(shown: Card, language: str) -> tuple[str, ...]:
    found = list(shown.scene.words[language])
    # A frame without a slot is a phrase of the scene's own (ねむい夜, sweet dreams).
    found += [f for f in shown.scene.frames[language] if not _SLOT.search(f)]
    if (seat := shown.part("seat")) is not None:
        found += scenes.SEAT_WORDS.get(seat.emoji, {}).get(language, ())
    return tuple(dict.fromkeys(found))


def _associations(shown: Card, language: str) -> tuple[str, ...]:
    """What the card brings to mind: its scene's loose words, its things' (CLDR's keywords too)."""
    names = {n.casefold() for p in shown.things() for n in (p.name_en, p.name_ja, p.reading_ja)}
    # As relation() reads them: an English word of two letters ("no") says too little.
    found = [w for w in shown.scene.loose[language] if language != "en" or len(w) >= 3]
    found += theme_things(shown.kind, shown.theme, language)
    for part in shown.things():
        found += brought_to_mind(part.emoji, language)
        for word in keywords(part.emoji, language):
            if word.casefold() in names or word in _VAGUE or len(word) < 2:
                continue
            if language == "en" and (len(word) < 3 or not lexicon.wording(word, "en")):
                continue  # "af", "bday": slang a player would not vouch for
            if language == "ja" and lexicon.wording(word, "ja") != "word":
                continue  # 雲形の吹き出し, 横を向いているひよこ: an emoji's official name
            found.append(word)
    return tuple(dict.fromkeys(w for w in found if w.casefold() not in names))


def _candidates(shown: Card, language: str) -> Iterator[Candidate | None]:
    ja = language == "ja"
    forms = _forms_ja if ja else _forms_en
    things = shown.things()
    for part in things:
        for form in forms(part.emoji):
            yield _join([form], 0)
    subject = shown.subject
    if not ja and shown.kind in ("crowd", "shape"):
        yield _join([_text_form(cat.plural_en(subject.emoji), "en")], 0)  # type: ignore[list-item]
    for word in _scene_words(shown, language):
        if (said := _text_form(word, language)) is not None:
            yield _join([said], 1)
    written = (lambda e: _written(_forms_ja(e))) if ja else _forms_en
    slots: dict[str, tuple[Form, ...]] = {"name": written(subject.emoji)}
    if (other := _other(shown)) is not None:
        slots["other"] = written(other.emoji)
    if not ja:
        plural = _english_form(cat.plural_en(subject.emoji))
        slots["names"] = (plural,) if plural is not None else ()
    for frame in shown.scene.frames[language]:
        if _SLOT.search(frame) and all(s in slots for s in _SLOT.findall(frame)):
            yield from _frame(frame, slots, language)
    if shown.kind in ("dressed", "ride"):
        yield from _verb_phrases(shown, language)
    plain = common(language)
    for word in _associations(shown, language):
        if (said := _text_form(word, language)) is not None and (found := _join([said], 3)):
            # 海 or summer, listed for many things: said only when nothing else will do.
            yield dataclasses.replace(found, common=word in plain)


def _verb_phrases(shown: Card, language: str) -> Iterator[Candidate | None]:
    """``王冠をかぶったクジラ``, ``whale wearing a crown``, ``cat riding a bus``."""
    thing = next((p for p in shown.parts if p.role in ("wearable", "held", "seat")), None)
    if thing is None:
        return
    if language == "ja":
        verb = _plain(_verb_ja(thing))
        for x in _written(_forms_ja(thing.emoji)):
            for y in _written(_forms_ja(shown.subject.emoji)):
                yield _join([x, verb, y], 2)
    else:
        for s in _forms_en(shown.subject.emoji):
            yield _join([s, _plain(_verb_en(thing))], 2)


def _verb_ja(part: Part) -> str:
    """How a companion goes with the subject: 王冠[をかぶった]クジラ, 湯飲み[に入った]クジラ."""
    if part.role == "wearable":
        return cat.wearable(part.emoji).verb[2]
    if part.role == "held":
        return "を持った"
    return _SEAT_TA[cat.seat(part.emoji).mode]


def _verb_en(part: Part) -> str:
    """`` wearing a crown``, `` holding a balloon``, `` riding a bus``."""
    name = cat.name_en(part.emoji)
    article = cat.article_en(part.emoji)
    thing = f"{article} {name}" if article else name
    if part.role == "wearable":
        return f" {cat.wearable(part.emoji).verb[0]} {thing}"
    if part.role == "held":
        return f" holding {thing}"
    return f" {_SEAT_EN[cat.seat(part.emoji).mode]} {thing}"


@dataclass(frozen=True)
class CardWords:
    """The words a bot knows for one card: ``phrases`` holds every tier (see :data:`TIERS`)."""

    language: str
    phrases: tuple[Candidate, ...]

    def tier(self, tier: int) -> tuple[Candidate, ...]:
        """The words of one tier."""
        return tuple(w for w in self.phrases if w.tier == tier)


def card_candidates(shown: Card, language: str) -> CardWords:
    """The words a bot may give ``shown``: every tier, each a dictionary word or phrase."""
    found = _unique_words(_candidates(shown, language))
    return CardWords(language, tuple(w for w in found if lexicon.known(w.text, language)))


@lru_cache(maxsize=1024)
def card_words(deck_seed: int, number: int, language: str) -> CardWords:
    """:func:`card_candidates` of card ``number`` of a generated deck (cached)."""
    return card_candidates(card(deck_seed, number), language)


#: The decks whose words tell how many words begin with each letter (see :func:`openings`).
REFERENCE_DECKS = range(4)


@cache
def openings(language: str, custom: bool = False) -> dict[str, float]:
    """The share of the bots' words that begin with each letter (its :func:`letter_key`).

    Counted over the words of the cards of :data:`REFERENCE_DECKS` (or the
    plain words of uploaded decks, with ``custom``): what a player knows of
    their language, that hardly a word begins with る (while ボール and 寝る
    end with it) and many with か.

    >>> ja = openings("ja")
    >>> ja["か"] > 0.02 and ja.get("る", 0) < 0.001
    True
    """
    if custom:
        words: Iterable[Candidate] = generic_words(language).phrases
    else:
        words = (
            w
            for seed in REFERENCE_DECKS
            for number in range(60)
            for w in card_words(seed, number, language).phrases
        )
    counts = Counter(letter_key(w.head, language) for w in words)
    total = counts.total()
    return {key: n / total for key, n in counts.items()}


def next_letters(word: Candidate, language: str) -> frozenset[str]:
    """The letters (keys) the word after ``word`` may begin with.

    >>> sorted(next_letters(Candidate("cat", "c", "t", 0), "en"))
    ['a', 't']
    """
    if language == "en":
        letters = [
            c for c in unicodedata.normalize("NFKD", word.text).casefold() if "a" <= c <= "z"
        ]
        return frozenset(letters[-2:])
    return frozenset({letter_key(word.tail, language)})


@cache
def generic_words(language: str) -> CardWords:
    """Words for a card whose picture has no known name: plain words (tier 0).

    >>> plain = generic_words("ja").phrases
    >>> {letter_key(c.head, "ja") for c in plain} >= set("あかさたなはまやらわ")
    True
    """
    words = GENERIC_JA if language == "ja" else GENERIC_EN
    return CardWords(language, tuple(c for w in words if (c := _join([_plain(w)], 0))))


@cache
def stretch_words(language: str) -> tuple[Candidate, ...]:
    """Plain words a bot says to stretch a point when the table cannot go on.

    The plain words of uploaded decks, then every name, scene word and
    association of the cards of :data:`REFERENCE_DECKS` (the words a bot
    knows at all; phrases are left out), each once: real words, which may
    happen to say something about a card in hand (:meth:`.bots.IllustoriBot.stretch`
    prefers those).

    >>> words = stretch_words("ja")
    >>> len(words) > len(generic_words("ja").phrases)
    True
    """
    known = (
        w
        for seed in REFERENCE_DECKS
        for number in range(60)
        for w in card_words(seed, number, language).phrases
        if w.tier in (0, 1, 3)
    )
    plain = (dataclasses.replace(w, tier=0) for w in known)
    return _unique_words([*generic_words(language).phrases, *plain])


# -- judging a word against a card --------------------------------------------------------


@lru_cache(maxsize=65536)
def _folded(text: str) -> str:
    """Text as names are compared: hiragana for kana, lower case, emoji and widths folded."""
    return kana.normalize(text).casefold()


def _is_kana(text: str) -> bool:
    return all(kana.letter(c) is not None or c == "ー" for c in text)


@cache
def _name_keys(char: str, language: str) -> tuple[str, ...]:
    """What a word may call this part: its name, reading, last noun, plural."""
    if language == "en":
        name = cat.name_en(char)
        found = [name, cat.plural_en(char)]
        if (short := _short_en(name)) is not None:
            found.append(short)
    else:
        name, spoken = cat.name_ja(char), cat.reading_ja(char)
        found = [name, spoken]
        if (short := _short_ja(name, spoken)) is not None:
            found.append(short)
    return tuple(dict.fromkeys(k for k in found if k and k.casefold() not in _VAGUE_SHORT))


@cache
def _scene_keys(kind: str, theme: str, seat: str | None, language: str) -> tuple[str, ...]:
    """The words of the scene: its theme's words and phrases, and what a seat is for."""
    words = list(scenes.theme(kind, theme).words[language])
    for frame in scenes.theme(kind, theme).frames[language]:
        # A phrase of the scene, or the words round its slots (the 山 of {name}の山,
        # the yucky of yucky {other}).
        words += [piece.strip() for piece in _SLOT.split(frame)[::2] if piece.strip()]
    if seat is not None:
        words += scenes.SEAT_WORDS.get(seat, {}).get(language, ())
    return tuple(dict.fromkeys(words))


@cache
def _association_keys(
    chars: tuple[str, ...], kind: str, theme: str, language: str
) -> tuple[str, ...]:
    found = [w for c in chars for w in keywords(c, language) if w not in _VAGUE]
    found += [w for c in chars for w in brought_to_mind(c, language)]
    found += scenes.theme(kind, theme).loose[language]
    found += theme_things(kind, theme, language)
    return tuple(dict.fromkeys(found))


@lru_cache(maxsize=4096)
def relation(shown: Card, word: str, language: str) -> str:
    """How ``word`` relates to the card: ``"apt"``, ``"loose"`` or ``""`` (not at all).

    *Apt*: it names something on the card (a name, its reading or last noun,
    or the emoji itself) or says what the scene is about (a word of its
    theme: its place, mood, action or bond).  *Loose*: it speaks of what the
    card brings to mind — the things' CLDR keywords, the association table
    (:mod:`.associations`), words loosely about the theme: ``砂漠`` for a
    cactus, ``はちみつ`` for a bear, ``イースター島`` for a moai.  Matching is by
    whole words (:mod:`.meaning`): a name inside a longer word (``ゾウリムシ``)
    or a word that also names something else (``ベッドタウン``, ``poker face``)
    is not about the card.
    """
    things = shown.things()
    if any(part.emoji in word for part in things):
        return "apt"
    names = [k for part in things for k in _name_keys(part.emoji, language)]
    seat = shown.part("seat")
    scene = _scene_keys(shown.kind, shown.theme, seat.emoji if seat else None, language)
    chars = tuple(p.emoji for p in things)
    named = {n.casefold() for n in names}
    # A name among the associations (CLDR lists 🐻 as bear) is matched as a name.
    loose = [k for k in _association_keys(chars, shown.kind, shown.theme, language)
             if k.casefold() not in named]  # fmt: skip
    return meaning.judge(word, language, names=names, scene=scene, loose=loose)


@lru_cache(maxsize=4096)
def plausible_reading(shown: Card, word: str, head: str | None, tail: str | None) -> bool:
    """Whether a Japanese word can read with the stated first and last kana.

    Only ends the word does not show in kana are in question.  The word is
    read by UniDic as it stands and with the card's names replaced by their
    readings (UniDic reads 富士山 as フジヤマ; the card says フジサン); an end
    no reading can decide (a Latin letter) is given the benefit of the doubt.
    """
    own_head, own_tail = kana.first(word), kana.last(word)
    if own_head is not None and own_tail is not None:
        return True
    replaced = word
    for part in sorted(shown.parts, key=lambda p: -len(p.name_ja)):
        replaced = replaced.replace(part.name_ja, cat.reading_ja(part.emoji))
    readings = {reading(word), reading(replaced)}

    def fits(stated: str | None, letters: set[str | None]) -> bool:
        if stated is None or None in letters:
            return True
        return any(kana.same_family(stated, found) for found in letters if found)

    head_ok = own_head is not None or fits(head, {kana.first(r) for r in readings})
    tail_ok = own_tail is not None or fits(tail, {kana.last(r) for r in readings})
    return head_ok and tail_ok

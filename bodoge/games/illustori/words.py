"""Words for Illustori's bots: what a card can be called, and whether a word names a card.

A generated card knows what it shows (:mod:`bodoge.games.illustori.cards`):
each part has an English name, a Japanese name and its katakana reading.  From
those this module builds every word a bot may give the card, each a
:class:`Candidate` with its first and last letters, in three *tiers*:

0. a part's name: ``潮吹きクジラ``, its last noun ``クジラ``, a name with kanji
   in hiragana ``しおふきくじら``; ``spouting whale``, ``whale``;
1. two parts together: ``王冠のクジラ``, ``しおふきくじらのおうかん``,
   ``王冠をかぶったクジラ``, ``湯飲みに入ったクジラ``; ``whale wearing a crown``,
   ``crown whale``, ``whale and teacup``;
2. a name dressed up to reach another letter: a word before it that gives
   the head (``ゆかいなクジラ``, ``jolly whale``) or a word after it that gives the
   tail (``クジラたち``, ``クジラがいる``, ``whale party``).

In Japanese a word that begins (ends) with kanji says its first (last) kana:
:attr:`Candidate.head` and :attr:`Candidate.tail` are read from the parts'
readings (``王冠のクジラ`` begins with お), and :meth:`Candidate.stated` gives
what the move must state.

Uploaded (custom) decks have no names: :func:`generic_words` gives plain
words that reach every head letter (and dresses them up like names).

:func:`names_card` tells whether a word names something on a card (a voter's
first question) and :func:`plausible_reading` whether a Japanese word's stated
head and tail can be how it reads (the second).

>>> from bodoge.games.illustori.cards import _example
>>> whale = _example()
>>> words = card_candidates(whale, "ja")
>>> [c.text for c in words.phrases if c.tier == 0][:4]
['潮吹きクジラ', 'しおふきくじら', 'クジラ', '王冠']
>>> [c.text for c in words.dressed(["ゆかいな"], ["たち"], heads={"ゆ"})]
['ゆかいな潮吹きクジラ', 'ゆかいなクジラ', 'ゆかいな王冠', 'ゆかいな湯飲み', '湯飲みたち']
>>> w = next(c for c in words.phrases if c.text == "王冠のクジラ")
>>> (w.head, w.tail, w.stated())
('お', 'ら', ('お', None))
>>> names_card(whale, "ゆかいなクジラ", "ja"), names_card(whale, "ひまわり", "ja")
(True, False)
>>> plausible_reading(whale, "王冠のクジラ", "お", "ら")
True
>>> plausible_reading(whale, "王冠", "き", "ん")
False
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache

import jaconv

from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori import kana
from bodoge.games.illustori.cards import Card, Part, card
from bodoge.games.illustori.rules import MAX_WORD

__all__ = [
    "GENERIC_EN",
    "GENERIC_JA",
    "MODIFIERS_EN",
    "MODIFIERS_JA",
    "SUFFIXES_EN",
    "SUFFIXES_JA",
    "TIERS",
    "Candidate",
    "CardWords",
    "card_candidates",
    "card_words",
    "generic_words",
    "letter_key",
    "names_card",
    "plausible_reading",
    "reading",
]

#: Names (0), two parts together (1), a name dressed up with another word (2).
TIERS = (0, 1, 2)

# -- the vocabulary -------------------------------------------------------------------------


def _listed(text: str) -> tuple[str, ...]:
    """Words written as one string, space-separated (long lists read better so)."""
    return tuple(text.split())


#: Words before a name that give it another head: one or two for every kana family.
MODIFIERS_JA = _listed(
    "あかるい あやしい いかした いじわるな うれしい うかれた えらい えがおの おおきな "
    "おしゃれな かわいい かっこいい きらきらの きげんのいい くいしんぼうの ぐうたらな "
    "げんきな けなげな こわい こまった さむそうな さびしい しあわせな じまんの "
    "すてきな ずるい せのたかい ぜいたくな そぼくな そっくりな たのしい だいすきな "
    "ちいさな ちゃめっけのある つよい つかれた てれやの でかい とくべつな どじな "
    "なぞの なかよしの にこにこの にぎやかな ぬれた ぬくぬくの ねむそうな ねぼけた "
    "のんきな のりのりの はずかしがりの ばかでかい ひまな びっくりした ふしぎな "
    "ぶきみな へんな へとへとの ほがらかな ぼろぼろの まじめな まぼろしの みんなの "
    "みどりの むかしの むてきの めずらしい めでたい もふもふの もりの やさしい "
    "やんちゃな ゆかいな ゆめの よくばりな よわい らくちんな らんぼうな りっぱな "
    "りりしい るんるんの るすばんの れいの れきしてきな ろまんちっくな ろうかの "
    "わがままな わんぱくな"
)

#: Words after a name that give it another tail (never ん).
SUFFIXES_JA = _listed(
    "たち がいる だよ かも みたい のえ です さま のゆめ だらけ ごっこ まつり "
    "のくに のうた のへや のさんぽ のひみつ のよる のおやこ のかお のおふろ のおどり "
    "のすみか のしっぽ のせかい のはなし のかくれが のくせ のあたま のほね のきせつ "
    "のむれ のうわさ のあくび のかぞく がきた のにおい のぬけがら のわすれもの のしわ "
    "のふゆ のて のあしあと にあう のおなべ のきもち のあさ のぬりえ のまね のおへそ"
)

#: Plain words for cards nobody named (uploaded decks): every kana family as a head.
GENERIC_JA = _listed(
    "あさがお あひる あめ あたま いちご いす いるか いなずま うさぎ うみ うきわ "
    "うた えのぐ えだ えんぴつ えがお おにぎり おばけ おもちゃ おどり かさ かめ "
    "かえる かぼちゃ きつね きのこ きって きもの くじら くつ くるま くもり けむし "
    "けいと けしごむ けむり こあら こま こたつ こおり さかな さる さくら さいふ "
    "しか しまうま しっぽ しずく すいか すずめ すべりだい すいとう せみ せなか "
    "せんぷうき せかい そら そり そよかぜ そうじき たこ たまご たいこ たぬき ちず "
    "ちくわ ちりとり ちょうちょ つき つくえ つばめ つらら てがみ てぶくろ "
    "てるてるぼうず てつぼう とけい とまと とり とんぼ なす なべ なわとび なみだ "
    "にじ にもつ にわとり にく ぬいぐるみ ぬりえ ぬま ぬの ねこ ねずみ ねぎ ねじ "
    "のり のこぎり のはら のど はさみ はな はち はっぱ ひよこ ひまわり ひこうき "
    "ひつじ ふね ふくろう ふえ ふた へび へや へそ へちま ほし ほうき ほたる ほね "
    "まくら まど まり まつり みず みみ みつばち みどり むし むぎ むら むかで "
    "めがね めだか めいろ めざまし もも もち もぐら もみじ やま やさい やぎ やね "
    "ゆき ゆめ ゆび ゆかた よる よっと よろい ようかい らっぱ らくだ らっこ "
    "らくがき りす りゅう りか りょうり るびい るうぺ るり るす れいぞうこ れたす "
    "れえす れっしゃ ろうそく ろけっと ろば ろぼっと わに わた わなげ わかめ"
)

#: English words before a name: every letter a-z as a head.
MODIFIERS_EN = _listed(
    "angry big cute dizzy eager funny giant happy icy jolly kind lucky magic noisy odd proud "
    "quiet royal sleepy tiny ugly vain wild x-ray young zany"
)

#: English words after a name that give it other last letters.
SUFFIXES_EN = (
    "party", "time", "dreams", "again", "at night", "club", "parade", "family", "show", "land",
    "world", "magic", "hero", "quiz", "nap", "picnic", "song", "ahoy", "fever", "alert",
)  # fmt: skip

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

# Small words that name nothing on a card ("loaf of bread": loaf and bread do).
_STOP_EN = frozenset({"and", "the", "with", "for", "from"})

# Japanese particles and verbs that join two names in tier 1.
_SEAT_TA = {"in": "に入った", "on": "に乗った", "ride": "に乗った", "hang": "にぶら下がった"}
_SEAT_EN = {"in": "in", "on": "on", "ride": "riding", "hang": "hanging from"}

# fugashi's tagger is one MeCab instance; the server may run bots in threads.
_TAGGER = threading.Lock()


def reading(text: str) -> str:
    """The katakana reading of Japanese ``text`` (UniDic via fugashi; kana kept as they are).

    >>> reading("王冠のクジラ")
    'オウカンノクジラ'
    """
    with _TAGGER:
        return cat.reading_of(text)


# -- forms and candidates -------------------------------------------------------------------


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
    English) as the word reads, ``tier`` how far it strays from a plain name
    (see :data:`TIERS`), ``affix`` the modifier or suffix that dresses a name up
    (tier 2).
    """

    text: str
    head: str
    tail: str
    tier: int
    own_head: bool = True
    own_tail: bool = True
    affix: str = ""

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


def _join(forms: Iterable[Form], tier: int, affix: str = "") -> Candidate | None:
    forms = list(forms)
    text = "".join(f.text for f in forms)
    if len(text) > MAX_WORD:
        return None
    first, last = forms[0], forms[-1]
    return Candidate(text, first.head, last.tail, tier, first.own_head, last.own_tail, affix)


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
    if not _is_kana(name):
        found.append(_kana_form(jaconv.kata2hira(spoken)))
    if (short := _short_ja(name, spoken)) is not None:
        found.append(_kana_form(short, reading(short)))
    return _unique(f for f in found if f is not None)


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


def _phrases_ja(parts: tuple[Part, ...]) -> Iterator[Candidate | None]:
    """Tiers 0 and 1 in Japanese: names, ``AのB`` and ``A[をかぶった]S``."""
    forms = {p.emoji: _forms_ja(p.emoji) for p in parts}
    spelled = {c: tuple(f for f in fs if _hiragana(f.text)) for c, fs in forms.items()}
    no = _plain("の")
    for part in parts:
        for form in forms[part.emoji]:
            yield _join([form], 0)
    for a in parts:
        for b in parts:
            if a is b:
                continue
            for x in _written(forms[a.emoji]):
                for y in _written(forms[b.emoji]):
                    yield _join([x, no, y], 1)
            for x in spelled[a.emoji]:
                for y in spelled[b.emoji]:
                    yield _join([x, no, y], 1)
            if b.role == "subject":
                for x in _written(forms[a.emoji]):
                    for y in _written(forms[b.emoji]):
                        yield _join([x, _plain(_verb_ja(a)), y], 1)


def _written(forms: tuple[Form, ...]) -> tuple[Form, ...]:
    """Names as written (kanji, katakana): they read better in phrases than all-hiragana."""
    return tuple(f for f in forms if not _hiragana(f.text)) or forms


def _hiragana(text: str) -> bool:
    return all("\u3041" <= c <= "\u309f" or c == "ー" for c in text)


def _verb_ja(part: Part) -> str:
    """How a companion goes with the subject: 王冠[をかぶった]クジラ, 湯飲み[に入った]クジラ."""
    if part.role == "wearable":
        return cat.wearable(part.emoji).verb[2]
    if part.role == "held":
        return "を持った"
    if part.role == "seat":
        return _SEAT_TA[cat.seat(part.emoji).mode]
    return "とならんだ"  # scenery: "standing with"


def _phrases_en(parts: tuple[Part, ...]) -> Iterator[Candidate | None]:
    """Tiers 0 and 1 in English: names, ``crown whale``, ``whale and crown``, ``whale in a cup``."""
    forms = {p.emoji: _forms_en(p.emoji) for p in parts}
    space, also = _plain(" "), _plain(" and ")
    for part in parts:
        for form in forms[part.emoji]:
            yield _join([form], 0)
    subject = next(p for p in parts if p.role == "subject")
    for a in parts:
        for b in parts:
            if a is b:
                continue
            for x in forms[a.emoji]:
                for y in forms[b.emoji]:
                    yield _join([x, space, y], 1)
                    yield _join([x, also, y], 1)
        if a is not subject:
            for s in forms[subject.emoji]:
                yield _join([s, _plain(_verb_en(a))], 1)


def _verb_en(part: Part) -> str:
    """`` wearing a crown``, `` riding a bus``, `` with a rainbow behind``."""
    thing = cat.name_en(part.emoji)
    article = cat.article_en(part.emoji)
    thing = f"{article} {thing}" if article else thing
    if part.role == "wearable":
        return f" {cat.wearable(part.emoji).verb[0]} {thing}"
    if part.role == "held":
        return f" holding {thing}"
    if part.role == "seat":
        return f" {_SEAT_EN[cat.seat(part.emoji).mode]} {thing}"
    return f" with {thing} behind"


def _unique_words(words: Iterable[Candidate | None]) -> tuple[Candidate, ...]:
    seen: dict[str, Candidate] = {}
    for word in words:
        if word is not None:
            seen.setdefault(word.text, word)
    return tuple(seen.values())


@dataclass(frozen=True)
class CardWords:
    """The words a bot knows for one card.

    ``phrases`` holds tiers 0 and 1; the dressed-up names of tier 2 (some
    hundred a card) are made on demand by :meth:`dressed`, for the modifiers
    and suffixes a bot thinks of and the heads it needs.
    """

    language: str
    phrases: tuple[Candidate, ...]
    names: tuple[Form, ...]

    def dressed(
        self,
        modifiers: Iterable[str] | None = None,
        suffixes: Iterable[str] | None = None,
        heads: Collection[str] | None = None,
    ) -> Iterator[Candidate]:
        """Tier 2: ``modifier + name`` and ``name + suffix`` (all of them by default).

        ``heads`` (letter keys, see :func:`letter_key`) keeps only words that begin so.
        """
        ja = self.language == "ja"
        modifiers = (MODIFIERS_JA if ja else MODIFIERS_EN) if modifiers is None else modifiers
        suffixes = (SUFFIXES_JA if ja else SUFFIXES_EN) if suffixes is None else suffixes
        gap = "" if ja else " "

        def begins(form: Form) -> bool:
            return heads is None or letter_key(form.head, self.language) in heads

        for modifier in modifiers:
            before = _plain(modifier + gap)
            if begins(before):
                for name in self.names:
                    if (word := _join([before, name], 2, modifier)) is not None:
                        yield word
        names = [name for name in self.names if begins(name)]
        for suffix in suffixes if names else ():
            after = _plain(gap + suffix)
            for name in names:
                if (word := _join([name, after], 2, suffix)) is not None:
                    yield word

    def all(self) -> tuple[Candidate, ...]:
        """Every word of every tier, each text once."""
        return _unique_words([*self.phrases, *self.dressed()])


def card_candidates(shown: Card, language: str) -> CardWords:
    """The words a bot may give ``shown``."""
    parts = shown.reading_order()
    if language == "ja":
        phrases = _unique_words(_phrases_ja(parts))
        names = _unique(f for p in parts for f in _written(_forms_ja(p.emoji)))
    else:
        phrases = _unique_words(_phrases_en(parts))
        names = _unique(f for p in parts for f in _forms_en(p.emoji))
    return CardWords(language, phrases, names)


@lru_cache(maxsize=1024)
def card_words(deck_seed: int, number: int, language: str) -> CardWords:
    """:func:`card_candidates` of card ``number`` of a generated deck (cached)."""
    return card_candidates(card(deck_seed, number), language)


@cache
def generic_words(language: str) -> CardWords:
    """Words for a card whose picture has no known name: plain words (tier 0), dressed up too.

    >>> plain = generic_words("ja").phrases
    >>> {letter_key(c.head, "ja") for c in plain} >= set("あかさたなはまやらわ")
    True
    """
    words = GENERIC_JA if language == "ja" else GENERIC_EN
    forms = tuple(_plain(w) for w in words)
    return CardWords(language, tuple(c for f in forms if (c := _join([f], 0))), forms)


# -- judging a word against a card --------------------------------------------------------


def _folded(text: str) -> str:
    """Text as names are compared: hiragana for kana, lower case, emoji and widths folded."""
    return kana.normalize(text).casefold()


def _is_kana(text: str) -> bool:
    return all(kana.letter(c) is not None or c == "ー" for c in text)


@cache
def _keys(char: str, language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What shows that a word names this part: strings found anywhere in it, or the whole of it.

    One kana (歯 is は) is found in far too many words to count inside one,
    but the word は itself names the tooth; one kanji is specific anywhere.
    """
    if language == "en":
        name = cat.name_en(char).casefold()
        words = [w for w in name.replace("-", " ").split() if len(w) >= 3 and w not in _STOP_EN]
        # A plural names the thing too ("books" in a name, "book" in the word).
        words += [w[:-1] for w in words if w.endswith("s") and len(w) > 3]
        return tuple(dict.fromkeys([name, *words])), ()
    texts = [cat.name_ja(char), cat.reading_ja(char)]
    if (short := _short_ja(cat.name_ja(char), cat.reading_ja(char))) is not None:
        texts += [short, reading(short)]
    folded = list(dict.fromkeys(_folded(t) for t in texts if t))
    inside = tuple(k for k in folded if len(k) >= 2 or not _is_kana(k))
    return inside, tuple(k for k in folded if k not in inside)


@lru_cache(maxsize=8192)
def _word_texts(word: str, language: str) -> tuple[str, ...]:
    if language == "en":
        return (unicodedata.normalize("NFKD", word).casefold(),)
    return (_folded(word), _folded(reading(word)))


def names_card(shown: Card, word: str, language: str) -> bool:
    """Whether ``word`` names something on the card: a part's name, reading or emoji.

    In Japanese the word's own reading counts too (``くじら`` and ``鯨`` both
    name a whale); in English any main word of a part's name does (``bread``
    for a loaf of bread).
    """
    texts = _word_texts(word, language)
    stripped = {text.strip() for text in texts}
    for part in shown.parts:
        if part.emoji in word:
            return True
        inside, whole = _keys(part.emoji, language)
        if any(key in text for key in inside for text in texts) or stripped & set(whole):
            return True
    return False


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

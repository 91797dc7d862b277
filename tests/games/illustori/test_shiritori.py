"""The shiritori judge: links, penalties, options, stated ends, English, and its API."""

from __future__ import annotations

import json
import string

import jaconv
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bodoge.games.illustori import shiritori
from bodoge.games.illustori.shiritori import (
    PENALTIES,
    Judgement,
    Reason,
    Word,
    ends,
    judge,
    next_heads,
)


def verdict(j: Judgement) -> tuple[object, ...]:
    """A judgement without the word's own text, to compare spellings of one word."""
    return (j.ok, j.reason, j.head, j.tail, j.next_heads)


# --- the examples of the rules (seed 004) -------------------------------------------


@pytest.mark.parametrize(
    ("word", "heads"),
    [
        ("つきよ", "よ"),
        ("ばしゃ", "や"),
        ("やかた", "ただ"),
        ("ラッパ", "はばぱ"),
        ("ピッチャー", "や"),
    ],
)
def test_rule_examples(word: str, heads: str) -> None:
    j = judge(None, word)
    assert (j.ok, j.reason) == (True, "ok")
    assert j.next_heads == frozenset(heads)
    for head in heads:
        assert judge(word, f"{head}ま").ok
    assert judge(word, "まど").reason == "no_link"


def test_tomato_with_the_same_ends_ban() -> None:
    assert judge("ぽてと", "トマト").ok
    j = judge("ぽてと", "トマト", ban_same_ends=True)
    assert (j.ok, j.reason, j.head, j.tail, j.penalty) == (False, "same_ends", "と", "と", True)
    assert j.next_heads == frozenset()


@pytest.mark.parametrize(
    "word", ["みかん", "ミカン", "ﾐｶﾝ", "みかんー", "みかん！", "ミカン🍊", "ん"]
)
def test_ending_with_n_is_a_penalty(word: str) -> None:
    j = judge(None, word)
    assert (j.ok, j.reason, j.tail, j.penalty) == (False, "ends_with_n", "ん", True)
    assert j.next_heads == frozenset()


def test_stated_n_tail_is_a_penalty_too() -> None:
    assert judge(None, "日本", head="に", tail="ン").reason == "ends_with_n"
    assert judge(None, "日本", head="に", tail="にほん").reason == "ends_with_n"


# --- linking ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("previous", "word", "reason"),
    [
        ("りんご", "ごりら", "ok"),
        ("りんご", "こま", "ok"),  # dakuten dropped
        ("すいか", "がっこう", "ok"),  # dakuten added
        ("ラッパ", "パンダ", "ok"),  # handakuten kept
        ("ﾗｯﾊﾟ", "ばなな", "ok"),  # half-width previous
        ("ラッパ", "ぴあの", "no_link"),  # ぱ's family is はばぱ, not ひ
        ("しか", "ガイコツ", "ok"),  # katakana word after hiragana
        ("ねっ", "ツミキ", "ok"),
        ("ねっ", "づかん", "ends_with_n"),  # links (つ/づ) but ends with ん
        ("ねっ", "すし", "no_link"),
        ("ちず", "すし", "ok"),
        ("ちず", "じしょ", "no_link"),  # ず and じ are different letters
        ("はなぢ", "じしょ", "no_link"),  # ぢ links with ち only
        ("はなぢ", "ちず", "ok"),
        ("こんにちは", "わに", "no_link"),  # letters, not sounds
        ("こんにちは", "はし", "ok"),
        ("ラヴ", "うし", "ok"),  # ヴ is ウ with dakuten
        ("ラヴ", "ぶた", "no_link"),
        ("かいを", "おに", "ok"),  # を reads お
        ("ねこを", "をかし", "ok"),
        ("みそ", "ぞう", "ok"),
        ("ゆきぃ", "いぬ", "ok"),
        ("しゅっ", "つくえ", "ok"),
        ("ヱビス", "すずめ", "ok"),
        ("かえ", "ヱビス", "ok"),  # ゑ reads え
    ],
)
def test_links(previous: str, word: str, reason: str) -> None:
    assert judge(previous, word).reason == reason


@pytest.mark.parametrize("word", ["ぬいぐるみ", "ゐど", "ゔぃーな", "ぁいう", "をかし", "んごろ"])
def test_the_first_word_may_start_with_anything(word: str) -> None:
    assert judge(None, word).ok


def test_stated_head_links_like_a_written_one() -> None:
    assert judge("ばしゃ", "野球", head="や", tail="う").ok
    assert judge("ばしゃ", "野球", head="ヤ", tail="ウ").ok
    assert judge("ばしゃ", "野球", head="やきゅう", tail="やきゅう").ok  # a whole reading
    assert judge("ばしゃ", "脚立", head="きゃたつ", tail="きゃたつ").reason == "no_link"


# --- what counts as a word's ends ---------------------------------------------------


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("「つきよ！」", ("つ", "よ")),
        ("つきよ。", ("つ", "よ")),
        ("  つきよ  ", ("つ", "よ")),
        ("\u3000つきよ\u3000", ("つ", "よ")),
        ("つきよ🌙", ("つ", "よ")),
        ("🌙✨つきよ👨‍👩‍👧", ("つ", "よ")),
        ("つきよ1️⃣", ("つ", "よ")),  # a keycap is an emoji
        ("つきよ!?", ("つ", "よ")),
        ("（つきよ）", ("つ", "よ")),
        ("…つきよ…", ("つ", "よ")),
        ("つきよ♪", ("つ", "よ")),
        ("つきよ\u200b", ("つ", "よ")),
        ("つき よ", ("つ", "よ")),
        ("つきよ2", ("つ", None)),  # a digit is read aloud: not skipped
        ("Aつきよ", (None, "よ")),
        ("つきよw", ("つ", None)),
        ("東京タワー", (None, "わ")),
        ("ごはん大盛り", ("ご", "り")),
        ("月夜", (None, None)),
        ("ーーー", (None, None)),
        ("！？", (None, None)),
        ("ガタンゴトン", ("が", "ん")),
        ("ﾊﾞｲｵﾘﾝ", ("ば", "ん")),
        ("ヴァイオリン", ("ゔ", "ん")),
    ],
)
def test_ends_skip_decoration(word: str, expected: tuple[str | None, str | None]) -> None:
    assert ends(word) == expected


@pytest.mark.parametrize(
    ("word", "head", "tail", "expected"),
    [
        ("東京タワー", "と", None, ("ok", "と", "わ")),
        ("東京タワー", "とうきょう", None, ("ok", "と", "わ")),
        ("東京タワー", "ト", "わ", ("ok", "と", "わ")),
        ("東京タワー", "ﾄﾞ", None, ("ok", "ど", "わ")),
        ("東京タワー", None, None, ("not_kana", None, "わ")),
        ("東京タワー", "", None, ("not_kana", None, "わ")),
        ("東京タワー", "  ", None, ("not_kana", None, "わ")),
        ("東京タワー", "to", None, ("not_kana", None, "わ")),
        ("東京タワー", "東", None, ("not_kana", None, "わ")),
        ("東京タワー", "と", "ば", ("tail_mismatch", "と", "わ")),
        ("東京タワー", "と", "ﾜ", ("ok", "と", "わ")),
        ("東京タワー", "と", "ヷ", ("ok", "と", "わ")),  # same letter, dakuten aside
        ("東京タワー", "と", "タワー", ("ok", "と", "わ")),
        ("月夜", "つ", None, ("not_kana", "つ", None)),
        ("月夜", None, "よ", ("not_kana", None, "よ")),
        ("月夜", "つ", "よ", ("ok", "つ", "よ")),
        ("月夜", "ツ", "ョ", ("ok", "つ", "よ")),
        ("月夜", "つきよ", "つきよ", ("ok", "つ", "よ")),
        ("月夜", "づ", "よー！", ("ok", "づ", "よ")),
        ("ばなな", "ば", "な", ("ok", "ば", "な")),
        ("ばなな", "ぱ", None, ("ok", "ば", "な")),  # same letter, dakuten aside
        ("ばなな", "は", None, ("ok", "ば", "な")),
        ("ばなな", "な", None, ("head_mismatch", "ば", "な")),
        ("ばなな", "x", None, ("head_mismatch", "ば", "な")),
        ("ばなな", None, "ね", ("tail_mismatch", "ば", "な")),
        ("ばしゃ", None, "しゃ", ("ok", "ば", "や")),
        ("ばしゃ", None, "ゃ", ("ok", "ば", "や")),
        ("ばしゃ", None, "し", ("tail_mismatch", "ば", "や")),
        ("こんにちは", None, "わ", ("tail_mismatch", "こ", "は")),
    ],
)
def test_stated_heads_and_tails(
    word: str, head: str | None, tail: str | None, expected: tuple[str, str | None, str | None]
) -> None:
    j = judge(None, word, head=head, tail=tail)
    assert (j.reason, j.head, j.tail) == expected
    assert j.ok == (expected[0] == "ok")


@pytest.mark.parametrize("word", ["", " ", "\u3000", "\n\t ", "\u200b", "\u200b \u2060"])
def test_empty_words(word: str) -> None:
    j = judge("ねこ", word, head="こ", tail="こ")
    assert (j.ok, j.reason, j.head, j.tail, j.next_heads) == (
        False,
        "empty",
        None,
        None,
        frozenset(),
    )
    assert not j.penalty


# --- options ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "same"),
    [
        ("トマト", True),
        ("とまと", True),
        ("ﾄﾏﾄ", True),
        ("しんぶんし", True),
        ("たけやぶやけた", True),
        ("ばなば", True),  # dakuten aside, as letters link
        ("ばなは", True),
        ("ぱなば", True),
        ("ゃまや", True),
        ("つまっ", True),
        ("いまゐ", True),
        ("き", True),  # one letter is its own first and last
        ("キー", True),
        ("とまど", True),
        ("トマトー！", True),
        ("とまこ", False),
        ("ちまじ", False),
    ],
)
def test_same_ends_ban(word: str, same: bool) -> None:
    assert judge(None, word).ok
    j = judge(None, word, ban_same_ends=True)
    assert j.reason == ("same_ends" if same else "ok")


def test_same_ends_ban_with_stated_ends() -> None:
    assert judge(None, "戸窓", head="と", tail="ど", ban_same_ends=True).reason == "same_ends"
    assert judge(None, "戸窓", head="と", tail="こ", ban_same_ends=True).reason == "ok"


@pytest.mark.parametrize(
    ("banned", "word", "reason"),
    [
        ({"た"}, "かた", "banned_joint"),
        ({"た"}, "かだ", "banned_joint"),  # dakuten aside
        ({"ダ"}, "かた", "banned_joint"),
        ({"ﾀﾞ"}, "カタ", "banned_joint"),
        ({"や"}, "ばしゃ", "banned_joint"),
        ({"ゃ"}, "かや", "banned_joint"),
        ({"お"}, "かを", "banned_joint"),
        ({"た"}, "たか", "ok"),  # only the tail counts
        ({"た", "か"}, "たこ", "ok"),
        (set(), "かた", "ok"),
        (frozenset("あいうえおかきくけこ"), "たち", "ok"),
        (["か", "か"], "たか", "banned_joint"),
    ],
)
def test_banned_joints(banned: set[str], word: str, reason: str) -> None:
    j = judge(None, word, banned=banned)
    assert j.reason == reason
    assert j.penalty == (reason != "ok")


def test_banned_joint_with_a_stated_tail() -> None:
    assert judge(None, "北", head="き", tail="た", banned={"た"}).reason == "banned_joint"


def test_checks_come_in_order() -> None:
    # no_link before every penalty
    assert judge("ねこ", "たいこん", ban_same_ends=True, banned={"ん"}).reason == "no_link"
    # ends_with_n before same_ends and banned_joint
    assert judge(None, "ん", ban_same_ends=True, banned={"ん"}).reason == "ends_with_n"
    # same_ends before banned_joint
    assert judge(None, "とまと", ban_same_ends=True, banned={"と"}).reason == "same_ends"
    # not_kana before no_link
    assert judge("ねこ", "東京").reason == "not_kana"
    # head_mismatch before tail_mismatch and no_link
    assert judge("ねこ", "かさ", head="ね", tail="き").reason == "head_mismatch"
    assert judge("ねこ", "かさ", tail="き").reason == "tail_mismatch"


def test_penalties() -> None:
    assert {"ends_with_n", "same_ends", "banned_joint"} == PENALTIES
    for reason in Reason:
        assert Judgement(False, reason, "", None, None, frozenset()).penalty == (
            reason in PENALTIES
        )


# --- English ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "head", "tail", "heads"),
    [
        ("cat", "c", "t", "at"),
        ("Cat!", "c", "t", "at"),
        ("  CAT  ", "c", "t", "at"),
        ("ice cream", "i", "m", "am"),
        ("It's 4 U.", "i", "u", "su"),
        ("café", "c", "e", "fe"),
        ("4ever", "e", "r", "er"),
        ("R2-D2", "r", "d", "rd"),
        ("a", "a", "a", "a"),
        ("zoo", "z", "o", "o"),
        ("ＣＡＴ", "c", "t", "at"),  # full-width letters
        ("🐱cat🐱", "c", "t", "at"),
        ("ねこcatねこ", "c", "t", "at"),
    ],
)
def test_english_words(word: str, head: str, tail: str, heads: str) -> None:
    assert ends(word, "en") == (head, tail)
    j = judge(None, word, language="en")
    assert (j.ok, j.head, j.tail, j.next_heads) == (True, head, tail, frozenset(heads))
    assert next_heads(word, "en") == frozenset(heads)


@pytest.mark.parametrize(
    ("previous", "word", "reason"),
    [
        ("cat", "tiger", "ok"),
        ("cat", "Tiger", "ok"),
        ("cat", "apple", "ok"),  # either of the last two letters
        ("CAT", "apple", "ok"),
        ("cat", "cow", "no_link"),
        ("cat", "dog", "no_link"),
        ("ice cream", "apple", "ok"),  # a, m across the space
        ("ice cream", "eel", "no_link"),
        ("a", "ant", "ok"),
        ("zoo", "owl", "ok"),
        ("zoo", "zebra", "no_link"),
        ("lemon", "nut", "ok"),
        ("cat", "anna", "ok"),
    ],
)
def test_english_links(previous: str, word: str, reason: str) -> None:
    assert judge(previous, word, language="en").reason == reason


def test_english_has_no_n_rule_but_the_options() -> None:
    assert judge(None, "lemon", language="en").ok
    assert judge(None, "Anna", language="en", ban_same_ends=True).reason == "same_ends"
    assert judge(None, "a", language="en", ban_same_ends=True).reason == "same_ends"
    assert judge(None, "and", language="en", ban_same_ends=True).reason == "ok"
    assert judge(None, "cat", language="en", banned={"T"}).reason == "banned_joint"
    assert judge(None, "cat", language="en", banned={"a"}).reason == "ok"


@pytest.mark.parametrize("word", ["123", "ねこ", "!?", "🐱", "東京"])
def test_english_words_need_a_letter(word: str) -> None:
    j = judge(None, word, language="en", head="c", tail="t")
    assert (j.ok, j.reason, j.head, j.tail) == (False, "no_letters", None, None)


def test_english_stated_ends_must_agree() -> None:
    assert judge(None, "cat", language="en", head="C", tail="t").ok
    assert judge(None, "cat", language="en", head="d").reason == "head_mismatch"
    assert judge(None, "cat", language="en", tail="a").reason == "tail_mismatch"


# --- the previous word, in each accepted form ---------------------------------------


@pytest.mark.parametrize(
    "previous",
    [
        "やかた",
        Word("やかた"),
        Word("やかた", "や", "た"),
        Word("屋形", "や", "た"),
        Word("屋形", "やかた", "やかた"),
        Word("屋形", None, "ダ"),
        ("屋形", "や", "た"),
        ("やかた", None, None),
        judge(None, "やかた"),
        judge(None, "屋形", head="や", tail="た"),
        "ﾀ",
    ],
)
def test_previous_word_forms(previous: shiritori.Previous) -> None:
    assert next_heads(previous) == frozenset("ただ")
    assert judge(previous, "だるま").ok
    assert judge(previous, "たぬき").ok
    assert judge(previous, "まど").reason == "no_link"


def test_as_word_round_trip() -> None:
    j = judge(None, "野球", head="やきゅう", tail="きゅう")
    assert j.as_word() == Word("野球", "や", "う")
    assert judge(j.as_word(), "うし").ok
    assert judge(j, "うし").ok


@pytest.mark.parametrize(
    ("previous", "error"),
    [
        ("東京", ValueError),  # gives no tail of its own
        (Word("東京"), ValueError),
        (Word("東京", tail="x"), ValueError),
        (Word("ねこ", tail="ぬ"), ValueError),  # contradicts its own tail
        (judge(None, "みかん"), ValueError),  # never accepted
        (judge(None, "cat", language="en"), ValueError),  # another language
        (42, TypeError),
    ],
)
def test_unusable_previous_words(previous: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        judge(previous, "ねこ")  # type: ignore[arg-type]


def test_caller_mistakes_raise() -> None:
    with pytest.raises(ValueError, match="unknown language"):
        judge(None, "ねこ", language="fr")
    with pytest.raises(ValueError, match="unknown language"):
        ends("ねこ", "fr")
    with pytest.raises(TypeError):
        judge(None, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="banned joint"):
        judge(None, "ねこ", banned={"x"})
    with pytest.raises(TypeError):
        judge(None, "ねこ", banned={1})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no letter"):
        judge("ねこ", "cat", language="en")


def test_judgement_is_frozen_and_serialises() -> None:
    j = judge("ばしゃ", "ヤッパ", ban_same_ends=True)
    with pytest.raises(AttributeError):
        j.ok = False  # type: ignore[misc]
    data = j.to_json()
    assert data == {
        "ok": True,
        "reason": "ok",
        "word": "ヤッパ",
        "head": "や",
        "tail": "ぱ",
        "next_heads": ["は", "ば", "ぱ"],
    }
    assert json.loads(json.dumps(data)) == data
    assert type(j.reason) is str


# --- properties ---------------------------------------------------------------------

KANA = "あいうえおかがきぎくぐけげこごさざしじすずせぜそぞただちぢつっづてでとどなにぬねの"
KANA += "はばぱひびぴふぶぷへべぺほぼぽまみむめもやゃゆゅよょらりるれろわをんぁぃぅぇぉゔー"
kana_words = st.text(alphabet=KANA, min_size=1, max_size=8)


@given(
    previous=kana_words,
    word=kana_words,
    same=st.booleans(),
    banned=st.sets(st.sampled_from(KANA[:-1])),
)
def test_scripts_and_widths_are_judged_alike(
    previous: str, word: str, same: bool, banned: set[str]
) -> None:
    try:
        expected = verdict(judge(previous, word, ban_same_ends=same, banned=banned))
    except ValueError:  # a previous word of long marks only
        return
    for form in (jaconv.hira2kata, jaconv.hira2hkata):
        assert verdict(judge(form(previous), form(word), ban_same_ends=same, banned=banned)) == (
            expected
        )


decoration = st.text(alphabet=" \u3000！？!?。、…「」（）・♪☆🌙🎉👨‍👩‍👧\u200b", max_size=4)


@given(word=kana_words, before=decoration, after=decoration)
def test_decoration_at_the_ends_changes_nothing(word: str, before: str, after: str) -> None:
    assert verdict(judge(None, before + word + after)) == verdict(judge(None, word))


@given(word=kana_words.filter(lambda w: w.strip("ー")))
def test_every_next_head_links_and_no_other(word: str) -> None:
    tail = ends(word)[1]
    assert tail is not None
    heads = next_heads(word)
    assert tail in heads
    for head in KANA.replace("ー", ""):
        letter = ends(head)[0]
        assert (judge(word, head + "ら").reason != "no_link") == (letter in heads)


english_text = st.text(alphabet=string.printable + "ねこ東éÅ", max_size=6)


@given(previous=english_text, word=english_text)
def test_english_ignores_case(previous: str, word: str) -> None:
    try:
        expected = verdict(judge(previous.lower(), word.lower(), language="en"))
    except ValueError:
        return
    assert verdict(judge(previous.upper(), word.upper(), language="en")) == expected


@given(
    word=st.text(max_size=8),
    head=st.none() | st.text(max_size=3),
    tail=st.none() | st.text(max_size=3),
    language=st.sampled_from(["ja", "en"]),
)
def test_any_text_gets_a_judgement(
    word: str, head: str | None, tail: str | None, language: str
) -> None:
    # Whatever a client sends, the judge answers (it raises only for the caller's mistakes).
    j = judge(None, word, head=head, tail=tail, language=language)
    assert j.reason in set(Reason)
    if j.ok:
        assert j.head and j.tail and j.tail in j.next_heads
        # A word of just the tail follows it (and is judged on its own ends).
        follower = judge(j, j.tail, language=language)
        assert follower.reason in {"ok", "same_ends", "ends_with_n"}
    else:
        assert j.next_heads == frozenset()

"""Every kana, one by one: which letter it is at each end of a word and what may follow it.

The expected tables are written out by hand (not computed), so that a change in
the reading of any single kana fails a test that names it.
"""

from __future__ import annotations

import unicodedata

import pytest

from bodoge.games.illustori import kana
from bodoge.games.illustori.shiritori import ends, judge, next_heads

HIRAGANA = (
    "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん"
)
KATAKANA = (
    "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲン"
)
HALF_WIDTH = "ｱｲｳｴｵｶｷｸｹｺｻｼｽｾｿﾀﾁﾂﾃﾄﾅﾆﾇﾈﾉﾊﾋﾌﾍﾎﾏﾐﾑﾒﾓﾔﾕﾖﾗﾘﾙﾚﾛﾜｦﾝ"

# The letters a word may start with after a word ending in each basic letter.
FAMILY = {
    "あ": "あ", "い": "いゐヸ", "う": "うゔ", "え": "えゑヹ", "お": "おをヺ",
    "か": "かが", "き": "きぎ", "く": "くぐ", "け": "けげ", "こ": "こご",
    "さ": "さざ", "し": "しじ", "す": "すず", "せ": "せぜ", "そ": "そぞ",
    "た": "ただ", "ち": "ちぢ", "つ": "つづ", "て": "てで", "と": "とど",
    "な": "な", "に": "に", "ぬ": "ぬ", "ね": "ね", "の": "の",
    "は": "はばぱ", "ひ": "ひびぴ", "ふ": "ふぶぷ", "へ": "へべぺ", "ほ": "ほぼぽ",
    "ま": "ま", "み": "み", "む": "む", "め": "め", "も": "も",
    "や": "や", "ゆ": "ゆ", "よ": "よ",
    "ら": "ら", "り": "り", "る": "る", "れ": "れ", "ろ": "ろ",
    "わ": "わヷ", "を": "おをヺ", "ん": "ん",
}  # fmt: skip
NEXT = {**FAMILY, "ゐ": FAMILY["い"], "ゑ": FAMILY["え"]}

# (hiragana, katakana, half-width, plain letter) for every voiced and semi-voiced kana.
VOICED = [
    *zip(
        "がぎぐげござじずぜぞだぢづでどばびぶべぼ",
        "ガギグゲゴザジズゼゾダヂヅデドバビブベボ",
        # Half-width dakuten is a character of its own.
        [half + "ﾞ" for half in "ｶｷｸｹｺｻｼｽｾｿﾀﾁﾂﾃﾄﾊﾋﾌﾍﾎ"],
        "かきくけこさしすせそたちつてとはひふへほ",
        strict=True,
    ),
    *zip("ぱぴぷぺぽ", "パピプペポ", [half + "ﾟ" for half in "ﾊﾋﾌﾍﾎ"], "はひふへほ", strict=True),
    ("ゔ", "ヴ", "ｳﾞ", "う"),
]

# Small kana and the large letter each one counts as.
SMALL = {
    "ぁ": "あ", "ぃ": "い", "ぅ": "う", "ぇ": "え", "ぉ": "お",
    "っ": "つ", "ゃ": "や", "ゅ": "ゆ", "ょ": "よ", "ゎ": "わ", "ゕ": "か", "ゖ": "け",
    "ァ": "あ", "ィ": "い", "ゥ": "う", "ェ": "え", "ォ": "お",
    "ッ": "つ", "ャ": "や", "ュ": "ゆ", "ョ": "よ", "ヮ": "わ", "ヵ": "か", "ヶ": "け",
    "ｧ": "あ", "ｨ": "い", "ｩ": "う", "ｪ": "え", "ｫ": "お",
    "ｯ": "つ", "ｬ": "や", "ｭ": "ゆ", "ｮ": "よ",
    "ㇰ": "く", "ㇱ": "し", "ㇲ": "す", "ㇳ": "と", "ㇴ": "ぬ", "ㇵ": "は", "ㇶ": "ひ",
    "ㇷ": "ふ", "ㇸ": "へ", "ㇹ": "ほ", "ㇺ": "む", "ㇻ": "ら", "ㇼ": "り", "ㇽ": "る",
    "ㇾ": "れ", "ㇿ": "ろ",
    "\U0001b150": "ゐ", "\U0001b151": "ゑ", "\U0001b152": "を",
    "\U0001b164": "ゐ", "\U0001b165": "ゑ", "\U0001b166": "を", "\U0001b167": "ん",
}  # fmt: skip

# Old and rare letters: (letter, as given back, plain letter of its family).
OLD = [
    ("ゐ", "ゐ", "い"), ("ヰ", "ゐ", "い"), ("ゑ", "ゑ", "え"), ("ヱ", "ゑ", "え"),
    ("を", "を", "お"), ("ヲ", "を", "お"), ("ｦ", "を", "お"),
    ("ヷ", "ヷ", "わ"), ("ヸ", "ヸ", "い"), ("ヹ", "ヹ", "え"), ("ヺ", "ヺ", "お"),
]  # fmt: skip


def test_tables_cover_every_kana() -> None:
    assert len(HIRAGANA) == len(KATAKANA) == len(HALF_WIDTH) == len(FAMILY) == 46
    assert set(FAMILY) == set(HIRAGANA)
    # Every kana letter of the two main Unicode blocks is in one of the tables.
    covered = set(HIRAGANA + KATAKANA) | set(SMALL) | {v[i] for v in VOICED for i in (0, 1)}
    covered |= {o[0] for o in OLD}
    letters = {chr(c) for c in range(0x3041, 0x3100) if " LETTER " in unicodedata.name(chr(c), "")}
    assert letters - covered == set()


@pytest.mark.parametrize(
    ("hira", "kata", "half"),
    list(zip(HIRAGANA, KATAKANA, HALF_WIDTH, strict=True)),
    ids=list(HIRAGANA),
)
def test_basic_kana_in_every_script(hira: str, kata: str, half: str) -> None:
    for form in (hira, kata, half):
        assert kana.letter(form) == hira
        assert ends(form) == (hira, hira)
        assert ends(f"{form}まど") == (hira, "ど")
        assert ends(f"まど{form}") == ("ま", hira)
        assert next_heads(f"まど{form}") == frozenset(FAMILY[hira])


@pytest.mark.parametrize("letter", HIRAGANA)
def test_next_heads_of_basic_kana(letter: str) -> None:
    heads = frozenset(FAMILY[letter])
    assert kana.family(letter) == heads
    if letter == "ん":
        assert judge(None, f"ほ{letter}").reason == "ends_with_n"
    else:
        assert judge(None, f"ほ{letter}").next_heads == heads
    # Every letter of the family (and no other basic letter) may follow.
    for head in HIRAGANA + "".join(v[0] for v in VOICED) + "ゐゑヷヸヹヺ":
        linked = judge(f"ほ{letter}", f"{head}ら").reason != "no_link"
        assert linked == (head in heads), head


@pytest.mark.parametrize(("hira", "kata", "half", "plain"), VOICED, ids=[v[0] for v in VOICED])
def test_dakuten_and_handakuten_may_be_added_or_dropped(
    hira: str, kata: str, half: str, plain: str
) -> None:
    for form in (hira, kata, half):
        assert ends(f"{form}ら{form}") == (hira, hira)
        assert next_heads(f"ら{form}") == frozenset(FAMILY[plain])
        assert kana.base(form) == plain
    # Voiced after plain, plain after voiced, voiced after semi-voiced.
    assert judge(f"ら{plain}", f"{kata}ら").ok
    assert judge(f"ら{hira}", f"{plain}ら").ok
    for other in FAMILY[plain]:
        assert judge(f"ら{half}", f"{other}ら").ok


@pytest.mark.parametrize(("small", "large"), SMALL.items(), ids=list(SMALL))
def test_small_kana_count_as_large(small: str, large: str) -> None:
    assert kana.letter(small) == large
    assert ends(f"ら{small}") == ("ら", large)
    assert ends(f"{small}ら") == (large, "ら")
    if large != "ん":
        assert next_heads(f"ら{small}") == frozenset(NEXT[large])
        assert judge(f"ら{small}", f"{large}ら").ok


@pytest.mark.parametrize(("small", "large"), SMALL.items(), ids=list(SMALL))
def test_long_mark_after_small_kana(small: str, large: str) -> None:
    assert ends(f"ら{small}ー") == ("ら", large)
    assert ends(f"ら{small}ーーー") == ("ら", large)


@pytest.mark.parametrize(("char", "given", "plain"), OLD, ids=[o[0] for o in OLD])
def test_old_letters(char: str, given: str, plain: str) -> None:
    assert ends(f"{char}ら{char}") == (given, given)
    assert kana.base(char) == plain
    assert next_heads(f"ら{char}") == frozenset(FAMILY[plain])
    assert judge(f"ら{char}", f"{plain}ら").ok
    assert judge(f"ら{plain}", f"{char}ら").ok


@pytest.mark.parametrize(
    ("word", "tail"),
    [
        ("ピッチャー", "や"),
        ("ピッチャーーーー", "や"),
        ("ﾋﾟｯﾁｬｰ", "や"),
        ("ﾋﾟｯﾁｬｰｰ", "や"),
        ("ねこー", "こ"),
        ("ねっー", "つ"),
        ("コーヒー", "ひ"),
        ("すごい〜", "い"),
        ("すごい～～", "い"),
        ("ねぇー！", "え"),
        ("あんー", "ん"),
    ],
)
def test_long_marks_are_skipped(word: str, tail: str) -> None:
    assert ends(word)[1] == tail


@pytest.mark.parametrize(
    ("word", "head", "tail"),
    [
        ("いすゞ", "い", "ず"),  # the voiced iteration mark repeats す with dakuten
        ("あゝ", "あ", "あ"),
        ("ぱゞ", "ぱ", "ば"),
        ("ばゝ", "ば", "は"),
        ("ちゃゝ", "ち", "や"),
        ("イスヾ", "い", "ず"),
        ("ハヽ", "は", "は"),
        ("ワヾ", "わ", "ヷ"),
        ("ゝあ", None, "あ"),  # nothing to repeat: not kana
        ("ゞ", None, None),
        ("時々", None, None),  # 々 repeats a kanji, whose reading is the player's to give
        ("ゟ", "よ", "り"),
        ("ヿ", "こ", "と"),
    ],
)
def test_iteration_marks_and_digraphs(word: str, head: str | None, tail: str | None) -> None:
    assert ends(word) == (head, tail)


def test_every_link_goes_both_ways() -> None:
    letters = {kana.letter(chr(c)) for c in range(0x3041, 0x3100)} - {None}
    for a in letters:
        for b in letters:
            assert (b in kana.family(a)) == (a in kana.family(b)) == kana.same_family(a, b)


@pytest.mark.parametrize("char", ["ー", "ゝ", "々", "〆", "・", "漢", "a", "1", "", "かな", "゛"])
def test_not_kana_letters(char: str) -> None:
    assert kana.letter(char) is None
    assert kana.base(char) is None
    assert kana.family(char) == frozenset()

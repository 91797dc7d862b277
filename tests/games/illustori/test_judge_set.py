"""The voter judges meaning: names inside other words do not count, common knowledge does.

The judge set (:mod:`bodoge.games.illustori.judge_set`) is split in two.  The
goals of issue 31 are asserted on the *tune* part, the one the voter and its
association table were adjusted against.  The *held-out* part is printed by
``bodoge illustori judge-eval`` and quoted in docs/rules/illustori.md; here it
is only held to a looser floor and to being close to the tune part, so that a
test failing on it is a sign of over-fitting to look into, not a target to
tune the table against (which would make it a second tune part).
"""

from __future__ import annotations

from collections import Counter

import pytest

from bodoge.cli import main
from bodoge.games.illustori import judge_set, meaning, words
from bodoge.games.illustori.cards import card
from bodoge.games.illustori.composition import Plan
from bodoge.games.illustori.judge_set import LABELS, PARTS, cases, rates


def test_the_set_is_large_split_and_on_real_cards() -> None:
    for part in PARTS:
        counts = Counter((c.language, c.expected) for c in cases(part))
        for language in ("ja", "en"):
            assert sum(counts[language, e] for e in LABELS) >= 200, (part, language)
            for expected in LABELS:
                assert counts[language, expected] >= 30, (part, language, expected)
        for name in {c.card for c in cases(part)}:
            assert judge_set.card_named(name).parts
    # No case is in both parts: the held-out part is not seen when tuning.
    tune = {(c.card, c.language, c.word) for c in cases("tune")}
    held = {(c.card, c.language, c.word) for c in cases("heldout")}
    assert not tune & held
    with pytest.raises(ValueError):
        cases("everything")


@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_normal_bot_meets_the_goals_on_the_tune_part(language: str) -> None:
    found = rates("tune", "normal", language)
    assert found["apt"] >= 0.9
    assert found["defensible"] >= 0.7
    assert found["unrelated"] <= 0.1
    assert found["trap"] <= 0.1


@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_held_out_part_is_not_far_behind(language: str) -> None:
    tune, held = rates("tune", "normal", language), rates("heldout", "normal", language)
    assert held["apt"] >= 0.85 and held["defensible"] >= 0.6
    assert held["unrelated"] <= 0.15 and held["trap"] <= 0.2
    assert tune["defensible"] - held["defensible"] <= 0.2


@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_easy_bot_is_looser_on_both_parts(language: str) -> None:
    for part in PARTS:
        easy, normal = rates(part, "easy", language), rates(part, "normal", language)
        assert easy["trap"] > normal["trap"] and easy["unrelated"] > normal["unrelated"]
        assert easy["apt"] > easy["defensible"] > easy["trap"]


def test_the_command_prints_the_held_out_rates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["illustori", "judge-eval", "--wrong"]) == 0
    out = capsys.readouterr().out
    for what in ("heldout part", "normal, ja", "easy, en", "trap", "misjudged"):
        assert what in out


# -- the matching itself, on words and cards outside the judge set ---------------------


def _on(plan: Plan, word: str, language: str) -> str:
    from bodoge.core.rng import rng
    from bodoge.games.illustori.cards import from_plan

    return words.relation(from_plan(plan, rng(0, "test-meaning", repr(plan))), word, language)


@pytest.mark.parametrize(
    ("plan", "word", "language"),
    [
        (Plan("setting", "forest", "🐜"), "elephant", "en"),  # an ant inside an elephant
        (Plan("setting", "forest", "🍎"), "pineapple", "en"),
        (Plan("setting", "forest", "🐴"), "horseradish", "en"),
        (Plan("setting", "forest", "🐱"), "catalogue", "en"),
        (Plan("setting", "forest", "🐻"), "bearing", "en"),
        (Plan("setting", "forest", "🦛"), "カバー", "ja"),  # a cover, not a hippo
        (Plan("setting", "forest", "🦏"), "サイコロ", "ja"),  # dice, not a rhino
        (Plan("setting", "forest", "🦑"), "イカダ", "ja"),  # a raft, not a squid
        (Plan("setting", "forest", "🐻"), "熊手", "ja"),  # a rake, not a bear
        (Plan("setting", "forest", "🐸"), "カエル型の消しゴム", "ja"),  # an eraser
        (Plan("setting", "forest", "🐶"), "dog food factory", "en"),
    ],
)
def test_a_name_inside_another_word_is_not_about_the_card(
    plan: Plan, word: str, language: str
) -> None:
    assert _on(plan, word, language) == ""


@pytest.mark.parametrize(
    ("plan", "word", "language", "how"),
    [
        (Plan("setting", "forest", "🦛"), "カバ", "ja", "apt"),
        (Plan("setting", "forest", "🦛"), "森のカバ", "ja", "apt"),
        (Plan("setting", "forest", "🦛"), "大きなカバ", "ja", "apt"),
        (Plan("setting", "forest", "🐻"), "bears in the woods", "en", "apt"),
        (Plan("setting", "forest", "🐻"), "honey", "en", "loose"),
        (Plan("setting", "forest", "🐢"), "浦島太郎", "ja", "loose"),
        (Plan("setting", "forest", "🐢"), "tortoise and the hare", "en", "loose"),
        (Plan("setting", "forest", "🦁"), "lion king", "en", "loose"),
        (Plan("ride", "ride", "🐸", seat="🚀"), "ロケットに乗ったカエル", "ja", "apt"),
        (Plan("ride", "ride", "🐸", seat="🚀"), "frogs riding rockets", "en", "apt"),
    ],
)
def test_names_phrases_and_common_knowledge_are_about_the_card(
    plan: Plan, word: str, language: str, how: str
) -> None:
    assert _on(plan, word, language) == how


def test_words_are_cut_by_unidic_not_by_letters() -> None:
    assert [u.written for u in meaning.units("ゾウリムシ", "ja")] == ["ぞうり", "むし"]
    # A suffix that names a thing (車 of 救急車) needs a key; one that joins does not.
    assert not meaning.units("救急車", "ja")[-1].free
    assert meaning.judge("ゾウの子", "ja", names=("ゾウ",), scene=(), loose=()) == "apt"
    assert meaning.judge("ゾウの車", "ja", names=("ゾウ",), scene=(), loose=()) == ""


# -- the bots' words ------------------------------------------------------------------


def test_bots_say_no_official_names_or_kana_spellings_of_long_names() -> None:
    for deck_seed in range(3):
        for number in range(60):
            shown = card(deck_seed, number)
            said = {w.text for w in words.card_words(deck_seed, number, "ja").phrases}
            for part in shown.things():
                spelled = words.jaconv.kata2hira(part.reading_ja)
                # りんご for リンゴ is how people write it; えふで for 絵筆 and きんしまーく
                # for 禁止マーク are not.
                kanji = any("\u4e00" <= c <= "\u9fff" for c in part.name_ja)
                if kanji and len(part.name_ja) > 1 and spelled != part.name_ja:
                    assert spelled not in said, (part.name_ja, spelled)
            assert not {"雲形の吹き出し", "横を向いているひよこ"} & said
            # A fire engine is not called an engine, nor a crying face a face.
            names = {w.text for w in words.card_words(deck_seed, number, "en").tier(0)}
            assert not {"engine", "face", "ball", "bag"} & names

"""The dictionaries behind the bots' words: UniDic, pyspellchecker's English list, CLDR keywords."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bodoge.games.illustori import annotations, lexicon
from bodoge.games.illustori import emoji_catalogue as cat


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Dictionary words, and compounds of nouns.
        ("クジラ", "word"),
        ("しおふきくじら", "word"),
        ("巨大いちご", "word"),
        ("ネコ禁止", "word"),
        ("天体観測", "word"),
        # Natural phrases: AのB, an adjective or a verb before a noun, NがA.
        ("夜空のクジラ", "phrase"),
        ("こわいお化け", "phrase"),
        ("恋するネコ", "phrase"),
        ("ネコがこわい", "phrase"),
        ("ネコとネズミのけんか", "phrase"),
        ("釣りをするネコ", "phrase"),
        # Neither: nonsense, a dangling particle, a bare ending.
        ("ほげほげ", ""),
        ("クジラだよ", ""),
        ("ネコのえ", ""),
        ("の", ""),
        ("", ""),
    ],
)
def test_japanese_wording(text: str, expected: str) -> None:
    assert lexicon.wording(text, "ja") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("whale", "word"),
        ("ice cream", "word"),  # the name of one thing
        ("x-ray", "word"),
        ("whale at night", "phrase"),
        ("lots of penguins", "phrase"),
        ("odd one out", "phrase"),
        ("whale the of", ""),  # ends with a joining word
        ("zzxq whale", ""),  # not a word
        ("moai", ""),  # too rare in the list
        ("one two three four five six", ""),  # too long for a phrase
    ],
)
def test_english_wording(text: str, expected: str) -> None:
    assert lexicon.wording(text, "en") == expected


def test_known_means_every_word_is_in_the_dictionary() -> None:
    assert lexicon.known("ぴかぴかのネコ", "ja")
    assert lexicon.known("spouting whale", "en")
    assert not lexicon.known("zzxq", "en") and not lexicon.known("", "en")
    assert lexicon.english_count("whale") >= lexicon.MIN_COUNT
    assert lexicon.english_count("Whale") == lexicon.english_count("whale")


def test_the_english_list_is_the_spellcheckers() -> None:
    from spellchecker import SpellChecker

    frequency = SpellChecker(language="en").word_frequency
    assert lexicon.english_count("teacup") == frequency["teacup"] > 0


# -- CLDR keywords -------------------------------------------------------------------------


def test_every_catalogue_emoji_has_keywords_in_both_languages() -> None:
    for char in cat.all_chars():
        assert annotations.keywords(char, "en"), char
        assert annotations.keywords(char, "ja"), char
    with pytest.raises(ValueError, match="fr"):
        annotations.keywords("🐳", "fr")
    assert annotations.keywords("🫥", "en") == ()  # not on any card


def test_the_keywords_carry_their_licence() -> None:
    path = Path(annotations.__file__).with_name("emoji_keywords.json")
    data = json.loads(path.read_text("utf-8"))
    assert data["license"] == annotations.LICENSE and "Unicode License v3" in data["license"]
    assert data["source"] == annotations.SOURCE
    assert set(data) == {"source", "license", "en", "ja"}


@pytest.mark.skipif(
    not os.environ.get("BODOGE_CLDR"),
    reason="set BODOGE_CLDR to a folder with the unpacked CLDR annotation packages",
)
def test_the_keywords_match_cldr(tmp_path: Path) -> None:
    # As emoji_boxes.json is checked against the drawings: written afresh from
    # CLDR's data, the file is the same (run after a CLDR or catalogue update).
    fresh = tmp_path / "keywords.json"
    annotations.write_keywords(os.environ["BODOGE_CLDR"], cat.all_chars(), fresh)
    stored = Path(annotations.__file__).with_name("emoji_keywords.json")
    assert fresh.read_text("utf-8") == stored.read_text("utf-8")


def test_write_keywords_reads_the_cldr_json_layout(tmp_path: Path) -> None:
    # A miniature of the two CLDR packages, as npm unpacks them.
    for folder in ("annotations", "annotationsDerived"):
        for language in ("en", "ja"):
            where = tmp_path / f"cldr-{folder}" / folder / language
            where.mkdir(parents=True)
            entries = {"🐳": {"default": [f"{folder}-{language}"], "tts": ["x"]}}
            if folder == "annotationsDerived":
                entries = {"🐻‍❄": {"default": [f"polar-{language}"], "tts": ["y"]}}
            body = {folder: {"identity": {"language": language}, "annotations": entries}}
            (where / "annotations.json").write_text(json.dumps(body), "utf-8")
    out = tmp_path / "out.json"
    annotations.write_keywords(tmp_path, ["🐳", "🐻‍❄️", "🐶"], out)
    data = json.loads(out.read_text("utf-8"))
    assert data["en"] == {"🐳": ["annotations-en"], "🐻‍❄️": ["polar-en"]}
    assert data["ja"]["🐳"] == ["annotations-ja"]
    with pytest.raises(FileNotFoundError):
        annotations.write_keywords(tmp_path / "nowhere", ["🐳"], out)

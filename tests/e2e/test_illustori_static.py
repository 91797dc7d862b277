"""Illustori's browser files, checked without a browser.

* every string exists in both languages, every key the code asks for is
  defined (the keys built from codes too: every refusal, penalty and upload
  error has its message), English has no Japanese beyond the kana the
  Japanese rules must show;
* no markup is ever built from strings;
* the credit line is OpenMoji's attribution, word for word;
* the page's kana reading (``web/kana.js``) agrees with the engine's
  (``kana.py``, ``shiritori.py``) on thousands of words — run with node, when
  the machine has it.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bodoge.games.illustori import kana, shiritori
from bodoge.games.illustori.cards import ATTRIBUTION
from bodoge.server.edge import pictures

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "bodoge" / "games" / "illustori" / "web"
SHELL = ROOT / "bodoge" / "web" / "static" / "js" / "strings.js"
SCRIPTS = sorted(WEB.glob("*.js"))
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
#: English strings that must show kana: the Japanese rules and their examples.
KANA_IN_ENGLISH = {
    "il.rules.ja_link",
    "il.rules.ja_small",
    "il.rules.ja_dakuten",
    "il.rules.ja_long",
    "il.rules.ja_n",
    "il.flag.ends_with_n",
    "il.flag.first_ends_with_n",
    "il.penalty.ends_with_n",
}


def table(path: Path, name: str) -> dict[str, dict[str, str]]:
    text = path.read_text()
    body = text[text.index(f"export const {name} = ") + len(f"export const {name} = ") :]
    body = body[: body.rindex("};") + 1]
    body = re.sub(r",(\s*[}\]])", r"\1", body)
    body = re.sub(r"^(\s*)(ja|en):", r'\1"\2":', body, flags=re.M)
    return json.loads(body)


STRINGS = table(WEB / "strings.js", "STRINGS")


def keys(lang: str) -> set[str]:
    shell = table(SHELL, "SHELL_STRINGS")[lang]
    return {re.sub(r"\.(one|other)$", "", k) for k in {**shell, **STRINGS[lang]}}


def test_every_string_exists_in_both_languages() -> None:
    plain = {lang: {re.sub(r"\.(one|other)$", "", k) for k in STRINGS[lang]} for lang in STRINGS}
    assert plain["ja"] == plain["en"]
    leftovers = [
        k for k, v in STRINGS["en"].items() if JAPANESE.search(v) and k not in KANA_IN_ENGLISH
    ]
    assert leftovers == []


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_key_asked_for_is_defined(script: Path) -> None:
    asked = re.findall(r"\btn?\(\s*\"([a-z_]+\.[\w.]+)\"", script.read_text())
    assert [k for k in asked if k not in keys("ja")] == []
    assert [k for k in asked if k not in keys("en")] == []


def test_keys_built_from_codes_are_defined() -> None:
    reasons = {str(r) for r in shiritori.Reason} | {"too_long"}
    penalties = {str(r) for r in shiritori.PENALTIES}
    uploads = {
        cls.code
        for cls in vars(pictures).values()
        if isinstance(cls, type) and issubclass(cls, pictures.PictureError)
    }
    wanted = (
        {f"il.flag.{r}" for r in reasons}
        | {f"il.flag.first_{p}" for p in penalties}
        | {f"il.penalty.{p}" for p in penalties}
        | {f"il.upload.error.{c}" for c in uploads - {"bad_custom_deck"}}
        | {"il.upload.error.upload_too_large", "il.upload.error.bad_upload"}
        | {"il.upload.error.pixel_rate_limited", "il.upload.error.uploads_busy"}
        | {f"il.opt.{f}" for f in ("ban_same_ends", "ban_used_joints", "vote_limit")}
        | {f"il.opt.{f}_help" for f in ("secret_votes", "show_rules")}
    )
    assert sorted(wanted - keys("ja")) == [] and sorted(wanted - keys("en")) == []


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_no_markup_is_built_from_strings(script: Path) -> None:
    text = script.read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in text, f"{script.name} uses {sink}"


def test_the_credit_is_openmojis_attribution() -> None:
    """English has OpenMoji's own words; Japanese says the same in Japanese."""
    for lang in ("ja", "en"):
        s = STRINGS[lang]
        shown = s["il.credit.before"] + "OpenMoji" + s["il.credit.middle"] + "CC BY-SA 4.0"
        assert shown + s["il.credit.after"] == s["il.credit.text"]
    assert STRINGS["en"]["il.credit.text"] == ATTRIBUTION
    assert STRINGS["ja"]["il.credit.text"] == (
        "絵文字のデザインはすべて OpenMoji（オープンソースの絵文字・アイコンプロジェクト）"
        "によるものです。ライセンス：CC BY-SA 4.0"
    )


# --- the kana reading, in the page and in the engine ---------------------------------

NODE = shutil.which("node")
POOL = (
    "あいうえおかがきぎくぐけげこごさざしじすずせぜそぞただちぢつづってでとどなにぬねの"
    "はばぱひびぴふぶぷへべぺほぼぽまみむめもゃやゅゆょよらりるれろゎわゐゑをん"
    "アイウヴカガキャッーヵヶヷヺｶﾞｱﾊﾟ゛゜ゝゞヽヾㇰ漢東京々 　!?。、「」…〜-abcXYZé123🐱👍🏽❤️"
)


def corpus(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words = [
        "ピッチャー",
        "ばしゃ",
        "ﾗｯﾊﾟ!",
        "東京タワー",
        "いすゞ",
        "「ピッチャー！」",
        "…ねこ",
        "そゞ",
    ]
    # Words that link after the previous words below, some punished, some not.
    words += [
        "よん",
        "ヨーヨー",
        "よるよ",
        "たいこ",
        "だいこん",
        "たった",
        "ばなは",
        "ぱん",
        "はっぱ",
    ]
    words += ["はは", "やん", "ゃま", "apple", "tent", "Tot", "ant", "otto", "Noon", "élan"]
    words += ["".join(rng.choice(POOL) for _ in range(rng.randint(1, 6))) for _ in range(n)]
    return words


def run_node(cases: list[dict]) -> list[dict]:
    script = (
        f"import * as k from {json.dumps((WEB / 'kana.js').as_uri())};\n"
        "import { readFileSync } from 'node:fs';\n"
        "const cases = JSON.parse(readFileSync(0, 'utf8'));\n"
        "const out = cases.map((c) => c.check ? k.check(c.check) : k.ends(c.word, c.language));\n"
        "process.stdout.write(JSON.stringify(out));\n"
    )
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        input=json.dumps(cases, ensure_ascii=False),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.skipif(NODE is None, reason="no node to run the page's JavaScript")
def test_the_page_reads_word_ends_as_the_engine_does() -> None:
    words = corpus(1500, seed=1)
    cases = [{"word": w, "language": lang} for w in words for lang in ("ja", "en")]
    got = run_node(cases)
    wrong = []
    for case, out in zip(cases, got, strict=True):
        head, tail = shiritori.ends(case["word"], case["language"])
        if (out["head"], out["tail"]) != (head, tail):
            wrong.append((case, out, (head, tail)))
    assert wrong == []


@pytest.mark.skipif(NODE is None, reason="no node to run the page's JavaScript")
def test_the_page_flags_words_as_the_engine_judges_them() -> None:
    rng = random.Random(2)
    words = corpus(1200, seed=3)
    letters = "かがたよはぱんあいうxyz"
    previous_words = {
        "ja": ["つきよ", "やかた", "ラッパ", "ピッチャー"],
        "en": ["cat", "moon", "Zebra"],
    }
    # Every word after every previous word, as typed; then random stated ends.
    plain = [
        (w, lang, p, None, None)
        for w in words[:40]
        for lang in previous_words
        for p in previous_words[lang]
    ]
    stated = []
    for word in words:
        language = rng.choice(("ja", "en"))
        previous = rng.choice(previous_words[language])
        head = rng.choice([None, "", *letters]) if language == "ja" else None
        tail = rng.choice([None, "", *letters]) if language == "ja" else None
        stated.append((word, language, previous, head, tail))
    cases, expected = [], []
    for word, language, previous, head, tail in plain + stated:
        same = rng.random() < 0.3
        verdict = shiritori.judge(
            previous, word, language=language, head=head, tail=tail, ban_same_ends=same
        )
        heads = sorted(shiritori.next_heads(previous, language))
        check = {
            "word": word,
            "language": language,
            "nextHeads": heads,
            "head": head,
            "tail": tail,
            "banSameEnds": same,
        }
        cases.append({"check": check})
        expected.append(verdict)
    got = run_node(cases)
    wrong = [
        (c["check"], out["reason"], v.reason)
        for c, out, v in zip(cases, got, expected, strict=True)
        if out["reason"] != v.reason
        or (v.reason == "ok" and (out["head"], out["tail"]) != (v.head, v.tail))
    ]
    assert wrong == []
    assert {v.reason for v in expected} >= {"ok", "no_link", "not_kana", "ends_with_n", "same_ends"}


@pytest.mark.skipif(NODE is None, reason="no node to run the page's JavaScript")
def test_the_page_knows_a_words_own_joint_is_used() -> None:
    # After ...ら with joints banned, らっこら ends with the joint it makes itself.
    cases = [
        {"check": {"word": "らっこら", "nextHeads": ["ら"], "usedJoints": []}},
        {"check": {"word": "らくだ", "nextHeads": ["ら"], "usedJoints": ["た"]}},
        {"check": {"word": "らくだ", "nextHeads": ["ら"], "usedJoints": ["か"]}},
        {"check": {"word": "らっこら", "nextHeads": None, "usedJoints": []}},
    ]
    assert [o["reason"] for o in run_node(cases)] == ["banned_joint", "banned_joint", "ok", "ok"]
    assert kana.base("だ") == "た"

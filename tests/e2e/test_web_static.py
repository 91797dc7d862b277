"""The front-end's static files, checked without a browser.

* the question cards the browser shows are exactly the engine's (ids, kinds,
  choices and both texts);
* every shell and Tagiron string exists in both languages, and every key the
  code asks for with ``t("...")`` is defined;
* no markup is ever built from strings (no ``innerHTML`` and friends).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bodoge.games.tagiron.cards import CARDS

ROOT = Path(__file__).resolve().parents[2]
SHELL = ROOT / "bodoge" / "web" / "static"
TAGIRON = ROOT / "bodoge" / "games" / "tagiron" / "web"
SCRIPTS = sorted([*SHELL.glob("js/*.js"), *TAGIRON.glob("*.js")])


def js_object(path: Path, name: str) -> dict:
    """The JSON object literal assigned to ``export const NAME = {...};``."""
    text = path.read_text()
    start = text.index(f"export const {name} = ") + len(f"export const {name} = ")
    end = text.index("\n};", start) + 2
    return json.loads(text[start:end])


def string_tables() -> dict[str, dict[str, str]]:
    """Both string tables, shell and Tagiron, read as JSON after dropping comments."""
    merged: dict[str, dict[str, str]] = {"ja": {}, "en": {}}
    for path, name in (
        (SHELL / "js" / "strings.js", "SHELL_STRINGS"),
        (TAGIRON / "strings.js", "STRINGS"),
    ):
        text = path.read_text()
        body = text[text.index(f"export const {name} = ") + len(f"export const {name} = ") :]
        body = body[: body.rindex("};") + 1]
        body = re.sub(r",(\s*[}\]])", r"\1", body)  # trailing commas
        body = re.sub(r"^(\s*)(ja|en):", r'\1"\2":', body, flags=re.M)
        for lang, table in json.loads(body).items():
            merged[lang].update(table)
    return merged


def test_question_cards_match_the_engine():
    browser_cards = js_object(TAGIRON / "cards.js", "CARDS")
    assert list(browser_cards) == list(CARDS)
    for cid, card in CARDS.items():
        shown = browser_cards[cid]
        assert shown == {
            "kind": card.kind,
            "shared": card.shared,
            "choices": list(card.choices) if card.choices else None,
            "ja": card.ja,
            "en": card.en,
        }, cid


def test_every_string_exists_in_both_languages():
    tables = string_tables()
    base = lambda keys: {re.sub(r"\.(one|other)$", "", k) for k in keys}  # noqa: E731
    assert base(tables["ja"]) == base(tables["en"])
    japanese = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
    assert not [k for k, v in tables["en"].items() if japanese.search(v)]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_key_asked_for_is_defined(script):
    tables = string_tables()
    keys = set(tables["ja"]) | {re.sub(r"\.(one|other)$", "", k) for k in tables["en"]}
    asked = re.findall(r"\btn?\(\s*\"([a-z_]+\.[\w.]+)\"", script.read_text())
    missing = [k for k in asked if k not in keys]
    assert not missing, f"{script.name} asks for undefined strings: {missing}"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_no_markup_is_built_from_strings(script):
    text = script.read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in text, f"{script.name} uses {sink}"

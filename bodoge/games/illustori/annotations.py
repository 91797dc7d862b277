"""What people call an emoji: Unicode CLDR's keywords for the catalogue's emoji.

CLDR (the Unicode Common Locale Data Repository) gives every emoji a short
name and a few keywords in each language — 🌵 is ``cactus, desert, drought,
nature, plant`` in English and ``サボテン, 植物, 砂漠`` in Japanese.  Bots use
them as associations: a card with a cactus may be called ``砂漠`` (desert),
and a voter finds such a word loose but defensible.

No installed package ships these annotations (the ``emoji`` package has the
short names only), so the keywords of the emoji the cards use are kept in
``emoji_keywords.json`` beside this module, written by :func:`write_keywords`
from the CLDR JSON data Unicode publishes (the ``cldr-annotations-full`` and
``cldr-annotations-derived-full`` packages).  The data is © Unicode, Inc.,
under the Unicode License v3 (:data:`LICENSE`), which allows this with the
notice kept (the JSON file holds it).

>>> keywords("🌵", "en")
('cactus', 'desert', 'drought', 'nature', 'plant')
>>> "砂漠" in keywords("🐫", "ja")
True
>>> "arctic" in keywords("🐻‍❄️", "en")
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["LICENSE", "SOURCE", "keywords", "write_keywords"]

#: Where the keywords come from, and the notice their licence asks for.
SOURCE = "Unicode CLDR annotations (cldr-annotations-full, cldr-annotations-derived-full)"
LICENSE = (
    "Copyright © 2004-2026 Unicode, Inc. Unicode and the Unicode Logo are registered "
    "trademarks of Unicode, Inc. in the United States and other countries. "
    "Distributed under the Unicode License v3: https://www.unicode.org/license.txt"
)
LANGUAGES = ("en", "ja")
_FILE = "emoji_keywords.json"


@cache
def _data() -> dict[str, Any]:
    text = resources.files(__package__).joinpath(_FILE).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def keywords(char: str, language: str) -> tuple[str, ...]:
    """CLDR's keywords for ``char`` in ``language`` (``en`` or ``ja``); ``()`` if it has none."""
    if language not in LANGUAGES:
        raise ValueError(f"no keywords in {language!r}; choose one of {LANGUAGES}")
    return tuple(_data()[language].get(char, ()))


def _key(char: str) -> str:
    """CLDR's key for an emoji: without the presentation selector (U+FE0F)."""
    return char.replace("\ufe0f", "")


def _read(root: Path, folder: str, language: str) -> dict[str, list[str]]:
    found = sorted(root.glob(f"**/{folder}/{language}/annotations.json"))
    if not found:
        raise FileNotFoundError(f"no {folder}/{language}/annotations.json under {root}")
    data = json.loads(found[0].read_text("utf-8"))
    entries = data[folder]["annotations"]
    return {k: list(v.get("default", [])) for k, v in entries.items()}


def write_keywords(cldr: str | Path, chars: Iterable[str], path: str | Path) -> None:
    """Write the keywords of ``chars`` from the CLDR JSON under ``cldr`` (a developer's tool).

    ``cldr`` is a folder holding the unpacked ``cldr-annotations-full`` and
    ``cldr-annotations-derived-full`` packages, for instance
    ``cd /tmp/cldr && npm pack cldr-annotations-full cldr-annotations-derived-full``
    and unpacking both; then ``python -c "from bodoge.games.illustori import
    annotations as a, emoji_catalogue as c; a.write_keywords('/tmp/cldr',
    c.all_chars(), 'bodoge/games/illustori/emoji_keywords.json')"``.
    """
    root = Path(cldr)
    out: dict[str, Any] = {"source": SOURCE, "license": LICENSE}
    for language in LANGUAGES:
        table = _read(root, "annotationsDerived", language) | _read(root, "annotations", language)
        out[language] = {c: table[_key(c)] for c in chars if _key(c) in table}
    lines = ["{"]
    lines.append(f'"source": {json.dumps(SOURCE)},')
    lines.append(f'"license": {json.dumps(LICENSE, ensure_ascii=False)},')
    for n, language in enumerate(LANGUAGES):
        lines.append(f'"{language}": {{')
        rows = [
            f"{json.dumps(c, ensure_ascii=False)}: {json.dumps(k, ensure_ascii=False)}"
            for c, k in out[language].items()
        ]
        lines.append(",\n".join(rows))
        lines.append("}" + ("," if n + 1 < len(LANGUAGES) else ""))
    lines.append("}")
    Path(path).write_text("\n".join(lines) + "\n", "utf-8")

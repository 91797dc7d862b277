"""The card art a browser fetches: one SVG per card, and the cards' alt texts.

The server serves :func:`asset` at ``/api/games/illustori/assets/{path}`` with
long cache headers, so the same path must always give the same bytes (it
does: a card is fixed by its deck seed and number).  Paths are checked
strictly, anything else is ``None`` (404):

* ``cards/{deck_seed}/{n}.svg`` — card ``n`` (``0 <= n < 200``, the largest
  deck) of the generated deck ``deck_seed`` (``0 … 2^53-1``), drawn by
  :func:`~bodoge.games.illustori.art.card_svg`;
* ``cards/{deck_seed}/alt-{count}.json`` — ``{"ja": [...], "en": [...]}``, the
  alt texts of cards ``0 … count-1`` (``1 <= count <= 200``), so a screen
  reader can say what each picture shows.

Numbers are plain decimal, without sign or leading zeros, so each card has
exactly one address.

>>> svg, media = asset("cards/7/0.svg")
>>> media, svg.startswith(b"<svg")
('image/svg+xml', True)
>>> asset("cards/7/007.svg") is None, asset("cards/7/200.svg") is None, asset("../x") is None
(True, True, True)
>>> import json
>>> alt = json.loads(asset("cards/7/alt-2.json")[0])
>>> len(alt["ja"]), len(alt["en"])
(2, 2)
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from bodoge.games.illustori.options import MAX_DECK, MAX_DECK_SEED

__all__ = ["asset"]

_NUMBER = r"(0|[1-9][0-9]{0,15})"
_CARD = re.compile(rf"cards/{_NUMBER}/{_NUMBER}\.svg")
_ALT = re.compile(rf"cards/{_NUMBER}/alt-{_NUMBER}\.json")

SVG = "image/svg+xml"
JSON_MEDIA = "application/json"


def asset(path: str) -> tuple[bytes, str] | None:
    """The file at ``path`` as ``(content, media type)``, or ``None`` if there is none."""
    if not isinstance(path, str) or len(path) > 80:
        return None
    if found := _CARD.fullmatch(path):
        seed, number = int(found.group(1)), int(found.group(2))
        if seed > MAX_DECK_SEED or number >= MAX_DECK:
            return None
        return _card_svg(seed, number), SVG
    if found := _ALT.fullmatch(path):
        seed, count = int(found.group(1)), int(found.group(2))
        if seed > MAX_DECK_SEED or not 1 <= count <= MAX_DECK:
            return None
        return _alt_json(seed, count), JSON_MEDIA
    return None


@lru_cache(maxsize=512)
def _card_svg(seed: int, number: int) -> bytes:
    from bodoge.games.illustori.art import card_svg
    from bodoge.games.illustori.cards import card

    return card_svg(card(seed, number)).encode()


@lru_cache(maxsize=32)
def _alt_json(seed: int, count: int) -> bytes:
    from bodoge.games.illustori.cards import card

    cards = [card(seed, n) for n in range(count)]
    texts = {lang: [c.alt(lang) for c in cards] for lang in ("ja", "en")}
    return json.dumps(texts, ensure_ascii=False, separators=(",", ":")).encode()

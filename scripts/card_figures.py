"""What issue 34 (point 9) counted in Illustori's generated decks, counted again.

    python scripts/card_figures.py [DECKS]     # default 200 decks of 60 cards

It reads only what every version of the deck generator has (cards, their parts and
placements, the catalogue's names and head boxes), so it runs on the tree before the fix
as well: hippos wearing something on their rump, cards where things drawn over a
figure's head cover more than a quarter of it, decks (of the first 50) whose main figures
include two that players call by one name, and English alt texts (of the first 3,000
cards) with an article or word-order error.
"""

from __future__ import annotations

import re
import sys
from collections import Counter

import inflect
import numpy as np

from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori.cards import Card, deck

ENGLISH = inflect.engine()
#: The hippo's head as OpenMoji draws it (it grazes to the right).
HIPPO_HEAD = (46.0, 28.0, 68.0, 48.0)
KIN = {"🐩": "dog", "🐕": "dog", "🐶": "dog", "🐓": "chicken", "🦖": "dinosaur"}
#: Plurals, mass nouns and names: no "a" before them.
UNCOUNTED = set(["👓", "🕶️", "🥽", "👀", "🥞", "🍒", "🎆", "🧦", "💕", "🎶", "💦", "✨", "🎲", "🥦", "🍣", "🧀", "🍖", "🧄", "🍧", "🔥", "⚡", "💤", "🗼", "🗻"])
ADJECTIVES = {"angry", "puzzled", "surprised", "nervous", "dizzy", "sparkling", "asleep", "singing"}


def head_of(char: str) -> cat.Box | None:
    try:
        figure = cat.subject(char)
    except KeyError:
        return None
    if char == "🦛":
        return HIPPO_HEAD
    return figure.head or (cat.content_box(char) if figure.face else None)


def covered(box: cat.Box, others: list[cat.Box]) -> float:
    """The share of the ellipse in ``box`` under the ellipses in the ``others`` boxes."""
    x0, y0, x1, y1 = box
    u = (np.arange(16) + 0.5) / 16
    uu, vv = np.meshgrid(u, u)
    keep = (uu - 0.5) ** 2 + (vv - 0.5) ** 2 <= 0.25
    xs, ys = x0 + (x1 - x0) * uu[keep], y0 + (y1 - y0) * vv[keep]
    inside = np.zeros(xs.shape, dtype=bool)
    for a0, b0, a1, b1 in others:
        a, b = (a1 - a0) / 2, (b1 - b0) / 2
        inside |= ((xs - a0 - a) / a) ** 2 + ((ys - b0 - b) / b) ** 2 <= 1.0
    return float(inside.mean())


def hides_a_head(c: Card) -> bool:
    for i, part in enumerate(c.parts):
        head = head_of(part.emoji)
        if head is None or part.role in ("member", "mark", "wearable"):
            continue
        over = [p.place.box(cat.content_box(p.emoji)) for p in c.parts[i + 1 :] if p.role != "wearable"]
        if covered(part.place.box(head), over) > 0.25:
            return True
    return False


def hippo_on_its_rump(c: Card) -> bool:
    worn = c.part("wearable")
    if c.subject.emoji != "🦛" or worn is None:
        return False
    h0, _, h1, _ = c.subject.place.box(HIPPO_HEAD)
    x0, _, x1, _ = worn.place.box(cat.content_box(worn.emoji))
    return not h0 - 4 <= (x0 + x1) / 2 <= h1 + 4


def bad_english(c: Card) -> bool:
    alt = c.alt("en")
    if any(a.lower() != ENGLISH.a(w).split()[0] for a, w in re.findall(r"\b([Aa]n?) ([\w-]+)", alt)):
        return True
    for p in c.parts:
        name = re.escape(cat.name_en(p.emoji))
        if p.emoji in UNCOUNTED and re.search(rf"\b[Aa]n? (?:[\w-]+ )?{name}\b", alt):
            return True
    return c.kind == "sign" and alt.split()[-1] in ADJECTIVES


def called(char: str) -> set[str]:
    return {cat.name_en(char).lower(), cat.reading_ja(char), KIN.get(char, "")} - {""}


def main(decks: int) -> None:
    rump = hidden = alike = english = cards = 0
    for seed in range(decks):
        cards_of_deck = deck(seed, 60)
        names = Counter(n for c in cards_of_deck for n in called(c.subject.emoji))
        alike += seed < 50 and max(names.values()) > 1
        for c in cards_of_deck:
            cards += 1
            rump += hippo_on_its_rump(c)
            hidden += hides_a_head(c)
            english += cards <= 3000 and bad_english(c)
    print(
        f"{decks} decks, {cards} cards: a hippo wearing on its rump {rump}; a figure's head "
        f"over a quarter hidden {hidden}; decks of the first 50 with two main figures called "
        f"alike {alike}; English alt texts with an error in the first 3000 cards {english}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)

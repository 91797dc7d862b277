"""Drawing cards: one safe, self-contained SVG per card, and PNGs of them.

* :func:`card_svg` draws a :class:`~bodoge.games.illustori.cards.Card` as an SVG
  string (240×240 units): a soft backdrop, then each emoji's OpenMoji drawing
  inlined as a ``<g transform=…>``.  The emoji drawings are cleaned on the
  way in (only plain shapes and paint attributes survive: no scripts, event
  handlers, links, ids or styles), so the SVG can be served to browsers, and
  several cards can sit in one page without their ids clashing (the only ids
  are the card's own, prefixed per card: the gradients, the clip, and an
  emoji drawn more than once, defined once and drawn with ``<use>``).
* :func:`render_png` rasterises an SVG with resvg; :func:`contact_sheet` lays
  a deck out in a grid with the card numbers, for people to look at.

>>> from bodoge.games.illustori.cards import card
>>> svg = card_svg(card(1, 0))
>>> svg.startswith("<svg") and "<script" not in svg
True
"""

from __future__ import annotations

import io
import json
import math
import random
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from bodoge.core.rng import derive_seed
from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori.composition import CARD_SIZE, Backdrop

if TYPE_CHECKING:
    from PIL import Image

    from bodoge.games.illustori.cards import Card

__all__ = [
    "card_svg",
    "contact_sheet",
    "emoji_markup",
    "measure_box",
    "render_png",
]

_SVG_NS = "http://www.w3.org/2000/svg"

# OpenMoji draws with these shapes and paint attributes only; anything else
# (scripts, foreignObject, <use>, links, styles, event handlers) is dropped.
_TAGS = frozenset({"g", "path", "circle", "ellipse", "line", "polyline", "polygon", "rect"})
_ATTRIBUTES = frozenset(
    {
        "d", "points", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry",
        "width", "height", "transform", "fill", "fill-opacity", "fill-rule", "clip-rule",
        "stroke", "stroke-width", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit",
        "stroke-dasharray", "stroke-dashoffset", "stroke-opacity", "opacity", "paint-order",
        "display", "color",
    }
)  # fmt: skip
# Paint values are colours, numbers and keywords: a url() or script would
# point outside the card.
_SAFE_VALUE = re.compile(r"[#\w\s.,()%+-]*")


def _clean(element: ET.Element) -> ET.Element | None:
    """A copy of ``element`` with only allowed tags and attributes, or None to drop it."""
    tag = element.tag.rpartition("}")[2]
    if tag not in _TAGS:
        return None
    out = ET.Element(tag)
    for name, value in element.attrib.items():
        if name in _ATTRIBUTES and _SAFE_VALUE.fullmatch(value) and "url" not in value.lower():
            out.set(name, value)
    for child in element:
        cleaned = _clean(child)
        if cleaned is not None:
            out.append(cleaned)
    return out


@lru_cache(maxsize=512)
def emoji_markup(char: str) -> str:
    """The emoji's OpenMoji drawing, cleaned, as SVG markup for a 72×72 space.

    >>> markup = emoji_markup("🐳")
    >>> markup.startswith("<g") and " id=" not in markup
    True
    """
    root = ET.parse(cat.openmoji_svg_path(char)).getroot()
    pieces = []
    for child in root:
        cleaned = _clean(child)
        if cleaned is not None:
            pieces.append(ET.tostring(cleaned, encoding="unicode", short_empty_elements=True))
    return "".join(pieces)


def _num(value: float) -> str:
    """A short, stable rendering of a coordinate (two decimals at most)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _backdrop_markup(back: Backdrop, prefix: str, seed: int) -> list[str]:
    size = _num(CARD_SIZE)
    half = CARD_SIZE / 2
    out = [f'<rect width="{size}" height="{size}" fill="url(#{prefix}bg)"/>']
    if back.style == "rays":
        rays = []
        for i in range(12):
            a0 = math.radians(i * 30)
            a1 = math.radians(i * 30 + 15)
            far = CARD_SIZE
            rays.append(
                f"M{_num(half)} {_num(half)}"
                f"L{_num(half + far * math.cos(a0))} {_num(half + far * math.sin(a0))}"
                f"L{_num(half + far * math.cos(a1))} {_num(half + far * math.sin(a1))}Z"
            )
        out.append(f'<path d="{"".join(rays)}" fill="#ffffff" fill-opacity="0.35"/>')
    elif back.style == "dots":
        # Positions from the card's own seed so the pattern differs card to card.
        offset = derive_seed(seed, "dots") % 20
        circles = []
        for row in range(7):
            for col in range(7):
                x = col * 40 + (20 if row % 2 else 0) - offset
                y = row * 40 - offset / 2
                circles.append(f'<circle cx="{_num(x)}" cy="{_num(y)}" r="6"/>')
        out.append(f'<g fill="#ffffff" fill-opacity="0.45">{"".join(circles)}</g>')
    elif back.style == "hill":
        out.append(
            f'<ellipse cx="{_num(half)}" cy="{_num(CARD_SIZE * 1.18)}"'
            f' rx="{_num(CARD_SIZE * 0.85)}" ry="{_num(CARD_SIZE * 0.38)}"'
            f' fill="{back.bottom}" stroke="#ffffff"'
            ' stroke-opacity="0.6" stroke-width="3"/>'
        )
    elif back.style == "halo":
        out.append(f'<circle cx="{_num(half)}" cy="{_num(half)}" r="{_num(CARD_SIZE * 0.42)}"'
                   f' fill="url(#{prefix}halo)"/>')  # fmt: skip
    elif back.style in _SETTINGS:
        out.extend(_SETTINGS[back.style](random.Random(derive_seed(seed, "setting"))))
        if back.style in _DARK:
            # OpenMoji's black outlines vanish on a dark sky: a soft light behind the figure.
            out.append(f'<circle cx="{_num(half)}" cy="{_num(half * 1.05)}"'
                       f' r="{_num(CARD_SIZE * 0.4)}" fill="url(#{prefix}halo)"/>')  # fmt: skip
    return out


# -- settings: a place or weather behind the figure ---------------------------------------
#
# Each is a few bold shapes that read at hand size; what varies from card to
# card (where the stars are) comes from the card's own seed.

S = CARD_SIZE


def _shapes(fill: str, items: Iterable[str], extra: str = "") -> str:
    """Shapes in one group with one fill (and more attributes in ``extra``)."""
    return f'<g fill="{fill}"{extra}>{"".join(items)}</g>'


def _circle(x: float, y: float, r: float) -> str:
    return f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(r)}"/>'


def _stars(rand: random.Random, count: int, top: float, bottom: float) -> str:
    dots = [
        _circle(rand.uniform(6, S - 6), rand.uniform(top, bottom), rand.uniform(1.2, 2.6))
        for _ in range(count)
    ]
    return _shapes("#ffffff", dots, ' fill-opacity="0.9"')


def _wave(y: float, height: float, waves: float, phase: float) -> str:
    """A path from the left edge along a wave at ``y`` down to the card's bottom."""
    points = []
    for i in range(0, 49):
        x = S * i / 48
        points.append(
            f"{_num(x)} {_num(y + height * math.sin(phase + waves * 2 * math.pi * i / 48))}"
        )
    return f"M0 {_num(S)}L" + "L".join(points) + f"L{_num(S)} {_num(S)}Z"


def _beach(rand: random.Random) -> list[str]:
    side = rand.choice((0.18, 0.82))
    return [
        f'<circle cx="{_num(S * side)}" cy="{_num(S * 0.16)}" r="20" fill="#ffd54f"/>',
        f'<path d="{_wave(S * 0.56, 3, 4, rand.uniform(0, 6))}" fill="#4fc3f7"/>',
        f'<path d="{_wave(S * 0.62, 2.5, 5, rand.uniform(0, 6))}" fill="#29b6f6"/>',
        f'<path d="{_wave(S * 0.78, 4, 2, rand.uniform(0, 6))}" fill="#ffe0a3"/>',
    ]


def _night(rand: random.Random) -> list[str]:
    x = S * rand.choice((0.16, 0.84))
    return [
        _stars(rand, 22, 6, S * 0.9),
        f'<circle cx="{_num(x)}" cy="{_num(S * 0.16)}" r="19" fill="#fff59d"/>',
        f'<circle cx="{_num(x + 8)}" cy="{_num(S * 0.13)}" r="16" fill="#1f2a80"/>',
    ]


def _snow(rand: random.Random) -> list[str]:
    flakes = [
        _circle(rand.uniform(4, S - 4), rand.uniform(4, S * 0.82), rand.uniform(2.5, 5))
        for _ in range(26)
    ]
    return [
        f'<path d="{_wave(S * 0.82, 5, 1, rand.uniform(0, 6))}" fill="#ffffff"/>',
        _shapes("#ffffff", flakes, ' stroke="#90caf9" stroke-width="1"'),
    ]


def _city(rand: random.Random) -> list[str]:
    towers, windows, x = [], [], -4.0
    while x < S:
        width = rand.uniform(22, 38)
        top = S * rand.uniform(0.42, 0.7)
        towers.append(
            f'<rect x="{_num(x)}" y="{_num(top)}" width="{_num(width)}" height="{_num(S - top)}"/>'
        )
        for wy in range(int(top) + 8, int(S) - 10, 16):
            if rand.random() < 0.45:
                windows.append(
                    f'<rect x="{_num(x + width / 2 - 4)}" y="{wy}" width="8" height="8"/>'
                )
        x += width + rand.uniform(1, 5)
    return [
        _shapes("#8da4b8", towers),
        _shapes("#fff59d", windows),
        f'<rect y="{_num(S * 0.92)}" width="{_num(S)}" height="{_num(S * 0.08)}" fill="#78909c"/>',
    ]


def _space(rand: random.Random) -> list[str]:
    x = S * rand.choice((0.16, 0.84))
    y = S * rand.choice((0.16, 0.84))
    return [
        _stars(rand, 30, 4, S - 4),
        f'<circle cx="{_num(x)}" cy="{_num(y)}" r="17" fill="#ff8a65"/>',
        f'<ellipse cx="{_num(x)}" cy="{_num(y)}" rx="30" ry="8" fill="none" stroke="#ffcc80"'
        ' stroke-width="4" transform="rotate(-18 ' + f'{_num(x)} {_num(y)})"/>',
    ]


def _sea(rand: random.Random) -> list[str]:
    bubbles = [
        _circle(rand.uniform(8, S - 8), rand.uniform(8, S * 0.8), rand.uniform(3, 8))
        for _ in range(14)
    ]
    weeds = []
    for x in (rand.uniform(10, 40), rand.uniform(S - 40, S - 10)):
        bend = rand.uniform(8, 14)
        weeds.append(f'<path d="M{_num(x)} {_num(S)}q{_num(bend)} -25 0 -50t0 -45"/>')
    return [
        f'<path d="{_wave(S * 0.88, 3, 2, rand.uniform(0, 6))}" fill="#ffe0a3"/>',
        _shapes("none", weeds, ' stroke="#43a047" stroke-width="7" stroke-linecap="round"'),
        _shapes("#ffffff", bubbles, ' fill-opacity="0.25" stroke="#ffffff" stroke-width="1.5"'),
    ]


def _rain(rand: random.Random) -> list[str]:
    clouds = [
        _circle(S * (0.1 + 0.16 * i), S * rand.uniform(0.02, 0.08), rand.uniform(22, 30))
        for i in range(7)
    ]
    drops = []
    for _ in range(24):
        x, y = rand.uniform(0, S), rand.uniform(S * 0.15, S * 0.92)
        drops.append(f'<path d="M{_num(x)} {_num(y)}l-4 10"/>')
    return [
        _shapes("#eceff1", clouds),
        _shapes("none", drops, ' stroke="#1e88e5" stroke-width="2.5" stroke-linecap="round"'),
        f'<ellipse cx="{_num(S / 2)}" cy="{_num(S * 0.95)}" rx="{_num(S * 0.42)}" ry="9"'
        ' fill="#90caf9"/>',
    ]


def _desert(rand: random.Random) -> list[str]:
    x = S * rand.choice((0.18, 0.82))
    return [
        f'<circle cx="{_num(x)}" cy="{_num(S * 0.16)}" r="24" fill="#fff3e0" fill-opacity="0.9"/>',
        f'<path d="{_wave(S * 0.72, 10, 1, rand.uniform(0, 6))}" fill="#ffb74d"/>',
        f'<path d="{_wave(S * 0.84, 7, 1.5, rand.uniform(0, 6))}" fill="#ffa040"/>',
    ]


def _forest(rand: random.Random) -> list[str]:
    trees = []
    for x in (
        rand.uniform(8, 26),
        rand.uniform(40, 60),
        rand.uniform(S - 60, S - 40),
        rand.uniform(S - 26, S - 8),
    ):
        top, base, half = S * rand.uniform(0.25, 0.45), S * 0.9, rand.uniform(18, 26)
        trees.append(
            f'<path d="M{_num(x)} {_num(top)}L{_num(x + half)} {_num(base)}'
            f'L{_num(x - half)} {_num(base)}Z"/>'
        )
    return [
        _shapes("#388e3c", trees, ' fill-opacity="0.75"'),
        f'<rect y="{_num(S * 0.88)}" width="{_num(S)}" height="{_num(S * 0.12)}" fill="#7cb342"/>',
    ]


def _stage(rand: random.Random) -> list[str]:
    folds = "".join(f"q8 {_num(S * 0.1)} 0 {_num(S * 0.2)}" for _ in range(5))
    return [
        f'<rect y="{_num(S * 0.86)}" width="{_num(S)}" height="{_num(S * 0.14)}" fill="#a1887f"/>',
        f'<path d="M{_num(S * 0.38)} 0L{_num(S * 0.62)} 0L{_num(S * 0.9)} {_num(S * 0.92)}'
        f'L{_num(S * 0.1)} {_num(S * 0.92)}Z" fill="#fff9c4" fill-opacity="0.3"/>',
        f'<path d="M0 0H{_num(S * 0.16)}{folds}H0Z" fill="#c62828"/>',
        f'<path d="M{_num(S)} 0H{_num(S * 0.84)}{folds}H{_num(S)}Z" fill="#c62828"/>',
    ]


def _sunset(rand: random.Random) -> list[str]:
    x = S * rand.uniform(0.3, 0.7)
    return [
        f'<circle cx="{_num(x)}" cy="{_num(S * 0.7)}" r="40" fill="#fff176"/>',
        f'<rect y="{_num(S * 0.7)}" width="{_num(S)}" height="{_num(S * 0.3)}" fill="#5c6bc0"/>',
        f'<g stroke="#fff176" stroke-width="3" stroke-linecap="round">'
        f'<path d="M{_num(x - 30)} {_num(S * 0.76)}h60M{_num(x - 20)} {_num(S * 0.82)}h40'
        f'M{_num(x - 10)} {_num(S * 0.88)}h20"/></g>',
    ]


_SETTINGS: dict[str, Callable[[random.Random], list[str]]] = {
    "beach": _beach,
    "night": _night,
    "snow": _snow,
    "city": _city,
    "space": _space,
    "sea": _sea,
    "rain": _rain,
    "desert": _desert,
    "forest": _forest,
    "stage": _stage,
    "sunset": _sunset,
}
_DARK = frozenset({"night", "space", "stage"})


def card_svg(card: Card, *, title: str | None = None) -> str:
    """The card as a standalone SVG document (a string, UTF-8 when written).

    Deterministic: the same card gives the same bytes.  ``title`` (e.g.
    ``card.alt("ja")``) adds a ``<title>`` for screen readers.
    """
    prefix = f"il{derive_seed(card.deck_seed, 'svg-id', card.number) % 16**8:08x}-"
    size = _num(CARD_SIZE)
    back = card.backdrop
    out = [
        f'<svg xmlns="{_SVG_NS}" viewBox="0 0 {size} {size}" width="{size}" height="{size}"'
        ' role="img">'
    ]
    if title:
        out.append(f"<title>{_escape(title)}</title>")
    out.append(
        "<defs>"
        f'<linearGradient id="{prefix}bg" x1="0" y1="0" x2="0" y2="1">'
        f'<stop offset="0" stop-color="{back.top}"/><stop offset="1" stop-color="{back.bottom}"/>'
        "</linearGradient>"
        f'<radialGradient id="{prefix}halo">'
        '<stop offset="0" stop-color="#ffffff" stop-opacity="0.9"/>'
        '<stop offset="1" stop-color="#ffffff" stop-opacity="0"/>'
        "</radialGradient>"
        f'<clipPath id="{prefix}clip"><rect width="{size}" height="{size}" rx="16"/></clipPath>'
    )
    # An emoji drawn more than once (a crowd, a heart of strawberries) is
    # defined once and used by reference, which keeps such cards small.
    counts = Counter(part.emoji for part in card.parts)
    repeated = {char: f"{prefix}e{i}" for i, char in enumerate(c for c in counts if counts[c] > 1)}
    for char, ident in repeated.items():
        out.append(f'<g id="{ident}">{emoji_markup(char)}</g>')
    out.append(f'</defs><g clip-path="url(#{prefix}clip)">')
    out.extend(_backdrop_markup(back, prefix, derive_seed(card.deck_seed, "card", card.number)))
    for part in card.parts:
        p = part.place
        transform = f"translate({_num(p.x)} {_num(p.y)})"
        if p.rotate:
            transform += f" rotate({_num(p.rotate)})"
        k = p.size / 72.0
        transform += f" scale({_num(-k if p.flip else k)} {_num(k)}) translate(-36 -36)"
        if part.emoji in repeated:
            out.append(f'<use href="#{repeated[part.emoji]}" transform="{transform}"/>')
        else:
            out.append(f'<g transform="{transform}">{emoji_markup(part.emoji)}</g>')
    out.append("</g>")
    out.append(
        f'<rect x="1" y="1" width="{_num(CARD_SIZE - 2)}" height="{_num(CARD_SIZE - 2)}" rx="15"'
        ' fill="none" stroke="#000000" stroke-opacity="0.12" stroke-width="2"/>'
    )
    out.append("</svg>")
    return "".join(out)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_png(svg: str, width: int) -> bytes:
    """Rasterise an SVG string to PNG bytes ``width`` pixels wide (with resvg)."""
    import resvg_py

    return bytes(resvg_py.svg_to_bytes(svg_string=svg, width=width, height=width))


def measure_box(char: str, pixels: int = 288) -> cat.Box:
    """The drawn part of an emoji in its 72×72 space, measured from a rendering.

    Used to build ``emoji_boxes.json`` (see :func:`write_boxes`) and by the
    tests to check it.
    """
    from PIL import Image

    svg = (
        f'<svg xmlns="{_SVG_NS}" viewBox="0 0 72 72" width="72" height="72">'
        f"{emoji_markup(char)}</svg>"
    )
    image = Image.open(io.BytesIO(render_png(svg, pixels)))
    alpha = image.getchannel("A").point(lambda a: 255 if a > 16 else 0)
    x0, y0, x1, y1 = alpha.getbbox() or (0, 0, pixels, pixels)
    unit = pixels / 72
    return (
        math.floor(x0 / unit * 2) / 2,
        math.floor(y0 / unit * 2) / 2,
        math.ceil(x1 / unit * 2) / 2,
        math.ceil(y1 / unit * 2) / 2,
    )


def write_boxes(path: str) -> None:
    """Measure every catalogue emoji and write the boxes as JSON (a developer's tool).

    ``python -c "from bodoge.games.illustori import art;
    art.write_boxes('bodoge/games/illustori/emoji_boxes.json')"``
    """
    lines = [
        f"{json.dumps(char, ensure_ascii=False)}: {json.dumps(list(measure_box(char)))}"
        for char in cat.all_chars()
    ]
    with open(path, "w", encoding="utf-8") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")


def contact_sheet(
    cards: Sequence[Card],
    *,
    columns: int = 10,
    cell: int = 200,
    on_card: Callable[[], object] | None = None,
) -> Image.Image:
    """A grid of the cards with their numbers underneath, as a Pillow image.

    ``on_card`` is called after each card is drawn (for a progress bar).
    """
    from PIL import Image, ImageDraw, ImageFont

    gap = max(4, cell // 25)
    label = max(12, cell // 9)
    rows = max(1, math.ceil(len(cards) / columns))
    width = columns * (cell + gap) + gap
    height = rows * (cell + label + gap) + gap
    sheet = Image.new("RGB", (width, height), "#ffffff")
    draw = ImageDraw.Draw(sheet)
    font = ImageFont.load_default(size=label * 0.8)
    for i, card in enumerate(cards):
        x = gap + (i % columns) * (cell + gap)
        y = gap + (i // columns) * (cell + label + gap)
        image = Image.open(io.BytesIO(render_png(card_svg(card), cell))).convert("RGBA")
        sheet.paste(image, (x, y), image)
        names = " · ".join(card.names("en"))
        text = f"{card.number}  {names}"
        while draw.textlength(text, font=font) > cell and len(text) > 4:
            text = text[:-2] + "…"
        draw.text((x + 2, y + cell + 1), text, fill="#333333", font=font)
        if on_card is not None:
            on_card()
    return sheet


def png_bytes(image: Image.Image) -> bytes:
    """A Pillow image as PNG bytes (full colour: a palette would band the gradients)."""
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


def iter_svgs(cards: Iterable[Card]) -> Iterable[tuple[Card, str]]:
    """Each card with its SVG."""
    for card in cards:
        yield card, card_svg(card)

"""Drawing cards: one safe, self-contained SVG per card, and PNGs of them.

* :func:`card_svg` draws a :class:`~bodoge.games.illustori.cards.Card` as an SVG
  string (240×240 units): a soft backdrop, then each emoji's OpenMoji drawing
  inlined as a ``<g transform=…>``.  The emoji drawings are cleaned on the
  way in (only plain shapes and paint attributes survive: no scripts, event
  handlers, links, ids or styles), so the SVG can be served to browsers, and
  several cards can sit in one page without their ids clashing (the only ids
  are the card's own, prefixed per card).
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
import re
import xml.etree.ElementTree as ET
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
    return out


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
        "</defs>"
        f'<g clip-path="url(#{prefix}clip)">'
    )
    out.extend(_backdrop_markup(back, prefix, derive_seed(card.deck_seed, "card", card.number)))
    for part in card.parts:
        p = part.place
        transform = f"translate({_num(p.x)} {_num(p.y)})"
        if p.rotate:
            transform += f" rotate({_num(p.rotate)})"
        k = p.size / 72.0
        transform += f" scale({_num(-k if p.flip else k)} {_num(k)}) translate(-36 -36)"
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

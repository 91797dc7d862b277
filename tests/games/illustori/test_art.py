"""Card SVGs: well-formed, safe to serve to browsers, small, quick to make, drawable."""

from __future__ import annotations

import io
import random
import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from bodoge.games.illustori import art, backdrops, cards, composition
from bodoge.games.illustori import emoji_catalogue as cat
from bodoge.games.illustori.cards import card, deck

SVG = "{http://www.w3.org/2000/svg}"
# An attribute whose name starts with "on" (onload=, onclick=…).
EVENT_HANDLER = re.compile(r"\son[a-z]+\s*=", re.IGNORECASE)


def assert_safe(svg: str, prefix: str = "") -> None:
    assert "<script" not in svg.lower()
    assert not EVENT_HANDLER.search(svg)
    assert "javascript:" not in svg.lower()
    # Only the card's own ids may be referred to (an emoji drawn many times).
    hrefs = re.findall(r"href\s*=\s*\"([^\"]*)\"", svg)
    assert svg.count("href") == len(hrefs)
    assert all(prefix and h.startswith("#" + prefix) for h in hrefs), hrefs
    assert "<foreignObject" not in svg
    assert "<style" not in svg and "<image" not in svg
    for ref in re.findall(r"url\(([^)]*)\)", svg):
        assert ref.startswith("#"), ref


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**53 - 1), number=st.integers(0, 500))
def test_card_svg_is_well_formed_and_safe(seed: int, number: int) -> None:
    svg = art.card_svg(card(seed, number))
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert root.get("viewBox") == "0 0 240 240"
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    prefix = ids[0].removesuffix("bg")
    assert_safe(svg, prefix)
    # Every id is the card's own and unique; every reference points to one of them.
    assert len(ids) == len(set(ids)) >= 3
    assert all(i.startswith(prefix) for i in ids)
    for ref in re.findall(r"url\(#([^)]*)\)", svg) + re.findall(r'href="#([^"]*)"', svg):
        assert ref in ids


def test_cards_in_one_page_do_not_share_ids() -> None:
    ids: list[str] = []
    for c in deck(4, 60):
        ids += re.findall(r'\bid="([^"]+)"', art.card_svg(c))
    assert len(ids) == len(set(ids))


def test_emoji_drawings_are_cleaned_of_anything_active(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    evil = tmp_path / "evil.svg"
    evil.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
        ' viewBox="0 0 72 72" onload="alert(1)">'
        "<script>alert(2)</script>"
        '<g id="color" onclick="alert(3)" style="fill:url(http://x/)">'
        '<path d="M0 0L10 10" fill="#ff0000" onmouseover="alert(4)"/>'
        '<a href="javascript:alert(5)"><circle cx="1" cy="1" r="1"/></a>'
        '<use xlink:href="http://example.com/x.svg#a"/>'
        '<image href="http://example.com/a.png"/>'
        '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject>'
        '<rect width="3" height="3" fill="url(http://example.com/#p)" stroke="#000"/>'
        "</g></svg>"
    )
    monkeypatch.setattr(cat, "openmoji_svg_path", lambda char: evil)
    art.emoji_markup.cache_clear()
    try:
        markup = art.emoji_markup("🐳")
    finally:
        art.emoji_markup.cache_clear()
    assert_safe(markup)
    assert "href" not in markup
    assert "alert" not in markup and "style" not in markup and " id=" not in markup
    # The drawing itself survives.
    assert '<path d="M0 0L10 10" fill="#ff0000" />' in markup
    assert '<rect width="3" height="3" stroke="#000" />' in markup


def test_cleaning_keeps_every_shape_of_the_catalogue_drawings() -> None:
    # The allow-list must not eat real drawing: same shapes, same paint.
    for char in cat.all_chars():
        root = ET.parse(cat.openmoji_svg_path(char)).getroot()
        original = [e for e in root.iter() if e is not root]
        cleaned = [e for e in ET.fromstring(f"<g>{art.emoji_markup(char)}</g>").iter()][1:]
        assert len(cleaned) == len(original), char
        for before, after in zip(original, cleaned, strict=True):
            kept = {k: v for k, v in before.attrib.items() if k not in ("id", "class")}
            assert after.attrib == kept, char


def test_emoji_markup_is_cached() -> None:
    assert art.emoji_markup("🐳") is art.emoji_markup("🐳")


def test_sixty_cards_are_quick_to_make_and_small() -> None:
    card.cache_clear()
    started = time.perf_counter()
    svgs = [art.card_svg(c) for c in deck(31337, 60)]
    elapsed = time.perf_counter() - started
    # About 0.05 s on the development machine (names and drawings cached);
    # generous for a loaded CI machine.
    assert elapsed < 3.0
    sizes = [len(s.encode()) for s in svgs]
    assert max(sizes) < 60_000
    assert sum(sizes) / len(sizes) < 20_000


def test_svg_renders_with_resvg() -> None:
    png = art.render_png(art.card_svg(card(1, 0)), 120)
    image = Image.open(io.BytesIO(png))
    assert image.size == (120, 120)
    # Not blank: the backdrop and the emoji give many colours.
    assert len(image.convert("RGB").getcolors(maxcolors=100_000) or []) > 50


def test_the_title_is_escaped() -> None:
    svg = art.card_svg(card(1, 0), title="<b>&</b>")
    assert "<title>&lt;b&gt;&amp;&lt;/b&gt;</title>" in svg
    ET.fromstring(svg)


def test_stored_emoji_boxes_match_the_drawings() -> None:
    # emoji_boxes.json is measured from the drawings; a new OpenMoji release
    # that moved things would show here (rewrite it with art.write_boxes).
    for char in cat.all_chars():
        stored = cat.content_box(char)
        measured = art.measure_box(char, pixels=72)
        assert all(abs(a - b) <= 1.5 for a, b in zip(stored, measured, strict=True)), char


def test_the_scene_fills_the_card_without_leaving_it() -> None:
    for c in deck(6, 120):
        boxes = [p.place.box(cat.content_box(p.emoji)) for p in c.parts]
        x0 = min(b[0] for b in boxes)
        y0 = min(b[1] for b in boxes)
        x1 = max(b[2] for b in boxes)
        y1 = max(b[3] for b in boxes)
        assert x0 >= 0 and y0 >= 0 and x1 <= composition.CARD_SIZE and y1 <= composition.CARD_SIZE
        # The scene is big: it spans most of the card one way or the other.
        assert max(x1 - x0, y1 - y0) >= 0.6 * composition.CARD_SIZE, (c.kind, c.names("en"))


def test_every_setting_is_drawn_and_repeated_emoji_are_used_by_reference() -> None:
    for key in backdrops.SKIES:
        c = cards.from_plan(composition.Plan("setting", key, "🐱"), random.Random(3))
        svg = art.card_svg(c)
        assert svg.count("<") > 12, key  # the place's shapes, not only a gradient
    crowd = cards.from_plan(composition.Plan("crowd", "swarm", "⚽"), random.Random(3))
    svg = art.card_svg(crowd)
    assert svg.count("<use ") == len(crowd.parts) >= 6
    assert len(svg.encode()) < 20_000
    ET.fromstring(svg)
    png = art.render_png(svg, 100)
    assert len(Image.open(io.BytesIO(png)).convert("RGB").getcolors(maxcolors=100_000) or []) > 50


def test_contact_sheet_shows_every_card() -> None:
    cards = deck(1, 7)
    drawn = []
    sheet = art.contact_sheet(cards, columns=4, cell=64, on_card=lambda: drawn.append(1))
    assert len(drawn) == 7
    assert sheet.width > 4 * 64 and sheet.height > 2 * 64
    png = art.png_bytes(sheet)
    assert png.startswith(b"\x89PNG")

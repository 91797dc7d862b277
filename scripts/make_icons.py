"""Draw the installable page's icons (bodoge/web/static/icons/*.png) with Pillow.

Three tiles of Tagiron's colours on the page's theme colour: the same picture as
``icons/icon.svg``, drawn at each size (a picture scaled down blurs).  The maskable icon
keeps its tiles inside the central 80% circle that any launcher's mask leaves.

    /work/main/.venv/bin/python scripts/make_icons.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parents[1] / "bodoge" / "web" / "static" / "icons"
THEME = "#24433d"
TILES = ("#d33b45", "#1f9a5b", "#2563c4")


def draw(size: int, *, maskable: bool) -> Image.Image:
    scale = 4  # drawn larger, then reduced: smooth edges
    big = size * scale
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    if maskable:
        pen.rectangle((0, 0, big, big), fill=THEME)
        inset = big * 0.22
    else:
        pen.rounded_rectangle((0, 0, big - 1, big - 1), radius=big * 0.18, fill=THEME)
        inset = big * 0.14
    width = (big - 2 * inset) / 3.25
    gap = width * 0.125
    top, bottom = (big * 0.3, big * 0.7) if maskable else (big * 0.24, big * 0.76)
    for i, colour in enumerate(TILES):
        left = inset + i * (width + gap)
        pen.rounded_rectangle((left, top, left + width, bottom), radius=width * 0.2, fill=colour)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        draw(size, maskable=False).save(OUT / f"icon-{size}.png", optimize=True)
    draw(512, maskable=True).save(OUT / "icon-maskable-512.png", optimize=True)


if __name__ == "__main__":
    main()

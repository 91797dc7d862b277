"""``bodoge illustori deck`` writes a deck's cards, their names and a contact sheet."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image

from bodoge.cli import main
from bodoge.games.illustori.art import card_svg
from bodoge.games.illustori.cards import card


def test_deck_writes_svgs_names_and_a_contact_sheet(tmp_path: Path) -> None:
    out = tmp_path / "deck"
    assert main(["illustori", "deck", "--seed", "7", "--count", "5", "--out", str(out)]) == 0
    svgs = sorted(out.glob("card-*.svg"))
    assert [p.name for p in svgs] == [f"card-{n:03d}.svg" for n in range(5)]
    for n, path in enumerate(svgs):
        assert path.read_text("utf-8") == card_svg(card(7, n))
        ET.parse(path)
    names = json.loads((out / "cards.json").read_text("utf-8"))
    assert [c["number"] for c in names] == list(range(5))
    assert names[0]["alt_ja"] == card(7, 0).alt("ja")
    with Image.open(out / "contact-sheet.png") as sheet:
        assert sheet.format == "PNG"
        assert sheet.width >= 5 * 200


def test_the_sheet_can_go_elsewhere(tmp_path: Path) -> None:
    sheet = tmp_path / "docs" / "deck.png"
    args = ["illustori", "deck", "--count", "3", "--out", str(tmp_path / "d")]
    assert main([*args, "--sheet", str(sheet), "--columns", "2", "--cell", "64"]) == 0
    with Image.open(sheet) as image:
        assert image.width < 3 * 64 + 40  # two columns of 64 px
    assert len(list((tmp_path / "d").glob("*.svg"))) == 3


@pytest.mark.parametrize("count", ["0", "-1", "1001", "many"])
def test_a_bad_count_is_refused(tmp_path: Path, count: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["illustori", "deck", "--count", count, "--out", str(tmp_path)])
    assert exited.value.code == 2
    assert not list(tmp_path.iterdir())


def test_illustori_needs_a_subcommand() -> None:
    with pytest.raises(SystemExit) as exited:
        main(["illustori"])
    assert exited.value.code == 2

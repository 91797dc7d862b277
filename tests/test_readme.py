"""The README is a newcomer's first screen: what bodoge is, a picture, the two set-up
commands and how to invite friends, near the top; short; every link it gives leads
somewhere. Figures with their commands live in docs/performance.md, not here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
LINES = README.splitlines()


def test_the_two_set_up_commands_and_a_picture_come_first() -> None:
    top = "\n".join(LINES[:45])
    assert "![" in top, "no picture near the top"
    assert "bash scripts/serve.sh" in top and "bash scripts/test.sh" in top
    fenced = re.findall(r"```sh\n(.*?)```", README, re.S)
    assert fenced[:2] == ["bash scripts/serve.sh\n", "bash scripts/test.sh\n"], fenced[:2]


def test_inviting_friends_is_on_the_first_screens() -> None:
    headings = [i for i, line in enumerate(LINES) if line.startswith("## ")]
    invite = [i for i in headings if "friends" in LINES[i].lower()]
    assert invite and invite[0] < 70, "how to invite friends is not near the top"


def test_it_stays_short_and_keeps_its_figures_elsewhere() -> None:
    assert len(LINES) < 250, len(LINES)
    assert "load average" not in README, "benchmark runs belong in docs/performance.md"
    assert "docs/performance.md" in README


def test_every_link_leads_to_a_file() -> None:
    for target in re.findall(r"\]\(((?:docs|scripts)/[^)#\s]+)", README):
        assert (ROOT / target).exists(), target

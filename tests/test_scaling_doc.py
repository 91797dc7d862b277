"""docs/scaling.md stays honest: its inputs are ``bodoge bench capacity``'s, every measured
one is a figure docs/performance.md ("Capacity") has, and its results are what the command
computes from them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bodoge.bench.capacity import INPUTS, inputs, lines, load
from bodoge.cli import main

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def _inputs_table() -> dict[str, tuple[str, str]]:
    """docs/scaling.md's inputs: name → (value, what)."""
    rows = re.findall(
        r"^\| `(\w+)` \| ([\d.,]+) \|[^|]*\|([^|]*)\|",
        _section((DOCS / "scaling.md").read_text(), "Inputs"),
        re.M,
    )
    return {name: (value, what.strip()) for name, value, what in rows}


def test_the_inputs_table_is_the_models_and_its_measured_figures_are_in_performance_md() -> None:
    table = _inputs_table()
    assert list(table) == list(INPUTS)
    capacity = _section((DOCS / "performance.md").read_text(), "Capacity")
    numbers = set(re.findall(r"\d[\d,]*(?:\.\d+)?", capacity))
    for name, (value, what) in table.items():
        assert float(value.replace(",", "")) == INPUTS[name].value, name
        if not what.startswith("assumed"):
            assert value in numbers, f"{name}: {value} is not a figure of performance.md"


def test_the_results_are_what_the_model_computes() -> None:
    text = (DOCS / "scaling.md").read_text()
    computed = lines([load(n, inputs([])) for n in (10_000, 100_000)])
    assert "\n".join(computed) in _section(text, "Results"), "\n".join(computed)


def test_the_capacity_command_takes_an_operators_numbers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "capacity", "--tables", "1000", "--set", "move_every=20"]) == 0
    out = capsys.readouterr().out
    assert "move_every      20 s" in out, out
    assert re.search(r"\| moves a second \| 50 \|", out), out
    assert main(["bench", "capacity", "--set", "nothing=1"]) == 2
    assert "no input named 'nothing'" in capsys.readouterr().out

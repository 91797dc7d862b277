"""The ``bodoge`` command loads only what the command that runs needs.

``bodoge tagiron solve`` and ``assist`` must start fast, so they must not pull
in the server, the store (SQLAlchemy) or Illustori; ``bodoge bench cli``
prints the start-up times themselves (a figure, not a test).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bodoge.bench.cli import ASSIST_SCRIPT, POSITION
from bodoge.cli import build_parser, command_modules

ROOT = Path(__file__).resolve().parents[1]

#: What neither ``solve`` nor ``assist`` may import.
UNUSED = (
    "sqlalchemy",
    "starlette",
    "uvicorn",
    "bodoge.server",
    "bodoge.store",
    "bodoge.games.illustori",
)

# Runs the command line's ``main`` in a fresh interpreter with the given argv and
# standard input, then reports the exit status and the loaded modules among UNUSED.
PROBE = """
import contextlib, io, json, sys
from bodoge.cli import main
argv, stdin, unused = json.loads(sys.argv[1])
sys.stdin = io.StringIO(stdin)
with contextlib.redirect_stdout(io.StringIO()) as out:
    status = main(argv)
loaded = sorted(m for m in sys.modules if any(m == u or m.startswith(u + ".") for u in unused))
print(json.dumps({"status": status, "loaded": loaded, "out": out.getvalue()}))
"""


def probe(argv: list[str], stdin: str = "") -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps([argv, stdin, UNUSED])],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("json_output", [False, True], ids=["tables", "json"])
def test_solve_loads_neither_the_server_nor_the_store_nor_illustori(
    tmp_path: Path, json_output: bool
) -> None:
    position = tmp_path / "position.json"
    position.write_text(json.dumps(POSITION))
    result = probe(["tagiron", "solve", str(position), *(["--json"] if json_output else [])])
    assert result["status"] == 0
    assert "R7 B7 B8 R9 B9" in result["out"] or '"R7", "B7", "B8"' in result["out"]
    assert result["loaded"] == []


def test_assist_loads_neither_the_server_nor_the_store_nor_illustori() -> None:
    result = probe(["tagiron", "assist"], ASSIST_SCRIPT)
    assert result["status"] == 0
    assert "4 candidates" in result["out"]
    assert result["loaded"] == []


def listed(usage: str) -> list[str]:
    """The commands a help text lists (indented under COMMAND)."""
    return re.findall(r"^    (\w+)", usage, flags=re.MULTILINE)


def test_the_commands_are_the_servers_then_each_games() -> None:
    assert list(command_modules()) == [
        "serve",
        "admin",
        "db",
        "bench",
        "nginx",
        "tagiron",
        "illustori",
    ]


def test_a_command_line_builds_only_its_commands_parser() -> None:
    for name in command_modules():
        assert listed(build_parser([name, "--help"]).format_help()) == [name]


def test_without_a_command_every_command_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert listed(build_parser().format_help()) == list(command_modules())
    assert listed(build_parser(["--help"]).format_help()) == list(command_modules())
    with pytest.raises(SystemExit):
        build_parser(["nonsense"]).parse_args(["nonsense"])
    assert "invalid choice: 'nonsense'" in capsys.readouterr().err


def test_the_cli_bench_prints_its_figures() -> None:
    command = [sys.executable, "-m", "bodoge", "bench", "cli", "--rounds", "1"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for label in ("python -c pass", "tagiron solve", "tagiron assist"):
        assert re.search(re.escape(label) + r".* [\d.]+ s .* [\d.]+ s .* [\d.]+×", out), out
    assert re.search(r"solve: [\d.]+ s wall, target < 0\.400 s: (met|not met)", out), out


def test_serve_prints_localhost_for_a_local_server(tmp_path: Path) -> None:
    """A browser refuses passkeys on an IP address: the printed URL names the host."""
    from tests.support.live_server import URL_LINE, LiveServer

    with LiveServer(tmp_path) as server:
        found = URL_LINE.search(server.log())
        assert found, server.log()
        assert found.group(1) == f"http://localhost:{server.port}/"
        assert "127.0.0.1" not in found.group(1)

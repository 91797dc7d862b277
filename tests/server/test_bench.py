"""``bodoge bench server`` runs end to end and prints its figures; its clients follow both
event formats (a whole ``view``, or a ``patch`` with only the facts that changed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bodoge.bench.client import FACTS, Known
from bodoge.bench.processes import serve_command, tree_error

ROOT = Path(__file__).resolve().parents[2]


def test_the_server_bench_prints_its_figures() -> None:
    command = [sys.executable, "-m", "bodoge", "bench", "server"]
    command += ["--tables", "3", "--players", "2", "--duration", "3", "--think", "0.05"]
    command += ["--arrival", "0.3"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Poisson starts" in out and "BURST" not in out
    assert "clients connected: 6" in out
    moves = re.search(r"= ([\d.]+) moves/s", out)
    assert moves and float(moves.group(1)) > 5, out
    assert re.search(r"median [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms", out), out
    assert re.search(r"server CPU: [\d.]+ s per 1,000 moves", out), out
    assert re.search(r"event frame \(2-seat tables\): median \d+ bytes", out), out
    assert re.search(r"server GC: longest young pause (< 1|[\d.]+) ms", out), out
    # Whose the lag was: the server's loop, the clients', the machine's.
    assert re.search(r"server event loop \(a tick every 20 ms\): lag median [<>\d–. ]+ ms", out)
    assert re.search(r"clients' loops: \d+ stall\(s\)", out), out
    assert re.search(r"the server's own time per move .*: median [<>\d–. ]+ ms, p99", out), out
    assert re.search(r"group commits of the store .*: median [<>\d–. ]+ ms, p99", out), out
    assert re.search(r"commit start → its frames queued .*: median [<>\d–. ]+ ms", out), out
    assert re.search(r"the server's main thread \d+% of the time, the clients' \d+% each", out)
    peak = re.search(r"peak \(VmHWM\) (\d+) MiB", out)
    assert peak and int(peak.group(1)) > 10, out
    assert "errors" not in out, out


def test_a_burst_is_labelled() -> None:
    command = [sys.executable, "-m", "bodoge", "bench", "server", "--burst"]
    command += ["--tables", "2", "--players", "2", "--duration", "2", "--think", "0.05"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "BURST start (stress case" in done.stdout, done.stdout
    assert "errors" not in done.stdout, done.stdout


def _snapshot(view: dict) -> dict:
    return {
        "type": "table",
        "table": {"id": "t_abcd"},
        "n": 0,
        "view": view,
        "to_act": [0],
        "may_act": True,
        "deadlines": [None, None],
        "clock": None,
        "result": None,
    }


def test_a_whole_view_event_replaces_the_view_and_every_fact() -> None:
    known = Known()
    known.update(_snapshot({"turn": 0, "log": []}))
    event = {"type": "event", "table": "t_abcd", "n": 1, "seat": 0, "events": []}
    event |= {"view": {"turn": 1, "log": ["x"]}, "to_act": [1], "may_act": False}
    event |= {"deadlines": [None, None], "clock": None, "result": None}
    known.update(event)
    assert known.view == {"turn": 1, "log": ["x"]}
    assert known.facts == {
        "to_act": [1],
        "may_act": False,
        "deadlines": [None, None],
        "clock": None,
        "result": None,
    }


def test_a_patch_event_changes_the_view_and_only_the_facts_it_carries() -> None:
    known = Known()
    known.update(_snapshot({"turn": 0, "log": [], "face_up": ["a", "b"]}))
    said = {"type": "ask", "seat": 0, "card": "a"}
    event = {"type": "event", "table": "t_abcd", "n": 1, "seat": 0, "events": [said]}
    event["patch"] = [
        {"op": "replace", "path": "/turn", "value": 1},
        {"op": "add", "path": "/log/-", "event": 0},
        {"op": "replace", "path": "/face_up/0", "value": "c"},
    ]
    event["to_act"] = [1]
    known.update(event)
    assert known.view == {"turn": 1, "log": [said], "face_up": ["c", "b"]}
    assert known.facts["to_act"] == [1]
    assert known.facts["may_act"] is True  # absent: unchanged
    known.update({"type": "event", "n": 2, "seat": 1, "events": [], "patch": [], "result": {}})
    assert known.facts["result"] == {} and known.view["turn"] == 1
    known.update(_snapshot(None))  # a new game's snapshot sets everything again
    assert known.view is None and all(known.facts[k] == _snapshot(None)[k] for k in FACTS)


def test_an_older_server_is_started_without_the_flags_it_lacks() -> None:
    data = Path("/tmp/data")
    newer = serve_command(data, "  --max-connections-per-address N  connections ...")
    older = serve_command(data, "  --bot-workers BOT_WORKERS")
    assert newer[-2:] == ["--max-connections-per-address", "0"]
    assert "--max-connections-per-address" not in older


def test_the_server_benched_makes_no_puzzles_of_its_own() -> None:
    # A bench's store is always new: a first start would make puzzles in the background and
    # their CPU and memory would be counted as the players'.
    command = serve_command(Path("/tmp/data"), "  --initial-puzzles N  on a first start ...")
    assert command[command.index("--initial-puzzles") + 1] == "0"
    assert "--initial-puzzles" not in serve_command(Path("/tmp/data"), "  --bot-workers N")


def test_a_tree_without_bodoge_is_refused(tmp_path: Path) -> None:
    assert tree_error(ROOT) is None
    error = tree_error(tmp_path)
    assert error is not None and "is not a bodoge source tree" in error


def test_a_client_process_freezes_what_it_holds_and_makes_no_full_collector_pass() -> None:
    """A client process's own full passes over its thousands of sockets made the moves it
    received meanwhile look late; ``settle_heap`` freezes them (in a process of its own here:
    a freeze is for good)."""
    script = (
        "import gc\n"
        "from bodoge.bench.client import settle_heap\n"
        "held = [[i] for i in range(10_000)]\n"
        "told = []\n"
        "settle_heap(lambda: told.append(gc.get_freeze_count()))\n"
        "print(told[0] >= 10_000, gc.get_threshold()[2])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "1000000"]

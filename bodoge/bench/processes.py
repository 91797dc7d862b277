"""The server processes of a run: started from a source tree, and their figures."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import cast

from bodoge.core.values import JSON

#: The source tree this bench belongs to (the "new" side of an A/B).
HERE = Path(__file__).resolve().parents[2]


def tree_env(tree: Path) -> dict[str, str]:
    """The environment that makes ``python -m bodoge`` import ``tree``'s sources."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tree), env.get("PYTHONPATH")) if p)
    return env


def tree_error(tree: Path) -> str | None:
    """Why ``tree``'s server could not be run from its own sources (``None``: it can).

    A tree without a ``bodoge`` package would import another copy (this one, or the one
    installed) and an A/B would measure one tree twice.
    """
    where = subprocess.run(
        [sys.executable, "-c", "import bodoge; print(bodoge.__file__)"],
        cwd=tree,
        env=tree_env(tree),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if where.returncode != 0:
        return f"{tree}: python cannot import bodoge there:\n{where.stderr[-2000:]}"
    package = Path(where.stdout.strip()).resolve().parent
    if package != (tree / "bodoge").resolve():
        return f"{tree} is not a bodoge source tree (bodoge is imported from {package})"
    return None


def _serve_flags(tree: Path) -> str:
    """``bodoge serve --help`` of ``tree``: which flags its server knows."""
    done = subprocess.run(
        [sys.executable, "-m", "bodoge", "serve", "--help"],
        cwd=tree,
        env=tree_env(tree),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bodoge serve --help failed in {tree}:\n{done.stderr[-2000:]}")
    return done.stdout


#: The ``bodoge serve`` options the bench turns off (0), where the server has them.
UNLIMITED = (
    "--max-connections-per-address",
    "--new-players-per-hour",
    "--waiting-tables-per-player",
    "--tables-per-hour",
    "--uploads-per-hour",
)
#: The server's own background work that the bench turns off (0), where the server has it:
#: a first start makes puzzles with the solver in a thread — some 30 s of a core and tens of
#: MiB of numpy arrays, gone once made but leaving the allocator's heap grown — which would
#: be counted as the players' CPU and memory (a bench's store is always new).
BACKGROUND = ("--initial-puzzles",)


def serve_command(data: Path, help_text: str) -> list[str]:
    """``bodoge serve`` for the bench, with only the flags that ``--help`` lists.

    >>> serve_command(Path("/d"), "--bot-workers N")[-2:]
    ['--bot-workers', '0']
    """
    command = [sys.executable, "-m", "bodoge", "serve", "--port", "0", "--data", str(data)]
    command += ["--bot-workers", "0"]
    # Every client of the bench comes from this machine's address, and makes a player and
    # tables faster than a person would: no cap or quota of an address or a player applies.
    for flag in UNLIMITED + BACKGROUND:
        if flag in help_text:
            command += [flag, "0"]
    return command


def start_server(
    data: Path, tree: Path, extra: list[str] | None = None
) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        serve_command(data, _serve_flags(tree)) + (extra or []),
        cwd=tree,
        env=tree_env(tree),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    )
    assert process.stdout is not None
    seen = []
    for line in process.stdout:
        seen.append(line)
        found = re.search(r"serving on (http://\S+?/)\s", line)
        if found:
            # The server prints localhost for a browser; the bench's client skips the lookup.
            url = found.group(1).replace("//localhost:", "//127.0.0.1:")
            return process, url.replace("http://", "ws://") + "ws"
    raise RuntimeError("the server did not start:\n" + "".join(seen[-30:]))


#: The histograms of ``/metrics`` the bench reads beside ``/api/stats``: each group commit's
#: duration, and each move's time from the start of its commit to its frames queued.
HISTOGRAMS = {"commit": "bodoge_commit_seconds", "fanout": "bodoge_move_fanout_seconds"}


def histograms(text: str) -> dict[str, list[list[float]]]:
    """The cumulative buckets ``[[le, count], …]`` of :data:`HISTOGRAMS` in a ``/metrics`` page.

    >>> histograms('bodoge_commit_seconds_bucket{le="0.005"} 3.0\\n'
    ...            'bodoge_commit_seconds_bucket{le="+Inf"} 4.0\\n')
    {'commit': [[0.005, 3.0], [inf, 4.0]]}
    """
    found: dict[str, list[list[float]]] = {}
    for key, name in HISTOGRAMS.items():
        pattern = rf'^{name}_bucket\{{le="([^"]+)"\}} ([\d.e+]+)$'
        buckets = [[float(le), float(n)] for le, n in re.findall(pattern, text, re.M)]
        if buckets:
            found[key] = buckets
    return found


def server_stats(url: str, *, frozen: bool = False) -> dict[str, JSON] | None:
    """``GET /api/stats`` of the server at ws:// ``url`` (``None``: it has none), with the
    :data:`HISTOGRAMS` of its ``/metrics`` under ``"metrics"`` where it has them;
    ``frozen``: with the count of frozen objects (a pause of the server's loop)."""
    base = re.sub(r"^ws", "http", url).removesuffix("/ws")
    http = base + "/api/stats" + ("?frozen=1" if frozen else "")
    try:
        # A server setting up thousands of tables on a busy machine may take a while.
        with urllib.request.urlopen(http, timeout=120) as response:
            stats: dict[str, JSON] = json.loads(response.read())
        try:
            with urllib.request.urlopen(base + "/metrics", timeout=120) as response:
                found = histograms(response.read().decode())
            if found:
                stats["metrics"] = cast(JSON, found)
        except (OSError, ValueError):
            pass  # an older server: no such figures
        return stats
    except urllib.error.HTTPError as exc:
        if exc.code != 404:
            print(f"  (GET /api/stats: {exc})", file=sys.stderr)
    except (OSError, ValueError) as exc:
        print(f"  (GET /api/stats: {exc!r})", file=sys.stderr)
    return None


def proc_status(pid: int, key: str) -> int:
    """A ``/proc/<pid>/status`` figure in KiB (0 where there is no /proc)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(rf"^{key}:\s+(\d+) kB", text, re.M)
    return int(found.group(1)) if found else 0


def run_queue_seconds(pid: int) -> float:
    """Seconds the process's main thread has waited for a CPU, ready to run
    (``/proc/<pid>/schedstat``; 0 where there is none)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time so far (``/proc/<pid>/stat``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

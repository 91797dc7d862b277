"""``bodoge bench server --cluster N``: N cluster processes behind nginx, and an owner killed.

The figures are the single server's, for all the processes together; through nginx (the
default) the seats of one table land on different processes. ``--kill-owner-after`` kills
the process that owns the most live tables with SIGKILL under load: its clients come back
through nginx and resync, and the bench prints the claim time (bounded by the lease), the
takeover time and the acknowledged moves the database does not hold (there must be none).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.support.databases import PG_ADMIN, REDIS, require

ROOT = Path(__file__).resolve().parents[2]


def _bench(*flags: str) -> subprocess.CompletedProcess[str]:
    require(PG_ADMIN, 5432, "PostgreSQL")
    require(REDIS, 6379, "Redis")
    command = [sys.executable, "-m", "bodoge", "bench", "server"]
    command += ["--cluster-pg", PG_ADMIN, "--cluster-redis", REDIS, *flags]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "dropping the bench's database" not in done.stderr, done.stderr
    return done


def test_the_direct_cluster_bench_prints_the_same_figures() -> None:
    out = _bench(
        *("--cluster", "2", "--direct", "--tables", "2", "--players", "2"),
        *("--duration", "3", "--think", "0.05", "--arrival", "0.3"),
    ).stdout
    assert "2 cluster processes, clients spread seat by seat (--direct" in out, out
    assert "clients connected: 4" in out
    moves = re.search(r"= ([\d.]+) moves/s", out)
    assert moves and float(moves.group(1)) > 3, out
    assert re.search(r"median [\d.]+ ms, p99 [\d.]+ ms", out), out
    assert re.search(r"server CPU \(2 processes together\): [\d.]+ s per 1,000 moves", out), out
    peak = re.search(r"peak \(VmHWM\) (\d+) MiB", out)
    assert peak and int(peak.group(1)) > 20, out
    assert "nginx" not in out, out
    assert "acknowledged moves lost: 0 of " in out, out
    assert "errors" not in out, out


def test_an_owner_killed_under_load_behind_nginx_loses_no_acknowledged_move() -> None:
    out = _bench(
        *("--cluster", "3", "--tables", "4", "--players", "3", "--duration", "10"),
        *("--think", "0.05", "--arrival", "0.2", "--kill-owner-after", "2"),
    ).stdout
    assert "3 cluster processes, clients through nginx (round-robin, no sticky sessions)" in out
    assert "the owner of the most live tables killed 2 s in" in out, out
    assert "clients connected: 12" in out, out
    assert re.search(r"nginx \(load balancer\) CPU: \d+% of one core", out), out
    killed = re.search(
        r"owner killed \(SIGKILL, pid \d+\) with (\d+) live tables; (\d+) moved", out
    )
    assert killed, out
    owned, moved = int(killed.group(1)), int(killed.group(2))
    # Every table it owned played on (but a game whose clients gave up while setting it up).
    given_up = re.search(r"(\d+) given up by their clients", out)
    assert owned >= 1 and moved >= 1, out
    assert moved + (int(given_up.group(1)) if given_up else 0) == owned, out
    assert "never did" not in out, out
    claim = re.search(
        r"claim time .*: median ([\d.]+) s, max ([\d.]+) s; the lease had ([\d.]+) s left at"
        r" the kill, so the claim came (-?[\d.]+) s after it ran out",
        out,
    )
    assert claim, out
    # The lease bounds the claim: the others look right after it ran out.
    assert float(claim.group(2)) <= float(claim.group(3)) + 1.0, out
    assert 0 <= float(claim.group(4)) < 1.5, out  # a fraction of a second; more when starved
    takeover = re.search(r"takeover time .*: median ([\d.]+) s, max ([\d.]+) s", out)
    assert takeover, out
    assert float(takeover.group(1)) >= float(claim.group(1)) - 0.1, out  # moves after the claim
    # The lease is 5 s at most; the rest is the clients coming back and a think time.
    assert 0 < float(takeover.group(1)) <= float(takeover.group(2)) < 8, out
    lost = re.search(r"acknowledged moves lost: (\d+) of (\d+)", out)
    assert lost and lost.group(1) == "0" and int(lost.group(2)) > 50, out
    assert re.search(r"clients reconnected: [1-9]", out), out
    # Only what a kill explains: requests cut with the connection, no owner for a moment, or
    # a move sent on a replica that had not yet shown the dead owner's last move.
    errors = re.search(r"errors seen by clients: \d+ \((.*)\)", out)
    if errors:
        for part in errors.group(1).split(", "):
            kind = part.rsplit(" ", 1)[0]
            explained = ("connection lost", "table_unavailable", "no reply in time")
            assert kind.endswith((*explained, "not_your_turn")), out
    assert "Traceback" not in out, out


def test_the_kill_needs_a_cluster_of_two() -> None:
    command = [sys.executable, "-m", "bodoge", "bench", "server", "--cluster", "1"]
    command += ["--kill-owner-after", "1"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--kill-owner-after needs --cluster N with N >= 2" in done.stderr


def test_the_embedded_server_and_a_cluster_process_alternate_with_their_ratio() -> None:
    """``--cluster 0,1``: the embedded server (size 0: SQLite, no Redis) and one cluster
    process, alternated under the same clients, and the cluster's CPU per move over the
    embedded server's."""
    out = _bench(
        *("--cluster", "0,1", "--rounds", "2", "--direct", "--tables", "2", "--players", "2"),
        *("--duration", "3", "--think", "0.05", "--arrival", "0.3"),
    ).stdout
    assert out.count("[") >= 4 and "[4/4]" in out, out
    assert out.count("1 cluster process, clients spread seat by seat") == 2, out
    embedded = re.search(r"embedded server: ([\d.]+), ([\d.]+) \(mean ([\d.]+)\)", out)
    cluster = re.search(r"1 cluster process: [\d., ]+\(mean ([\d.]+)\) = ([\d.]+)×", out)
    assert embedded and cluster, out
    ratio = float(cluster.group(1)) / float(embedded.group(3))
    assert abs(ratio - float(cluster.group(2))) < 0.02, out


def test_the_embedded_server_goes_with_a_cluster_size() -> None:
    command = [sys.executable, "-m", "bodoge", "bench", "server", "--cluster", "0"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "0, the embedded server, goes with a cluster size, as in 0,1" in done.stderr

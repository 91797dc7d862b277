"""The figures of a run, as lines of text."""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from itertools import pairwise

from bodoge.bench.backends import cost_lines
from bodoge.bench.kill import CLAIM_POLL, takeover_times
from bodoge.bench.measure import Outcome
from bodoge.core.values import JSON


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _gc_lines(before: dict[str, JSON] | None, after: dict[str, JSON] | None) -> list[str]:
    """The collector's passes between two ``/api/stats`` answers.

    Young passes (generations 0 and 1) and full ones (generation 2: CPython's own,
    or the sweeps of ``bodoge/server/services/collector.py``) are shown apart.
    """
    if before is None or after is None or "gc" not in after:
        return ["server GC: not measured (the server has no /api/stats)"]
    start, end = before["uptime"], after["uptime"]
    old, new = before["gc"]["generations"], after["gc"]["generations"]

    def spent(g: int, key: str) -> float:
        return float(new[g][key] - old[g][key])

    parts = [
        f"gen{g} {spent(g, 'collections'):.0f}× {spent(g, 'total_ms'):.0f} ms" for g in range(3)
    ]
    total = sum(spent(g, "total_ms") for g in range(3))
    cpu = sum(spent(g, "cpu_ms") for g in range(3))
    window = [p for p in after["gc"]["long_pauses"] if start < p[0] <= end]
    young = [p for p in window if p[1] < 2]
    if young:
        _, generation, longest, longest_cpu = max(young, key=lambda p: p[2])
        worst = f"longest young pause {longest:.1f} ms (gen{generation}, {longest_cpu:.1f} ms CPU)"
        over = sum(1 for p in young if p[2] > 20)
        count = sum(spent(g, "collections") for g in (0, 1))
        worst += f", {over} of {count:.0f} over 20 ms"
    else:
        worst = "longest young pause < 1 ms"
    full = [p for p in window if p[1] == 2]
    if full:
        _, _, longest, longest_cpu = max(full, key=lambda p: p[2])
        worst += f"; {len(full)} full pass(es), longest {longest:.1f} ms ({longest_cpu:.1f} ms CPU)"
    else:
        worst += "; no full pass of 1 ms or more"
    since = max(g["longest_ms"] for g in new)
    policy = f"threshold {tuple(after['gc']['threshold'])}"
    if "sweeps" in after["gc"]:
        sweeps = after["gc"]["sweeps"] - before["gc"]["sweeps"]
        swept = after["gc"]["swept"] - before["gc"]["swept"]
        policy += f"; sweeps in the window: {sweeps}, freeing {swept} objects"
        policy += f" ({after['gc']['sweeps']} since start-up)"
    return [
        f"server GC: {worst}",
        f"  {total:.0f} ms in all, {cpu:.0f} ms of CPU "
        f"({total / 10 / max(1e-9, end - start):.1f}% of the time): {', '.join(parts)}",
        f"  ({policy}; longest pause since start-up {since:.1f} ms)",
        *_histogram_lines(before["gc"], after["gc"]),
    ]


def _histogram_lines(before: dict[str, JSON], after: dict[str, JSON]) -> list[str]:
    """Every pass of the window by its length: wall-clock time, and CPU time (which other
    processes on a busy machine do not lengthen)."""
    if "histogram" not in after:
        return []
    bounds = after["histogram"]["bounds_ms"]
    labels = [f"<{bounds[0]}"]
    labels += [f"{low}-{high}" for low, high in pairwise(bounds)]
    labels.append(f">{bounds[-1]}")
    lines = []
    for kind in ("wall", "cpu"):
        counts = [
            new - old
            for new, old in zip(after["histogram"][kind], before["histogram"][kind], strict=True)
        ]
        shown = [f"{label} ms: {n}" for label, n in zip(labels, counts, strict=True) if n]
        lines.append(f"  pauses by {kind} time: {', '.join(shown) or 'none'}")
    return lines


def _bucket_of(bounds: Sequence[float], counts: Sequence[int], q: float) -> str:
    """The bucket of a histogram in which its ``q`` quantile falls.

    >>> _bucket_of([1, 5, 20], [90, 9, 1, 0], 0.5), _bucket_of([1, 5, 20], [90, 9, 0, 1], 0.999)
    ('< 1 ms', '> 20 ms')
    >>> _bucket_of([1, 5, 20], [90, 9, 1, 0], 0.99)
    '1–5 ms'
    """
    total = sum(counts)
    seen = 0
    for i, count in enumerate(counts):
        seen += count
        if seen >= q * total and count:
            if i == 0:
                return f"< {bounds[0]:g} ms"
            if i == len(bounds):
                return f"> {bounds[-1]:g} ms"
            return f"{bounds[i - 1]:g}–{bounds[i]:g} ms"
    return "-"


def _stall_split(stalls: Sequence[Sequence[float]], tick_ms: float) -> str:
    """How late the loop's stalls came in all, and whose the time was: the process's own
    work (CPU, of it the collector's passes) or the machine's (waiting for a CPU)."""
    late = sum(s[1] for s in stalls)
    cpu = sum(s[2] for s in stalls)
    collector = sum(s[3] for s in stalls)
    queued = sum(s[4] for s in stalls)
    rest = max(0.0, late + tick_ms * len(stalls) - cpu - queued)
    return (
        f"{len(stalls)} stall(s) of 50 ms or more, {late:.0f} ms late in all; their time: "
        f"{cpu:.0f} ms its own work (of it {collector:.0f} ms the collector), "
        f"{queued:.0f} ms waiting for a CPU, {rest:.0f} ms neither"
    )


def _histogram_quantiles(
    before: dict[str, JSON] | None, after: dict[str, JSON] | None
) -> list[str]:
    """The store's group commits and the moves' fan-out over the window, from ``/metrics``."""
    if before is None or after is None or "metrics" not in after or "metrics" not in before:
        return []
    labels = {
        "commit": "group commits of the store (each one's duration)",
        "fanout": "a move's commit start → its frames queued to every seat",
    }
    lines = []
    for key, label in labels.items():
        old, new = before["metrics"].get(key), after["metrics"].get(key)
        if not old or not new or len(old) != len(new):
            continue
        cumulative = [b[1] - a[1] for a, b in zip(old, new, strict=True)]
        counts = [c - p for p, c in zip([0.0, *cumulative], cumulative, strict=False)]
        bounds = [b[0] * 1e3 for b in new[:-1]]
        total = int(cumulative[-1])
        if total:
            lines.append(
                f"{label}: median {_bucket_of(bounds, counts, 0.5)}, "
                f"p99 {_bucket_of(bounds, counts, 0.99)}, over {total}"
            )
    return lines


def _loop_lines(outcome: Outcome) -> list[str]:
    """How late the event loops ran (the server's and the clients') and whose the lag was."""
    lines = []
    before, after = outcome.before, outcome.after
    if before is not None and after is not None and "loop" in after and "loop" in before:
        old, new = before["loop"], after["loop"]
        bounds = new["histogram"]["bounds_ms"]
        counts = [
            b - a for a, b in zip(old["histogram"]["lag"], new["histogram"]["lag"], strict=True)
        ]
        window = [s for s in new["stalls"] if before["uptime"] < s[0] <= after["uptime"]]
        longest = max((s[1] for s in window), default=0.0)
        lines.append(
            f"server event loop (a tick every {new['tick_ms']:g} ms): lag median "
            f"{_bucket_of(bounds, counts, 0.5)}, p99 {_bucket_of(bounds, counts, 0.99)}, "
            f"p99.9 {_bucket_of(bounds, counts, 0.999)}"
            + (f", longest {longest:.0f} ms" if window else "")
        )
        if window:
            lines.append("  " + _stall_split(window, new["tick_ms"]))
            worst = sorted(window, key=lambda s: -s[1])[:5]
            lines.append(
                "  worst stalls (s since start-up: ms late = CPU / collector / waiting for a CPU): "
                + ", ".join(
                    f"{s[0]:.1f}: {s[1]:.0f} = {s[2]:.0f}/{s[3]:.0f}/{s[4]:.0f}" for s in worst
                )
            )
        places = dict(new.get("stalled_in", []))
        for where, n in old.get("stalled_in", []):
            if where in places:
                places[where] -= n
        shown = sorted(((n, w) for w, n in places.items() if n > 0), reverse=True)[:5]
        if shown:
            lines.append(
                "  where its loop was during stalls (samples every 50 ms, innermost first): "
                + "; ".join(f"{where} ({n})" for n, where in shown)
            )
    stalls = [s for st in outcome.stats for s in st.loop.get("stalls", [])]
    ticks = [st.loop["tick_ms"] for st in outcome.stats if st.loop]
    if ticks:
        lines.append("  clients' loops: " + _stall_split(stalls, ticks[0]))
    wall = max(1e-9, outcome.wall)
    if outcome.pid:
        procs = len(outcome.stats) or 1
        lines.append(
            f"waiting for a CPU (ready to run, the run queue's time over the window): the "
            f"server's main thread {outcome.server_waited / wall * 100:.0f}% of the time, the "
            f"clients' {outcome.clients_waited / wall / procs * 100:.0f}% each; the clients' "
            f"CPU {outcome.clients_cpu / wall / procs * 100:.0f}% of a core each; load average "
            f"{outcome.load[0]:.1f} → {outcome.load[1]:.1f} on {os.cpu_count()} cores"
        )
    moves: list[str] = []
    if before is not None and after is not None and "move_ms" in after and "move_ms" in before:
        bounds = after["move_ms"]["bounds_ms"]
        counts = [
            b - a
            for a, b in zip(before["move_ms"]["counts"], after["move_ms"]["counts"], strict=True)
        ]
        if sum(counts):
            moves.append(
                "the server's own time per move (its frame read → its reply queued, after every "
                f"seat's frame): median {_bucket_of(bounds, counts, 0.5)}, "
                f"p99 {_bucket_of(bounds, counts, 0.99)}, over {sum(counts)} moves"
            )
    moves += _histogram_quantiles(before, after)
    lines += moves
    return lines


def _memory_lines(outcome: Outcome, clients: int) -> list[str]:
    """What each connected player costs the server: the memory it holds beyond what it held
    idle (started, no client), per connection and per table."""
    if not outcome.idle_kib or not clients:
        return []
    held = (outcome.rss_kib - outcome.idle_kib) * 1024
    line = (
        f"server memory per player: {held / clients / 1024:.1f} KiB per connection "
        f"(with its share of a table), {held / max(1, outcome.tables) / 1024:.1f} KiB per table "
        f"(over {outcome.idle_kib / 1024:.0f} MiB idle)"
    )
    gc_after = outcome.after.get("gc") if outcome.after else None
    if (
        isinstance(gc_after, dict)
        and isinstance(gc_after.get("frozen"), int)
        and len(outcome.pids) == 1
    ):
        line += f"; {gc_after['frozen'] / clients:.0f} frozen objects per connection"
    return [line]


def report(outcome: Outcome, indent: str = "  ") -> None:
    stats = outcome.stats
    moves = outcome.moves
    duration = outcome.duration
    lines = [f"clients connected: {sum(s.clients for s in stats)}"]
    lines.append(
        f"moves: {moves} in {duration:g} s = {moves / duration:.1f} moves/s "
        f"({sum(s.games for s in stats)} games finished)"
    )
    latencies = [x for s in stats for x in s.latencies]
    if latencies:
        lines.append(
            "move sent → every other seat has it: "
            f"median {statistics.median(latencies) * 1e3:.1f} ms, "
            f"p99 {percentile(latencies, 0.99) * 1e3:.1f} ms, max {max(latencies) * 1e3:.1f} ms "
            f"(over {len(latencies)} moves)"
        )
    lags = [x for s in stats for x in s.lags]
    if lags:
        lines.append(
            f"the clients' own event-loop lag: median {statistics.median(lags) * 1e3:.1f} ms, "
            f"p99 {percentile(lags, 0.99) * 1e3:.1f} ms, max {max(lags) * 1e3:.1f} ms"
        )
    lines += _loop_lines(outcome)
    sizes = [x for s in stats for x in s.event_bytes]
    if sizes:
        patches = sum(s.patches for s in stats)
        kind = "patch" if patches * 2 > len(sizes) else "whole view"
        lines.append(
            f"event frame ({outcome.players}-seat tables): "
            f"median {statistics.median(sizes):.0f} bytes "
            f"(p90 {percentile(sizes, 0.9):.0f}; {kind}; over {len(sizes)} frames)"
        )
    per_move = outcome.cpu_per_1000_moves
    if outcome.pid:
        cpu = f"{per_move:.2f} s per 1,000 moves" if per_move is not None else "no moves"
        together = f" ({len(outcome.pids)} processes together)" if len(outcome.pids) > 1 else ""
        lines.append(
            f"server CPU{together}: {cpu}, "
            f"{outcome.cpu / max(1e-9, outcome.wall) * 100:.0f}% of one core"
        )
        lines.append(
            f"server memory: peak (VmHWM) {outcome.peak_kib / 1024:.0f} MiB, "
            f"{outcome.rss_kib / 1024:.0f} MiB with every client connected, "
            f"{outcome.rss_end_kib / 1024:.0f} MiB once they hung up"
        )
        lines += _memory_lines(outcome, sum(s.clients for s in stats))
    if outcome.nginx_pid:
        lines.append(
            f"nginx (load balancer) CPU: {outcome.nginx_cpu / max(1e-9, outcome.wall) * 100:.0f}% "
            "of one core"
        )
    if outcome.costs is not None:
        lines += cost_lines(outcome.costs, moves, outcome.wall, outcome.cpu)
    lines += _gc_lines(outcome.before, outcome.after)
    lines += _kill_lines(outcome)
    errors = sum(s.errors for s in stats)
    if errors:
        kinds: dict[str, int] = {}
        for s in stats:
            for kind, count in s.kinds.items():
                kinds[kind] = kinds.get(kind, 0) + count
        each = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
        lines.append(f"errors seen by clients: {errors} ({each})")
    reconnects = sum(s.reconnects for s in stats)
    if reconnects:
        lines.append(f"clients reconnected: {reconnects}")
    for line in lines:
        print(indent + line, flush=True)


def _kill_lines(outcome: Outcome) -> list[str]:
    """The takeover after ``--kill-owner-after`` and the acknowledged moves lost."""
    lines = []
    kill = outcome.killed
    if kill is not None:
        acked = [a for s in outcome.stats for a in s.acked]
        moved = takeover_times(kill, acked, outcome.committed)
        times = sorted(moved.values())
        given_up = (kill.tables - moved.keys()) & {t for s in outcome.stats for t in s.abandoned}
        never = len(kill.tables - moved.keys() - given_up)
        lines.append(
            f"owner killed (SIGKILL, pid {kill.pid}) with {len(kill.tables)} live tables; "
            f"{len(times)} moved again"
            + (f", {never} never did in the {kill.left:g} s left" if never else "")
            + (f", {len(given_up)} given up by their clients (setting up)" if given_up else "")
        )
        claims = sorted(kill.claims.values())
        if claims:
            unclaimed = len(kill.tables) - len(claims)
            lines.append(
                "claim time (kill → the table claimed by a new owner, its row polled every "
                f"{CLAIM_POLL * 1000:g} ms): median {statistics.median(claims):.2f} s, "
                f"max {claims[-1]:.2f} s"
                + (
                    f"; the lease had {kill.lease_left:.2f} s left at the kill, so the claim "
                    f"came {claims[-1] - kill.lease_left:.2f} s after it ran out"
                    if kill.lease_left is not None
                    else ""
                )
                + (f"; {unclaimed} never claimed" if unclaimed else "")
            )
        if times:
            lines.append(
                "takeover time (kill → first move committed after it acknowledged, on a "
                "table it owned): "
                f"median {statistics.median(times):.2f} s, max {times[-1]:.2f} s"
            )
    if outcome.lost is not None:
        total = sum(len(s.acked) for s in outcome.stats)
        lines.append(
            f"acknowledged moves lost: {len(outcome.lost)} of {total} "
            "(each client's acknowledged moves against the database's history)"
        )
        for table, n, seat in outcome.lost[:5]:
            lines.append(f"  lost: {table} move {n} (seat {seat})")
    return lines


def size_table(rows: list[tuple[int, Outcome]]) -> list[str]:
    """The figures of runs on several cluster sizes, one line each."""
    lines = [
        "  N   moves/s   latency median / p99   CPU s/1000 moves   "
        "claim max   takeover median / max   acked lost   errors   "
        "per move: commits  PG xacts  Redis commands   CPU s/1000 moves: PG  Redis  nginx"
    ]
    for size, outcome in rows:
        latencies = [x for s in outcome.stats for x in s.latencies]
        latency = "-"
        if latencies:
            median, p99 = statistics.median(latencies), percentile(latencies, 0.99)
            latency = f"{median * 1e3:6.1f} / {p99 * 1e3:.1f} ms"
        per_move = outcome.cpu_per_1000_moves
        takeover, claim = "-", "-"
        if outcome.killed is not None:
            claims = outcome.killed.claims.values()
            claim = f"{max(claims):.2f} s" if claims else "none"
            acked = [a for s in outcome.stats for a in s.acked]
            times = sorted(takeover_times(outcome.killed, acked, outcome.committed).values())
            takeover = f"{statistics.median(times):.2f} / {times[-1]:.2f} s" if times else "none"
        lost = "-" if outcome.lost is None else str(len(outcome.lost))
        lines.append(
            f"{size:3d}   {outcome.moves / outcome.duration:7.1f}   {latency:>20}   "
            f"{per_move if per_move is not None else float('nan'):16.2f}   {claim:>9}   "
            f"{takeover:>21}   "
            f"{lost:>10}   {sum(s.errors for s in outcome.stats):6d}   " + _cost_columns(outcome)
        )
    return lines


def ratio_lines(rows: list[tuple[int, Outcome]]) -> list[str]:
    """Each cluster size's server CPU per move over the embedded server's (size 0), the runs
    of each size averaged; nothing without an embedded run.

    >>> from bodoge.bench.client import Stats
    >>> from bodoge.bench.measure import Outcome
    >>> def run(cpu: float) -> Outcome:
    ...     return Outcome([Stats(moves=1000)], 10.0, pid=1, cpu=cpu)
    >>> rows = [(0, run(2.0)), (1, run(2.8)), (0, run(2.2)), (1, run(3.2))]
    >>> for line in ratio_lines(rows):
    ...     print(line)
    server CPU s per 1,000 moves, embedded server: 2.00, 2.20 (mean 2.10)
      1 cluster process: 2.80, 3.20 (mean 3.00) = 1.43× the embedded server's
    """
    per_size: dict[int, list[float]] = {}
    for size, outcome in rows:
        if outcome.cpu_per_1000_moves is not None:
            per_size.setdefault(size, []).append(outcome.cpu_per_1000_moves)
    embedded = per_size.pop(0, None)
    if not embedded or not per_size:
        return []

    def runs(values: list[float]) -> str:
        return ", ".join(f"{v:.2f}" for v in values) + f" (mean {statistics.mean(values):.2f})"

    lines = [f"server CPU s per 1,000 moves, embedded server: {runs(embedded)}"]
    for size, values in sorted(per_size.items()):
        ratio = statistics.mean(values) / statistics.mean(embedded)
        processes = "process" if size == 1 else "processes"
        lines.append(
            f"  {size} cluster {processes}: {runs(values)} = {ratio:.2f}× the embedded server's"
        )
    return lines


def _cost_columns(outcome: Outcome) -> str:
    """A size's costs of PostgreSQL, Redis and nginx per move ("-": not measured)."""
    spent, moves = outcome.costs, outcome.moves
    if spent is None or not moves:
        return "-"
    pg = "-" if spent.pg_cpu is None else f"{spent.pg_cpu / moves * 1000:.2f}"
    return (
        f"{spent.group_commits / moves:16.2f}  {spent.pg_commits / moves:8.2f}  "
        f"{spent.redis_commands / moves:14.1f}   "
        f"{pg:>20}  {spent.redis_cpu / moves * 1000:5.2f}  "
        + (f"{spent.nginx_cpu / moves * 1000:5.2f}" if spent.nginx else "    -")
    )

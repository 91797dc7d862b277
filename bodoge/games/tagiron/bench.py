"""``bodoge bench tagiron``: how fast a full bot decision is, against plain enumeration.

A *decision* is what the normal bot computes on its turn: the posterior over
the target and the information of every face-up question.  Positions are fixed
and seeded: normal bots play a game for a few questions and the seat to move
decides.  With 4 players two more rows time the opening, which every game
meets: the first question (all 63,063,000 worlds) and the second (after one
answer).  Beside the solver, a straightforward reference walks every joint
world one by one (memoising each hand's answers, nothing more); with 4 players
it stops after a time cap and its time is extrapolated from the share of worlds
it walked.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from itertools import combinations

from rich.console import Console
from rich.table import Table

from bodoge.core.rng import derive_seed
from bodoge.games.tagiron.ai.position import Position, Question
from bodoge.games.tagiron.ai.solver import Deduction, face_up_variants
from bodoge.games.tagiron.ai.worlds import answer_key, unseen_tiles
from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.game import TagironGame
from bodoge.games.tagiron.moves import Ask
from bodoge.games.tagiron.rules import questions

#: Targets from the issue: median full decision, in seconds.
TARGETS = {2: 0.020, 3: 0.200, 4: 1.0}
#: The 4-player opening rows, by the number of questions asked before.
_STAGES = {0: "1st", 1: "2nd"}


def register_bench(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("tagiron", help="Tagiron solver: decision time vs plain enumeration")
    parser.add_argument("--players", default="2,3,4", help="player counts (default 2,3,4)")
    parser.add_argument("--positions", type=int, default=7, help="positions per player count")
    parser.add_argument("--repeats", type=int, default=3, help="timings per position")
    parser.add_argument(
        "--reference-cap",
        type=float,
        default=4.0,
        help="seconds the 4-player reference may walk per position before extrapolating",
    )
    parser.add_argument(
        "--reference-openings",
        type=int,
        default=3,
        help="positions of each 4-player opening row that the reference walks (default 3)",
    )
    parser.add_argument("--no-reference", action="store_true", help="time the solver only")
    parser.set_defaults(func=cmd_bench)


def bench_positions(players: int, count: int, asked: int | None = None) -> list[Position]:
    """Seeded positions: mid-game after 2–4 questions (1–3 with 4 players), or
    after exactly ``asked`` questions.

    The first question is drawn at random, the later ones are the normal bot's
    (the likeliest opening questions are no more typical than random ones).
    """
    game = TagironGame()
    out = []
    for i in range(count):
        label = "bench" if asked is None else f"bench-{asked}"
        seed = derive_seed(2024, label, players, i)
        state = game.setup(game.options({"players": players}), players, seed)
        rng = random.Random(seed)
        # with 4 players every seat answers every question, so fewer are asked
        mid_game = (1 if players == 4 else 2) + i % 3
        for number in range(mid_game if asked is None else asked):
            if number == 0:
                move = rng.choice(questions(state))
            else:
                position = Position.from_view(game.view(state, state.turn))
                bits = Deduction(position).question_bits()
                move = Ask(*max(bits, key=bits.__getitem__))
            state, _ = game.apply(state, state.turn, move)
        out.append(Position.from_view(game.view(state, state.turn)))
    return out


def decide(position: Position) -> Deduction:
    """The normal bot's computation: posterior and every face-up question's value."""
    d = Deduction(position)
    d.question_bits(face_up_variants(position.face_up))
    return d


# --- the plain reference -----------------------------------------------------------------


def _joint_worlds(position: Position) -> Iterator[tuple[tuple[int, ...], list[tuple[int, ...]]]]:
    """Every joint world, one at a time: (centre or opponent's hand, other hands)."""
    n = len(unseen_tiles(position.hand))
    k = position.k
    others = len(position.others)
    everything = tuple(range(n))

    def deal(rest: tuple[int, ...], seats: int) -> Iterator[list[tuple[int, ...]]]:
        if seats == 0:
            yield []
            return
        for hand in combinations(rest, k):
            left = tuple(t for t in rest if t not in hand)
            for more in deal(left, seats - 1):
                yield [hand, *more]

    if position.players == 2:
        for hand in combinations(everything, k):
            yield hand, [hand]
        return
    for hands in deal(everything, others):
        used = {t for h in hands for t in h}
        yield tuple(t for t in everything if t not in used), hands


def reference_decision(position: Position, cap: float | None = None) -> tuple[float, float]:
    """Plain enumeration: (seconds taken, share of the joint worlds walked)."""
    started = time.perf_counter()
    unseen = unseen_tiles(position.hand)
    others = position.others
    variants = face_up_variants(position.face_up)
    total = {2: math.comb(15, 5), 3: 756_756, 4: 63_063_000}[position.players]
    memo: dict[tuple[int, ...], tuple[str, ...]] = {}
    fits: dict[tuple[int, tuple[int, ...]], bool] = {}
    heard: dict[int, list[tuple[str, int | None, object]]] = {s: [] for s in others}
    for entry in position.log:
        if isinstance(entry, Question):
            for s, given in entry.answers:
                if s in heard:
                    heard[s].append((entry.card, entry.choice, answer_key(given)))

    def tiles(hand: tuple[int, ...]) -> tuple[str, ...]:
        found = memo.get(hand)
        if found is None:
            found = memo[hand] = tuple(unseen[i] for i in hand)
        return found

    def consistent(seat: int, hand: tuple[int, ...]) -> bool:
        key = (seat, hand)
        found = fits.get(key)
        if found is None:
            t = tiles(hand)
            found = all(answer_key(answer(c, t, ch)) == a for c, ch, a in heard[seat])
            fits[key] = found
        return found

    # each consistent world is valued as soon as it is met, so the cap bounds the whole
    joints: list[Counter] = [Counter() for _ in variants]
    walked = 0
    for target, hands in _joint_worlds(position):
        walked += 1
        if cap is not None and walked % 4096 == 0 and time.perf_counter() - started > cap:
            break
        if all(consistent(s, h) for s, h in zip(others, hands, strict=True)):
            for (card, choice), joint in zip(variants, joints, strict=True):
                replies = tuple(answer_key(answer(card, tiles(h), choice)) for h in hands)
                joint[tiles(target), replies] += 1
    for joint in joints:
        _mutual_information(joint)
    return time.perf_counter() - started, walked / total


def _mutual_information(joint: Counter) -> float:
    n = sum(joint.values())
    if not n:
        return 0.0
    left: Counter = Counter()
    right: Counter = Counter()
    for (a, b), c in joint.items():
        left[a] += c
        right[b] += c

    def h(counter: Counter) -> float:
        return -sum(c / n * math.log2(c / n) for c in counter.values())

    return h(left) + h(right) - h(joint)


# --- the command ---------------------------------------------------------------------------


def cmd_bench(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    try:
        counts = [int(x) for x in args.players.split(",")]
        if any(p not in (2, 3, 4) for p in counts):
            raise ValueError
    except ValueError:
        console.print("[red]--players takes a list of 2, 3 and 4[/]")
        return 2
    if args.repeats < 1:  # each position's time is the median of its timings
        console.print("[red]--repeats takes 1 or more[/]")
        return 2
    table = Table(title="Full bot decision (posterior + every face-up question), median")
    for column in ("players", "n", "worlds", "solver", "target", "reference", "ratio"):
        table.add_column(column, justify="right")
    rows: list[tuple[int, int | None]] = []
    for players in counts:
        rows.append((players, None))
        if players == 4:
            rows += [(4, 0), (4, 1)]
    notes = []
    for players, asked in rows:
        positions = bench_positions(players, args.positions, asked)
        for p in positions:  # warm the per-hand tables and the shared pair tables
            decide(p)
        times, worlds = [], []
        for p in positions:
            best = []
            for _ in range(args.repeats):
                t = time.perf_counter()
                d = decide(p)
                best.append(time.perf_counter() - t)
            times.append(statistics.median(best))
            worlds.append(d.worlds)
        solver = statistics.median(times)
        ref_text = ratio_text = "—"
        label = str(players) if asked is None else f"{players} ({_STAGES[asked]})"
        if not args.no_reference:
            cap = args.reference_cap if players == 4 else None
            walked = positions if asked is None else positions[: args.reference_openings]
            ref_times = []
            extrapolated = False
            for p in walked:
                seconds, share = reference_decision(p, cap)
                ref_times.append(seconds / share)
                extrapolated |= share < 1
            reference = statistics.median(ref_times)
            ref_text = _ms(reference) + ("*" if extrapolated else "")
            ratio_text = f"{reference / solver:,.0f}×"
            if len(walked) < len(positions):
                notes.append(f"{label}: the reference walked the first {len(walked)} positions.")
        ok = "✓" if solver < TARGETS[players] else "✗"
        table.add_row(
            label,
            str(len(positions)),
            f"{int(statistics.median(worlds)):,}",
            _ms(solver),
            f"< {_short(TARGETS[players])} {ok}",
            ref_text,
            ratio_text,
        )
    console.print(table)
    if not args.no_reference and 4 in counts:
        console.print(
            f"* extrapolated: the reference walked and valued the joint worlds for "
            f"{args.reference_cap:g} s per position and its time was scaled to all 63,063,000."
        )
    for note in notes:
        console.print(note)
    console.print(
        "Timed in one process after a warm-up (each seat's hand tables are built once per "
        "game); n = positions; worlds = consistent arrangements of the unseen tiles; "
        "4 (1st), 4 (2nd) = the first and second question of a 4-player game (no answer yet, "
        "one answer)."
    )
    return 0


def _short(seconds: float) -> str:
    return f"{seconds * 1000:g} ms" if seconds < 1 else f"{seconds:g} s"


def _ms(seconds: float) -> str:
    if seconds >= 10:
        return f"{seconds:,.0f} s"
    return f"{seconds * 1000:,.1f} ms" if seconds < 1 else f"{seconds:,.1f} s"

"""``bodoge tagiron solve | assist | selfplay | play``.

* ``solve POSITION.json [--json]``: exact deduction for one seat's position;
* ``assist``: a companion for a game at a real table;
* ``selfplay``: bots against bots, with win rates and confidence intervals,
  or ``--solo LEVEL[,LEVEL…]``: questions a lone asker needs until certain
  (several levels on the same deals, each compared with the first), or
  ``--review [--dump FILE]``: each level's mean review score with its 95%
  interval (and every game's reviews, a JSON line each, to study offline);
* ``play``: one person against a bot in the terminal (2 players);
* ``review GAME.json [--json]``: a finished game's review, every seat judged
  from what it knew (a history as ``GET /api/tables/{id}/history`` returns it).

Handlers return the exit status: 0, or 2 for a bad position or bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from rich.console import Console

from bodoge.core.values import JSON
from bodoge.games.tagiron.ai.position import Position, PositionError
from bodoge.games.tagiron.ai.solver import Deduction
from bodoge.games.tagiron.assist import Assistant
from bodoge.games.tagiron.terminal import (
    new_console,
    progress,
    render_deduction,
    render_review,
    render_scores,
    render_solo,
    render_solo_paired,
    render_tally,
)

if TYPE_CHECKING:  # the bots load only where they play
    from bodoge.games.tagiron.selfplay import ReviewedGame

LEVELS = ("easy", "normal", "expert")
SOLO_LEVELS = ("random", "easy", "normal", "expert")


def register(sub: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """Add ``bodoge tagiron …``; returns its subcommands, which ``bodoge puzzles`` joins."""
    parser = sub.add_parser("tagiron", help="Tagiron: deduction, companion, bots")
    tag = parser.add_subparsers(dest="tagiron", required=True, metavar="COMMAND")

    solve = tag.add_parser("solve", help="exact deduction for one seat's position")
    solve.add_argument("position", help="a position JSON file ('-' for standard input)")
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    solve.add_argument("--top", type=int, default=10, help="candidates to list (default 10)")
    solve.add_argument("--lang", choices=("ja", "en"), default="en", help="card texts")
    solve.set_defaults(func=cmd_solve)

    assist = tag.add_parser("assist", help="a companion for a game at a real table")
    assist.add_argument("--load", metavar="FILE", help="resume a saved session")
    assist.add_argument("--lang", choices=("ja", "en"), default="en", help="card texts")
    assist.set_defaults(func=cmd_assist)

    selfplay = tag.add_parser("selfplay", help="bots against bots, or a solo asker")
    selfplay.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    selfplay.add_argument(
        "--bots",
        default="expert,normal",
        help="levels by seat, comma-separated; the last fills the remaining seats",
    )
    selfplay.add_argument("--games", type=int, default=1000)
    selfplay.add_argument("--seed", type=int, default=1)
    selfplay.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    selfplay.add_argument(
        "--solo",
        metavar="LEVEL[,LEVEL…]",
        help="instead: questions one 2-player asker needs until certain (random, easy, "
        "normal, expert); several levels play the same deals, compared with the first",
    )
    selfplay.add_argument(
        "--review",
        action="store_true",
        help="review every game and print each level's mean review score",
    )
    selfplay.add_argument(
        "--dump",
        metavar="FILE",
        help="with --review: write each game's reviews to FILE, one JSON line a game",
    )
    selfplay.add_argument(
        "--rate",
        action="store_true",
        help="instead: fit the bits a question is worth on the way to certainty, from "
        "all-normal games (the review's unit)",
    )
    selfplay.set_defaults(func=cmd_selfplay)

    review = tag.add_parser("review", help="review a finished game, every seat")
    review.add_argument(
        "history", help="a game's history JSON, as the server's history endpoint returns it"
    )
    review.add_argument("--json", action="store_true", help="print one JSON object")
    review.add_argument("--lang", choices=("ja", "en"), default="en", help="card texts")
    review.set_defaults(func=cmd_review)

    play = tag.add_parser("play", help="play a 2-player game against a bot")
    play.add_argument("--bot", choices=LEVELS, default="easy", help="the bot's level")
    play.add_argument("--seed", type=int, help="the deal (default: random)")
    play.add_argument("--lang", choices=("ja", "en"), default="en", help="card texts")
    play.set_defaults(func=cmd_play)
    return tag


def _error(message: str) -> int:
    # plain text: a message must not be wrapped or styled when a script reads it
    print(f"error: {message}", file=sys.stderr)
    return 2


# --- solve ------------------------------------------------------------------------------


def read_position(path: str, stdin: IO[str] | None = None) -> Position:
    try:
        text = (stdin or sys.stdin).read() if path == "-" else Path(path).read_text("utf-8")
    except OSError as exc:
        raise PositionError(f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PositionError(f"{path} is not JSON: {exc}") from None
    return Position.from_json(data)


def solution_json(d: Deduction, top: int = 10) -> dict[str, JSON]:
    """The solve command's JSON: counts, likeliest targets, tiles, and question values."""
    bits = d.question_bits()
    return {
        "players": d.position.players,
        "seat": d.position.seat,
        "worlds": d.worlds,
        "candidates": d.candidate_count,
        "top": [{"tiles": list(t), "probability": p} for t, p in d.candidates(top)],
        "positions": d.slot_probabilities(),
        "tiles": d.tile_probabilities(),
        "questions": [
            {"card": card, "choice": choice, "bits": value}
            for (card, choice), value in sorted(bits.items(), key=lambda kv: -kv[1])
        ],
    }


def cmd_solve(args: argparse.Namespace) -> int:
    try:
        d = Deduction(read_position(args.position))
    except PositionError as exc:
        return _error(str(exc))
    if args.json:
        print(json.dumps(solution_json(d, args.top), ensure_ascii=False))
    else:
        render_deduction(new_console(), d, top=args.top, lang=args.lang)
    return 0


# --- selfplay ------------------------------------------------------------------------


def expand_levels(text: str, players: int) -> tuple[str, ...]:
    levels = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in levels if x not in LEVELS]
    if bad or not levels:
        raise ValueError(f"unknown bot level {bad[0] if bad else text!r} (easy, normal, expert)")
    if len(levels) > players:
        raise ValueError(f"{len(levels)} bots for {players} seats")
    return tuple(levels + [levels[-1]] * (players - len(levels)))


def cmd_selfplay(args: argparse.Namespace) -> int:
    # The bots take a while to load: only the commands that play load them.
    from bodoge.games.tagiron import selfplay as sp

    console = new_console()
    if args.games < 1:
        return _error("--games must be at least 1")
    if args.solo:
        solo = [level.strip() for level in args.solo.split(",")]
        unknown = [level for level in solo if level not in SOLO_LEVELS]
        if unknown or len(set(solo)) < len(solo):
            return _error(
                f"--solo takes distinct levels among {', '.join(SOLO_LEVELS)}, not {args.solo!r}"
            )
        rows: list[tuple[int, ...]] = []
        with progress(f"solo {', '.join(solo)}") as bar:
            task = bar.add_task("", total=args.games)
            for row in sp.run_solo_paired(solo, args.games, args.seed, jobs=args.jobs):
                rows.append(row)
                bar.advance(task)
        if len(solo) == 1:
            render_solo(console, solo[0], [row[0] for row in rows])
        else:
            render_solo_paired(console, sp.SoloSummary.of(solo, rows))
        return 0
    if args.rate:
        return _print_rate(console, args)
    try:
        levels = expand_levels(args.bots, args.players)
    except ValueError as exc:
        return _error(str(exc))
    if args.review:
        scores = sp.ScoreTally(levels)
        try:
            dump = open(args.dump, "w", encoding="utf-8") if args.dump else None  # noqa: SIM115
        except OSError as exc:
            return _error(f"cannot write {args.dump}: {exc.strerror}")
        with dump or contextlib.nullcontext(), progress(" vs ".join(levels) + " (reviewed)") as bar:
            task = bar.add_task("", total=args.games)
            for reviewed in sp.run_reviews(
                args.players, levels, args.games, args.seed, jobs=args.jobs
            ):
                scores.add(reviewed)
                if dump is not None:  # a line a game as it ends: a long run can be read meanwhile
                    dump.write(json.dumps(_dumped(reviewed), ensure_ascii=False) + "\n")
                    dump.flush()
                bar.advance(task)
        render_scores(console, scores, args.players)
        return 0
    tally = sp.Tally(args.players, levels)
    with progress(" vs ".join(levels)) as bar:
        task = bar.add_task("", total=args.games)
        for record in sp.run_games(args.players, levels, args.games, args.seed, jobs=args.jobs):
            tally.add(record)
            bar.advance(task)
    render_tally(console, tally)
    return 0


def _dumped(reviewed: ReviewedGame) -> dict[str, JSON]:
    record = reviewed.record
    return {
        "seed": record.seed,
        "levels": list(record.levels),
        "places": list(record.places),
        "seconds": round(reviewed.seconds, 4),
        "cpu_seconds": round(reviewed.cpu_seconds, 4),
        "seats": list(reviewed.seats),
    }


def _print_rate(console: Console, args: argparse.Namespace) -> int:
    from bodoge.games.tagiron.review_rate import fit_rate
    from bodoge.games.tagiron.review_value import RATE

    fit = fit_rate(args.players, args.games, args.seed)
    if not fit.points:
        return _error("no seat became certain in these games")
    console.print(
        f"{fit.games} all-normal games, {args.players} players: {len(fit.points)} questions "
        f"asked before certainty; fitted rate {fit.rate:.2f} bits a question "
        f"(the review's RATE {RATE}: mean error {fit.error(RATE):+.2f} questions)"
    )
    for start, n, asked, model in fit.bins():
        console.print(
            f"  H {start:g}–{start + 2:g} bits: {n} questions, {asked:.2f} asked until "
            f"certain, model {model:.2f}"
        )
    return 0


# --- review ---------------------------------------------------------------------------


def cmd_review(args: argparse.Namespace) -> int:
    from bodoge.games.tagiron.review import HistoryError, review_history

    try:
        path = args.history
        text = sys.stdin.read() if path == "-" else Path(path).read_text("utf-8")
        review = review_history(json.loads(text))
    except OSError as exc:
        return _error(f"cannot read {args.history}: {exc.strerror}")
    except json.JSONDecodeError as exc:
        return _error(f"{args.history} is not JSON: {exc}")
    except HistoryError as exc:
        return _error(str(exc))
    if args.json:
        print(json.dumps(review.to_json(), ensure_ascii=False))
    else:
        render_review(new_console(), review, lang=args.lang)
    return 0


# --- play -------------------------------------------------------------------------------


def cmd_play(args: argparse.Namespace) -> int:
    from bodoge.games.tagiron.play import TerminalGame  # loads the bots

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    game = TerminalGame(args.bot, seed, lang=args.lang)
    return game.run(sys.stdin, new_console())


# --- assist ------------------------------------------------------------------------------


def cmd_assist(args: argparse.Namespace) -> int:
    assistant = Assistant(lang=args.lang)
    console = new_console()
    if args.load:
        try:
            assistant.load(args.load)
        except (OSError, PositionError, ValueError) as exc:
            return _error(f"cannot load {args.load}: {exc}")
    return assistant.run(sys.stdin, console)

"""``bodoge tagiron solve | assist | selfplay | play``.

* ``solve POSITION.json [--json]``: exact deduction for one seat's position;
* ``assist``: a companion for a game at a real table;
* ``selfplay``: bots against bots, with win rates and confidence intervals,
  or ``--solo LEVEL[,LEVEL…]``: questions a lone asker needs until certain
  (several levels on the same deals, each compared with the first);
* ``play``: one person against a bot in the terminal (2 players).

Handlers return the exit status: 0, or 2 for a bad position or bad arguments.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from rich.console import Console
from rich.table import Table

from bodoge.core.values import JSON
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.position import Position, PositionError
from bodoge.games.tagiron.solver import Deduction

LEVELS = ("easy", "normal", "expert")
SOLO_LEVELS = ("random", "easy", "normal", "expert")


def register(sub: argparse._SubParsersAction) -> None:
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
    selfplay.set_defaults(func=cmd_selfplay)

    play = tag.add_parser("play", help="play a 2-player game against a bot")
    play.add_argument("--bot", choices=LEVELS, default="easy", help="the bot's level")
    play.add_argument("--seed", type=int, help="the deal (default: random)")
    play.add_argument("--lang", choices=("ja", "en"), default="en", help="card texts")
    play.set_defaults(func=cmd_play)


def _console() -> Console:
    return Console(highlight=False)


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


def card_label(card: str, choice: int | None, lang: str = "en") -> str:
    text = CARDS[card].text(lang)
    return f"{text} → {choice}" if choice is not None else text


def render_deduction(
    console: Console, d: Deduction, *, top: int = 10, lang: str = "en", questions: bool = True
) -> None:
    """The candidates, tile chances and question values as rich tables."""
    p = d.position
    target = "the opponent's hand" if p.players == 2 else "the centre"
    console.print(
        f"Seat {p.seat} of {p.players} · your tiles: [bold]{' '.join(p.hand)}[/] · "
        f"{d.worlds:,} arrangements · [bold]{d.candidate_count:,}[/] candidates for {target}"
    )
    table = Table(title="Likeliest candidates", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("tiles")
    table.add_column("chance", justify="right")
    for i, (tiles, prob) in enumerate(d.candidates(top), start=1):
        table.add_row(str(i), " ".join(tiles), f"{prob:.1%}")
    if d.candidate_count > top:
        table.caption = f"and {d.candidate_count - top:,} more"
    console.print(table)

    slots = Table(title="Each position (left to right)", title_justify="left")
    slots.add_column("pos", justify="right")
    slots.add_column("likeliest tiles")
    for i, probs in enumerate(d.slot_probabilities(), start=1):
        best = sorted(probs.items(), key=lambda kv: -kv[1])[:6]
        slots.add_row(str(i), "  ".join(f"{t} {q:.0%}" for t, q in best))
    console.print(slots)
    if p.players > 2:
        tiles = Table(title="Chance each tile is in the centre", title_justify="left")
        chances = d.tile_probabilities()
        tiles.add_column("tile")
        tiles.add_column("chance", justify="right")
        for code, q in sorted(chances.items(), key=lambda kv: -kv[1]):
            if q > 0:
                tiles.add_row(code, f"{q:.0%}")
        console.print(tiles)
    if questions:
        render_questions(console, d.question_bits(), lang)


def render_questions(console: Console, bits: dict, lang: str) -> None:
    if not bits:
        console.print("No question is face up.")
        return
    table = Table(title="Face-up questions: expected information", title_justify="left")
    table.add_column("card")
    table.add_column("choice", justify="right")
    table.add_column("question")
    table.add_column("bits", justify="right")
    for (card, choice), value in sorted(bits.items(), key=lambda kv: -kv[1]):
        text = CARDS[card].text(lang)
        table.add_row(card, "" if choice is None else str(choice), text, f"{value:.3f}")
    console.print(table)


def cmd_solve(args: argparse.Namespace) -> int:
    try:
        d = Deduction(read_position(args.position))
    except PositionError as exc:
        return _error(str(exc))
    if args.json:
        print(json.dumps(solution_json(d, args.top), ensure_ascii=False))
    else:
        render_deduction(_console(), d, top=args.top, lang=args.lang)
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


def _progress(total: int, description: str):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn(description),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )


def cmd_selfplay(args: argparse.Namespace) -> int:
    from bodoge.games.tagiron import selfplay as sp

    console = _console()
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
        with _progress(args.games, f"solo {', '.join(solo)}") as bar:
            task = bar.add_task("", total=args.games)
            for row in sp.run_solo_paired(solo, args.games, args.seed, jobs=args.jobs):
                rows.append(row)
                bar.advance(task)
        if len(solo) == 1:
            render_solo(console, solo[0], [row[0] for row in rows])
        else:
            render_solo_paired(console, sp.SoloSummary.of(solo, rows))
        return 0
    try:
        levels = expand_levels(args.bots, args.players)
    except ValueError as exc:
        return _error(str(exc))
    tally = sp.Tally(args.players, levels)
    with _progress(args.games, " vs ".join(levels)) as bar:
        task = bar.add_task("", total=args.games)
        for record in sp.run_games(args.players, levels, args.games, args.seed, jobs=args.jobs):
            tally.add(record)
            bar.advance(task)
    render_tally(console, tally)
    return 0


def render_solo(console: Console, level: str, counts: Sequence[int]) -> None:
    mean = statistics.mean(counts)
    half = 1.96 * statistics.stdev(counts) / len(counts) ** 0.5 if len(counts) > 1 else 0.0
    console.print(
        f"[bold]{level}[/] asking alone: [bold]{mean:.3f}[/] questions on average until the "
        f"opponent's hand is certain (95% CI {mean - half:.3f}–{mean + half:.3f}, "
        f"{len(counts)} deals)"
    )
    table = Table(title="Questions needed", title_justify="left")
    table.add_column("questions", justify="right")
    table.add_column("deals", justify="right")
    table.add_column("share", justify="right")
    for n in sorted(set(counts)):
        k = counts.count(n)
        table.add_row(str(n), str(k), f"{k / len(counts):.1%}")
    console.print(table)


def render_solo_paired(console: Console, summary) -> None:
    """Levels asking alone on the same deals, each against the first."""
    console.print(
        f"asking alone on the same {summary.deals} deals: questions on average until the "
        "opponent's hand is certain"
    )
    table = Table(title="By level", title_justify="left")
    for column in ("level", "mean", "95% CI", f"minus {summary.levels[0]}", "95% CI "):
        table.add_column(column, justify="left" if column == "level" else "right")
    for i, level in enumerate(summary.levels):
        mean, half = summary.means[i], summary.halves[i]
        diff = ("", "")
        if i:
            d, lo, hi = summary.differences[i - 1]
            diff = (f"{d:+.3f}", f"{lo:+.3f} to {hi:+.3f}")
        table.add_row(level, f"{mean:.3f}", f"{mean - half:.3f}–{mean + half:.3f}", *diff)
    console.print(table)
    for level, (d, lo, hi) in zip(summary.levels[1:], summary.differences, strict=True):
        verdict = "fewer" if hi < 0 else "more" if lo > 0 else "no significant difference"
        console.print(
            f"{level} − {summary.levels[0]}: {d:+.3f} questions per deal "
            f"(paired 95% CI {lo:+.3f} to {hi:+.3f}): {verdict}"
        )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def render_tally(console: Console, tally) -> None:
    from bodoge.games.tagiron.selfplay import decision_times, wilson

    distinct = list(dict.fromkeys(tally.levels))
    console.print(
        f"{tally.games} games, {tally.players} players, seats rotated · "
        f"{tally.questions / tally.games:.2f} questions per game"
    )
    table = Table(title="By level", title_justify="left")
    for column in ("level", "seats", "1st", "1st rate", "95% CI", "fair", "mean place"):
        table.add_column(column, justify="left" if column == "level" else "right")
    for level in distinct:
        seats = tally.seats[level]
        wins = tally.wins.get(level, 0)
        lo, hi = wilson(wins, seats)
        places = tally.places[level]
        table.add_row(
            level,
            str(seats),
            str(int(wins)),
            f"{wins / seats:.1%}",
            f"{lo:.1%}–{hi:.1%}",
            f"{1 / tally.players:.1%}",
            f"{sum(places) / len(places):.2f}",
        )
    console.print(table)
    if tally.players == 2 and len(distinct) == 2:
        a, b = distinct
        wa, wb = tally.wins.get(a, 0), tally.wins.get(b, 0)
        lo, hi = wilson(wa, wa + wb)
        console.print(
            f"Draws: {tally.draws} ({tally.draws / tally.games:.1%}). Decided games: "
            f"{int(wa + wb)}; [bold]{a}[/] won [bold]{wa / max(wa + wb, 1):.1%}[/] "
            f"(95% CI {lo:.1%}–{hi:.1%})"
        )
    pairs = Table(title="Head to head: finishing ahead (unplaced counts as last)")
    for column in ("level", "vs", "ahead", "behind", "ahead rate", "95% CI"):
        pairs.add_column(column, justify="left" if column in ("level", "vs") else "right")
    for (x, y), (ahead, behind) in sorted(tally.ahead.items()):
        if x != distinct[0]:
            continue
        lo, hi = wilson(ahead, ahead + behind)
        share = ahead / max(ahead + behind, 1)
        pairs.add_row(x, y, str(ahead), str(behind), f"{share:.1%}", f"{lo:.1%}–{hi:.1%}")
    if tally.players > 2:
        console.print(pairs)
    times = Table(title="Decision time per consultation (after every move; one process a job)")
    for column in ("level", "consultations", "median", "90%", "max"):
        times.add_column(column, justify="left" if column == "level" else "right")
    for level in distinct:
        seconds = tally.decisions.get(level, [])
        median, p90, most = decision_times(seconds)
        times.add_row(level, f"{len(seconds):,}", _ms(median), _ms(p90), _ms(most))
    console.print(times)


# --- play -------------------------------------------------------------------------------


def cmd_play(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    game = TerminalGame(args.bot, seed, lang=args.lang)
    return game.run(sys.stdin, _console())


class TerminalGame:
    """One person (seat 0) against a bot (seat 1) in a 2-player game."""

    HELP = (
        "Commands:\n"
        "  ask N [CHOICE]    ask face-up card number N (or its id); CHOICE for 1or2-style cards\n"
        "  declare T T T T T declare the bot's tiles in hand order, e.g. declare R1 B1 R3 B8 R9\n"
        "  pass              give up a turn in which you may only declare\n"
        "  solve             let the solver show what can be deduced (a hint)\n"
        "  log               show the questions and answers so far\n"
        "  show              show your tiles and the face-up cards again\n"
        "  help, quit"
    )

    def __init__(self, level: str, seed: int, *, lang: str = "en") -> None:
        from bodoge.games.tagiron.bots import make_bot
        from bodoge.games.tagiron.game import TagironGame

        self.game = TagironGame()
        self.state = self.game.setup(self.game.options({"players": 2}), 2, seed)
        self.bot = make_bot(level)
        self.level = level
        self.rng = random.Random(seed)
        self.lang = lang
        self.me = 0

    def run(self, stdin: IO[str], console: Console) -> int:
        self.console = console
        console.print(
            f"[bold]Tagiron[/] against the {self.level} bot. You are seat 0; "
            f"{'you start' if self.state.first == self.me else 'the bot starts'}. "
            "Type 'help' for commands."
        )
        shown = None
        while self.state.result is None:
            if self.state.turn != self.me:
                self._bot_turn()
                continue
            if shown is not self.state:  # show the table again only once it changed
                self.show()
                shown = self.state
            console.print("> ", end="")
            line = stdin.readline()
            if not line:
                console.print("\nBye.")
                return 0
            if not self.command(line.strip()):
                return 0
        self._finish()
        return 0

    def show(self) -> None:
        view = self.game.view(self.state, self.me)
        console = self.console
        console.print(f"\nYour tiles: [bold]{' '.join(view['hand'])}[/]")
        if view["face_up"]:
            table = Table(title="Face-up questions", title_justify="left")
            table.add_column("N", justify="right")
            table.add_column("id")
            table.add_column("question")
            for i, card in enumerate(view["face_up"], start=1):
                table.add_row(str(i), card, CARDS[card].text(self.lang))
            console.print(table)
        phase = view["phase"]
        if phase == "final_declaration":
            console.print("The bot declared right: this is your one final declaration.")
        elif phase == "last_turns":
            console.print("No questions are left: declare or pass.")

    def command(self, line: str) -> bool:
        from bodoge.core.errors import GameError
        from bodoge.games.tagiron.moves import Declare, Pass

        words = line.split()
        if not words:
            return True
        verb, rest = words[0].lower(), words[1:]
        try:
            if verb in ("quit", "exit", "q"):
                self.console.print("Bye.")
                return False
            if verb in ("help", "h", "?"):
                self.console.print(self.HELP)
                return True
            if verb == "log":
                self.print_log()
                return True
            if verb in ("show", "cards"):
                self.show()
                return True
            if verb == "solve":
                position = Position.from_view(self.game.view(self.state, self.me))
                render_deduction(self.console, Deduction(position), top=5, lang=self.lang)
                return True
            if verb == "ask":
                move = self._parse_ask(rest)
            elif verb == "declare":
                from bodoge.games.tagiron.position import parse_tiles

                move = Declare(parse_tiles(rest, 5, ordered=True))
            elif verb == "pass":
                move = Pass()
            else:
                self.console.print(f"[red]Unknown command {verb!r}.[/] Type 'help'.")
                return True
            self.state, _events = self.game.apply(self.state, self.me, move)
            self.report(self.me, move)
        except (GameError, PositionError, ValueError) as exc:
            self.console.print(f"[red]{exc}[/]")
        return True

    def _parse_ask(self, rest: Sequence[str]):
        from bodoge.games.tagiron.moves import Ask

        if not rest:
            raise ValueError("ask which card? e.g. 'ask 2' or 'ask where_1or2 1'")
        face_up = self.state.face_up
        key = rest[0]
        if key.isdigit() and 1 <= int(key) <= len(face_up):
            card = face_up[int(key) - 1]
        elif key in CARDS:
            card = key
        else:
            raise ValueError(f"no face-up card {key!r}: give its number 1–{len(face_up)}")
        choices = CARDS[card].choices
        choice = None
        if choices:
            if len(rest) < 2 or not rest[1].isdigit():
                raise ValueError(f"{card} needs a choice: {choices[0]} or {choices[1]}")
            choice = int(rest[1])
        elif len(rest) > 1:
            raise ValueError(f"{card} takes no choice")
        return Ask(card, choice)

    def report(self, seat: int, move: object) -> None:
        from bodoge.games.tagiron.events import Asked, Declared, Passed

        who = "You" if seat == self.me else "The bot"
        entry = self.state.log[-1] if self.state.log else None
        if isinstance(entry, Asked) and entry.seat == seat:
            answers = ", ".join(
                f"{'you' if s == self.me else 'bot'}: {json.dumps(a)}" for s, a in entry.answers
            )
            self.console.print(
                f"{who} asked [bold]{card_label(entry.card, entry.choice, self.lang)}[/] — "
                f"{answers}"
            )
        elif isinstance(entry, Declared) and entry.seat == seat:
            verdict = "[green]right[/]" if entry.right else "[red]wrong[/]"
            self.console.print(f"{who} declared {' '.join(entry.tiles)}: {verdict}")
        elif isinstance(entry, Passed):
            self.console.print(f"{who} passed.")

    def print_log(self) -> None:
        view = self.game.view(self.state, self.me)
        if not view["log"]:
            self.console.print("Nothing has happened yet.")
        for i, e in enumerate(view["log"], start=1):
            who = "you" if e["seat"] == self.me else "bot"
            if e["type"] == "question":
                answers = ", ".join(
                    f"{'you' if s == str(self.me) else 'bot'}: {json.dumps(a)}"
                    for s, a in e["answers"].items()
                )
                self.console.print(
                    f"{i}. {who} asked {card_label(e['card'], e['choice'], self.lang)} — {answers}"
                )
            elif e["type"] == "declaration":
                tiles = " ".join(e.get("tiles", []))
                self.console.print(
                    f"{i}. {who} declared {tiles}: {'right' if e['right'] else 'wrong'}"
                )
            else:
                self.console.print(f"{i}. {who} passed")

    def _bot_turn(self) -> None:
        seat = 1 - self.me
        view = self.game.view(self.state, seat)
        move = self.bot.act(view, seat, self.rng)
        if move is None:  # cannot happen on its turn; keep the table moving
            from bodoge.games.tagiron.moves import Pass

            move = Pass()
        self.state, _ = self.game.apply(self.state, seat, move)
        self.report(seat, move)

    def _finish(self) -> None:
        result = self.state.result
        assert result is not None
        hands = self.state.hands
        self.console.print(f"\nThe bot's tiles: [bold]{' '.join(hands[1 - self.me])}[/]")
        if result.draw:
            self.console.print("[bold]A draw.[/]")
        elif self.me in result.winners:
            self.console.print("[bold green]You win![/]")
        else:
            self.console.print("[bold red]The bot wins.[/]")


# --- assist ------------------------------------------------------------------------------


def cmd_assist(args: argparse.Namespace) -> int:
    from bodoge.games.tagiron.assist import Assistant

    assistant = Assistant(lang=args.lang)
    console = _console()
    if args.load:
        try:
            assistant.load(args.load)
        except (OSError, PositionError, ValueError) as exc:
            return _error(f"cannot load {args.load}: {exc}")
    return assistant.run(sys.stdin, console)

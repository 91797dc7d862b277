"""``bodoge illustori …``: Illustori's command-line tools.

Subcommands are added by the functions in :data:`SUBCOMMANDS`, each taking the
``illustori`` parser's subparsers; a new tool appends its own function there.

``bodoge illustori deck --seed 1 --count 60 --out cards/`` writes a deck's
cards as SVG files (``card-000.svg`` …), their names and alt text
(``cards.json``) and a contact sheet PNG of the whole deck with the card
numbers (``contact-sheet.png``, or ``--sheet PATH``).

``bodoge illustori selfplay --players 5 --games 200`` plays bot games
through the rules engine and prints how long they ran, how often each rule
fired and what the bots said (see :mod:`bodoge.games.illustori.selfplay`).

``bodoge illustori votes`` prints how often the bots vote OK on a fixed set
of apt, defensible and unrelated words (see
:mod:`bodoge.games.illustori.vote_cases`); ``bodoge illustori judge-eval`` does
the same on the held-out part of the larger judge set, traps included (see
:mod:`bodoge.games.illustori.judge_set`).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["SUBCOMMANDS", "add_deck", "add_judge_eval", "add_selfplay", "add_votes", "register"]

MAX_COUNT = 1000


def _count(text: str) -> int:
    value = int(text)
    if not 1 <= value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"between 1 and {MAX_COUNT}, not {value}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"at least 1, not {value}")
    return value


def add_deck(sub: argparse._SubParsersAction) -> None:
    """``bodoge illustori deck``: write a deck's cards and a contact sheet."""
    parser = sub.add_parser(
        "deck",
        help="write a deck's cards as SVG files and a contact sheet PNG",
        description="Write the cards of the deck with seed SEED as SVG files, their names "
        "(cards.json) and a contact sheet PNG with every card and its number.",
    )
    parser.add_argument("--seed", type=int, default=1, help="deck seed (default 1)")
    parser.add_argument(
        "--count", type=_count, default=60, help="number of cards, from card 0 (default 60)"
    )
    parser.add_argument("--out", type=Path, required=True, help="directory to write into")
    parser.add_argument(
        "--sheet",
        type=Path,
        help="where to write the contact sheet (default OUT/contact-sheet.png)",
    )
    parser.add_argument(
        "--columns", type=_positive, default=10, help="cards per row on the sheet (default 10)"
    )
    parser.add_argument(
        "--cell", type=_positive, default=200, help="card size on the sheet in pixels (default 200)"
    )
    parser.set_defaults(func=run_deck)


def run_deck(args: argparse.Namespace) -> int:
    """Write the deck; returns the exit status."""
    from rich.console import Console
    from rich.progress import Progress

    from bodoge.games.illustori import art
    from bodoge.games.illustori.cards import deck

    console = Console(stderr=True)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    sheet_path: Path = args.sheet or out / "contact-sheet.png"

    started = time.perf_counter()
    cards = deck(args.seed, args.count)
    with Progress(console=console, transient=True) as progress:
        writing = progress.add_task("Drawing cards", total=len(cards))
        for card in cards:
            (out / f"card-{card.number:03d}.svg").write_text(art.card_svg(card), "utf-8")
            progress.advance(writing)
        drawn = time.perf_counter() - started
        (out / "cards.json").write_text(
            json.dumps([c.to_json() for c in cards], ensure_ascii=False, indent=1) + "\n", "utf-8"
        )
        sheeting = progress.add_task("Contact sheet", total=len(cards))
        sheet = art.contact_sheet(
            cards,
            columns=min(args.columns, len(cards)),
            cell=args.cell,
            on_card=lambda: progress.advance(sheeting),
        )
        sheet_path.parent.mkdir(parents=True, exist_ok=True)
        sheet_path.write_bytes(art.png_bytes(sheet))
    console.print(
        f"Wrote {len(cards)} cards of deck {args.seed} to {out} in {drawn:.2f} s "
        f"and the contact sheet {sheet_path} ({sheet_path.stat().st_size // 1024} KiB)."
    )
    return 0


def _option(text: str) -> tuple[str, Any]:
    """``key=value`` with a JSON value (``true``, ``60``, ``null``), else the text itself."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"an option is key=value, not {text!r}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.strip(), value


def _levels(text: str) -> tuple[str, ...]:
    from bodoge.games.illustori.bots import BOT_LEVELS

    levels = tuple(level.strip() for level in text.split(",") if level.strip())
    unknown = [level for level in levels if level not in BOT_LEVELS]
    if not levels or unknown:
        raise argparse.ArgumentTypeError(
            f"levels are a comma-separated list of {', '.join(BOT_LEVELS)}, not {text!r}"
        )
    return levels


def add_selfplay(sub: argparse._SubParsersAction) -> None:
    """``bodoge illustori selfplay``: bots play many games; the rules' figures are printed."""
    parser = sub.add_parser(
        "selfplay",
        help="let bots play many games and print how the rules fired",
        description="Bots play GAMES games through the rules engine (every move is checked "
        "by it); prints game lengths and how often each rule fired.",
    )
    parser.add_argument(
        "--players", type=int, default=None, help="players at each table, 3-8 (default 5)"
    )
    parser.add_argument("--games", type=_positive, default=200, help="games to play (default 200)")
    parser.add_argument(
        "--seed", type=int, default=1, help="seed the games are drawn from (default 1)"
    )
    parser.add_argument(
        "--language", choices=("ja", "en"), default=None, help="the table's language (default ja)"
    )
    parser.add_argument(
        "--options",
        type=_option,
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="more table options, values as JSON: ban_same_ends=true deck_size=80 …",
    )
    parser.add_argument(
        "--levels",
        type=_levels,
        default=("normal",),
        help="bot levels by seat, comma-separated and repeated round the table (default normal)",
    )
    parser.add_argument(
        "--max-moves",
        type=_positive,
        default=None,
        help="give a game up after this many moves (default 5000)",
    )
    parser.set_defaults(func=run_selfplay)


def run_selfplay(args: argparse.Namespace) -> int:
    """Play the games and print the figures; returns the exit status."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    from rich.table import Table

    from bodoge.core.errors import BadOptions
    from bodoge.games.illustori import selfplay

    console = Console()
    # --players and --language win over the same keys in --options.
    options = {"players": 5, "language": "ja", **dict(args.options)}
    options.update({k: v for k in ("players", "language") if (v := getattr(args, k)) is not None})
    try:
        selfplay.GAME.options(options)
    except BadOptions as exc:
        console.print(f"[red]bad options:[/] {exc}")
        return 2
    max_moves = args.max_moves or selfplay.MAX_MOVES
    tally = selfplay.Tally()
    started = time.perf_counter()
    columns = (*Progress.get_default_columns()[:1], BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeRemainingColumn(), console=console, transient=True) as progress:
        task = progress.add_task("Playing", total=args.games)
        for record in selfplay.run_games(
            options, args.games, args.seed, args.levels, max_moves=max_moves
        ):
            tally.add(record)
            progress.advance(task)
    elapsed = time.perf_counter() - started
    shown = ", ".join(f"{k}={json.dumps(v)}" for k, v in options.items())
    table = Table(title=f"Illustori selfplay: {shown}; bots {','.join(args.levels)}")
    table.add_column("what")
    table.add_column("how much", overflow="fold")  # the sample of words wraps, whole
    for what, value in selfplay.summary_rows(tally):
        table.add_row(what, value)
    console.print(table)
    console.print(f"{tally.games} games in {elapsed:.1f} s ({elapsed / tally.games:.3f} s a game).")
    return 0


def add_votes(sub: argparse._SubParsersAction) -> None:
    """``bodoge illustori votes``: the bots' OK rates on the vote test set."""
    parser = sub.add_parser(
        "votes",
        help="print how often the bots vote OK on apt, defensible and unrelated words",
        description="Print the share of OK votes each bot level gives the fixed test set of "
        "words for cards: apt ones, loose but defensible ones, and unrelated ones.",
    )
    parser.add_argument(
        "--cases", action="store_true", help="list every case with the normal bot's chance of OK"
    )
    parser.set_defaults(func=run_votes)


def run_votes(args: argparse.Namespace) -> int:
    """Print the vote rates (and with ``--cases`` every case); returns the exit status."""
    from rich.console import Console
    from rich.table import Table

    from bodoge.games.illustori import vote_cases
    from bodoge.games.illustori.bots import make_bot

    console = Console()
    table = Table(title="Illustori bots' votes on the test set (share of OK)")
    table.add_column("bots, language")
    table.add_column("apt, defensible, unrelated")
    for what, value in vote_cases.rows():
        table.add_row(what, value)
    console.print(table)
    if args.cases:
        bot = make_bot("normal")
        listing = Table(title="cases (normal bot)")
        for column in ("language", "card", "word", "a person", "OK"):
            listing.add_column(column)
        for case in vote_cases.CASES:
            shown = vote_cases.case_card(case.card)
            chance = bot.ok_chance(shown, case.word, *case.stated(), case.language)
            listing.add_row(case.language, case.card, case.word, case.expected, f"{chance:.0%}")
        console.print(listing)
    return 0


def add_judge_eval(sub: argparse._SubParsersAction) -> None:
    """``bodoge illustori judge-eval``: the bots' OK rates on the held-out judge set."""
    parser = sub.add_parser(
        "judge-eval",
        help="print how often the bots vote OK on the held-out judge set, per label",
        description="Print the share of OK votes each bot level gives the words of the judge "
        "set (apt, defensible, unrelated, and traps that contain a name on the card), per "
        "language.  The held-out part is the default; the voter is tuned on the tune part.",
    )
    parser.add_argument(
        "--part",
        choices=("heldout", "tune"),
        default="heldout",
        help="which part (default heldout)",
    )
    parser.add_argument(
        "--wrong",
        action="store_true",
        help="list the cases the normal bot judges on the wrong side of one half",
    )
    parser.set_defaults(func=run_judge_eval)


def run_judge_eval(args: argparse.Namespace) -> int:
    """Print the judge set's rates (and with ``--wrong`` the misjudged cases)."""
    from rich.console import Console
    from rich.table import Table

    from bodoge.games.illustori import judge_set

    console = Console()
    table = Table(title=f"Illustori bots' votes on the judge set, {args.part} part (share of OK)")
    table.add_column("bots, language")
    table.add_column(", ".join(judge_set.LABELS))
    for what, value in judge_set.rows(args.part):
        table.add_row(what, value)
    console.print(table)
    if args.wrong:
        listing = Table(title="misjudged cases (normal bot)")
        for column in ("language", "card", "word", "a person", "OK"):
            listing.add_column(column)
        for case, chance in judge_set.misjudged(args.part):
            listing.add_row(case.language, case.card, case.word, case.expected, f"{chance:.0%}")
        console.print(listing)
    return 0


#: Functions that add one ``bodoge illustori`` subcommand each.
SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    add_deck,
    add_selfplay,
    add_votes,
    add_judge_eval,
]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``illustori`` and its subcommands to the ``bodoge`` command."""
    parser = subparsers.add_parser("illustori", help="Illustori tools (deck, …)")
    sub = parser.add_subparsers(dest="illustori_command", required=True, metavar="SUBCOMMAND")
    for add in SUBCOMMANDS:
        add(sub)

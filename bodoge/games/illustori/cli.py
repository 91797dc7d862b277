"""``bodoge illustori …``: Illustori's command-line tools.

Subcommands are added by the functions in :data:`SUBCOMMANDS`, each taking the
``illustori`` parser's subparsers; a new tool appends its own function there.

``bodoge illustori deck --seed 1 --count 60 --out cards/`` writes a deck's
cards as SVG files (``card-000.svg`` …), their names and alt text
(``cards.json``) and a contact sheet PNG of the whole deck with the card
numbers (``contact-sheet.png``, or ``--sheet PATH``).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["SUBCOMMANDS", "add_deck", "register"]

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


#: Functions that add one ``bodoge illustori`` subcommand each.
SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [add_deck]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``illustori`` and its subcommands to the ``bodoge`` command."""
    parser = subparsers.add_parser("illustori", help="Illustori tools (deck, …)")
    sub = parser.add_subparsers(dest="illustori_command", required=True, metavar="SUBCOMMAND")
    for add in SUBCOMMANDS:
        add(sub)

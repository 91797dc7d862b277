"""``bodoge relay play``: a whole Relay game between bots, its result printed as JSON.

Relay's commands exist to show that a registered game's ``cli`` module becomes
``bodoge <id> …`` with no edit to :mod:`bodoge.cli` (``tests/test_third_game.py``).
"""

from __future__ import annotations

import argparse
import json

from bodoge.core.rng import rng
from bodoge.games import get


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``relay`` and its one subcommand to the ``bodoge`` command."""
    parser = subparsers.add_parser("relay", help="Relay, the test game")
    sub = parser.add_subparsers(dest="relay_command", required=True, metavar="SUBCOMMAND")
    play = sub.add_parser("play", help="play a game between bots and print its result")
    play.add_argument("--players", type=int, default=3)
    play.add_argument("--rounds", type=int, default=3)
    play.add_argument("--seed", type=int, default=1)
    play.set_defaults(func=run_play)


def run_play(args: argparse.Namespace) -> int:
    game = get("relay")
    options = game.options({"players": args.players, "rounds": args.rounds})
    state = game.setup(options, game.seats(options), args.seed)
    bot = game.bot("plain")
    while (result := game.result(state)) is None:
        seat = min(game.to_act(state))
        move = bot.act(game.view(state, seat), seat, rng(args.seed, "bot"))
        assert move is not None, "a Relay bot always moves when awaited"
        state, _ = game.apply(state, seat, move)
    print(json.dumps(result.to_json()))
    return 0

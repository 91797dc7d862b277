"""The ``bodoge`` command: ``bodoge serve | admin | db | bench | nginx | tagiron … | illustori …``.

Each area registers its own subcommands, so this module only wires them up.
A command imports its module only when it runs: ``bodoge tagiron solve`` never
loads the server, the store or Illustori.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence

# Each command's module defines ``register(subparsers)``, adding the parser of that
# name; a subcommand stores its handler in ``func`` and the handler returns the exit
# status.  A game's commands come from its registration (``bodoge.games.GAMES``).
COMMAND_MODULES = {
    "serve": "bodoge.server.cli",
    "admin": "bodoge.server.admin",
    "db": "bodoge.server.db",
    "bench": "bodoge.bench",
    "nginx": "bodoge.cluster.nginx",
}


def command_modules(names: Sequence[str] | None = None) -> dict[str, str]:
    """Each command's module: the server's, then each registered game's that has commands.

    ``names`` limits the games looked up (each lookup imports that game's package).
    """
    from bodoge.games import GAMES, command_module

    found = dict(COMMAND_MODULES)
    for game_id in GAMES if names is None else [n for n in names if n in GAMES]:
        module = command_module(game_id)
        if module is not None:
            found.setdefault(game_id, module)
    return found


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or only of the command ``argv`` starts with.

    Without a known command first (``bodoge --help``, a typo) every command's module
    is imported, so the help and the error list them all.
    """
    parser = argparse.ArgumentParser(
        prog="bodoge", description="A self-hostable online table for Tagiron and Illustori."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    first = argv[0] if argv else None
    known = command_modules([first]) if first is not None else {}
    modules = {first: known[first]} if first in known else command_modules()
    for name, module in modules.items():
        added = importlib.import_module(module).register(sub)
        # a game's commands may take more: its puzzles (bodoge/puzzles_cli.py), if it has any
        if added is not None and has_puzzles(name):
            from bodoge import puzzles_cli

            puzzles_cli.register(added, name)
    return parser


def has_puzzles(name: str) -> bool:
    """Whether ``name`` is a game that makes puzzles (only its package is looked into)."""
    from bodoge.games import GAMES

    package = GAMES.get(name)
    return package is not None and importlib.util.find_spec(f"{package}.puzzles") is not None


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["tagiron"]:
        # Tagiron's matrices are small: OpenBLAS would run them on one thread anyway, but
        # starting its thread pool costs a command tens of milliseconds (set before numpy loads).
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    args = build_parser(argv).parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

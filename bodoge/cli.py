"""The ``bodoge`` command: ``bodoge serve | bench | tagiron ... | illustori ...``.

Each area registers its own subcommands, so this module only wires them up.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Modules that each define ``register(subparsers)``; a subcommand stores its
# handler in ``func`` and the handler returns the exit status.
COMMAND_MODULES = (
    "bodoge.server.cli",
    "bodoge.bench",
    "bodoge.games.tagiron.cli",
    "bodoge.games.illustori.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bodoge", description="A self-hostable online table for Tagiron and Illustori."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

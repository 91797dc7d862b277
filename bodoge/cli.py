"""The ``bodoge`` command: ``bodoge serve | admin | db | bench | tagiron ... | illustori ...``.

Each area registers its own subcommands, so this module only wires them up.
A command imports its module only when it runs: ``bodoge tagiron solve`` never
loads the server, the store or Illustori.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# Each command's module defines ``register(subparsers)``, adding the parser of that
# name; a subcommand stores its handler in ``func`` and the handler returns the exit
# status.
COMMAND_MODULES = {
    "serve": "bodoge.server.cli",
    "admin": "bodoge.server.admin",
    "db": "bodoge.server.db",
    "bench": "bodoge.bench",
    "tagiron": "bodoge.games.tagiron.cli",
    "illustori": "bodoge.games.illustori.cli",
}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or only of the command ``argv`` starts with.

    Without a known command first (``bodoge --help``, a typo) every command's module
    is imported, so the help and the error list them all.
    """
    parser = argparse.ArgumentParser(
        prog="bodoge", description="A self-hostable online table for Tagiron and Illustori."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    names = [argv[0]] if argv and argv[0] in COMMAND_MODULES else list(COMMAND_MODULES)
    for name in names:
        importlib.import_module(COMMAND_MODULES[name]).register(sub)
    return parser


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

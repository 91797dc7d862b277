"""``bodoge tagiron play``: one person against a bot in a 2-player game, in the terminal.

The game runs through :class:`~bodoge.games.tagiron.game.TagironGame` as on a
table: the bot sees only its seat's view, and the person types moves::

    >>> import io
    >>> from rich.console import Console
    >>> out = io.StringIO()
    >>> TerminalGame("easy", seed=1).run(io.StringIO("show\\nquit\\n"), Console(file=out))
    0
    >>> "Your tiles" in out.getvalue()
    True
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import IO

from rich.console import Console
from rich.table import Table

from bodoge.core.errors import GameError
from bodoge.games.tagiron.ai.bots import make_bot
from bodoge.games.tagiron.ai.position import Position, PositionError, parse_tiles
from bodoge.games.tagiron.ai.solver import Deduction
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.events import Asked, Declared, Passed
from bodoge.games.tagiron.game import TagironGame
from bodoge.games.tagiron.moves import Ask, Declare, Pass, TagironMove
from bodoge.games.tagiron.terminal import card_label, render_deduction


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
            move: TagironMove
            if verb == "ask":
                move = self._parse_ask(rest)
            elif verb == "declare":
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

    def _parse_ask(self, rest: Sequence[str]) -> Ask:
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

    def report(self, seat: int, move: TagironMove) -> None:
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

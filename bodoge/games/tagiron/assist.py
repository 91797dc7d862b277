"""``bodoge tagiron assist``: a companion for a Tagiron game at a real table.

Enter your tiles, then each question and its answers as they happen; the
assistant keeps the log, checks every entry against everything before it, and
shows the candidates and the best question to ask.  A session saves to the
same JSON as ``bodoge tagiron solve`` reads, so a saved game can be solved too.

It is a plain line-by-line loop, so scripts can drive it::

    >>> import io
    >>> from rich.console import Console
    >>> out = io.StringIO()
    >>> script = "2\\n0\\nR0 B0 R1 B1 R2\\nask 0 total_sum 1=40\\nquit\\n"
    >>> Assistant().run(io.StringIO(script), Console(file=out, width=120))
    0
    >>> "4 candidates" in out.getvalue()
    True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from rich.console import Console
from rich.table import Table

from bodoge.core.values import JSON
from bodoge.games.tagiron.ai.position import Position, PositionError, parse_tiles
from bodoge.games.tagiron.ai.solver import Deduction, Variant, face_up_variants
from bodoge.games.tagiron.answers import answer
from bodoge.games.tagiron.cards import CARDS, answering_seats, cards_for
from bodoge.games.tagiron.options import hand_size
from bodoge.games.tagiron.terminal import card_label, render_deduction, render_questions

HELP = """\
[bold]Entering what happens[/] (seats are numbered 0, 1, … clockwise; 'me' is your seat)
  ask SEAT CARD [CHOICE] [S=ANSWER …]  a question: who asked, the card id (or its number in
                                      'cards'), the chosen number on 1or2-style cards, and
                                      the answers (asked for one by one if left out)
  declare SEAT right|wrong [TILES]    a declaration (tiles only if you heard them)
  pass SEAT                           a pass
  faceup [CARD …]                     set the face-up cards (shows them without CARDs)
  new CARD                            a card turned up to refill the row
[bold]Seeing[/]
  show        candidates, chances and the best question     best   every question's value
  log         the entries so far                            cards  every card id and text
[bold]Session[/]
  undo        take back the last entry                      save FILE / load FILE
  lang ja|en  card texts in Japanese or English             help / quit
Answers: a number; positions like '1 3' or 'none'; runs like '1-2 4-5' or 'none';
'high' or 'low' for the middle tile.  In 'S=ANSWER' form use commas: 1=1,3  2=1-2,4-5"""


class AssistError(ValueError):
    """A line the assistant cannot take; nothing is changed."""


def parse_answer(card: str, text: str) -> JSON:
    """An answer as typed at the table, in the answer's JSON shape.

    >>> parse_answer("where_5", "2 3"), parse_answer("same_colour_runs", "1-2,4-5")
    ([2, 3], [[1, 2], [4, 5]])
    >>> parse_answer("centre_high_low", "5以上"), parse_answer("red_sum", "13")
    ('high', 13)
    """
    text = text.strip()
    kind = CARDS[card].kind
    if text.startswith(("[", '"')):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise AssistError(f"cannot read the answer {text!r}") from None
    none = text.lower() in ("none", "-", "", "なし", "無し", "no")
    if kind == "number":
        try:
            return int(text)
        except ValueError:
            raise AssistError(f"{card} is answered with a number, not {text!r}") from None
    if kind == "high_low":
        low = text.lower()
        if low in ("high", "h", "5+", "5以上", "以上", "hi"):
            return "high"
        if low in ("low", "l", "4-", "4以下", "以下", "lo"):
            return "low"
        raise AssistError("answer 'high' (5 or more) or 'low' (4 or less)")
    if none:
        return []
    parts = text.replace(",", " ").split()
    try:
        if kind == "positions":
            return sorted(int(p) for p in parts)
        runs = []
        for part in parts:
            first, last = part.split("-")
            runs.append([int(first), int(last)])
        return sorted(runs)
    except ValueError:
        example = "'2 3'" if kind == "positions" else "'1-2 4-5'"
        raise AssistError(f"{card} is answered like {example} or 'none', not {text!r}") from None


class Assistant:
    def __init__(self, *, lang: str = "en") -> None:
        self.lang = lang
        self.players: int | None = None
        self.seat = 0
        self.hand: tuple[str, ...] = ()
        self.face_up: list[str] = []
        self.log: list[dict[str, JSON]] = []
        self._history: list[tuple[list[dict[str, JSON]], list[str]]] = []
        self.console = Console()

    # --- the loop -----------------------------------------------------------------

    def run(self, stdin: IO[str], console: Console) -> int:
        self.console = console
        self._stdin = stdin
        console.print("[bold]Tagiron companion[/] — type 'help' at any time.")
        if self.players is None and not self._setup():
            return 0
        self.summary()
        while True:
            line = self._ask("> ")
            if line is None:
                return 0
            try:
                if not self.handle(line):
                    return 0
            except (AssistError, PositionError) as exc:
                console.print(f"[red]{exc}[/]")

    def _ask(self, prompt: str) -> str | None:
        self.console.print(prompt, end="")
        line = self._stdin.readline()
        if not line:
            self.console.print()
            return None
        return line.strip()

    def _setup(self) -> bool:
        while self.players is None:
            line = self._ask("How many players (2, 3 or 4)? ")
            if line is None or line == "quit":
                return False
            if line.strip() in ("2", "3", "4"):
                self.players = int(line)
            else:
                self.console.print("[red]Type 2, 3 or 4.[/]")
        while True:
            line = self._ask(f"Your seat, clockwise from 0 (0–{self.players - 1}, Enter for 0)? ")
            if line is None or line == "quit":
                return False
            if line == "":
                self.seat = 0
                break
            if line.isdigit() and int(line) < self.players:
                self.seat = int(line)
                break
            self.console.print(f"[red]Type a number from 0 to {self.players - 1}.[/]")
        size = hand_size(self.players)
        while True:
            line = self._ask(f"Your {size} tiles (e.g. R1 B1 G5 R8 B9)? ")
            if line is None or line == "quit":
                return False
            try:
                self.hand = parse_tiles(line, size, ordered=False)
                break
            except PositionError as exc:
                self.console.print(f"[red]{exc}[/]")
        self.console.print(
            "Now enter each question as it is asked, e.g. "
            f"'ask {(self.seat + 1) % self.players} red_sum {self.seat}=13'. "
            "'faceup CARD …' tells me the face-up cards."
        )
        return True

    def handle(self, line: str) -> bool:
        """Carry out one command; ``False`` means quit."""
        words = line.split()
        if not words:
            return True
        verb, rest = words[0].lower(), words[1:]
        if verb in ("quit", "exit", "q"):
            self.console.print("Bye.")
            return False
        if verb in ("help", "h", "?"):
            self.console.print(HELP)
            return True
        self._need_setup()
        if verb in ("ask", "question"):
            self.add_question(rest)
        elif verb == "declare":
            self.add_declaration(rest)
        elif verb == "pass":
            self._commit([*self.log, {"type": "pass", "seat": self._seat(rest, 0)}])
            self.summary()
        elif verb in ("faceup", "face_up", "up"):
            if rest:
                self._set_face_up([self._card(w) for w in rest])
            self.show_face_up()
        elif verb == "new":
            if not rest:
                raise AssistError("new CARD: the card turned up")
            self._set_face_up([*self.face_up, *(self._card(w) for w in rest)])
            self.show_face_up()
        elif verb == "show":
            self.summary(full=True)
        elif verb == "best":
            self.show_best(all_rows=True)
        elif verb == "log":
            self.show_log()
        elif verb == "cards":
            self.show_cards()
        elif verb == "undo":
            self.undo()
        elif verb == "save":
            self.save(self._path(rest))
            self.console.print(f"Saved to {self._path(rest)}.")
        elif verb == "load":
            self.load(self._path(rest))
            self.console.print(f"Loaded {self._path(rest)}.")
            self.summary()
        elif verb == "lang":
            if rest not in (["ja"], ["en"]):
                raise AssistError("lang ja or lang en")
            self.lang = rest[0]
        else:
            raise AssistError(f"unknown command {verb!r}; type 'help'")
        return True

    # --- entries -----------------------------------------------------------------------

    def _need_setup(self) -> None:
        if self.players is None:
            raise AssistError("start a game first")

    def _seat(self, words: Sequence[str], at: int) -> int:
        if len(words) <= at:
            raise AssistError("which seat?")
        word = words[at].lower()
        if word in ("me", "i", "you", "自分"):
            return self.seat
        assert self.players is not None
        if not word.isdigit() or int(word) >= self.players:
            raise AssistError(f"a seat is a number from 0 to {self.players - 1}, not {word!r}")
        return int(word)

    def _card(self, word: str) -> str:
        assert self.players is not None
        deck = cards_for(self.players)
        if word.isdigit() and 1 <= int(word) <= len(deck):
            return deck[int(word) - 1]
        if word in deck:
            return word
        matches = [c for c in deck if c.startswith(word)]
        if len(matches) == 1:
            return matches[0]
        if word in CARDS:
            raise AssistError(f"{word} is not used with {self.players} players")
        hint = f" (did you mean {', '.join(matches)}?)" if matches else "; 'cards' lists them"
        raise AssistError(f"no card {word!r}{hint}")

    def add_question(self, words: Sequence[str]) -> None:
        assert self.players is not None
        if words and words[0].lower() == "by":
            words = words[1:]
        if len(words) < 2:
            raise AssistError("ask SEAT CARD [CHOICE] [S=ANSWER …]")
        asker = self._seat(words, 0)
        card = self._card(words[1])
        if any(e.get("card") == card for e in self.log):
            raise AssistError(f"{card} was already asked; 'log' shows the entries")
        rest = list(words[2:])
        choice = self._choice(card, rest)
        seats = answering_seats(self.players, asker, card)
        answers = self._answers(card, choice, seats, self._given(card, rest, seats))
        entry = {"type": "question", "seat": asker, "card": card, "choice": choice}
        entry["answers"] = answers
        was_up = card in self.face_up
        face_up = [c for c in self.face_up if c != card]
        self._commit([*self.log, entry], face_up)
        if self.seat in seats:
            self.console.print(f"(your own answer: {json.dumps(answers[str(self.seat)])})")
        if was_up:
            self.console.print(f"Turn up a new card with 'new CARD' ({card} is used).")
        self.summary()

    @staticmethod
    def _choice(card: str, rest: list[str]) -> int | None:
        """The number chosen on a choice card, taken off the front of ``rest``."""
        choices = CARDS[card].choices
        if not choices:
            return None
        if not rest or not rest[0].isdigit() or int(rest[0]) not in choices:
            raise AssistError(f"{card} needs the chosen number: {choices[0]} or {choices[1]}")
        return int(rest.pop(0))

    def _given(self, card: str, items: Sequence[str], seats: Sequence[int]) -> dict[int, JSON]:
        """The answers typed on the line, ``SEAT=ANSWER`` each, by seat."""
        given: dict[int, JSON] = {}
        for item in items:
            if "=" not in item:
                raise AssistError(f"write answers as SEAT=ANSWER, not {item!r}")
            who, value = item.split("=", 1)
            s = self._seat([who], 0)
            given[s] = parse_answer(card, value.replace(",", " ") if "[" not in value else value)
        stray = [s for s in given if s not in seats]
        if stray:
            raise AssistError(f"seat {stray[0]} does not answer {card}")
        return given

    def _answers(
        self, card: str, choice: int | None, seats: Sequence[int], given: dict[int, JSON]
    ) -> dict[str, JSON]:
        """Every answering seat's answer: this seat's own worked out, the others' as given
        or asked for one by one."""
        mine = answer(card, self.hand, choice)
        answers: dict[str, JSON] = {}
        for s in seats:
            if s == self.seat:
                if s in given and given[s] != mine:
                    raise AssistError(f"your own answer is {json.dumps(mine)}, not {given[s]}")
                answers[str(s)] = mine
                continue
            if s not in given:
                line = self._ask(f"Seat {s}'s answer to {card}? ")
                if line is None:
                    raise AssistError("no answer given: the question was not recorded")
                given[s] = parse_answer(card, line)
            answers[str(s)] = given[s]
        return answers

    def add_declaration(self, words: Sequence[str]) -> None:
        assert self.players is not None
        seat = self._seat(words, 0)
        if len(words) < 2 or words[1].lower() not in ("right", "wrong", "正解", "違う"):
            raise AssistError("declare SEAT right|wrong [TILES]")
        right = words[1].lower() in ("right", "正解")
        entry: dict[str, JSON] = {"type": "declaration", "seat": seat, "right": right}
        if len(words) > 2:
            ordered = self.players == 2
            entry["tiles"] = list(parse_tiles(words[2:], hand_size(self.players), ordered=ordered))
        self._commit([*self.log, entry])
        self.summary()

    def _set_face_up(self, cards: list[str]) -> None:
        if len(set(cards)) != len(cards):
            raise AssistError("a card is named twice")
        asked = {e.get("card") for e in self.log}
        used = [c for c in cards if c in asked]
        if used:
            raise AssistError(f"{used[0]} was already asked")
        if len(cards) > 6:
            raise AssistError("at most six cards are face up")
        self._history.append((self.log, self.face_up))
        self.face_up = cards

    def _commit(self, log: list[dict[str, JSON]], face_up: list[str] | None = None) -> None:
        """Take a new log if a deduction agrees with it (raises and changes nothing if not)."""
        self.position(log, face_up)
        self._history.append((self.log, self.face_up))
        self.log = log
        if face_up is not None:
            self.face_up = face_up

    def undo(self) -> None:
        if not self._history:
            raise AssistError("nothing to undo")
        self.log, self.face_up = self._history.pop()
        self.console.print("Undone.")
        self.summary()

    # --- deduction and display --------------------------------------------------------------

    def position(
        self, log: list[dict[str, JSON]] | None = None, face_up: list[str] | None = None
    ) -> Deduction:
        data = self.to_json()
        if log is not None:
            data["log"] = log
        if face_up is not None:
            data["face_up"] = face_up
        return Deduction(Position.from_json(data))

    def to_json(self) -> dict[str, JSON]:
        return {
            "players": self.players,
            "seat": self.seat,
            "hand": list(self.hand),
            "face_up": list(self.face_up),
            "log": list(self.log),
        }

    def summary(self, *, full: bool = False) -> None:
        d = self.position()
        target = "the opponent's hand" if self.players == 2 else "the centre"
        count = d.candidate_count
        self.console.print(
            f"[bold]{count:,}[/] candidate{'s' if count != 1 else ''} for {target}"
            + (" — certain!" if count == 1 else "")
        )
        for tiles, p in d.candidates(10 if full else 3):
            self.console.print(f"  {' '.join(tiles)}  {p:.1%}")
        if full:
            render_deduction(self.console, d, top=10, lang=self.lang, questions=False)
        if count > 1:
            self.show_best(deduction=d)

    def _questions(self, d: Deduction) -> tuple[dict[Variant, float], str]:
        if self.face_up:
            return d.question_bits(face_up_variants(self.face_up)), "face-up"
        asked = {e.get("card") for e in self.log}
        assert self.players is not None
        unasked = [c for c in cards_for(self.players) if c not in asked]
        return d.question_bits(face_up_variants(unasked)), "among all unasked cards"

    def show_best(self, *, deduction: Deduction | None = None, all_rows: bool = False) -> None:
        d = deduction or self.position()
        bits, which = self._questions(d)
        if not bits:
            self.console.print(f"Best question: {which}" if which else "No question left to ask.")
            return
        if all_rows:
            render_questions(self.console, bits, self.lang, title=f"Questions ({which})")
            return
        (card, choice), value = max(bits.items(), key=lambda kv: kv[1])
        self.console.print(
            f"Best question ({which}): [bold]{card}[/]"
            + (f" {choice}" if choice is not None else "")
            + f" — {card_label(card, choice, self.lang)} ({value:.2f} bits)"
        )

    def show_face_up(self) -> None:
        if not self.face_up:
            self.console.print("No face-up cards entered.")
            return
        for card in self.face_up:
            self.console.print(f"  {card}: {CARDS[card].text(self.lang)}")

    def show_cards(self) -> None:
        assert self.players is not None
        asked = {e.get("card") for e in self.log}
        table = Table(title="Question cards", title_justify="left")
        table.add_column("N", justify="right")
        table.add_column("id")
        table.add_column("question")
        table.add_column("")
        for i, card in enumerate(cards_for(self.players), start=1):
            state = "asked" if card in asked else "face up" if card in self.face_up else ""
            table.add_row(str(i), card, CARDS[card].text(self.lang), state)
        self.console.print(table)

    def show_log(self) -> None:
        if not self.log:
            self.console.print("No entries yet.")
        for i, e in enumerate(self.log, start=1):
            if e["type"] == "question":
                choice = f" {e['choice']}" if e.get("choice") is not None else ""
                answers = ", ".join(f"seat {s}: {json.dumps(a)}" for s, a in e["answers"].items())
                self.console.print(f"{i}. seat {e['seat']} asked {e['card']}{choice} — {answers}")
            elif e["type"] == "declaration":
                tiles = "".join(f" {t}" for t in e.get("tiles", []))
                verdict = "right" if e["right"] else "wrong"
                self.console.print(f"{i}. seat {e['seat']} declared{tiles} {verdict}")
            else:
                self.console.print(f"{i}. seat {e['seat']} passed")

    # --- files ------------------------------------------------------------------------

    def _path(self, words: Sequence[str]) -> str:
        if not words:
            raise AssistError("give a file name")
        return " ".join(words)

    def save(self, path: str) -> None:
        Path(path).write_text(json.dumps(self.to_json(), ensure_ascii=False, indent=1), "utf-8")

    def load(self, path: str) -> None:
        try:
            data = json.loads(Path(path).read_text("utf-8"))
        except json.JSONDecodeError as exc:
            raise AssistError(f"{path} is not JSON: {exc}") from None
        position = Position.from_json(data)
        Deduction(position)  # refuse a file that no arrangement fits
        self.players, self.seat, self.hand = position.players, position.seat, position.hand
        self.face_up = list(position.face_up)
        self.log = [e.to_json() for e in position.log]
        self._history = []

"""How ``bodoge tagiron`` shows things in a terminal: deductions, questions and selfplay results.

Every command prints through these (with rich), so the solver, the
assistant and the terminal game look alike.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from bodoge.games.tagiron.ai.solver import Deduction, Variant
from bodoge.games.tagiron.cards import CARDS

if TYPE_CHECKING:
    from rich.progress import Progress

    from bodoge.games.tagiron.review import GameReview
    from bodoge.games.tagiron.selfplay import ScoreTally, SoloSummary, Tally


def new_console() -> Console:
    """The console every command prints to."""
    return Console(highlight=False)


def progress(description: str) -> Progress:
    """A progress bar on standard error that leaves nothing behind."""
    # rich.progress is slow to import and only the long commands show one
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


def card_label(card: str, choice: int | None, lang: str = "en") -> str:
    """A card's text, with the chosen number of a choice card."""
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
        centre = Table(title="Chance each tile is in the centre", title_justify="left")
        chances = d.tile_probabilities()
        centre.add_column("tile")
        centre.add_column("chance", justify="right")
        for code, q in sorted(chances.items(), key=lambda kv: -kv[1]):
            if q > 0:
                centre.add_row(code, f"{q:.0%}")
        console.print(centre)
    if questions:
        render_questions(console, d.question_bits(), lang)


def render_questions(
    console: Console,
    bits: dict[Variant, float],
    lang: str,
    *,
    title: str = "Face-up questions: expected information",
) -> None:
    """Each question's expected information, the most informative first."""
    if not bits:
        console.print("No question is face up.")
        return
    table = Table(title=title, title_justify="left")
    table.add_column("card")
    table.add_column("choice", justify="right")
    table.add_column("question")
    table.add_column("bits", justify="right")
    for (card, choice), value in sorted(bits.items(), key=lambda kv: -kv[1]):
        text = CARDS[card].text(lang)
        table.add_row(card, "" if choice is None else str(choice), text, f"{value:.3f}")
    console.print(table)


def render_solo(console: Console, level: str, counts: Sequence[int]) -> None:
    """How many questions one level needed, asking alone, until it was certain."""
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


def render_solo_paired(console: Console, summary: SoloSummary) -> None:
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


def render_tally(console: Console, tally: Tally) -> None:
    """Bots against bots: wins, places, head to head and decision times by level."""
    # selfplay loads the bots, which solve and assist (importing this module) need not wait for
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


#: How a mark reads in a terminal.
MARK_STYLE = {"best": "green", "good": "green", "inaccuracy": "yellow", "mistake": "bold red"}


def render_review(console: Console, review: GameReview, *, lang: str = "en") -> None:
    """Each seat's review: its score in one line, its questions, declarations and missed chances."""
    target = "the opponent's hand" if review.players == 2 else "the centre"
    console.print(
        f"Review of a {review.players}-player game · each seat judged from what it knew "
        f"then · candidates for {target}"
    )
    for s in review.seats:
        console.print(f"\n[bold]Seat {s.seat}[/] · {s.summary}")
        graph = " → ".join(f"{c:,}" for c in s.candidates if c is not None)
        console.print(f"candidates: {graph}")
        table = Table(title_justify="left", show_edge=False)
        columns = ("move", "what", "bits", "lost", "best question then", "best bits", "left")
        for column in (*columns, "mark"):
            right = column in ("move", "bits", "lost")
            table.add_column(column, justify="right" if right else "left")
        rows: list[tuple[int, tuple[str, ...]]] = []
        for q in s.questions:
            best = "" if q.best == (q.card, q.choice) else card_label(*q.best, lang)
            mark = f"[{MARK_STYLE[q.mark]}]{q.mark}[/]"
            rows.append(
                (
                    q.n,
                    (
                        card_label(q.card, q.choice, lang),
                        f"{q.bits:.2f}",
                        f"{q.loss:.2f}",
                        best,
                        f"{q.best_bits:.2f}",
                        f"{q.before:,} → {q.after:,}",
                        mark,
                    ),
                )
            )
        for d in s.declarations:
            verdict = "right" if d.right else "wrong"
            mark = f"[{MARK_STYLE['mistake']}]hasty[/]" if d.mark else ""
            what = f"declared {' '.join(d.tiles)} ({verdict}) at {d.probability:.0%}"
            rows.append((d.n, (what, "", "", "", "", "", mark)))
        for m in s.missed:
            why = "certain" if m.certain else f"{m.probability:.0%}, the expert would declare"
            what = f"did not declare ({why})"
            rows.append((m.n, (what, "", "", "", "", "", f"[{MARK_STYLE['mistake']}]missed[/]")))
        for n, row in sorted(rows, key=lambda r: r[0]):
            table.add_row(str(n), *row)
        if rows:
            console.print(table)


def render_scores(console: Console, tally: ScoreTally, players: int) -> None:
    """Review scores by level over selfplay games, and how long a review took."""
    from bodoge.games.tagiron.selfplay import decision_times

    games = len(tally.seconds)
    console.print(
        f"{games} games, {players} players, seats rotated · review scores (0–100); "
        "accuracy: its questions' value against the best, as the expert weighs it; "
        "information: the share of the most bits on offer its questions gathered; missed "
        "chances and hasty wrong declarations a game"
    )
    table = Table(title="Review score by level", title_justify="left")
    columns = (
        "level",
        "seats",
        "mean score",
        "95% CI",
        "accuracy",
        "information",
        "missed",
        "hasty",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "level" else "right")
    for level in dict.fromkeys(tally.levels):
        mean, half = tally.mean(level)
        seats = len(tally.scores[level])
        accuracy, share, missed, hasty = tally.breakdown(level)
        table.add_row(
            level,
            str(seats),
            f"{mean:.1f}",
            f"{mean - half:.1f}–{mean + half:.1f}",
            f"{accuracy:.1%}",
            f"{share:.1%}",
            f"{missed:.2f}",
            f"{hasty:.2f}",
        )
    console.print(table)
    distinct = list(dict.fromkeys(tally.levels))
    for i, level in enumerate(distinct):
        for other in distinct[i + 1 :]:
            d, lo, hi = tally.difference(level, other)
            console.print(
                f"{level} − {other} in the same games: {d:+.1f} points "
                f"(paired 95% CI {lo:+.1f} to {hi:+.1f})"
            )
    median, p90, most = decision_times(tally.seconds)
    console.print(
        f"A game's review took a median {_ms(median)} (90% within {_ms(p90)}, longest {_ms(most)})"
    )
    if tally.cpu_seconds:
        median, p90, most = decision_times(tally.cpu_seconds)
        console.print(
            f"  in processor time: a median {_ms(median)} (90% within {_ms(p90)}, "
            f"longest {_ms(most)})"
        )

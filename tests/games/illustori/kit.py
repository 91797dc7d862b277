"""Illustori for the contract harness: a random table, a random player, and its secrets.

The random player (:func:`a_move`, :func:`a_mistake`, in a :class:`Style`) is
also what the game's own tests in ``test_game_illustori.py`` play with.

Secret: the cards in other hands, in the deck and in the discards; how each
seat voted while a vote runs; with secret votes, who has voted and, after the
vote, who voted what.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from bodoge.core.game import Event, Game, Seat
from bodoge.games import get
from bodoge.games.illustori import kana
from bodoge.games.illustori.events import CardDrawn, CardsExchanged, VoteCast, VoteResolved
from bodoge.games.illustori.moves import (
    Exchange,
    FirstWord,
    IllustoriMove,
    PlayCard,
    Vote,
    VoteTimeout,
)
from bodoge.games.illustori.state import IllustoriState
from tests.core.kit import GameKit, Secrets

GAME = get("illustori")
KANA = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわ"
LETTERS = "abcdefghijklmnopqrstuvwxyz"


# -- a player that picks random moves from its own view ---------------------------------


@dataclasses.dataclass
class Style:
    """How a random table plays: chances of each kind of move."""

    ok: float = 0.7  # a voter says OK
    exchange: float = 0.1  # a turn exchanges instead of playing
    penalty: float = 0.1  # a word ends with ん or repeats its head
    kanji: float = 0.15  # a word in kanji, with its kana stated
    timeout: float = 0.1  # the vote limit runs out (when the table has one)
    mistake: float = 0.1  # a move that must be refused is tried first


def a_word(
    r: random.Random, heads: list[str], used: list[str], language: str, style: Style
) -> dict[str, Any]:
    """A word (and stated ends) that starts with one of ``heads`` (any letter if empty).

    With ``style.penalty`` zero the word is never a penalty: its tail is not ``ん``,
    not its head's letter and not a used joint (unless every letter is used: in a
    long English game all 26 can be).
    """
    letters = LETTERS if language == "en" else KANA
    head = r.choice(heads or list(letters))
    plain = head if language == "en" else kana.base(head)
    safe = [c for c in letters if c != plain and c not in used]
    safe = safe or [c for c in letters if c != plain]
    roll = r.random()
    if roll < style.penalty / 2 and language == "ja":
        tail = "ん"
    elif roll < style.penalty:
        tail = head
    else:
        tail = r.choice(safe)
    if language == "en":
        body = "".join(r.choices(LETTERS, k=r.randint(0, 4)))
        return {"word": (head + body + tail).capitalize()}
    if r.random() < style.kanji:
        return {"word": r.choice(["猫", "東京", "夜空", "森"]), "head": head, "tail": tail}
    middle = "".join(r.choices(KANA, k=r.randint(0, 3)))
    return {"word": head + middle + tail + r.choice(["", "ー", "！"])}


def a_mistake(game: Game, state: IllustoriState, r: random.Random) -> tuple[int | None, Any]:
    """A move the game must refuse: out of turn, a card not held, a word that does not link..."""
    seats = state.seats
    acting = game.to_act(state)
    idle = [s for s in range(seats) if s not in acting]
    choices: list[tuple[int | None, Any]] = [
        (r.randrange(seats), Exchange(())),
        (r.randrange(seats), PlayCard(r.randrange(state.options.deck_size), "")),
        (seats, Vote(True)),
        (None, FirstWord("よる")),
    ]
    if idle:
        choices.append((r.choice(idle), Vote(True)))
        choices.append((r.choice(idle), Exchange((r.randrange(state.options.deck_size),))))
    if state.phase == "vote" and state.pending is not None:
        choices.append((state.pending.seat, Vote(False)))
    if state.phase == "play":
        seat = state.turn
        others = [c for s in range(seats) if s != seat for c in state.hands[s]]
        if others:
            choices.append((seat, PlayCard(r.choice(others), "よる")))
        hand = state.hands[seat]
        choices.append((seat, Exchange((hand[0], hand[0]))))
        if state.options.language == "ja" and state.current is not None:
            wrong = next(k for k in KANA if k not in state.current.next_heads)
            choices.append((seat, PlayCard(hand[0], wrong + "るい")))
    if not state.options.vote_limit:
        choices.append((None, VoteTimeout()))
    return r.choice(choices)


def a_move(game: Game, state: IllustoriState, r: random.Random, style: Style) -> tuple[Any, Any]:
    """A random move a player (or the vote clock) could make, chosen from the seat's view."""
    acting = sorted(game.to_act(state))
    if state.phase == "vote":
        if game.clock(state) is not None and r.random() < style.timeout:
            return None, VoteTimeout()
        seat = r.choice(acting)
        return seat, Vote(r.random() < style.ok)
    seat = acting[0]
    view = game.view(state, seat)
    language = view["options"]["language"]
    if view["phase"] == "first_word":
        return seat, FirstWord(**a_word(r, [], [], language, style))
    hand = view["hand"]
    if r.random() < style.exchange:
        return seat, Exchange(tuple(r.sample(hand, r.randint(1, len(hand)))))
    word = a_word(r, view["next_heads"], view["used_joints"], language, style)
    return seat, PlayCard(r.choice(hand), **word)


# -- what the harness needs ----------------------------------------------------------------


def table(rng: random.Random) -> dict[str, object]:
    """A random table; about one in three without optional rules, as most tables are."""
    raw: dict[str, object] = {"players": rng.randint(3, 8)}
    if rng.random() < 0.3:
        return raw
    return raw | {
        "language": rng.choice(["ja", "en"]),
        "ban_same_ends": rng.random() < 0.5,
        "ban_used_joints": rng.random() < 0.5,
        "vote_limit": rng.random() < 0.5,
        "secret_votes": rng.random() < 0.5,
        "deck_size": rng.choice([33, 40, 60]),
    }


def random_move(state: IllustoriState, rng: random.Random) -> tuple[Seat | None, IllustoriMove]:
    style = Style()
    if rng.random() < style.mistake:
        return a_mistake(GAME, state, rng)
    return a_move(GAME, state, rng, style)


def redealt(state: IllustoriState, seat: Seat | None, rng: random.Random) -> IllustoriState:
    """Every card ``seat`` cannot see dealt afresh: other hands, the deck, the discards."""
    hidden = [s for s in range(state.seats) if s != seat]
    pool = [c for s in hidden for c in state.hands[s]] + [*state.deck, *state.discards]
    rng.shuffle(pool)
    hands = list(state.hands)
    for s in hidden:
        hands[s], pool = tuple(pool[: len(hands[s])]), pool[len(hands[s]) :]
    deck, discards = pool[: len(state.deck)], pool[len(state.deck) :]
    return dataclasses.replace(
        state, hands=tuple(hands), deck=tuple(deck), discards=tuple(discards)
    )


def handed_round(
    ballots: dict[Seat, tuple[bool, bool]], seat: Seat | None, rng: random.Random
) -> dict[Seat, tuple[bool, bool]]:
    """Ballots (each a vote and whether it timed out) handed round among all voters but ``seat``."""
    others = [s for s in ballots if s != seat]
    moved = [ballots[s] for s in others]
    rng.shuffle(moved)
    return ballots | dict(zip(others, moved, strict=True))


def revoted(state: IllustoriState, seat: Seat | None, rng: random.Random) -> IllustoriState:
    """The running vote's other votes recast; with secret votes, by other voters too.

    With secret votes the last vote's other ballots are also handed round
    among their voters; the counts stay.
    """
    secret = state.options.secret_votes
    others = [s for s in state.voters if s != seat]
    votes = list(state.votes)
    cast = [s for s in others if votes[s] is not None]
    voted = rng.sample(others, len(cast)) if secret else cast
    for s in others:
        votes[s] = rng.random() < 0.5 if s in voted else None
    last = state.last_vote
    if secret and last is not None:
        ballots = {s: (v, s in last.timed_out) for s, v in enumerate(last.votes) if v is not None}
        ballots = handed_round(ballots, seat, rng)
        last = dataclasses.replace(
            last,
            votes=tuple(ballots[s][0] if s in ballots else None for s in range(len(last.votes))),
            timed_out=tuple(sorted(s for s, (_, late) in ballots.items() if late)),
        )
    return dataclasses.replace(state, votes=tuple(votes), last_vote=last)


def state_twin(state: IllustoriState, seat: Seat | None, rng: random.Random) -> IllustoriState:
    return revoted(redealt(state, seat, rng), seat, rng)


def event_twin(event: Event, seat: Seat | None, rng: random.Random) -> Event:
    """Another card drawn or given back, another vote; with secret votes, another voter."""
    if isinstance(event, CardDrawn) and event.seat != seat:
        return dataclasses.replace(event, card=rng.randrange(1000))
    if isinstance(event, CardsExchanged) and event.seat != seat:
        return dataclasses.replace(event, cards=tuple(rng.sample(range(1000), len(event.cards))))
    if isinstance(event, VoteCast) and event.seat != seat:
        voter = event.seat
        if event.secret:
            voter = rng.choice([s for s in range(event.voters + 1) if s != seat])
        return dataclasses.replace(event, seat=voter, ok=rng.random() < 0.5)
    if isinstance(event, VoteResolved) and event.secret:
        ballots = {s: (ok, s in event.timed_out) for s, ok in event.votes}
        ballots = handed_round(ballots, seat, rng)
        return dataclasses.replace(
            event,
            votes=tuple((s, ballots[s][0]) for s, _ in event.votes),
            timed_out=tuple(sorted(s for s, (_, late) in ballots.items() if late)),
        )
    return event


KIT = GameKit(
    game=GAME,
    table=table,
    move=random_move,
    secrets=Secrets(state=state_twin, event=event_twin),
)

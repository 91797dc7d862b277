"""Illustori's rules: ``setup``, ``apply`` and what follows from a state.

Pure functions over :class:`~bodoge.games.illustori.state.IllustoriState`; every
random choice comes from the table seed through :func:`bodoge.core.rng.rng`.
Whether a word continues the chain is decided by
:mod:`bodoge.games.illustori.shiritori`; this module only says what a
judgement means for the game.  The rules and the readings chosen are written
up in ``docs/rules/illustori.md``.

>>> from bodoge.games.illustori.options import parse_options
>>> state = setup(parse_options({"players": 3}), 3, seed=1)
>>> state.phase, len(state.hands[0]), to_act(state) == {state.giver}
('first_word', 5, True)
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from bodoge.core.errors import BadMove, BadOptions, GameFinished, IllegalMove, NotYourTurn
from bodoge.core.game import Clock, Event, Result
from bodoge.core.rng import derive_seed, rng
from bodoge.core.text import invisible
from bodoge.core.values import is_whole
from bodoge.core.vocabulary import GameEnded, TurnStarted
from bodoge.games.illustori import kana, shiritori
from bodoge.games.illustori.events import (
    CardDrawn,
    CardPlayed,
    CardsExchanged,
    DeckReshuffled,
    FinalRound,
    FirstWordGiven,
    IllustoriEnd,
    Penalty,
    VoteCast,
    VoteResolved,
)
from bodoge.games.illustori.moves import (
    Exchange,
    FirstWord,
    IllustoriMove,
    PlayCard,
    Vote,
    VoteTimeout,
)
from bodoge.games.illustori.options import (
    MAX_DECK_SEED,
    IllustoriOptions,
    hand_size,
)
from bodoge.games.illustori.state import IllustoriState, VoteOutcome, Word

#: The longest word a player may give, in characters (a sentence is fine, an essay is not).
MAX_WORD = 40
#: Judgement reasons that mean the move is malformed rather than against the rules.
MALFORMED = frozenset({"empty", "not_kana", "no_letters", "head_mismatch", "tail_mismatch"})
#: Rounds in a row without a word joining the chain after which the game ends, stalled.
STALL_ROUNDS = 3
#: The events the table's log keeps (the view's ``log``); turns, draws and single votes are not.
LOGGED = (
    FirstWordGiven,
    CardPlayed,
    Penalty,
    VoteResolved,
    CardsExchanged,
    DeckReshuffled,
    FinalRound,
    GameEnded,
)


def setup(options: IllustoriOptions, seats: int, seed: int) -> IllustoriState:
    """Shuffle the deck, deal the hands, turn up a card and choose the first-word giver.

    Seats act in seat order, so "the player to the left" is the next seat.
    The seed chooses which seat gives the first word (the last in turn order);
    play then starts with the seat after it.
    """
    if seats != options.players:
        raise BadOptions(f"a table for {options.players} players cannot seat {seats}")
    deck = list(range(options.deck_size))
    rng(seed, "deck").shuffle(deck)
    size = hand_size(seats)
    hands = tuple(tuple(deck[s * size : (s + 1) * size]) for s in range(seats))
    first_card = deck[seats * size]
    giver = rng(seed, "giver").randrange(seats)
    deck_seed = options.deck_seed
    if deck_seed is None and options.custom_deck is None:
        deck_seed = derive_seed(seed, "deck-seed") % (MAX_DECK_SEED + 1)
    return IllustoriState(
        options=options,
        seed=seed,
        deck_seed=deck_seed,
        phase="first_word",
        giver=giver,
        turn=giver,
        first_card=first_card,
        hands=hands,
        deck=tuple(deck[seats * size + 1 :]),
        discards=(),
    )


def to_act(state: IllustoriState) -> frozenset[int]:
    """Seats the game waits for: the giver or the turn player, or the voters still to vote."""
    if state.phase == "ended":
        return frozenset()
    if state.phase == "vote":
        return frozenset(state.awaited)
    return frozenset({state.turn})


def clock(state: IllustoriState) -> Clock[IllustoriMove] | None:
    """With a vote limit (25 seconds, or a turn-based table's), a running vote ends when it
    runs out, missing votes OK."""
    seconds = state.options.vote_seconds
    if seconds is not None and state.phase == "vote":
        return Clock(seconds, VoteTimeout())
    return None


def stall_turns(state: IllustoriState) -> int:
    """How many turns in a row without a word joining the chain end the game: three rounds."""
    return STALL_ROUNDS * state.seats


def result(state: IllustoriState) -> Result | None:
    """Winners share first place.

    After the final round the winners are the seats with an empty hand and
    everyone else is second.  A stalled game ranks every seat by the cards
    left in its hand, fewest first (ties share a place: 1, 1, 3 …).
    """
    if state.phase != "ended":
        return None
    return _ranked(state.winners, state.stalled, [len(h) for h in state.hands])


def _ranked(winners: tuple[int, ...], stalled: bool, counts: Sequence[int]) -> Result:
    """The result for these winners and hand counts (see :func:`result`)."""
    if stalled:
        places = tuple(1 + sum(1 for c in counts if c < mine) for mine in counts)
        return Result(places, IllustoriEnd.STALLED)
    places = tuple(1 if s in winners else 2 for s in range(len(counts)))
    return Result(places, IllustoriEnd.HAND_EMPTIED)


def apply(
    state: IllustoriState, seat: int | None, move: IllustoriMove
) -> tuple[IllustoriState, list[Event]]:
    """The state after ``seat`` makes ``move``, and what happened.

    Raises a :class:`~bodoge.core.errors.GameError` (and changes nothing) for a
    move that is malformed or not allowed now.
    """
    if state.phase == "ended":
        raise GameFinished("the game is over")
    if seat is not None and (not is_whole(seat) or not 0 <= seat < state.seats):
        raise BadMove(f"there is no seat {seat!r} at this table")
    if isinstance(move, VoteTimeout):
        after, events = _vote_timeout(state, seat)
    elif seat is None:
        raise NotYourTurn("only the vote limit acts for the table")
    elif isinstance(move, FirstWord):
        after, events = _first_word(state, seat, move)
    elif isinstance(move, PlayCard):
        after, events = _play(state, seat, move)
    elif isinstance(move, Exchange):
        after, events = _exchange(state, seat, move)
    elif isinstance(move, Vote):
        after, events = _vote(state, seat, move)
    else:
        raise BadMove(f"not an Illustori move: {move!r}")
    n = state.moves + 1
    logged = tuple(e for e in events if isinstance(e, LOGGED))
    if logged:
        after = dataclasses.replace(
            after,
            moves=n,
            log=(*after.log, *logged),
            log_moves=(*after.log_moves, *(n,) * len(logged)),
        )
    else:
        after = dataclasses.replace(after, moves=n)
    return after, events


# -- checks -------------------------------------------------------------------


def _check_turn(state: IllustoriState, seat: int, action: str) -> None:
    if state.phase == "first_word":
        raise IllegalMove(f"cannot {action} before the first word is given")
    if state.phase == "vote":
        raise IllegalMove(f"cannot {action} while a word is being voted on")
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s")


def _check_card(state: IllustoriState, seat: int, card: Any) -> int:
    if not is_whole(card):
        raise BadMove(f"a card is a number, not {card!r}")
    if not 0 <= card < state.options.deck_size:
        raise BadMove(f"there is no card {card} in a deck of {state.options.deck_size}")
    if card not in state.hands[seat]:
        raise IllegalMove(f"card {card} is not in your hand")
    return card


def _check_text(word: Any, *ends: Any) -> str:
    """The word with surrounding spaces removed; ``BadMove`` if it is no word at all."""
    if not isinstance(word, str):
        raise BadMove(f"a word is text, not {word!r}")
    for end in ends:
        if end is not None and (not isinstance(end, str) or len(end) > MAX_WORD):
            raise BadMove(f"a stated head or tail is a short reading in kana, not {end!r}")
    word = word.strip()
    if not word:
        raise BadMove("the word is empty")
    if len(word) > MAX_WORD:
        raise BadMove(f"a word is at most {MAX_WORD} characters, not {len(word)}")
    if any(unicodedata.category(c) == "Cc" for c in word):
        raise BadMove("a word cannot hold control characters such as line breaks")
    hidden = invisible(word, emoji=True)
    if hidden is not None:
        raise BadMove(f"a word cannot hold invisible characters (U+{ord(hidden):04X})")
    return word


def _judge(
    state: IllustoriState, word: str, head: str | None, tail: str | None, *, first: bool
) -> shiritori.Judgement:
    """The shiritori judgement of a word against the current word and the table's bans."""
    language = state.options.language
    previous = None if first else state.current
    banned = frozenset(state.used_joints)
    judgement = shiritori.judge(
        None if previous is None else shiritori.Word(previous.word, previous.head, previous.tail),
        word,
        language=language,
        head=head,
        tail=tail,
        banned=banned if state.options.ban_used_joints else frozenset(),
        ban_same_ends=state.options.ban_same_ends,
    )
    if judgement.ok and state.options.ban_used_joints and previous is not None:
        # The joint this word makes is used by the time the next word joins,
        # so a word ending in it makes the same letter a joint again.
        assert judgement.head is not None
        judgement = shiritori.judge(
            shiritori.Word(previous.word, previous.head, previous.tail),
            word,
            language=language,
            head=head,
            tail=tail,
            banned=banned | {_joint(state, judgement.head)},
            ban_same_ends=state.options.ban_same_ends,
        )
    return judgement


def _joint(state: IllustoriState, head: str) -> str:
    """The joint a word starting with ``head`` makes, in one form per letter family."""
    if state.options.language == "en":
        return head
    joint = kana.base(head)
    assert joint is not None
    return joint


def _refuse(state: IllustoriState, judgement: shiritori.Judgement) -> None:
    """Raise the error a failed judgement means, unless it is a penalty."""
    reason = judgement.reason
    if reason in MALFORMED:
        raise BadMove(f"{_REASONS.get(reason, 'the word cannot be read')} ({reason})")
    if reason == "no_link":
        assert state.current is not None
        heads = "/".join(state.current.next_heads)
        raise IllegalMove(f"the word must start with {heads} to continue the chain (no_link)")
    if not judgement.penalty:
        raise IllegalMove(f"the word is not allowed ({reason})")


_REASONS = {
    "empty": "the word has nothing to read",
    "not_kana": "say how the word begins and ends in kana (head and tail)",
    "no_letters": "an English word needs a letter a-z",
    "head_mismatch": "the stated head is not the word's first letter",
    "tail_mismatch": "the stated tail is not the word's last letter",
}


# -- moves --------------------------------------------------------------------


def _first_word(
    state: IllustoriState, seat: int, move: FirstWord
) -> tuple[IllustoriState, list[Event]]:
    if state.phase != "first_word":
        raise IllegalMove("the first word has already been given")
    if seat != state.giver:
        raise NotYourTurn(f"seat {state.giver} gives the first word, not seat {seat}")
    text = _check_text(move.word, move.head, move.tail)
    judgement = _judge(state, text, move.head, move.tail, first=True)
    if not judgement.ok:
        _refuse(state, judgement)
        # No card to discard yet: a first word the chain could not go on
        # from is simply refused, and the giver names the card again.
        raise IllegalMove(f"the first word breaks a rule of this table ({judgement.reason})")
    word = _word(state.first_card, text, judgement, seat)
    start = (seat + 1) % state.seats
    state = dataclasses.replace(state, phase="play", turn=start, chain=(word,))
    return state, [
        FirstWordGiven(seat, word.card, word.word, word.head, word.tail),
        TurnStarted(start),
    ]


def _play(state: IllustoriState, seat: int, move: PlayCard) -> tuple[IllustoriState, list[Event]]:
    _check_turn(state, seat, "play a card")
    card = _check_card(state, seat, move.card)
    text = _check_text(move.word, move.head, move.tail)
    judgement = _judge(state, text, move.head, move.tail, first=False)
    if not judgement.ok:
        _refuse(state, judgement)
    word = _word(card, text, judgement, seat)
    draft = _Draft(state)
    draft.hands[seat].remove(card)
    draft.events.append(CardPlayed(seat, card, word.word, word.head, word.tail))
    if not judgement.ok:
        draft.events.append(Penalty(seat, card, judgement.reason))
        draft.draw(seat, returning=[card])
        return draft.end_turn(seat)
    votes = (None,) * state.seats
    return draft.freeze(phase="vote", pending=word, votes=votes), draft.events


def _exchange(
    state: IllustoriState, seat: int, move: Exchange
) -> tuple[IllustoriState, list[Event]]:
    _check_turn(state, seat, "exchange cards")
    cards = move.cards
    if not isinstance(cards, tuple | list) or not cards:
        raise BadMove("choose at least one card to exchange")
    if len(set(cards)) != len(cards):
        raise BadMove("each card can be exchanged only once")
    cards = tuple(_check_card(state, seat, c) for c in cards)
    draft = _Draft(state)
    for card in cards:
        draft.hands[seat].remove(card)
    draft.events.append(CardsExchanged(seat, cards))
    draft.draw(seat, returning=list(cards))
    return draft.end_turn(seat)


def _vote(state: IllustoriState, seat: int, move: Vote) -> tuple[IllustoriState, list[Event]]:
    if state.phase != "vote" or state.pending is None:
        raise IllegalMove("there is no word to vote on")
    if seat == state.pending.seat:
        raise IllegalMove("you cannot vote on your own word")
    if state.votes[seat] is not None:
        raise IllegalMove("you have already voted, and a vote cannot be changed")
    if not isinstance(move.ok, bool):
        raise BadMove(f"a vote is OK (true) or NG (false), not {move.ok!r}")
    votes = list(state.votes)
    votes[seat] = move.ok
    state = dataclasses.replace(state, votes=tuple(votes))
    cast = len(state.voters) - len(state.awaited)
    event = VoteCast(seat, move.ok, cast, len(state.voters), state.options.secret_votes)
    if state.awaited:
        return state, [event]
    after, events = _resolve(state, timed_out=())
    return after, [event, *events]


def _vote_timeout(state: IllustoriState, seat: int | None) -> tuple[IllustoriState, list[Event]]:
    if seat is not None:
        raise IllegalMove("only the table's clock ends a vote")
    if state.options.vote_seconds is None:
        raise IllegalMove("this table has no vote limit")
    if state.phase != "vote":
        raise IllegalMove("no vote is running")
    timed_out = state.awaited
    votes = tuple(True if s in timed_out else v for s, v in enumerate(state.votes))
    return _resolve(dataclasses.replace(state, votes=votes), timed_out=timed_out)


def _resolve(
    state: IllustoriState, timed_out: tuple[int, ...]
) -> tuple[IllustoriState, list[Event]]:
    """Count the votes: at least half OK (a tie too) and the card joins the chain."""
    play = state.pending
    assert play is not None
    voters = state.voters
    ok = sum(1 for s in voters if state.votes[s])
    ng = len(voters) - ok
    passed = 2 * ok >= len(voters)
    outcome = VoteOutcome(play, passed, ok, ng, state.votes, timed_out)
    draft = _Draft(state)
    draft.events.append(
        VoteResolved(
            play.seat,
            play.card,
            passed,
            ok,
            ng,
            tuple((s, bool(state.votes[s])) for s in voters),
            timed_out,
            state.options.secret_votes,
        )
    )
    draft.changes.update(pending=None, votes=(), last_vote=outcome)
    if passed:
        draft.changes["chain"] = (*state.chain, play)
        joint = _joint(state, play.head)
        if joint not in state.used_joints:
            draft.changes["used_joints"] = (*state.used_joints, joint)
        if not draft.hands[play.seat] and not state.final_round:
            draft.changes["final_round"] = True
            draft.events.append(FinalRound(play.seat, state.giver))
    else:
        draft.draw(play.seat, returning=[play.card])
    return draft.end_turn(play.seat, accepted=passed)


def _word(card: int, text: str, judgement: shiritori.Judgement, seat: int) -> Word:
    assert judgement.head is not None and judgement.tail is not None
    return Word(
        card=card,
        word=text,
        head=judgement.head,
        tail=judgement.tail,
        seat=seat,
        next_heads=tuple(sorted(judgement.next_heads)),
    )


class _Draft:
    """A mutable working copy of the piles while one move is applied."""

    def __init__(self, state: IllustoriState) -> None:
        self.state = state
        self.hands = [list(h) for h in state.hands]
        self.deck = list(state.deck)
        self.discards = list(state.discards)
        self.reshuffles = state.reshuffles
        self.events: list[Event] = []
        self.changes: dict[str, Any] = {}

    def draw(self, seat: int, returning: list[int]) -> None:
        """Draw one card for each card in ``returning``, then discard those.

        Cards leaving a hand reach the discards only after the replacements
        are drawn, so a player never draws back their own cards while any
        other card is left; only when deck and discards are both empty do the
        returned cards go straight back into a new deck.
        """
        pending = list(returning)
        for _ in range(len(returning)):
            if not self.deck:
                if not self.discards:
                    self.discards, pending = pending, []
                self._reshuffle()
            card = self.deck.pop(0)
            self.hands[seat].append(card)
            self.events.append(CardDrawn(seat, card))
        self.discards.extend(pending)

    def _reshuffle(self) -> None:
        deck = self.discards
        rng(self.state.seed, "reshuffle", self.reshuffles).shuffle(deck)
        self.deck, self.discards = deck, []
        self.reshuffles += 1
        self.events.append(DeckReshuffled(len(deck)))

    def end_turn(self, seat: int, accepted: bool = False) -> tuple[IllustoriState, list[Event]]:
        """Pass the turn on, or end the game.

        The game ends after the giver's turn in the final round, or when this
        turn, without a word joining the chain (``accepted``), completes
        :data:`STALL_ROUNDS` such rounds in a row: then the fewest cards win.
        """
        idle = 0 if accepted else self.state.idle_turns + 1
        self.changes["idle_turns"] = idle
        final = self.changes.get("final_round", self.state.final_round)
        counts = tuple(len(h) for h in self.hands)
        if final and seat == self.state.giver:
            winners = tuple(s for s, n in enumerate(counts) if n == 0)
            self._ended(winners, False, counts)
            return self.freeze(phase="ended", winners=winners), self.events
        if idle >= stall_turns(self.state):
            fewest = min(counts)
            winners = tuple(s for s, n in enumerate(counts) if n == fewest)
            self._ended(winners, True, counts)
            return self.freeze(phase="ended", winners=winners, stalled=True), self.events
        following = (seat + 1) % self.state.seats
        self.events.append(TurnStarted(following))
        return self.freeze(phase="play", turn=following), self.events

    def _ended(self, winners: tuple[int, ...], stalled: bool, counts: tuple[int, ...]) -> None:
        # The hand counts are the one thing the end shows beside the result: a stalled
        # game's places come from them.
        result = _ranked(winners, stalled, counts)
        self.events.append(GameEnded(result, {"hand_counts": list(counts)}))

    def freeze(self, **changes: Any) -> IllustoriState:
        return dataclasses.replace(
            self.state,
            hands=tuple(tuple(h) for h in self.hands),
            deck=tuple(self.deck),
            discards=tuple(self.discards),
            reshuffles=self.reshuffles,
            **{**self.changes, **changes},
        )


def cards_in_play(state: IllustoriState) -> Iterable[int]:
    """Every card, wherever it is (a check that none is lost or doubled)."""
    for hand in state.hands:
        yield from hand
    yield from state.deck
    yield from state.discards
    yield from (w.card for w in state.chain)
    if not state.chain:
        yield state.first_card  # turned up, waiting for the first word
    if state.pending is not None:
        yield state.pending.card

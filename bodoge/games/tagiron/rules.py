"""Tagiron's rules for 2, 3 and 4 players: ``setup``, ``apply`` and what follows from a state.

Pure functions over :class:`~bodoge.games.tagiron.state.TagironState`; every
random choice comes from the table seed through :func:`bodoge.core.rng.rng`.
:func:`apply` returns the next state and the events a move caused, or raises
a precise error and changes nothing.  The rules and the readings chosen are
written up in ``docs/rules/tagiron.md``.

>>> state = setup(TagironOptions(players=2), 2, seed=1)
>>> seat = state.turn
>>> card = next(c for c in state.face_up if CARDS[c].choices is None)
>>> state2, events = apply(state, seat, Ask(card))
>>> state2.turn == 1 - seat and len(state2.log) == 1
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from bodoge.core.errors import BadOptions, GameFinished, NotYourTurn
from bodoge.core.game import Event, Move, Result, Seat
from bodoge.core.rng import rng
from bodoge.core.vocabulary import GameEnded, TurnStarted
from bodoge.games.tagiron.answers import answer, check_choice
from bodoge.games.tagiron.cards import CARDS, answering_seats, cards_for
from bodoge.games.tagiron.errors import (
    BadDeclaration,
    CardNotFaceUp,
    MayNotAsk,
    MayNotDeclare,
    MayNotPass,
    UnknownCard,
)
from bodoge.games.tagiron.events import (
    Asked,
    CardRevealed,
    Declared,
    Passed,
    PhaseChanged,
    TagironEnd,
    revealed,
)
from bodoge.games.tagiron.moves import Ask, Declare, Pass
from bodoge.games.tagiron.options import TagironOptions, hand_size
from bodoge.games.tagiron.state import Status, TagironState
from bodoge.games.tagiron.tiles import ALL_TILES, is_possible_set, is_tile, sort_hand, sort_key

#: Question cards face up at a time.
FACE_UP = 6


def setup(options: TagironOptions, seats: int, seed: int) -> TagironState:
    """Deal the tiles and turn up six question cards, all from the seed."""
    if seats != options.players:
        raise BadOptions(f"a {options.players}-player game needs {options.players} seats")
    tiles = list(ALL_TILES)
    rng(seed, "tiles").shuffle(tiles)
    n, size = options.players, options.hand_size
    hands = tuple(sort_hand(tiles[i * size : (i + 1) * size]) for i in range(n))
    centre = sort_hand(tiles[n * size :])
    cards = list(cards_for(n))
    rng(seed, "cards").shuffle(cards)
    first = rng(seed, "first").randrange(n)
    status: tuple[Status, ...] = tuple("active" for _ in range(n))
    return TagironState(
        options=options,
        hands=hands,
        centre=centre,
        face_up=tuple(cards[:FACE_UP]),
        deck=tuple(cards[FACE_UP:]),
        first=first,
        turn=first,
        status=status,
    )


def questions(state: TagironState) -> list[Ask]:
    """Every question that may be asked now, each choice of a choice card apart."""
    moves: list[Ask] = []
    for card in state.face_up:
        choices = CARDS[card].choices
        moves.extend(Ask(card, c) for c in choices) if choices else moves.append(Ask(card))
    return moves


def is_right(state: TagironState, seat: Seat, tiles: Sequence[str]) -> bool:
    if state.players == 2:
        return tuple(tiles) == state.hands[1 - seat]
    return Counter(tiles) == Counter(state.centre)


def check_declaration(players: int, tiles: Sequence[str]) -> tuple[str, ...]:
    """The declared tiles, checked for length and existence; hand order for 2 players."""
    size = hand_size(players)
    if not isinstance(tiles, (list, tuple)) or len(tiles) != size:
        raise BadDeclaration(f"a declaration names exactly {size} tiles")
    bad = [t for t in tiles if not is_tile(t)]
    if bad:
        raise BadDeclaration(f"no such tile: {bad[0]!r}")
    if not is_possible_set(tiles):
        raise BadDeclaration("a tile is named more often than it exists")
    if players == 2:
        if list(tiles) != sorted(tiles, key=sort_key):
            raise BadDeclaration("name the tiles in hand order, from the owner's left")
        return tuple(tiles)
    return sort_hand(tiles)


def to_act(state: TagironState) -> frozenset[Seat]:
    """The seat whose turn it is (none once the game is over)."""
    return frozenset() if state.turn is None else frozenset({state.turn})


def may_act(state: TagironState) -> frozenset[Seat]:
    """The seat whose turn it is and, with 3–4 players, every seat that may still declare."""
    if state.phase == "ended":
        return frozenset()
    return to_act(state) | {s for s in range(state.players) if state.may_declare(s)}


def result(state: TagironState) -> Result | None:
    return state.result


def apply(state: TagironState, seat: Seat | None, move: Move) -> tuple[TagironState, list[Event]]:
    """The next state and the events ``move`` caused; raises and changes nothing if refused."""
    if state.phase == "ended":
        raise GameFinished("the game is over")
    if seat is None or not 0 <= seat < state.players:
        raise NotYourTurn("Tagiron has no table moves")
    if isinstance(move, Ask):
        return _ask(state, seat, move)
    if isinstance(move, Declare):
        return _declare(state, seat, move)
    if isinstance(move, Pass):
        return _pass(state, seat)
    raise UnknownCard(f"not a Tagiron move: {move!r}")


def _ask(state: TagironState, seat: Seat, move: Ask) -> tuple[TagironState, list[Event]]:
    if move.card not in cards_for(state.players):
        raise UnknownCard(f"no question card {move.card!r} in a {state.players}-player game")
    check_choice(move.card, move.choice)
    if state.turn != seat:
        raise NotYourTurn("it is not your turn")
    if state.phase != "play":
        raise MayNotAsk("you may only declare or pass now")
    if move.card not in state.face_up:
        raise CardNotFaceUp(f"{move.card} is not face up")
    answers = tuple(
        (s, answer(move.card, state.hands[s], move.choice))
        for s in answering_seats(state.players, seat, move.card)
    )
    asked = Asked(seat, move.card, move.choice, answers)
    events: list[Event] = [asked]
    slot = state.face_up.index(move.card)
    face_up, deck = list(state.face_up), state.deck
    if deck:
        face_up[slot], deck = deck[0], deck[1:]
        events.append(CardRevealed(face_up[slot], slot))
    else:
        del face_up[slot]
    state = replace(state, face_up=tuple(face_up), deck=deck, log=(*state.log, asked))
    if not face_up:
        order = _seats_after(state, seat, include_self=True)
        state = replace(state, phase="last_turns", last_turns=tuple(order))
        events.append(PhaseChanged("last_turns"))
        return _next_last_turn(state, events)
    return _advance(state, seat, events)


def _declare(state: TagironState, seat: Seat, move: Declare) -> tuple[TagironState, list[Event]]:
    tiles = check_declaration(state.players, move.tiles)
    if state.players == 2:
        if state.turn != seat:
            raise NotYourTurn("declare on your turn")
    elif state.status[seat] != "active":
        raise MayNotDeclare("you have already declared")
    elif state.options.own_turn_declarations and state.turn != seat:
        raise NotYourTurn("at a turn-based table one declares on one's own turn")
    right = is_right(state, seat, tiles)
    heard_by = (0, 1) if state.players == 2 else (seat,)
    declared = Declared(seat, tiles, right, heard_by)
    state = replace(state, log=(*state.log, declared))
    events: list[Event] = [declared]
    if state.players == 2:
        return _after_two_player_declaration(state, seat, right, events)
    return _after_group_declaration(state, seat, right, events)


def _pass(state: TagironState, seat: Seat) -> tuple[TagironState, list[Event]]:
    if state.turn != seat:
        raise NotYourTurn("it is not your turn")
    if state.phase == "play":
        raise MayNotPass("ask a question or declare")
    passed = Passed(seat)
    state = replace(state, log=(*state.log, passed))
    events: list[Event] = [passed]
    if state.phase == "final_declaration":
        return _finish(
            state, _places_for_winner(state.first), TagironEnd.FINAL_DECLARATION_WRONG, events
        )
    return _next_last_turn(replace(state, last_turns=state.last_turns[1:]), events)


def _after_two_player_declaration(
    state: TagironState, seat: Seat, right: bool, events: list[Event]
) -> tuple[TagironState, list[Event]]:
    second = 1 - state.first
    if state.phase == "final_declaration":
        places = (1, 1) if right else _places_for_winner(state.first)
        reason = TagironEnd.DRAW if right else TagironEnd.FINAL_DECLARATION_WRONG
        return _finish(state, places, reason, events)
    if right and seat == second:
        return _finish(state, _places_for_winner(second), TagironEnd.DECLARED, events)
    if right:
        state = replace(state, phase="final_declaration", turn=second, right_order=(seat,))
        events += [PhaseChanged("final_declaration"), TurnStarted(second)]
        return state, events
    if state.phase == "last_turns":
        return _next_last_turn(replace(state, last_turns=state.last_turns[1:]), events)
    return _advance(state, seat, events)


def _places_for_winner(winner: Seat) -> tuple[int, int]:
    return (1, 2) if winner == 0 else (2, 1)


def _after_group_declaration(
    state: TagironState, seat: Seat, right: bool, events: list[Event]
) -> tuple[TagironState, list[Event]]:
    status = list(state.status)
    status[seat] = "right" if right else "eliminated"
    state = replace(
        state,
        status=tuple(status),
        right_order=(*state.right_order, seat) if right else state.right_order,
        last_turns=tuple(s for s in state.last_turns if s != seat),
    )
    active = [s for s in range(state.players) if status[s] == "active"]
    if len(state.right_order) == state.players - 1 or not active:
        return _finish_group(state, events)
    if state.turn != seat:  # an out-of-turn declaration leaves the turn where it is
        return state, events
    if state.phase == "last_turns":
        return _next_last_turn(state, events)
    return _advance(state, seat, events)


def _seats_after(state: TagironState, seat: Seat, *, include_self: bool) -> list[Seat]:
    """Seats that still take turns, clockwise from the one after ``seat``."""
    n = state.players
    order = [(seat + k) % n for k in range(1, n + 1)]
    if not include_self:
        order = order[:-1]
    return [s for s in order if state.players == 2 or state.status[s] == "active"]


def _advance(
    state: TagironState, seat: Seat, events: list[Event]
) -> tuple[TagironState, list[Event]]:
    nxt = _seats_after(state, seat, include_self=True)[0]
    events.append(TurnStarted(nxt))
    return replace(state, turn=nxt), events


def _next_last_turn(state: TagironState, events: list[Event]) -> tuple[TagironState, list[Event]]:
    if not state.last_turns:
        if state.players == 2:
            return _finish(state, (1, 1), TagironEnd.NO_CARDS, events)
        return _finish_group(state, events)
    nxt = state.last_turns[0]
    events.append(TurnStarted(nxt))
    return replace(state, turn=nxt), events


def _finish_group(state: TagironState, events: list[Event]) -> tuple[TagironState, list[Event]]:
    places: list[int | None] = [None] * state.players
    for place, s in enumerate(state.right_order, start=1):
        places[s] = place
    decided = len(state.right_order) == state.players - 1
    if decided:
        for s in range(state.players):
            if state.status[s] == "active":
                places[s] = state.players
    if decided:
        reason = TagironEnd.PLACES_DECIDED
    elif state.phase == "last_turns":
        reason = TagironEnd.NO_CARDS
    else:
        reason = TagironEnd.NO_DECLARERS
    return _finish(state, tuple(places), reason, events)


def _finish(
    state: TagironState, places: tuple[int | None, ...], reason: TagironEnd, events: list[Event]
) -> tuple[TagironState, list[Event]]:
    result = Result(tuple(places), reason)
    events.append(GameEnded(result, revealed(state.hands, state.centre)))
    return replace(state, phase="ended", turn=None, last_turns=(), result=result), events

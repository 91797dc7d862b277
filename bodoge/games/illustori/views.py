"""What each seat may see of an Illustori game and of each event, as JSON-ready data.

Hidden from everyone but their holder: the cards in a hand, the cards drawn
and the cards given back in an exchange.  Votes: while a vote runs, everyone
sees who has voted but not how (each voter sees their own vote); when it ends,
every seat's vote is shown.  With secret voting nobody ever sees who voted
what, nor even who has voted: only how many votes are in, and the counts.
"""

from __future__ import annotations

from bodoge.core.game import Event
from bodoge.core.identity_cache import identity_cache
from bodoge.core.values import JSON
from bodoge.core.vocabulary import GameEnded, TableFacts, TurnStarted
from bodoge.games.illustori.events import (
    CardDrawn,
    CardPlayed,
    CardsExchanged,
    DeckReshuffled,
    FinalRound,
    FirstWordGiven,
    Penalty,
    VoteCast,
    VoteResolved,
)
from bodoge.games.illustori.options import options_to_json
from bodoge.games.illustori.rules import result, stall_turns, to_act
from bodoge.games.illustori.state import IllustoriState, VoteOutcome


def view(state: IllustoriState, seat: int | None) -> dict[str, JSON]:
    """The game as ``seat`` sees it (``None``: a spectator, who sees no hand).

    Keys: ``game``; the table's facts every game shares
    (:class:`~bodoge.core.vocabulary.TableFacts`: ``players``, ``you``, ``turn``
    — during a vote, the seat whose word is voted on — ``to_act``, ``result``,
    ``hand_counts``, ``deck_count``); then ``phase`` (``first_word``, ``play``,
    ``vote``, ``ended``), ``hand`` (yours), ``first_word_giver``, ``first_card``,
    ``chain``, ``word`` (the word to continue from), ``next_heads``,
    ``used_joints``, ``pending`` and ``votes`` (during a vote), ``last_vote``,
    ``discard_count``, ``final_round``, ``idle_turns`` and ``stall_turns`` (turns
    without a word joining the chain, and how many end the game), ``deck`` (what
    the card numbers show), ``vote_seconds``, ``options``, ``log`` and
    ``log_moves`` (the number of the move that made each log entry).
    With secret voting ``to_act`` lists at most the viewer during a vote,
    since the full list would tell who has voted.

    ``log`` is the table's whole log, the same for every seat and spectator:
    each entry is the event as a spectator sees it (:func:`observe` with no
    seat) — words, verdicts with their counts (and who voted what, unless the
    votes are secret), penalties, exchanges (how many cards, never which),
    reshuffles, the final round and the end.  A new device, a late spectator
    and the replay read the same log as a player who saw it happen.
    """
    secret = state.options.secret_votes
    current = state.current
    waiting = sorted(to_act(state))
    if state.phase == "vote" and secret:
        # Who is still awaited would tell who has voted.
        waiting = [s for s in waiting if s == seat]
    facts = TableFacts(
        players=state.seats,
        you=seat,
        turn=state.turn if state.phase != "ended" else None,
        to_act=waiting,
        result=result(state),
        hand_counts=[len(h) for h in state.hands],
        deck_count=len(state.deck),
    )
    return {
        "game": "illustori",
        **facts.to_json(),
        "phase": state.phase,
        "first_word_giver": state.giver,
        "first_card": state.first_card,
        "hand": list(state.hands[seat]) if seat is not None else None,
        "chain": [w.to_json() for w in state.chain],
        "word": current.word if current else None,
        "next_heads": list(current.next_heads) if current else [],
        "used_joints": list(state.used_joints),
        "pending": state.pending.to_json() if state.pending else None,
        "votes": _votes(state, seat) if state.phase == "vote" else None,
        "last_vote": _outcome(state.last_vote, secret) if state.last_vote else None,
        "discard_count": len(state.discards),
        "final_round": state.final_round,
        "idle_turns": state.idle_turns,
        "stall_turns": stall_turns(state),
        "deck": {
            "size": state.options.deck_size,
            "seed": state.deck_seed,
            "custom": state.options.custom_deck,
        },
        "vote_seconds": state.options.vote_seconds,
        "options": options_to_json(state.options),
        "log": _log(state.log),
        "log_moves": _log_moves(state.log_moves),
    }


# By identity, not by value: every seat's view of a state shares one list, and a lookup by
# value would hash every event of the log again for each view.
@identity_cache(limit=64)
def _log(log: tuple[Event, ...]) -> list[JSON]:
    """The view's ``log`` for a state's log (shared between views, which are never changed)."""
    return [_logged(e) for e in log]


@identity_cache(limit=64)
def _log_moves(moves: tuple[int, ...]) -> list[JSON]:
    """The view's ``log_moves`` (shared between the views of a state, like the log)."""
    return list(moves)


@identity_cache(limit=8192)
def _logged(event: Event) -> dict[str, JSON]:
    """A log entry: the event as a spectator sees it (the same for every seat).

    Cached, and so shared between views (which are read, never changed): a
    view no longer rebuilds every entry of a long log after each move, and
    the server's view diff finds the entries identical at once.
    """
    entry = observe(event, None)
    assert entry is not None, event
    return entry


def _votes(state: IllustoriState, seat: int | None) -> dict[str, JSON]:
    voters = state.voters
    cast = [s for s in voters if state.votes[s] is not None]
    mine = state.votes[seat] if seat is not None and seat in voters else None
    data: dict[str, JSON] = {"voters": len(voters), "cast": len(cast), "yours": mine}
    if not state.options.secret_votes:
        data["voted"] = cast
        data["awaited"] = [s for s in voters if state.votes[s] is None]
    return data


def _outcome(outcome: VoteOutcome, secret: bool) -> dict[str, JSON]:
    data: dict[str, JSON] = {
        "play": outcome.play.to_json(),
        "passed": outcome.passed,
        "ok": outcome.ok,
        "ng": outcome.ng,
        "timed_out": len(outcome.timed_out),
    }
    if not secret:
        # JSON object keys are strings; a list of pairs keeps seats as numbers.
        data["votes"] = [
            {"seat": s, "ok": v, "timed_out": s in outcome.timed_out}
            for s, v in enumerate(outcome.votes)
            if v is not None
        ]
    return data


def observe(event: Event, seat: int | None) -> dict[str, JSON] | None:
    """What ``seat`` may see of ``event`` (``None``: a spectator)."""
    if isinstance(event, CardDrawn):
        data: dict[str, JSON] = {"type": "card_drawn", "seat": event.seat}
        if seat == event.seat:
            data["card"] = event.card
        return data
    if isinstance(event, CardsExchanged):
        data = {"type": "cards_exchanged", "seat": event.seat, "count": len(event.cards)}
        if seat == event.seat:
            data["cards"] = list(event.cards)
        return data
    if isinstance(event, VoteCast):
        data = {"type": "vote_cast", "votes_cast": event.votes_cast, "voters": event.voters}
        if not event.secret or seat == event.seat:
            data["seat"] = event.seat
        if seat == event.seat:
            data["ok"] = event.ok
        return data
    if isinstance(event, VoteResolved):
        data = {
            "type": "vote_resolved",
            "seat": event.seat,
            "card": event.card,
            "passed": event.passed,
            "ok": event.ok_count,
            "ng": event.ng_count,
            "timed_out": len(event.timed_out),
        }
        if not event.secret:
            data["votes"] = [
                {"seat": s, "ok": ok, "timed_out": s in event.timed_out} for s, ok in event.votes
            ]
        return data
    if isinstance(event, FirstWordGiven | CardPlayed):
        kind = "first_word" if isinstance(event, FirstWordGiven) else "card_played"
        return {
            "type": kind,
            "seat": event.seat,
            "card": event.card,
            "word": event.word,
            "head": event.head,
            "tail": event.tail,
        }
    if isinstance(event, Penalty):
        return {"type": "penalty", "seat": event.seat, "card": event.card, "reason": event.reason}
    if isinstance(event, TurnStarted | GameEnded):
        return event.to_json()
    if isinstance(event, DeckReshuffled):
        return {"type": "deck_reshuffled", "count": event.cards}
    if isinstance(event, FinalRound):
        return {"type": "final_round", "seat": event.seat, "ends_after": event.ends_after}
    return None

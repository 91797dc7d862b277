"""What each seat may see of a Tagiron game and of each event, as JSON-ready data.

Hidden from everyone but their holder until the game is over: the tiles of a
hand and the centre (3–4 players), and the tiles a declaration named (heard
by both players with 2, by the declarer alone with 3–4).  Questions, answers
and whether a declaration was right are public.  At the end every tile is
revealed.

>>> from bodoge.games.tagiron.options import TagironOptions
>>> from bodoge.games.tagiron.rules import setup
>>> state = setup(TagironOptions(players=3), 3, seed=5)
>>> mine = view(state, 0)
>>> len(mine["hand"]), mine["centre_size"], "centre" in mine, view(state, None)["hand"]
(5, 5, False, None)
>>> mine["you"], mine["players"], mine["hand_counts"], mine["to_act"] == [state.turn]
(0, 3, [5, 5, 5], True)
"""

from __future__ import annotations

from bodoge.core.game import Event, Seat
from bodoge.core.identity_cache import identity_cache
from bodoge.core.values import JSON
from bodoge.core.vocabulary import GameEnded, TableFacts, TurnStarted
from bodoge.games.tagiron.events import (
    Asked,
    CardRevealed,
    Declared,
    LogEntry,
    Passed,
    PhaseChanged,
    revealed,
)
from bodoge.games.tagiron.rules import to_act
from bodoge.games.tagiron.state import TagironState


def view(state: TagironState, seat: Seat | None) -> dict[str, JSON]:
    """The game as ``seat`` sees it (``None``: a spectator, who sees no hand).

    Keys: ``game``; the table's facts every game shares
    (:class:`~bodoge.core.vocabulary.TableFacts`: ``players``, ``you``, ``turn``,
    ``to_act``, ``result``, ``hand_counts``, ``deck_count`` — the question cards
    left); then ``hand`` (yours), ``centre_size``, ``face_up``, ``first``,
    ``phase``, ``status``, ``may_ask``, ``may_declare``, ``may_pass``, ``log`` and
    ``revealed`` (every hand and the centre, once the game is over).
    """
    ended = state.phase == "ended"
    return {
        **_shared(state),
        "you": seat,
        "hand": list(state.hands[seat]) if seat is not None else None,
        "may_ask": seat is not None and state.may_ask(seat),
        "may_declare": seat is not None and state.may_declare(seat),
        "may_pass": seat is not None and state.may_pass(seat),
        "log": [log_entry_json(e, seat, ended=ended) for e in state.log],
    }


# A cache entry holds its state alive: keep few, as a table renders its seats' views of a
# state one after another.
@identity_cache(limit=64)
def _shared(state: TagironState) -> dict[str, JSON]:
    """What every seat's view of ``state`` holds alike, made once per state rather than
    once per seat (a table renders all its seats' views of a state together); the keys a
    seat's view sets for itself stand here in their places, so every view has one order."""
    facts = TableFacts(
        players=state.players,
        you=None,
        turn=state.turn,
        to_act=to_act(state),  # nobody is awaited in secret: every seat may know
        result=state.result,
        hand_counts=[len(h) for h in state.hands],
        deck_count=len(state.deck),
    )
    return {
        "game": "tagiron",
        **facts.to_json(),
        "hand": None,
        "centre_size": len(state.centre) if state.players > 2 else 0,
        "face_up": list(state.face_up),
        "first": state.first,
        "phase": state.phase,
        "status": list(state.status),
        "may_ask": False,
        "may_declare": False,
        "may_pass": False,
        "log": [],
        "revealed": revealed(state.hands, state.centre) if state.phase == "ended" else None,
    }


def log_entry_json(entry: LogEntry, seat: Seat | None, *, ended: bool) -> dict[str, JSON]:
    """One public log entry as ``seat`` may see it.

    Every view holds the whole log, and a table renders each seat's view after every
    move, so an entry is made once and then shared by every view that shows it
    (:func:`_entry_json`): a server's frames are built faster, and the patch between
    two views finds the log unchanged by identity. So the dict returned is shared:
    read it, never change it.

    >>> entry = Passed(seat=1)
    >>> log_entry_json(entry, 0, ended=False) is log_entry_json(entry, 2, ended=False)
    True
    """
    tiles_seen = isinstance(entry, Declared) and (ended or seat in entry.heard_by)
    return _entry_json(entry, tiles_seen)


def _entry_json(entry: LogEntry, tiles_seen: bool) -> dict[str, JSON]:
    # Kept on the entry itself, in the frozen dataclass's ``__dict__`` (which its fields,
    # equality and repr do not see): made once, shared by every view that shows it, and
    # gone with the last state that holds the entry.  A process-wide cache by identity
    # (entries are not hashable: an answer may be a list) kept up to 32,768 entries alive
    # after their tables had left memory, 19 MiB at 500 tables (docs/performance.md).
    kept = entry.__dict__
    key = "_json_with_tiles" if tiles_seen else "_json"
    made: dict[str, JSON] | None = kept.get(key)
    if made is None:  # two threads may both make it: each view still gets a whole entry
        made = kept[key] = _made_entry_json(entry, tiles_seen)
    return made


def _made_entry_json(entry: LogEntry, tiles_seen: bool) -> dict[str, JSON]:
    if isinstance(entry, Asked):
        return {
            "type": "question",
            "seat": entry.seat,
            "card": entry.card,
            "choice": entry.choice,
            "answers": {str(s): a for s, a in entry.answers},
        }
    if isinstance(entry, Declared):
        data: dict[str, JSON] = {"type": "declaration", "seat": entry.seat, "right": entry.right}
        if tiles_seen:
            data["tiles"] = list(entry.tiles)
        return data
    return {"type": "pass", "seat": entry.seat}


def observe(event: Event, seat: Seat | None) -> dict[str, JSON] | None:
    """What ``seat`` may see of ``event`` (``None``: a spectator)."""
    if isinstance(event, Asked | Declared | Passed):
        return log_entry_json(event, seat, ended=False)
    if isinstance(event, CardRevealed):
        return {"type": "card_revealed", "card": event.card, "slot": event.slot}
    if isinstance(event, PhaseChanged):
        return {"type": "phase", "phase": event.phase}
    if isinstance(event, TurnStarted | GameEnded):
        return event.to_json()
    raise TypeError(f"unknown Tagiron event {event!r}")

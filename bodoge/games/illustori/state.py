"""The state of an Illustori game: immutable data, changed only by :mod:`.rules`.

Cards are numbers ``0..deck_size-1``; what a card shows is looked up elsewhere
from the deck (seed or custom deck) and the number.  Every card is always in
exactly one place: a hand, the deck, the discards, the chain or the play being
voted on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bodoge.core.game import Event
from bodoge.games.illustori.options import IllustoriOptions

Phase = Literal["first_word", "play", "vote", "ended"]


@dataclass(frozen=True)
class Word:
    """A card with the word a player gave it, as it lies in the chain or awaits votes.

    ``head`` and ``tail`` are the kana (or letters, in English) at the ends,
    either read from the word or stated by the player; ``next_heads`` are the
    letters the following word may begin with.
    """

    card: int
    word: str
    head: str
    tail: str
    seat: int
    next_heads: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "card": self.card,
            "word": self.word,
            "head": self.head,
            "tail": self.tail,
            "seat": self.seat,
        }


@dataclass(frozen=True)
class VoteOutcome:
    """How the last vote went.

    ``votes[seat]`` is the seat's vote (``None`` for the player, who does not
    vote); a seat in ``timed_out`` did not vote in time and counts as OK.
    """

    play: Word
    passed: bool
    ok: int
    ng: int
    votes: tuple[bool | None, ...]
    timed_out: tuple[int, ...]


@dataclass(frozen=True)
class IllustoriState:
    """One moment of a game.

    ``deck[0]`` is the top of the deck.  ``votes`` holds one entry per seat
    during a vote (``None``: not voted yet, or the player).  ``reshuffles``
    counts how often the discards became the deck, so each reshuffle draws
    from its own seeded stream.  ``idle_turns`` counts the turns since a word
    last joined the chain (exchanges, penalties and failed votes); when it
    reaches :data:`~bodoge.games.illustori.rules.STALL_ROUNDS` rounds the
    game ends as ``stalled``.  ``log`` holds the events of the table's log
    (words, verdicts, penalties, exchanges, reshuffles, the final round, the
    end), whole: what each seat may see of them is the view's business;
    ``log_moves`` the number of the move that made each entry, so that a page
    can say which lines a move made (a stand-in's, say) after a reload too.
    """

    options: IllustoriOptions
    seed: int
    deck_seed: int | None
    phase: Phase
    giver: int
    turn: int
    first_card: int
    hands: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    discards: tuple[int, ...]
    chain: tuple[Word, ...] = ()
    pending: Word | None = None
    votes: tuple[bool | None, ...] = ()
    used_joints: tuple[str, ...] = ()
    final_round: bool = False
    reshuffles: int = 0
    last_vote: VoteOutcome | None = None
    winners: tuple[int, ...] = ()
    idle_turns: int = 0
    stalled: bool = False
    log: tuple[Event, ...] = ()
    #: The number of the move that made each ``log`` entry (moves count from 1).
    log_moves: tuple[int, ...] = ()
    #: Moves made so far.
    moves: int = 0

    @property
    def seats(self) -> int:
        return len(self.hands)

    @property
    def voters(self) -> tuple[int, ...]:
        """Seats that judge the pending play: everyone but its player."""
        if self.pending is None:
            return ()
        return tuple(s for s in range(self.seats) if s != self.pending.seat)

    @property
    def awaited(self) -> tuple[int, ...]:
        """Voters who have not voted yet."""
        return tuple(s for s in self.voters if self.votes[s] is None)

    @property
    def current(self) -> Word | None:
        """The word to continue from: the last one in the chain."""
        return self.chain[-1] if self.chain else None

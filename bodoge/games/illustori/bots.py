"""Illustori bots: they name cards, keep the chain going and vote, from one seat's view.

A bot sees exactly what a person in its seat sees (the JSON view) and looks
up what its cards show from the deck seed in that view, as a person looks at
the pictures.  It never sees another hand, and keeps nothing between calls.

* **First word** — the giver names the turned-up card with a word the chain
  can go on from (no ん at the end, no same ends with that option).
* **Turn** — the words it thinks of for each hand card (:mod:`.words`: the
  names of the things on it, words of its scene — its place, mood, action —
  short natural phrases joining them, and associations; every one a
  dictionary word or phrase, none padded to reach a letter) whose head links
  are checked with :func:`~bodoge.games.illustori.shiritori.judge` under the
  table's bans; it plays one that stands.  When none stands it exchanges the
  half of its hand whose words have the fewest usable endings, as a person
  would.
* **Vote** — OK when the word is apt (it names something on the card or says
  what its scene is about; and, for a word in kanji, its stated first and
  last kana can be how it reads), mostly OK when it is a loose but defensible
  association, mostly NG when it has nothing to do with the card.
* **Uploaded decks** — no names are known: plain words that link
  (:func:`.words.generic_words`) on any card, and every vote OK.

Levels: ``easy`` thinks of fewer words each turn (so it exchanges more),
now and then forgets the ん and ban rules, and votes loosely; ``normal``
thinks of more, never breaks a rule and votes with more sense.

>>> from bodoge.games.illustori.game import IllustoriGame
>>> game = IllustoriGame()
>>> state = game.setup(game.options({"players": 3}), 3, seed=7)
>>> giver = state.giver
>>> move = make_bot("normal").act(game.view(state, giver), giver, random.Random(1))
>>> type(move).__name__, bool(move.word)
('FirstWord', True)
>>> other = (giver + 1) % 3  # nothing to do before the first word
>>> make_bot("normal").act(game.view(state, other), other, random.Random(1)) is None
True
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from bodoge.core.errors import BadOptions
from bodoge.core.game import Bot, Seat
from bodoge.core.values import JSON
from bodoge.games.illustori import shiritori
from bodoge.games.illustori.cards import Card, card
from bodoge.games.illustori.moves import Exchange, FirstWord, IllustoriMove, PlayCard, Vote
from bodoge.games.illustori.words import (
    Candidate,
    CardWords,
    card_words,
    generic_words,
    letter_key,
    next_letters,
    openings,
    plausible_reading,
    relation,
    stretch_words,
)

__all__ = [
    "BOT_LEVELS",
    "EasyBot",
    "IllustoriBot",
    "NormalBot",
    "Style",
    "Table",
    "make_bot",
]


#: A word after which fewer than this share of words could come is a dead end
#: (in Japanese, one ending with る); one after which fewer than
#: :data:`EASY_TAIL` could is a hard one.
DEAD_END = 0.001
EASY_TAIL = 0.006
#: After this many rounds in a row without a word joining the chain, a bot
#: thinks of every word it knows for its cards (not only a share of them) …
THINK_HARDER = 1
#: … and after this many it stretches a point with a plain word that links,
#: which voters let pass as a loose word, before the table stalls for good
#: (:data:`~bodoge.games.illustori.rules.STALL_ROUNDS`).
STRETCH = 2


@dataclass(frozen=True)
class Style:
    """How a level plays.

    ``tiers`` weighs the choice of word tier (names, scene words, phrases,
    associations: see :data:`~bodoge.games.illustori.words.TIERS`) among those
    that can be played now.  A person does not think of every word at once:
    on a turn the bot thinks of the names on its cards and of a share
    ``ideas`` of their other words, drawn at random.  ``forget`` is the
    chance that a turn's word is checked only for linking, not for the
    penalties.  With ``keep_joints`` and the used-joint ban, a word that
    begins with a letter already used as a joint is preferred (it bans no
    new ending); with ``easy_tails`` a word that leaves the next player an
    easy letter is; with ``persist`` it looks at all its words before it
    exchanges.  A voter says OK with ``ok_apt`` to an apt word that reads
    as stated, ``ok_loose`` to a loose association, ``ok_misread`` to an apt
    word whose stated kana cannot be its reading, and ``ok_none`` to a word
    that has nothing to do with the card.
    """

    tiers: tuple[float, float, float, float]
    ideas: float
    forget: float
    keep_joints: bool
    easy_tails: bool
    #: When none of the words it thought of stands, it thinks of all the others
    #: before giving up and exchanging (as a person takes a moment longer).
    persist: bool
    ok_apt: float
    ok_loose: float
    ok_misread: float
    ok_none: float


NORMAL = Style(
    tiers=(3, 3, 3, 1),
    ideas=0.8,
    forget=0.0,
    keep_joints=True,
    easy_tails=True,
    persist=True,
    ok_apt=0.97,
    ok_loose=0.9,
    ok_misread=0.15,
    ok_none=0.05,
)
EASY = Style(
    tiers=(4, 2, 2, 1),
    ideas=0.35,
    forget=0.2,
    keep_joints=False,
    easy_tails=False,
    persist=False,
    ok_apt=0.9,
    ok_loose=0.75,
    ok_misread=0.4,
    ok_none=0.25,
)


@dataclass(frozen=True)
class Table:
    """What a bot needs from a view to judge words: language, bans, the word to go on from."""

    language: str
    ban_same_ends: bool
    ban_used_joints: bool
    used_joints: frozenset[str]
    previous: shiritori.Word | None
    heads: frozenset[str]
    deck_seed: int | None
    deck_size: int = 0
    gone: frozenset[int] = frozenset()
    #: Full rounds in a row without a word joining the chain (the view's ``idle_turns``).
    idle_rounds: int = 0

    @classmethod
    def from_view(cls, view: Mapping[str, JSON]) -> Table:
        options = view["options"]
        language = options["language"]
        chain = view["chain"]
        last = chain[-1] if chain else None
        deck = view["deck"]
        # An uploaded deck has pictures but no names to look up.
        seed = deck["seed"] if deck["custom"] is None else None
        gone = {w["card"] for w in chain}
        idle = view.get("idle_turns", 0) // max(1, view["players"])
        return cls(
            language=language,
            ban_same_ends=bool(options["ban_same_ends"]),
            ban_used_joints=bool(options["ban_used_joints"]),
            used_joints=frozenset(view["used_joints"]),
            previous=None
            if last is None
            else shiritori.Word(last["word"], last["head"], last["tail"]),
            heads=frozenset(letter_key(h, language) for h in view["next_heads"]),
            deck_seed=seed,
            deck_size=deck["size"],
            gone=frozenset(gone),
            idle_rounds=idle,
        )

    def card_words(self, number: int) -> CardWords:
        """The words card ``number`` can be given (plain words on an uploaded deck)."""
        if self.deck_seed is None:
            return generic_words(self.language)
        return card_words(self.deck_seed, number, self.language)

    def links(self, word: Candidate) -> bool:
        """Whether the word may begin here (a quick look before the judge)."""
        return self.previous is None or letter_key(word.head, self.language) in self.heads

    def stuck(self) -> bool:
        """Whether no card in play has a word that links and stands: nobody can go on.

        Then people stretch a point (see :meth:`IllustoriBot.turn`) and let
        a loose word pass (see :meth:`IllustoriBot.vote`).  A table finds
        this out as everyone exchanges round after round; the bot looks it up
        from the cards not on the chain (the first to see it stretches).
        """
        return _stuck(self)

    def stalling(self) -> bool:
        """Whether to stretch a point: stuck, or :data:`STRETCH` rounds without a word."""
        return self.idle_rounds >= STRETCH or self.stuck()

    def openness(self, word: Candidate) -> float:
        """The share of words that could follow ``word`` (see :func:`.words.openings`)."""
        shares = openings(self.language, self.deck_seed is None)
        return sum(shares.get(k, 0.0) for k in next_letters(word, self.language))

    def judge(self, word: Candidate) -> shiritori.Judgement:
        """The judge's verdict on ``word`` here, as the rules will give it."""
        head, tail = word.stated()
        banned = self.used_joints if self.ban_used_joints else frozenset()
        verdict = shiritori.judge(
            self.previous,
            word.text,
            language=self.language,
            head=head,
            tail=tail,
            banned=banned,
            ban_same_ends=self.ban_same_ends,
        )
        if verdict.ok and self.ban_used_joints and self.previous is not None:
            # The joint this word makes is used by the time the next word
            # joins: the rules count a word ending with it as a used joint.
            assert verdict.head is not None
            verdict = shiritori.judge(
                self.previous,
                word.text,
                language=self.language,
                head=head,
                tail=tail,
                banned=banned | {verdict.head},
                ban_same_ends=self.ban_same_ends,
            )
        return verdict


@lru_cache(maxsize=256)
def _stuck(table: Table) -> bool:
    # Cached: every seat asks the same of the same table, turn after turn.
    if table.previous is None or table.deck_seed is None:
        return False
    table = dataclasses.replace(table, idle_rounds=0)  # the same question, however long it stalled
    for number in range(table.deck_size):
        if number in table.gone:
            continue
        for word in card_words(table.deck_seed, number, table.language).phrases:
            if table.links(word) and table.judge(word).ok:
                return False
    return True


class IllustoriBot(Bot[IllustoriMove]):
    """A bot of one :class:`Style`."""

    level: ClassVar[str]
    style: ClassVar[Style]

    def act(self, view: Mapping[str, JSON], seat: Seat, rng: random.Random) -> IllustoriMove | None:
        if seat not in view["to_act"]:
            return None
        table = Table.from_view(view)
        phase = view["phase"]
        if phase == "first_word":
            return self.first_word(view, table, rng)
        if phase == "play":
            return self.turn(view, table, rng)
        if phase == "vote":
            return Vote(self.vote(view, table, rng))
        return None

    # -- naming cards -----------------------------------------------------------------------

    def words(
        self, known: CardWords, rng: random.Random, *, every: bool = False
    ) -> Iterator[Candidate]:
        """The words the bot thinks of for a card this turn: its names, and some of the rest.

        With ``every`` (the table has gone a round without a word) it thinks
        of them all, as people try harder when nobody can go on.
        """
        weights = self.style.tiers
        for word in known.phrases:
            if weights[word.tier] > 0 and (
                word.tier == 0 or every or rng.random() < self.style.ideas
            ):
                yield word

    def first_word(self, view: Mapping[str, JSON], table: Table, rng: random.Random) -> FirstWord:
        """Name the turned-up card with a word the chain can go on from."""
        known = table.card_words(view["first_card"])
        weights = self.style.tiers
        # A word of the card if one will do, else a plain word: the first word
        # is never voted on, but it must let the chain go on.
        pools = (
            [w for w in known.phrases if weights[w.tier] > 0],
            generic_words(table.language).phrases,
        )
        for pool in pools:
            chosen = self._choose([(None, w) for w in pool], table, rng)
            if chosen is not None:
                head, tail = chosen[1].stated()
                return FirstWord(chosen[1].text, head, tail)
        raise AssertionError("no plain word can start a chain")  # the word lists are tested

    def turn(
        self, view: Mapping[str, JSON], table: Table, rng: random.Random
    ) -> IllustoriMove | None:
        """Play a card with a word that stands, or exchange when none does."""
        hand: Sequence[int] = view["hand"]
        if not hand:
            return None
        careless = rng.random() < self.style.forget
        # On an uploaded deck every card takes the same words: look once.
        numbers = [rng.choice(hand)] if table.deck_seed is None else hand
        harder = table.idle_rounds >= THINK_HARDER
        options = [
            (number, word)
            for number in numbers
            for word in self.words(table.card_words(number), rng, every=harder)
            if table.links(word)
        ]
        chosen = self._choose(options, table, rng, careless=careless)
        if chosen is None and not harder and self.style.persist:
            # Nothing it first thought of stands: a person looks again at the
            # cards before giving up a turn to an exchange.
            options = [
                (number, word)
                for number in numbers
                for word in self.words(table.card_words(number), rng, every=True)
                if table.links(word)
            ]
            chosen = self._choose(options, table, rng, careless=careless)
        if chosen is None and table.stalling():
            # Nobody at the table can go on, or the table has gone rounds
            # without a word: as people do then, stretch a point and give one
            # of the cards a plain word that links, rather than exchange for ever.
            chosen = self.stretch(hand, table, rng)
        if chosen is None:
            return Exchange(self.to_exchange(hand, table, rng))
        number, word = chosen
        assert number is not None
        head, tail = word.stated()
        return PlayCard(number, word.text, head, tail)

    def stretch(
        self, hand: Sequence[int], table: Table, rng: random.Random
    ) -> tuple[int | None, Candidate] | None:
        """A plain word that links and stands, on the hand card it suits best.

        A word that happens to say something about one of the cards (a scene
        word or an association of it) goes on that card; otherwise any word,
        on any card.
        """
        plain = [w for w in stretch_words(table.language) if table.links(w)]
        if table.deck_seed is not None:
            shown = {number: card(table.deck_seed, number) for number in hand}
            suited = [
                (number, w)
                for number in hand
                for w in plain
                if relation(shown[number], w.text, table.language)
            ]
            chosen = self._choose(suited, table, rng)
            if chosen is not None:
                return chosen
        return self._choose([(rng.choice(hand), w) for w in plain], table, rng)

    def to_exchange(self, hand: Sequence[int], table: Table, rng: random.Random) -> tuple[int, ...]:
        """The cards to give back: the half of the hand with the fewest usable endings.

        A card's worth is how many different last letters its names and
        phrases can end with under the table's bans (ties broken at random);
        at least one card goes.  When the table has gone a round without a
        word (:data:`THINK_HARDER`), all but the best card go: a fresh hand
        is likelier to hold the word everyone is missing.
        """
        worth = {number: self._endings(number, table) for number in hand}
        ranked = sorted(hand, key=lambda n: (worth[n], rng.random()))
        keep = 1 if table.idle_rounds >= THINK_HARDER else len(ranked) - len(ranked) // 2
        return tuple(sorted(ranked[: max(1, len(ranked) - keep)]))

    def _endings(self, number: int, table: Table) -> int:
        language = table.language
        banned = {letter_key(j, language) for j in table.used_joints if table.ban_used_joints}
        banned.add(letter_key("ん", language))
        phrases = table.card_words(number).phrases
        return len({letter_key(w.tail, language) for w in phrases} - banned)

    def _choose(
        self,
        options: Sequence[tuple[int | None, Candidate]],
        table: Table,
        rng: random.Random,
        *,
        careless: bool = False,
    ) -> tuple[int | None, Candidate] | None:
        """A (card, word) that the judge lets stand, or ``None``.

        A tier is drawn by the style's weights among the tiers present, then
        its words are judged in random order until one stands (so each word
        that stands is equally likely); a tier with none is dropped and
        another drawn.  ``careless`` lets a penalty stand too.  Words that
        leave a dead end (:data:`DEAD_END`) are tried last, but before words
        common to many cards (:attr:`.words.Candidate.common`); a normal bot
        tries words that leave an easy letter (:data:`EASY_TAIL`) first.
        """
        # A word nobody could go on from (in Japanese, one ending with る)
        # comes last: the table would be stuck.  A normal bot leaves the next
        # player an easy letter when it can.
        easy = EASY_TAIL if self.style.easy_tails else DEAD_END
        follow = {id(o): table.openness(o[1]) for o in options}
        groups = [
            [o for o in options if follow[id(o)] >= easy],
            [o for o in options if DEAD_END <= follow[id(o)] < easy],
            [o for o in options if follow[id(o)] < DEAD_END],
        ]
        if table.ban_used_joints and self.style.keep_joints and table.previous is not None:
            # A word beginning with a letter that is a joint already uses up
            # no new ending for the rest of the game.
            used = {letter_key(j, table.language) for j in table.used_joints}
            groups = [
                part
                for group in groups
                for part in (
                    [o for o in group if letter_key(o[1].head, table.language) in used],
                    [o for o in group if letter_key(o[1].head, table.language) not in used],
                )
            ]
        # Words common to many cards (海, summer) come after every other word.
        groups = [[o for o in g if not o[1].common] for g in groups] + [
            [o for o in g if o[1].common] for g in groups
        ]
        for group in groups:
            tiers = {
                tier: [o for o in group if o[1].tier == tier] for tier in {o[1].tier for o in group}
            }
            while tiers:
                present = sorted(tiers)
                tier = rng.choices(present, weights=[self.style.tiers[t] for t in present])[0]
                pool = tiers.pop(tier)
                rng.shuffle(pool)
                for option in pool:
                    verdict = table.judge(option[1])
                    if verdict.ok or (careless and verdict.penalty):
                        return option
        return None

    # -- voting -----------------------------------------------------------------------------

    def vote(self, view: Mapping[str, JSON], table: Table, rng: random.Random) -> bool:
        """OK for an apt word (read as stated), mostly for a loose one, mostly NG otherwise."""
        play = view["pending"]
        if table.deck_seed is None:
            return True  # nobody knows what an uploaded picture is called: trust the player
        shown = card(table.deck_seed, play["card"])
        chance = self.ok_chance(shown, play["word"], play["head"], play["tail"], table.language)
        if chance == self.style.ok_none and table.stalling():
            chance = self.style.ok_loose  # nobody could go on: a stretch is welcome
        return rng.random() < chance

    def ok_chance(
        self, shown: Card, word: str, head: str | None, tail: str | None, language: str
    ) -> float:
        """How likely this voter says OK to ``word`` on ``shown`` (see :class:`Style`)."""
        how = relation(shown, word, language)
        if not how:
            return self.style.ok_none
        if language == "ja" and not plausible_reading(shown, word, head, tail):
            return self.style.ok_misread
        return self.style.ok_apt if how == "apt" else self.style.ok_loose


class NormalBot(IllustoriBot):
    """Thinks of most words, never breaks a rule, votes with sense."""

    level: ClassVar[str] = "normal"
    style: ClassVar[Style] = NORMAL


class EasyBot(IllustoriBot):
    """Thinks of fewer words, now and then forgets a rule, votes loosely."""

    level: ClassVar[str] = "easy"
    style: ClassVar[Style] = EASY


_BOTS: dict[str, type[IllustoriBot]] = {"easy": EasyBot, "normal": NormalBot}
#: Levels from weakest to strongest (the server's default is the middle one: normal).
BOT_LEVELS: tuple[str, ...] = tuple(_BOTS)


def make_bot(level: str) -> IllustoriBot:
    """A bot of ``level``; raises ``BadOptions`` for an unknown level.

    >>> make_bot("normal").level
    'normal'
    """
    if not isinstance(level, str) or level not in _BOTS:
        raise BadOptions(f"illustori has no bot level {level!r}")
    return _BOTS[level]()

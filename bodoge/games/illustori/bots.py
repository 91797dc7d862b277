"""Illustori bots: they name cards, keep the chain going and vote, from one seat's view.

A bot sees exactly what a person in its seat sees (the JSON view) and looks
up what its cards show from the deck seed in that view, as a person looks at
the pictures.  It never sees another hand, and keeps nothing between calls.

* **First word** — the giver names the turned-up card with a word the chain
  can go on from (no ん at the end, no same ends with that option).
* **Turn** — the words it thinks of for each hand card (:mod:`.words`: names,
  phrases of two parts, and names dressed up with the few modifiers and
  suffixes that come to mind this turn) whose head links are checked with
  :func:`~bodoge.games.illustori.shiritori.judge` under the table's bans; it
  plays one that stands, preferring plain names to phrases and phrases to
  dressed-up names.  When none stands it exchanges the half of its hand whose
  words have the fewest usable endings.
* **Vote** — OK when the word names something on the card (and, for a word
  in kanji, its stated first and last kana can be how it reads), mostly NG
  otherwise, with a little randomness.
* **Uploaded decks** — no names are known: plain words that link
  (:func:`.words.generic_words`) on any card, and every vote OK.

Levels: ``easy`` thinks of few modifiers and suffixes (so it exchanges more),
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

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from bodoge.core.errors import BadOptions
from bodoge.core.game import Bot, Seat
from bodoge.core.values import JSON
from bodoge.games.illustori import shiritori
from bodoge.games.illustori.cards import card
from bodoge.games.illustori.moves import Exchange, FirstWord, IllustoriMove, PlayCard, Vote
from bodoge.games.illustori.words import (
    MODIFIERS_EN,
    MODIFIERS_JA,
    SUFFIXES_EN,
    SUFFIXES_JA,
    Candidate,
    CardWords,
    card_words,
    generic_words,
    letter_key,
    names_card,
    plausible_reading,
)

__all__ = [
    "BOT_LEVELS",
    "EasyBot",
    "IllustoriBot",
    "Inspiration",
    "NormalBot",
    "Style",
    "Table",
    "make_bot",
]


@dataclass(frozen=True)
class Style:
    """How a level plays.

    ``tiers`` weighs the choice of word tier (names, phrases, dressed-up names:
    see :data:`~bodoge.games.illustori.words.TIERS`) among those that can be
    played now.  A person does not think of every word at once: on a turn the
    bot thinks of ``modifiers`` of the words that go before a name and
    ``suffixes`` of those that go after it, drawn at random.  ``forget`` is
    the chance that a turn's word is checked only for linking, not for the
    penalties.  With ``keep_joints`` and the used-joint ban, a word that
    begins with a letter already used as a joint is preferred (it bans no
    new ending).  A voter says OK with ``ok_named`` when the word names the
    card and reads as stated, ``ok_misread`` when it names the card but the
    stated kana cannot be its reading, ``ok_unnamed`` when it names nothing
    on the card.
    """

    tiers: tuple[float, float, float]
    modifiers: int
    suffixes: int
    forget: float
    keep_joints: bool
    ok_named: float
    ok_misread: float
    ok_unnamed: float


NORMAL = Style(
    tiers=(6, 3, 1),
    modifiers=16,
    suffixes=8,
    forget=0.0,
    keep_joints=True,
    ok_named=0.95,
    ok_misread=0.15,
    ok_unnamed=0.1,
)
EASY = Style(
    tiers=(6, 3, 1),
    modifiers=4,
    suffixes=2,
    forget=0.2,
    keep_joints=False,
    ok_named=0.85,
    ok_misread=0.4,
    ok_unnamed=0.3,
)


@dataclass(frozen=True)
class Inspiration:
    """The modifiers and suffixes a bot thinks of on one turn."""

    modifiers: tuple[str, ...]
    suffixes: tuple[str, ...]


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

    @classmethod
    def from_view(cls, view: Mapping[str, JSON]) -> Table:
        options = view["options"]
        language = options["language"]
        chain = view["chain"]
        last = chain[-1] if chain else None
        deck = view["deck"]
        return cls(
            language=language,
            ban_same_ends=bool(options["ban_same_ends"]),
            ban_used_joints=bool(options["ban_used_joints"]),
            used_joints=frozenset(view["used_joints"]),
            previous=None
            if last is None
            else shiritori.Word(last["word"], last["head"], last["tail"]),
            heads=frozenset(letter_key(h, language) for h in view["next_heads"]),
            # An uploaded deck has pictures but no names to look up.
            deck_seed=deck["seed"] if deck["custom"] is None else None,
        )

    def card_words(self, number: int) -> CardWords:
        """The words card ``number`` can be given (plain words on an uploaded deck)."""
        if self.deck_seed is None:
            return generic_words(self.language)
        return card_words(self.deck_seed, number, self.language)

    def links(self, word: Candidate) -> bool:
        """Whether the word may begin here (a quick look before the judge)."""
        return self.previous is None or letter_key(word.head, self.language) in self.heads

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

    def words(self, known: CardWords, table: Table, inspired: Inspiration) -> Iterator[Candidate]:
        """The words the bot thinks of for a card this turn.

        Names and phrases of its tiers, and names dressed up with this turn's
        ideas: only modifiers that can begin the word are tried, and only
        names that can begin it take a suffix.
        """
        weights = self.style.tiers
        yield from (w for w in known.phrases if weights[w.tier] > 0)
        if weights[2] > 0:
            heads = table.heads if table.previous is not None else None
            yield from known.dressed(inspired.modifiers, inspired.suffixes, heads)

    def first_word(self, view: Mapping[str, JSON], table: Table, rng: random.Random) -> FirstWord:
        """Name the turned-up card with a word the chain can go on from."""
        known = table.card_words(view["first_card"])
        weights = self.style.tiers
        # A name or phrase if one will do, else a dressed-up name, else a
        # plain word: the first word is never voted on, but it must let the
        # chain go on.
        pools = (
            [w for w in known.phrases if weights[w.tier] > 0],
            known.dressed(),
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
        inspired = self.inspiration(table, rng)
        # On an uploaded deck every card takes the same words: look once.
        numbers = [rng.choice(hand)] if table.deck_seed is None else hand
        options = [
            (number, word)
            for number in numbers
            for word in self.words(table.card_words(number), table, inspired)
            if table.links(word)
        ]
        chosen = self._choose(options, table, rng, careless=careless)
        if chosen is None:
            return Exchange(self.to_exchange(hand, table, rng))
        number, word = chosen
        assert number is not None
        head, tail = word.stated()
        return PlayCard(number, word.text, head, tail)

    def inspiration(self, table: Table, rng: random.Random) -> Inspiration:
        """The modifiers and suffixes the bot thinks of this turn."""
        ja = table.language == "ja"
        modifiers = MODIFIERS_JA if ja else MODIFIERS_EN
        suffixes = SUFFIXES_JA if ja else SUFFIXES_EN
        return Inspiration(
            tuple(rng.sample(modifiers, min(self.style.modifiers, len(modifiers)))),
            tuple(rng.sample(suffixes, min(self.style.suffixes, len(suffixes)))),
        )

    def to_exchange(self, hand: Sequence[int], table: Table, rng: random.Random) -> tuple[int, ...]:
        """The cards to give back: the half of the hand with the fewest usable endings.

        A card's worth is how many different last letters its names and
        phrases can end with under the table's bans (ties broken at random);
        at least one card goes.
        """
        worth = {number: self._endings(number, table) for number in hand}
        ranked = sorted(hand, key=lambda n: (worth[n], rng.random()))
        return tuple(sorted(ranked[: max(1, len(ranked) // 2)]))

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
        another drawn.  ``careless`` lets a penalty stand too.
        """
        groups = [list(options)]
        if table.ban_used_joints and self.style.keep_joints and table.previous is not None:
            # A word beginning with a letter that is a joint already uses up
            # no new ending for the rest of the game.
            used = {letter_key(j, table.language) for j in table.used_joints}
            keeping = [o for o in options if letter_key(o[1].head, table.language) in used]
            groups = [keeping, [o for o in options if o not in keeping]]
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
        """OK for a word that names the card (read as stated), mostly NG otherwise."""
        play = view["pending"]
        if table.deck_seed is None:
            return True  # nobody knows what an uploaded picture is called: trust the player
        shown = card(table.deck_seed, play["card"])
        word = play["word"]
        if not names_card(shown, word, table.language):
            chance = self.style.ok_unnamed
        elif table.language == "ja" and not plausible_reading(
            shown, word, play["head"], play["tail"]
        ):
            chance = self.style.ok_misread
        else:
            chance = self.style.ok_named
        return rng.random() < chance


class NormalBot(IllustoriBot):
    """Thinks of many words, never breaks a rule, votes with sense."""

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

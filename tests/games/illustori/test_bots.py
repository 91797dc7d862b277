"""Illustori bots: legal moves in whole games, words about their cards, votes with sense."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bodoge.core.errors import BadOptions
from bodoge.games.illustori import (
    annotations,
    associations,
    composition,
    kana,
    lexicon,
    scenes,
    shiritori,
    words,
)
from bodoge.games.illustori.bots import BOT_LEVELS, Table, make_bot
from bodoge.games.illustori.cards import Card, card, from_plan
from bodoge.games.illustori.emoji_catalogue import plural_en, reading_of
from bodoge.games.illustori.events import CardPlayed, FirstWordGiven, Penalty
from bodoge.games.illustori.game import IllustoriGame
from bodoge.games.illustori.moves import Exchange, FirstWord, PlayCard, Vote
from bodoge.games.illustori.rules import MALFORMED, MAX_WORD
from bodoge.games.illustori.selfplay import play_game
from bodoge.games.illustori.state import IllustoriState

GAME = IllustoriGame()
FAMILIES = sorted(kana.BASE - {"ん", "ゐ", "ゑ", "を"})
LETTERS = "abcdefghijklmnopqrstuvwxyz"
# The catalogue reads these as the card shows them; UniDic alone reads them
# otherwise (ナナメントリ, カクヒョウ, フジヤマ), so the reading oracle skips them.
CATALOGUE_READINGS = ("七面鳥", "角氷", "富士山")


# -- levels -------------------------------------------------------------------------------


def test_levels_are_declared_and_made_by_the_game() -> None:
    assert GAME.bot_levels == BOT_LEVELS == ("easy", "normal")
    for level in GAME.bot_levels:
        assert GAME.bot(level).level == level
    with pytest.raises(BadOptions):
        GAME.bot("expert")
    with pytest.raises(BadOptions):
        make_bot(None)  # type: ignore[arg-type]


# -- whole games --------------------------------------------------------------------------

BANS = (
    {},
    {"ban_same_ends": True},
    {"ban_used_joints": True},
    {"ban_same_ends": True, "ban_used_joints": True, "secret_votes": True, "vote_limit": True},
)


@pytest.mark.parametrize("language", ["ja", "en"])
@pytest.mark.parametrize("players", range(3, 9))
def test_bots_finish_games_with_only_legal_moves(players: int, language: str) -> None:
    # play_game sends every move through apply and raises BotError if one is refused.
    words = stretches = unnatural = 0
    for seed in (1, 2):
        bans = BANS[(players + seed) % 4]
        options = {"players": players, "language": language, **bans}
        record = play_game(options, seed, levels=("normal", "easy"), max_moves=1500)
        # With the used-joint ban fewer and fewer words may end a word, as
        # at a real table: a game may run long.
        assert record.finished or bans.get("ban_used_joints"), (options, seed)
        assert record.winners >= 1 or not record.finished
        words += record.words
        stretches += record.relations[""]
        unnatural += record.wordings[""]
    # Words about their card (a stretch only when the table is stuck), nearly all dictionary
    # words or natural phrases; counted over both games, as one stuck table in a short game
    # (18 words) would be a fifth of it alone.
    assert stretches <= 0.2 * words + 1, (stretches, words)
    assert unnatural <= 0.1 * words + 1, (unnatural, words)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(3, 8),
    language=st.sampled_from(["ja", "en"]),
    ban_same_ends=st.booleans(),
    ban_used_joints=st.booleans(),
    deck_size=st.sampled_from([33, 45, 60, 120]),
    levels=st.sampled_from([("normal",), ("easy",), ("easy", "normal", "normal")]),
    seed=st.integers(0, 2**32),
)
def test_bots_never_make_an_illegal_move(
    players: int,
    language: str,
    ban_same_ends: bool,
    ban_used_joints: bool,
    deck_size: int,
    levels: tuple[str, ...],
    seed: int,
) -> None:
    options = {
        "players": players,
        "language": language,
        "ban_same_ends": ban_same_ends,
        "ban_used_joints": ban_used_joints,
        "deck_size": max(deck_size, players * 5 + 1),
    }
    record = play_game(options, seed, levels=levels, max_moves=1500)
    assert record.finished or ban_used_joints
    assert record.turns == record.plays + record.exchanges


@pytest.mark.parametrize("language", ["ja", "en"])
@pytest.mark.parametrize("bans", BANS[1:], ids=["same_ends", "used_joints", "all"])
def test_normal_bots_never_earn_a_penalty(language: str, bans: dict[str, bool]) -> None:
    options = {"players": 5, "language": language, **bans}
    penalties: Counter[str] = Counter()
    for seed in range(5):
        penalties.update(play_game(options, seed).penalties)
    assert not penalties


def test_a_careless_turn_forgets_the_penalties() -> None:
    table = Table(
        language="ja",
        ban_same_ends=False,
        ban_used_joints=False,
        used_joints=frozenset(),
        previous=shiritori.Word("うみ"),
        heads=frozenset("み"),
        deck_seed=None,
    )
    orange = words.Candidate("みかん", "み", "ん", 0)
    assert table.judge(orange).reason == "ends_with_n"
    bot = make_bot("easy")
    assert bot._choose([(4, orange)], table, random.Random(0)) is None
    assert bot._choose([(4, orange)], table, random.Random(0), careless=True) == (4, orange)
    assert make_bot("normal").style.forget == 0 < bot.style.forget


def test_bots_act_on_a_json_view_alone() -> None:
    """What a worker process gets: the view through JSON, nothing else."""
    options = GAME.options({"players": 4, "ban_used_joints": True, "secret_votes": True})
    state = GAME.setup(options, 4, seed=5)
    bots = [make_bot("normal") for _ in range(4)]
    rng = random.Random(5)
    moves = 0
    while GAME.result(state) is None and moves < 2000:
        for seat in range(4):  # everyone is asked; only awaited seats answer
            view = json.loads(json.dumps(GAME.view(state, seat)))
            move = bots[seat].act(view, seat, rng)
            assert (move is not None) == (seat in GAME.to_act(state))
            if move is not None:
                state, _ = GAME.apply(state, seat, move)
                moves += 1
                break
    assert GAME.result(state) is not None


def test_a_bot_does_nothing_after_the_game() -> None:
    record_state = _finished_state()
    for seat in range(record_state.seats):
        view = GAME.view(record_state, seat)
        assert make_bot("normal").act(view, seat, random.Random(0)) is None


def _finished_state() -> IllustoriState:
    options = GAME.options({"players": 3})
    state = GAME.setup(options, 3, seed=9)
    bot = make_bot("normal")
    rng = random.Random(9)
    while GAME.result(state) is None:
        seat = min(GAME.to_act(state))
        move = bot.act(GAME.view(state, seat), seat, rng)
        assert move is not None
        state, _ = GAME.apply(state, seat, move)
    return state


# -- the first word -----------------------------------------------------------------------


@pytest.mark.parametrize("language", ["ja", "en"])
@pytest.mark.parametrize("ban_same_ends", [False, True])
def test_the_giver_names_the_turned_up_card(language: str, ban_same_ends: bool) -> None:
    options = GAME.options({"players": 4, "language": language, "ban_same_ends": ban_same_ends})
    for seed in range(40):
        state = GAME.setup(options, 4, seed)
        giver = state.giver
        move = make_bot("normal").act(GAME.view(state, giver), giver, random.Random(seed))
        assert isinstance(move, FirstWord)
        _, events = GAME.apply(state, giver, move)  # refused if ん, same ends, unreadable
        assert isinstance(events[0], FirstWordGiven)
        assert about(card(state.deck_seed, state.first_card), move.word, language)


# -- words name their card ----------------------------------------------------------------


def names(shown: Card, word: str, language: str) -> bool:
    """An oracle apart from the bots' own: the word shows some part's name or reading.

    In Japanese, the word or its UniDic reading holds a part's name, its
    reading, or a tail of its reading of two kana or more (クジラ of
    シオフキクジラ), dakuten aside (箱 reads ハコ alone, バコ in 段ボール箱); a
    one-kana name (歯) must be the whole word.  In English, the word holds a
    word of three letters or more of a part's name (or of its plural).
    """
    if language == "en":
        text = word.casefold()
        return any(
            len(w) >= 3 and w in text
            for p in shown.parts
            for name in (p.name_en, plural_en(p.emoji))  # candies of a candy
            for w in name.casefold().split()
        )
    texts = {plain(word), plain(reading_of(word))}
    for part in shown.parts:
        spoken = plain(part.reading_ja)
        if len(spoken) == 1 and spoken in texts:
            return True
        keys = {plain(part.name_ja)} | {spoken[i:] for i in range(len(spoken) - 1)}
        if any(key in text for key in keys for text in texts):
            return True
    return False


def plain(text: str) -> str:
    return "".join(kana.base(c) or c for c in kana.normalize(text))


def about(shown: Card, word: str, language: str) -> bool:
    """The word names a part, holds a word of its scene, or one its things bring to mind."""
    if names(shown, word, language):
        return True
    said = word.casefold() if language == "en" else plain(word) + "|" + plain(reading_of(word))
    scene = [*shown.scene.words[language], *shown.scene.frames[language]]
    if (seat := shown.part("seat")) is not None:
        scene += scenes.SEAT_WORDS[seat.emoji][language]
    scene += [*shown.scene.loose[language]]
    scene += [k for p in shown.parts for k in annotations.keywords(p.emoji, language)]
    scene += [k for p in shown.parts for k in associations.things(p.emoji, language)]
    scene += list(associations.theme_things(shown.kind, shown.theme, language))
    for text in scene:
        if "{" in text:
            continue
        key = text.casefold() if language == "en" else plain(text)
        if key in said or (language == "ja" and plain(reading_of(text)) in said):
            return True
    return False


@pytest.mark.parametrize("language", ["ja", "en"])
def test_every_word_a_bot_knows_is_about_its_card_and_reads_as_stated(language: str) -> None:
    checked = 0
    tiers: Counter[int] = Counter()
    for deck_seed in range(3):
        for number in range(0, 60, 2):
            shown = card(deck_seed, number)
            known = words.card_candidates(shown, language)
            for word in known.phrases:
                checked += 1
                tiers[word.tier] += 1
                assert about(shown, word.text, language), word
                assert lexicon.known(word.text, language), word
                assert words.relation(shown, word.text, language) in ("apt", "loose"), word
                assert len(word.text) <= MAX_WORD
                head, tail = word.stated()
                verdict = shiritori.judge(None, word.text, language=language, head=head, tail=tail)
                assert verdict.reason not in MALFORMED, word
                assert (verdict.head, verdict.tail) == (word.head, word.tail)
                if language == "ja" and not any(n in word.text for n in CATALOGUE_READINGS):
                    spoken = reading_of(word.text)
                    assert head is None or kana.same_family(head, kana.first(spoken) or ""), word
                    assert tail is None or kana.same_family(tail, kana.last(spoken) or ""), word
    assert checked > 1000
    # Every kind of word comes up: names, scene words, phrases, associations.
    assert set(tiers) == set(words.TIERS) and min(tiers.values()) > 50, tiers


def test_words_name_the_scene_not_only_the_things_on_it() -> None:
    from bodoge.games.illustori.cards import _example

    known = {w.text: w for w in words.card_candidates(_example(), "ja").phrases}
    assert known["王冠のクジラ"].stated() == ("お", None)
    assert known["潮吹きクジラ"].stated() == ("し", None)
    assert known["王冠をかぶったクジラ"].head == "お"
    assert known["王冠"].tier == 0 and known["おしゃれ"].tier == 1 and known["王族"].tier == 3
    english = {w.text for w in words.card_candidates(_example(), "en").phrases}
    assert {"whale", "crown whale", "whale wearing a crown", "fancy whale", "royal"} <= english
    # A crowd is called by what it is, a place by where it is, a face by its mood.
    plan = composition.Plan
    for made, expected in (
        (plan("crowd", "parade", "🐧"), {"ペンギンの行列", "行進"}),
        (plan("setting", "night", "🐱"), {"夜空のネコ", "星空", "真夜中"}),
        (plan("face", "scared", "😱", other="👻"), {"こわいお化け", "恐怖", "悲鳴"}),
        (plan("sizes", "sizes", "🍓", other="🐘"), {"巨大いちご", "小さなゾウ"}),
        (plan("family", "family", "🐻"), {"クマの親子", "親子"}),
    ):
        shown = from_plan(made, random.Random(1))
        found = {w.text for w in words.card_candidates(shown, "ja").phrases}
        assert expected <= found, (made, sorted(found))
    night = from_plan(plan("setting", "night", "🐱"), random.Random(1))
    assert {"cat at night", "night sky"} <= {
        w.text for w in words.card_candidates(night, "en").phrases
    }


def test_no_word_is_padded_with_filler() -> None:
    # The old bots dressed names up with words that had nothing to do with the
    # card (るんるんの山羊, にこにこの山羊, eager/odd/icy X) to reach a letter.
    filler_ja = ("るんるんの", "にこにこの", "ゆかいな", "のんきな", "たち", "がいる", "だよ")
    filler_en = ("eager ", "odd ", "icy ", "jolly ", "zany ", " party", " ahoy")
    for deck_seed in range(4):
        for shown in (card(deck_seed, n) for n in range(60)):
            for w in words.card_candidates(shown, "ja").phrases:
                assert not any(f in w.text for f in filler_ja) or about(shown, w.text, "ja"), w
            for w in words.card_candidates(shown, "en").phrases:
                padded = any(f in w.text for f in filler_en) and shown.theme != "odd"
                assert not padded or about(shown, w.text, "en"), w


def test_played_words_are_about_their_cards_in_whole_games() -> None:
    for language in ("ja", "en"):
        options = GAME.options({"players": 5, "language": language})
        state = GAME.setup(options, 5, seed=21)
        bots = [make_bot(level) for level in ("normal", "easy", "normal", "easy", "normal")]
        rng = random.Random(21)
        played = apt = 0
        while GAME.result(state) is None:
            seat = min(GAME.to_act(state))
            move = bots[seat].act(GAME.view(state, seat), seat, rng)
            assert move is not None
            state, events = GAME.apply(state, seat, move)
            for event in events:
                if isinstance(event, CardPlayed | FirstWordGiven):
                    played += 1
                    apt += about(card(state.deck_seed, event.card), event.word, language)
        assert played >= 5
        assert apt >= 0.9 * played  # the rest: a stretch when the whole table is stuck


# -- linking, bans and exchanges ----------------------------------------------------------


def _turn_state(raw: dict[str, Any], seed: int = 3) -> IllustoriState:
    """A state where the first word is given and the next seat is to play."""
    options = GAME.options(raw)
    state = GAME.setup(options, options.players, seed)
    move = make_bot("normal").act(GAME.view(state, state.giver), state.giver, random.Random(seed))
    assert move is not None
    state, _ = GAME.apply(state, state.giver, move)
    return state


def test_a_bot_exchanges_when_no_word_can_stand() -> None:
    state = _turn_state({"players": 4, "ban_used_joints": True})
    # Every ending is a used joint: no word can stand without a penalty.
    state = dataclasses.replace(state, used_joints=(*FAMILIES, "ん"))
    seat = state.turn
    for level in BOT_LEVELS:
        for draw in range(20):
            move = make_bot(level).act(GAME.view(state, seat), seat, random.Random(draw))
            if level == "normal" or not isinstance(move, PlayCard):
                assert isinstance(move, Exchange), move
                assert 1 <= len(move.cards) <= len(state.hands[seat]) // 2 + 1
                assert set(move.cards) <= set(state.hands[seat])
            after, _ = GAME.apply(state, seat, move)  # accepted
            assert after.turn != seat


def test_after_a_round_without_a_word_a_bot_keeps_only_its_best_card() -> None:
    state = _turn_state({"players": 4, "ban_used_joints": True})
    state = dataclasses.replace(state, used_joints=(*FAMILIES, "ん"), idle_turns=4)
    seat = state.turn
    move = make_bot("normal").act(GAME.view(state, seat), seat, random.Random(1))
    assert isinstance(move, Exchange) and len(move.cards) == len(state.hands[seat]) - 1


def _ending_in(state: IllustoriState, letter: str) -> IllustoriState:
    """``state`` with the chain's last word ending in ``letter`` (nothing else changed)."""
    last = state.chain[-1]
    word = dataclasses.replace(last, word="あ" + letter, tail=letter, next_heads=(letter,))
    return dataclasses.replace(state, chain=(*state.chain[:-1], word))


def test_after_two_rounds_without_a_word_a_bot_stretches_rather_than_exchange() -> None:
    state = _turn_state({"players": 4})
    seat = state.turn
    stretched = []
    for letter in FAMILIES:
        quiet = _ending_in(state, letter)
        table = Table.from_view(GAME.view(quiet, seat))
        if table.stuck():
            continue  # nobody could go on: a bot stretches at once (tested elsewhere)
        bot = make_bot("normal")
        moves = [bot.act(GAME.view(quiet, seat), seat, random.Random(d)) for d in range(5)]
        if not all(isinstance(m, Exchange) for m in moves):
            continue  # its cards have a word for this letter
        # Two rounds (8 turns at 4 players) without a word: it stretches a point.
        stalled = dataclasses.replace(quiet, idle_turns=8)
        move = bot.act(GAME.view(stalled, seat), seat, random.Random(0))
        assert isinstance(move, PlayCard), (letter, move)
        assert move.word in {w.text for w in words.stretch_words("ja")}
        after, events = GAME.apply(stalled, seat, move)
        assert not any(isinstance(e, Penalty) for e in events) and after.phase == "vote"
        # The voters let it pass as a loose word, where they would turn it down before.
        shown = card(state.deck_seed, move.card)
        if not words.relation(shown, move.word, "ja"):
            voter = (seat + 1) % 4
            oks = [
                make_bot("normal").act(GAME.view(after, voter), voter, random.Random(d)).ok
                for d in range(40)
            ]
            assert sum(oks) >= 24
            calm = dataclasses.replace(after, idle_turns=0)
            if not Table.from_view(GAME.view(calm, voter)).stuck():
                oks = [
                    make_bot("normal").act(GAME.view(calm, voter), voter, random.Random(d)).ok
                    for d in range(40)
                ]
                assert sum(oks) <= 8
        stretched.append(letter)
    assert len(stretched) >= 3, stretched


@pytest.mark.parametrize(
    ("options", "levels", "seeds"),
    [
        # Games that used to exchange for ever (5,000 moves and more).
        (
            {"players": 5, "ban_same_ends": True, "ban_used_joints": True},
            ("easy", "normal"),
            [3570914432682781790, 14679374880247993765, 17335077643448585249],
        ),
        (
            {"players": 6, "language": "en", "ban_used_joints": True, "deck_size": 33},
            ("normal",),
            [0, 13480030898074056108, 13601215715290417961, 11378788788756972734],
        ),
    ],
    ids=["ja-both-bans", "en-33-cards"],
)
def test_games_that_used_to_stall_end(
    options: dict[str, Any], levels: tuple[str, ...], seeds: list[int]
) -> None:
    for seed in seeds:
        record = play_game(options, seed, levels=levels, max_moves=1500)
        assert record.finished, (options, seed)


@pytest.mark.parametrize("language", ["ja", "en"])
def test_a_played_word_links_and_breaks_no_ban(language: str) -> None:
    for seed in range(15):
        raw = {"players": 4, "language": language, "ban_same_ends": True, "ban_used_joints": True}
        state = _turn_state(raw, seed)
        seat = state.turn
        move = make_bot("normal").act(GAME.view(state, seat), seat, random.Random(seed))
        if isinstance(move, PlayCard):
            _, events = GAME.apply(state, seat, move)
            assert not any(isinstance(e, Penalty) for e in events)
            assert move.card in state.hands[seat]


def test_with_joints_banned_a_bot_prefers_a_used_joint_as_head() -> None:
    # After "cat" a word may begin with a or t; t is a used joint already, so
    # a word beginning with t bans no new ending.
    table = Table(
        language="en",
        ban_same_ends=False,
        ban_used_joints=True,
        used_joints=frozenset("t"),
        previous=shiritori.Word("cat"),
        heads=frozenset("at"),
        deck_seed=None,
    )
    apple = next(w for w in words.generic_words("en").phrases if w.text == "apple")
    tulip = next(w for w in words.generic_words("en").phrases if w.text == "tulip")
    assert table.judge(apple).ok and table.judge(tulip).ok
    for level, keeps in (("normal", True), ("easy", False)):
        bot = make_bot(level)
        picked = {bot._choose([(1, apple), (2, tulip)], table, random.Random(d))[1].text
                  for d in range(40)}  # fmt: skip
        assert picked == ({"tulip"} if keeps else {"apple", "tulip"})


# -- votes --------------------------------------------------------------------------------


def _vote_state(
    language: str, word_for: Any, custom: bool = False, seed: int = 12
) -> tuple[IllustoriState, int]:
    """A 4-player table voting on ``word_for(card, next_heads)`` for the turn player's card."""
    raw: dict[str, Any] = {"players": 4, "language": language}
    if custom:
        raw["custom_deck"] = "holiday-photos"
    options = GAME.options(raw)
    state = GAME.setup(options, 4, seed=seed)
    first = "ねこ" if language == "ja" else "cat"
    state, _ = GAME.apply(state, state.giver, FirstWord(first))
    seat = state.turn
    number = state.hands[seat][0]
    shown = None if custom else card(state.deck_seed, number)
    assert state.current is not None
    word, head, tail = word_for(shown, state.current.next_heads)
    state, _ = GAME.apply(state, seat, PlayCard(number, word, head, tail))
    assert state.phase == "vote"
    return state, (seat + 1) % 4


def _oks(state: IllustoriState, voter: int, level: str = "normal", draws: int = 300) -> float:
    bot = make_bot(level)
    view = GAME.view(state, voter)
    votes = [bot.act(view, voter, random.Random(d)) for d in range(draws)]
    assert all(isinstance(v, Vote) for v in votes)
    return sum(v.ok for v in votes) / draws  # type: ignore[union-attr]


def _naming(language: str) -> Any:
    """A dressed-up name of the card's subject, with its last kana stated if it ends in kanji."""

    def word_for(shown: Card, heads: tuple[str, ...]) -> tuple[str, None, str | None]:
        subject = shown.subject
        if language == "en":
            return "angry " + subject.name_en, None, None
        tail = None if kana.last(subject.name_ja) else kana.last(subject.reading_ja)
        return "こわい" + subject.name_ja, None, tail

    return word_for


def _nonsense(language: str) -> Any:
    def word_for(shown: Card | None, heads: tuple[str, ...]) -> tuple[str, None, None]:
        word = "こたつのふた" if language == "ja" else "anchor chain"
        assert shown is None or not names(shown, word, language)
        return word, None, None

    return word_for


@pytest.mark.parametrize("language", ["ja", "en"])
def test_voters_say_ok_to_a_word_that_names_the_card(language: str) -> None:
    state, voter = _vote_state(language, _naming(language))
    assert _oks(state, voter) >= 0.9
    assert _oks(state, voter, "easy") >= 0.75


@pytest.mark.parametrize("language", ["ja", "en"])
def test_voters_mostly_say_ng_to_a_word_that_names_nothing(language: str) -> None:
    state, voter = _vote_state(language, _nonsense(language))
    assert _oks(state, voter) <= 0.2
    assert 0 < _oks(state, voter, "easy") <= 0.45  # easy is looser, still mostly NG


def test_voters_doubt_a_reading_that_cannot_be() -> None:
    def misread(shown: Card, heads: tuple[str, ...]) -> tuple[str, str, str]:
        kanji = next(p.name_ja for p in shown.parts if kana.last(p.name_ja) is None)
        wrong = next(f for f in FAMILIES if not kana.same_family(f, kana.last(reading_of(kanji))))
        return "こわい" + kanji, "こ", wrong  # names the card, but its stated tail is wrong

    def read_right(shown: Card, heads: tuple[str, ...]) -> tuple[str, str, str]:
        kanji = next(p for p in shown.parts if kana.last(p.name_ja) is None)
        return "こわい" + kanji.name_ja, "こ", kana.last(kanji.reading_ja) or ""

    wrong_state, voter = _vote_state("ja", _require_kanji(misread), seed=KANJI_SEED)
    right_state, _ = _vote_state("ja", _require_kanji(read_right), seed=KANJI_SEED)
    assert _oks(wrong_state, voter) <= 0.3
    assert _oks(right_state, voter) >= 0.9


#: A table whose turn player's first card ends a name in kanji (絵筆, a paintbrush).
KANJI_SEED = 13


def _require_kanji(word_for: Any) -> Any:
    """The ``KANJI_SEED`` turn player's first card ends a name in kanji (checked here)."""

    def checked(shown: Card, heads: tuple[str, ...]) -> Any:
        assert any(kana.last(p.name_ja) is None for p in shown.parts), shown.names("ja")
        return word_for(shown, heads)

    return checked


@pytest.mark.parametrize("language", ["ja", "en"])
def test_on_an_uploaded_deck_voters_trust_the_player(language: str) -> None:
    state, voter = _vote_state(language, _nonsense(language), custom=True)
    assert _oks(state, voter) == 1.0
    assert _oks(state, voter, "easy") == 1.0


# -- uploaded (custom) decks ----------------------------------------------------------------


@pytest.mark.parametrize("language", ["ja", "en"])
def test_bots_play_an_uploaded_deck_with_plain_words(language: str) -> None:
    plain = {w.text for w in words.generic_words(language).phrases}
    for seed, bans in enumerate(BANS):
        options = {"players": 3 + seed, "language": language, "custom_deck": "trip", **bans}
        record = play_game(options, seed, levels=("normal", "easy"), max_moves=1500)
        assert record.finished or bans.get("ban_used_joints")
        assert record.failed == 0  # every vote OK
        assert not record.relations  # nothing to name
    state = GAME.setup(
        GAME.options({"players": 3, "custom_deck": "trip", "language": language}), 3, 4
    )
    move = make_bot("normal").act(GAME.view(state, state.giver), state.giver, random.Random(4))
    assert isinstance(move, FirstWord)
    assert any(w in move.word for w in plain)


def test_the_plain_words_reach_every_head_and_end_well() -> None:
    for language, heads in (("ja", FAMILIES), ("en", list(LETTERS))):
        plain = words.generic_words(language).phrases
        for head in heads:
            found = [w for w in plain if words.letter_key(w.head, language) == head]
            assert len(found) >= 2, (language, head)
            assert len({w.tail for w in found}) >= 2, (language, head)
        assert not [w for w in plain if language == "ja" and kana.base(w.tail) == "ん"]
        # Plain words, in the dictionary: a stretch is still a real word.
        assert all(lexicon.wording(w.text, language) for w in plain), language

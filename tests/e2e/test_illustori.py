"""Illustori in real browsers (Debian's chromium), against a real server.

* Three people play a whole Japanese game: a word in markup that shows as
  text and is voted down, a ん penalty, an exchange, a keyboard-only turn, a
  tie vote that passes, the final round and the winners; the lobby offers
  every option; the rules panel and the OpenMoji credit show.
* An English game with secret voting and the 25-second limit: no voter's
  page ever shows, nor receives over its WebSocket, who else has voted.
* One person and four bots play to the end on a deck of uploaded PNG
  pictures (an SVG is refused in the lobby first).

Screenshots (voting, the chain, the end; Japanese and English, desktop and
phone) go to the screenshot folder: ``illustori-*.png``.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from PIL import Image

from bodoge.games.illustori import kana
from tests.e2e import ui
from tests.e2e.conftest import DESKTOP, PHONE
from tests.support.follow import Follower

Page = Any
BOARD = "[data-testid=illustori]"
FLAGS = ("ban_same_ends", "ban_used_joints", "vote_limit", "secret_votes", "show_rules")
XSS = "<script>alert(1)</script>"

#: Words for each first kana (by family); each ends where another begins.
JA_WORDS = {
    "あ": "あめ あさがお", "い": "いるか いちご", "う": "うさぎ うみ", "え": "えのぐ えだまめ",
    "お": "おばけ おにぎり", "か": "かさ かえる", "き": "きつね きのこ", "く": "くじら くつした",
    "け": "けいと けむし", "こ": "こいのぼり こま", "さ": "さかな さくら", "し": "しまうま しか",
    "す": "すいか すずめ", "せ": "せみ せんす", "そ": "そら そり", "た": "たこ たまご",
    "ち": "ちず ちくわ", "つ": "つき つみき", "て": "てがみ てぶくろ", "と": "とけい とまと",
    "な": "なす なわとび", "に": "にじ にわとり", "ぬ": "ぬいぐるみ ぬりえ", "ね": "ねこ ねずみ",
    "の": "のり のこぎり", "は": "はなび はさみ", "ひ": "ひこうき ひまわり", "ふ": "ふね ふうせん",
    "へ": "へび へいたい", "ほ": "ほし ほたる", "ま": "まくら まつり", "み": "みこし みかづき",
    "む": "むし むぎわら", "め": "めがね めだか", "も": "もみじ ももたろう", "や": "やま やさい",
    "ゆ": "ゆき ゆびわ", "よ": "よる ようふく", "ら": "らくだ らっぱ", "り": "りんご りす",
    "る": "ルビー るすでん", "れ": "れいぞうこ れんこん", "ろ": "ろうそく ろけっと",
    "わ": "わに わたあめ",
}  # fmt: skip
EN_WORDS = {
    "a": "apple", "b": "bird", "c": "cat", "d": "dog", "e": "egg", "f": "fish",
    "g": "goat", "h": "hat", "i": "ink", "j": "jam", "k": "kite", "l": "lamp",
    "m": "moon", "n": "nest", "o": "owl", "p": "pig", "q": "queen", "r": "rain",
    "s": "sun", "t": "tree", "u": "umbrella", "v": "van", "w": "whale", "x": "xylophone",
    "y": "yak", "z": "zebra",
}  # fmt: skip


# --- driving the page ---------------------------------------------------------------


def create_illustori(
    page: Page,
    players: int,
    *,
    language: str = "ja",
    flags: tuple[str, ...] = ("show_rules",),
    bots: tuple[tuple[int, str], ...] = (),
    seed: int | None = None,
    pictures: list[dict[str, Any]] | None = None,
) -> str:
    page.click("[data-key=game-illustori]")
    page.wait_for_selector("[data-testid=game-options]")
    page.click(f"[data-testid=players-{players}]")
    page.click(f"[data-testid=opt-language-{language}]")
    for flag in FLAGS:
        page.set_checked(f"[data-testid=opt-{flag}]", flag in flags)
    if pictures is not None:
        page.click("[data-testid=opt-deck-custom]")
        page.set_input_files("[data-testid=opt-files]", pictures)
        page.wait_for_selector("[data-testid=upload-ok]")
    else:
        page.click("[data-testid=opt-deck-generated]")
        page.fill("[data-testid=opt-seed]", "" if seed is None else str(seed))
    for seat, level in bots:
        page.select_option(f"[data-testid=seat-kind-{seat}]", level)
    # Illustori has no assistant: the lobby does not offer it.
    assert page.locator("[data-testid=assistant]").count() == 0
    page.click("[data-testid=create-table]")
    page.wait_for_url(re.compile(r".*/t/[A-Za-z0-9_-]+$"))
    page.wait_for_selector("[data-testid=seats]")
    return page.url.rstrip("/").rsplit("/", 1)[1]


def board(page: Page) -> dict[str, Any]:
    return page.eval_on_selector(
        BOARD,
        "el => ({n: Number(el.dataset.n), phase: el.dataset.phase,"
        " turn: el.dataset.turn === '' ? null : Number(el.dataset.turn),"
        " giver: Number(el.dataset.giver)})",
    )


def wait_n(pages: list[Page], n: int) -> None:
    for page in pages:
        page.wait_for_function(
            "n => Number(document.querySelector('[data-testid=illustori]')?.dataset.n) >= n",
            arg=n,
        )


def next_heads(page: Page) -> list[str]:
    return page.locator("[data-testid=next-heads] .il-head").all_inner_texts()


def ja_word(heads: list[str], used: set[str] | None = None, joints: list[str] = ()) -> str:
    """A word starting with one of ``heads``, preferably new, that no rule punishes.

    With used ``joints`` (the ban on ending with one is on), the word may not
    end with one of them, nor with its own joint; when no word of the list
    fits, two are joined with の (よるのあめ).
    """
    used = set() if used is None else used
    all_words = [w for ws in JA_WORDS.values() for w in ws.split()]

    def fine(word: str, head: str) -> bool:
        tail = kana.base(kana.last(word))
        banned = {kana.base(j) for j in joints} | ({kana.base(head)} if joints else set())
        return tail != "ん" and tail not in banned

    choices = [
        w
        for head in heads
        for w in JA_WORDS.get(kana.base(head) or head, "").split()
        if fine(w, head)
    ]
    if not choices:
        choices = [
            f"{first}の{second}"
            for head in heads
            for first in JA_WORDS[kana.base(head)].split()
            for second in all_words
            if fine(second, head)
        ]
    assert choices, f"no word for {heads}"
    word = next((w for w in choices if w not in used), choices[0])
    used.add(word)
    return word


def used_joints(page: Page) -> list[str]:
    return page.locator("[data-testid=used-joints] .il-used").all_inner_texts()


def en_word(heads: list[str], used: set[str]) -> str:
    # The same word twice would be fine for the rules; variety reads better.
    for head in heads:
        for word in (EN_WORDS[head], EN_WORDS[head] + "s", "big " + EN_WORDS[head]):
            if word[0] == head and word not in used:
                used.add(word)
                return word
    return EN_WORDS[heads[0]]


def hand_cards(page: Page) -> list[int]:
    return page.eval_on_selector_all(
        "[data-testid=hand] button.ic", "els => els.map(e => Number(e.dataset.card))"
    )


def play(
    page: Page,
    word: str,
    *,
    head: str | None = None,
    tail: str | None = None,
    penalty: bool = False,
    index: int = 0,
) -> None:
    page.locator("[data-testid=hand] button.ic:not([disabled])").nth(index).click()
    page.fill("[data-testid=word]", word)
    if head is not None:
        page.fill("[data-testid=head]", head)
    if tail is not None:
        page.fill("[data-testid=tail]", tail)
    page.click("[data-testid=send]")
    if penalty:
        page.click("[data-testid=penalty-confirm-ok]")


def log_texts(page: Page) -> list[str]:
    """The log's lines as text, spaces folded."""
    texts = page.locator("[data-testid=log-entry]").all_text_contents()
    return [" ".join(text.split()) for text in texts]


def vote(page: Page, ok: bool) -> None:
    page.click(f"[data-testid=vote-{'ok' if ok else 'ng'}]")
    page.wait_for_selector("[data-testid=my-vote], [data-testid=last-vote], [data-testid=result]")


def settle(page: Page) -> None:
    """Two frames: what the last event changed is drawn."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def shoot(page: Page, folder: Path, name: str, *, phone: bool = False) -> None:
    """``{name}.png`` (and ``…-phone-{lang}.png``), without passing toasts, board scrolled up."""
    page.evaluate(
        "() => { document.getElementById('toasts')?.replaceChildren();"
        " document.querySelector('.tp-board')?.scrollTo(0, 0); }"
    )
    settle(page)
    page.screenshot(path=str(folder / f"{name}.png"), animations="disabled")
    if phone:
        page.set_viewport_size(PHONE)
        settle(page)
        page.screenshot(
            path=str(folder / f"{name.rsplit('-', 1)[0]}-phone-{name.rsplit('-', 1)[1]}.png"),
            animations="disabled",
            full_page=True,
        )
        page.set_viewport_size(DESKTOP)
        settle(page)


def png(colour: str, size: tuple[int, int] = (320, 320)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return buffer.getvalue()


def seat_up(
    open_page: Any, names: list[str], lang: str, **create: Any
) -> tuple[list[Page], list[Any]]:
    """The first person creates the table, the others take seats 1, 2, …; the host starts."""
    host, problems = open_page("/", lang=lang)
    ui.sign_in(host, names[0])
    table = create_illustori(host, len(names), **create)
    pages, found = [host], [problems]
    for seat, name in enumerate(names[1:], start=1):
        page, problems = open_page(f"/t/{table}", lang=lang)
        ui.sign_in(page, name)
        page.click(f"[data-testid=sit-{seat}]")
        pages.append(page)
        found.append(problems)
    host.locator("[data-testid=start]:not([disabled])").click()
    for page in pages:
        page.wait_for_selector(BOARD)
    return pages, found


# --- the Japanese game --------------------------------------------------------------


def test_three_people_play_a_japanese_game_to_the_end(open_page, screenshot_dir):
    names = ["はなこ", "Taro", "けん"]
    flags = ("show_rules", "ban_used_joints")
    pages, problems = seat_up(open_page, names, "ja", flags=flags, seed=2026)
    host = pages[0]
    table = host.url.rstrip("/").rsplit("/", 1)[1]
    origin = host.url.split("/t/")[0]
    options = host.request.get(f"{origin}/api/tables/{table}").json()["options"]
    assert options["language"] == "ja" and options["deck_seed"] == 2026
    assert {f for f in FLAGS if options[f]} == set(flags)
    assert host.locator("[data-testid=rules]").is_visible()
    credit = host.locator("[data-testid=attribution]")
    assert "OpenMoji" in credit.inner_text()
    assert credit.locator("a[href='https://openmoji.org/']").count() == 1
    assert credit.locator("a[href='https://creativecommons.org/licenses/by-sa/4.0/']").count() == 1
    # Hands: five large cards each; everyone sees everyone's count, nobody another hand.
    for page in pages:
        assert len(hand_cards(page)) == 5
        assert page.locator("[data-testid=hand-count]").all_inner_texts() == ["5枚"] * 3

    giver = board(host)["giver"]
    pages[giver].fill("[data-testid=word]", "つきよ")
    assert pages[giver].get_attribute("[data-testid=head]", "readonly") is not None
    assert pages[giver].input_value("[data-testid=head]") == "つ"
    assert pages[giver].input_value("[data-testid=tail]") == "よ"
    pages[giver].click("[data-testid=send]")
    n = 1
    wait_n(pages, n)
    assert host.locator("[data-testid=used-joints]").is_visible()

    k = 0
    seen_final = False
    used: set[str] = {"つきよ"}
    while board(host)["phase"] != "ended":
        turn = board(host)["turn"]
        player = pages[turn]
        voters = [p for s, p in enumerate(pages) if s != turn]
        heads = next_heads(player)
        if k == 0:
            # Markup as a word: it begins and ends with no kana, so both are typed.
            player.locator("[data-testid=hand] button.ic").first.click()
            # The letters the word must start with show before anything is typed.
            assert player.locator("[data-testid=need] .il-head").all_inner_texts() == heads
            player.fill("[data-testid=word]", XSS)
            assert player.get_attribute("[data-testid=flag]", "data-reason") == "not_kana"
            assert player.is_disabled("[data-testid=send]")
            player.fill("[data-testid=tail]", "と")
            player.fill("[data-testid=head]", "ぬ" if heads[0] != "ぬ" else "ね")
            assert player.get_attribute("[data-testid=flag]", "data-reason") == "no_link"
            player.fill("[data-testid=head]", heads[0])
            assert player.get_attribute("[data-testid=flag]", "data-reason") == "ok"
            player.click("[data-testid=send]")
            n += 1
            wait_n(pages, n)
            for page in voters:
                assert page.inner_text("[data-testid=vote-word]") == XSS
                assert page.locator(f"{BOARD} script").count() == 0
            # Who has voted shows to everyone (not how), the countdown does not (no limit).
            vote(voters[0], False)
            n += 1
            wait_n(pages, n)
            first_voter = pages.index(voters[0])
            assert voters[1].locator(f"[data-testid=voted-{first_voter}]").count() == 1
            assert player.locator("[data-testid=countdown]").count() == 0
            shoot(voters[1], screenshot_dir, "illustori-vote-ja", phone=True)
            # By keyboard: the ダメ button, then Enter.
            voters[1].focus("[data-testid=vote-ng]")
            voters[1].keyboard.press("Enter")
            n += 1
            wait_n(pages, n)
            assert "否決" in player.inner_text("[data-testid=last-vote]")
            assert len(hand_cards(player)) == 5  # the card went, another came
        elif k == 1:
            # A word ending in ん is flagged before sending, then punished.
            card = player.locator("[data-testid=hand] button.ic").first
            card.click()
            player.fill("[data-testid=word]", heads[0] + "ん")
            assert player.get_attribute("[data-testid=flag]", "data-reason") == "ends_with_n"
            player.click("[data-testid=send]")
            player.click("[data-testid=penalty-confirm-ok]")
            n += 1
            wait_n(pages, n)
            for page in pages:
                assert page.locator("[data-testid=log-entry][data-kind=penalty]").count() == 1
        elif k == 2:
            player.click("[data-testid=mode-exchange]")
            cards = hand_cards(player)
            player.click(f"[data-testid=hand-{cards[1]}]")
            player.click(f"[data-testid=hand-{cards[3]}]")
            player.click("[data-testid=exchange]")
            n += 1
            wait_n(pages, n)
            after = hand_cards(player)
            assert len(after) == 5 and cards[1] not in after and cards[3] not in after
            for page in voters:
                assert page.locator("[data-testid=log-entry][data-kind=exchange]").count() == 1
        else:
            joints = used_joints(player)
            word = ja_word(heads, used, joints)
            if k == 5 and joints:
                # Ending with a used joint is flagged as a penalty before sending.
                player.locator("[data-testid=hand] button.ic:not([disabled])").first.click()
                player.fill("[data-testid=word]", f"{word}の{joints[0]}")
                assert player.get_attribute("[data-testid=flag]", "data-reason") == "banned_joint"
                player.locator("[data-testid=hand] button.ic--on").click()
            if k == 3:
                # A whole turn by keyboard: a card, the word, Enter.
                player.focus("[data-testid=hand] button.ic:not([disabled])")
                player.keyboard.press("Enter")
                assert player.evaluate("document.activeElement.dataset.testid") == "word"
                player.keyboard.type(word)
                player.keyboard.press("Enter")
            else:
                play(player, word)
            n += 1
            wait_n(pages, n)
            # In the final round the table turns words down: not everyone wins.
            vote(voters[0], not seen_final)
            n += 1
            wait_n(pages, n)
            vote(voters[1], k != 4 and not seen_final)  # one OK, one ダメ: a tie passes
            n += 1
            wait_n(pages, n)
            if k == 4:
                assert "承認" in player.inner_text("[data-testid=last-vote]")
            if k == 6:
                # A reload keeps the hand, the chain and the log, word for word.
                page = voters[0]
                before = (hand_cards(page), log_texts(page))
                chain = page.locator("[data-testid=chain-word]").count()
                page.reload()
                wait_n([page], n)
                after = (hand_cards(page), log_texts(page))
                assert after == before
                assert page.locator("[data-testid=chain-word]").count() == chain
                # Someone who comes to watch now reads the same log as the players,
                # rejected words with their tallies, the penalty and the exchange too.
                watcher, _ = open_page("/")
                ui.sign_in(watcher, "みる")
                watcher.goto(host.url)
                wait_n([watcher], n)
                assert log_texts(watcher) == log_texts(host) == log_texts(player)
                for kind in ("first", "failed", "penalty", "exchange", "passed"):
                    assert watcher.locator(f"[data-testid=log-entry][data-kind={kind}]").count()
                failed = watcher.locator("[data-testid=log-entry][data-kind=failed]").first
                assert "否決" in failed.inner_text() and "OK 0" in failed.inner_text()
            if k == 9:
                shoot(pages[board(host)["turn"]], screenshot_dir, "illustori-chain-ja")
        if host.locator("[data-testid=final-round]").count():
            seen_final = True
        k += 1
        assert k < 40, "the game should be over by now"

    assert seen_final
    winners = host.inner_text("[data-testid=winners]")
    result = [s for s, p in enumerate(pages) if not hand_cards(p)]
    assert len(result) == 1 and names[result[0]] in winners
    assert host.locator(".il-place .place-badge").all_inner_texts().count("2位") == 2
    for page in pages:
        page.wait_for_selector("[data-testid=result]")
        ui.assert_page_matches_snapshot(page)
        assert page.locator("[data-testid=chain-word]").count() >= 10
        assert page.locator("[data-testid=log-entry][data-kind=final]").count() == 1
    shoot(pages[result[0]], screenshot_dir, "illustori-end-ja", phone=True)
    # Every device shows the same log to the end: the players, the late watcher
    # and, step by step from the server's history, the replay.
    live = log_texts(host)
    assert live[-1].startswith("ゲーム終了") and sum("否決" in x for x in live) >= 2
    for page in [*pages, watcher]:
        page.wait_for_selector("[data-testid=log-entry][data-kind=end]")
        assert log_texts(page) == live
    host.click("[data-testid=replay-link]")
    host.wait_for_selector("[data-testid=replay-page] [data-testid=illustori]")
    host.keyboard.press("End")
    host.wait_for_selector("[data-testid=log-entry][data-kind=end]")
    assert log_texts(host) == live
    host.keyboard.press("Home")
    host.wait_for_function("() => !document.querySelector('[data-testid=log-entry]')")
    host.keyboard.press("ArrowRight")
    host.wait_for_function(
        "() => document.querySelectorAll('[data-testid=log-entry]').length === 1"
    )
    assert log_texts(host) == live[:1]
    # Nothing ever ran the markup word.
    assert not [d for found in problems for d in found.dialogs]


# --- a table that cannot go on ----------------------------------------------------------


def exchange_one(page: Page) -> None:
    page.click("[data-testid=mode-exchange]")
    page.click(f"[data-testid=hand-{hand_cards(page)[0]}]")
    page.click("[data-testid=exchange]")


def test_three_rounds_of_exchanges_end_the_game_stalled(open_page, screenshot_dir):
    names = ["はなこ", "Taro", "けん"]
    pages, _ = seat_up(open_page, names, "ja", seed=7)
    host = pages[0]
    giver = board(host)["giver"]
    pages[giver].fill("[data-testid=word]", "つきよ")
    pages[giver].click("[data-testid=send]")
    n = 1
    wait_n(pages, n)
    # One round of exchanges: everyone is told how close the end is.
    for _ in range(3):
        exchange_one(pages[board(host)["turn"]])
        n += 1
        wait_n(pages, n)
    for page in pages:
        assert "3手番続けて" in page.inner_text("[data-testid=stall]")
        assert "あと6手番" in page.inner_text("[data-testid=stall]")
    # A word joins the chain: the count starts again and the notice goes.
    turn = board(host)["turn"]
    play(pages[turn], ja_word(next_heads(pages[turn])))
    n += 1
    wait_n(pages, n)
    for voter in (s for s in range(3) if s != turn):
        vote(pages[voter], True)
        n += 1
    wait_n(pages, n)
    for page in pages:
        assert page.locator("[data-testid=stall]").count() == 0
    # Then three rounds without a word: the game ends, the fewest cards win.
    for k in range(9):
        exchange_one(pages[board(host)["turn"]])
        n += 1
        wait_n(pages, n)
        if k == 7:
            assert "あと1手番" in host.inner_text("[data-testid=stall]")
    for page in pages:
        page.wait_for_selector("[data-testid=result]")
        assert page.locator("[data-testid=stalled]").count() == 1
        assert names[turn] in page.inner_text("[data-testid=winners]")  # one card fewer
        end = page.locator("[data-testid=log-entry][data-kind=end]")
        assert "3周ワードが通らず" in end.inner_text() and names[turn] in end.inner_text()
    shoot(host, screenshot_dir, "illustori-stalled-ja", phone=True)
    ui.set_lang(host, "en")
    end = host.locator("[data-testid=log-entry][data-kind=end]").inner_text()
    assert "Three rounds without a word" in end and names[turn] in end
    assert "ranked by the cards left" in host.inner_text("[data-testid=stalled]")
    shoot(host, screenshot_dir, "illustori-stalled-en", phone=True)


# --- the English game with secret voting ----------------------------------------------


def frames_of(page: Page) -> list[dict[str, Any]]:
    """Every JSON frame the page's WebSocket receives from now on (reload to catch the first)."""
    frames: list[dict[str, Any]] = []

    def on_ws(ws: Any) -> None:
        ws.on("framereceived", lambda payload: frames.append(json.loads(payload)))

    page.on("websocket", on_ws)
    return frames


def secret_leaks(frames: list[dict[str, Any]], seat: int) -> list[str]:
    """What the frames told ``seat`` of the secret votes, each event frame read as the
    whole view and facts it led to (so a leak in a patch shows as a leak in that view)."""
    follower = Follower()
    found = []
    for m in map(follower.follow, frames):
        view = m.get("view")
        if m.get("type") not in ("table", "event") or not view:
            continue
        where = f"{m['type']} n={m.get('n')}"
        if view.get("votes") and {"voted", "awaited"} & set(view["votes"]):
            found.append(f"{where}: view.votes names voters")
        if view.get("last_vote") and "votes" in view["last_vote"]:
            found.append(f"{where}: last_vote names voters")
        if view["phase"] == "vote":
            if set(m["to_act"]) - {seat} or set(view["to_act"]) - {seat}:
                found.append(f"{where}: awaited seats {m['to_act']}")
            if {s for s, at in enumerate(m["deadlines"]) if at} - {seat}:
                found.append(f"{where}: deadlines {m['deadlines']}")
        for e in m.get("events", []):
            if e["type"] == "vote_cast" and (
                m["seat"] not in (None, seat) or e.get("seat", seat) != seat
            ):
                found.append(f"{where}: a voter is named")
            if e["type"] == "vote_resolved" and "votes" in e:
                found.append(f"{where}: the votes are listed")
    return found


def test_english_secret_votes_never_show_who_voted(open_page, screenshot_dir):
    names = ["Hana", "Taro", "Ken"]
    host, _ = open_page("/", lang="en")
    frames = [frames_of(host)]
    host.reload()
    ui.sign_in(host, names[0])
    table = create_illustori(
        host, 3, language="en", flags=("secret_votes", "vote_limit", "show_rules"), seed=7
    )
    pages = [host]
    for seat, name in enumerate(names[1:], start=1):
        page, _ = open_page(f"/t/{table}", lang="en")
        frames.append(frames_of(page))
        page.reload()
        ui.sign_in(page, name)
        page.click(f"[data-testid=sit-{seat}]")
        pages.append(page)
    host.locator("[data-testid=start]:not([disabled])").click()
    for page in pages:
        page.wait_for_selector(BOARD)

    giver = board(host)["giver"]
    pages[giver].fill("[data-testid=word]", "Moon")
    assert pages[giver].locator("[data-testid=head]").count() == 0  # no kana fields in English
    pages[giver].click("[data-testid=send]")
    n = 1
    wait_n(pages, n)
    used: set[str] = set()
    k = 0
    while board(host)["phase"] != "ended":
        turn = board(host)["turn"]
        player = pages[turn]
        voters = [p for s, p in enumerate(pages) if s != turn]
        heads = next_heads(player)
        assert 1 <= len(heads) <= 2  # the last two letters
        if k == 0:
            # A word that cannot link is flagged and cannot be sent.
            player.locator("[data-testid=hand] button.ic").first.click()
            player.fill("[data-testid=word]", "zzz" if "z" not in heads else "qqq")
            assert player.get_attribute("[data-testid=flag]", "data-reason") == "no_link"
            assert player.is_disabled("[data-testid=send]")
            player.fill("[data-testid=word]", en_word(heads, used))
            player.click("[data-testid=send]")
        else:
            play(player, en_word(heads, used))
        n += 1
        wait_n(pages, n)
        # Only counts: nobody's status, while the 25-second limit runs.
        for page in pages:
            assert page.locator("[data-testid=vote-count]").is_visible()
            assert page.locator("[data-testid=voters], [data-testid^=voted-]").count() == 0
        if k == 0:
            assert "left" in voters[0].inner_text("[data-testid=countdown]")
        final = host.locator("[data-testid=final-round]").count() > 0
        vote(voters[0], k % 3 != 1 and not final)
        n += 1
        wait_n(pages, n)
        assert "1 of 2 have voted" in voters[1].inner_text("[data-testid=vote-count]")
        assert "1 of 2 have voted" in player.inner_text("[data-testid=vote-count]")
        if k == 1:
            shoot(voters[1], screenshot_dir, "illustori-vote-en", phone=True)
        vote(voters[1], not final)
        n += 1
        wait_n(pages, n)
        for page in pages:
            assert page.locator(".il-chipvote").count() == 0  # no per-seat votes anywhere
        if k == 8:
            shoot(pages[board(host)["turn"]], screenshot_dir, "illustori-chain-en")
        k += 1
        assert k < 40, "the game should be over by now"

    winner = next(s for s, p in enumerate(pages) if not hand_cards(p))
    shoot(pages[winner], screenshot_dir, "illustori-end-en", phone=True)
    for page in pages:
        page.wait_for_selector("[data-testid=result]")
        ui.assert_no_japanese(page, user_texts=names)
    for seat, received in enumerate(frames):
        assert any(m.get("type") == "event" for m in received), "no frames were caught"
        assert secret_leaks(received, seat) == [], f"seat {seat}"


# --- one person, four bots, uploaded pictures ----------------------------------------


def test_one_person_and_four_bots_on_uploaded_pictures(open_page, tmp_path):
    page, _ = open_page("/", lang="ja")
    ui.sign_in(page, "はなこ")
    page.click("[data-key=game-illustori]")
    page.wait_for_selector("[data-testid=game-options]")
    page.click("[data-testid=opt-deck-custom]")
    svg = {
        "name": "cat.svg",
        "mimeType": "image/svg+xml",
        "buffer": b"<svg xmlns='http://www.w3.org/2000/svg'/>",
    }
    page.set_input_files("[data-testid=opt-files]", [svg])
    error = page.locator("[data-testid=upload-error]")
    assert "PNG" in error.inner_text() and "cat.svg" in error.inner_text()
    page.click("[data-testid=create-table]")  # not without pictures
    assert page.url.endswith("/")
    colours = ["tomato", "gold", "skyblue", "plum"]
    pictures = [{"name": f"{c}.png", "mimeType": "image/png", "buffer": png(c)} for c in colours]
    table = create_illustori(
        page,
        5,
        bots=tuple((s, "normal") for s in range(1, 5)),
        pictures=pictures,
        flags=(),
    )
    assert table
    page.locator("[data-testid=start]:not([disabled])").click()
    page.wait_for_selector(BOARD)
    src = page.get_attribute("[data-testid=hand] img", "src")
    assert src.startswith("/api/decks/")
    assert page.locator("[data-testid=rules]").count() == 0  # show_rules off
    assert page.locator("[data-testid=attribution]").count() == 0  # no OpenMoji cards

    me = 0
    for _ in range(200):
        page.wait_for_function(
            "() => { const b = document.querySelector('[data-testid=illustori]');"
            " return b.dataset.phase === 'ended' || document.querySelector("
            "'[data-testid=vote-ok], [data-testid=word-form],"
            " [data-testid=hand] button.ic:not([disabled])'); }",
            timeout=30_000,
        )
        state = board(page)
        if state["phase"] == "ended":
            break
        if page.locator("[data-testid=vote-ok]").count():
            page.click("[data-testid=vote-ok]")
        elif state["phase"] == "first_word" and state["giver"] == me:
            page.fill("[data-testid=word]", "つきよ")
            page.click("[data-testid=send]")
        elif state["phase"] == "play" and state["turn"] == me:
            play(page, ja_word(next_heads(page)))
        page.wait_for_function(
            "n => Number(document.querySelector('[data-testid=illustori]').dataset.n) > n",
            arg=state["n"],
            timeout=30_000,
        )
    page.wait_for_selector("[data-testid=result]")
    assert page.locator("[data-testid=winners]").inner_text()
    # The replay steps through the game, the chain growing from the first word.
    page.click("[data-testid=replay-link]")
    page.wait_for_selector("[data-testid=replay-page] [data-testid=illustori]")
    page.click("[data-testid=replay-first]")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=illustori]').dataset.n === '0'"
    )
    assert page.locator("[data-testid=chain-word]").count() == 0
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=chain-word]').length === 1"
    )

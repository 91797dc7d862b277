"""Whole turn-based games over simulated days, each person in a browser of their own.

The server runs on a simulated clock (``bodoge serve --test-clock``) that the test moves on
by hours and days; the browsers' clocks follow it (tests/e2e/days.py).  A real SMTP server
(aiosmtpd) receives the e-mails; a push service on this machine receives the encrypted Web
Push messages, which the test decrypts with the subscription's keys (RFC 8291) and delivers
to the person's service worker through the DevTools protocol.

* **Tagiron, 3 people** (two in Japanese, one in English): moves hours apart; a turn that
  begins while its person has the table open is never told, one that begins while they are
  away is told once, after the grace, in their language, by e-mail (the link opens the
  table) or by push (the notification's click opens it); a turn nobody plays is played by
  the stand-in a move's time later; a vacation switched on in the profile pauses its
  person's turn, told only when it ends; the server is killed and restarted in the middle
  (the turns, their deadlines and what was sent survive); two right declarations end it.
* **Illustori, 3 people**: turn-based with the vote limit of a move's time: a vote one
  voter never casts runs out hours later, a restart in the middle, then three rounds of
  exchanges end the game.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from bodoge.games.tagiron.tiles import ALL_TILES
from tests.e2e import test_illustori as il
from tests.e2e import ui
from tests.e2e.days import DAY, GRACE, HOUR, Days, Page, Person
from tests.e2e.test_accessibility import Audit
from tests.support.turn_play import PushService, SmtpServer

MOVE = 12 * HOUR


@pytest.fixture
def days(make_live_server, smtp: SmtpServer, push: PushService) -> Iterator[Days]:
    world = Days(make_live_server, smtp, push)
    yield world
    errors = [e for p in world.people for e in p.errors]
    world.close()
    assert not errors, f"uncaught errors or dialogs in the pages: {errors}"


def shot(person: Person, folder: Path, name: str) -> None:
    person.page.evaluate("() => document.getElementById('toasts')?.replaceChildren()")
    person.page.screenshot(path=str(folder / f"{name}.png"), animations="disabled")


# --- Tagiron -------------------------------------------------------------------------------


def ask(person: Person) -> None:
    n = ui.move_number(person.page)
    ui.ask_first_card(person.page)
    ui.wait_move(person.page, n + 1)


def test_three_people_play_a_turn_based_tagiron_game_over_days(
    browser: object, days: Days, screenshot_dir: Path
) -> None:
    hana = days.person(browser, "はなこ", "ja")
    ben = days.person(browser, "Ben", "en")
    ken = days.person(browser, "けん", "ja")
    days.verify_email(hana, "hanako", "hana@example.org")
    days.verify_email(ben, "ben", "ben@example.org")
    days.subscribe_push(ken)
    days.smtp.sink.messages.clear()
    folk = [hana, ben, ken]

    # Hana makes a 3-player table, 12 hours per move; Ben and Ken sit; she starts.
    def tagiron(page: Page) -> None:
        page.goto(days.base + "/")
        page.click("[data-testid=players-3]")

    table = days.start_table(folk, MOVE, tagiron)
    hands: list[str] = []
    for person in folk:
        ui.wait_board(person.page)
        hands += ui.my_tiles(person.page)
    # What the people deduce by the end: the centre is every tile but the three hands.
    centre = list((Counter(ALL_TILES) - Counter(hands)).elements())
    assert len(centre) == 5
    (p0,) = days.awaited(table)
    p1, p2 = folk[(p0.seat + 1) % 3], folk[(p0.seat + 2) % 3]

    # 1. Everyone has the table open: the first turn is told to nobody; three hours in, the
    #    first player asks, and the second's turn begins before their eyes: not told either.
    days.advance(3 * HOUR)
    days.check("tagiron")
    ask(p0)
    for person in folk:
        days.leave(person)
    days.advance(5 * HOUR)
    days.check("tagiron")

    # 2. Five hours later the second player comes back through "Your games" and asks.  The
    #    third's turn begins while they are away: told once, after the grace (not before).
    days.come_back(p1, table)
    ui.wait_board(p1.page)
    ask(p1)
    days.leave(p1)
    days.advance(GRACE - 10)
    days.check("tagiron")
    days.advance(20)
    p2.expected["turn"] += 1
    days.check("tagiron")
    days.advance(2 * HOUR)
    days.check("tagiron")
    open_told(days, p2, table)
    ask(p2)
    days.leave(p2)

    # 3. The first player is told, and never comes: twelve hours later the stand-in asks
    #    for them, and the second player's turn begins (told once).
    days.advance(GRACE + 10)
    p0.expected["turn"] += 1
    days.check("tagiron")
    deadline = iso_ms(days.my_row(p0, table)["deadline"])
    days.until(deadline, GRACE + 10)
    p1.expected["turn"] += 1
    days.check("tagiron")
    assert days.awaited(table) == [p1]

    # 4. Meanwhile the third player goes on a day's vacation, from their own profile.
    p2.page.goto(f"{days.base}/p/{p2.id}")
    p2.page.fill("[data-testid=vacation-days]", "1")
    p2.page.click("[data-testid=vacation-start]")
    p2.page.wait_for_selector("[data-testid=vacation-until]")
    vacation_ends = days.now + DAY * 1000
    days.advance(HOUR)
    open_told(days, p1, table)
    # The stand-in's move is marked in the log, for the one it played for too.
    p1.page.wait_for_selector("[data-testid=stand-in]")
    ask(p1)
    days.leave(p1)

    # 5. The third player's turn begins on vacation: untold, and their twelve hours run from
    #    the vacation's end.  Thirteen hours on, nothing ran out and nothing was sent.
    days.advance(13 * HOUR)
    days.check("tagiron")
    row = days.my_row(p2, table)
    assert row["your_turn"] and iso_ms(row["deadline"]) == vacation_ends + MOVE * 1000
    assert row["seconds_left"] == 22 * HOUR
    p2.page.goto(f"{days.base}/games")
    left = p2.page.locator(f"[data-testid=mygame-{table}] [data-testid=time-left]").inner_text()
    assert left == {"ja": "残り 22時間0分", "en": "22 h 0 min left"}[p2.lang], left
    shot(p2, screenshot_dir, f"turn-days-vacation-{p2.lang}")
    audit = Audit()
    audit.check(p2.page, "your games, a turn paused by a vacation")
    audit.assert_clean()

    # The server is killed and started again here: the game, its deadlines and what was
    #    sent are kept; the pages reconnect by themselves.
    before = {p.name: days.my_row(p, table) for p in folk}
    days.restart()
    assert {p.name: days.my_row(p, table) for p in folk} == before
    p2.page.wait_for_selector(f"[data-testid=mygame-{table}] [data-testid=time-left]")
    days.check("tagiron")

    # The vacation ends: the turn is told once (after the grace), and only once.
    days.until(vacation_ends, GRACE + 10)
    p2.expected["turn"] += 1
    days.check("tagiron")
    days.advance(2 * HOUR)
    days.check("tagiron")
    open_told(days, p2, table)
    ask(p2)
    days.leave(p2)

    # 6. The first player is told again, comes back and declares the centre (all the tiles
    #    but the three hands), right: first place.  Then the second player does too: the
    #    places are decided and the game ends.
    days.advance(GRACE + 10)
    p0.expected["turn"] += 1
    days.check("tagiron")
    open_told(days, p0, table)
    n = ui.move_number(p0.page)
    ui.declare(p0.page, centre)
    ui.wait_move(p0.page, n + 1)
    days.advance(4 * HOUR)
    p1.expected["turn"] += 1
    days.check("tagiron")
    open_told(days, p1, table)
    ui.declare(p1.page, centre)
    for person in (p0, p1):
        person.page.wait_for_selector("[data-testid=result]")
    # The one who was away is told the game ended; those at the table are not.
    days.advance(GRACE + 10)
    p2.expected["ended"] += 1
    days.check("tagiron")
    p2.page.goto(f"{days.base}/t/{table}")
    p2.page.wait_for_selector("[data-testid=result]")
    ui.assert_page_matches_snapshot(p2.page)
    shot(p2, screenshot_dir, f"turn-days-tagiron-end-{p2.lang}")
    for person in folk:
        assert not [r for r in days.my_rows(person) if r["id"] == table]


def open_told(days: Days, person: Person, table: str) -> None:
    """The person opens the table from what told them: the push's notification, or the
    link of the e-mail."""
    if person.keys is not None:
        days.open_from_push(person, table)
    else:
        person.page.goto(days.table_link(person, "tagiron", table))
    ui.wait_board(person.page)


def iso_ms(text: str) -> int:
    from datetime import datetime

    return round(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


# --- Illustori -----------------------------------------------------------------------------


def test_three_people_play_a_turn_based_illustori_game_over_days(
    browser: object, days: Days, screenshot_dir: Path
) -> None:
    folk = [
        days.person(browser, "はなこ", "ja"),
        days.person(browser, "Taro", "en"),
        days.person(browser, "けん", "ja"),
    ]

    def illustori(page: Page) -> None:
        page.click("[data-key=game-illustori]")
        page.wait_for_selector("[data-testid=game-options]")
        page.click("[data-testid=players-3]")
        page.click("[data-testid=opt-language-ja]")
        page.click("[data-testid=opt-deck-generated]")
        page.fill("[data-testid=opt-seed]", "7")

    days.start_table(folk, MOVE, illustori)
    host = folk[0].page
    pages = [p.page for p in folk]
    for page in pages:
        page.wait_for_selector(il.BOARD)

    # The first word, two hours in.
    days.advance(2 * HOUR)
    giver = il.board(host)["giver"]
    pages[giver].fill("[data-testid=word]", "つきよ")
    pages[giver].click("[data-testid=send]")
    n = 1
    il.wait_n(pages, n)

    # Three hours later a word is played; one voter says OK an hour after, the other never
    # votes: the vote's limit is the table's twelve hours per move, counting from the play.
    days.advance(3 * HOUR)
    turn = il.board(host)["turn"]
    voters = [s for s in range(3) if s != turn]
    il.play(pages[turn], il.ja_word(il.next_heads(pages[turn])))
    n += 1
    il.wait_n(pages, n)
    played_at = days.now
    days.advance(HOUR)
    il.vote(pages[voters[0]], True)
    n += 1
    il.wait_n(pages, n)
    # Every page counts the vote's hours down, in its language (the browsers' clocks follow
    # the server's).
    assert countdowns(folk) == [11 * 60] * 3
    days.advance(9 * HOUR)
    assert il.board(host)["phase"] == "vote"
    il.shoot(pages[voters[1]], screenshot_dir, f"turn-days-illustori-vote-{folk[voters[1]].lang}")

    # The server is killed and started again in the middle of the vote: every page comes
    # back to it by itself, the vote and its limit kept.
    held = [page.evaluate(HELD_JS) for page in pages]
    days.restart()
    for page, before in zip(pages, held, strict=True):
        page.wait_for_function("() => window.bodoge.conn.state === 'ready'", timeout=30_000)
        il.wait_n([page], n)
        ui.assert_page_matches_snapshot(page)
        assert page.evaluate(HELD_JS) == before
    assert il.board(host)["phase"] == "vote"
    assert countdowns(folk) == [2 * 60] * 3

    # Twelve hours after the play the vote runs out: the missing vote counts as OK.
    days.until(played_at + MOVE * 1000, 1)
    n += 1
    il.wait_n(pages, n)
    for person in folk:
        last = " ".join(person.page.inner_text("[data-testid=last-vote]").split())
        words = {"ja": ("承認", "時間切れ 1"), "en": ("accepted", "timed out 1")}[person.lang]
        assert all(w in last for w in words), last

    # Then nobody finds a word for three rounds, a few hours between turns; one person
    # leaves their turn to the stand-in, which exchanges a card for them.
    timed_out = False
    for k in range(9):
        days.advance(3 * HOUR)
        turn = il.board(host)["turn"]
        if k == 4:
            days.advance(MOVE - 3 * HOUR + 1)
            timed_out = True
        else:
            il.exchange_one(pages[turn])
        n += 1
        il.wait_n(pages, n)
    assert timed_out
    for page in pages:
        page.wait_for_selector("[data-testid=result]")
        assert page.locator("[data-testid=stalled]").count() == 1
        assert page.locator("[data-testid=stand-in]").count() >= 1
        ui.assert_page_matches_snapshot(page)
    il.shoot(folk[1].page, screenshot_dir, "turn-days-illustori-end-en")


#: What a page holds of its table: the view, who is awaited, the deadlines, the vote's clock.
HELD_JS = """() => {
  const snap = window.bodoge.app.shownTable.snap;
  return JSON.parse(JSON.stringify({n: snap.n, view: snap.view, to_act: snap.to_act,
    deadlines: snap.deadlines, clock: snap.clock}));
}"""

#: A vote's countdown, in ja and en ("残り 11時間0分", "11 h 0 min left").
COUNTDOWN = {"ja": r"残り (\d+)時間(\d+)分", "en": r"(\d+) h (\d+) min left"}


def countdowns(folk: list[Person]) -> list[int]:
    """The minutes each page's vote countdown shows, to the closest whole minute (a
    browser's clock moves on while the server's stands still)."""
    found = []
    for person in folk:
        text = person.page.inner_text("[data-testid=countdown] .il-countdown-text")
        shown = re.fullmatch(COUNTDOWN[person.lang], " ".join(text.split()))
        assert shown is not None, text
        minutes = int(shown.group(1)) * 60 + int(shown.group(2))
        found.append(minutes + 1 if minutes % 60 == 59 else minutes)
    return found

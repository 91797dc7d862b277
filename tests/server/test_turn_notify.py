"""Turn-based tables and notifications together: whole games over simulated days on a real
server (in-process, on a :class:`ManualClock`) whose people have verified addresses on a
real SMTP server (aiosmtpd) and a push subscription to a push endpoint on this machine.

Each turn that begins sends exactly one e-mail (and push) to the person whose turn it is,
in their language, when the simulated grace has passed — none while they have the table
open, none for a turn that begins on their vacation; a timeout is played by the stand-in;
a restart in the middle keeps the outbox and sends nothing twice; a turn whose notification
the process never stored (it died between the move and its notifier) is told after the
restart; the game's end is told to everyone.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa

from bodoge.core.errors import GameError
from bodoge.server.runtime.turns import DAY, HOUR
from tests.server.test_tables import Tab
from tests.support.turn_play import (
    GRACE,
    SITE,
    SUBJECTS,
    TITLES,
    BrowserKeys,
    Mailed,
    PushService,
    back,
    parts,
    people,
    play_out,
    settle,
    turn_table,
    until,
)

PASSWORD = "correct horse battery"


class Person:
    def __init__(self, tab: Tab, lang: str, email: str) -> None:
        self.tab, self.lang, self.email = tab, lang, email
        self.keys: BrowserKeys | None = None

    @property
    def id(self) -> str:
        return str(self.tab.player["id"])

    @property
    def token(self) -> str:
        return str(self.tab.player["token"])


async def accounts(world: Mailed, langs: list[str], push: PushService, pushed: int) -> list[Person]:
    """People with accounts and verified addresses (by the link mailed to them); the one in
    seat ``pushed`` also with a push subscription."""
    tabs = await people(world, len(langs))
    found: list[Person] = []
    async with world.app() as http:
        for i, (tab, lang) in enumerate(zip(tabs, langs, strict=True)):
            person = Person(tab, lang, f"p{i}@example.org")
            auth = {"Authorization": f"Bearer {person.token}"}
            kept = await http.post(
                "/api/account", json={"name": f"p{i}", "password": PASSWORD}, headers=auth
            )
            assert kept.status_code == 201, kept.text
            before = len(world.smtp.sink.messages)
            saved = await http.post(
                "/api/account/email", json={"email": person.email, "lang": lang}, headers=auth
            )
            assert saved.status_code == 200, saved.text

            async def mailed(n: int = before) -> bool:
                return len(world.smtp.sink.messages) > n

            await until(mailed, "the verification e-mail")
            text, _ = parts(world.smtp.sink.messages[-1])
            link = re.search(r"https://\S+/verify-email/\S+", text)
            assert link is not None
            opened = await http.get(urlsplit(link.group(0)).path)
            assert opened.status_code == 200
            if i == pushed:
                person.keys = BrowserKeys()
                sub = {**person.keys.subscription(push.endpoint(f"p{i}")), "lang": lang}
                added = await http.post("/api/push/subscriptions", json=sub, headers=auth)
                assert added.status_code == 201, added.text
            state = (await http.get("/api/account/notifications", headers=auth)).json()
            assert state["verified"] and state["lang"] == lang
            found.append(person)
    world.smtp.sink.messages.clear()
    return found


class Ledger:
    """What each person should have been sent so far, checked against what arrived."""

    def __init__(self, world: Mailed, people: list[Person], push: PushService, game: str) -> None:
        self.world, self.people, self.push, self.game = world, people, push, game
        self.expected: Counter[tuple[str, str]] = Counter()

    def check(self) -> None:
        for p in self.people:
            for kind in ("turn", "ended"):
                got = self.world.mails(p.email, kind)
                assert len(got) == self.expected[(p.id, kind)], (p.email, kind, len(got))
                for mail in got:
                    title = TITLES[self.game][p.lang]
                    assert mail["Subject"] == SUBJECTS[(p.lang, kind)].format(game=title)
            if p.keys is not None:
                pushes = [
                    p.keys.decrypt(r.body)
                    for r in self.push.received
                    if r.path.endswith(f"/{p.email.split('@')[0]}")
                ]
                wanted = sum(self.expected[(p.id, k)] for k in ("turn", "ended"))
                assert len(pushes) == wanted, (p.email, pushes)
                assert all(
                    m["title"] in ("Your turn", "Game over", "あなたの番です", "対局が終わりました")
                    for m in pushes
                )

    async def sent(self) -> None:
        """Until nothing due is left unsent in the outbox."""
        now = self.world.clock.now_ms()

        async def drained() -> bool:
            engine = self.world.s.store.engine  # type: ignore[attr-defined]
            async with engine.connect() as conn:
                left = await conn.execute(
                    sa.text(
                        "SELECT count(*) FROM notify_outbox WHERE sent_at IS NULL"
                        " AND error IS NULL AND due_at <= :now"
                    ),
                    {"now": now},
                )
                return left.scalar() == 0

        await until(drained, "the outbox drained")


def awaited(world: Mailed, table: str) -> list[int]:
    t = world.table(table)
    return sorted(t.game.to_act(t.state))


async def turn_row(world: Mailed, person: Person, table: str, seat: int) -> None:
    """Until the notifier stored the turn that began for ``person`` (its mail row)."""
    deadline = world.table(table).deadlines[seat]
    key = f"turn:{person.id}:{table}:{deadline}:mail"

    async def stored() -> bool:
        return any(r["key"] == key for r in await world.outbox())

    await until(stored, f"the turn of {person.email} stored")


def tagiron_move(world: Mailed, table: str, seat: int, rng: random.Random, ask: bool) -> Any:
    """The easy bot's move for the person in ``seat``; while ``ask``, a question instead of a
    declaration (the script needs the game to go on)."""
    t = world.table(table)
    view = t.game.view(t.state, seat)
    move = t.game.bot("easy").act(view, seat, rng)
    if move is not None and (not ask or t.game.move_to_json(move)["type"] == "ask"):
        return t.game.move_to_json(move)
    for card in view["face_up"]:
        for choice in (None, *range(10)):
            data = {
                "type": "ask",
                "card": card,
                **({"choice": choice} if choice is not None else {}),
            }
            try:
                t.game.apply(t.state, seat, t.game.move_from_json(data))
            except GameError:
                continue
            return data
    assert move is not None
    return t.game.move_to_json(move)


async def move(
    world: Mailed, person: Person, table: str, seat: int, rng: random.Random, ask: bool = True
) -> None:
    data = (
        tagiron_move(world, table, seat, rng, ask)
        if world.table(table).game.id == "tagiron"
        else None
    )
    if data is None:
        t = world.table(table)
        chosen = t.game.bot("easy").act(t.game.view(t.state, seat), seat, rng)
        assert chosen is not None
        data = t.game.move_to_json(chosen)
    await person.tab.ok("move", table=table, move=data)


@pytest.mark.parametrize("players", [2, 4])
async def test_a_turn_based_tagiron_game_mails_each_turn_once(
    make_mailed: Callable[..., Any], push: PushService, players: int
) -> None:
    world: Mailed = await make_mailed()
    langs = ["ja", "en", "en", "ja"][:players]
    folk = await accounts(world, langs, push, pushed=1)
    table = await turn_table(world, [p.tab for p in folk], "tagiron", players, DAY)
    ledger = Ledger(world, folk, push, "tagiron")
    rng = random.Random(players)

    def now_awaited() -> tuple[int, Person]:
        (seat,) = awaited(world, table)
        return seat, folk[seat]

    async def told(hours: float = 3) -> tuple[int, Person]:
        """The turn that began is mailed once the grace passed; the person waits ``hours``."""
        seat, person = now_awaited()
        await turn_row(world, person, table, seat)
        await settle(world, GRACE - 5)
        await ledger.sent()
        ledger.check()  # not yet: the grace is simulated time
        await settle(world, 10)
        ledger.expected[(person.id, "turn")] += 1
        await ledger.sent()
        ledger.check()
        await settle(world, hours * HOUR)
        return seat, person

    # 1. The first turn: one e-mail, in the person's language (and a push for the one).
    seat, person = await told()
    await move(world, person, table, seat, rng)

    # 2. Whoever is next has the table open when their turn begins: nothing at all.
    seat, person = await told()
    nxt = folk[(seat + 1) % players]
    await nxt.tab.ok("table.open", table=table)
    await move(world, person, table, seat, rng)
    assert now_awaited()[1] is nxt
    await settle(world, 2 * HOUR)
    await ledger.sent()
    ledger.check()
    turn = f"turn:{nxt.id}:{table}:{world.table(table).deadlines[now_awaited()[0]]}:"
    assert not [r for r in await world.outbox() if r["key"].startswith(turn)]
    seat, person = now_awaited()
    await move(world, person, table, seat, rng)
    await nxt.tab.ok("table.close", table=table)

    # 3. A turn that begins unwatched, opened within the grace: the mail is not sent.
    seat, person = now_awaited()
    await turn_row(world, person, table, seat)
    await settle(world, GRACE / 3)
    await person.tab.ok("table.open", table=table)
    await settle(world, GRACE)
    await ledger.sent()
    ledger.check()
    await move(world, person, table, seat, rng)
    await person.tab.ok("table.close", table=table)

    # 4. The next person never comes: a day later the stand-in plays; the next turn is told.
    seat, person = await told(hours=0)
    n = world.table(table).n
    await settle(world, DAY - (GRACE + 5) + 1)
    t = world.table(table)
    assert t.n == n + 1 and t.steps[-1].actor == "timeout" and t.steps[-1].seat == seat
    ledger.check()  # nothing more for the late person

    # 5. The next person goes on vacation before their turn: it begins untold and paused.
    seat, person = await told()
    away = folk[(seat + 1) % players]
    async with world.app() as http:
        went = await http.post(
            "/api/players/me/vacation",
            json={"days": 2},
            headers={"Authorization": f"Bearer {away.token}"},
        )
        assert went.status_code == 200
    await move(world, person, table, seat, rng)
    assert now_awaited()[1] is away
    await settle(world, 2 * DAY - 3 * HOUR)
    await ledger.sent()
    ledger.check()
    assert world.table(table).n == n + 2, "the vacation pauses the turn"
    await move(world, away, table, now_awaited()[0], rng)
    async with world.app() as http:
        back_home = await http.delete(
            "/api/players/me/vacation", headers={"Authorization": f"Bearer {away.token}"}
        )
        assert back_home.status_code == 200

    # 6. A restart while the next turn's e-mail waits in the outbox: sent once, after it.
    seat, person = now_awaited()
    await turn_row(world, person, table, seat)
    await world.restart()
    for p, tab in zip(folk, await back(world, [p.tab for p in folk]), strict=True):
        p.tab = tab
    await settle(world, GRACE + 5)
    ledger.expected[(person.id, "turn")] += 1
    await ledger.sent()
    ledger.check()
    # Restarted again once it was sent: the turn is retold, and not sent twice.
    await world.restart()
    for p, tab in zip(folk, await back(world, [p.tab for p in folk]), strict=True):
        p.tab = tab
    await settle(world, 2 * GRACE)
    await ledger.sent()
    ledger.check()
    await move(world, person, table, seat, rng)

    # 7. The process "dies" between a move and its notification: the turn is told after the
    #    restart, once.
    seat, person = await told(hours=1)
    world.lose_next = True
    await move(world, person, table, seat, rng)
    seat, person = now_awaited()
    await settle(world, 2 * GRACE)
    await ledger.sent()
    ledger.check()
    assert not world.lose_next
    await world.restart()
    for p, tab in zip(folk, await back(world, [p.tab for p in folk]), strict=True):
        p.tab = tab
    await told()

    # 8. Everyone plays to the end, each turn told once; then the end is told to all.
    for _ in range(300):
        if world.table(table).status != "playing":
            break
        seat, person = now_awaited()
        await move(world, person, table, seat, rng, ask=False)
        if world.table(table).status == "playing":
            await told(hours=1)
    assert world.table(table).status == "finished"
    for p in folk:
        ledger.expected[(p.id, "ended")] += 1
    await settle(world, GRACE + 5)
    await ledger.sent()
    ledger.check()
    ends = [m for p in folk for m in world.mails(p.email, "ended")]
    assert all(f"{SITE}/t/{table}" in parts(m)[0] for m in ends)
    assert all(m["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click" for m in ends)


async def test_a_turn_based_illustori_game_mails_turns_and_votes(
    make_mailed: Callable[..., Any], push: PushService
) -> None:
    world: Mailed = await make_mailed()
    folk = await accounts(world, ["en", "ja", "en"], push, pushed=2)
    table = await turn_table(world, [p.tab for p in folk], "illustori", 3, 12 * HOUR)
    ledger = Ledger(world, folk, push, "illustori")
    rng = random.Random(7)
    votes = 0
    for _ in range(200):
        t = world.table(table)
        if t.status != "playing":
            break
        seats = awaited(world, table)
        for seat in seats:
            await turn_row(world, folk[seat], table, seat)
            ledger.expected[(folk[seat].id, "turn")] += 1
        if world.table(table).state.phase == "vote":
            votes += 1
            assert len(seats) >= 2, "every voter is told"
        await settle(world, GRACE + 5)
        await ledger.sent()
        ledger.check()
        for seat in seats:
            if world.table(table).status == "playing" and seat in awaited(world, table):
                await move(world, folk[seat], table, seat, rng)
        await settle(world, 60)
    assert world.table(table).status == "finished" and votes
    for p in folk:
        ledger.expected[(p.id, "ended")] += 1
    await settle(world, GRACE + 5)
    await ledger.sent()
    ledger.check()


async def vacation(world: Mailed, person: Person, days: int | None) -> None:
    """Begin a vacation of ``days`` (``None``: end the one running)."""
    auth = {"Authorization": f"Bearer {person.token}"}
    async with world.app() as http:
        if days is None:
            answer = await http.delete("/api/players/me/vacation", headers=auth)
        else:
            answer = await http.post("/api/players/me/vacation", json={"days": days}, headers=auth)
    assert answer.status_code == 200, answer.text


async def test_a_turn_begun_on_vacation_is_told_when_the_vacation_ends(
    make_mailed: Callable[..., Any], push: PushService
) -> None:
    """Once when the vacation runs out, once when it is ended early; never during it."""
    world: Mailed = await make_mailed()
    folk = await accounts(world, ["ja", "en"], push, pushed=1)
    table = await turn_table(world, [p.tab for p in folk], "tagiron", 2, DAY)
    ledger = Ledger(world, folk, push, "tagiron")
    rng = random.Random(29)

    (seat,) = awaited(world, table)
    mover, away = folk[seat], folk[1 - seat]
    await turn_row(world, mover, table, seat)
    await settle(world, GRACE + 5)
    ledger.expected[(mover.id, "turn")] += 1
    await ledger.sent()
    ledger.check()

    # 1. The vacation runs out: the turn that began during it is told at its end, once.
    await vacation(world, away, 2)
    await move(world, mover, table, seat, rng)
    (now_seat,) = awaited(world, table)
    assert folk[now_seat] is away
    await turn_row(world, away, table, now_seat)
    await settle(world, 2 * DAY - 3 * HOUR)
    await ledger.sent()
    ledger.check()  # not during the vacation
    await settle(world, 3 * HOUR + GRACE + 5)
    ledger.expected[(away.id, "turn")] += 1
    await ledger.sent()
    ledger.check()
    await settle(world, 6 * HOUR)
    await ledger.sent()
    ledger.check()  # and only once
    await move(world, away, table, now_seat, rng)
    (seat,) = awaited(world, table)
    assert folk[seat] is mover
    await turn_row(world, mover, table, seat)
    await settle(world, GRACE + 5)
    ledger.expected[(mover.id, "turn")] += 1
    await ledger.sent()
    ledger.check()

    # 2. Ended early, a day into five: told after the grace, on the server's clock, once.
    await vacation(world, away, 5)
    await move(world, mover, table, seat, rng)
    (now_seat,) = awaited(world, table)
    await turn_row(world, away, table, now_seat)
    await settle(world, DAY)
    await ledger.sent()
    ledger.check()
    await vacation(world, away, None)
    await settle(world, GRACE - 5)
    await ledger.sent()
    ledger.check()  # the grace is simulated time here too
    await settle(world, 10)
    ledger.expected[(away.id, "turn")] += 1
    await ledger.sent()
    ledger.check()
    await settle(world, 4 * DAY)  # past when the vacation would have ended, turn running
    await ledger.sent()
    ledger.check()


async def test_a_turn_played_within_the_grace_elsewhere_is_not_told(
    make_mailed: Callable[..., Any], push: PushService
) -> None:
    """A person moves before the grace passes without the table open (another device, the
    API): their turn is over, so nothing goes out; the next turn is told as usual."""
    world: Mailed = await make_mailed()
    folk = await accounts(world, ["en", "ja"], push, pushed=0)
    table = await turn_table(world, [p.tab for p in folk], "tagiron", 2, DAY)
    ledger = Ledger(world, folk, push, "tagiron")
    rng = random.Random(3)
    movers: list[Person] = []
    for _ in range(2):
        (seat,) = awaited(world, table)
        person = folk[seat]
        movers.append(person)
        await turn_row(world, person, table, seat)
        await settle(world, GRACE / 3)
        assert not world.s.tables.watching(person.id, table)
        await move(world, person, table, seat, rng)
        (nxt,) = awaited(world, table)
        await turn_row(world, folk[nxt], table, nxt)
        await settle(world, GRACE * 2 / 3 + 2)
        # The moved turn's grace has passed, the next turn's not yet: nothing sent.
        await ledger.sent()
        ledger.check()
        await settle(world, GRACE)
        ledger.expected[(folk[nxt].id, "turn")] += 1
        await ledger.sent()
        ledger.check()
        await move(world, folk[nxt], table, nxt, rng)
    over = [r for r in await world.outbox() if r["error"] == "not sent: the turn is over"]
    # A mail for each turn played within its grace, and a push when that person has a device.
    pushes = ["push"] * sum(p.keys is not None for p in movers)
    assert sorted(r["channel"] for r in over) == ["mail", "mail", *pushes]
    assert {r["player"] for r in over} == {p.id for p in movers}


# --- how the game ended, told -----------------------------------------------------------

ORDINALS = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 5: "5th", 6: "6th"}


def told_outcome(lang: str, seat: int, places: list[int | None]) -> str:
    """What the person in ``seat`` should read of how it went (written out here, not asked
    of the server's texts)."""
    winners = places.count(1)
    mine = places[seat]
    if winners in (0, len(places)):
        return {"en": "It was a draw.", "ja": "引き分けでした。"}[lang]
    if mine == 1 and winners > 1:
        return {"en": "You won (a shared first place).", "ja": "あなたの勝ちです（同率1位）。"}[
            lang
        ]
    if mine == 1:
        return {"en": "You won.", "ja": "あなたの勝ちです。"}[lang]
    if len(places) >= 3 and mine is not None:
        n = len(places)
        return {"en": f"You came {ORDINALS[mine]} of {n}.", "ja": f"{n}人中{mine}位でした。"}[lang]
    return {"en": "You lost.", "ja": "あなたの負けです。"}[lang]


def told_standings(
    lang: str, seat: int, places: list[int | None], names: list[str | None]
) -> list[str]:
    order = sorted(range(len(places)), key=lambda s: (places[s] is None, places[s] or 0, s))
    shown = []
    for s in order:
        place = places[s]
        rank = "-" if place is None else ORDINALS[place] if lang == "en" else f"{place}位"
        name = names[s] or {"en": "Bot", "ja": "ボット"}[lang]
        you = {"en": " (you)", "ja": "（あなた）"}[lang] if s == seat else ""
        shown.append(f"{rank} {name}{you}")
    return shown


async def end_told(world: Mailed, folk: list[Person], push: PushService, table: str) -> None:
    """Each person got one e-mail (plain text and HTML, in their language) and, with a
    device, one push saying how the game went for them and the final standings."""
    t = world.table(table)
    result = t.game.result(t.state)
    assert result is not None
    places = list(result.places)
    names: list[str | None] = [None] * len(places)
    for seat, p in enumerate(folk):
        names[seat] = f"p{seat}"
        assert world.table(table).seats[seat].player == p.id
    game = world.table(table).game.id

    async def all_mailed() -> bool:
        return all(len(world.mails(p.email, "ended")) == 1 for p in folk)

    await settle(world, GRACE + 5)
    await until(all_mailed, "every person told of the end")
    for seat, p in enumerate(folk):
        (mail,) = world.mails(p.email, "ended")
        title = TITLES[game][p.lang]
        assert mail["Subject"] == SUBJECTS[(p.lang, "ended")].format(game=title)
        assert mail["Content-Language"] == p.lang
        text, html = parts(mail)
        text = text.replace("\r\n", "\n")  # as mail carries it
        outcome = told_outcome(p.lang, seat, places)
        standings = told_standings(p.lang, seat, places, names)
        first = {
            "en": f"The game at your table of {title} has ended. {outcome}",
            "ja": f"{title}の卓の対局が終わりました。{outcome}",
        }[p.lang]
        heading = {"en": "Final standings:", "ja": "最終順位："}[p.lang]
        assert "\n".join([first, heading, *standings]) + "\n" in text, text
        assert f"<p>{first}</p>" in html
        assert "<br>".join([heading, *standings]) in html
        assert f"{SITE}/t/{table}" in text
        if p.keys is not None:
            told = [p.keys.decrypt(r.body) for r in push.received if r.path.endswith(f"/p{seat}")]
            (end,) = [m for m in told if m["kind"] == "ended"]
            sep, colon, space = ("・", "：", "") if p.lang == "ja" else (" · ", ": ", " ")
            assert end["title"] == {"en": "Game over", "ja": "対局が終わりました"}[p.lang]
            assert end["body"] == f"{title}{colon}{outcome}{space}{sep.join(standings)}"


@pytest.mark.parametrize(
    ("game", "players", "langs"),
    [
        ("tagiron", 2, ["en", "ja"]),
        ("tagiron", 3, ["ja", "en", "en"]),
        ("tagiron", 4, ["en", "ja", "ja", "en"]),
        ("illustori", 3, ["ja", "en", "ja"]),
        ("illustori", 4, ["en", "en", "ja", "ja"]),
    ],
)
async def test_the_end_tells_each_person_their_place_and_the_standings(
    make_mailed: Callable[..., Any], push: PushService, game: str, players: int, langs: list[str]
) -> None:
    world: Mailed = await make_mailed()
    folk = await accounts(world, langs, push, pushed=players - 1)
    tabs = [p.tab for p in folk]
    table = await turn_table(world, tabs, game, players, 12 * HOUR)
    await play_out(world, table, tabs, random.Random(players))
    assert world.table(table).status == "finished"
    await end_told(world, folk, push, table)


async def test_an_abandoned_game_is_told_as_abandoned(
    make_mailed: Callable[..., Any], push: PushService
) -> None:
    """Nobody comes back: everyone absent, the game ends as abandoned — told so, in each
    language, with no standings (nobody placed)."""
    world: Mailed = await make_mailed()
    folk = await accounts(world, ["ja", "en"], push, pushed=1)
    table = await turn_table(world, [p.tab for p in folk], "tagiron", 2, HOUR)
    # Three turns each run out (a loaded machine may arm a deadline a settle late: hours
    # more are allowed, the game must end all the same).
    for _ in range(16):
        await settle(world, HOUR + 60)
        if world.table(table).status != "playing":
            break
    assert world.table(table).ended == {
        "places": [None, None],
        "reason": "abandoned",
        "winners": [],
    }
    await settle(world, GRACE + 5)

    async def all_mailed() -> bool:
        return all(len(world.mails(p.email, "ended")) == 1 for p in folk)

    await until(all_mailed, "both told of the end")
    for p in folk:
        text, html = parts(world.mails(p.email, "ended")[0])
        said = {
            "en": "The game was abandoned: nobody placed.",
            "ja": "対局は放棄され、順位はつきませんでした。",
        }
        assert said[p.lang] in text and said[p.lang] in html
        assert "standings" not in text and "最終順位" not in text
    pushed = folk[1]
    assert pushed.keys is not None
    ends = [m for r in push.received if (m := pushed.keys.decrypt(r.body))["kind"] == "ended"]
    assert [m["body"] for m in ends] == ["Tagiron: The game was abandoned: nobody placed."]

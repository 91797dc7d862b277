"""Turn-based games over simulated days in browsers: a test server on a simulated clock
(``bodoge serve --test-clock``, moved by ``POST /api/test/clock``), people in browser
contexts of their own whose clocks follow the server's, a real SMTP server (aiosmtpd) and a
push endpoint on this machine that keep what the server sends them.

The server's time stands still unless the test moves it; each browser's clock (Playwright's
``clock``, installed before the first page) is set to the server's after every move of it,
so a countdown on a page reads what the server holds.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from bodoge.games import registry
from tests.e2e import ui
from tests.e2e.conftest import DESKTOP, check_answer, check_socket
from tests.e2e.test_notifications import CLICK_JS, NOTIFICATIONS_JS, registration_id
from tests.support.live_server import DEFAULT_ARGS, LiveServer
from tests.support.turn_play import BrowserKeys, PushService, SmtpServer, parts

Page = Any
HOUR = 3600
DAY = 24 * HOUR
#: The notifier's grace (``--notify-grace``'s default): a turn is told this long after it
#: begins, unless the person opened the table meanwhile.
GRACE = 30
PASSWORD = "correct horse battery"
#: Each e-mail's subject, by language and kind (bodoge/server/services/notify_texts.py).
SUBJECTS = {
    ("ja", "turn"): "{game}であなたの番です",
    ("en", "turn"): "Your turn in {game}",
    ("ja", "ended"): "{game}の対局が終わりました",
    ("en", "ended"): "Your game of {game} has ended",
}
PUSH_TITLES = {("ja", "turn"): "あなたの番です", ("en", "turn"): "Your turn"}


@dataclass
class Person:
    """One person: a browser context of their own, told by e-mail or by push."""

    name: str
    lang: str
    context: Any
    page: Page
    errors: list[str]
    email: str | None = None
    keys: BrowserKeys | None = None
    push_name: str | None = None
    seat: int = -1
    #: The notifications each kind should have brought so far.
    expected: dict[str, int] = field(default_factory=lambda: {"turn": 0, "ended": 0})

    @property
    def token(self) -> str:
        return str(self.page.evaluate("() => JSON.parse(localStorage.getItem('bodoge.token'))"))

    @property
    def id(self) -> str:
        return str(self.page.evaluate("() => window.bodoge.conn.player.id"))


class Days:
    """The test server, its clock, its mail and push, and the people's browsers."""

    def __init__(self, make_live_server: Any, smtp: SmtpServer, push: PushService) -> None:
        self.smtp, self.push = smtp, push
        start = time.time_ns() // 1_000_000 // 1000 * 1000
        self.server: LiveServer = make_live_server(
            args=[
                *DEFAULT_ARGS,
                "--bot-workers",
                "0",
                "--smtp-url",
                smtp.url,
                f"--test-clock={start}",
            ]
        )
        self.now = start
        self.people: list[Person] = []
        self.http = httpx.Client(timeout=60)

    @property
    def base(self) -> str:
        """The address the server prints and its e-mails link to (``localhost``)."""
        return f"http://localhost:{self.server.port}"

    def close(self) -> None:
        self.http.close()
        for person in self.people:
            person.context.close()

    # --- the clock -----------------------------------------------------------------------

    def advance(self, seconds: float) -> int:
        """Move the server's time on (its timers run on the way), and every browser's."""
        answer = self.http.post(f"{self.server.url}api/test/clock", json={"advance": seconds})
        assert answer.status_code == 200, answer.text
        self.now = int(answer.json()["now"])
        for person in self.people:
            person.context.clock.set_system_time(self.now / 1000)
        return self.now

    def until(self, at_ms: int, plus: float = 0) -> int:
        """Move the time on to ``at_ms`` (and ``plus`` seconds more)."""
        return self.advance(max(0.0, (at_ms - self.now) / 1000) + plus)

    def restart(self) -> None:
        """``kill -9`` the server and start it again at the time it had reached."""
        args = self.server.args
        (at,) = [i for i, arg in enumerate(args) if arg.startswith("--test-clock=")]
        args[at] = f"--test-clock={self.now}"
        self.server.restart()
        assert self.http.get(f"{self.server.url}api/test/clock").json()["now"] == self.now

    # --- people ----------------------------------------------------------------------------

    def person(self, browser: Any, name: str, lang: str) -> Person:
        context = browser.new_context(viewport=DESKTOP, locale="ja-JP" if lang == "ja" else "en-GB")
        context.add_init_script(f"localStorage.setItem('bodoge.lang', '{lang}')")
        context.clock.install(time=self.now / 1000)
        context.grant_permissions(["notifications"], origin=self.base)
        page = context.new_page()
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("websocket", lambda ws: check_socket(ws, f"to {name}'s page"))
        page.on("response", check_answer)
        page.on("dialog", lambda d: (errors.append(f"dialog: {d.message}"), d.dismiss()))
        page.goto(self.base + "/")
        ui.sign_in(page, name)
        person = Person(name, lang, context, page, errors)
        self.people.append(person)
        return person

    def verify_email(self, person: Person, account: str, email: str) -> None:
        """Keep the name as an account and verify ``email`` by the link mailed to it."""
        page = person.page
        page.goto(self.base + "/account")
        page.fill("[data-testid=account-name]", account)
        page.fill("[data-testid=account-password]", PASSWORD)
        page.click("[data-testid=keep-password]")
        page.wait_for_selector("[data-testid=notify-email]")
        before = len(self.smtp.sink.messages)
        page.fill("[data-testid=notify-email]", email)
        page.click("[data-testid=notify-email-save]")
        mail = self.wait_mail(lambda m: m["To"] == email, before)
        link = re.search(r"http://\S+/verify-email/\S+", parts(mail)[0])
        assert link is not None
        page.goto(link.group(0))
        page.click("a[href='/account']")
        page.locator("[data-testid=notify-email-status]").get_by_text(email).wait_for()
        person.email = email

    def start_table(self, folk: list[Person], move: int, choose: Callable[[Page], None]) -> str:
        """The first person makes a turn-based table, ``move`` seconds a move (``choose``
        picks the game and its options on their page first), the others sit in their order
        and the first starts the game.  Sets each person's seat; returns the table's id."""
        host = folk[0].page
        choose(host)
        host.select_option("[data-testid=turn-based]", str(move))
        host.click("[data-testid=create-table]")
        host.wait_for_url(re.compile(r".*/t/[A-Za-z0-9_-]+$"))
        table = host.url.rstrip("/").rsplit("/", 1)[1]
        for seat, person in enumerate(folk):
            person.seat = seat
            if seat:
                person.page.goto(f"{self.base}/t/{table}")
                person.page.click(f"[data-testid=sit-{seat}]")
        host.locator("[data-testid=start]:not([disabled])").click()
        return table

    def subscribe_push(self, person: Person) -> None:
        """The person's browser subscribed to push (its keys, this machine's push service):
        a browser's own ``pushManager.subscribe`` needs a push service on the internet."""
        person.page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        person.keys = BrowserKeys()
        person.push_name = person.name.encode().hex()
        endpoint = self.push.endpoint(person.push_name)
        body = {**person.keys.subscription(endpoint), "lang": person.lang}
        added = self.http.post(
            f"{self.base}/api/push/subscriptions",
            json=body,
            headers={"Authorization": f"Bearer {person.token}"},
        )
        assert added.status_code == 201, added.text

    def wait_mail(self, match: Any, before: int = 0, timeout: float = 15) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            for mail in self.smtp.sink.messages[before:]:
                if match(mail):
                    return mail
            assert time.monotonic() < deadline, "no such e-mail came"
            time.sleep(0.05)

    # --- what reached them ----------------------------------------------------------------

    def pushes(self, person: Person) -> list[dict[str, Any]]:
        """The pushes the person's device got, decrypted as the browser does (RFC 8291)."""
        assert person.keys is not None and person.push_name is not None
        return [
            person.keys.decrypt(r.body)
            for r in list(self.push.received)
            if r.path.endswith(f"/{person.push_name}")
        ]

    def mails(self, person: Person, kind: str, game: str) -> list[Any]:
        """The person's e-mails of that kind about a game of ``game`` (its id)."""
        title = registry()[game].title[person.lang]
        subject = SUBJECTS[(person.lang, kind)].format(game=title)
        return [
            m
            for m in list(self.smtp.sink.messages)
            if m["To"] == person.email and m["Subject"] == subject
        ]

    def told(self, person: Person, kind: str, game: str) -> int:
        if person.keys is not None:
            return sum(p.get("kind") == kind for p in self.pushes(person))
        if person.email is not None:
            return len(self.mails(person, kind, game))
        return 0

    def check(self, game: str) -> None:
        """Each person got exactly what they should have by now, no more, no less."""
        for person in self.people:
            for kind in ("turn", "ended"):
                got = self.told(person, kind, game)
                assert got == person.expected[kind], (person.name, kind, got, person.expected)

    def table_link(self, person: Person, game: str, table: str) -> str:
        """The link of the person's last "your turn" e-mail: the table's address."""
        text = parts(self.mails(person, "turn", game)[-1])[0]
        found = re.search(rf"http://\S+/t/{table}\b", text)
        assert found is not None, text
        return found.group(0)

    def open_from_push(self, person: Person, table: str) -> None:
        """The last push the server sent the person, delivered to their page's service
        worker: its notification shows, and a click on it opens the table."""
        message = self.pushes(person)[-1]
        assert message["title"] == PUSH_TITLES[(person.lang, "turn")]
        assert message["url"] == f"/t/{table}", message
        page = person.page
        cdp, registration = registration_id(page)
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": self.base, "registrationId": registration, "data": json.dumps(message)},
        )
        deadline = time.monotonic() + 15
        while not (shown := page.evaluate(NOTIFICATIONS_JS)):
            assert time.monotonic() < deadline, "the notification never showed"
            page.wait_for_timeout(50)
        assert [(n["title"], n["data"]) for n in shown] == [
            (message["title"], {"url": f"/t/{table}"})
        ]
        (worker,) = person.context.service_workers
        assert worker.evaluate(CLICK_JS) == f"/t/{table}"
        page.wait_for_url(re.compile(rf".*/t/{table}$"))
        cdp.detach()

    # --- "Your games" -----------------------------------------------------------------------

    def my_rows(self, person: Person) -> list[dict[str, Any]]:
        """The person's "Your games", as the server answers it."""
        answer = self.http.get(
            f"{self.base}/api/players/me/tables",
            headers={"Authorization": f"Bearer {person.token}"},
        )
        assert answer.status_code == 200, answer.text
        return list(answer.json()["tables"])

    def my_row(self, person: Person, table: str) -> dict[str, Any]:
        (row,) = [r for r in self.my_rows(person) if r["id"] == table]
        return row

    def awaited(self, table: str) -> list[Person]:
        return [p for p in self.people if self.my_row(p, table)["your_turn"]]

    def leave(self, person: Person) -> None:
        """The person closes the table (their page goes to "Your games")."""
        person.page.goto(self.base + "/games")
        person.page.wait_for_selector("[data-testid=your-turn-list], [data-testid=none-your-turn]")

    def come_back(self, person: Person, table: str) -> None:
        """From "Your games", one click to the table where it is the person's turn."""
        page = person.page
        if "/games" not in page.url:
            self.leave(person)
        page.click(f"[data-testid=your-turn-list] [data-testid=mygame-{table}]")
        page.wait_for_url(re.compile(rf".*/t/{table}$"))


def each(people: list[Person]) -> Iterator[Page]:
    return (p.page for p in people)

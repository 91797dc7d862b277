"""What notifications say, in Japanese (the default) and English: e-mails (plain text and
HTML) and Web Push notifications.

Every value put into an HTML body is escaped here; a player's name or a game's title is
text, never markup.

>>> m = compose("en", "turn", site="https://games.example.org", table_id="t_1",
...             game="Tagiron", deadline=None, unsubscribe="https://games.example.org/u/x")
>>> m.subject
'Your turn in Tagiron'
>>> "https://games.example.org/t/t_1" in m.text and "https://games.example.org/t/t_1" in m.html
True
>>> html = compose("ja", "invited", site="https://g", table_id="t_1", game="<b>",
...                by="Hana & Co", deadline=None, unsubscribe="https://g/u").html
>>> "&lt;b&gt;" in html and "Hana &amp; Co" in html and "<b>" not in html
True

A game's end says how it went for the person, then the final standings:

>>> end = Ending(1, (("Hana", 1), ("Ken", 2), (None, 3), ("Yui", 4)), False)
>>> print(compose("en", "ended", site="https://g", table_id="t_1", game="Tagiron",
...               ending=end).text.partition(chr(10) * 2)[0])
The game at your table of Tagiron has ended. You came 2nd of 4.
Final standings:
1st Hana
2nd Ken (you)
3rd Bot
4th Yui
>>> push_text("ja", "ended", game="タギロン", ending=end)
('対局が終わりました', 'タギロン：4人中2位でした。1位 Hana・2位 Ken（あなた）・3位 ボット・4位 Yui')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from typing import Any

LANGS = ("ja", "en")

_SUBJECT = {
    "ja": {
        "turn": "{game}であなたの番です",
        "ended": "{game}の対局が終わりました",
        "invited": "{by}さんから{game}への招待",
        "verify": "メールアドレスの確認",
        "digest": "bodoge のお知らせ（{count}件）",
    },
    "en": {
        "turn": "Your turn in {game}",
        "ended": "Your game of {game} has ended",
        "invited": "{by} invites you to {game}",
        "verify": "Confirm your e-mail address",
        "digest": "bodoge: {count} updates",
    },
}

_LINE = {
    "ja": {
        "turn": "{game}の卓であなたの番です。",
        "ended": "{game}の卓の対局が終わりました。結果を見てみましょう。",
        "ended_told": "{game}の卓の対局が終わりました。",
        "invited": "{by}さんが{game}の卓に招待しています。",
        "verify": "bodoge の通知をこのアドレスで受け取るには、次のリンクを開いてください"
        "（48時間有効）。",
        "digest": "前回のお知らせから、次のことがありました。",
        "deadline": "期限：{deadline}",
        "open": "卓を開く",
        "confirm": "アドレスを確認する",
        "why": "bodoge のアカウントで通知を受け取る設定にしているため、このメールが届きました。",
        "manage": "通知の設定",
        "unsubscribe": "メール通知をすべて止める",
        "ignore": "心当たりがなければ、このメールは無視してください。",
    },
    "en": {
        "turn": "It is your turn at a table of {game}.",
        "ended": "The game at your table of {game} has ended: see how it went.",
        "ended_told": "The game at your table of {game} has ended.",
        "invited": "{by} invites you to a table of {game}.",
        "verify": "To receive bodoge's notifications at this address, open this link"
        " (valid for 48 hours).",
        "digest": "Since the last message:",
        "deadline": "Play by {deadline}",
        "open": "Open the table",
        "confirm": "Confirm the address",
        "why": "You receive this because your bodoge account asks for notifications.",
        "manage": "Notification settings",
        "unsubscribe": "Stop all e-mails",
        "ignore": "If you did not ask for this, ignore this e-mail.",
    },
}

#: How the game went for the person (:meth:`Ending.outcome`), and the standings' words.
_OUTCOME = {
    "ja": {
        "won": "あなたの勝ちです。",
        "won_shared": "あなたの勝ちです（同率1位）。",
        "place": "{count}人中{place}でした。",
        "draw": "引き分けでした。",
        "lost": "あなたの負けです。",
        "abandoned": "対局は放棄され、順位はつきませんでした。",
        "standings": "最終順位：",
        "you": "（あなた）",
        "bot": "ボット",
        "sep": "・",
    },
    "en": {
        "won": "You won.",
        "won_shared": "You won (a shared first place).",
        "place": "You came {place} of {count}.",
        "draw": "It was a draw.",
        "lost": "You lost.",
        "abandoned": "The game was abandoned: nobody placed.",
        "standings": "Final standings:",
        "you": " (you)",
        "bot": "Bot",
        "sep": " · ",
    },
}

#: What a push notification says (its title, then its body).
_PUSH = {
    "ja": {
        "turn": ("あなたの番です", "{game}：卓を開いて指しましょう"),
        "ended": ("対局が終わりました", "{game}：結果を見る"),
        "invited": ("招待が届きました", "{by}さんから{game}への招待"),
    },
    "en": {
        "turn": ("Your turn", "{game}: open the table to play"),
        "ended": ("Game over", "{game}: see the result"),
        "invited": ("You are invited", "{by} invites you to {game}"),
    },
}


def ordinal(place: int, lang: str) -> str:
    """A place as the language says it.

    >>> [ordinal(n, "en") for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd']
    >>> ordinal(2, "ja")
    '2位'
    """
    if lang == "ja":
        return f"{place}位"
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


@dataclass(frozen=True)
class Ending:
    """A finished game as one person is told of it: their seat, every seat's ``(name, place)``
    in seat order (name ``None``: a bot; place ``None``: unranked), whether it was abandoned.

    >>> [Ending(0, ((n, p), ("Ken", q)), False).outcome for n, p, q in
    ...  (("Hana", 1, 2), ("Hana", 2, 1), ("Hana", 1, 1), ("Hana", None, None))]
    ['won', 'lost', 'draw', 'draw']
    >>> Ending(1, (("A", 1), ("B", 2), ("C", 3)), False).outcome
    'place'
    >>> Ending(2, (("A", 1), ("B", 1), ("C", 2)), False).outcome
    'place'
    >>> Ending(0, (("A", 1), ("B", 1), ("C", 2)), False).outcome
    'won_shared'
    >>> Ending(0, (("A", None), ("B", None)), True).outcome
    'abandoned'
    """

    seat: int
    standings: tuple[tuple[str | None, int | None], ...]
    abandoned: bool

    @classmethod
    def of(cls, payload: Mapping[str, Any]) -> Ending | None:
        """The ending an outbox row keeps (``None``: a row stored before rows kept one)."""
        seat, rows = payload.get("seat"), payload.get("standings")
        if not isinstance(seat, int) or not isinstance(rows, list) or not 0 <= seat < len(rows):
            return None
        standings: list[tuple[str | None, int | None]] = []
        for row in rows:
            if not (isinstance(row, list) and len(row) == 2):
                return None
            name, place = row
            standings.append(
                (
                    name if isinstance(name, str) else None,
                    place if isinstance(place, int) and not isinstance(place, bool) else None,
                )
            )
        return cls(seat, tuple(standings), payload.get("abandoned") is True)

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "standings": [list(row) for row in self.standings],
            "abandoned": self.abandoned,
        }

    @property
    def outcome(self) -> str:
        """``won`` (``won_shared``), ``place`` (ranked, but not first, of three or more),
        ``draw`` (nobody won, or everybody did), ``lost``, ``abandoned`` — as a profile
        counts it (bodoge/server/services/statistics.py), a place told where there are
        three or more."""
        if self.abandoned:
            return "abandoned"
        places = [place for _, place in self.standings]
        winners = places.count(1)
        if winners in (0, len(places)):
            return "draw"
        mine = places[self.seat]
        if mine == 1:
            return "won_shared" if winners > 1 else "won"
        if len(places) >= 3 and mine is not None:
            return "place"
        return "lost"

    def sentence(self, lang: str) -> str:
        """How it went for the person, in a sentence."""
        words = _OUTCOME[lang_of(lang)]
        place = self.standings[self.seat][1]
        shown = ordinal(place, lang_of(lang)) if place is not None else ""
        return words[self.outcome].format(place=shown, count=len(self.standings))

    def ranked(self, lang: str) -> list[str]:
        """The standings, first place first (unranked seats last), one seat an entry: its
        place and name, the person's own marked; none for an abandoned game."""
        if self.abandoned:
            return []
        words = _OUTCOME[lang_of(lang)]
        order = sorted(
            range(len(self.standings)),
            key=lambda s: (self.standings[s][1] is None, self.standings[s][1] or 0, s),
        )
        shown = []
        for s in order:
            name, place = self.standings[s]
            who = (name if name is not None else words["bot"]) + (
                words["you"] if s == self.seat else ""
            )
            shown.append(f"{ordinal(place, lang_of(lang)) if place is not None else '-'} {who}")
        return shown


@dataclass(frozen=True)
class Composed:
    subject: str
    text: str
    html: str


def lang_of(raw: object) -> str:
    """A language we write in: the one asked for if we speak it, else Japanese."""
    return raw if isinstance(raw, str) and raw in LANGS else "ja"


def when(at_ms: int, lang: str) -> str:
    """A deadline in UTC (the server knows no one's time zone).

    >>> when(0, "en"), when(0, "ja")
    ('1970-01-01 00:00 UTC', '1970-01-01 00:00（UTC）')
    """
    stamp = datetime.fromtimestamp(at_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M")
    return f"{stamp}（UTC）" if lang == "ja" else f"{stamp} UTC"


def _html(lang: str, paragraphs: list[str], links: list[tuple[str, str]], footer: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    body += "".join(f'<p><a href="{escape(u)}">{escape(label)}</a></p>' for label, u in links)
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"></head>'
        f"<body>{body}<hr><p><small>{footer}</small></p></body></html>"
    )


def compose(
    lang: str,
    kind: str,
    *,
    site: str,
    table_id: str | None = None,
    game: str = "",
    by: str = "",
    deadline: int | None = None,
    link: str | None = None,
    unsubscribe: str | None = None,
    items: list[tuple[str, str, str, str, Ending | None]] | None = None,
    ending: Ending | None = None,
) -> Composed:
    """One e-mail of ``kind`` (``turn``, ``ended``, ``invited``, ``verify``, ``digest``:
    ``items`` then holds each ``(kind, table_id, game, by, ending)`` it tells; ``ended``: the
    ``ending``, how it went and the standings)."""
    lang = lang_of(lang)
    words, subjects = _LINE[lang], _SUBJECT[lang]
    count = len(items or [])
    subject = subjects[kind].format(game=game, by=by, count=count)
    text_lines: list[str] = []
    paragraphs: list[str] = []
    links: list[tuple[str, str]] = []
    if kind == "verify":
        assert link is not None
        text_lines += [words["verify"], "", link, "", words["ignore"]]
        paragraphs += [escape(words["verify"])]
        links.append((words["confirm"], link))
        footer_text = words["ignore"]
    else:
        if kind == "digest":
            text_lines += [words["digest"], ""]
            paragraphs.append(escape(words["digest"]))
            for k, t, g, b, e in items or []:
                url = f"{site}/t/{t}"
                if k == "ended" and e is not None:
                    line = words["ended_told"].format(game=g)
                    line += (" " if lang == "en" else "") + e.sentence(lang)
                else:
                    line = words[k].format(game=g, by=b)
                text_lines += [f"- {line}", f"  {url}"]
                links.append((line, url))
        else:
            url = f"{site}/t/{table_id}"
            told = kind == "ended" and ending is not None
            line = words["ended_told" if told else kind].format(game=game, by=by)
            if told:
                assert ending is not None
                line += (" " if lang == "en" else "") + ending.sentence(lang)
            text_lines += [line]
            paragraphs.append(escape(line))
            if told and ending is not None and (ranked := ending.ranked(lang)):
                heading = _OUTCOME[lang]["standings"]
                text_lines += [heading, *ranked]
                paragraphs.append("<br>".join(escape(x) for x in [heading, *ranked]))
            if deadline is not None:
                due = words["deadline"].format(deadline=when(deadline, lang))
                text_lines.append(due)
                paragraphs.append(escape(due))
            text_lines += ["", f"{words['open']}: {url}"]
            links.append((words["open"], url))
        footer_text = words["why"]
    manage = f"{site}/account"
    text_lines += ["", "--", footer_text]
    footer = escape(footer_text)
    if kind != "verify":
        text_lines += [f"{words['manage']}: {manage}"]
        footer += f'<br><a href="{escape(manage)}">{escape(words["manage"])}</a>'
        if unsubscribe is not None:
            text_lines += [f"{words['unsubscribe']}: {unsubscribe}"]
            footer += f'<br><a href="{escape(unsubscribe)}">{escape(words["unsubscribe"])}</a>'
    return Composed(subject, "\n".join(text_lines) + "\n", _html(lang, paragraphs, links, footer))


def push_text(
    lang: str, kind: str, *, game: str, by: str = "", ending: Ending | None = None
) -> tuple[str, str]:
    """A push notification's title and body (a game's end: how it went, and the standings).

    >>> push_text("en", "invited", game="Tagiron", by="Hana")
    ('You are invited', 'Hana invites you to Tagiron')
    >>> push_text("en", "ended", game="Tagiron", ending=Ending(0, (("A", 1), ("B", 2)), False))
    ('Game over', 'Tagiron: You won. 1st A (you) · 2nd B')
    """
    lang = lang_of(lang)
    title, body = _PUSH[lang][kind]
    if kind == "ended" and ending is not None:
        words = _OUTCOME[lang]
        colon = "：" if lang == "ja" else ": "
        told = ending.sentence(lang)
        ranked = ending.ranked(lang)
        return title, f"{game}{colon}{told}" + (
            (" " if lang == "en" else "") + words["sep"].join(ranked) if ranked else ""
        )
    return title, body.format(game=game, by=by)


#: The pages the links of e-mails open (verify, unsubscribe), each string per language.
PAGES = {
    "ja": {
        "verified_title": "アドレスを確認しました",
        "verified": "このアドレスに bodoge の通知が届きます。"
        "設定はアカウントのページで変えられます。",
        "bad_link_title": "このリンクは使えません",
        "bad_link": "期限が切れたか、アドレスが変わったか、リンクが途中で切れています。"
        "アカウントのページからもう一度お試しください。",
        "unsubscribe_title": "メール通知を止める",
        "unsubscribe": "{email} への bodoge のメール通知をすべて止めます。",
        "unsubscribe_button": "止める",
        "unsubscribed_title": "メール通知を止めました",
        "unsubscribed": "{email} には bodoge からメールを送りません。"
        "アカウントのページでいつでも再開できます。",
        "account": "アカウントのページへ",
    },
    "en": {
        "verified_title": "Address confirmed",
        "verified": "bodoge's notifications will reach this address. Change what you receive"
        " on your account page.",
        "bad_link_title": "This link does not work",
        "bad_link": "It expired, the address changed since, or the link was cut short. Try"
        " again from your account page.",
        "unsubscribe_title": "Stop e-mails",
        "unsubscribe": "Stop every e-mail bodoge sends to {email}.",
        "unsubscribe_button": "Stop",
        "unsubscribed_title": "E-mails stopped",
        "unsubscribed": "bodoge sends no more e-mail to {email}. Turn them back on any time on"
        " your account page.",
        "account": "Go to your account page",
    },
}


def page(lang: str, title_key: str, text_key: str, *, email: str = "", form: str = "") -> str:
    """A small page of its own (no script, no style: the page policy holds) answering a link
    of an e-mail; ``form`` is the unsubscribe button's action."""
    lang = lang_of(lang)
    words = PAGES[lang]
    title = escape(words[title_key])
    text = escape(words[text_key].format(email=email))
    button = ""
    if form:
        button = (
            f'<form method="post" action="{escape(form)}">'
            '<input type="hidden" name="List-Unsubscribe" value="One-Click">'
            f'<button type="submit">{escape(words["unsubscribe_button"])}</button></form>'
        )
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{title} · bodoge</title><link rel="stylesheet" href="/static/css/app.css">'
        f'</head><body><main class="notice-page"><h1>{title}</h1><p>{text}</p>{button}'
        f'<p><a href="/account">{escape(words["account"])}</a></p></main></body></html>'
    )

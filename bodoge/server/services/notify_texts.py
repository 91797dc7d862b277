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
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape

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
    items: list[tuple[str, str, str, str]] | None = None,
) -> Composed:
    """One e-mail of ``kind`` (``turn``, ``ended``, ``invited``, ``verify``, ``digest``:
    ``items`` then holds each ``(kind, table_id, game, by)`` it tells)."""
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
            for k, t, g, b in items or []:
                url = f"{site}/t/{t}"
                line = words[k].format(game=g, by=b)
                text_lines += [f"- {line}", f"  {url}"]
                links.append((line, url))
        else:
            url = f"{site}/t/{table_id}"
            line = words[kind].format(game=game, by=by)
            text_lines += [line]
            paragraphs.append(escape(line))
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


def push_text(lang: str, kind: str, *, game: str, by: str = "") -> tuple[str, str]:
    """A push notification's title and body.

    >>> push_text("en", "invited", game="Tagiron", by="Hana")
    ('You are invited', 'Hana invites you to Tagiron')
    """
    title, body = _PUSH[lang_of(lang)][kind]
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

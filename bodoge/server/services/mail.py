"""E-mail out: the ``--smtp-url`` setting and one message sent with ``aiosmtplib``.

``smtp://user:password@host:587`` speaks SMTP and upgrades with STARTTLS when the server
offers it; ``?starttls=1`` requires the upgrade (the message is not sent without it) and
``?starttls=0`` never asks for it.  ``smtps://host:465`` speaks TLS from the first byte.
``?from=bodoge@example.org`` is the sender (default ``bodoge@`` the host of the SMTP URL);
``?verify=0`` accepts a certificate the system does not trust (a test server's).  User and
password are URL-encoded (``%40`` for ``@``).

>>> s = SmtpSettings.parse("smtp://me%40example.org:p%2Fw@mail.example.org?starttls=1")
>>> (s.host, s.port, s.username, s.password, s.start_tls, s.use_tls, s.sender)
('mail.example.org', 587, 'me@example.org', 'p/w', True, False, 'bodoge@mail.example.org')
>>> s = SmtpSettings.parse("smtps://mail.example.org?from=games@example.org")
>>> (s.port, s.use_tls, s.start_tls, s.sender)
(465, True, False, 'games@example.org')
>>> SmtpSettings.parse("http://mail.example.org")
Traceback (most recent call last):
...
ValueError: an SMTP URL is smtp://user:password@host:port or smtps://…
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from urllib.parse import parse_qs, unquote, urlsplit

import aiosmtplib

_FLAGS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


@dataclass(frozen=True)
class SmtpSettings:
    """Where and how e-mail is sent."""

    host: str
    port: int
    username: str | None
    password: str | None
    #: Implicit TLS (``smtps://``).
    use_tls: bool
    #: STARTTLS: ``True`` required, ``False`` never, ``None`` when the server offers it.
    start_tls: bool | None
    sender: str
    verify: bool = True
    timeout: float = 30.0

    @classmethod
    def parse(cls, url: str) -> SmtpSettings:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError("an SMTP URL is smtp://user:password@host:port or smtps://…")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        unknown = set(query) - {"starttls", "from", "verify"}
        if unknown:
            raise ValueError(f"unknown SMTP URL option: {', '.join(sorted(unknown))}")

        def flag(name: str) -> bool | None:
            if name not in query:
                return None
            if query[name].lower() not in _FLAGS:
                raise ValueError(f"{name}= is 1 or 0")
            return _FLAGS[query[name].lower()]

        tls = scheme == "smtps"
        start_tls = flag("starttls")
        if tls and start_tls:
            raise ValueError("smtps:// is TLS already: starttls=1 is for smtp://")
        try:
            port = parts.port
        except ValueError:
            raise ValueError("the SMTP URL's port is a number") from None
        default_port = 465 if tls else (587 if start_tls or parts.username else 25)
        return cls(
            host=parts.hostname,
            port=port or default_port,
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            use_tls=tls,
            start_tls=False if tls else start_tls,
            sender=query.get("from") or f"bodoge@{parts.hostname}",
            verify=flag("verify") is not False,
        )


@dataclass(frozen=True)
class Mail:
    """One e-mail: to whom, its subject and bodies, and its extra headers."""

    to: str
    subject: str
    text: str
    html: str
    lang: str
    headers: tuple[tuple[str, str], ...] = ()


def message(mail: Mail, sender: str) -> EmailMessage:
    """The MIME message: plain text first, HTML as the alternative mail programs prefer."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = mail.to
    msg["Subject"] = mail.subject
    msg["Date"] = formatdate(localtime=False)
    msg["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    # Sent by a program about a game: no out-of-office answer should come back to it.
    msg["Auto-Submitted"] = "auto-generated"
    for name, value in mail.headers:
        msg[name] = value
    msg.set_content(mail.text)
    msg.add_alternative(mail.html, subtype="html")
    msg["Content-Language"] = mail.lang  # after the bodies: setting them clears Content-*
    return msg


class Mailer:
    """Sends one message at a time over a new connection (few e-mails, hours apart: a kept
    connection would only be closed by the server in between)."""

    def __init__(self, settings: SmtpSettings) -> None:
        self.settings = settings

    async def send(self, mail: Mail) -> None:
        """Send, or raise (:class:`aiosmtplib.SMTPException`, :class:`OSError`)."""
        s = self.settings
        await aiosmtplib.send(
            message(mail, s.sender),
            hostname=s.host,
            port=s.port,
            username=s.username,
            password=s.password,
            use_tls=s.use_tls,
            start_tls=s.start_tls,
            validate_certs=s.verify,
            timeout=s.timeout,
        )


def permanent(exc: BaseException) -> bool:
    """Whether retrying cannot help: the server refused the recipient or the message for
    good (a 5xx answer), as opposed to a connection lost or a 4xx "try later"."""
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused):
        return all(500 <= r.code < 600 for r in exc.recipients)
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return 500 <= exc.code < 600
    return False

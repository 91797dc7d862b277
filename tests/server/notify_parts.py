"""The real parts the notification tests talk to: an SMTP server (aiosmtpd) that keeps what
it receives, a Web Push endpoint that keeps the encrypted messages it is sent, a browser's
subscription keys that decrypt them (RFC 8291, with ``http_ece``), a clock to move."""

from __future__ import annotations

import base64
import json
import os
import socket
import threading
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from aiosmtpd.controller import Controller
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class MailSink:
    """aiosmtpd's handler: every message received, parsed; ``refuse`` answers DATA with that
    SMTP reply instead (``"451 …"``: try later; ``"550 …"``: never)."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.refuse: str | None = None
        self.envelopes: list[tuple[str, list[str]]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refuse is not None:
            return self.refuse
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        parsed = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        self.messages.append(parsed)
        return "250 OK"


class SmtpServer:
    """An SMTP server on a free port of this machine, in a thread of its own."""

    def __init__(self) -> None:
        self.sink = MailSink()
        self.port = free_port()
        self.controller = Controller(self.sink, hostname="127.0.0.1", port=self.port)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}?from=bodoge@games.example.org"

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()


def parts(message: EmailMessage) -> tuple[str, str]:
    """The plain-text and HTML bodies of a message."""
    text = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass
class BrowserKeys:
    """What a browser makes when it subscribes: a P-256 key pair and an auth secret."""

    private: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        raw = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(raw)

    def subscription(self, endpoint: str) -> dict[str, Any]:
        return {"endpoint": endpoint, "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)}}

    def decrypt(self, body: bytes) -> Any:
        """The JSON a push carried, decrypted as the browser would (RFC 8291, aes128gcm)."""
        plain = http_ece.decrypt(
            body, private_key=self.private, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class PushService:
    """A push service's endpoint on this machine: keeps each message; answers ``status``
    (201 by default: accepted; 410: the subscription is gone; 500: try later)."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.status = 201
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                service.received.append(Received(self.path, headers, body))
                self.send_response(service.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def endpoint(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/push/{name}"

    def __enter__(self) -> PushService:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class Clock:
    """The notifier's clock (ms), moved by the test."""

    def __init__(self, now: int = 1_800_000_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += round(seconds * 1000)

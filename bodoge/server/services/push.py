"""Web Push out: the server's VAPID key pair and one message sent with ``pywebpush``.

The key pair is made once and kept in the store (``server_secrets``), so every process of a
cluster signs with the same key and a browser's subscription outlives restarts (a browser
subscribes to one server key: a new key would silence every device).  A message is
encrypted to the subscription's keys (RFC 8291, ``aes128gcm``) by ``pywebpush``.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

import aiohttp
from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush_async

from bodoge.store.notifications import PushSubscription

#: A push service's answers that mean "this subscription is gone": forget it.
GONE = frozenset({404, 410})


def make_vapid_pem() -> str:
    """A new VAPID private key (P-256), PEM."""
    vapid = Vapid02()
    vapid.generate_keys()
    return str(vapid.private_pem().decode())


def public_key(vapid: Vapid02) -> str:
    """The public key as browsers take it (``applicationServerKey``): the uncompressed
    point, base64url without padding."""
    raw = vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class PushGone(Exception):
    """The push service no longer knows the subscription (404 or 410)."""


class PushFailed(Exception):
    """The push service could not take the message now (retry later)."""


@dataclass
class Pusher:
    """Sends Web Push messages signed with the server's VAPID key."""

    vapid: Vapid02
    #: Who runs this server, for the push services (``mailto:`` or an https URL).
    contact: str
    timeout: float = 30.0

    @classmethod
    def from_pem(cls, pem: str, contact: str) -> Pusher:
        return cls(Vapid02.from_pem(pem.encode()), contact)

    @property
    def public_key(self) -> str:
        return public_key(self.vapid)

    async def send(self, sub: PushSubscription, payload: dict[str, Any], ttl: int) -> None:
        """Send, or raise :class:`PushGone` / :class:`PushFailed`."""
        info: dict[str, Any] = {
            "endpoint": sub.endpoint,
            "keys": {"p256dh": sub.p256dh, "auth": sub.auth},
        }
        try:
            await webpush_async(
                info,
                json.dumps(payload, ensure_ascii=False),
                vapid_private_key=self.vapid,
                # A fresh dict each time: pywebpush writes the audience (the push
                # service's origin) and the expiry into it.
                vapid_claims={"sub": self.contact},
                ttl=ttl,
                timeout=self.timeout,
                headers={"Urgency": "normal"},
            )
        except WebPushException as exc:
            if exc.status_code in GONE:
                raise PushGone(str(exc.status_code)) from exc
            raise PushFailed(f"push service answered {exc.status_code}") from exc
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            raise PushFailed(f"push service unreachable: {exc!r}") from exc
        except ValueError as exc:  # keys that are no P-256 point: the subscription is broken
            raise PushGone(f"bad subscription keys: {exc}") from exc

"""A software passkey authenticator (ES256, "none" attestation), for server-level tests.

It answers WebAuthn options the way a browser and an authenticator together would:
``create(options, origin)`` and ``get(options, origin)`` return the credential JSON a
page sends to the server (``PublicKeyCredential.toJSON()``'s shape).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import struct
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url, encode_cbor


@dataclass
class Credential:
    id: bytes
    rp_id: str
    user_handle: bytes
    key: ec.EllipticCurvePrivateKey
    sign_count: int = 0


@dataclass
class Authenticator:
    credentials: list[Credential] = field(default_factory=list)

    def create(self, options: dict[str, Any], origin: str) -> dict[str, Any]:
        rp_id = options["rp"]["id"]
        key = ec.generate_private_key(ec.SECP256R1())
        cred = Credential(
            secrets.token_bytes(16), rp_id, base64url_to_bytes(options["user"]["id"]), key
        )
        numbers = key.public_key().public_numbers()
        cose = {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32), -3: numbers.y.to_bytes(32)}
        attested = bytes(16) + struct.pack(">H", len(cred.id)) + cred.id + encode_cbor(cose)
        auth_data = _rp_hash(rp_id) + bytes([0x45]) + struct.pack(">I", 0) + attested
        client_data = _client_data("webauthn.create", options["challenge"], origin)
        attestation = encode_cbor({"fmt": "none", "attStmt": {}, "authData": auth_data})
        self.credentials.append(cred)
        return {
            "id": bytes_to_base64url(cred.id),
            "rawId": bytes_to_base64url(cred.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": bytes_to_base64url(client_data),
                "attestationObject": bytes_to_base64url(attestation),
            },
            "clientExtensionResults": {},
        }

    def get(
        self, options: dict[str, Any], origin: str, credential: Credential | None = None
    ) -> dict[str, Any]:
        cred = credential or next(c for c in self.credentials if c.rp_id == options["rpId"])
        cred.sign_count += 1
        auth_data = _rp_hash(cred.rp_id) + bytes([0x05]) + struct.pack(">I", cred.sign_count)
        client_data = _client_data("webauthn.get", options["challenge"], origin)
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = cred.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": bytes_to_base64url(cred.id),
            "rawId": bytes_to_base64url(cred.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": bytes_to_base64url(client_data),
                "authenticatorData": bytes_to_base64url(auth_data),
                "signature": bytes_to_base64url(signature),
                "userHandle": bytes_to_base64url(cred.user_handle),
            },
            "clientExtensionResults": {},
        }


def _rp_hash(rp_id: str) -> bytes:
    return hashlib.sha256(rp_id.encode()).digest()


def _client_data(kind: str, challenge: str, origin: str) -> bytes:
    data = {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}
    return json.dumps(data).encode()

"""Identity without sign-up: a nickname and a secret token that owns seats.

Only the SHA-256 of a token is stored: tokens are 256 random bits, so a slow
password hash would add nothing.  Names and chat are kept exactly as typed
(apart from surrounding spaces): clients must always show them as text.

>>> len(new_token()), hash_token("abc")[:8]
(43, 'ba7816bf')
>>> check_name("  <b>はなこ</b> ")
'<b>はなこ</b>'
>>> check_name("")
Traceback (most recent call last):
...
bodoge.server.protocol.ProtocolError: a name must be 1-24 characters of text
"""

from __future__ import annotations

import hashlib
import re
import secrets
import string
from dataclasses import dataclass

from bodoge.server.protocol import ProtocolError, now_ms
from bodoge.store import PlayerRecord, Store

_ID_ALPHABET = string.ascii_lowercase + string.digits
# Control characters break layouts and logs; NUL is refused by PostgreSQL text.
_NAME_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_TEXT_FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_id(prefix: str, length: int = 10) -> str:
    """A random id such as ``t_k3x9q2m1a0``: short enough for an invite link."""
    return prefix + "".join(secrets.choice(_ID_ALPHABET) for _ in range(length))


def check_name(raw: object, limit: int = 24) -> str:
    """A valid nickname (surrounding spaces removed) or ``bad_name``."""
    if not isinstance(raw, str):
        raise ProtocolError("bad_name", "a name must be 1-24 characters of text")
    name = raw.strip()
    if not 1 <= len(name) <= limit or _NAME_FORBIDDEN.search(name) or not _utf8(name):
        raise ProtocolError("bad_name", "a name must be 1-24 characters of text")
    return name


def check_text(raw: object, limit: int = 300) -> str:
    """Chat text, stored exactly as sent, or ``bad_text``."""
    if (
        not isinstance(raw, str)
        or not raw.strip()
        or len(raw) > limit
        or _TEXT_FORBIDDEN.search(raw)
        or not _utf8(raw)
    ):
        raise ProtocolError("bad_text", f"chat text must be 1-{limit} characters")
    return raw


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


@dataclass(eq=False)
class Player:
    """A known visitor.  One object per player, shared, so a rename shows everywhere."""

    id: str
    name: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name}


class Players:
    """Players by id and by token hash, backed by the store."""

    def __init__(self, store: Store, name_chars: int = 24) -> None:
        self.store = store
        self.name_chars = name_chars
        self._by_id: dict[str, Player] = {}
        self._by_hash: dict[str, Player] = {}

    def remember(self, record: PlayerRecord) -> Player:
        player = self._by_id.get(record.id)
        if player is None:
            player = self._by_id[record.id] = Player(record.id, record.name)
        self._by_hash[record.token_hash] = player
        return player

    def get(self, player_id: str) -> Player | None:
        return self._by_id.get(player_id)

    def name(self, player_id: str) -> str:
        player = self._by_id.get(player_id)
        return player.name if player else "?"

    async def create(self, name: object) -> tuple[Player, str]:
        """A new player and the token that is now theirs."""
        name = check_name(name, self.name_chars)
        token = new_token()
        record = PlayerRecord(new_id("p_"), name, hash_token(token), now_ms())
        await self.store.create_player(record)
        return self.remember(record), token

    async def by_token(self, token: object) -> Player:
        """The player a token belongs to, or ``bad_token``."""
        if not isinstance(token, str) or not 16 <= len(token) <= 128:
            raise ProtocolError("bad_token", "unknown token: say hello without one")
        digest = hash_token(token)
        player = self._by_hash.get(digest)
        if player is None:
            record = await self.store.player_by_token_hash(digest)
            if record is None:
                raise ProtocolError("bad_token", "unknown token: say hello without one")
            player = self.remember(record)
        return player

    async def rename(self, player: Player, name: object) -> None:
        name = check_name(name, self.name_chars)
        if name != player.name:
            await self.store.rename_player(player.id, name)
            player.name = name

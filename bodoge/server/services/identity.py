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
bodoge.server.runtime.protocol.ProtocolError: a name must be 1-24 characters of text
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import unicodedata
import weakref
from collections.abc import Callable
from typing import Protocol

from bodoge.core.text import invisible
from bodoge.server.runtime.players import Player as Player
from bodoge.server.runtime.players import new_id as new_id
from bodoge.server.runtime.protocol import ProtocolError, now_ms
from bodoge.server.services.devices import Device
from bodoge.store import AccountStore, PlayerRecord, PlayerStore, StoreUnavailable

log = logging.getLogger(__name__)

# Control characters break layouts and logs; NUL is refused by PostgreSQL text.
_NAME_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_TEXT_FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# Line and paragraph separators break a line like a newline would (what draws nothing or
# turns the line around is bodoge.core.text's, by Unicode property).
_TEXT_UNSAFE = re.compile(r"[\u2028\u2029]")
# Symbols that draw nothing without being default-ignorable: a name of them looks empty.
_BLANK = frozenset("\u2800")
#: Combining marks one character may carry: enough for any script, too few for "Zalgo" text.
MAX_MARKS = 3
#: An account's sign-in unused for this long expires (``bodoge serve --session-days``).
SESSION_SECONDS = 180 * 86400.0
#: A sign-in's last use is written at most this often (ms) by each process, not per request.
NOTE_EVERY_MS = 5 * 60_000


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_name(raw: object, limit: int = 24) -> str:
    """A valid nickname (surrounding spaces removed) or ``bad_name``.

    A name must show something and stay in its place: nothing invisible
    (:func:`bodoge.core.text.invisible`: no default-ignorable or bidi control
    character, not even inside an emoji), no other format character, no line
    separators, no towers of combining marks.

    >>> check_name("💻 Ann")
    '💻 Ann'
    >>> check_name("Ha\u034fna")
    Traceback (most recent call last):
    ...
    bodoge.server.runtime.protocol.ProtocolError: a name must be 1-24 characters of text
    """
    if not isinstance(raw, str):
        raise ProtocolError("bad_name", "a name must be 1-24 characters of text")
    name = raw.strip()
    if (
        not 1 <= len(name) <= limit
        or _NAME_FORBIDDEN.search(name)
        or not _utf8(name)
        or invisible(name) is not None
        or not _shows(name, formats=False)
    ):
        raise ProtocolError("bad_name", "a name must be 1-24 characters of text")
    return name


def check_text(raw: object, limit: int = 300) -> str:
    """Chat text, stored exactly as sent, or ``bad_text``.

    >>> check_text("gg \u202eevil")
    Traceback (most recent call last):
    ...
    bodoge.server.runtime.protocol.ProtocolError: chat text must be 1-300 characters
    """
    if (
        not isinstance(raw, str)
        or len(raw) > limit
        or _TEXT_FORBIDDEN.search(raw)
        or _TEXT_UNSAFE.search(raw)
        or not _utf8(raw)
        or invisible(raw, emoji=True) is not None
        or not _shows(raw, formats=True)
    ):
        raise ProtocolError("bad_text", f"chat text must be 1-{limit} characters")
    return raw


def _shows(text: str, *, formats: bool) -> bool:
    """Whether ``text`` shows something: a visible character, no line or paragraph
    separator, and no run of more than MAX_MARKS combining marks.

    Without ``formats``, format characters (Unicode Cf) are refused too.
    """
    visible, marks = False, 0
    for char in text:
        kind = unicodedata.category(char)
        if kind in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS:
                return False
            continue
        marks = 0
        if kind in ("Zl", "Zp") or (kind == "Cf" and not formats):
            return False
        if kind[0] in "LNPS" and char not in _BLANK:
            visible = True
    return visible


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


class PlayerAndAccountStore(PlayerStore, AccountStore, Protocol):
    """What :class:`Players` reads and writes: players, and the sign-ins of accounts."""


class Players:
    """Players by id and by token hash, backed by the store.

    Only players someone holds stay in memory: a connection holds its player, a
    live table the players of its seats.  A visitor who said hello once and left
    is forgotten with their connection (the store keeps them), so the cache does
    not grow with every visitor the server ever had.

    A guest's token works for as long as the guest is kept.  An account's tokens are its
    sign-ins (``sessions``): each use notes when, from where and in which browser (written
    at most every :data:`NOTE_EVERY_MS` by each process, so a request costs no write), and
    one unused for ``session_seconds`` has expired: ``bad_token``, as an unknown one.  A
    token is trusted from memory only for :data:`NOTE_EVERY_MS` after the store was last
    asked about it; then the store is asked again, so a sign-in ended or expired meanwhile
    is refused, and a guest's token that became an account's sign-in (on any process) is
    noted from then on.
    """

    def __init__(
        self,
        store: PlayerAndAccountStore,
        name_chars: int = 24,
        *,
        session_seconds: float = SESSION_SECONDS,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.store = store
        self.name_chars = name_chars
        self.session_ms = round(session_seconds * 1000)
        self._clock = clock
        self._by_id: weakref.WeakValueDictionary[str, Player] = weakref.WeakValueDictionary()
        self._by_hash: weakref.WeakValueDictionary[str, Player] = weakref.WeakValueDictionary()
        #: When the store was last asked about each token known by hash (ms).
        self._checked: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._by_id)

    def remember(self, record: PlayerRecord) -> Player:
        player = self._by_id.get(record.id)
        if player is None:
            player = self._by_id[record.id] = Player(record.id, record.name)
        self._by_hash[record.token_hash] = player
        return player

    def remember_token(self, record: PlayerRecord, token_hash: str) -> Player:
        """The player, known by one more token: a sign-in of their account, begun now."""
        player = self.remember(record)
        self._by_hash[token_hash] = player
        self._check(token_hash, self._clock())
        return player

    def forget_tokens(self, token_hashes: set[str]) -> None:
        """These tokens were ended: the next use looks in the store (and finds nobody)."""
        for digest in token_hashes:
            self._by_hash.pop(digest, None)
            self._checked.pop(digest, None)

    def forget_player_tokens(self, player_id: str) -> None:
        """Every token of the player was ended (sign out everywhere)."""
        for digest in [d for d, p in list(self._by_hash.items()) if p.id == player_id]:
            self._by_hash.pop(digest, None)
            self._checked.pop(digest, None)

    def used_since(self) -> int:
        """The oldest last use (ms) of a sign-in that has not expired."""
        return self._clock() - self.session_ms

    def _check(self, token_hash: str, at: int) -> None:
        self._checked[token_hash] = at
        if len(self._checked) > 2 * len(self._by_hash) + 1024:  # drop those nobody holds
            self._checked = {d: t for d, t in self._checked.items() if d in self._by_hash}

    def get(self, player_id: str) -> Player | None:
        return self._by_id.get(player_id)

    def hold(self, player_id: str, name: str) -> Player:
        """The player another server process named (cluster), held while someone holds it."""
        player = self._by_id.get(player_id)
        if player is None:
            player = self._by_id[player_id] = Player(player_id, name)
        return player

    async def create(self, name: object) -> tuple[Player, str]:
        """A new player and the token that is now theirs."""
        name = check_name(name, self.name_chars)
        token = new_token()
        record = PlayerRecord(new_id("p_"), name, hash_token(token), self._clock())
        await self.store.create_player(record)
        player = self.remember(record)
        self._check(record.token_hash, record.created_at)
        return player, token

    async def by_token(self, token: object, device: Device | None = None) -> Player:
        """The player a token belongs to, or ``bad_token`` (unknown, ended or expired).

        ``device``: where the request comes from, noted for a sign-in (``None``: a use
        that notes nothing, such as a test's).
        """
        if not isinstance(token, str) or not 16 <= len(token) <= 128:
            raise ProtocolError("bad_token", "unknown token: say hello without one")
        digest = hash_token(token)
        now = self._clock()
        player = self._by_hash.get(digest)
        checked = self._checked.get(digest)
        if player is not None and checked is not None and now - checked < NOTE_EVERY_MS:
            return player  # used here a moment ago
        record = await self.store.player_by_token_hash(digest, now - self.session_ms)
        if record is None:
            self.forget_tokens({digest})
            raise ProtocolError("bad_token", "unknown token: say hello without one")
        player = self.remember(record)
        self._by_hash[digest] = player
        self._check(digest, now)
        if record.token_hash != digest and device is not None:  # an account's sign-in: noted
            try:
                await self.store.session_seen(digest, device.seen(now))
            except StoreUnavailable as exc:  # bookkeeping: the next use notes it
                log.warning("noting a sign-in of %s failed: %s", player.id, exc)
        return player

    async def rename(self, player: Player, name: object) -> None:
        name = check_name(name, self.name_chars)
        if name != player.name:
            await self.store.rename_player(player.id, name)
            player.name = name

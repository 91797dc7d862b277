"""A table's chat: the recent lines it keeps in memory, numbered, and their wire form.

The store keeps every line; memory keeps the last ``backlog`` (the
``chat_backlog`` limit), which is what a snapshot shows and what a tab that
comes back with ``chat_since`` can be sent.

>>> chat = Chat(backlog=2)
>>> for word in ("hi", "hello", "bye"):
...     chat.add(chat.next_line("p_ann", "Ann", word, at=0))
>>> chat.count, [line.text for line in chat.since(0)], [line.line for line in chat.since(2)]
(3, ['hello', 'bye'], [3])
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from bodoge.core.values import JSON
from bodoge.server.runtime.protocol import iso
from bodoge.store import ChatRecord


@dataclass(frozen=True)
class ChatLine:
    """Line ``line`` (counted from 1), with the speaker's name as it was then."""

    line: int
    player: str
    name: str
    text: str
    at: int

    @classmethod
    def from_record(cls, record: ChatRecord) -> ChatLine:
        return cls(record.line, record.player, record.name, record.text, record.at)

    def record(self, table_id: str) -> ChatRecord:
        return ChatRecord(table_id, self.line, self.player, self.name, self.text, self.at)

    def to_json(self, table_id: str) -> dict[str, JSON]:
        return {
            "type": "chat",
            "table": table_id,
            "line": self.line,
            "from": {"id": self.player, "name": self.name},
            "text": self.text,
            "at": iso(self.at),
        }


class Chat:
    """The last ``backlog`` lines of a table's chat, and how many it has had in all."""

    def __init__(self, backlog: int, lines: Iterable[ChatLine] = (), count: int = 0) -> None:
        self._lines: deque[ChatLine] = deque(lines, maxlen=backlog)
        self.count = count

    def next_line(self, player: str, name: str, text: str, at: int) -> ChatLine:
        """The line that comes next (:meth:`add` it once it is stored)."""
        return ChatLine(self.count + 1, player, name, text, at)

    def add(self, line: ChatLine) -> None:
        self._lines.append(line)
        self.count = line.line

    def since(self, line: int) -> list[ChatLine]:
        """The lines kept after line ``line``."""
        return [kept for kept in self._lines if kept.line > line]

    def to_json(self, table_id: str) -> list[JSON]:
        return [line.to_json(table_id) for line in self._lines]

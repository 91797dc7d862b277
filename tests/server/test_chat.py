"""A table's chat keeps its last lines, numbered on from what the store had."""

from __future__ import annotations

from bodoge.server.runtime.chat import Chat, ChatLine
from bodoge.store import ChatRecord


def test_a_restored_chat_numbers_on_from_the_stored_count() -> None:
    stored = [ChatRecord("t_abcd", n, "p_a", "Ann", f"line {n}", n) for n in (7, 8)]
    chat = Chat(2, (ChatLine.from_record(r) for r in stored), count=8)
    line = chat.next_line("p_b", "Bob", "next", at=9)
    assert line.line == 9
    assert line.record("t_abcd") == ChatRecord("t_abcd", 9, "p_b", "Bob", "next", 9)
    chat.add(line)
    assert [m["line"] for m in chat.to_json("t_abcd")] == [8, 9]
    assert chat.to_json("t_abcd")[-1]["from"] == {"id": "p_b", "name": "Bob"}

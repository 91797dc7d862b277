"""Reading the lobby's gathered updates (``lobby.update``) in tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def shown(message: dict[str, Any], table_id: str) -> dict[str, Any] | None:
    """The table's summary if ``message`` is a lobby update listing it, else ``None``."""
    if message.get("type") != "lobby.update":
        return None
    return next((t for t in message["tables"] if t["id"] == table_id), None)


def gone(message: dict[str, Any], table_id: str) -> bool:
    """Whether ``message`` is a lobby update that takes the table off the list."""
    return message.get("type") == "lobby.update" and table_id in message["removed"]


def listing(messages: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The lobby a client holds after ``messages`` (in order): the last ``lobby`` snapshot with
    every ``lobby.update`` after it applied, by table id."""
    tables: dict[str, dict[str, Any]] = {}
    for message in messages:
        if message.get("type") == "lobby":
            tables = {t["id"]: t for t in message["tables"]}
        elif message.get("type") == "lobby.update":
            tables.update((t["id"], t) for t in message["tables"])
            for table_id in message["removed"]:
                tables.pop(table_id, None)
    return tables


def ever_gone(messages: Iterable[dict[str, Any]], table_id: str) -> bool:
    """Whether any lobby update among ``messages`` took the table off the list."""
    return any(gone(m, table_id) for m in messages)

"""Reading the lobby's gathered updates (``lobby.update``) in tests."""

from __future__ import annotations

from typing import Any


def shown(message: dict[str, Any], table_id: str) -> dict[str, Any] | None:
    """The table's summary if ``message`` is a lobby update listing it, else ``None``."""
    if message.get("type") != "lobby.update":
        return None
    return next((t for t in message["tables"] if t["id"] == table_id), None)


def gone(message: dict[str, Any], table_id: str) -> bool:
    """Whether ``message`` is a lobby update that takes the table off the list."""
    return message.get("type") == "lobby.update" and table_id in message["removed"]

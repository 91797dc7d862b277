"""The lobby's updates (``bodoge/server/runtime/lobby.py``): gathered, encoded once, and a
watcher's list always one the lobby had."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from bodoge.core.values import JSON
from bodoge.server.runtime.lobby import Lobby


class Table:
    """What the lobby reads of a live table."""

    def __init__(self, n: int) -> None:
        self.id = f"t_{n:04d}"
        self.listed = True
        self.seats = 0
        self.created_at = f"2026-12-01T00:{n // 60:02d}:{n % 60:02d}.000Z"
        self.summaries = 0  # made

    def summary(self) -> dict[str, JSON]:
        self.summaries += 1
        return {"id": self.id, "created_at": self.created_at, "seats": self.seats}


class Watcher:
    """A lobby watcher applying what it is sent, as the browser does."""

    def __init__(self) -> None:
        self.frames: list[str] = []
        self.tables: dict[str, Any] = {}
        self.version = -1

    @property
    def player_id(self) -> str | None:
        return None

    def send_text(self, text: str) -> None:
        self.frames.append(text)
        update = json.loads(text)
        assert update["type"] == "lobby.update" and update["version"] == self.version + 1
        self.version = update["version"]
        for summary in update["tables"]:
            self.tables[summary["id"]] = summary
        for table_id in update["removed"]:
            self.tables.pop(table_id, None)

    def kick(self, code: int, *, flush: bool = False) -> None:
        raise AssertionError("a watcher is never kicked here")

    def start(self, snapshot: dict[str, JSON]) -> None:
        assert isinstance(snapshot["tables"], list) and isinstance(snapshot["version"], int)
        self.tables = {str(s["id"]): s for s in snapshot["tables"] if isinstance(s, dict)}
        self.version = snapshot["version"]


def listing(tables: list[Table]) -> dict[str, JSON]:
    return {t.id: t.summary() for t in tables if t.listed}


async def test_changes_are_gathered_into_one_frame_encoded_once_for_every_watcher() -> None:
    lobby = Lobby(flush_seconds=0.05)
    tables = [Table(n) for n in range(50)]
    watchers = [Watcher() for _ in range(200)]
    for watcher in watchers:
        watcher.start(lobby.subscribe(watcher, tables))
    lobby.changed(tables[0])  # a quiet lobby: out at once, not a period later
    await asyncio.sleep(0.01)
    assert [len(w.frames) for w in watchers] == [1] * 200
    for _ in range(3):  # a busy one: 150 changes, 50 tables, within one period
        for table in tables:
            table.seats += 1
            lobby.changed(table)
    tables[7].listed = False
    lobby.changed(tables[7])
    made = sum(t.summaries for t in tables)
    await asyncio.sleep(0.1)
    # Each table's summary made once, when the update went out, not once a change.
    assert sum(t.summaries for t in tables) - made == 49
    assert [len(w.frames) for w in watchers] == [2] * 200  # one more frame each, not 151
    second = {id(w.frames[1]) for w in watchers}
    assert len(second) == 1  # the very same text: encoded once
    update = json.loads(watchers[0].frames[1])
    assert len(update["tables"]) == 49 and update["removed"] == [tables[7].id]
    assert all(s["seats"] == 3 for s in update["tables"])  # each as it is now, once
    assert lobby.to_json()["changes"] == 152 and lobby.to_json()["updates"] == 2
    for watcher in watchers:
        assert watcher.tables == listing(tables)


async def test_a_watcher_who_comes_at_any_time_holds_the_lobbys_list() -> None:
    rng = random.Random(5)
    lobby = Lobby(flush_seconds=0.01)
    tables: list[Table] = []
    watchers: list[Watcher] = []
    for _ in range(400):
        roll = rng.random()
        if roll < 0.3 or not tables:
            tables.append(Table(len(tables)))
            lobby.changed(tables[-1])
        elif roll < 0.8:
            table = rng.choice(tables)
            table.seats += 1
            table.listed = rng.random() < 0.8
            lobby.changed(table)
        elif roll < 0.9:
            watcher = Watcher()
            watcher.start(lobby.subscribe(watcher, tables))
            assert watcher.tables == listing(tables)  # the snapshot is the lobby now
            watchers.append(watcher)
        else:
            await asyncio.sleep(rng.choice([0, 0.005, 0.02]))
    await asyncio.sleep(0.05)
    assert len(watchers) > 10
    for watcher in watchers:
        assert watcher.tables == listing(tables)
        assert watcher.version == lobby.version


async def test_nobody_watching_costs_no_update() -> None:
    lobby = Lobby(flush_seconds=0.01)
    table = Table(1)
    for _ in range(5):
        table.seats += 1
        lobby.changed(table)
    await asyncio.sleep(0.03)
    assert lobby.to_json()["updates"] == 0 and lobby.version == 0
    assert table.summaries == 0  # nobody to tell: nothing made for them
    watcher = Watcher()
    watcher.start(lobby.subscribe(watcher, [table]))
    assert watcher.tables == listing([table])

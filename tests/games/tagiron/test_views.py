"""What a Tagiron view shows of its log, and what its log entries' JSON costs to keep."""

from __future__ import annotations

import gc
import weakref

from bodoge.games.tagiron.events import Asked, Declared
from bodoge.games.tagiron.views import log_entry_json


def test_an_entry_is_made_once_for_every_view_and_with_its_tiles_only_where_heard() -> None:
    entry = Declared(seat=0, tiles=("B0", "R1", "B3", "G5", "R9"), right=False, heard_by=(0,))
    mine = log_entry_json(entry, 0, ended=False)
    theirs = log_entry_json(entry, 1, ended=False)
    assert mine["tiles"] == ["B0", "R1", "B3", "G5", "R9"] and "tiles" not in theirs
    assert log_entry_json(entry, 2, ended=False) is theirs  # shared, so a patch sees it unchanged
    assert log_entry_json(entry, 1, ended=True) is mine  # at the end every tile is shown
    assert entry == Declared(seat=0, tiles=entry.tiles, right=False, heard_by=(0,))


def test_an_entry_and_its_json_leave_memory_with_the_game_that_holds_them() -> None:
    # A process-wide cache kept 32,768 entries alive after their tables had gone.
    entry = Asked(seat=1, card="red_sum", choice=None, answers=((0, 7), (2, 12)))
    shown = log_entry_json(entry, 0, ended=False)
    assert shown["answers"] == {"0": 7, "2": 12}
    gone = weakref.ref(entry)
    del entry, shown
    gc.collect()
    assert gone() is None

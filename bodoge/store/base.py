"""What a write of the store raises instead of its acknowledgement: each time, nothing
was written.  (The store's interface is :mod:`bodoge.store.ports`.)"""

from __future__ import annotations

from collections.abc import Collection


class Conflict(Exception):
    """A write broke a uniqueness rule (two moves numbered ``n``, a reused id): nothing changed."""


class StoreUnavailable(Exception):
    """The database cannot write now (its disk is full, it is down): nothing was written.
    A later write may well succeed; the store needs no restart."""


class Fenced(Exception):
    """In a cluster, this process no longer holds these tables at the epochs it claimed.

    The writes of such tables fail with it and change nothing (the writer's ``fence`` hook,
    :mod:`bodoge.cluster.ownership`): another process runs them now.
    """

    def __init__(self, tables: Collection[str]) -> None:
        super().__init__(f"no longer the owner of {', '.join(sorted(tables))}")
        self.tables = frozenset(tables)

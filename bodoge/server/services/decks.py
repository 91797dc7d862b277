"""Uploaded decks (sets of pictures) by id: what an id looks like, and the ids a table's
options name.

Below the edge, which checks uploads (:mod:`bodoge.server.edge.pictures`), because the
housekeeping (:mod:`bodoge.server.services.housekeeping`) and the tables keep the sets
that tables name: neither needs the picture checks to know a set's id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: What a set's id looks like (the server makes ``d`` and 20 hex digits).
SET_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def named_sets(options: Mapping[str, object]) -> set[str]:
    """The ids of picture sets a table's options may name: every string option value that
    looks like one (the server does not know which option a game reads a set from).

    >>> sorted(named_sets({"custom_deck": "d0123456789abcdef0123", "language": "ja",
    ...                    "deck_size": 60, "note": "not an id!"}))
    ['d0123456789abcdef0123', 'ja']
    """
    return {v for v in options.values() if isinstance(v, str) and SET_ID.fullmatch(v)}

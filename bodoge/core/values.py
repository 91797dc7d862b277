"""Checks on values that arrive as JSON, shared by the games and the server.

JSON has one kind of number; Python parses ``2`` as an int and ``2.0`` as a
float, and ``true`` is an int to Python.  A count, a seat or a card number
must be a real whole number, so every such field goes through :func:`is_whole`.

>>> [is_whole(v) for v in (2, 2.0, True, -3, "2", None)]
[True, False, False, True, False, False]
"""

from __future__ import annotations


def is_whole(value: object) -> bool:
    """Whether ``value`` is a whole number as JSON sends it: an int, but not a bool or float."""
    return type(value) is int

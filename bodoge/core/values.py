"""JSON values: the one ``JSON`` alias, and checks on values that arrive as JSON.

JSON has one kind of number; Python parses ``2`` as an int and ``2.0`` as a
float, and ``true`` is an int to Python.  A count, a seat or a card number
must be a real whole number, so every such field goes through :func:`is_whole`.

>>> [is_whole(v) for v in (2, 2.0, True, -3, "2", None)]
[True, False, False, True, False, False]
"""

from __future__ import annotations

from typing import Any, TypeAlias

#: A value as JSON carries it: an object, array, string, number, boolean or null — parsed
#: from a client or the store, or about to be encoded.  ``Any`` rather than a recursive
#: union, so that code reading a parsed message need not narrow at every step; the name
#: says what the value is.  Every module takes it from here.
JSON: TypeAlias = Any


def is_whole(value: object) -> bool:
    """Whether ``value`` is a whole number as JSON sends it: an int, but not a bool or float."""
    return type(value) is int

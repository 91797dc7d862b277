"""A cache keyed by an object's identity: a value made once per object and shared.

A table renders every seat's view after each move, and each view holds the
whole log.  Making each log entry (or the whole log) once and handing the same
value to every view saves that work, and lets the server's view diff find the
log unchanged by identity.  What is looked up is the state's own objects (its
log, its events): the same object comes back for every seat, an equal one
rarely, and some are not hashable (a Tagiron answer may be a list) — so the key
is the object's ``id``, which Python hands to a new object once the old one is
gone.  The cache therefore keeps the object beside its value: while an entry
stands its object lives, so its id names that object and nothing else.

>>> @identity_cache(limit=2)
... def shout(words: list[str], end: str) -> str:
...     return " ".join(words).upper() + end
>>> words = ["hello", "there"]
>>> shout(words, "!") is shout(words, "!")
True
>>> shout(["hello", "there"], "!") is shout(words, "!")  # equal, but another list
False
>>> shout(words, "?")
'HELLO THERE?'
>>> shout.cache_len()  # at most the limit: the oldest value made was dropped
2

The values are shared: read them, never change them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import update_wrapper
from typing import Any, Generic, Protocol, TypeVar, cast

V = TypeVar("V")
V_co = TypeVar("V_co", covariant=True)

_NONE: Hashable = object()  # the variant when none is given: equal to no value passed


class IdentityCached(Protocol, Generic[V_co]):
    """What :func:`identity_cache` makes: the function, and its cache's size and reset."""

    def __call__(self, obj: Any, variant: Hashable = ...) -> V_co: ...

    def cache_len(self) -> int: ...

    def cache_clear(self) -> None: ...


def identity_cache(limit: int) -> Callable[[Callable[..., V]], IdentityCached[V]]:
    """Cache ``make(obj)`` by the identity of ``obj``, or ``make(obj, variant)`` by both.

    ``variant``, any hashable value (compared by value), tells apart the values
    made of one object: a Tagiron log entry with its tiles or without them.

    At most ``limit`` values are kept; beyond that the oldest made is dropped
    (and made again if asked for).  Safe to call from several threads: a hit is
    one dict read, and a value two threads make at once is merely not shared.
    It runs for every log entry of every view, so it is kept lean: a plain
    function and one optional variant, since calling an object with
    ``__call__``, or packing ``*args``, costs markedly more on this path.
    """
    if limit < 1:
        raise ValueError(f"an identity cache keeps at least one value, not {limit}")

    def decorate(make: Callable[..., V]) -> IdentityCached[V]:
        # (id, variant) -> (the object, its value): the object is held so its id is not reused.
        kept: OrderedDict[tuple[Hashable, ...], tuple[Any, V]] = OrderedDict()
        lock = threading.Lock()

        def cached(obj: Any, variant: Hashable = _NONE) -> V:
            key = (id(obj), variant)
            found = kept.get(key)
            if found is not None:  # then it holds obj itself: no other live object has its id
                return found[1]
            value = make(obj) if variant is _NONE else make(obj, variant)
            with lock:
                if len(kept) >= limit:
                    kept.popitem(last=False)
                kept[key] = (obj, value)
            return value

        def cache_clear() -> None:
            with lock:
                kept.clear()

        update_wrapper(cached, make)
        cached.cache_len = kept.__len__  # type: ignore[attr-defined]
        cached.cache_clear = cache_clear  # type: ignore[attr-defined]
        return cast(IdentityCached[V], cached)

    return decorate

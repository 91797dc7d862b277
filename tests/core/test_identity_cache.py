"""The identity cache the games' views share log entries with (``bodoge.core.identity_cache``)."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from bodoge.core.identity_cache import identity_cache


class Thing:
    """An object with an identity, that a weak reference can watch."""

    def __init__(self, name: str) -> None:
        self.name = name


def counted(limit: int):
    """An identity-cached function, and the list of what it made (never the objects themselves)."""
    made: list[tuple[object, tuple[object, ...]]] = []

    @identity_cache(limit=limit)
    def describe(obj: object, *variant: object) -> dict[str, object]:
        made.append((getattr(obj, "name", None), variant))
        return {"name": getattr(obj, "name", None), "variant": variant}

    return describe, made


def test_the_same_object_gets_the_same_value_made_once() -> None:
    describe, made = counted(8)
    thing = Thing("a")
    first = describe(thing)
    assert describe(thing) is first and made == [("a", ())]


def test_an_equal_object_is_another_key() -> None:
    # Lists are not hashable: the cache never hashes the object, only its identity.
    describe, made = counted(8)
    a, b = ["x"], ["x"]
    assert describe(a) is not describe(b) and len(made) == 2
    assert describe(a) is describe(a) and len(made) == 2


def test_each_variant_is_its_own_value() -> None:
    describe, made = counted(8)
    thing = Thing("a")
    seen, unseen = describe(thing, True), describe(thing, False)
    assert seen is not unseen and seen["variant"] == (True,) and unseen["variant"] == (False,)
    assert describe(thing, True) is seen and describe(thing, False) is unseen and len(made) == 2


def test_the_cache_keeps_at_most_its_limit_dropping_the_oldest() -> None:
    describe, made = counted(3)
    things = [Thing(str(n)) for n in range(5)]
    values = [describe(t) for t in things]
    assert describe.cache_len() == 3
    # The last three are still there; the first two were dropped and are made again.
    assert [describe(t) is v for t, v in zip(things[2:], values[2:], strict=True)] == [True] * 3
    assert len(made) == 5
    assert describe(things[0]) is not values[0] and len(made) == 6
    assert describe.cache_len() == 3


def test_a_kept_object_stays_alive_and_a_dropped_one_is_let_go() -> None:
    describe, _ = counted(2)
    thing = Thing("a")
    watch = weakref.ref(thing)
    describe(thing)
    del thing
    gc.collect()
    assert watch() is not None  # held by the cache: its id cannot go to another object
    describe(Thing("b"))
    describe(Thing("c"))  # drops "a", the oldest
    gc.collect()
    assert watch() is None
    describe.cache_clear()
    assert describe.cache_len() == 0


def test_a_new_object_never_gets_a_value_made_for_a_dead_one() -> None:
    # CPython gives a freed object's address (its id) to the next object of that size at once;
    # were the objects not held, the new ones would be found under the dead ones' ids.
    describe, made = counted(4)
    names = [str(n) for n in range(200)]
    for name in names:
        assert describe(Thing(name))["name"] == name
    assert len(made) == 200


def test_threads_get_values_made_for_their_own_objects() -> None:
    describe, _ = counted(16)
    things = [Thing(str(n)) for n in range(64)]
    wrong: list[str] = []

    def look() -> None:
        for _ in range(50):
            for t in things:
                if describe(t)["name"] != t.name:
                    wrong.append(t.name)

    threads = [threading.Thread(target=look) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == [] and describe.cache_len() <= 16


def test_a_cache_holds_at_least_one_value() -> None:
    with pytest.raises(ValueError, match="at least one"):
        identity_cache(limit=0)


def test_the_function_keeps_its_name_and_doc() -> None:
    describe, _ = counted(1)
    assert describe.__name__ == "describe"

"""View patches: any change of a JSON document round-trips, and common changes stay small."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from bodoge.server.runtime import viewdiff

keys = st.text(alphabet="ab/~_", min_size=1, max_size=3)
scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=4)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=25,
)


@given(documents, documents, st.lists(documents, max_size=2))
def test_any_change_round_trips_and_leaves_the_old_document_alone(old, new, events) -> None:
    kept = copy.deepcopy(old)
    ops = viewdiff.diff(old, new, events)
    assert viewdiff.apply(old, ops, events) == new
    assert old == kept
    assert (ops == []) == (old == new)


def test_a_log_entry_that_is_an_event_is_named_not_repeated() -> None:
    entry = {"type": "question", "seat": 2, "card": "red_sum", "answers": {"0": 11}}
    old = {"turn": 2, "deck": 10, "log": [{"type": "pass", "seat": 1}] * 20}
    new = {**old, "turn": 3, "deck": 9, "log": [*old["log"], entry]}
    ops = viewdiff.diff(old, new, [entry])
    assert {"op": "add", "path": "/log/-", "event": 0} in ops
    assert len(ops) == 3 and all("log" not in str(op.get("value")) for op in ops)


def test_one_slot_of_a_row_is_patched_alone() -> None:
    old = {"face_up": ["a", "b", "c", "d", "e", "f"]}
    new = {"face_up": ["a", "b", "c", "x", "e", "f"]}
    assert viewdiff.diff(old, new) == [{"op": "replace", "path": "/face_up/3", "value": "x"}]


def test_keys_with_slashes_and_tildes_are_escaped() -> None:
    old = {"a/b": {"~": 1}}
    new = {"a/b": {"~": 2}}
    assert viewdiff.diff(old, new) == [{"op": "replace", "path": "/a~1b/~0", "value": 2}]
    assert viewdiff.apply(old, viewdiff.diff(old, new)) == new

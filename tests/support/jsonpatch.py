"""Apply an event frame's view patch, written from ``docs/protocol.md`` alone.

The server has its own (``bodoge/server/runtime/viewdiff.py``); this one is the tests' reading of
the documented format, so that a patch the documentation cannot explain fails a test.
Operations are RFC 6902 ``add``, ``remove`` and ``replace``; a value may be given as
``"event": k``, the frame's ``events[k]``.

>>> apply_patch({"log": [1], "turn": 0}, [{"op": "add", "path": "/log/-", "event": 0},
...     {"op": "replace", "path": "/turn", "value": 1}], events=[{"type": "pass"}])
{'log': [1, {'type': 'pass'}], 'turn': 1}
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from bodoge.core.values import JSON


class PatchError(ValueError):
    """An operation that does not apply to the document."""


def apply_patch(doc: JSON, ops: Sequence[dict[str, JSON]], events: Sequence[JSON] = ()) -> JSON:
    """``doc`` with ``ops`` applied in order, as a new document."""
    doc = copy.deepcopy(doc)
    if not isinstance(ops, list):
        raise PatchError(f"a patch is a list of operations, not {ops!r}")
    for op in ops:
        if not isinstance(op, dict) or op.get("op") not in ("add", "remove", "replace"):
            raise PatchError(f"not an operation: {op!r}")
        if "event" in op:
            if not isinstance(events, list) or not (
                type(op["event"]) is int and 0 <= op["event"] < len(events)
            ):
                raise PatchError(f"no event {op['event']!r} in the frame")
            value = copy.deepcopy(events[op["event"]])
        else:
            value = copy.deepcopy(op.get("value"))
        path = op.get("path")
        if not isinstance(path, str) or (path and not path.startswith("/")):
            raise PatchError(f"not a JSON Pointer: {path!r}")
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in path.split("/")[1:]]
        if not tokens:
            if op["op"] == "remove":
                raise PatchError("cannot remove the whole document")
            doc = value
            continue
        parent = doc
        for token in tokens[:-1]:
            parent = _child(parent, token)
        _change(parent, tokens[-1], op["op"], value)
    return doc


def _child(node: JSON, token: str) -> JSON:
    if isinstance(node, dict) and token in node:
        return node[token]
    if isinstance(node, list) and token.isdigit() and int(token) < len(node):
        return node[int(token)]
    raise PatchError(f"no {token!r} in {type(node).__name__}")


def _change(parent: JSON, token: str, op: str, value: JSON) -> None:
    if isinstance(parent, dict):
        if op in ("remove", "replace") and token not in parent:
            raise PatchError(f"{op}: no key {token!r}")
        if op == "remove":
            del parent[token]
        else:
            parent[token] = value
        return
    if not isinstance(parent, list):
        raise PatchError(f"{op}: {type(parent).__name__} has no members")
    if token == "-" and op == "add":
        parent.append(value)
        return
    if not token.isdigit():
        raise PatchError(f"{op}: bad index {token!r}")
    index = int(token)
    if index > len(parent) or (op != "add" and index == len(parent)):
        raise PatchError(f"{op}: index {index} out of range")
    if op == "add":
        parent.insert(index, value)
    elif op == "remove":
        del parent[index]
    else:
        parent[index] = value

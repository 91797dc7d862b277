"""What changed in a seat's view: a JSON Patch, so a move costs a few ops, not a whole view.

After a move a seat is sent the operations that turn the view it had into the
new one (RFC 6902 ``add``, ``remove`` and ``replace``), not the whole view
again.  The diff is generic — it knows no game — and made for how game views
change: a few fields replaced, an entry or two appended to a log, one slot of
a row changed.  One extension keeps frames small: an operation whose value is
equal to one of the frame's events says ``"event": k`` instead of repeating it
(a log entry is usually the very event that caused it).

>>> old = {"turn": 0, "log": [{"type": "pass", "seat": 0}], "face_up": ["a", "b", "c"]}
>>> new = {"turn": 1, "log": [{"type": "pass", "seat": 0}, {"type": "pass", "seat": 1}],
...        "face_up": ["a", "x", "c"]}
>>> ops = diff(old, new, events=[{"type": "pass", "seat": 1}])
>>> for op in ops:
...     print(op)
{'op': 'replace', 'path': '/turn', 'value': 1}
{'op': 'add', 'path': '/log/-', 'event': 0}
{'op': 'replace', 'path': '/face_up/1', 'value': 'x'}
>>> apply(old, ops, events=[{"type": "pass", "seat": 1}]) == new
True
"""

from __future__ import annotations

from collections.abc import Sequence

from bodoge.core.values import JSON

Op = dict[str, JSON]


def diff(old: JSON, new: JSON, events: Sequence[JSON] = ()) -> list[Op]:
    """The operations that turn ``old`` into ``new`` (an empty list when they are equal)."""
    ops: list[Op] = []
    if old != new:
        _diff(old, new, "", ops, events)
    return ops


def _diff(old: JSON, new: JSON, path: str, ops: list[Op], events: Sequence[JSON]) -> None:
    if type(old) is dict and type(new) is dict:
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        for key, value in new.items():
            if key not in old:
                ops.append(_valued("add", f"{path}/{_escape(key)}", value, events))
            elif old[key] != value:
                _diff(old[key], value, f"{path}/{_escape(key)}", ops, events)
        return
    if type(old) is list and type(new) is list:
        size = len(old)
        if len(new) > size and new[:size] == old:  # appended, as logs grow
            ops.extend(_valued("add", f"{path}/-", value, events) for value in new[size:])
            return
        if len(new) == size:
            changed = [i for i in range(size) if old[i] != new[i]]
            if 2 * len(changed) <= size:  # a few slots changed: patch them alone
                for i in changed:
                    _diff(old[i], new[i], f"{path}/{i}", ops, events)
                return
    ops.append(_valued("replace", path, new, events))


def _valued(op: str, path: str, value: JSON, events: Sequence[JSON]) -> Op:
    if type(value) is dict:
        for k, event in enumerate(events):
            if event == value:
                return {"op": op, "path": path, "event": k}
    return {"op": op, "path": path, "value": value}


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def apply(doc: JSON, ops: Sequence[Op], events: Sequence[JSON] = ()) -> JSON:
    """``doc`` with ``ops`` applied, as a new document; ``doc`` itself is not changed.

    Parts that no operation touches are shared with ``doc``.  (The web front-end
    has the same function in JavaScript: ``web/static/js/patch.js``.)
    """
    for op in ops:
        value = events[op["event"]] if "event" in op else op.get("value")
        path = op["path"]
        tokens = path.split("/")[1:]
        if "~" in path:  # rare: a key with "/" or "~" (the bench's clients apply every patch)
            tokens = [_unescape(t) for t in tokens]
        doc = _set(doc, tokens, op["op"], value)
    return doc


def _set(node: JSON, tokens: list[str], op: str, value: JSON) -> JSON:
    if not tokens:
        if op == "remove":
            raise ValueError("cannot remove the whole document")
        return value
    head, rest = tokens[0], tokens[1:]
    if type(node) is list:
        copy = list(node)
        if head == "-":
            if rest or op != "add":
                raise ValueError("'-' only appends")
            copy.append(value)
            return copy
        index = int(head)
        if not rest and op == "remove":
            del copy[index]
        elif not rest and op == "add":
            copy.insert(index, value)
        else:
            copy[index] = _set(node[index], rest, op, value)
        return copy
    if type(node) is dict:
        fields = dict(node)
        if not rest and op == "remove":
            del fields[head]
        elif not rest:
            fields[head] = value
        else:
            fields[head] = _set(node[head], rest, op, value)
        return fields
    raise ValueError(f"no {head!r} in a {type(node).__name__}")

"""A client's copy of each open table, kept current from the frames alone.

A ``table`` snapshot sets a table's state; an ``event`` frame patches the
seat's view (:mod:`bodoge.server.runtime.viewdiff`) and updates the facts it carries
(absent facts are unchanged).  :meth:`Follower.follow` returns each event frame
completed with the whole ``view`` and every fact as they now stand, so a test
can read any frame as the state it led to.
"""

from __future__ import annotations

from bodoge.core.values import JSON
from bodoge.server.runtime import viewdiff
from bodoge.server.runtime.render import FACT_KEYS

Message = dict[str, JSON]


class Follower:
    def __init__(self) -> None:
        #: Per open table: ``n``, the seat's ``view`` and the facts.
        self.states: dict[str, Message] = {}

    def follow(self, message: Message) -> Message:
        kind = message.get("type")
        if kind == "table" and isinstance(message.get("table"), dict):
            self.states[message["table"]["id"]] = {
                key: message.get(key) for key in ("n", "view", *FACT_KEYS)
            }
        elif kind == "event" and message.get("table") in self.states:
            state = self.states[message["table"]]
            if message["n"] != state["n"] + 1:  # a gap: the copy is lost until a snapshot
                del self.states[message["table"]]
                return message
            state["view"] = viewdiff.apply(state["view"], message["patch"], message["events"])
            state["n"] = message["n"]
            state.update({key: message[key] for key in FACT_KEYS if key in message})
            return {**message, **state}
        return message

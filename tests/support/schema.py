"""The protocol's JSON Schemas (``docs/schema/``) as a checker for every frame a test sees.

Each connection a test opens (a ``Client``, a browser page's WebSocket) has a
:class:`FrameChecker`, which validates every frame the server sends on it and records what
is wrong in :data:`VIOLATIONS`; ``tests/conftest.py`` fails the test that was running when
one was recorded.  A message whose ``type`` has no schema is a violation, so a new message
type cannot go out undocumented.

An ``event`` frame carries its seat's view as a patch against the view after the previous
move.  The checker keeps each table's view from the ``table`` snapshot on, applies every
patch (:mod:`tests.support.jsonpatch`) and validates the view it gets, and the events,
against the schemas of the table's game (known from the table summaries it saw).  A later
snapshot of the same seat must equal the view the patches built.

>>> errors({"type": "pong", "id": 3})
[]
>>> errors({"type": "pong", "extra": 1})
["pong: at $: Additional properties are not allowed ('extra' was unexpected)"]
>>> errors({"type": "dance"})
["no schema for a server message of type 'dance'"]
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from jsonschema import Draft202012Validator, TypeChecker, validators
from jsonschema.exceptions import ValidationError, relevance
from jsonschema.protocols import Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from bodoge.core.values import JSON
from tests.support.jsonpatch import PatchError, apply_patch

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "docs" / "schema"
BASE = "https://bodoge.invalid/schema/"

#: Everything wrong that was seen since the last :func:`take_violations`.
VIOLATIONS: list[str] = []
#: Table id -> game id, from every table summary seen (ids are never reused).
TABLE_GAMES: dict[str, str] = {}
#: Keys whose const/enum only tells which branch (message kind, game) a schema is for.
DISCRIMINATORS = frozenset({"type", "game"})


def _is_whole(checker: TypeChecker, instance: object) -> bool:
    # JSON Schema lets 2.0 count as an integer; the protocol does not (nor true).
    return type(instance) is int


def _is_number(checker: TypeChecker, instance: object) -> bool:
    return type(instance) in (int, float)


StrictValidator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine_many(
        {"integer": _is_whole, "number": _is_number}
    ),
)


def schema_files() -> Iterator[Path]:
    return iter(sorted(SCHEMA_DIR.rglob("*.json")))


@cache
def registry() -> Registry:
    """Every schema under ``docs/schema``, by its ``$id`` (which must match its path)."""
    resources = []
    for path in schema_files():
        schema = json.loads(path.read_text())
        uri = BASE + path.relative_to(SCHEMA_DIR).as_posix()
        if schema.get("$id") != uri:
            raise ValueError(f"{path}: $id should be {uri!r}")
        # Without its $schema, a file is validated by StrictValidator too (jsonschema would
        # switch to the stock validator of the $schema it names).
        del schema["$schema"]
        resources.append((uri, DRAFT202012.create_resource(schema)))
    return Registry().with_resources(resources)


@cache
def validator(path: str) -> Validator | None:
    """A validator for the schema file at ``path`` (under ``docs/schema``), if there is one."""
    if not (SCHEMA_DIR / path).is_file():
        return None
    return StrictValidator({"$ref": BASE + path}, registry=registry())


def _discriminates(error: ValidationError) -> bool:
    """Whether ``error`` only says that a branch is for another kind (type) or game."""
    return (
        error.validator in ("const", "enum")
        and bool(error.path)
        and error.path[-1] in DISCRIMINATORS
    )


def innermost(error: ValidationError) -> ValidationError:
    """The error that explains ``error``: down through ``oneOf``/``anyOf``, past the branches
    meant for another message kind or game."""
    while error.context:
        branches: dict[object, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        viable = [errs for errs in branches.values() if not any(map(_discriminates, errs))]
        pool = [sub for errs in (viable or list(branches.values())) for sub in errs]
        error = max(pool, key=relevance)
    return error


def describe(error: ValidationError) -> str:
    """One error, precisely: the innermost failing branch, where it is, shortened."""
    error = innermost(error)
    message = error.message if len(error.message) <= 300 else error.message[:300] + "…"
    return f"at {error.json_path}: {message}"


def validate(path: str, instance: JSON, label: str) -> list[str]:
    """What is wrong with ``instance`` by the schema file at ``path``."""
    check = validator(path)
    if check is None:
        return [f"{label}: no schema {path}"]
    return [f"{label}: {describe(e)}" for e in check.iter_errors(instance)]


def errors(message: JSON, side: str = "server") -> list[str]:
    """What is wrong with one message a ``side`` (``server`` or ``client``) sends."""
    if not isinstance(message, dict):
        return [f"a {side} frame is not a JSON object"]
    kind = message.get("type")
    if not isinstance(kind, str) or validator(f"{side}/{kind}.json") is None:
        return [f"no schema for a {side} message of type {str(kind)[:40]!r}"]
    return validate(f"{side}/{kind}.json", message, kind)


#: Frames already validated and what was wrong with them: a frame broadcast to many
#: connections (lobby, seats, chat) is validated once.
_SEEN: dict[str, list[str]] = {}


def _frame_errors(frame: str, message: JSON) -> list[str]:
    found = _SEEN.get(frame)
    if found is None:
        if len(_SEEN) >= 2048:
            _SEEN.clear()
        found = _SEEN[frame] = errors(message)
    return found


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


@dataclass
class _Watched:
    """What one connection knows of one table: its seat and its view after each move."""

    you: int | None
    views: dict[int, JSON] = field(default_factory=dict)


class FrameChecker:
    """Checks the frames the server sends on one connection; see the module's doc."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.tables: dict[str, _Watched] = {}

    def check(self, frame: str | bytes) -> None:
        """Validate one frame; record violations in :data:`VIOLATIONS`."""
        VIOLATIONS.extend(f"{self.origin}: {e}" for e in self.problems(frame))

    def problems(self, frame: str | bytes) -> list[str]:
        if isinstance(frame, bytes):
            return ["a binary frame"]
        try:
            message = json.loads(frame, parse_constant=_no_constant)
        except ValueError as exc:
            return [f"not JSON ({exc}): {frame[:200]}"]
        found = _frame_errors(frame, message)
        if found:
            return found
        kind = message["type"]
        if kind in ("lobby", "lobby.update"):
            for summary in message["tables"]:
                TABLE_GAMES[summary["id"]] = summary["game"]
        elif kind == "table":
            return self._snapshot(message)
        elif kind == "event":
            return self._event(message)
        elif kind == "table.removed":
            self.tables.pop(message["table"], None)
        return []

    def _snapshot(self, message: dict[str, JSON]) -> list[str]:
        table, n, view = message["table"]["id"], message["n"], message["view"]
        TABLE_GAMES[table] = message["table"]["game"]
        known = self.tables.get(table)
        found = []
        if known is not None and known.you == message["you"]:
            built = known.views.get(n)
            if built is not None and view is not None and built != view:
                found.append(f"table: the view of move {n} is not the one its patches built")
        self.tables[table] = _Watched(message["you"], {n: view})
        return found

    def _event(self, message: dict[str, JSON]) -> list[str]:
        table, n = message["table"], message["n"]
        game = TABLE_GAMES.get(table)
        found = []
        if game is not None:
            for i, event in enumerate(message["events"]):
                found += validate(f"games/{game}/event.json", event, f"event: events[{i}]")
        known = self.tables.get(table)
        before = known.views.get(n - 1) if known is not None else None
        if known is None or before is None:
            return found  # opened on another connection, or caught up from an unseen move
        try:
            view = apply_patch(before, message["patch"], message["events"])
        except (PatchError, LookupError, TypeError) as exc:
            return [*found, f"event: the patch of move {n} does not apply: {exc}"]
        known.views[n] = view
        if game is not None:
            found += validate(f"games/{game}/view.json", view, f"event: the view after move {n}")
        return found


def check_frame(frame: str | bytes, origin: str) -> None:
    """Validate one frame with no connection to follow (views are not rebuilt)."""
    FrameChecker(origin).check(frame)


def take_violations() -> list[str]:
    """The violations recorded so far, forgetting them."""
    found = VIOLATIONS[:]
    VIOLATIONS.clear()
    return found

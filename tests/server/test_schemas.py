"""``docs/schema/``: valid schemas, one per message type, equal to the code's vocabulary.

The frames the server really sends are checked during every server and browser test
(``tests/support/schema.py``); here the schemas themselves are checked against the code
(message types and fields, error codes, games, options, bot levels), every game's views,
events and moves are checked in played games, and the checker is shown to catch what it
should.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import bodoge.core
import bodoge.games
from bodoge.core.errors import GameError
from bodoge.core.game import EndReason, Game
from bodoge.core.values import JSON
from bodoge.games import registry as games
from bodoge.server.runtime.protocol import CLIENT_MESSAGES, ERRORS, SERVER_MESSAGES
from tests.support import schema
from tests.support.schema import BASE, SCHEMA_DIR, FrameChecker, validate

GAME_FILES = {"options.json", "move.json", "view.json", "event.json", "result.json"}


def _load(path: str) -> JSON:
    return json.loads((SCHEMA_DIR / path).read_text())


def _refs(node: JSON) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def test_every_schema_is_valid_and_every_reference_resolves() -> None:
    files = list(schema.schema_files())
    assert len(files) > 40
    registry = schema.registry()  # also checks each $id against its path
    for path in files:
        document = json.loads(path.read_text())
        Draft202012Validator.check_schema(document)
        assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema", path
        resolver = registry.resolver(base_uri=document["$id"])
        for ref in _refs(document):
            resolver.lookup(ref)  # raises for a reference to nothing


def test_a_schema_for_every_message_type_and_no_other() -> None:
    for side, types in (("client", set(CLIENT_MESSAGES)), ("server", SERVER_MESSAGES)):
        assert {p.stem for p in (SCHEMA_DIR / side).glob("*.json")} == types, side
        assert set(_load(f"{side}.json")["properties"]["type"]["enum"]) == types, side
        for kind in types:
            assert _load(f"{side}/{kind}.json")["properties"]["type"] == {"const": kind}


def test_client_schemas_name_exactly_the_fields_the_server_reads() -> None:
    for kind, fields in CLIENT_MESSAGES.items():
        document = _load(f"client/{kind}.json")
        assert set(document["properties"]) == {"type", "id", *fields}, kind
        assert document["additionalProperties"] is False, kind


def _every_game_error_code() -> set[str]:
    """Every ``GameError.code`` anywhere in ``bodoge.core`` and ``bodoge.games``."""
    for package in (bodoge.core, bodoge.games):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)
    found: set[str] = set()
    todo: list[type[GameError]] = [GameError]
    while todo:
        cls = todo.pop()
        found.add(cls.code)
        todo.extend(cls.__subclasses__())
    return found


def test_the_error_code_enum_is_every_code_the_code_defines() -> None:
    enum = _load("server/error.json")["$defs"]["code"]["enum"]
    assert len(enum) == len(set(enum))
    assert set(enum) == set(ERRORS) | _every_game_error_code()


def test_the_end_reasons_are_the_tables_and_each_games_own() -> None:
    """Core's schema knows only the table's reasons; each game's lists exactly its declared
    reasons and the table's."""
    common = _load("common.json")["$defs"]
    table = common["table_end_reason"]["enum"]
    assert len(table) == len(set(table)) and set(table) == {r.value for r in EndReason}
    pattern = Draft202012Validator(common["end_reason"])
    for game_id, game in games().items():
        narrowed = _load(f"games/{game_id}/result.json")["properties"]["reason"]["enum"]
        assert len(narrowed) == len(set(narrowed)), game_id
        assert set(narrowed) == set(game.all_end_reasons()), game_id
        assert EndReason.ABANDONED in narrowed and all(pattern.is_valid(r) for r in narrowed)


def _overrides(game: Game, method: str) -> bool:
    return getattr(type(game), method) is not getattr(Game, method)


def test_every_game_has_its_schemas() -> None:
    common = _load("common.json")["$defs"]
    # Any game's id: a new game adds its own folder of schemas and touches nothing shared.
    assert "enum" not in common["game_id"]
    assert all(re.fullmatch(common["game_id"]["pattern"], game_id) for game_id in games())
    assert {p.name for p in (SCHEMA_DIR / "games").iterdir()} == set(games())
    for game_id, game in games().items():
        files = {p.name for p in (SCHEMA_DIR / "games" / game_id).glob("*.json")}
        expected = GAME_FILES | ({"assist.json"} if _overrides(game, "assist") else set())
        assert files == expected, game_id
        complete = _load(f"games/{game_id}/options.json")["$defs"]["complete"]["required"]
        assert set(complete) == set(game.options_json(game.options({}))), game_id
    assist_refs = _load("server/assist.json")["properties"]["analysis"]["anyOf"]
    assert {r["$ref"] for r in assist_refs} == {
        f"../games/{g}/assist.json" for g, game in games().items() if _overrides(game, "assist")
    }


def _branches(document: JSON) -> dict[str, JSON]:
    """The per-game ``then`` of an ``allOf`` of ``if game == …`` branches."""
    found = {}
    for branch in document["allOf"]:
        game = branch["if"]["properties"]["game"]["const"]
        found[game] = branch["then"]["properties"]
    return found


def test_bot_levels_in_the_schemas_are_the_games() -> None:
    summary = _branches(_load("common.json")["$defs"]["summary"])
    create = _branches(_load("client/table.create.json"))
    assert set(summary) == set(create) == set(games())
    for game_id, game in games().items():
        levels = list(game.bot_levels)
        seats = summary[game_id]["seats"]
        assert seats["items"]["properties"]["level"]["enum"] == [*levels, None]
        assert (seats["minItems"], seats["maxItems"]) == (game.min_seats, game.max_seats)
        timeout_bot = summary[game_id]["settings"]["properties"]["timeout_bot"]["enum"]
        assert timeout_bot == [*levels, None]
        bots = create[game_id]["bots"]["items"]["properties"]["level"]["enum"]
        assert bots == levels


# --- played games: every view, event, move and result matches the game's schemas -----


Policy = Callable[[Any, int, random.Random], Any]


def _play(
    game: Game, raw_options: dict[str, JSON], seed: int, policy: Policy, every: int = 1
) -> list[str]:
    """A whole game, checking its moves, every event as each seat and a spectator see it, and
    their views after every ``every``-th move and at the end."""
    gid = game.id
    options = game.options(raw_options)
    seats = game.seats(options)
    state = game.setup(options, seats, seed)
    rng = random.Random(seed)
    found: list[str] = []
    viewers = [*range(seats), None]
    checked: set[str] = set()

    def validate(path: str, instance: JSON, label: str) -> list[str]:
        key = path + json.dumps(instance, sort_keys=True)
        if key in checked:  # seats often see the same event: validate it once
            return []
        checked.add(key)
        return schema.validate(path, instance, label)

    for step in range(1000):
        over = game.result(state) is not None
        if over or step % every == 0:
            for seat in viewers:
                view = game.view(state, seat)
                found += validate(f"games/{gid}/view.json", view, f"view {seat}")
        if over:
            break
        seat, move = policy(state, seat, rng)
        found += validate(f"games/{gid}/move.json", game.move_to_json(move), "move")
        state, events = game.apply(state, seat, move)
        for event in events:
            for viewer in viewers:
                seen = game.observe(event, viewer)
                if seen is not None:
                    found += validate(f"games/{gid}/event.json", seen, f"event for {viewer}")
    result = game.result(state)
    assert result is not None, "the game did not end"
    return found + validate(f"games/{gid}/result.json", result.to_json(), "result")


def _tagiron_player(state: Any, _: object, rng: random.Random) -> tuple[int, Any]:
    """Mostly questions, so that the cards run out; declarations right and wrong, in and out
    of turn; passes in the last turns."""
    from bodoge.games.tagiron.moves import Declare, Pass
    from bodoge.games.tagiron.rules import questions
    from bodoge.games.tagiron.tiles import sort_hand

    declarers = [s for s in range(state.players) if state.may_declare(s)]
    seat = state.turn
    if declarers and rng.random() < 0.08:
        seat = rng.choice(declarers)
        target = state.target_of(seat)
        if rng.random() < 0.5:
            hand = [t for t in state.hands[seat] if t not in target][:1]
            target = sort_hand([*target[1:], *hand]) if hand else target
        return seat, Declare(tuple(target))
    if state.may_ask(seat):
        return seat, rng.choice(questions(state))
    return seat, Pass()


def _illustori_player(game: Game) -> Policy:
    bot = game.bot(game.bot_levels[0])

    def play(state: Any, _: object, rng: random.Random) -> tuple[int, Any]:
        seat = min(game.to_act(state))
        return seat, bot.act(game.view(state, seat), seat, rng)

    return play


#: Seeds whose games between them reach every phase, seat status and result reason.
TAGIRON_GAMES = [(2, 1), (2, 21), (2, 39), (3, 8), (3, 12), (4, 3), (4, 63)]


@pytest.mark.parametrize(("players", "seed"), TAGIRON_GAMES)
def test_tagiron_views_events_and_moves_match_the_schemas(players: int, seed: int) -> None:
    assert _play(games()["tagiron"], {"players": players}, seed, _tagiron_player, every=3) == []


@pytest.mark.parametrize(
    ("options", "seed"),
    [
        ({"players": 3}, 3),
        ({"players": 4, "secret_votes": True, "vote_limit": True, "language": "en"}, 3),
        ({"players": 7, "ban_same_ends": True, "ban_used_joints": True, "deck_size": 30}, 4),
    ],
)
def test_illustori_views_events_and_moves_match_the_schemas(
    options: dict[str, JSON], seed: int
) -> None:
    game = games()["illustori"]
    assert _play(game, options, seed, _illustori_player(game), every=6) == []


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_tagiron_assistant_matches_its_schema(players: int) -> None:
    game = games()["tagiron"]
    state = game.setup(game.options({"players": players}), players, seed=4)
    for _ in range(3):
        seat = state.turn
        report = game.assist(game.view(state, seat), seat)
        assert validate("games/tagiron/assist.json", report, "analysis") == []
        state, _ = game.apply(state, seat, random.Random(1).choice(rules_questions(state)))


def rules_questions(state: Any) -> list[Any]:
    from bodoge.games.tagiron.rules import questions

    return questions(state)


# --- the checker catches what it should -------------------------------------------------

SUMMARY = {
    "id": "t_abcd1234",
    "game": "tagiron",
    "options": {"players": 2},
    "settings": {
        "turn_seconds": None,
        "timeout_bot": "normal",
        "assistant": None,
        "bot_pace": "normal",
        "rated": False,
        "turn_based": None,
    },
    "assistant": True,
    "status": "playing",
    "host": "p_abcd1234",
    "created_at": "2026-11-30T10:00:00.000Z",
    "n": 0,
    "rematch": None,
    "online": 1,
    "seats": [
        {
            "seat": 0,
            "kind": "human",
            "player": {"id": "p_abcd1234", "name": "Ann"},
            "level": None,
            "connected": True,
        },
        {"seat": 1, "kind": "bot", "player": None, "level": "easy", "connected": True},
    ],
}


def _snapshot() -> dict[str, JSON]:
    game = games()["tagiron"]
    state = game.setup(game.options({"players": 2}), 2, seed=1)
    return {
        "type": "table",
        "table": SUMMARY,
        "you": 0,
        "n": 0,
        "view": game.view(state, 0),
        "to_act": [state.turn],
        "may_act": state.turn == 0,
        "deadlines": [None, None],
        "clock": None,
        "result": None,
        "timed_out": [],
        "chat": [],
    }


def _event(patch: list[JSON], events: list[JSON] | None = None) -> str:
    frame = {
        "type": "event",
        "table": "t_abcd1234",
        "n": 1,
        "seat": 1,
        "events": events or [],
        "patch": patch,
    }
    return json.dumps(frame)


def _problems(*frames: str) -> list[str]:
    checker = FrameChecker("test")
    return [p for frame in frames for p in checker.problems(frame)]


def test_the_checker_accepts_a_good_snapshot_and_patch() -> None:
    turn = {"type": "turn_started", "seat": 0}
    ops = [{"op": "replace", "path": "/deck_count", "value": 14}]
    assert _problems(json.dumps(_snapshot()), _event(ops, [turn])) == []


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        ('{"type": "dance"}', "no schema for a server message of type 'dance'"),
        ('{"type": "pong", "id": 1.0}', "pong: at $.id"),
        ('{"type": "pong", "id": NaN}', "not JSON"),
        ('{"type": "error", "code": "oops", "message": "x"}', "error: at $.code"),
        (
            '{"type": "lobby.update", "version": 1, "tables": [], "removed": ["t_x1"]}',
            "lobby.update: at $.removed[0]",
        ),
        (b"{}", "a binary frame"),
    ],
)
def test_the_checker_catches_a_bad_frame(frame: str | bytes, expected: str) -> None:
    problems = _problems(frame)  # type: ignore[arg-type]
    assert problems and problems[0].startswith(expected), problems


def test_the_checker_catches_a_patch_that_does_not_apply() -> None:
    ops = [{"op": "replace", "path": "/no_such_key", "value": 1}]
    problems = _problems(json.dumps(_snapshot()), _event(ops))
    assert problems and "does not apply" in problems[0]


def test_the_checker_catches_a_patch_that_builds_a_bad_view() -> None:
    ops = [{"op": "replace", "path": "/deck_count", "value": -1}]
    problems = _problems(json.dumps(_snapshot()), _event(ops))
    assert problems and problems[0].startswith("event: the view after move 1: at $.deck_count")


def test_the_checker_catches_another_games_event() -> None:
    vote = {"type": "vote_cast", "votes_cast": 1, "voters": 2}
    problems = _problems(json.dumps(_snapshot()), _event([], [vote]))
    assert problems and problems[0].startswith("event: events[0]: at $.type")


def test_the_checker_catches_a_snapshot_that_contradicts_the_patches() -> None:
    later = _snapshot() | {"n": 1}
    ops = [{"op": "replace", "path": "/deck_count", "value": 14}]
    problems = _problems(json.dumps(_snapshot()), _event(ops), json.dumps(later))
    assert problems == ["table: the view of move 1 is not the one its patches built"]


def test_schema_ids_name_their_files() -> None:
    for path in schema.schema_files():
        assert json.loads(path.read_text())["$id"] == BASE + path.relative_to(SCHEMA_DIR).as_posix()


def test_every_json_route_of_the_http_api_has_its_schema(tmp_path) -> None:
    """``docs/schema/http.json`` names exactly the app's routes (but the pages, the static
    files, ``/metrics`` and ``/ws``), each with a schema file there, and uses every file;
    the routes of a test server (``bodoge serve --test-clock``) included."""
    from starlette.routing import Route

    from bodoge.server.edge.app import create_app
    from bodoge.server.runtime.clock import ManualClock, SystemClock, use_clock
    from bodoge.server.runtime.config import ServerConfig
    from bodoge.store import sqlite_url
    from tests.support import http_schema

    config = ServerConfig(
        db_url=sqlite_url(tmp_path), bot_workers=0, clock=ManualClock(), test_hooks=True
    )
    try:
        app = create_app(config)
    finally:
        use_clock(SystemClock())  # the Server installed the test's clock
    served = {
        f"{method} {route.path}"
        for route in app.routes
        if isinstance(route, Route) and (route.path.startswith("/api/") or route.path == "/healthz")
        for method in sorted(route.methods or ())
        if method != "HEAD"
    }
    index = _load("http.json")
    assert set(index["x-routes"]) == served
    named = {v["every_status"] if isinstance(v, dict) else v for v in index["x-routes"].values()}
    files = {f"http/{p.name}" for p in (SCHEMA_DIR / "http").glob("*.json")}
    assert named | {"http/error.json"} == files
    assert len(http_schema.routes()) == len(served)


def test_the_http_checker_catches_a_bad_answer() -> None:
    from tests.support.http_schema import problems

    summary = {"id": "t_abcd", "game": "tagiron"}  # most of a summary missing
    assert problems("GET", "/api/tables/t_abcd", 200, summary)
    assert problems("GET", "/api/tables/t_abcd", 200, {**summary, "extra": 1})
    assert problems("GET", "/api/stats", 200, {"uptime": 1}) != []
    assert problems("POST", "/api/sign-in", 401, {"error": {"code": "sign_in_failed"}}) == [
        "POST /api/sign-in 401: at $.error: 'message' is a required property"
    ]
    assert problems("GET", "/healthz", 503, {"status": "unavailable", "process": "p"}) == []
    assert problems("PUT", "/api/stats", 200, {}) == [
        "PUT /api/stats 200: no route of docs/schema/http.json answers it"
    ]

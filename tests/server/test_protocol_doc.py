"""``docs/protocol.md`` lists exactly the message types, error codes and limits of the code,
and every example message on it is one its JSON Schema (``docs/schema/``) accepts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import bodoge.core.errors as core_errors
from bodoge.core.errors import GameError
from bodoge.games import registry
from bodoge.server.edge.pictures import PictureError
from bodoge.server.runtime.config import Limits
from bodoge.server.runtime.protocol import CLIENT_MESSAGES, CLOSE_CODES, ERRORS, SERVER_MESSAGES
from tests.support import schema
from tests.support.schema import FrameChecker

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()


def _section(heading: str) -> str:
    """The text under a heading, up to the next heading of the same or a higher level."""
    match = re.search(rf"^(#+) {re.escape(heading)}\s*$", DOC, re.M)
    assert match, f"no heading {heading!r} in docs/protocol.md"
    level = len(match.group(1))
    rest = DOC[match.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[: end.start()] if end else rest


def _first_column(text: str) -> list[str]:
    """The backticked names in the first column of the markdown tables in ``text``."""
    return re.findall(r"^\| `([^`]+)` \|", text, re.M)


def _table_after(text: str, intro: str) -> str:
    start = text.index(intro)
    block = text[start:].split("\n\n", 2)
    return block[1] if len(block) > 1 else ""


def _game_error_codes() -> set[str]:
    for game in registry().values():  # import every game's own errors
        __import__(type(game).__module__)

    def subclasses(cls: type) -> set[type]:
        found = set(cls.__subclasses__())
        for sub in list(found):
            found |= subclasses(sub)
        return found

    return {cls.code for cls in subclasses(GameError)} | {GameError.code}


def test_client_messages_are_exactly_those_documented() -> None:
    documented = _first_column(_section("Messages from the client"))
    assert sorted(documented) == sorted(CLIENT_MESSAGES)
    assert len(documented) == len(set(documented))


def test_client_message_fields_are_documented() -> None:
    rows = re.findall(r"^\| `([^`]+)` \| ([^|]*) \|", _section("Messages from the client"), re.M)
    for kind, fields in rows:
        named = set(re.findall(r"`([a-z_]+)`", fields))
        assert named == set(CLIENT_MESSAGES[kind]), kind


def test_server_messages_are_exactly_those_documented() -> None:
    documented = _first_column(_section("Messages from the server"))
    assert sorted(documented) == sorted(SERVER_MESSAGES)


def test_server_error_codes_are_exactly_those_documented() -> None:
    table = _table_after(_section("Errors"), "Server error codes:")
    assert sorted(_first_column(table)) == sorted(ERRORS)


def test_core_game_error_codes_are_exactly_those_documented() -> None:
    table = _table_after(_section("Errors"), "Game error codes, shared by every game")
    core = {
        cls.code
        for cls in vars(core_errors).values()
        if isinstance(cls, type) and issubclass(cls, GameError)
    }
    assert sorted(_first_column(table)) == sorted(core)


def test_example_game_error_codes_exist() -> None:
    paragraph = _section("Errors").split("Each game adds its own")[1].split("\n\n")[0]
    examples = set(re.findall(r"`([a-z_]+)`", paragraph))
    assert examples, "the doc should name some game error codes"
    assert examples <= _game_error_codes()


def test_no_error_code_means_two_things() -> None:
    clash = (set(ERRORS) & _game_error_codes()) - {"bad_options"}
    assert not clash  # bad_options is shared on purpose: options are the game's


def test_close_codes_are_exactly_those_documented() -> None:
    table = _section("Close codes")
    assert sorted(int(c) for c in re.findall(r"^\| (\d+) \|", table, re.M)) == sorted(CLOSE_CODES)


@pytest.mark.parametrize(
    ("phrase", "value"),
    [
        ("Frames larger than **16 KiB**", Limits().message_bytes == 16 * 1024),
        ("frames beyond **1 MiB**", Limits().frame_bytes == 1024 * 1024),
        ("**20 messages per second**", Limits().rate == 20),
        ("bursts of up to **40**", Limits().burst == 40),
        ("after **40** dropped messages", Limits().strikes == 40),
        ("bounded outgoing queue (256 messages)", Limits().outbox == 256),
        ("last 100 chat lines", Limits().chat_backlog == 100),
        ("at most 1000 moves were missed", Limits().catch_up == 1000),
        ("Text is 1–300 characters", Limits().chat_chars == 300),
        ("Names are 1–24", Limits().name_chars == 24),
    ],
)
def test_documented_limits_match_the_code(phrase: str, value: bool) -> None:
    assert phrase in DOC
    assert value


def test_http_error_codes_are_documented() -> None:
    server = Path(__file__).resolve().parents[2] / "bodoge" / "server"
    source = "".join(p.read_text() for p in server.rglob("*.py"))
    used = set(re.findall(r"(?:error|refused)\(\s*\d{3},\s*\"([a-z_]+)\"", source))
    assert {"unknown_table", "not_finished"} <= used  # the pattern finds them
    documented = set(re.findall(r"`([a-z_]+)`", _section("HTTP")))
    assert used <= documented
    uploads = _picture_error_codes()
    assert {"not_an_image", "empty_deck"} <= uploads
    assert uploads <= documented


def _picture_error_codes() -> set[str]:
    """The codes ``POST /api/decks`` answers a refused picture with."""
    found, todo = set(), [PictureError]
    while todo:
        cls = todo.pop()
        found.add(cls.code)
        todo.extend(cls.__subclasses__())
    return found


# --- every example on the page is a message its schema accepts (docs/schema/) ------------

#: Examples that are not whole JSON on purpose, each with why.
ABBREVIATED = {
    '"views": [{…view before any move…}': "an HTTP reply (history), abbreviated: its views and "
    "events are the game's, whose schemas the message examples exercise",
}


def _json_values(text: str) -> list[object]:
    """The JSON values in ``text``, one after another; ``ValueError`` if anything else is there."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return values
        value, at = decoder.raw_decode(text, at)
        values.append(value)


def _json_blocks() -> list[str]:
    return re.findall(r"^```json\n(.*?)^```", DOC, re.M | re.S)


def _example_messages() -> list[dict[str, object]]:
    """Every whole message in the page's ```json blocks, in order (HTTP bodies left out)."""
    messages = []
    for block in _json_blocks():
        try:
            values = _json_values(block)
        except ValueError:
            continue
        messages += [v for v in values if isinstance(v, dict) and "type" in v]
    return messages


def _session() -> list[tuple[str, dict[str, object]]]:
    """The ``→`` (client) and ``←`` (server) messages of "A whole session", in order."""
    block = re.search(r"^```text\n(.*?)^```", _section("A whole session"), re.M | re.S)
    assert block, "no transcript"
    text, decoder, found = block.group(1), json.JSONDecoder(), []
    for arrow in re.finditer(r"^([→←]) ", text, re.M):
        message, _ = decoder.raw_decode(text, arrow.end())
        found.append(("client" if arrow.group(1) == "→" else "server", message))
    return found


def test_every_json_example_is_whole_or_abbreviated_for_a_reason() -> None:
    unparsed = []
    for block in _json_blocks():
        try:
            _json_values(block)
        except ValueError:
            unparsed.append(block)
    for block in unparsed:
        reasons = [key for key in ABBREVIATED if key in block]
        assert len(reasons) == 1, f"an example that is not JSON, without a reason:\n{block}"
    assert len(unparsed) == len(ABBREVIATED)


def test_every_example_message_matches_its_schema() -> None:
    messages = _example_messages()
    kinds = {m["type"] for m in messages}
    assert kinds >= SERVER_MESSAGES, f"no example of {sorted(SERVER_MESSAGES - kinds)}"
    checker = FrameChecker("docs/protocol.md")  # follows tables: events patch the snapshots
    for message in messages:
        kind = message["type"]
        client = schema.errors(message, "client") if kind in CLIENT_MESSAGES else None
        server = checker.problems(json.dumps(message)) if kind in SERVER_MESSAGES else None
        assert client == [] or server == [], (message, client, server)


def test_the_whole_session_is_messages_their_schemas_accept() -> None:
    session = _session()
    assert len(session) >= 15
    checker = FrameChecker("A whole session")
    for side, message in session:
        if side == "client":
            found = schema.errors(message, "client")
        else:
            found = checker.problems(json.dumps(message))
        assert found == [], (message, found)
    events = [m for side, m in session if m["type"] == "event"]
    assert [e["n"] for e in events] == [1, 2]
    assert checker.tables["t_7q2w9e4r1t"].views.keys() == {0, 1, 2}  # both patches applied


def _games_row(name: str, asides: bool = False) -> dict[str, set[str]]:
    """The backticked names of a row of the Games section's table, per game id (a move's
    JSON by its type); with ``asides``, those in parentheses too (values, remarks)."""
    section = _section("Games")
    header = re.search(r"^\| \| (.+) \|$", section, re.M)
    assert header, "no games table"
    ids = re.findall(r"\(`([a-z_]+)`", header.group(1))
    row = re.search(rf"^\| {re.escape(name)} \| (.+) \|$", section, re.M)
    assert row, f"no row {name!r}"
    cells = row.group(1).split(" | ")
    assert len(cells) == len(ids), name
    return {
        game: {
            re.sub(r'^\{"type": "([a-z_]+)".*', r"\1", item)
            for item in re.findall(r"`([^`]+)`", cell if asides else re.sub(r"\(.*?\)", "", cell))
        }
        for game, cell in zip(ids, cells, strict=True)
    }


def test_each_games_view_keys_are_exactly_those_documented() -> None:
    """The "view keys" row (with the keys every view shares) against real views: every
    seat's and a spectator's, of random games at every player count."""
    from tests.core.harness import games as played_games

    shared = set(_first_column(_table_after(_section("Games"), "| in every view |")))
    shared |= {"players", "you", "turn", "to_act", "result", "hand_counts", "deck_count"}
    listed = _games_row("view keys")
    assert set(listed) == set(registry())
    for game_id, keys in listed.items():
        seen: set[str] = set()
        counts = set()
        for played in played_games(game_id):
            counts.add(played.seats)
            for state in [*played.states[:: max(1, len(played.states) // 8)], played.final]:
                for viewer in played.viewers:
                    view = played.game.view(state, viewer)
                    assert isinstance(view, dict)
                    seen |= set(view)
        optional = {"hand_counts", "deck_count"} - seen  # only in a game with hands, a deck
        assert seen == (shared - optional) | keys, (game_id, seen ^ ((shared - optional) | keys))
        assert len(counts) > 1, game_id


def test_each_games_options_moves_events_and_levels_are_exactly_those_documented() -> None:
    from tests.core.harness import games as played_games

    options, levels = _games_row("options"), _games_row("bot levels")
    moves, events = _games_row("moves", asides=True), _games_row("events")
    for game_id, game in registry().items():
        assert options[game_id] == set(game.options_json(game.options({}))), game_id
        assert levels[game_id] == set(game.bot_levels), game_id
        played = played_games(game_id)
        seen_moves = {game.move_to_json(m)["type"] for p in played for _, m in p.moves}
        assert seen_moves <= moves[game_id], (game_id, seen_moves - moves[game_id])
        seen_events = {
            observed["type"]
            for p in played
            for caused in p.events
            for e in caused
            if (observed := game.observe(e, None)) is not None
        }
        assert seen_events <= events[game_id], (game_id, seen_events - events[game_id])

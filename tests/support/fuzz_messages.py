"""What the protocol fuzzer sends: hypothesis strategies for actions, and the actions.

An action is a small frozen dataclass (so hypothesis prints it readably when a run fails)
with an ``async run(fuzz)`` that sends its frames through :meth:`Fuzzer.send_frames`, which
checks the invariants.  The draws never look at the world (hypothesis needs the same draws
to mean the same thing from one example to the next): a draw names "the second Tagiron table
in play" or "some seat's view" (a :class:`Slot`, an index), and the frame is filled in from
the world when it is sent.  The frames are:

* well-formed requests of every type with random values;
* mutations of them: fields dropped or added, values of the wrong kind or size, floats
  where whole numbers are expected, ``NaN``/``Infinity``/``1e400`` written into the text,
  huge numbers, deep nesting, odd unicode, duplicate keys, a wrong ``type``;
* frames that are not requests at all: broken JSON, binary frames, frames over the limits;
* legal moves (so the games go on), moves out of turn or for another seat, repeats of an
  earlier request with its id, bursts over the rate limit, reconnections.

Where the protocol says a request must be refused (an unknown field, a table id that cannot
exist, a float for a seat...), the action says so and the fuzzer checks it was.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

from bodoge.core.values import JSON
from bodoge.games.illustori.options import _KEYS as ILLUSTORI_OPTIONS
from bodoge.games.tagiron.cards import CARDS
from bodoge.games.tagiron.tiles import ALL_TILES, sort_key
from bodoge.server.runtime.protocol import CLIENT_MESSAGES, TABLE_ID
from tests.server.tagiron_play import random_move
from tests.support.fuzz import (
    FUZZED_ROLES,
    LIMIT,
    Literal,
    Pairs,
    _utf8,
    dump,
    strict_loads,
)

if TYPE_CHECKING:
    from tests.support.fuzz import Conn, Fuzzer

Message = dict[str, JSON]

LEVELS = {"tagiron": ("easy", "normal", "expert"), "illustori": ("easy", "normal")}
#: Keys the games and the server read inside nested objects (options, settings, bots, moves):
#: an extra key that is none of these is refused wherever it is added.
NESTED_KEYS = frozenset(ILLUSTORI_OPTIONS) | {
    "turn_seconds",
    "timeout_bot",
    "assistant",
    "seat",
    "level",
    "type",
    "card",
    "choice",
    "tiles",
    "word",
    "head",
    "tail",
    "cards",
    "ok",
}
EXTRA_KEYS = ("seat", "player", "token", "Type", "type ", "__proto__", "ｓｅａｔ", "", "\x00", "n")
ODD_TYPES = (
    "Ping",
    "ping ",
    "table.Create",
    "",
    "hello\x00",
    "lobby.x",
    "ｐｉｎｇ",
    "event",
    "welcome",
)
TABLE_TYPES = frozenset(t for t, fields in CLIENT_MESSAGES.items() if "table" in fields)
#: The fuzzer's tables never run a turn clock while it runs: a timed-out turn is a move
#: nobody's request made, which would blur the "a refused request changes nothing" check.
MIN_FUZZ_TURN_SECONDS = 600


# --- values -------------------------------------------------------------------------------

ODD_STRINGS = (
    "",
    " ",
    "\t\n",
    "\x00",
    "a\x00b",
    "\x7f",
    "\u200b",  # zero width space
    "\u200d",  # zero width joiner
    "\u202eevil",  # right-to-left override
    "e\u0301\u0301\u0301",  # combining marks
    "👩‍👩‍👧‍👦",
    "🂡" * 24,
    "\ufeffbom",
    "\ufffe\uffff",
    "\U0010ffff",
    "\u2028\u2029",
    "ＡＢＣ",
    "ｔａｂｌｅ",
    "<script>alert(1)</script>",
    "'; DROP TABLE players; --",
    "${jndi:ldap://x}",
    "%s%n%x",
    "../../etc/passwd",
    "\ud800",  # a lone surrogate: the server must refuse the frame (bad_json)
    "\udfff\ud800",
    "\ud83d\ude00",  # a surrogate pair: a real emoji
    "null",
    "NaN",
)
HUGE_INTS = (
    2**31,
    2**31 - 1,
    -(2**31),
    2**53,
    2**53 + 1,
    2**63,
    -(2**63),
    2**64,
    10**20,
    -(10**30),
    10**100,
)
NON_FINITE = (
    Literal("NaN"),
    Literal("Infinity"),
    Literal("-Infinity"),
    Literal("1e400"),
    Literal("-1e400"),
    Literal("1E+999"),
    float("nan"),
    float("inf"),
)
#: Numbers the server reads but that are not what anyone expects.
ODD_NUMBERS = (
    0.0,
    -0.0,
    0.5,
    1e308,
    -1e308,
    5e-324,
    0.1 + 0.2,
    Literal("1e2"),
    Literal("-0"),
    Literal("1" * 400),
)


def ints() -> st.SearchStrategy[int]:
    return st.one_of(st.integers(-3, 10), st.sampled_from(HUGE_INTS))


def json_values(max_leaves: int = 8) -> st.SearchStrategy[JSON]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        ints(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(ODD_NUMBERS),
        st.text(max_size=12),
        st.sampled_from(ODD_STRINGS),
    )
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(st.text(max_size=6), children, max_size=4),
        ),
        max_leaves=max_leaves,
    )


def deep(depth: int, kind: str) -> JSON:
    """A value nested ``depth`` levels: ``[[[...]]]`` or ``{"a": {"a": ...}}``."""
    if kind == "list":
        return Literal("[" * depth + "]" * depth)
    return Literal('{"a":' * depth + "1" + "}" * depth)


NAMES = st.one_of(
    st.sampled_from(["Ann", "はなこ", "<b>x</b>", " Bob ", "x" * 24, "x" * 25, "   ", "a\nb"]),
    st.sampled_from(ODD_STRINGS),
    st.text(min_size=1, max_size=26),
    st.none(),
    ints(),
)
TEXTS = st.one_of(
    st.sampled_from(["gg", "<i>gg</i>", "a\nb\tc", "x" * 300, "x" * 301, "   ", "あ" * 300]),
    st.sampled_from(ODD_STRINGS),
    st.text(min_size=1, max_size=40),
    ints(),
    st.none(),
)


# --- values taken from the world when a frame is sent ------------------------------------------


@dataclass(frozen=True)
class Slot:
    """A value the world supplies when the frame is sent (a table id, a token).

    Strategies never look at the world: it changes from one example to the next, and
    hypothesis needs the same draws to mean the same thing.  So a draw names "the second
    Tagiron table in play" and the frame is filled in when it is sent.
    """

    what: str  # "table" (in play), "deleted" (a deleted table), "token", "tweaked_token"
    index: int
    game: str | None = None


def tables_in_play(fuzz: Fuzzer) -> list[str]:
    """The fixed tables and the latest ones the examples made, not deleted."""
    ids = dict.fromkeys([*fuzz.fixed.values(), *list(fuzz.created)[-8:]])
    return [t for t in ids if fuzz.tables.get(t) and fuzz.tables[t].status != "deleted"]


def resolve(value: JSON, fuzz: Fuzzer) -> JSON:
    """``value`` with every :class:`Slot` filled in from the world as it is now."""
    if isinstance(value, Slot):
        if value.what == "table":
            ids = tables_in_play(fuzz)
            of_game = [t for t in ids if fuzz.tables[t].game == value.game]
            ids = of_game or ids or ["t_none"]
            return ids[value.index % len(ids)]
        if value.what == "deleted":
            gone = sorted(fuzz.dead)[-5:] or ["t_gone"]
            return gone[value.index % len(gone)]
        tokens = sorted({t for t in fuzz.tokens.values() if t})
        if not tokens:
            return None
        token = tokens[value.index % len(tokens)]
        if value.what == "tweaked_token":
            token = token[:-1] + ("A" if token[-1] != "A" else "B")
        return token
    if isinstance(value, dict):
        return {k: resolve(v, fuzz) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, fuzz) for v in value]
    if isinstance(value, Pairs):
        return Pairs(tuple((k, resolve(v, fuzz)) for k, v in value.items))
    return value


def table_ids(game: str) -> st.SearchStrategy[JSON]:
    """Mostly tables in play; also deleted ones, ids that cannot exist and non-ids."""
    known = st.builds(Slot, st.just("table"), st.integers(0, 11), st.just(game))
    return st.one_of(
        known,
        known,
        known,
        known,
        st.builds(Slot, st.just("deleted"), st.integers(0, 4)),
        # Server ids have 10 characters after "t_": these well-formed ones name no table.
        st.text(string.ascii_lowercase + string.digits, min_size=4, max_size=9).map(
            lambda s: "t_" + s
        ),
        st.sampled_from(["", "t_", "T_ABCD", "t_abc", "t_" + "a" * 31, " t_abcd", "t_ａｂｃｄ"]),
        st.sampled_from(ODD_STRINGS),
        st.one_of(st.none(), ints(), st.lists(st.just("t_abcd"), max_size=2)),
    )


def seats() -> st.SearchStrategy[JSON]:
    return st.one_of(st.integers(-1, 4), st.integers(0, 3), st.sampled_from(HUGE_INTS))


def tagiron_moves() -> st.SearchStrategy[Message]:
    cards = st.one_of(st.sampled_from(sorted(CARDS)), st.sampled_from(ODD_STRINGS))
    tiles = st.lists(st.sampled_from([*ALL_TILES, "G0", "R10", "r1", ""]), max_size=6)
    return st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("ask"), "card": cards},
            optional={"choice": st.one_of(st.none(), st.integers(-1, 10))},
        ),
        st.fixed_dictionaries({"type": st.just("declare"), "tiles": tiles}),
        st.just({"type": "pass"}),
    )


def illustori_moves() -> st.SearchStrategy[Message]:
    words = st.one_of(
        st.sampled_from(["apple", "egg", "りんご", "ごりら", "らっぱ", "a" * 40, "a" * 41]),
        st.sampled_from(ODD_STRINGS),
        st.text(max_size=12),
    )
    card = st.one_of(st.integers(-1, 61), st.sampled_from(HUGE_INTS))
    ends = {"head": st.one_of(st.none(), words), "tail": st.one_of(st.none(), words)}
    return st.one_of(
        st.fixed_dictionaries({"type": st.just("first_word"), "word": words}, optional=ends),
        st.fixed_dictionaries(
            {"type": st.just("play"), "card": card, "word": words}, optional=ends
        ),
        st.fixed_dictionaries({"type": st.just("exchange"), "cards": st.lists(card, max_size=6)}),
        st.fixed_dictionaries({"type": st.just("vote"), "ok": st.booleans()}),
        st.just({"type": "vote_timeout"}),
    )


def options(game: str) -> st.SearchStrategy[JSON]:
    if game == "illustori":
        values = {
            "players": st.integers(2, 9),
            "language": st.sampled_from(["ja", "en", "fr", ""]),
            "ban_same_ends": st.booleans(),
            "ban_used_joints": st.booleans(),
            "vote_limit": st.booleans(),
            "secret_votes": st.booleans(),
            "show_rules": st.booleans(),
            "deck_size": st.integers(25, 205),
            "deck_seed": st.one_of(st.none(), st.integers(0, 2**53)),
            "custom_deck": st.one_of(st.none(), st.sampled_from(["dabc", "no such deck", ""])),
        }
        return st.fixed_dictionaries({}, optional=values)
    return st.fixed_dictionaries({}, optional={"players": st.integers(1, 5)})


def settings(game: str) -> st.SearchStrategy[JSON]:
    turn = st.one_of(
        st.none(),
        st.integers(MIN_FUZZ_TURN_SECONDS, 3600),
        st.sampled_from([0, 4, 3601, -5, 10**9]),
    )
    level = st.one_of(st.none(), st.sampled_from([*LEVELS.get(game, ()), "godlike", ""]))
    return st.fixed_dictionaries(
        {},
        optional={
            "turn_seconds": turn,
            "timeout_bot": level,
            "assistant": st.one_of(st.none(), st.booleans()),
            "rated": st.booleans(),
        },
    )


@st.composite
def requests(draw: st.DrawFn) -> Message:
    """A request of some type with fields of the right shape and random values."""
    kind = draw(
        st.sampled_from(
            ["move"] * 8
            + ["table.join"] * 4
            + ["table.open"] * 4
            + ["table.create"] * 5
            + ["table.add_bot"] * 3
            + ["table.remove_bot"] * 3
            + ["table.remove_player"] * 2
            + ["chat"] * 3
            + ["hello"] * 3
            + ["rename"] * 2
            + ["table.start"] * 2
            + ["table.close"] * 2
            + ["table.leave", "assist", "ping", "lobby.subscribe", "lobby.unsubscribe"]
            + ["table.rematch", "table.settings"]
        )
    )
    message: Message = {"type": kind}
    if kind == "hello":
        token = st.one_of(
            st.none(),
            st.builds(Slot, st.sampled_from(["token", "tweaked_token"]), st.integers(0, 9)),
            st.text(string.ascii_letters + string.digits + "-_", min_size=43, max_size=43),
            st.sampled_from(["", "x" * 15, "x" * 129, "null"]),
            ints(),
        )
        fields = {"token": token, "name": NAMES, "lang": st.sampled_from(["ja", "en", "xx"])}
        message.update(draw(st.fixed_dictionaries({}, optional=fields)))
    elif kind == "rename":
        message["name"] = draw(NAMES)
    elif kind == "table.create":
        game = draw(st.sampled_from(["tagiron", "tagiron", "illustori", "chess", "", "TAGIRON"]))
        message["game"] = game
        extra = {
            "options": st.one_of(options(game), st.none()),
            "settings": st.one_of(settings(game), st.none()),
            "bots": st.lists(
                st.fixed_dictionaries(
                    {"seat": seats(), "level": st.sampled_from([*LEVELS.get(game, ()), "x"])}
                ),
                max_size=4,
            ),
        }
        message.update(draw(st.fixed_dictionaries({}, optional=extra)))
    elif kind in TABLE_TYPES:
        game = draw(st.sampled_from(["tagiron", "tagiron", "illustori"]))
        message["table"] = draw(table_ids(game))
        if kind == "table.join":
            message.update(draw(st.fixed_dictionaries({}, optional={"seat": seats()})))
        elif kind in ("table.add_bot", "table.remove_bot", "table.remove_player"):
            message["seat"] = draw(seats())
            if kind == "table.add_bot":
                message["level"] = draw(st.sampled_from([*LEVELS.get(game, ("easy",)), "x"]))
        elif kind == "table.open":
            since = st.one_of(st.none(), st.integers(-2, 30), st.sampled_from(HUGE_INTS))
            optional = {"since": since, "chat_since": since}
            message.update(draw(st.fixed_dictionaries({}, optional=optional)))
        elif kind == "move":
            message["move"] = draw(tagiron_moves() if game == "tagiron" else illustori_moves())
        elif kind == "chat":
            message["text"] = draw(TEXTS)
        elif kind == "table.settings":
            message["settings"] = draw(st.one_of(settings(game), st.none()))
    return message


# --- what must be refused --------------------------------------------------------------------


def _int(value: JSON) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _name_ok(value: JSON) -> bool:
    return (
        isinstance(value, str)
        and 1 <= len(value.strip()) <= 24
        and not re.search(r"[\x00-\x1f\x7f-\x9f]", value)
        and _utf8(value)
    )


def _text_ok(value: JSON) -> bool:
    return (
        isinstance(value, str)
        and bool(value.strip())
        and len(value) <= 300
        and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", value)
        and _utf8(value)
    )


def as_read(message: JSON) -> JSON:
    """``message`` as the server reads it (``"\\ud83d\\ude00"`` is one emoji), or ``None``."""
    try:
        return strict_loads(dump(message, ascii=True))
    except (ValueError, RecursionError):
        return None


def must_refuse(message: JSON, deleted: set[str]) -> bool:
    """Whether the protocol says this request is refused, whatever the tables hold now.

    Only what is certain from the request itself: the shape of its fields, a table id that
    cannot exist, an unknown game, a bad name or chat text.
    """
    if not isinstance(message, dict):
        return False
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_MESSAGES:
        return False
    if kind in TABLE_TYPES:
        table = message.get("table")
        if not isinstance(table, str) or not TABLE_ID.fullmatch(table):
            return True
        impossible = len(table) != 12 or table in deleted
        if impossible and kind != "table.close":
            return True
    for key in ("seat", "since", "chat_since"):
        if message.get(key) is not None and not _int(message[key]):
            return True
    if kind in ("table.add_bot", "table.remove_bot", "table.remove_player") and not _int(
        message.get("seat")
    ):
        return True
    if kind == "table.add_bot" and not isinstance(message.get("level"), str):
        return True
    if kind == "move" and not isinstance(message.get("move"), dict):
        return True
    if kind == "table.settings" and not isinstance(message.get("settings"), dict):
        return True
    if kind == "chat" and not _text_ok(message.get("text")):
        return True
    if kind == "rename" and not _name_ok(message.get("name")):
        return True
    if kind == "hello" and message.get("token") is None and not _name_ok(message.get("name")):
        return True
    if kind == "hello" and message.get("lang") is not None and not isinstance(message["lang"], str):
        return True
    if kind == "table.create":
        if message.get("game") not in ("tagiron", "illustori"):
            return True
        for key in ("options", "settings"):
            if message.get(key) is not None and not isinstance(message[key], dict):
                return True
        if message.get("bots") is not None and not isinstance(message["bots"], list):
            return True
    return False


def no_turn_clock(message: JSON) -> JSON:
    """The same request, but a table it creates never times a turn out while the fuzzer runs."""
    if isinstance(message, dict) and message.get("type") == "table.create":
        settings = message.get("settings")
        if isinstance(settings, dict):
            seconds = settings.get("turn_seconds")
            if _int(seconds) and 5 <= seconds < MIN_FUZZ_TURN_SECONDS:
                return {**message, "settings": {**settings, "turn_seconds": seconds + 600}}
    return message


# --- mutations ---------------------------------------------------------------------------------

Path = tuple[Any, ...]


def _paths(value: JSON, prefix: Path = ()) -> list[Path]:
    """Every place inside ``value`` (keys of objects, indexes of lists)."""
    found: list[Path] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            found.append((*prefix, key))
            found += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            found.append((*prefix, i))
            found += _paths(inner, (*prefix, i))
    return found


def _get(value: JSON, path: Path) -> JSON:
    for step in path:
        value = value[step]
    return value


def _set(value: JSON, path: Path, new: JSON) -> JSON:
    """A copy of ``value`` with ``path`` set to ``new`` (``_DROP``: removed)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
        inner = _set(copy[head], rest, new) if rest else new
        if inner is _DROP:
            del copy[head]
        else:
            copy[head] = inner
        return copy
    copy_list = list(value)
    inner = _set(copy_list[head], rest, new) if rest else new
    if inner is _DROP:
        del copy_list[head]
    else:
        copy_list[head] = inner
    return copy_list


_DROP = object()


@dataclass(frozen=True)
class Mutated:
    message: JSON
    must_fail: bool
    note: str


@st.composite
def mutations(draw: st.DrawFn, base: Message) -> Mutated:
    """``base`` with one thing wrong (or odd); ``must_fail`` when it has to be refused."""
    paths = [p for p in _paths(base) if p != ("type",)]
    ints_at = [p for p in paths if _int(_get(base, p))]
    strs_at = [p for p in paths if isinstance(_get(base, p), str)]
    dicts_at = [(), *(p for p in paths if isinstance(_get(base, p), dict))]
    kinds = ["drop", "extra", "extra", "retype", "retype", "nonfinite", "deep", "type", "dup"]
    if ints_at:  # a float or a bool where a whole number belongs: a classic
        kinds += ["float_for_int"] * 6 + ["bool_for_int"] * 3 + ["huge"]
    if strs_at:
        kinds += ["unicode", "long"]
    kind = draw(st.sampled_from(kinds))
    everywhere = paths or [("type",)]
    if kind == "drop":
        path = draw(st.sampled_from([("type",), *everywhere]))
        return Mutated(_set(base, path, _DROP), path == ("type",), f"drop {path}")
    if kind == "extra":
        where = draw(st.sampled_from(dicts_at))
        allowed = CLIENT_MESSAGES[base["type"]] | {"type", "id"} if where == () else NESTED_KEYS
        key = draw(
            st.one_of(
                st.sampled_from(EXTRA_KEYS),
                st.text(max_size=8),
            ).filter(lambda k: k not in allowed and k not in _get(base, where))
        )
        value = draw(json_values(4))
        return Mutated(_set(base, (*where, key), value), True, f"extra {key!r} at {where}")
    if kind == "retype":
        path = draw(st.sampled_from(everywhere))
        old = _get(base, path)
        value = draw(json_values(6).filter(lambda v: type(v) is not type(old)))
        return Mutated(_set(base, path, value), False, f"retype {path}")
    if kind == "float_for_int":
        path = draw(st.sampled_from(ints_at))
        old = _get(base, path)
        return Mutated(_set(base, path, float(old)), True, f"float for int at {path}")
    if kind == "bool_for_int":
        path = draw(st.sampled_from(ints_at))
        old = _get(base, path)
        return Mutated(_set(base, path, old != 0), True, f"bool for int at {path}")
    if kind == "huge":
        path = draw(st.sampled_from(ints_at))
        value = draw(st.sampled_from([*HUGE_INTS, Literal("9" * 400), Literal("1" + "0" * 5000)]))
        return Mutated(_set(base, path, value), False, f"huge number at {path}")
    if kind == "nonfinite":
        path = draw(st.sampled_from(everywhere))
        value = draw(st.sampled_from(NON_FINITE))
        return Mutated(_set(base, path, value), True, f"{value} at {path}")
    if kind == "deep":
        path = draw(st.sampled_from(everywhere))
        depth = draw(st.one_of(st.integers(1, 60), st.integers(3000, 6000)))
        shape = draw(st.sampled_from(["list", "object"]))
        return Mutated(_set(base, path, deep(depth, shape)), False, f"{depth} deep at {path}")
    if kind == "unicode":
        path = draw(st.sampled_from(strs_at))
        value = draw(st.sampled_from(ODD_STRINGS))
        return Mutated(_set(base, path, value), False, f"odd text at {path}")
    if kind == "long":
        path = draw(st.sampled_from(strs_at))
        size = draw(st.sampled_from([64, 65, 300, 301, 5000, LIMIT + 10]))
        char = draw(st.sampled_from(["x", "あ", "😀"]))
        return Mutated(_set(base, path, char * size), False, f"{size} × {char!r} at {path}")
    if kind == "type":
        value = draw(
            st.one_of(
                st.sampled_from(ODD_TYPES),
                st.text(max_size=10).filter(lambda t: t not in CLIENT_MESSAGES),
                json_values(3).filter(lambda v: not isinstance(v, str)),
            )
        )
        return Mutated({**base, "type": value}, True, f"type {value!r}")
    # dup: the same key twice; JSON parsers keep the last one, and so must the server.
    key = draw(st.sampled_from(sorted(base)))
    first = draw(json_values(3))
    items = [(key, first), *base.items()]
    return Mutated(Pairs(tuple(items)), False, f"duplicate key {key!r}")


# --- raw frames ---------------------------------------------------------------------------------

RAW_EDITS: dict[str, Callable[[str, int], str]] = {
    "truncate": lambda text, k: text[: max(1, k % max(1, len(text)))],
    "append": lambda text, k: text + [",", "}", "]", " ", "\n\t", "x", "{}", "\x00", "//"][k % 9],
    "prepend": lambda text, k: ["\ufeff", " ", "\n", "[", "x", "\x00"][k % 6] + text,
    "single_quotes": lambda text, k: text.replace('"', "'", 1 + k % 3),
    "raw_control": lambda text, k: text.replace('"', '"' + "\n\x01\x1f"[k % 3], 2),
    "bad_escape": lambda text, k: text.replace('"', '"\\' + "xqU'"[k % 4], 2),
    "case": lambda text, k: text.replace("null", "NULL").replace("true", "True") + " " * (k % 2),
    "empty": lambda text, k: "",
}

NOT_OBJECTS = st.one_of(
    st.sampled_from(["[]", "[1, 2]", '"hello"', "42", "null", "true", "{}", "{,}", "{not json"]),
    json_values(5).filter(lambda v: not isinstance(v, dict)).map(dump),
    st.sampled_from([Literal("[" * 5000 + "]" * 5000), Literal("[" * 40 + "]" * 40)]).map(dump),
)


# --- actions -------------------------------------------------------------------------------------


def _conn(fuzz: Fuzzer, role: str) -> Conn:
    return fuzz.conns[role]


@dataclass(frozen=True)
class Send:
    """One frame: a request (with a fresh id in some form, or none), mutated or not."""

    role: str
    message: JSON
    #: Add a fresh ``id`` of this form (see :meth:`Fuzzer.fresh_id`); ``None``: no id.
    id_form: str | None = "int"
    #: A text-level edit after writing the JSON (see :data:`RAW_EDITS`), with its parameter.
    raw: tuple[str, int] | None = None
    ascii: bool = False
    #: The mutation makes it a request the server must refuse (see also :func:`must_refuse`).
    must_fail: bool = False
    note: str = ""

    def frame(self, fuzz: Fuzzer) -> tuple[str | bytes, bool]:
        """The frame to send, and whether the server must refuse it."""
        if isinstance(self.message, bytes):
            return self.message, True
        message = no_turn_clock(resolve(self.message, fuzz))
        must_fail = self.must_fail or must_refuse(as_read(message), fuzz.dead)
        if self.id_form is not None:
            rid = fuzz.fresh_id(self.id_form)
            if isinstance(message, dict) and "id" not in message:
                message = {**message, "id": rid}
            elif isinstance(message, Pairs):
                message = Pairs((*message.items, ("id", rid)))
        text = message if isinstance(message, str) else dump(message, ascii=self.ascii)
        if self.raw is not None:
            edit, k = self.raw
            text = RAW_EDITS[edit](text, k)
        return text, must_fail

    async def run(self, fuzz: Fuzzer) -> None:
        frame, must_fail = self.frame(fuzz)
        await fuzz.send_frames(_conn(fuzz, self.role), [frame], must_fail=must_fail, what=self.note)


def seated(fuzz: Fuzzer) -> list[tuple[str, str]]:
    """(role, table) for every seat a role's player holds at a table in play, with its view."""
    tables = set(tables_in_play(fuzz))
    return sorted(
        (role, table_id)
        for (player, table_id) in fuzz.views
        for role in FUZZED_ROLES
        if role in fuzz.conns and fuzz.conns[role].player_id == player and table_id in tables
    )


@dataclass(frozen=True)
class Play:
    """A move made from a seat's own view: legal when the seat may act (so games go on).

    ``pick`` chooses among the seats the roles hold (see :func:`seated`); with ``sender``
    another role sends the move: a move for someone else's seat.
    """

    pick: int
    seed: int
    sender: str | None = None

    async def run(self, fuzz: Fuzzer) -> None:
        seats = seated(fuzz)
        if not seats:
            role = self.sender or "S"
            await fuzz.send_frames(_conn(fuzz, role), [dump({"type": "ping", "id": fuzz.new_id()})])
            return
        role, table = seats[self.pick % len(seats)]
        state = fuzz.views[(_conn(fuzz, role).player_id, table)]
        sender = _conn(fuzz, self.sender or role)
        move = legal_move(state, random.Random(self.seed))
        frame = dump({"type": "move", "table": table, "move": move, "id": fuzz.new_id()})
        info = fuzz.tables.get(table)
        stranger = info is not None and sender.player_id not in info.humans()
        what = f"{sender.role} plays {move} for {role}"
        await fuzz.send_frames(sender, [frame], must_fail=stranger, what=what)


def legal_move(state: Message, rng: random.Random) -> Message:
    """A move this seat may well make now, from its view alone (like a client)."""
    view = state["view"]
    if view.get("game") == "tagiron":
        if not state.get("may_act"):
            return {
                "type": "ask",
                "card": rng.choice(view["face_up"] or ["total_sum"]),
                "choice": None,
            }
        move = random_move(view, rng, declare=0.03)
        if move["type"] == "declare":
            move["tiles"] = sorted(move["tiles"], key=sort_key)
        return move
    phase, hand = view.get("phase"), view.get("hand") or [0]
    heads = view.get("next_heads") or ["a"]
    if phase == "first_word":
        return {"type": "first_word", "word": rng.choice(["apple", "banana", "cherry"])}
    if phase == "vote":
        return {"type": "vote", "ok": rng.random() < 0.8}
    if rng.random() < 0.2:
        return {"type": "exchange", "cards": [rng.choice(hand)]}
    word = rng.choice(heads) + rng.choice(["pple", "rrow", "mber", "cho", "lbum"])
    return {"type": "play", "card": rng.choice(hand), "word": word}


@dataclass(frozen=True)
class Repeat:
    """An earlier request sent again with the same id (on one of its player's tabs)."""

    role: str
    back: int

    async def run(self, fuzz: Fuzzer) -> None:
        conn = _conn(fuzz, self.role)
        earlier = [
            (c, p)
            for c, p in fuzz.sent
            if c.player_id is not None
            and c.player_id == conn.player_id
            and p.expect.kind not in (None, "ping", "hello")
            and p.reply is not None
        ]
        if not earlier:
            await fuzz.send_frames(conn, [dump({"type": "ping", "id": fuzz.new_id()})])
            return
        _, first = earlier[-1 - self.back % len(earlier)]
        what = f"repeat of {first.frame!r}"
        await fuzz.send_frames(conn, [first.frame], what=what, repeat_of=first)


@dataclass(frozen=True)
class Burst:
    """Many frames at once, beyond the burst the rate limit allows: each still gets its answer."""

    role: str
    count: int
    refused: bool

    async def run(self, fuzz: Fuzzer) -> None:
        conn = _conn(fuzz, self.role)
        message = {"type": "table.join", "table": "t_nosuch"} if self.refused else {"type": "ping"}
        frames = [dump({**message, "id": fuzz.new_id()}) for _ in range(self.count)]
        await fuzz.send_frames(conn, frames, pace=False, what=f"burst of {self.count}")
        if not conn.open:  # a tab that had just sent much may be closed for flooding (4008)
            await fuzz.reconnect(self.role)


@dataclass(frozen=True)
class Flood:
    """Far too many frames: the server must close with 4008 (or keep answering)."""

    role: str

    async def run(self, fuzz: Fuzzer) -> None:
        conn = _conn(fuzz, self.role)
        conn.close_expected = True
        frames = [dump({"type": "ping", "id": fuzz.new_id()}) for _ in range(130)]
        await fuzz.send_frames(conn, frames, pace=False, what="flood")
        await fuzz.reconnect(self.role)


@dataclass(frozen=True)
class Oversized:
    """A frame beyond 1 MiB: the server must close with 1009."""

    role: str

    async def run(self, fuzz: Fuzzer) -> None:
        conn = _conn(fuzz, self.role)
        conn.close_expected = True
        frame = dump({"type": "chat", "table": "t_abcd", "text": "x" * (1024 * 1024 + 64)})
        await fuzz.send_frames(conn, [frame], pace=False, what="1 MiB frame")
        if conn.open:
            fuzz.fail(f"{self.role}: a frame beyond 1 MiB did not close the connection")
        elif conn.close_code not in (1009, 4008):
            fuzz.fail(f"{self.role}: a frame beyond 1 MiB closed with {conn.close_code}")
        await fuzz.reconnect(self.role)


@dataclass(frozen=True)
class Reconnect:
    """A tab closes and comes back with its token, reopening its tables where it left them."""

    role: str

    async def run(self, fuzz: Fuzzer) -> None:
        await fuzz.reconnect(self.role, reopen=True)


# --- drawing actions --------------------------------------------------------------------------

#: Fresh ids in several forms (``float``, ``whole_float`` and ``big`` are not echoed), and
#: ids that are literals: missing, null, not finite, of the wrong kind, too long.
FRESH_FORMS = ("int", "str", "negative", "unicode", "long", "safe", "float", "whole_float", "big")
ID_FORMS = st.sampled_from(
    ["int"] * 8
    + list(FRESH_FORMS)
    + ["none", "NaN", "Infinity", "1e400", "true", "list", "object", "null", "toolong", "huge"]
)


@st.composite
def sends(draw: st.DrawFn) -> Send:
    role = draw(st.sampled_from(FUZZED_ROLES))
    id_form = draw(ID_FORMS)
    mode = draw(st.sampled_from(["plain"] * 4 + ["mutated"] * 4 + ["raw", "other"]))
    ascii = draw(st.booleans())
    if mode == "other":
        frame = draw(st.one_of(NOT_OBJECTS, st.binary(max_size=20)))
        return Send(role, frame, None, None, ascii, True, "not a request")
    message: JSON = no_turn_clock(draw(requests()))
    must_fail, note, raw = False, "well-formed", None
    if mode == "mutated":
        mutated = draw(mutations(message))
        message, must_fail, note = mutated.message, mutated.must_fail, mutated.note
    elif mode == "raw":
        raw = (draw(st.sampled_from(sorted(RAW_EDITS))), draw(st.integers(1, 400)))
        note = f"raw edit {raw[0]}"
    if id_form not in FRESH_FORMS:
        literal = {
            "none": None,
            "NaN": Literal("NaN"),
            "Infinity": Literal("-Infinity"),
            "1e400": Literal("1e400"),
            "true": True,
            "list": [1],
            "object": {"n": 1},
            "null": None,
            "toolong": "x" * 65,
            "huge": 10**70,
        }[id_form]
        if id_form != "none" and isinstance(message, dict):
            message = {**message, "id": literal}
        id_form = None
    return Send(role, message, id_form, raw, ascii, must_fail, note)


def actions() -> st.SearchStrategy[Any]:
    """One action.  Its draws never depend on the world (see :class:`Slot`)."""
    roles = st.sampled_from(FUZZED_ROLES)
    seeds = st.integers(0, 2**32)
    builders: dict[str, st.SearchStrategy[Any]] = {
        "send": sends(),
        "play": st.builds(Play, st.integers(0, 15), seeds),
        "other_seat": st.builds(Play, st.integers(0, 15), seeds, roles),
        "repeat": st.builds(Repeat, roles, st.integers(0, 5)),
        "burst": st.builds(Burst, roles, st.integers(5, 60), st.booleans()),
        "reconnect": st.builds(Reconnect, roles),
        "flood": st.builds(Flood, roles),
        "oversized": st.builds(Oversized, roles),
    }
    weights = {
        "send": 120,
        "play": 50,
        "other_seat": 10,
        "repeat": 10,
        "burst": 4,
        "reconnect": 4,
        "flood": 1,
        "oversized": 1,
    }
    kinds = [kind for kind, weight in weights.items() for _ in range(weight)]
    return st.sampled_from(kinds).flatmap(builders.__getitem__)

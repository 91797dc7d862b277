"""``bodoge serve``: one process serving the web front-end, the protocol and the store."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import ipaddress
import logging
import resource
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from bodoge.server.runtime.config import DAY, Limits, Quotas, ServerConfig
from bodoge.store import sqlite_url

if TYPE_CHECKING:
    import uvicorn

#: Puzzles made on a first start (a minute or two of a worker's time).
INITIAL_PUZZLES = 60


def shown_url(host: str, port: int) -> str:
    """The address to open a server listening on ``host`` at: ``localhost`` for this machine.

    A browser refuses passkeys (WebAuthn) on an IP address, 127.0.0.1 included, so the URL
    printed for a local server names the host; a server listening on every address is
    reached from this machine the same way.

    >>> shown_url("127.0.0.1", 8000), shown_url("0.0.0.0", 80), shown_url("::1", 8000)
    ('http://localhost:8000/', 'http://localhost:80/', 'http://localhost:8000/')
    >>> shown_url("192.168.1.5", 8000), shown_url("fd00::5", 8000), shown_url("box.lan", 8)
    ('http://192.168.1.5:8000/', 'http://[fd00::5]:8000/', 'http://box.lan:8/')
    """
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"http://{host}:{port}/"
    if address.is_loopback or address.is_unspecified:
        return f"http://localhost:{port}/"
    return f"http://[{host}]:{port}/" if address.version == 6 else f"http://{host}:{port}/"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("serve", help="run the table server")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port (0: any free port)")
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help="data folder for the SQLite store (default: the per-user data folder)",
    )
    parser.add_argument(
        "--db", default=None, help="database URL instead, e.g. postgresql+asyncpg://..."
    )
    parser.add_argument(
        "--redis",
        default=None,
        metavar="URL",
        help="cluster mode: the Redis URL (redis://host:6379/0) that every process of the "
        "cluster is given, with the same PostgreSQL --db",
    )
    parser.add_argument(
        "--redis-namespace",
        default=None,
        metavar="NS",
        help="prefix of the cluster's Redis channels (default: derived from --db)",
    )
    parser.add_argument(
        "--lease",
        type=float,
        default=ServerConfig.lease_seconds,
        metavar="SECONDS",
        help="cluster mode: how long a process's lease lasts, so how soon the others take "
        "its tables over when it dies (default %(default)s)",
    )
    parser.add_argument(
        "--gc-sweep-above",
        type=int,
        default=None,
        metavar="MIB",
        help="run a full collector pass (a pause as long as the heap is big) when the process "
        "holds more than MIB MiB, to free garbage in reference cycles (default: never)",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=None,
        metavar="SECONDS",
        help="every bot waits exactly SECONDS before it moves and never holds a declaration "
        "for the reaction window, whatever its table's bot pace (for tests and benchmarks; "
        "default: each table's pace — fast 0.5 s, normal 2-6 s, slow 4-12 s by bot level)",
    )
    parser.add_argument(
        "--bot-workers",
        type=int,
        default=1,
        help="processes running bots and the assistant (0: threads in the server)",
    )
    parser.add_argument(
        "--initial-puzzles",
        type=int,
        default=INITIAL_PUZZLES,
        metavar="N",
        help="on a first start, make N puzzles of each game that has none, in the background "
        f"(default {INITIAL_PUZZLES}; 0: none; more with `bodoge tagiron puzzles make`)",
    )
    limits = Limits()
    parser.add_argument(
        "--max-connections-per-address",
        type=int,
        default=limits.connections_per_address,
        metavar="N",
        help="connections open at once from one client address (0: no limit; default %(default)s)",
    )
    parser.add_argument(
        "--max-connections-per-player",
        type=int,
        default=limits.connections_per_player,
        metavar="N",
        help="connections open at once for one player (0: no limit; default %(default)s)",
    )
    quotas = Quotas()
    parser.add_argument(
        "--new-players-per-hour",
        type=int,
        default=quotas.new_players_per_hour,
        metavar="N",
        help="new players (hello without a token) one client address may make an hour"
        " (0: no limit; default %(default)s)",
    )
    parser.add_argument(
        "--sign-ins-per-hour",
        type=int,
        default=quotas.sign_ins_per_hour,
        metavar="N",
        help="password sign-ins (and accounts made, passkey sign-ins begun) one client address"
        " may try an hour (0: no limit; default %(default)s)",
    )
    parser.add_argument(
        "--sign-ins-per-account-hour",
        type=int,
        default=quotas.sign_ins_per_account_hour,
        metavar="N",
        help="password sign-ins one client address may try an hour for one account name,"
        " existing or not (0: no limit; default %(default)s)",
    )
    parser.add_argument(
        "--sign-in-brake-per-account-hour",
        type=int,
        default=quotas.sign_in_brake_per_account_hour,
        metavar="N",
        help="password sign-ins tried an hour for one account name from all addresses"
        " together, but the owner's usual ones, which it never stops"
        " (0: no limit; default %(default)s)",
    )
    parser.add_argument(
        "--guest-idle-days",
        type=float,
        default=quotas.guest_seconds / DAY,
        metavar="DAYS",
        help="remove a guest (no seat, table, chat or upload) not seen for this long"
        " (0: never; default %(default)g)",
    )
    parser.add_argument(
        "--session-days",
        type=positive_days,
        default=quotas.session_seconds / DAY,
        metavar="DAYS",
        help="an account's sign-in (a device) unused for this long expires; a guest's token"
        " never does (default %(default)g)",
    )
    parser.add_argument(
        "--cleanup-every",
        type=float,
        default=quotas.cleanup_seconds,
        metavar="SECONDS",
        help="how often idle guests and unused decks are looked for (default %(default)g)",
    )
    parser.add_argument(
        "--waiting-tables-per-player",
        type=int,
        default=quotas.waiting_tables_per_player,
        metavar="N",
        help="waiting tables one player may host at once (0: no limit; default %(default)s)",
    )
    parser.add_argument(
        "--tables-per-hour",
        type=int,
        default=quotas.tables_per_hour,
        metavar="N",
        help="tables one player may create an hour (0: no limit; default %(default)s)",
    )
    parser.add_argument(
        "--uploads-per-hour",
        type=int,
        default=quotas.uploads_per_hour,
        metavar="N",
        help="uploads of pictures one client address may make an hour"
        " (0: no limit; default %(default)s)",
    )
    parser.add_argument(
        "--upload-megapixels",
        type=int,
        default=quotas.upload_megapixels,
        metavar="MP",
        help="megapixels the pictures of one upload may decode to, read from their headers"
        " before any is decoded (0: no limit; default %(default)s)",
    )
    parser.add_argument(
        "--megapixels-per-player-hour",
        type=int,
        default=quotas.megapixels_per_player_hour,
        metavar="MP",
        help="megapixels of uploaded pictures one player may have decoded an hour"
        " (0: no limit; default %(default)s)",
    )
    parser.add_argument(
        "--decks-per-player",
        type=int,
        default=quotas.decks_per_player,
        metavar="N",
        help="uploaded decks one player may keep (0: no limit; default %(default)s)",
    )
    parser.add_argument(
        "--deck-mb-per-player",
        type=float,
        default=quotas.deck_bytes_per_player / 2**20,
        metavar="MB",
        help="megabytes of uploaded pictures one player may keep (0: no limit;"
        " default %(default)g)",
    )
    parser.add_argument(
        "--deck-mb-total",
        type=float,
        default=quotas.deck_bytes_total / 2**20,
        metavar="MB",
        help="megabytes of uploaded pictures the server keeps (0: no limit; default %(default)g)",
    )
    parser.add_argument(
        "--deck-unused-days",
        type=float,
        default=quotas.deck_unused_seconds / DAY,
        metavar="DAYS",
        help="delete an uploaded deck no table has used for this long (0: never;"
        " default %(default)g)",
    )
    parser.add_argument(
        "--trusted-proxies",
        type=proxy_list,
        default=(),
        metavar="ADDRESSES",
        help="reverse proxies whose X-Forwarded-For names the visitor: comma-separated"
        " addresses or networks, e.g. 127.0.0.1,10.0.0.0/8 (default: none, never trust"
        " the header)",
    )
    parser.add_argument(
        "--facing-clients",
        action="store_true",
        help="cluster mode: visitors connect to this process directly, with no reverse proxy"
        " in front (without it, --redis needs --trusted-proxies, or the rates would count"
        " every visitor as the proxy)",
    )
    parser.add_argument(
        "--ws-ping",
        type=float,
        default=None,
        metavar="SECONDS",
        help="ping every WebSocket this often (default: 1 with --redis, so that nginx's short"
        " read timeout, docs/deploy.md, cuts only a paused process's sockets; 20 otherwise;"
        " 0: never)",
    )
    parser.add_argument(
        "--public-origin",
        type=public_origin,
        action="append",
        default=[],
        metavar="URL",
        help="the origin browsers see behind a proxy, e.g. https://games.example.org (may be"
        " given more than once): pages of this origin, besides the request's own, may change"
        " things and open WebSockets; every other site's are refused",
    )
    parser.add_argument(
        "--smtp-url",
        type=smtp_url,
        default=None,
        metavar="URL",
        help="send e-mail notifications through this SMTP server:"
        " smtp://user:password@host:587 (STARTTLS when offered; ?starttls=1 requires it,"
        " ?starttls=0 never asks), smtps://user:password@host:465 (TLS);"
        " ?from=bodoge@example.org sets the sender (docs/deploy.md). Default: no e-mail",
    )
    parser.add_argument(
        "--site-url",
        type=public_origin,
        default=None,
        metavar="URL",
        help="the address the links of e-mails open, e.g. https://games.example.org"
        " (default: the first --public-origin, else the address served on)",
    )
    parser.add_argument(
        "--no-web-push",
        dest="web_push",
        action="store_false",
        help="send no Web Push notifications (the page then offers none)",
    )
    parser.add_argument(
        "--push-contact",
        type=push_contact,
        default=None,
        metavar="URL",
        help="how push services reach whoever runs this server: mailto:you@example.org or an"
        " https URL (default: the e-mail sender's address)",
    )
    parser.add_argument(
        "--notify-grace",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="wait this long before telling a person it is their turn: if they open the"
        " table meanwhile, nothing is sent (default: 30)",
    )
    parser.add_argument(
        "--test-clock",
        nargs="?",
        const="now",
        default=None,
        type=start_of_test_clock,
        metavar="START",
        help="FOR TESTS ONLY, never in production: the server's clock stands still from START"
        " (an ISO 8601 time or Unix milliseconds; default: now) until POST /api/test/clock"
        " moves it on, and Web Push may go to loopback endpoints; only on a loopback --host"
        " (docs/deploy.md)",
    )
    config_defaults = ServerConfig(db_url="")
    parser.add_argument(
        "--absent-after-timeouts",
        type=at_least_one,
        default=config_defaults.absent_after_timeouts,
        metavar="N",
        help="turn-based play: a person whose last N turns in a row ran out is absent (the"
        " stand-in plays their turns at once until they move again; default %(default)s)",
    )
    parser.add_argument(
        "--absent-after-days",
        type=positive_days,
        default=config_defaults.absent_after_seconds / DAY,
        metavar="DAYS",
        help="turn-based play: a person who ran out of time and made no move of their own for"
        " DAYS is absent too (default %(default)g)",
    )
    parser.add_argument(
        "--turn-abandon-days",
        type=positive_days,
        default=config_defaults.turn_abandon_seconds / DAY,
        metavar="DAYS",
        help="a turn-based game no person has moved at for DAYS ends as abandoned"
        " (default %(default)g)",
    )
    parser.add_argument(
        "--vacation-days",
        type=vacation_days,
        default=config_defaults.vacation_days_per_year,
        metavar="DAYS",
        help="days of vacation from turn-based games a person may take a calendar year"
        " (0: no vacations; default %(default)s)",
    )
    parser.add_argument("--log-level", default="warning", help="uvicorn's log level")
    parser.set_defaults(func=serve)


def start_of_test_clock(text: str) -> int:
    """``--test-clock``'s start in Unix ms: ms, an ISO 8601 time (UTC unless it says), or
    ``now``.

    >>> start_of_test_clock("1800000000000"), start_of_test_clock("2027-01-15T08:00:00Z")
    (1800000000000, 1800000000000)
    >>> tokyo = start_of_test_clock("2027-01-15T17:00:00.250+09:00")
    >>> tokyo - start_of_test_clock("2027-01-15T08:00")
    250
    >>> start_of_test_clock("yesterday")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    argparse.ArgumentTypeError: not a time
    """
    import time
    from datetime import UTC, datetime

    if text == "now":
        return time.time_ns() // 1_000_000
    if text.isdigit():
        return int(text)
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--test-clock takes an ISO 8601 time or Unix milliseconds, not {text!r}"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return round(when.timestamp() * 1000)


def refused_test_clock(args: argparse.Namespace) -> str | None:
    """Why ``--test-clock`` may not run with these options, or ``None``.

    >>> refused_test_clock(argparse.Namespace(host="127.0.0.1", redis=None)) is None
    True
    >>> refused_test_clock(argparse.Namespace(host="0.0.0.0", redis=None))
    '--test-clock listens on this machine only (--host 127.0.0.1, ::1 or localhost), not 0.0.0.0'
    >>> refused_test_clock(argparse.Namespace(host="::1", redis="redis://r"))
    '--test-clock runs one process alone, not a cluster (--redis)'
    """
    from bodoge.server.edge.sim_clock import is_loopback

    if not is_loopback(args.host):
        return (
            "--test-clock listens on this machine only (--host 127.0.0.1, ::1 or localhost),"
            f" not {args.host}"
        )
    if args.redis is not None:
        return "--test-clock runs one process alone, not a cluster (--redis)"
    return None


def smtp_url(text: str) -> str:
    """An ``--smtp-url`` that parses (:class:`~bodoge.server.services.mail.SmtpSettings`)."""
    from bodoge.server.services.mail import SmtpSettings

    try:
        SmtpSettings.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def push_contact(text: str) -> str:
    """A VAPID contact: ``mailto:`` an address or an ``https:`` URL.

    >>> push_contact("mailto:me@example.org")
    'mailto:me@example.org'
    >>> push_contact("me@example.org")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: a push contact is mailto:you@example.org or https://…
    """
    if text.startswith(("mailto:", "https://")) and len(text) > 8:
        return text
    raise argparse.ArgumentTypeError("a push contact is mailto:you@example.org or https://…")


def positive_days(text: str) -> float:
    """A number of days above 0.

    >>> positive_days("0.5"), positive_days("180")
    (0.5, 180.0)
    """
    try:
        days = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of days: {text!r}") from None
    if not 0 < days < 100_000:
        raise argparse.ArgumentTypeError(f"a number of days above 0: {text!r}")
    return days


def at_least_one(text: str) -> int:
    """A whole number of 1 or more.

    >>> at_least_one("3")
    3
    >>> at_least_one("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: a whole number of 1 or more: '0'
    """
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= 1_000_000:
        raise argparse.ArgumentTypeError(f"a whole number of 1 or more: {text!r}")
    return n


def vacation_days(text: str) -> int:
    """Whole days of vacation a year: 0 to 366.

    >>> vacation_days("0"), vacation_days("45")
    (0, 45)
    >>> vacation_days("400")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: whole days a year, 0-366: '400'
    """
    try:
        days = int(text)
    except ValueError:
        days = -1
    if not 0 <= days <= 366:
        raise argparse.ArgumentTypeError(f"whole days a year, 0-366: {text!r}")
    return days


def proxy_list(text: str) -> tuple[str, ...]:
    """The ``--trusted-proxies`` value: addresses and networks, each checked.

    >>> proxy_list("127.0.0.1, 10.1.2.3/8,::1")
    ('127.0.0.1', '10.0.0.0/8', '::1')
    >>> proxy_list("*")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    argparse.ArgumentTypeError: not an address or network: '*'
    """
    found = []
    for part in text.split(","):
        part = part.strip()
        try:
            network = ipaddress.ip_network(part, strict=False)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an address or network: {part!r}") from None
        found.append(str(network) if "/" in part else part)
    return tuple(found)


def public_origin(text: str) -> str:
    from bodoge.server.edge.origins import check_public_origin

    try:
        return check_public_origin(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def quotas_of(args: argparse.Namespace) -> Quotas:
    """The quotas the options set (the rest at their defaults)."""
    return dataclasses.replace(
        Quotas(),
        new_players_per_hour=args.new_players_per_hour,
        sign_ins_per_hour=args.sign_ins_per_hour,
        sign_ins_per_account_hour=args.sign_ins_per_account_hour,
        sign_in_brake_per_account_hour=args.sign_in_brake_per_account_hour,
        guest_seconds=args.guest_idle_days * DAY,
        session_seconds=args.session_days * DAY,
        cleanup_seconds=args.cleanup_every,
        waiting_tables_per_player=args.waiting_tables_per_player,
        tables_per_hour=args.tables_per_hour,
        uploads_per_hour=args.uploads_per_hour,
        upload_megapixels=args.upload_megapixels,
        megapixels_per_player_hour=args.megapixels_per_player_hour,
        decks_per_player=args.decks_per_player,
        deck_bytes_per_player=round(args.deck_mb_per_player * 2**20),
        deck_bytes_total=round(args.deck_mb_total * 2**20),
        deck_unused_seconds=args.deck_unused_days * DAY,
    )


def turn_rules_of(args: argparse.Namespace) -> dict[str, Any]:
    """The ``ServerConfig`` fields of turn-based play's absence rules the options set."""
    return {
        "absent_after_timeouts": args.absent_after_timeouts,
        "absent_after_seconds": args.absent_after_days * DAY,
        "turn_abandon_seconds": args.turn_abandon_days * DAY,
        "vacation_days_per_year": args.vacation_days,
    }


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("bodoge", appauthor=False))


def raise_file_limit() -> None:
    """Each connection is a file descriptor: allow as many as the system lets us."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = 1 << 20 if hard == resource.RLIM_INFINITY else hard
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def cluster_config_error(db_url: str, redis_url: str, namespace: str | None) -> str | None:
    """Why ``--redis`` cannot run with these settings, or ``None``.

    >>> cluster_config_error("sqlite+aiosqlite:///x.db", "redis://h", None)
    '--redis needs a PostgreSQL --db (postgresql+asyncpg://user@host/db), not sqlite'
    >>> cluster_config_error("postgresql+asyncpg://u@h/db", "http://h", None)
    "--redis takes a redis:// or rediss:// URL, not 'http://h'"
    >>> cluster_config_error("postgresql+asyncpg://u@h/db", "redis://h:6379/0", "blue") is None
    True
    """
    from sqlalchemy.engine import make_url

    from bodoge.cluster.namespace import BadNamespace, Namespace

    url = make_url(db_url)
    if url.get_backend_name() != "postgresql":
        return (
            "--redis needs a PostgreSQL --db (postgresql+asyncpg://user@host/db),"
            f" not {url.get_backend_name()}"
        )
    if url.get_driver_name() != "asyncpg":
        return f"--redis needs the asyncpg driver (postgresql+asyncpg://…), not {url.drivername}"
    if not redis_url.startswith(("redis://", "rediss://", "unix://")):
        return f"--redis takes a redis:// or rediss:// URL, not {redis_url[:60]!r}"
    if namespace is not None:
        try:
            Namespace(namespace)
        except BadNamespace as exc:
            return f"--redis-namespace: {exc}"
    return None


def ws_ping(args: argparse.Namespace) -> float:
    """Seconds between the pings on each WebSocket (0: none).

    Behind the cluster's nginx a socket silent both ways for ``WS_TIMEOUT`` seconds is cut
    (that is how a paused process's sockets are let go), so a cluster process pings more
    often than that; a lone process keeps uvicorn's 20 s, enough to notice a dead peer.

    >>> ws_ping(argparse.Namespace(ws_ping=None, redis="redis://r")), ws_ping(
    ...     argparse.Namespace(ws_ping=None, redis=None))
    (1.0, 20.0)
    """
    from bodoge.cluster.nginx import WS_PING

    if args.ws_ping is not None:
        return float(args.ws_ping)
    return WS_PING if args.redis is not None else 20.0


def uvicorn_config(
    app: Any,
    frame_bytes: int,
    log_level: str,
    trusted_proxies: Sequence[str],
    ping: float | None = 20.0,
) -> uvicorn.Config:
    """How ``bodoge serve`` runs uvicorn (``app``: the ASGI application; ``ping``: seconds
    between the pings on each WebSocket, ``None`` for none)."""
    import uvicorn

    from bodoge.server.edge.socket_protocol import LeanHttpProtocol, LeanWebSocketProtocol

    return uvicorn.Config(
        app,
        log_level=log_level,
        access_log=False,
        ws_max_size=frame_bytes,
        # Compression costs CPU and memory per connection; game messages are small.
        ws_per_message_deflate=False,
        # uvicorn's sans-I/O WebSocket protocol, with lighter waiting parts, and its HTTP
        # protocol, both letting go of what a socket no longer needs
        # (bodoge/server/edge/socket_protocol.py).
        ws=LeanWebSocketProtocol,
        http=LeanHttpProtocol,
        ws_ping_interval=ping,
        lifespan="on",
        # The client address the limits count is the socket's, unless the socket is a
        # trusted proxy's: then X-Forwarded-For names the visitor.  Anyone else could
        # write any address there, so nobody is trusted unless named.
        proxy_headers=bool(trusted_proxies),
        forwarded_allow_ips=list(trusted_proxies),
        timeout_graceful_shutdown=5,
    )


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from bodoge.server.edge.app import create_app

    data = args.data or default_data_dir()
    db_url = args.db or sqlite_url(data)
    if args.ws_ping is not None and not args.ws_ping >= 0:
        raise SystemExit(f"bodoge serve: --ws-ping must be 0 or more seconds, not {args.ws_ping}")
    clock = None
    if args.test_clock is not None:
        if error := refused_test_clock(args):
            raise SystemExit(f"bodoge serve: {error}")
        from bodoge.server.runtime.clock import ManualClock

        # (``--test-clock`` alone gives argparse's unconverted "now")
        clock = ManualClock(None if args.test_clock == "now" else args.test_clock)
        print(
            "bodoge: WARNING: --test-clock: the server's time stands still until"
            " POST /api/test/clock moves it; Web Push goes to loopback endpoints."
            " For tests only, never in production.",
            file=sys.stderr,
            flush=True,
        )
    if args.redis_namespace is not None and args.redis is None:
        raise SystemExit("bodoge serve: --redis-namespace goes with --redis")
    if args.redis is not None:
        error = cluster_config_error(db_url, args.redis, args.redis_namespace)
        if error is None and not args.lease > 0:
            error = f"--lease must be a positive number of seconds, not {args.lease}"
        if error is None and not args.trusted_proxies and not args.facing_clients:
            # Behind a load balancer every visitor would be the balancer's address: the
            # rates an hour would be the whole site's, and one visitor could spend them.
            error = (
                "--redis runs behind a load balancer: name it with --trusted-proxies"
                " ADDRESSES (nginx's address, e.g. 127.0.0.1), or say --facing-clients if"
                " visitors connect to this process directly"
            )
        if error:
            raise SystemExit(f"bodoge serve: {error}")
    from bodoge.store.upgrade import SchemaTooNew, refuse_newer

    try:
        asyncio.run(refuse_newer(db_url))
    except SchemaTooNew as exc:
        raise SystemExit(f"bodoge serve: {exc}") from None
    raise_file_limit()
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")

    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(2048)  # connections made as soon as the URL is printed wait in the backlog
    port = sock.getsockname()[1]
    url = shown_url(args.host, port)

    def ready() -> None:
        where = db_url if args.db else str(data)
        print(f"bodoge: serving on {url}  (data: {where})", flush=True)

    limits = dataclasses.replace(
        Limits(),
        connections_per_address=args.max_connections_per_address,
        connections_per_player=args.max_connections_per_player,
    )
    config = ServerConfig(
        db_url=db_url,
        bot_delay=args.bot_delay,
        bot_workers=args.bot_workers,
        initial_puzzles=max(0, args.initial_puzzles),
        limits=limits,
        quotas=quotas_of(args),
        redis_url=args.redis,
        redis_namespace=args.redis_namespace,
        lease_seconds=args.lease,
        public_origins=tuple(args.public_origin),
        gc_sweep_above=None if args.gc_sweep_above is None else args.gc_sweep_above * 2**20,
        smtp_url=args.smtp_url,
        site_url=args.site_url or next(iter(args.public_origin), None) or url.rstrip("/"),
        web_push=args.web_push,
        push_contact=args.push_contact,
        notify_grace_seconds=args.notify_grace,
        clock=clock,
        test_hooks=clock is not None,
        **turn_rules_of(args),
    )
    app = create_app(config, on_ready=ready)
    server = uvicorn.Server(
        uvicorn_config(
            app,
            config.limits.frame_bytes,
            args.log_level,
            args.trusted_proxies,
            ws_ping(args) or None,
        )
    )
    server.run(sockets=[sock])
    return 0 if server.started else 1

"""The load balancer in front of a cluster: nginx's configuration, as docs/deploy.md shows it.

Any plain round-robin balancer will do — every process accepts every connection, so no
session needs to stick to a process. What nginx must be told is to pass WebSocket
upgrades on, and to notice a process that stopped answering.

A process that is paused (``kill -STOP``, a machine swapping, a stuck event loop) still
has its listening socket: the kernel completes every TCP handshake for it, so a short
``proxy_connect_timeout`` alone does not notice it, and the request waits for an answer
that never comes. The open-source nginx has no active health checks; what it has is the
read timeout — how long it waits for the upstream's answer, and then (``proxy_next_upstream
timeout``) it tries the next process and counts a failure (``max_fails=1``: the process
gets nothing more for ``fail_timeout``, after which one request tries it again). So every
request that may wait is given a short read timeout:

* plain HTTP: :data:`HTTP_TIMEOUT`; a ``GET`` is tried again on the next process, a
  ``POST`` is not (nginx never repeats a non-idempotent request) and gets 504;
* ``/healthz`` on the operator's site: :data:`HEALTH_TIMEOUT`, more than the process's
  own checks take (2 s each, bodoge/server/edge/metrics.py) so a truthful 503 is not cut;
* the two requests that legitimately take long (a game's review, worked out in a worker;
  an upload waiting its turn) keep :data:`SLOW_TIMEOUT`;
* the WebSocket handshake: :data:`WS_TIMEOUT`. nginx has one read timeout per location,
  and after the upgrade it is the longest the connection may stay silent both ways (any
  frame, in either direction, starts it again). A table's socket may be quiet for minutes,
  so a cluster process pings every socket every :data:`WS_PING` s (``bodoge serve
  --ws-ping``; the browser answers with a pong): a live process's quiet sockets are never
  cut, and a paused process's are, after :data:`WS_TIMEOUT` s, so their browsers reconnect
  to a live one.

A process's own 503 (``store_unavailable``: the database is away, for every process alike)
is passed on as it is and counts as no failure: tried elsewhere it would only be answered
the same, and counted it would take every process out in turn.

Two ``server`` blocks, each on the addresses it is given and no others: the public site
(every visitor), where ``/metrics`` and ``/healthz`` are not found, and the operator's, on
a loopback address by default and answering only from the addresses allowed there,
which serves those two and nothing else. A process's figures and probes tell a visitor
how busy the server is and what it runs on; only the operator needs them.

>>> print(nginx_config(["127.0.0.1:8001", "127.0.0.1:8002"], "203.0.113.7:80"))
... # doctest: +ELLIPSIS
# bodoge cluster: round-robin over every process, WebSockets passed through.
map $http_upgrade $connection_upgrade {
    default upgrade;
    ''      close;
}
upstream bodoge {
    # Shared by nginx's workers: one failure takes a process out for all of them.
    zone bodoge 64k;
    server 127.0.0.1:8001 max_fails=1 fail_timeout=5s;
    server 127.0.0.1:8002 max_fails=1 fail_timeout=5s;
}
server {
    # The public site, on this address only.
    listen 203.0.113.7:80;
...
server {
    # The operator's: /healthz and /metrics, on this address only, to these clients only.
    listen 127.0.0.1:8081;
    allow 127.0.0.1;
    allow ::1;
    deny all;
...
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

#: Where the operator's ``server`` listens unless told otherwise: loopback only.
OPERATOR_LISTEN = "127.0.0.1:8081"
#: Who may ask the operator's ``server`` (nginx ``allow``; everyone else is denied).
OPERATOR_ALLOW = ("127.0.0.1", "::1")
#: The paths only the operator is served.
OPERATOR_PATHS = ("/healthz", "/metrics")
#: The WebSocket's path (bodoge/server/edge/websocket.py).
WS_PATH = "/ws"

#: Seconds between a cluster process's pings on each WebSocket (``bodoge serve --ws-ping``).
WS_PING = 1.0
#: Seconds nginx waits for a WebSocket handshake's answer, and lets an open one stay
#: silent: the ping's interval with 2 s to spare for a busy process's late timer.
WS_TIMEOUT = 3
#: Seconds nginx waits for a process's answer to a plain HTTP request.
HTTP_TIMEOUT = 3
#: Seconds for ``/healthz``: above the process's own checks (2 s each, at once).
HEALTH_TIMEOUT = 3
#: Seconds for what legitimately takes long: a review (a worker, 60 s at most), an upload.
SLOW_TIMEOUT = 90
#: Seconds to open a TCP connection to a process on the private network: a refusal is
#: immediate, so only a machine gone away (no answer at all) waits this long.
CONNECT_TIMEOUT = 1
#: Seconds a process that failed is left out before one request tries it again.
FAIL_TIMEOUT = 5
#: The paths that may take long (a review, an upload).
SLOW_PATHS = r"^/api/(tables/[^/]+/review|decks)$"

_PROXY = f"""        proxy_pass http://bodoge;
        proxy_http_version 1.1;
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_connect_timeout {CONNECT_TIMEOUT}s;
        # A process that does not answer in time is left out and the request (unless it is a
        # POST: nginx never repeats those) tried on the next one.
        proxy_next_upstream error timeout;"""


def nginx_config(
    upstreams: Sequence[str],
    listen: str = "80",
    operator: str = OPERATOR_LISTEN,
    allow: Sequence[str] = OPERATOR_ALLOW,
    ws_timeout: float = WS_TIMEOUT,
) -> str:
    """The ``http``-level part of nginx's configuration for a cluster of ``upstreams``.

    ``upstreams`` are the processes' ``host:port``; ``listen`` is the public site's
    ``listen`` argument (an ``address:port`` binds that address only; a bare port binds
    every address of the machine), ``operator`` the operator's, and ``allow`` the
    clients the operator's site answers (the rest get 403). A process that refuses a
    connection (killed, restarting) or does not answer within the timeouts above (paused)
    is left out for :data:`FAIL_TIMEOUT` seconds and the request tried on the next one.
    ``ws_timeout`` is the WebSocket's: at least 2 s more than the processes' ``--ws-ping``.
    """
    servers = "\n".join(
        f"    server {u} max_fails=1 fail_timeout={FAIL_TIMEOUT}s;" for u in upstreams
    )
    allowed = "\n".join(f"    allow {a};" for a in allow)
    hidden = "|".join(p.lstrip("/") for p in OPERATOR_PATHS)
    return f"""\
# bodoge cluster: round-robin over every process, WebSockets passed through.
map $http_upgrade $connection_upgrade {{
    default upgrade;
    ''      close;
}}
upstream bodoge {{
    # Shared by nginx's workers: one failure takes a process out for all of them.
    zone bodoge 64k;
{servers}
}}
server {{
    # The public site, on this address only.
    listen {listen};
    # A whole uploaded deck (bodoge/server/edge/assets.py, MAX_UPLOAD_BYTES) in one request.
    client_max_body_size 48m;
    # The processes' figures and probes are the operator's (the server below), not a visitor's.
    location ~ ^/({hidden})/?$ {{
        return 404;
    }}
    location = {WS_PATH} {{
{_PROXY}
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        # The handshake's answer, then the longest silence of an open socket: every process
        # pings each socket more often (bodoge serve --ws-ping, every {WS_PING:g} s by default),
        # so only a paused process's sockets are cut, and their browsers reconnect to a live one.
        proxy_read_timeout {ws_timeout:g}s;
        proxy_send_timeout {ws_timeout:g}s;
    }}
    location ~ {SLOW_PATHS} {{
{_PROXY}
        # A review is worked out in a worker; an upload may wait its turn.
        proxy_read_timeout {SLOW_TIMEOUT}s;
    }}
    location / {{
{_PROXY}
        proxy_read_timeout {HTTP_TIMEOUT}s;
    }}
}}
server {{
    # The operator's: /healthz and /metrics, on this address only, to these clients only.
    listen {operator};
{allowed}
    deny all;
    location ~ ^/({hidden})$ {{
{_PROXY}
        proxy_read_timeout {HEALTH_TIMEOUT}s;
    }}
    location / {{
        return 404;
    }}
}}
"""


def standalone_config(
    upstreams: Sequence[str],
    listen: str,
    folder: str,
    connections: int = 1024,
    operator: str = OPERATOR_LISTEN,
    allow: Sequence[str] = OPERATOR_ALLOW,
) -> str:
    """A whole ``nginx.conf`` around :func:`nginx_config` for a private nginx in ``folder``.

    One process in the foreground, every file (pid, logs, temporary bodies) in ``folder``:
    what the cluster tests (``tests/support/services.py``) and ``bodoge bench server
    --cluster N`` start. ``connections`` is nginx's ``worker_connections``: a proxied
    WebSocket takes two of them; ``operator`` is where the operator's ``server`` listens,
    ``allow`` whom it answers.

    >>> print(standalone_config(["127.0.0.1:8001"], "127.0.0.1:8080", "/tmp/x"))
    ... # doctest: +ELLIPSIS
    # A private nginx: one process in the foreground, every file in its folder.
    daemon off;
    master_process off;
    pid /tmp/x/nginx.pid;
    ...
        upstream bodoge {
            # Shared by nginx's workers: one failure takes a process out for all of them.
            zone bodoge 64k;
            server 127.0.0.1:8001 max_fails=1 fail_timeout=5s;
        }
    ...
    """
    temp = "\n".join(
        f"    {kind}_temp_path {folder}/{kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    http = nginx_config(upstreams, listen, operator, allow)
    return (
        "# A private nginx: one process in the foreground, every file in its folder.\n"
        "daemon off;\nmaster_process off;\n"
        f"pid {folder}/nginx.pid;\nerror_log {folder}/error.log info;\n"
        f"worker_rlimit_nofile {connections + 64};\n"
        f"events {{ worker_connections {connections}; }}\n"
        "http {\n"
        f"    access_log {folder}/access.log;\n{temp}\n"
        + "\n".join(f"    {line}" if line else "" for line in http.splitlines())
        + "\n}\n"
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``bodoge nginx``: print :func:`nginx_config` for the processes named (docs/deploy.md)."""
    parser = sub.add_parser(
        "nginx",
        help="print nginx's configuration for a cluster (the http-level part: a site file)",
        description="Print the http-level part of nginx's configuration for the cluster's"
        " processes (docs/deploy.md, 'nginx'): put it in a file nginx's http block includes,"
        " such as /etc/nginx/conf.d/bodoge.conf.",
    )
    parser.add_argument(
        "--upstream",
        action="append",
        required=True,
        metavar="HOST:PORT",
        help="a bodoge serve process (give one --upstream per process)",
    )
    parser.add_argument(
        "--listen",
        default="80",
        metavar="ADDRESS:PORT",
        help="the public site's listen (name the public address: a bare port binds every"
        " address of the machine; default %(default)s)",
    )
    parser.add_argument(
        "--operator",
        default=OPERATOR_LISTEN,
        metavar="ADDRESS:PORT",
        help="where the operator's /healthz and /metrics listen (default %(default)s)",
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=None,
        metavar="ADDRESS",
        help="a client the operator's site answers (may be repeated; default: "
        + ", ".join(OPERATOR_ALLOW)
        + ")",
    )
    parser.add_argument(
        "--ws-timeout",
        type=float,
        default=WS_TIMEOUT,
        metavar="SECONDS",
        help="how long a WebSocket's handshake may wait, and an open one stay silent: at least"
        " 2 s more than the processes' --ws-ping (default %(default)s, with --ws-ping 1)",
    )
    parser.set_defaults(func=_print_config)


def _print_config(args: argparse.Namespace) -> int:
    allow = OPERATOR_ALLOW if args.allow is None else tuple(args.allow)
    if not args.ws_timeout >= 1:
        raise SystemExit(f"bodoge nginx: --ws-timeout must be 1 s or more, not {args.ws_timeout}")
    config = nginx_config(args.upstream, args.listen, args.operator, allow, args.ws_timeout)
    print(config, end="")
    return 0

"""The load balancer in front of a cluster: nginx's configuration, as docs/deploy.md shows it.

Any plain round-robin balancer will do — every process accepts every connection, so no
session needs to stick to a process. What nginx must be told is to pass WebSocket
upgrades on and not to cut a quiet WebSocket after its default 60 s.

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
    server 127.0.0.1:8001 max_fails=1 fail_timeout=2s;
    server 127.0.0.1:8002 max_fails=1 fail_timeout=2s;
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

from collections.abc import Sequence

#: Where the operator's ``server`` listens unless told otherwise: loopback only.
OPERATOR_LISTEN = "127.0.0.1:8081"
#: Who may ask the operator's ``server`` (nginx ``allow``; everyone else is denied).
OPERATOR_ALLOW = ("127.0.0.1", "::1")
#: The paths only the operator is served.
OPERATOR_PATHS = ("/healthz", "/metrics")

_PROXY = """        proxy_pass http://bodoge;
        proxy_http_version 1.1;
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_connect_timeout 2s;
        proxy_next_upstream error timeout http_502 http_503;"""


def nginx_config(
    upstreams: Sequence[str],
    listen: str = "80",
    operator: str = OPERATOR_LISTEN,
    allow: Sequence[str] = OPERATOR_ALLOW,
) -> str:
    """The ``http``-level part of nginx's configuration for a cluster of ``upstreams``.

    ``upstreams`` are the processes' ``host:port``; ``listen`` is the public site's
    ``listen`` argument (an ``address:port`` binds that address only; a bare port binds
    every address of the machine), ``operator`` the operator's, and ``allow`` the
    clients the operator's site answers (the rest get 403). A process that refuses a
    connection (killed, restarting) is skipped for 2 seconds and the connection tried
    on the next one, so a reconnecting browser lands on a live process at once.
    """
    servers = "\n".join(f"    server {u} max_fails=1 fail_timeout=2s;" for u in upstreams)
    allowed = "\n".join(f"    allow {a};" for a in allow)
    hidden = "|".join(p.lstrip("/") for p in OPERATOR_PATHS)
    return f"""\
# bodoge cluster: round-robin over every process, WebSockets passed through.
map $http_upgrade $connection_upgrade {{
    default upgrade;
    ''      close;
}}
upstream bodoge {{
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
    location / {{
{_PROXY}
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        # A table's WebSocket may stay quiet for minutes: don't cut it after nginx's 60 s.
        proxy_read_timeout 1h;
        proxy_send_timeout 1h;
    }}
}}
server {{
    # The operator's: /healthz and /metrics, on this address only, to these clients only.
    listen {operator};
{allowed}
    deny all;
    location ~ ^/({hidden})$ {{
{_PROXY}
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
            server 127.0.0.1:8001 max_fails=1 fail_timeout=2s;
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

"""The load balancer in front of a cluster: nginx's configuration, as docs/deploy.md shows it.

Any plain round-robin balancer will do — every process accepts every connection, so no
session needs to stick to a process. What nginx must be told is to pass WebSocket
upgrades on and not to cut a quiet WebSocket after its default 60 s.

>>> print(nginx_config(["127.0.0.1:8001", "127.0.0.1:8002"], "80"))  # doctest: +ELLIPSIS
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
    listen 80;
...
"""

from __future__ import annotations

from collections.abc import Sequence


def nginx_config(upstreams: Sequence[str], listen: str = "80") -> str:
    """The ``http``-level part of nginx's configuration for a cluster of ``upstreams``.

    ``upstreams`` are the processes' ``host:port``; ``listen`` is nginx's own ``listen``
    argument. A process that refuses a connection (killed, restarting) is skipped for
    2 seconds and the connection tried on the next one, so a reconnecting browser lands on
    a live process at once.
    """
    servers = "\n".join(f"    server {u} max_fails=1 fail_timeout=2s;" for u in upstreams)
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
    listen {listen};
    # A whole uploaded deck (bodoge/server/edge/assets.py, MAX_UPLOAD_BYTES) in one request.
    client_max_body_size 48m;
    location / {{
        proxy_pass http://bodoge;
        proxy_http_version 1.1;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        # A table's WebSocket may stay quiet for minutes: don't cut it after nginx's 60 s.
        proxy_read_timeout 1h;
        proxy_send_timeout 1h;
        proxy_connect_timeout 2s;
        proxy_next_upstream error timeout http_502 http_503;
    }}
}}
"""


def standalone_config(
    upstreams: Sequence[str], listen: str, folder: str, connections: int = 1024
) -> str:
    """A whole ``nginx.conf`` around :func:`nginx_config` for a private nginx in ``folder``.

    One process in the foreground, every file (pid, logs, temporary bodies) in ``folder``:
    what the cluster tests (``tests/support/services.py``) and ``bodoge bench server
    --cluster N`` start. ``connections`` is nginx's ``worker_connections``: a proxied
    WebSocket takes two of them.

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
    http = nginx_config(upstreams, listen)
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

"""docs/deploy.md followed literally: its set-up, built from its own blocks, plays a move.

"Setting it up on one machine" marks the blocks an operator runs with ```` ```sh deploy ````
(commands) and ```` ```ini deploy ```` (systemd units). This test runs them in order, as
systemd would run the units (the migration once, then one process per port), against a
private PostgreSQL, Redis and nginx, replacing only the values the page's table names as the
operator's own (:data:`PLACEHOLDERS`); then two players meet through the nginx it configured
and one of them moves. It also checks that the configuration the page shows is what
``bodoge nginx`` prints, so the page cannot drift from the code.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bodoge.cluster.nginx import nginx_config
from tests.server.tagiron_play import random_move
from tests.support.client import Client
from tests.support.live_server import ROOT
from tests.support.services import PostgresServer, RedisServer, free_port

DOC = ROOT / "docs" / "deploy.md"
BLOCK = re.compile(r"^```(sh|ini) deploy\n(.*?)^```$", re.MULTILINE | re.DOTALL)
#: The processes' ports in the page, in order (the units' ``%i``).
PORTS = ("8001", "8002", "8003")


def blocks() -> list[tuple[str, str]]:
    """The page's ``deploy`` blocks, in order: (``sh`` or ``ini``, text)."""
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(DOC.read_text())]


def exec_start(unit: str) -> tuple[str, str]:
    """A unit's file name (from its first comment) and its ``ExecStart=`` command line."""
    name = re.match(r"# /etc/systemd/system/(\S+)", unit)
    assert name is not None, unit
    line = re.search(r"^ExecStart=((?:.*\\\n)*.*)$", unit, re.MULTILINE)
    assert line is not None, unit
    return name.group(1), line.group(1).replace("\\\n", " ")


class Site:
    """The operator's machine, as this test stands it up: private servers, free ports."""

    def __init__(self, folder: Path, postgres: PostgresServer, redis: RedisServer) -> None:
        self.folder = folder
        self.postgres = postgres
        self.ports = {port: str(free_port()) for port in PORTS}
        self.public = free_port()
        self.operator = free_port()
        self.nginx_dir = folder / "nginx"
        self.site_file = self.nginx_dir / "bodoge.conf"
        #: The page's placeholders (its table "in the blocks below") and this test's values.
        self.placeholders = {
            "postgresql+asyncpg://bodoge:secret@127.0.0.1/bodoge": (
                f"postgresql+asyncpg://bodoge:secret@127.0.0.1:{postgres.port}/bodoge"
            ),
            "redis://127.0.0.1:6379/0": redis.url,
            "/srv/bodoge/.venv/bin/": f"{Path(sys.executable).parent}/",
            "203.0.113.7:80": f"127.0.0.1:{self.public}",
            "127.0.0.1:8081": f"127.0.0.1:{self.operator}",
            "/etc/nginx/conf.d/bodoge.conf": str(self.site_file),
            **{f"127.0.0.1:{port}": f"127.0.0.1:{mine}" for port, mine in self.ports.items()},
        }
        self.children: list[subprocess.Popen[bytes]] = []
        # bodoge from this checkout; psql and createdb reach the private PostgreSQL as its
        # superuser (the page's "as PostgreSQL's superuser").
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "PGHOST": "127.0.0.1",
            "PGPORT": str(postgres.port),
            "PGUSER": "postgres",
        }

    def mine(self, text: str) -> str:
        for theirs, ours in self.placeholders.items():
            text = text.replace(theirs, ours)
        return text

    # The page's commands --------------------------------------------------------------
    def sh(self, block: str) -> None:
        """Run a block with bash, ``nginx`` being this test's private one."""
        nginx = f"{self.nginx_dir / 'nginx.conf'}"
        prelude = (
            f'set -euo pipefail\nnginx() {{ command nginx -p {self.nginx_dir} -c {nginx} "$@"; }}\n'
        )
        done = subprocess.run(
            ["bash", "-c", prelude + self.mine(block)],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, (block, done.stdout, done.stderr)

    def unit(self, block: str) -> None:
        """What systemd does with the unit: a oneshot run once, a template once per port."""
        name, command = exec_start(block)
        if name.endswith("@.service"):
            for port, mine in self.ports.items():
                # The instance's name is its port: the page's 8001 is this test's own.
                self.start(shlex.split(self.mine(command.replace("%i", mine))), name + port)
            for mine in self.ports.values():
                self.wait_healthy(f"http://127.0.0.1:{mine}/healthz")
        else:
            done = subprocess.run(
                shlex.split(self.mine(command)),
                env=self.env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert done.returncode == 0, (name, done.stdout, done.stderr)

    # This test's machinery ------------------------------------------------------------
    def start(self, command: list[str], name: str) -> None:
        log = open(self.folder / f"{name}.log", "ab")  # noqa: SIM115 - the child keeps it
        try:
            self.children.append(
                subprocess.Popen(
                    command,
                    env=self.env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
            )
        finally:
            log.close()

    def wait_healthy(self, url: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            for child in self.children:
                assert child.poll() is None, self.logs()
            assert time.monotonic() < deadline, f"{url} never answered 200:\n{self.logs()}"
            time.sleep(0.1)

    def start_nginx(self) -> None:
        """nginx as the system's is, before the page's step: its ``http`` block includes
        the site file (empty until then), a master process that ``nginx -s reload`` signals."""
        folder = self.nginx_dir
        folder.mkdir()
        self.site_file.write_text("")
        temp = "\n".join(
            f"    {kind}_temp_path {folder}/{kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        user = "user root;\n" if os.geteuid() == 0 else ""
        (folder / "nginx.conf").write_text(
            f"{user}daemon off;\npid {folder}/nginx.pid;\nerror_log {folder}/error.log info;\n"
            "events { worker_connections 256; }\n"
            f"http {{\n    access_log {folder}/access.log;\n{temp}\n"
            f"    include {self.site_file};\n}}\n"
        )
        self.start(["nginx", "-p", str(folder), "-c", str(folder / "nginx.conf")], "nginx-master")
        deadline = time.monotonic() + 10
        while not (folder / "nginx.pid").exists():
            assert time.monotonic() < deadline, (folder / "error.log").read_text()
            time.sleep(0.05)

    def logs(self) -> str:
        return "\n".join(
            f"--- {log.name}\n{log.read_text(errors='replace')[-2000:]}"
            for log in sorted(self.folder.glob("*.log"))
        )

    def close(self) -> None:
        for child in self.children:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGTERM)
        for child in self.children:
            try:
                child.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()


@pytest.fixture
def site(
    tmp_path: Path, postgres_server: PostgresServer, redis_server: RedisServer
) -> Iterator[Site]:
    built = Site(tmp_path, postgres_server, redis_server)
    try:
        yield built
    finally:
        built.close()


def test_the_page_shows_what_bodoge_nginx_prints() -> None:
    shown = re.search(r"^```nginx\n(.*?)^```$", DOC.read_text(), re.MULTILINE | re.DOTALL)
    assert shown is not None
    printed = nginx_config([f"127.0.0.1:{port}" for port in PORTS], "203.0.113.7:80")
    assert shown.group(1) == printed


def test_the_page_marks_its_steps() -> None:
    kinds = [kind for kind, _ in blocks()]
    # The database, the migration's unit, the processes' unit, nginx: in that order.
    assert kinds == ["sh", "ini", "ini", "sh"], kinds
    units = [exec_start(text)[0] for kind, text in blocks() if kind == "ini"]
    assert units == ["bodoge-migrate.service", "bodoge@.service"]


async def test_the_set_up_of_deploy_md_plays_a_move(site: Site) -> None:
    await asyncio.to_thread(site.start_nginx)  # installed and running, as a system's is
    for kind, text in blocks():
        await asyncio.to_thread(site.unit if kind == "ini" else site.sh, text)
    public = f"127.0.0.1:{site.public}"
    await asyncio.to_thread(site.wait_healthy, f"http://{public}/api/games", 20)

    # The operator's site names a process of the cluster; the public one hides /healthz.
    with urllib.request.urlopen(f"http://127.0.0.1:{site.operator}/healthz", timeout=5) as r:
        assert b'"process"' in r.read()
    with pytest.raises(urllib.error.HTTPError) as hidden:
        urllib.request.urlopen(f"http://{public}/healthz", timeout=5)
    assert hidden.value.code == 404

    # Two players through nginx (round-robin: on two processes), a Tagiron table, a move.
    ws = f"ws://{public}/ws"
    ann, bob = await Client.connect(ws, "Ann"), await Client.connect(ws, "Bob")
    try:
        table = (await ann.ok("table.create", game="tagiron", options={"players": 2}))["table"]
        await bob.ok("table.join", table=table)
        for client in (ann, bob):
            await client.ok("table.open", table=table)
        await ann.ok("table.start", table=table)
        views = []
        for client in (ann, bob):
            state = await client.wait_for(
                lambda m: m.get("type") == "table" and m.get("view") is not None
            )
            views.append(state)
        mover = next(i for i, state in enumerate(views) if state.get("may_act"))
        players = (ann, bob)
        move = random_move(views[mover]["view"], random.Random(1), declare=0.0)
        acked = await players[mover].ok("move", table=table, move=move)
        other = players[1 - mover]
        seen = await other.wait_for(lambda m: m.get("type") == "event" and m.get("n") == acked["n"])
        assert seen["n"] == acked["n"]
    finally:
        await ann.close()
        await bob.close()

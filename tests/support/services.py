"""Private Redis, PostgreSQL and nginx servers for tests that stop, kill or restart them.

Each runs in a temporary folder of its own, on free ports, so that restarting it disturbs
no other test (parallel xdist workers included). Every service:

* ``start()`` waits until it answers; ``stop()`` shuts it down cleanly; ``kill()`` is
  ``kill -9`` of all its processes (a crash); ``restart()`` is ``stop()`` then ``start()``
  on the same port and data, so clients can reconnect to the same address;
* dies with the test process: it is started with a parent-death signal, and everything
  still running at interpreter exit is stopped (use :func:`running` or the fixtures in
  ``tests/cluster/conftest.py`` to stop them at the end of each test).

>>> with RedisServer() as redis:  # doctest: +SKIP
...     redis.url
'redis://127.0.0.1:40123/0'
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

from bodoge.cluster.nginx import OPERATOR_ALLOW, standalone_config

#: Every service started and not yet stopped, stopped at exit if a test did not.
_RUNNING: set[Service] = set()
_PR_SET_PDEATHSIG = 1


class ServiceError(RuntimeError):
    """A service did not start (its log's end is in the message)."""


def free_port() -> int:
    """A TCP port nobody listens on right now (the kernel's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def answers(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), 0.5):
            return True
    except OSError:
        return False


def _die_with_parent() -> None:
    """In the child, before exec: be killed when the test process goes, however it goes."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _find(program: str, *places: str) -> str:
    for place in places:
        for found in sorted(Path("/").glob(place.lstrip("/")), reverse=True):
            if os.access(found, os.X_OK):
                return str(found)
    found = shutil.which(program)
    if found is None:
        raise ServiceError(f"{program} is not installed (scripts/test.sh installs it)")
    return found


class Service:
    """One server process in a temporary folder of its own."""

    name = "service"

    def __init__(self, folder: Path | None = None) -> None:
        self.owns_folder = folder is None
        self.folder = (
            Path(tempfile.mkdtemp(prefix=f"bodoge-{self.name}-")) if folder is None else folder
        )
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log_path = self.folder / f"{self.name}.log"
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.user: str | None = None  # run the server as this user (PostgreSQL refuses root)

    # what each kind of server supplies
    def command(self) -> Sequence[str]:
        raise NotImplementedError

    def ready(self) -> bool:
        return answers(self.port)

    def prepare(self) -> None:
        """Runs before the first start (PostgreSQL makes its data folder)."""

    # life
    def start(self, timeout: float = 30.0) -> Self:
        if self.process is not None and self.process.poll() is None:
            return self
        if not hasattr(self, "_prepared"):
            self.prepare()
            self._prepared = True
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child keeps it
        try:
            self.process = subprocess.Popen(
                list(self.command()),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.folder,
                user=self.user,
                preexec_fn=_die_with_parent,  # after the switch of user, which would clear it
                start_new_session=True,  # kill() takes its whole process group
            )
        finally:
            log.close()
        _RUNNING.add(self)
        deadline = time.monotonic() + timeout
        while not self.ready():
            if self.process.poll() is not None:
                raise ServiceError(
                    f"{self.name} exited with {self.process.returncode}:\n{self.log()}"
                )
            if time.monotonic() > deadline:
                self.kill()
                raise ServiceError(f"{self.name} did not answer in {timeout} s:\n{self.log()}")
            time.sleep(0.02)
        return self

    def stop(self, timeout: float = 20.0) -> None:
        """A clean shutdown (SIGTERM, or what the server takes as one)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGCONT)  # a paused server can't stop
                self.process.send_signal(self.stop_signal)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                return
        self._reap()

    stop_signal = signal.SIGTERM

    def kill(self) -> None:
        """``kill -9`` of every process of the server at once, like a crash."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self._reap()

    def _reap(self) -> None:
        # The process group may outlive its leader for a moment (a backend of PostgreSQL).
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process = None
        _RUNNING.discard(self)

    def pause(self) -> None:
        """SIGSTOP every process of the server: connections stay open, nothing answers."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGCONT)

    def restart(self, timeout: float = 30.0) -> Self:
        self.stop()
        return self.start(timeout)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def close(self) -> None:
        """Stop and remove the folder (if this service made it)."""
        self.stop()
        if self.owns_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def log(self, tail: int = 4000) -> str:
        try:
            return self.log_path.read_bytes()[-tail:].decode(errors="replace")
        except OSError:
            return ""

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class RedisServer(Service):
    """``redis-server`` keeping nothing on disk (a restart empties it, like the shared one)."""

    name = "redis"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self) -> Sequence[str]:
        redis = _find("redis-server", "/usr/bin/redis-server")
        return [
            redis,
            *("--port", str(self.port), "--dir", str(self.folder), "--save", ""),
            *("--bind", "127.0.0.1", "--appendonly", "no"),
        ]

    def ready(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), 0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False


class PostgresServer(Service):
    """A PostgreSQL cluster of its own (Debian's binaries), trust auth, database ``postgres``.

    As root it runs as the ``postgres`` user (initdb refuses root), in a folder that user
    owns. It listens on 127.0.0.1 and on a Unix socket in its folder. ``fsync`` is off: a
    ``kill()`` is a crash of the server, not of the machine, so nothing committed is lost.
    """

    name = "postgres"
    stop_signal = signal.SIGINT  # "fast" shutdown: roll back sessions, checkpoint, exit

    def __init__(self, folder: Path | None = None) -> None:
        super().__init__(folder)
        self.bin = Path(_find("initdb", "/usr/lib/postgresql/*/bin/initdb")).parent
        self.data = self.folder / "data"
        self.sockets = self.folder / "sockets"
        if os.geteuid() == 0:
            self.user = "postgres"
            account = pwd.getpwnam(self.user)
            self.log_path.touch()
            for path in (self.folder, self.log_path):
                os.chown(path, account.pw_uid, account.pw_gid)
            self.folder.chmod(0o755)

    @property
    def dsn(self) -> str:
        """For asyncpg: ``postgresql://postgres@127.0.0.1:PORT/postgres``."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url(self, database: str = "postgres") -> str:
        """For SQLAlchemy: ``postgresql+asyncpg://postgres@127.0.0.1:PORT/DATABASE``."""
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{database}"

    def prepare(self) -> None:
        self.sockets.mkdir(exist_ok=True)
        if self.user is not None:
            account = pwd.getpwnam(self.user)
            os.chown(self.sockets, account.pw_uid, account.pw_gid)
        subprocess.run(
            [
                str(self.bin / "initdb"),
                *("-D", str(self.data)),
                *["-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"],
            ],
            check=True,
            capture_output=True,
            cwd=self.folder,
            user=self.user,
        )

    def command(self) -> Sequence[str]:
        return [
            str(self.bin / "postgres"),
            *("-D", str(self.data), "-p", str(self.port), "-k", str(self.sockets)),
            *("-h", "127.0.0.1", "-c", "fsync=off"),
            *("-c", "max_connections=40", "-c", "shared_buffers=16MB"),
        ]

    def ready(self) -> bool:
        done = subprocess.run(
            [str(self.bin / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)],
            check=False,
        )
        return done.returncode == 0

    def execute(self, sql: str, database: str = "postgres") -> None:
        """Run ``sql`` with psql (as the superuser ``postgres``)."""
        subprocess.run(
            [
                str(self.bin / "psql"),
                *["-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-U", "postgres"],
                *("-p", str(self.port), "-d", database, "-c", sql),
            ],
            check=True,
            capture_output=True,
        )


class NginxServer(Service):
    """nginx as a round-robin HTTP and WebSocket load balancer over ``upstreams`` (ports).

    The ``http`` part is :func:`bodoge.cluster.nginx.nginx_config`, the configuration
    docs/deploy.md shows; around it only what a test needs: one process in the foreground,
    files in the temporary folder.
    """

    name = "nginx"
    stop_signal = signal.SIGQUIT  # graceful: finish the open requests

    def __init__(
        self,
        upstreams: Sequence[int],
        folder: Path | None = None,
        allow: Sequence[str] = OPERATOR_ALLOW,
    ) -> None:
        super().__init__(folder)
        self.upstreams = list(upstreams)
        self.config_path = self.folder / "nginx.conf"
        #: The operator's server (``/healthz``, ``/metrics``): its port, and who may ask it.
        self.operator_port = free_port()
        self.allow = tuple(allow)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def operator_url(self) -> str:
        return f"http://127.0.0.1:{self.operator_port}/"

    def prepare(self) -> None:
        upstreams = [f"127.0.0.1:{p}" for p in self.upstreams]
        self.config_path.write_text(
            standalone_config(
                upstreams,
                f"127.0.0.1:{self.port}",
                str(self.folder),
                operator=f"127.0.0.1:{self.operator_port}",
                allow=self.allow,
            )
        )

    def command(self) -> Sequence[str]:
        nginx = _find("nginx", "/usr/sbin/nginx")
        f = self.folder
        return [nginx, "-p", str(f), "-c", str(self.config_path), "-e", str(f / "error.log")]

    def log(self, tail: int = 4000) -> str:
        parts = [super().log(tail)]
        with contextlib.suppress(OSError):
            parts.append((self.folder / "error.log").read_bytes()[-tail:].decode(errors="replace"))
        return "\n".join(parts)


@contextlib.contextmanager
def running(*services: Service) -> Iterator[tuple[Service, ...]]:
    """Start ``services``; close every one of them on the way out, whatever happened."""
    try:
        for service in services:
            service.start()
        yield services
    finally:
        for service in services:
            with contextlib.suppress(Exception):
                service.close()


def stop_all() -> None:
    """Kill whatever a test left running (called at interpreter exit)."""
    for service in list(_RUNNING):
        with contextlib.suppress(Exception):
            service.kill()


atexit.register(stop_all)

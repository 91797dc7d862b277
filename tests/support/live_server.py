"""A real ``bodoge serve`` process for tests: start, wait for /healthz, kill -9, restart.

>>> with LiveServer(Path(tempfile.mkdtemp())) as server:  # doctest: +SKIP
...     server.url, server.ws_url
('http://127.0.0.1:41234/', 'ws://127.0.0.1:41234/ws')

The first start asks for any free port (``--port 0``) and reads the URL the
server prints; restarts reuse that port, so clients reconnect to the same
address, on the same data folder.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

ROOT = Path(__file__).resolve().parents[2]
URL_LINE = re.compile(r"serving on (http://\S+?/)\s")
#: Bots move at once; every test client comes from 127.0.0.1, so that address has no cap,
#: and one server serves many tests, so it has no quotas (tests of a quota start their own).
DEFAULT_ARGS = (
    "--bot-delay",
    "0",
    "--max-connections-per-address",
    "0",
    "--new-players-per-hour",
    "0",
    "--waiting-tables-per-player",
    "0",
    "--tables-per-hour",
    "0",
    "--uploads-per-hour",
    "0",
    "--sign-ins-per-hour",
    "0",
    "--sign-ins-per-account-hour",
    "0",
    "--sign-in-brake-per-account-hour",
    "0",
)


class LiveServer:
    def __init__(
        self,
        data: Path,
        *,
        args: Sequence[str] = DEFAULT_ARGS,
        port: int = 0,
        host: str = "127.0.0.1",
    ) -> None:
        self.data = Path(data)
        self.args = list(args)
        self.host = host
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = self.data / "server.log"
        self._starts = 0

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self, timeout: float = 30.0) -> LiveServer:
        self.data.mkdir(parents=True, exist_ok=True)
        self._starts += 1
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child keeps it open
        log.write(f"--- start {self._starts}\n".encode())
        log.flush()
        mark = self.log_path.stat().st_size
        command = [
            sys.executable,
            "-m",
            "bodoge",
            "serve",
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--data",
            str(self.data),
            # no puzzles made in the background unless a test asks (a worker's minute of CPU)
            *([] if "--initial-puzzles" in self.args else ["--initial-puzzles", "0"]),
            *self.args,
        ]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited early:\n{self.log()}")
            if self.port == 0:
                with open(self.log_path, "rb") as f:
                    f.seek(mark)
                    found = URL_LINE.search(f.read().decode(errors="replace"))
                if found:
                    self.port = int(found.group(1).rsplit(":", 1)[1].rstrip("/"))
            if self.port and self._healthy():
                return self
            time.sleep(0.05)
        self.kill()
        raise TimeoutError(f"the server did not answer /healthz:\n{self.log()}")

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "healthz", timeout=1) as response:
                return response.status == 200
        except OSError:
            return False

    def kill(self) -> None:
        """``kill -9``: no shutdown code runs, as in a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        """A polite stop (SIGTERM), falling back to ``kill -9``."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None

    def restart(self, *, crash: bool = True) -> LiveServer:
        """Kill (``-9`` unless ``crash=False``) and start again on the same data and port."""
        self.kill() if crash else self.stop()
        return self.start()

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-5000:]
        except OSError:
            return ""

    def __enter__(self) -> LiveServer:
        if self.process is None:
            self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def temporary_server(**kwargs: object) -> LiveServer:
    """A server on a fresh temporary data folder (not started)."""
    return LiveServer(Path(tempfile.mkdtemp(prefix="bodoge-live-")), **kwargs)  # type: ignore[arg-type]
